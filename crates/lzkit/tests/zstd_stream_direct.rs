//! `FrameDecoder`'s direct reads: a `read` that starts a frame whose header
//! states its content size, with a buffer that holds all of it, decodes the
//! frame straight into the buffer and returns its content size. Every
//! other read goes through the window. Both ways give the same bytes and,
//! for every bad frame, the same error (and the error kind the one-shot
//! decoder gives), never write past the content size, and never count the
//! buffer's old bytes as output.

use lzkit::Error;
use lzkit::zstd::{Decoder, Dictionary, FrameDecoder};
use lzkit_testkit::zstd_check::Chunked;
use std::io::{self, Read, Write};

/// Deterministic data: runs of text-like copies and random bytes.
fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words: [&[u8]; 6] = [
        b"the ",
        b"frame ",
        b"decoder ",
        b"window ",
        b"block ",
        b"\n",
    ];
    let mut v = Vec::with_capacity(len);
    while v.len() < len {
        let r = next();
        match r % 4 {
            0 => v.extend_from_slice(words[(r >> 8) as usize % words.len()]),
            1 if v.len() > 1000 => {
                let back = 1 + (r >> 8) as usize % v.len().min(100_000);
                let from = v.len() - back;
                for i in 0..4 + (r >> 32) as usize % 100 {
                    let b = v[from + i];
                    v.push(b);
                }
            }
            _ => v.push((r >> 16) as u8),
        }
    }
    v.truncate(len);
    v
}

/// Random bytes (raw blocks).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u8
        })
        .collect()
}

/// A libzstd frame of `src` at `level`: with the content size stated when
/// `pledged` (the streaming encoder without a pledged size states none),
/// with a checksum when `checksum`.
fn frame(src: &[u8], level: i32, pledged: bool, checksum: bool) -> Vec<u8> {
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), level).unwrap();
    enc.include_checksum(checksum).unwrap();
    if pledged {
        enc.set_pledged_src_size(Some(src.len() as u64)).unwrap();
        enc.include_contentsize(true).unwrap();
    }
    for part in src.chunks(10_000) {
        enc.write_all(part).unwrap();
    }
    let f = enc.finish().unwrap();
    assert_eq!(fcs_field(&f).is_some(), pledged, "content size field");
    f
}

/// The content size field of the frame at the start of `f`: its offset,
/// its length and its value.
fn fcs_field(f: &[u8]) -> Option<(usize, usize, u64)> {
    let fhd = f[4];
    let single = fhd & 0x20 != 0;
    let did = [0, 1, 2, 4][(fhd & 3) as usize];
    let len = match fhd >> 6 {
        0 if single => 1,
        0 => return None,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let at = 5 + usize::from(!single) + did;
    let mut v = 0u64;
    for i in 0..len {
        v |= u64::from(f[at + i]) << (8 * i);
    }
    if len == 2 {
        v += 256;
    }
    Some((at, len, v))
}

/// `f` with its content size field set to `size` (which must fit it).
fn with_content_size(f: &[u8], size: u64) -> Vec<u8> {
    let (at, len, _) = fcs_field(f).unwrap();
    let v = if len == 2 { size - 256 } else { size };
    assert!(len == 8 || v < 1 << (8 * len), "{size} does not fit");
    let mut g = f.to_vec();
    for i in 0..len {
        g[at + i] = (v >> (8 * i)) as u8;
    }
    g
}

/// Everything `d` gives, read `size` bytes at a time, and the error that
/// ended it (as its message), if any.
fn drain<R: Read>(d: &mut FrameDecoder<R>, size: usize) -> (Vec<u8>, Option<io::Error>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; size];
    loop {
        match d.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(e)),
        }
    }
}

/// The innermost lzkit error inside `e`'s frame and block wrappers.
fn innermost(e: &Error) -> &Error {
    match e {
        Error::Frame { source, .. } | Error::Block { source, .. } => innermost(source),
        e => e,
    }
}

fn lzkit_error(e: io::Error) -> Error {
    Error::from_io(e)
}

/// `src` read through a direct first read (a buffer of `room` bytes), and
/// through the window (7-byte reads); both must agree, with each other
/// and with the one-shot decoder; returns the direct way's result.
fn agree(src: &[u8], room: usize) -> Result<Vec<u8>, String> {
    let (direct, de) = drain(&mut FrameDecoder::new(src), room);
    let (window, we) = drain(&mut FrameDecoder::new(src), 7);
    let one = Decoder::new().decompress(src);
    match (de, we, one) {
        (None, None, Ok(one)) => {
            assert!(direct == window && direct == one, "outputs differ");
            Ok(direct)
        }
        (Some(de), Some(we), Err(oe)) => {
            let (dk, wk) = (de.kind(), we.kind());
            let (de, we) = (lzkit_error(de), lzkit_error(we));
            assert_eq!(de.to_string(), we.to_string(), "direct and window errors");
            assert_eq!(dk, wk);
            assert_eq!(
                std::mem::discriminant(innermost(&de)),
                std::mem::discriminant(innermost(&oe)),
                "stream: {de}; one-shot: {oe}"
            );
            Err(de.to_string())
        }
        (de, we, one) => panic!(
            "verdicts differ: direct {de:?}, window {we:?}, one-shot {:?}",
            one.err()
        ),
    }
}

#[test]
fn exact_and_larger_buffers_take_the_whole_frame_in_one_read() {
    for (len, level) in [
        (1usize, 1),
        (5000, 3),
        (300_000, 1),
        (1_000_000, 19),
        (600_000, -5),
    ] {
        let src = data(len, len as u64);
        for checksum in [false, true] {
            let f = frame(&src, level, true, checksum);
            for extra in [0usize, 1, 4096] {
                let mut buf = vec![0xAAu8; len + extra];
                let mut d = FrameDecoder::new(&f[..]);
                assert_eq!(d.read(&mut buf).unwrap(), len, "len {len} level {level}");
                assert!(buf[..len] == src[..]);
                assert!(
                    buf[len..].iter().all(|&b| b == 0xAA),
                    "wrote past the content"
                );
                assert_eq!(d.read(&mut buf).unwrap(), 0);
            }
        }
    }
}

#[test]
fn one_byte_short_goes_through_the_window() {
    let src = data(400_000, 7);
    let f = frame(&src, 3, true, true);
    let mut d = FrameDecoder::new(&f[..]);
    let mut buf = vec![0u8; src.len() - 1];
    let n = d.read(&mut buf).unwrap();
    assert!(n < buf.len(), "a window read gives a block at most");
    let mut out = buf[..n].to_vec();
    d.read_to_end(&mut out).unwrap();
    assert!(out == src);
    let mut d = FrameDecoder::new(&f[..]);
    let mut out = vec![0u8; src.len()];
    d.read_exact(&mut out).unwrap();
    assert!(out == src);
}

#[test]
fn frames_without_content_size_go_through_the_window() {
    let src = data(300_000, 11);
    let f = frame(&src, 3, false, true);
    let mut d = FrameDecoder::new(&f[..]);
    let mut buf = vec![0u8; 1 << 20];
    let n = d.read(&mut buf).unwrap();
    assert!(n < src.len());
    let mut out = buf[..n].to_vec();
    d.read_to_end(&mut out).unwrap();
    assert!(out == src);
    assert_eq!(agree(&f, 1 << 20).unwrap(), src);
}

#[test]
fn trickling_readers_and_many_frames() {
    let a = data(250_000, 1);
    let b = data(90_000, 2);
    let c = noise(140_000, 3);
    let e: Vec<u8> = Vec::new();
    let mut stream = Vec::new();
    stream.extend(frame(&a, 3, true, true));
    // A skippable frame.
    stream.extend(0x184D_2A53u32.to_le_bytes());
    stream.extend(5u32.to_le_bytes());
    stream.extend(b"skip!");
    stream.extend(frame(&b, 5, false, true));
    stream.extend(frame(&e, 3, true, true));
    stream.extend(frame(&c, 1, true, false));
    stream.extend(frame(&b, 19, true, true));
    let want = [&a[..], &b, &e, &c, &b].concat();
    for per_call in [1usize, 3, 1000, 1 << 20] {
        for room in [a.len(), 300_000, want.len()] {
            let mut d = FrameDecoder::new(Chunked::new(&stream, per_call));
            let mut buf = vec![0u8; room];
            let first = d.read(&mut buf).unwrap();
            assert_eq!(first, a.len(), "the first frame in one read");
            let mut out = buf[..first].to_vec();
            let (rest, err) = drain(&mut d, room);
            assert!(err.is_none(), "{err:?}");
            out.extend(rest);
            assert!(
                out == want,
                "{per_call}-byte input reads, {room}-byte reads"
            );
        }
    }
    assert_eq!(agree(&stream, 300_000).unwrap(), want);
}

#[test]
fn dictionary_frames() {
    let dict = data(20_000, 99);
    let src = [&dict[5000..15_000], &data(200_000, 5)[..]].concat();
    let f = zstd::bulk::Compressor::with_dictionary(3, &dict)
        .unwrap()
        .compress(&src)
        .unwrap();
    let mut d = FrameDecoder::with_decoder(
        &f[..],
        Decoder::new().with_dictionary(Dictionary::new(&dict).unwrap()),
    );
    let mut buf = vec![0u8; src.len()];
    assert_eq!(d.read(&mut buf).unwrap(), src.len());
    assert!(buf == src);
}

#[test]
fn reader_errors_come_through() {
    struct Failing<'a>(&'a [u8]);
    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("the disk is gone"));
            }
            let n = buf.len().min(self.0.len()).min(1000);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let src = data(200_000, 4);
    let f = frame(&src, 3, true, true);
    let mut buf = vec![0u8; src.len()];
    let e = FrameDecoder::new(Failing(&f[..f.len() / 2]))
        .read(&mut buf)
        .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::Other);
    assert_eq!(e.to_string(), "the disk is gone");
}

#[test]
fn content_size_smaller_or_larger_than_the_blocks_is_an_error() {
    let compressible = data(300_000, 21);
    let raw = noise(300_000, 22);
    let rle = vec![7u8; 300_000];
    for (what, src) in [("compressed", &compressible), ("raw", &raw), ("rle", &rle)] {
        for level in [1, 19] {
            for checksum in [false, true] {
                let f = frame(src, level, true, checksum);
                let len = src.len() as u64;
                for stated in [
                    1000,
                    131_071,
                    131_072,
                    131_073,
                    len - 1,
                    len + 1,
                    len + 200_000,
                ] {
                    let g = with_content_size(&f, stated);
                    for room in [stated as usize, stated as usize + 100] {
                        let mut buf = vec![0xAAu8; room];
                        let mut d = FrameDecoder::new(&g[..]);
                        let e = d.read(&mut buf).unwrap_err();
                        assert!(
                            buf[stated as usize..].iter().all(|&b| b == 0xAA),
                            "{what}: wrote past the stated size {stated}"
                        );
                        let e = lzkit_error(e);
                        // A single-segment frame's window (and so its
                        // block maximum and its reach) is its content
                        // size: stating much less may fail a block first.
                        assert!(
                            stated + 1 < len || matches!(innermost(&e), Error::ContentSize { .. }),
                            "{what} level {level} stated {stated}: {e}"
                        );
                        // Later reads give the error again, nothing else.
                        assert!(d.read(&mut buf).is_err());
                        let msg = agree(&g, room).unwrap_err();
                        assert_eq!(msg, e.to_string());
                    }
                }
            }
        }
    }
}

#[test]
fn content_size_smaller_than_the_blocks_past_the_window() {
    // Window 2^15, far less than the content: the window takes the frame
    // over from its last 2^15 bytes decoded.
    let src = data(700_000, 41);
    for (log, level) in [(15u32, 3), (17, 19), (10, 1)] {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), level).unwrap();
        enc.window_log(log).unwrap();
        enc.include_checksum(true).unwrap();
        enc.set_pledged_src_size(Some(src.len() as u64)).unwrap();
        enc.write_all(&src).unwrap();
        let f = enc.finish().unwrap();
        assert_eq!(agree(&f, src.len()).unwrap(), src);
        let len = src.len() as u64;
        for stated in [len - 1, len - 200, 600_000, len + 1] {
            let g = with_content_size(&f, stated);
            let e = agree(&g, stated as usize).unwrap_err();
            assert!(
                e.contains("content size"),
                "window 2^{log}, stated {stated}: {e}"
            );
        }
    }
}

#[test]
fn corrupt_and_truncated_frames_get_the_window_verdict() {
    let src = data(260_000, 31);
    for (level, checksum) in [(1, true), (19, true), (3, false)] {
        let f = frame(&src, level, true, checksum);
        let mut seen = 0;
        let mut flip = |g: Vec<u8>| {
            if agree(&g, src.len()).is_err() {
                seen += 1;
            }
            // Through a trickling reader as well.
            let (_, e) = drain(&mut FrameDecoder::new(Chunked::new(&g, 1)), src.len() + 5);
            let (_, w) = drain(&mut FrameDecoder::new(&g[..]), src.len() + 5);
            assert_eq!(e.map(|e| e.to_string()), w.map(|e| e.to_string()));
        };
        let step = (f.len() / 150).max(1);
        for at in (0..f.len()).step_by(step).chain(f.len() - 8..f.len()) {
            for mask in [0x01u8, 0x80, 0xFF] {
                let mut g = f.clone();
                g[at] ^= mask;
                flip(g);
            }
        }
        for cut in (1..f.len()).step_by(step).chain(f.len() - 5..f.len()) {
            let g = f[..cut].to_vec();
            let e = agree(&g, src.len()).unwrap_err();
            assert!(!e.is_empty());
            seen += 1;
        }
        assert!(seen > 100, "{seen} corrupt frames rejected");
    }
}
