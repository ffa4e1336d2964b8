//! The streaming zstd decoder's window over many windows of output:
//! frames made by libzstd with small windows (window logs 10 to 17) from
//! data whose matches reach back to the window's edge (offsets of the
//! window and a few bytes less, the farthest a match may reach), so that
//! every way `FrameDecoder` keeps its window (growing it, moving its last
//! window down, reusing it for the next frame) is crossed by matches
//! hundreds of times. Each frame is read through 1-byte, odd and large
//! reads, on both sides, and must give the original bytes, as libzstd
//! does, and as the one-shot decoder does.

use lzkit::zstd::{Decoder, Dictionary, FrameDecoder};
use lzkit_testkit::zstd_check::{Chunked, stream};
use lzkit_testkit::zstd_ref::{self, Settings};
use lzkit_testkit::{Rng, assert_same, text};
use std::io::Read;

/// `len` bytes of copies from at most `window` back, most of them from
/// the window's edge (offsets `window`, `window - 1`, ... `window - 40`),
/// the rest from a quarter, half and three quarters of it and from close
/// by, between short runs of random bytes.
fn edge_copies(len: usize, window: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::for_data(seed);
    let mut v: Vec<u8> = (0..window).map(|_| r.next_u64() as u8).collect();
    while v.len() < len {
        let offset = match r.below(8) {
            0..=3 => window - (r.below(41) as usize),
            4 => window / 4,
            5 => window / 2,
            6 => 3 * window / 4,
            _ => 1 + (r.below(64) as usize),
        };
        let n = 4 + (r.below(300) as usize);
        let from = v.len() - offset;
        for i in 0..n {
            let b = v[from + i];
            v.push(b);
        }
        for _ in 0..r.below(24) {
            v.push(r.next_u64() as u8);
        }
    }
    v.truncate(len);
    v
}

/// `src` through a `FrameDecoder` around `decoder`, reading `input` bytes
/// at a time from the input and asking for `output` bytes at a time.
fn stream_sizes(src: &[u8], decoder: Decoder, input: usize, output: usize) -> Vec<u8> {
    let mut r = FrameDecoder::with_decoder(Chunked::new(src, input), decoder);
    let mut out = Vec::new();
    let mut buf = vec![0u8; output];
    loop {
        let n = r.read(&mut buf).expect("the frame decodes");
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Decode `f` (of `original`) with 1-byte, odd and large reads, one-shot,
/// and with libzstd: all must give `original`.
fn check(f: &[u8], original: &[u8], dict: Option<&[u8]>, what: &str) {
    let decoder = || match dict {
        Some(d) => Decoder::new().with_dictionary(Dictionary::new(d).expect("dictionary")),
        None => Decoder::new(),
    };
    let reference = zstd_ref::decompress(f, dict).expect("libzstd decodes");
    assert_same(&reference, original, &format!("{what}: libzstd"));
    let one_shot = decoder().decompress(f).expect("one-shot decoding");
    assert_same(&one_shot, original, &format!("{what}: Decoder::decompress"));
    for (input, output) in [(1, 1), (7, 13), (4096, 1), (1, 65_539), (65_539, 4096)] {
        let ours = stream_sizes(f, decoder(), input, output);
        assert_same(
            &ours,
            original,
            &format!("{what}: FrameDecoder ({input}-byte input, {output}-byte reads)"),
        );
    }
}

/// Window logs 10 to 17 at levels 1, 3 and 19: several hundred windows of
/// output, matches at the window's edge across every move of the window.
#[test]
fn matches_at_the_window_edge_over_many_windows() {
    for (log, level, len) in [
        (10u32, 19, 600_000),
        (10, 1, 600_000),
        (11, 3, 1 << 20),
        (12, 19, 2 << 20),
        (13, 1, 2 << 20),
        (16, 3, 3 << 20),
        (17, 19, 3 << 20),
    ] {
        let window = 1usize << log;
        let original = edge_copies(len, window, u64::from(log) * 31 + level as u64);
        for checksum in [false, true] {
            let s = Settings::new(level)
                .window_log(Some(log))
                .checksum(checksum);
            let f = zstd_ref::compress(&original, &s, None);
            // The edge copies must have been found: far smaller than the
            // random bytes between them would be alone.
            assert!(
                f.len() < original.len() / 2,
                "window 2^{log} level {level}: {} bytes for {}",
                f.len(),
                original.len()
            );
            check(
                &f,
                &original,
                None,
                &format!("window 2^{log} level {level} checksum {checksum}"),
            );
        }
    }
}

/// Text with a small window, and blocks ended every few KiB (raw, RLE and
/// compressed blocks of every size, block ends on every side of a move).
#[test]
fn text_with_small_windows_and_forced_blocks() {
    let original = text(3 << 20, 7);
    for (log, level, flush) in [
        (10u32, 19, Some(1000)),
        (12, 3, Some(5000)),
        (14, 19, None),
        (17, 1, Some(70_000)),
    ] {
        let s = Settings::new(level)
            .window_log(Some(log))
            .flush_every(flush);
        let f = zstd_ref::compress(&original, &s, None);
        check(
            &f,
            &original,
            None,
            &format!("text window 2^{log} level {level}"),
        );
    }
}

/// A raw-content dictionary used by the frame's first matches (the window
/// then reaches into the dictionary), then many windows of output, with
/// matches at the window's edge, after which it is out of reach.
#[test]
fn dictionary_then_many_windows() {
    let dict = text(20_000, 3);
    let mut original = dict[5_000..15_000].to_vec();
    original.extend_from_slice(&dict[..3000]);
    original.extend(edge_copies(1 << 20, 1 << 12, 9));
    original.extend_from_slice(&dict[10_000..]);
    for (log, level) in [(12u32, 19), (15, 3), (17, 1)] {
        let s = Settings::new(level).window_log(Some(log));
        let f = zstd_ref::compress(&original, &s, Some(&dict));
        check(
            &f,
            &original,
            Some(&dict),
            &format!("dictionary, window 2^{log} level {level}"),
        );
    }
}

/// Frames of different windows in a row through one `FrameDecoder` (its
/// buffer reused, larger or smaller than the next frame needs): each
/// frame's output is its own, with nothing of the frame before.
#[test]
fn frames_of_different_windows_in_a_row() {
    let mut all = Vec::new();
    let mut original = Vec::new();
    for (i, (log, len)) in [
        (17u32, 1usize << 20),
        (10, 300_000),
        (20, 600_000),
        (12, 700_000),
        (10, 0),
        (11, 5),
        (16, 900_000),
    ]
    .into_iter()
    .enumerate()
    {
        let data = edge_copies(len.max(1 << log), 1 << log, i as u64 + 40);
        let data = &data[..len];
        let s = Settings::new([1, 19, 3][i % 3])
            .window_log(Some(log))
            .content_size(i % 2 == 0);
        all.extend(zstd_ref::compress(data, &s, None));
        original.extend_from_slice(data);
    }
    assert_same(
        &zstd_ref::decompress(&all, None).expect("libzstd decodes"),
        &original,
        "libzstd",
    );
    for k in [1, 7, 4096, 100_000] {
        let ours = stream(&all, Decoder::new(), k).expect("the frames decode");
        assert_same(&ours, &original, &format!("FrameDecoder ({k}-byte reads)"));
    }
}
