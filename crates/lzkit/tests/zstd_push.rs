//! The push decoder (`lzkit::zstd::PushDecoder`): any split of a stream
//! into pieces gives exactly what one-shot decoding gives and what libzstd
//! gives (single and several frames, skippable frames between, a trained
//! dictionary, checksums); each push reports the frames' ends where they
//! are; a stream cut anywhere is an error only once its end is said, with
//! the output so far a prefix of the whole; corrupt streams get the pull
//! decoder's verdict, never a panic; the window limit and the
//! filtered-stream check are the pull decoder's.

use lzkit::Error;
use lzkit::zstd::{self, DecodeOptions, Decoder, Dictionary, FrameDecoder, PushDecoder};
use lzkit_testkit::zstd_check::{push_pieces, stream, zstd_frame_fault};
use lzkit_testkit::zstd_frames::{FrameHeader, raw_block, skippable_frame};
use lzkit_testkit::zstd_ref::{self, Settings};
use lzkit_testkit::{KINDS, generate_kind, text};
use proptest::prelude::*;
use std::io::Read;
use std::sync::OnceLock;

/// A dictionary trained by libzstd on text samples (once per process).
fn dictionary() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| {
        let samples: Vec<Vec<u8>> = (0..300).map(|i| text(300, 500 + i)).collect();
        zstd_ref::train_dictionary(&samples, 4 << 10).expect("training")
    })
}

fn with_dict(dict: bool) -> Decoder {
    let d = Decoder::new();
    if dict {
        d.with_dictionary(Dictionary::new(dictionary()).expect("dictionary"))
    } else {
        d
    }
}

/// One part of a generated stream.
#[derive(Clone, Debug)]
enum Part {
    /// A zstd frame of `len` bytes of a data kind, at a level, with or
    /// without a checksum and a content size.
    Frame {
        kind: usize,
        len: usize,
        seed: u64,
        level: i32,
        checksum: bool,
        content_size: bool,
    },
    /// A skippable frame with this many bytes of payload.
    Skippable(usize),
}

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        4 => (0..KINDS.len(), 0usize..300_000, any::<u64>(), -3i32..=9, any::<bool>(), any::<bool>())
            .prop_map(|(kind, len, seed, level, checksum, content_size)| Part::Frame {
                kind,
                len: if seed % 3 == 0 { len % 300 } else { len },
                seed,
                level,
                checksum,
                content_size,
            }),
        1 => (0usize..40).prop_map(Part::Skippable),
    ]
}

/// The stream of `parts` (with the dictionary if `dict`), its content,
/// and where each frame (skippable ones too) ends in it.
fn build(parts: &[Part], dict: bool) -> (Vec<u8>, Vec<u8>, Vec<usize>) {
    let mut src = Vec::new();
    let mut content = Vec::new();
    let mut ends = Vec::new();
    for p in parts {
        match *p {
            Part::Frame {
                kind,
                len,
                seed,
                level,
                checksum,
                content_size,
            } => {
                let data = generate_kind(KINDS[kind], len, seed);
                let s = Settings::new(level)
                    .checksum(checksum)
                    .content_size(content_size);
                src.extend(zstd_ref::compress(&data, &s, dict.then(dictionary)));
                content.extend(data);
            }
            Part::Skippable(n) => src.extend(skippable_frame(n as u8 & 15, &vec![7; n])),
        }
        ends.push(src.len());
    }
    (src, content, ends)
}

/// `src` pushed at the cuts `cuts` (positions, any order, duplicates
/// allowed): the output, and where each push reported a frame's end.
fn push_at_cuts(
    src: &[u8],
    cuts: &[usize],
    decoder: Decoder,
) -> (Result<Vec<u8>, Error>, Vec<usize>) {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c % (src.len() + 1)).collect();
    cuts.push(src.len());
    cuts.sort_unstable();
    let mut d = PushDecoder::with_decoder(decoder);
    let mut out = Vec::new();
    let mut ends = Vec::new();
    let mut at = 0;
    for c in cuts {
        while at < c {
            match d.push(&src[at..c], &mut out) {
                Ok(p) => {
                    assert!(p.consumed > 0 && p.consumed <= c - at);
                    assert!(p.frame_ended || p.consumed == c - at);
                    at += p.consumed;
                    if p.frame_ended {
                        ends.push(at);
                    }
                }
                Err(e) => return (Err(e), ends),
            }
        }
    }
    (d.finish().map(|()| out), ends)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any split of any stream of frames gives exactly the one-shot
    /// output, the original data and libzstd's output; the frames' ends
    /// are reported where they are.
    #[test]
    fn any_split_gives_the_one_shot_output(
        parts in proptest::collection::vec(part(), 1..4),
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
        dict in any::<bool>(),
    ) {
        let (src, content, ends) = build(&parts, dict);
        let one_shot = with_dict(dict).decompress(&src).expect("one-shot");
        prop_assert!(one_shot == content, "one-shot differs from the original");
        let libzstd = zstd_ref::decompress(&src, dict.then(dictionary)).expect("libzstd");
        prop_assert!(libzstd == content, "libzstd differs from the original");
        let (out, pushed_ends) = push_at_cuts(&src, &cuts, with_dict(dict));
        let out = out.expect("pushed");
        prop_assert!(out == content, "pushed: {} bytes, expected {}", out.len(), content.len());
        prop_assert_eq!(pushed_ends, ends);
    }

    /// A stream cut anywhere: every push succeeds, the output is a prefix
    /// of the whole, and the end is an error exactly when the cut is
    /// inside a frame.
    #[test]
    fn a_cut_stream_is_an_error_only_at_its_end(
        parts in proptest::collection::vec(part(), 1..3),
        cut in any::<usize>(),
        piece in 1usize..70_000,
    ) {
        let (src, content, ends) = build(&parts, false);
        let cut = cut % (src.len() + 1);
        let mut d = PushDecoder::new();
        let mut out = Vec::new();
        let mut at = 0;
        while at < cut {
            let n = piece.min(cut - at);
            let p = d.push(&src[at..at + n], &mut out).expect("a push before the cut");
            at += p.consumed;
        }
        prop_assert!(content.starts_with(&out));
        let on_a_boundary = cut == 0 || ends.contains(&cut);
        prop_assert_eq!(d.in_frame(), !on_a_boundary);
        match d.finish() {
            Ok(()) => prop_assert!(on_a_boundary, "a stream cut at {cut} inside a frame ended well"),
            Err(e) => {
                prop_assert!(!on_a_boundary, "a stream cut between frames: {e}");
                prop_assert!(e.to_string().contains("unexpected end of input"), "{e}");
            }
        }
    }

    /// Corrupt streams (bytes changed, inserted, deleted): the pushed
    /// verdict and bytes are the pull decoder's, whatever the pieces.
    #[test]
    fn corrupt_streams_get_the_pull_decoders_verdict(
        parts in proptest::collection::vec(part(), 1..3),
        edits in proptest::collection::vec((any::<usize>(), 0u8..3, any::<u8>()), 1..6),
        piece in prop_oneof![Just(1usize), 2usize..5000, Just(1usize << 20)],
        dict in any::<bool>(),
    ) {
        let (mut src, _, _) = build(&parts, dict);
        for (at, op, v) in edits {
            if src.is_empty() {
                break;
            }
            let at = at % src.len();
            match op {
                0 => src[at] ^= v | 1,
                1 => src.insert(at, v),
                _ => {
                    src.remove(at);
                }
            }
        }
        let pull = stream(&src, with_dict(dict), 4096);
        let pushed = push_pieces(&src, with_dict(dict), &[piece], usize::MAX);
        match (&pull, &pushed) {
            (Ok(a), Ok(b)) => prop_assert!(a == b, "pushed other bytes than pulled"),
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            _ => prop_assert!(false, "pull {:?} but push {:?}", pull.as_ref().map(Vec::len), pushed.as_ref().map(Vec::len)),
        }
    }
}

/// Frames of libzstd with every setting, one byte at a time and in one
/// push: the same as libzstd's output (a checksum, a long window, raw
/// and RLE blocks, a flush per 1000 bytes).
#[test]
fn one_byte_pieces_match_libzstd() {
    let data = text(400_000, 3);
    for s in [
        Settings::new(3).checksum(true),
        Settings::new(1).content_size(false),
        Settings::new(19).window_log(Some(20)),
        Settings::new(-5).flush_every(Some(1000)),
    ] {
        let f = zstd_ref::compress(&data, &s, None);
        for piece in [1, 3, 131_075, f.len()] {
            let out = push_pieces(&f, Decoder::new(), &[piece], usize::MAX).expect("pushed");
            assert!(out == data, "{s:?}, {piece}-byte pieces");
        }
    }
}

/// A wrong content checksum is reported, with where it is; with
/// checksums unverified it is not.
#[test]
fn a_wrong_checksum_is_reported() {
    let data = text(50_000, 9);
    let mut f = zstd_ref::compress(&data, &Settings::new(3).checksum(true), None);
    let last = f.len() - 1;
    f[last] ^= 1;
    for piece in [1, 2, 1000, f.len()] {
        let e = push_pieces(&f, Decoder::new(), &[piece], usize::MAX).unwrap_err();
        assert!(e.to_string().contains("content checksum mismatch"), "{e}");
        let opts = DecodeOptions::new().verify_checksums(false);
        let out = push_pieces(&f, Decoder::with_options(opts), &[piece], usize::MAX).unwrap();
        assert!(out == data);
    }
}

/// A frame whose window passes the limit is refused as the pull decoder
/// refuses it, before any block; raised, it is decoded.
#[test]
fn the_window_limit_is_the_pull_decoders() {
    // A header claiming a 1 GiB window, over one small raw block.
    let mut f = FrameHeader::with_window_log(30).to_bytes();
    f.extend(raw_block(true, b"tiny"));
    let e = push_pieces(&f, Decoder::new(), &[1], usize::MAX).unwrap_err();
    assert!(
        matches!(
            zstd_frame_fault(&e),
            Some(lzkit::ZstdFrameFault::WindowTooLarge { .. })
        ),
        "{e}"
    );
    let pull = FrameDecoder::new(&f[..])
        .read_to_end(&mut Vec::new())
        .unwrap_err();
    assert_eq!(e.to_string(), Error::from_io(pull).to_string());
    let opts = DecodeOptions::new().window_log_max(30);
    let out = push_pieces(&f, Decoder::with_options(opts), &[2], usize::MAX).unwrap();
    assert_eq!(out, b"tiny");
}

/// An error is returned again by every later call.
#[test]
fn an_error_is_returned_again() {
    let mut d = PushDecoder::new();
    let e = d.push(b"not zstd at all", &mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("unknown magic number"), "{e}");
    let again = d
        .push(&[0x28, 0xb5, 0x2f, 0xfd], &mut Vec::new())
        .unwrap_err();
    assert_eq!(again.to_string(), e.to_string());
    assert_eq!(d.finish().unwrap_err().to_string(), e.to_string());
}

/// A bad magic number is reported as soon as its four bytes are in, not
/// only at the end of the input; a frame needing a dictionary it was not
/// given says which.
#[test]
fn early_verdicts() {
    let mut d = PushDecoder::new();
    assert!(d.push(b"PK\x03", &mut Vec::new()).is_ok());
    assert!(d.push(b"\x04", &mut Vec::new()).is_err());
    let f = zstd_ref::compress(&text(1000, 1), &Settings::new(3), Some(dictionary()));
    let e = push_pieces(&f, Decoder::new(), &[7], usize::MAX).unwrap_err();
    assert!(e.to_string().contains("dictionary"), "{e}");
}

/// The filtered-stream check (when asked for) refuses a filtered stream
/// joined with another frame, whatever the pieces, as the pull decoder.
#[test]
fn filtered_streams_joined_are_refused() {
    let filter: lzkit::filter::Filter = "delta4".parse().unwrap();
    let mut joined = zstd_ref::compress(b"another file", &Settings::new(3), None);
    joined.extend(filter.frame());
    joined.extend(zstd_ref::compress(
        &filter.encode(&[7; 64]),
        &Settings::new(3),
        None,
    ));
    let opts = DecodeOptions::new().filtered_streams(true);
    for piece in [1, 5, joined.len()] {
        let e =
            push_pieces(&joined, Decoder::with_options(opts), &[piece], usize::MAX).unwrap_err();
        assert!(e.to_string().contains("filtered stream"), "{e}");
    }
    // Unchecked, the frames are decoded (the filter frame skipped).
    let out = push_pieces(&joined, Decoder::new(), &[3], usize::MAX).unwrap();
    assert_eq!(out, zstd::decompress(&joined).unwrap());
}
