//! Tests of `lzkit::lz4::block`: round trips at every level over data shapes
//! and sizes that stress the format, the compressor's output checked against
//! the format rules by an independent reader, buffer-size handling, and
//! precise errors on malformed blocks.

use lzkit::lz4::block::{
    self, LAST_LITERALS, MAX_DISTANCE, MAX_INPUT_SIZE, MF_LIMIT, compress, compress_into,
    compress_with_dict, decompress, decompress_into, decompress_with_dict_into,
    max_compressed_size,
};
use lzkit::{Error, Fault, Lz4Fault};
use lzkit_testkit::Rng;
use lzkit_testkit::*;
use proptest::prelude::*;

/// Compress `data` at `level` and check everything a caller may rely on:
/// the size bound, the format rules (with the reference reader), and
/// decoding with exact, larger and garbage-filled buffers.
#[track_caller]
fn check_roundtrip(data: &[u8], level: i32, what: &str) {
    let c = compress(data, level);
    assert!(
        c.len() <= max_compressed_size(data.len()),
        "{what}: level {level}: compressed {} bytes > bound {}",
        c.len(),
        max_compressed_size(data.len())
    );
    // The reference reader must understand it, and it must obey the end rules.
    let (ref_out, seqs) = ref_decode(&c, data.len()).unwrap_or_else(|e| {
        panic!("{what}: level {level}: reference decoder rejects our block: {e}")
    });
    assert_same(
        &ref_out,
        data,
        &format!("{what}: level {level}: reference decode"),
    );
    if let Err(e) = check_end_rules(&seqs, data.len()) {
        panic!(
            "{what}: level {level}, {} bytes: block breaks a format rule: {e}",
            data.len()
        );
    }
    for s in &seqs {
        assert!(
            s.offset_at.is_none() || s.offset <= MAX_DISTANCE,
            "{what}: offset {} > MAX_DISTANCE",
            s.offset
        );
    }

    // Exact capacity, dst full of garbage.
    let mut dst = vec![0xAAu8; data.len()];
    let n = decompress_into(&c, &mut dst)
        .unwrap_or_else(|e| panic!("{what}: level {level}: decode failed: {e}"));
    assert_eq!(n, data.len(), "{what}: level {level}: decoded length");
    assert_same(
        &dst,
        data,
        &format!("{what}: level {level}: exact capacity"),
    );

    // Larger capacity: exact length returned.
    let mut big = vec![0x55u8; data.len() + 1 + data.len() / 3 + 64];
    let n = decompress_into(&c, &mut big).unwrap();
    assert_eq!(
        n,
        data.len(),
        "{what}: level {level}: decoded length, larger dst"
    );
    assert_same(
        &big[..n],
        data,
        &format!("{what}: level {level}: larger capacity"),
    );

    // Allocating variant.
    let v = decompress(&c, data.len()).unwrap();
    assert_same(&v, data, &format!("{what}: level {level}: decompress()"));
}

#[test]
fn empty_input() {
    for level in LEVELS {
        let c = compress(&[], level);
        assert!(!c.is_empty(), "an empty block still has a token");
        let mut dst = [0u8; 0];
        assert_eq!(decompress_into(&c, &mut dst).unwrap(), 0);
        let mut dst = [0xAAu8; 16];
        assert_eq!(decompress_into(&c, &mut dst).unwrap(), 0);
    }
    // The canonical empty block: one token with no literals.
    assert_eq!(decompress_into(&[0x00], &mut []).unwrap(), 0);
}

#[test]
fn interesting_sizes_all_shapes_all_levels() {
    for n in interesting_small_sizes() {
        let mut shapes = vec![
            Shape::Random,
            Shape::Run(0),
            Shape::Run(0xFF),
            Shape::Text,
            Shape::Tail,
            Shape::Mixed,
            Shape::LowEntropy,
        ];
        shapes.extend((1..=16).map(Shape::Periodic));
        for (i, &shape) in shapes.iter().enumerate() {
            let data = generate(shape, n, 1000 + i as u64);
            for level in LEVELS {
                check_roundtrip(&data, level, &format!("{shape:?} n={n}"));
            }
        }
    }
}

#[test]
fn matches_ending_at_block_tail() {
    // A long repeat ending exactly at every distance 0..=20 from the end.
    for n in [64usize, 200, 1000, 65_536] {
        for d in 0..=20 {
            if n < d + 140 {
                continue;
            }
            let data = repeats_ending_at(n, &[n - d], d as u64);
            for level in LEVELS {
                check_roundtrip(
                    &data,
                    level,
                    &format!("repeat ending {d} before end of {n}"),
                );
            }
            // Same with a run of one byte ending there (a match of offset 1).
            let mut data = random(n, 7 + d as u64);
            data[n - d - 100..n - d].fill(b'z');
            for level in LEVELS {
                check_roundtrip(&data, level, &format!("run ending {d} before end of {n}"));
            }
        }
    }
    // Blocks that are entirely compressible up to the very end.
    for n in 12..=40 {
        for level in LEVELS {
            check_roundtrip(&run(n, 7), level, &format!("run of {n}"));
            check_roundtrip(&periodic(n, 3, 1), level, &format!("period 3 of {n}"));
        }
    }
}

#[test]
fn long_runs_and_long_literals() {
    // Match lengths and literal lengths needing many 255-bytes.
    for n in [15usize, 16, 19, 270, 271, 272, 4096, 100_000] {
        for level in LEVELS {
            check_roundtrip(&run(n, 0x41), level, &format!("run {n}"));
            check_roundtrip(&random(n, n as u64), level, &format!("random {n}"));
        }
    }
}

#[test]
fn window_edge() {
    // Repeats exactly at distance 65535 (largest offset), 65536 (just out of
    // the window) and 65537.
    for dist in [65_534usize, 65_535, 65_536, 65_537] {
        let head = random(4000, dist as u64);
        let mut data = head.clone();
        data.extend(random(dist - head.len(), 99));
        data.extend_from_slice(&head);
        data.extend(random(100, 98));
        for level in LEVELS {
            check_roundtrip(&data, level, &format!("repeat at distance {dist}"));
        }
    }
}

#[test]
fn multi_megabyte() {
    let cases: Vec<(&str, Vec<u8>, &[i32])> = vec![
        ("run 5 MiB", run(5 << 20, 0), &LEVELS),
        ("random 3 MiB", random(3 << 20, 3), &[1, 9]),
        ("mixed 6 MiB", mixed(6 << 20, 6), &[-5, 1, 12]),
        ("text 4 MiB + 1", text((4 << 20) + 1, 4), &[0, 9]),
        ("period 13, 2 MiB", periodic(2 << 20, 13, 13), &[1, 12]),
    ];
    for (what, data, levels) in cases {
        for &level in levels {
            check_roundtrip(&data, level, what);
        }
    }
}

#[test]
fn compress_into_small_dst_is_error() {
    for (i, data) in [text(5000, 1), random(3000, 2), run(1000, 3), Vec::new()]
        .iter()
        .enumerate()
    {
        let full = compress(data, 1);
        for cap in [0usize, 1, full.len() / 2, full.len().saturating_sub(1)] {
            if cap >= full.len() {
                continue;
            }
            let mut dst = vec![0u8; cap];
            match compress_into(data, &mut dst, 1) {
                Err(Error::OutputTooSmall { capacity, .. }) => {
                    assert_eq!(capacity, cap, "case {i}")
                }
                other => panic!(
                    "case {i}: compress_into with {cap} bytes for {} compressed: {other:?}",
                    full.len()
                ),
            }
        }
        // A buffer of exactly the compressed size is enough.
        let mut dst = vec![0u8; full.len()];
        let n = compress_into(data, &mut dst, 1)
            .unwrap_or_else(|e| panic!("case {i}: exact-size dst: {e}"));
        let out = decompress(&dst[..n], data.len()).unwrap();
        assert_same(&out, data, "exact-size compress_into");
        // A larger buffer: same as compress().
        let mut dst = vec![0xEEu8; max_compressed_size(data.len()) + 100];
        let n = compress_into(data, &mut dst, 1).unwrap();
        assert_eq!(&dst[..n], &full[..], "case {i}: compress_into vs compress");
    }
}

#[test]
fn max_compressed_size_limits() {
    assert_eq!(max_compressed_size(MAX_INPUT_SIZE + 1), 0);
    assert!(max_compressed_size(MAX_INPUT_SIZE) > MAX_INPUT_SIZE);
    assert!(max_compressed_size(0) >= 1);
}

fn too_small_cases() -> Vec<(&'static str, Vec<u8>, Vec<u8>, usize)> {
    let mut v = Vec::new();
    for (name, data) in [
        ("text(10_000, 1)", text(10_000, 1)),
        ("random(2000, 2)", random(2000, 2)),
        ("run(5000, 9)", run(5000, 9)),
        ("mixed(70_000, 4)", mixed(70_000, 4)),
    ] {
        let c = compress(&data, 1);
        let n = data.len();
        for cap in [0usize, 1, 17, n / 2, n - 13, n - 5, n - 1] {
            v.push((name, data.clone(), c.clone(), cap));
        }
    }
    v
}

#[test]
fn decompress_into_too_small_dst_is_error() {
    for (_, data, c, cap) in too_small_cases() {
        let mut dst = vec![0xAAu8; cap];
        match decompress_into(&c, &mut dst) {
            Err(Error::CorruptBlock { at, .. }) => assert!(at <= c.len()),
            other => panic!("{} bytes into capacity {cap}: {other:?}", data.len()),
        }
        assert!(decompress(&c, cap).is_err());
    }
}

/// A valid block decoded into a buffer smaller than its content: the error
/// says so (`OutputTooSmall`), not that the block breaks a format rule.
#[test]
fn too_small_dst_fault_is_output_too_small() {
    let mut wrong = Vec::new();
    for (name, data, c, cap) in too_small_cases() {
        let mut dst = vec![0xAAu8; cap];
        match decompress_into(&c, &mut dst) {
            Err(Error::CorruptBlock {
                fault: Fault::Lz4(Lz4Fault::OutputTooSmall { capacity }),
                ..
            }) => assert_eq!(capacity, cap),
            other => wrong.push(format!(
                "compress({name}, 1) ({} bytes) into capacity {cap}: {other:?}",
                data.len(),
            )),
        }
    }
    assert!(
        wrong.is_empty(),
        "expected OutputTooSmall, got:\n{}",
        wrong.join("\n")
    );
}

/// 8 bytes that our data never contains, in all 8 rotations.
const SENTINEL: [u8; 8] = [0xF1, 0x9E, 0x2B, 0xD7, 0x64, 0x0C, 0xB3, 0x58];

fn contains_sentinel(buf: &[u8]) -> bool {
    buf.windows(8)
        .any(|w| (0..8).any(|r| (0..8).all(|k| w[k] == SENTINEL[(k + r) % 8])))
}

fn sentinel_buffer(n: usize) -> Vec<u8> {
    (0..n).map(|i| SENTINEL[i % 8]).collect()
}

#[test]
fn reused_dst_buffers() {
    let a = text(50_000, 1);
    let b = periodic(30_000, 5, 2);
    let ca = compress(&a, 1);
    let cb = compress(&b, 1);
    let mut dst = vec![0xAAu8; 60_000];
    let n = decompress_into(&ca, &mut dst).unwrap();
    assert_same(&dst[..n], &a, "first decode");
    // The buffer now holds `a`: decoding `b` must not pick anything from it.
    let n = decompress_into(&cb, &mut dst).unwrap();
    assert_same(&dst[..n], &b, "second decode into a used buffer");
    // And into a sentinel-filled buffer.
    let mut dst = sentinel_buffer(60_000);
    let n = decompress_into(&ca, &mut dst).unwrap();
    assert_same(&dst[..n], &a, "sentinel-filled dst");
}

#[test]
fn corrupt_blocks_never_use_stale_bytes() {
    // Flip bytes of valid blocks; decode into a sentinel-filled buffer. Any
    // accepted block must decode exactly as the reference reader says, and
    // never contain sentinel bytes (which could only come from the stale
    // buffer). Neither data nor compressed blocks contain the sentinel.
    let sources = [
        text(3000, 11),
        periodic(2000, 7, 12),
        mixed(5000, 13),
        low_entropy(4000, 14),
    ];
    let mut rng = Rng::for_data(0x5EED);
    let mut accepted = 0;
    for data in &sources {
        assert!(!contains_sentinel(data));
        let c = compress(data, 1);
        for _ in 0..3000 {
            let mut m = c.clone();
            for _ in 0..rng.range(1, 4) {
                let i = rng.index(m.len());
                match rng.index(3) {
                    0 => m[i] ^= 1 << rng.index(8),
                    1 => m[i] = rng.byte(),
                    _ => m[i] = [0, 1, 0xFF, 0x0F, 0xF0][rng.index(5)],
                }
            }
            if contains_sentinel(&m) {
                continue;
            }
            for cap in [data.len(), data.len() + 1000] {
                let mut dst = sentinel_buffer(cap);
                let ours = decompress_into(&m, &mut dst);
                let reference = ref_decode(&m, cap);
                if let Ok(n) = ours {
                    accepted += 1;
                    assert!(
                        !contains_sentinel(&dst[..n]),
                        "stale bytes in output of corrupt block {m:02x?}"
                    );
                    match reference {
                        Ok((r, _)) => assert_same(&dst[..n], &r, "accepted corrupt block"),
                        Err(e) => panic!(
                            "we accept a block the reference rejects ({e}); cap {cap}: {m:02x?}"
                        ),
                    }
                }
            }
        }
    }
    // The mutations must exercise the success path too.
    assert!(accepted > 100, "only {accepted} corrupt blocks accepted");
}

// ---------------------------------------------------------------------------
// Errors on hand-built blocks.
// ---------------------------------------------------------------------------

#[track_caller]
fn fault_of(src: &[u8], cap: usize) -> (usize, Lz4Fault) {
    let mut dst = vec![0xAAu8; cap];
    match decompress_into(src, &mut dst) {
        Err(Error::CorruptBlock {
            at,
            fault: Fault::Lz4(fault),
        }) => {
            assert!(
                at <= src.len(),
                "error position {at} > block length {}",
                src.len()
            );
            (at, fault)
        }
        other => panic!("expected CorruptBlock for {src:02x?} (cap {cap}), got {other:?}"),
    }
}

#[test]
fn offset_zero_rejected() {
    let mut b = Vec::new();
    push_seq(&mut b, b"abcd", 0, 4);
    push_last(&mut b, b"0123456789ab");
    assert_eq!(fault_of(&b, 100).1, Lz4Fault::OffsetZero);
    assert_eq!(fault_of(&b, 20).1, Lz4Fault::OffsetZero);
    // Offset 0 with a long match and many earlier sequences.
    let mut b = Vec::new();
    push_seq(&mut b, b"hello world", 6, 20);
    push_seq(&mut b, b"x", 0, 300);
    push_last(&mut b, &[b'q'; 40]);
    let (at, f) = fault_of(&b, 1000);
    assert_eq!(f, Lz4Fault::OffsetZero);
    assert!(
        at >= 13,
        "offset 0 is in the second sequence, reported at {at}"
    );
}

#[test]
fn offset_before_start_rejected() {
    let mut b = Vec::new();
    push_seq(&mut b, b"a", 2, 4);
    push_last(&mut b, b"0123456789ab");
    assert_eq!(
        fault_of(&b, 100).1,
        Lz4Fault::OffsetBeforeStart {
            offset: 2,
            available: 1
        }
    );
    // No literals at all: nothing to refer to.
    let mut b = Vec::new();
    push_seq(&mut b, b"", 1, 4);
    push_last(&mut b, b"0123456789ab");
    assert_eq!(
        fault_of(&b, 100).1,
        Lz4Fault::OffsetBeforeStart {
            offset: 1,
            available: 0
        }
    );
    // Largest offset after 100 bytes.
    let mut b = Vec::new();
    push_seq(&mut b, &random(100, 1), 65_535, 4);
    push_last(&mut b, b"0123456789ab");
    assert_eq!(
        fault_of(&b, 1000).1,
        Lz4Fault::OffsetBeforeStart {
            offset: 65_535,
            available: 100
        }
    );
    // One byte too far after a valid match.
    let mut b = Vec::new();
    push_seq(&mut b, b"abcdefgh", 8, 10);
    push_seq(&mut b, b"", 19, 4);
    push_last(&mut b, b"0123456789ab");
    assert_eq!(
        fault_of(&b, 1000).1,
        Lz4Fault::OffsetBeforeStart {
            offset: 19,
            available: 18
        }
    );
    // ... and exactly at the start is fine.
    let mut b = Vec::new();
    push_seq(&mut b, b"abcdefgh", 8, 10);
    push_seq(&mut b, b"", 18, 4);
    push_last(&mut b, b"0123456789ab");
    let out = decompress(&b, 1000).unwrap();
    assert_eq!(&out[..], b"abcdefghabcdefghababcd0123456789ab");
}

#[test]
fn truncated_blocks_rejected() {
    let cases: &[(&str, &[u8], usize)] = &[
        ("literals declared but missing", &[0x50, b'a', b'b'], 100),
        ("literal length byte missing", &[0xF0], 100),
        ("literal length 255-run cut", &[0xF0, 0xFF], 1000),
        (
            "literal length 255-run cut (3)",
            &[0xF0, 0xFF, 0xFF, 0xFF],
            10_000,
        ),
        ("literal length past the input", &[0xF0, 0x05, b'a'], 100),
        ("half an offset", &[0x10, b'a', 0x01], 100),
        ("match length byte missing", &[0x1F, b'a', 0x01, 0x00], 100),
        (
            "match length 255-run cut",
            &[0x1F, b'a', 0x01, 0x00, 0xFF],
            1000,
        ),
        ("empty input", &[], 100),
    ];
    let mut wrong = Vec::new();
    for &(what, src, cap) in cases {
        let f = fault_of(src, cap).1;
        if f != Lz4Fault::Truncated {
            wrong.push(format!(
                "{what} {src:02x?} (cap {cap}): {f:?}, expected Truncated"
            ));
        }
    }
    assert!(wrong.is_empty(), "wrong faults:\n{}", wrong.join("\n"));
}

#[test]
fn truncated_prefixes_rejected() {
    // Every prefix of a real block: an error, or (when the cut falls exactly
    // after a sequence's literals, which is a valid last sequence) a prefix
    // of the data. Cuts inside the last literals or inside an offset field
    // are always Truncated.
    let mut wrong = Vec::new();
    for (name, data, level) in [
        ("text(3000, 5)", text(3000, 5), 1),
        ("mixed(20_000, 6)", mixed(20_000, 6), 9),
        ("random(600, 7)", random(600, 7), 1),
    ] {
        let c = compress(&data, level);
        let (_, seqs) = ref_decode(&c, data.len()).unwrap();
        let last = seqs.last().unwrap();
        for cut in 0..c.len() {
            let mut dst = vec![0xAAu8; data.len()];
            match decompress_into(&c[..cut], &mut dst) {
                Ok(n) => {
                    assert!(n < data.len());
                    assert_same(&dst[..n], &data[..n], "accepted truncated block");
                    assert!(
                        seqs.iter().any(|s| s.lit_at + s.lit_len == cut),
                        "a block cut at {cut} (not a literal end) accepted"
                    );
                }
                Err(Error::CorruptBlock { at, .. }) => assert!(at <= cut),
                Err(e) => panic!("unexpected error kind {e:?}"),
            }
            let inside_last_lits = cut > last.lit_at && cut < last.lit_at + last.lit_len;
            let inside_offset = seqs
                .iter()
                .any(|s| s.offset_at == Some(cut.wrapping_sub(1)));
            if inside_last_lits || inside_offset {
                let f = fault_of(&c[..cut], data.len()).1;
                if f != Lz4Fault::Truncated {
                    wrong.push(format!(
                        "{name}: block of {} cut at {cut} ({}): {f:?}",
                        c.len(),
                        if inside_offset {
                            "inside an offset"
                        } else {
                            "inside the last literals"
                        }
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cuts with a fault other than Truncated ({} inside an offset, {} inside the last literals), e.g.:\n{}",
        wrong.len(),
        wrong
            .iter()
            .filter(|w| w.contains("inside an offset"))
            .count(),
        wrong
            .iter()
            .filter(|w| w.contains("inside the last literals"))
            .count(),
        wrong
            .iter()
            .filter(|w| w.contains("inside an offset"))
            .take(5)
            .chain(
                wrong
                    .iter()
                    .filter(|w| w.contains("inside the last literals"))
                    .take(5)
            )
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn huge_length_runs_rejected() {
    // A literal length of 255 * 200_000 with a 1 MiB output buffer.
    let mut b = vec![0xF0];
    b.extend(std::iter::repeat_n(0xFF, 200_000));
    b.push(0);
    b.extend_from_slice(b"some literals");
    let f = fault_of(&b, 1 << 20).1;
    assert!(
        matches!(
            f,
            Lz4Fault::LengthOverflow | Lz4Fault::OutputTooSmall { .. } | Lz4Fault::Truncated
        ),
        "literal 255-run: {f:?}"
    );
    // The 255-run runs to the end of the input.
    let mut b = vec![0xF0];
    b.extend(std::iter::repeat_n(0xFF, 100_000));
    let f = fault_of(&b, 1 << 20).1;
    assert!(
        matches!(f, Lz4Fault::LengthOverflow | Lz4Fault::Truncated),
        "unterminated literal 255-run: {f:?}"
    );
    // A match length of 255 * 200_000.
    let mut b = Vec::new();
    b.extend_from_slice(&[0x1F, b'a', 0x01, 0x00]);
    b.extend(std::iter::repeat_n(0xFF, 200_000));
    b.push(0);
    push_last(&mut b, b"0123456789ab");
    let f = fault_of(&b, 1 << 20).1;
    assert!(
        matches!(
            f,
            Lz4Fault::LengthOverflow | Lz4Fault::OutputTooSmall { .. }
        ),
        "match 255-run: {f:?}"
    );
    // Unterminated match 255-run.
    let mut b = vec![0x1F, b'a', 0x01, 0x00];
    b.extend(std::iter::repeat_n(0xFF, 100_000));
    let f = fault_of(&b, 1 << 20).1;
    assert!(
        matches!(f, Lz4Fault::LengthOverflow | Lz4Fault::Truncated),
        "unterminated match 255-run: {f:?}"
    );
}

#[test]
fn end_of_block_rules() {
    // Ends with a match (no literal-only last sequence).
    let mut b = Vec::new();
    push_seq(&mut b, b"abcdefghijklmnop", 4, 20);
    let f = fault_of(&b, 36).1;
    assert!(
        matches!(f, Lz4Fault::BadEnd | Lz4Fault::Truncated),
        "block ending with a match: {f:?}"
    );
    let f = fault_of(&b, 1000).1;
    assert!(
        matches!(f, Lz4Fault::BadEnd | Lz4Fault::Truncated),
        "block ending with a match, large dst: {f:?}"
    );
    // Last match starting fewer than MF_LIMIT bytes before the end (and
    // covering the last LAST_LITERALS bytes), decoded into an exact buffer.
    let mut b = Vec::new();
    push_seq(&mut b, b"abcd", 4, 4);
    push_last(&mut b, b"x");
    assert!(decompress_into(&b, &mut [0u8; 9]).is_err(), "{b:02x?}");
    assert_eq!(MF_LIMIT, 12);
    assert_eq!(LAST_LITERALS, 5);
}

#[test]
fn dictionary_blocks() {
    let base = text(300_000, 77);
    for dict_len in [0usize, 1, 100, 65_535, 65_536, 65_537, 200_000] {
        let dict = &base[..dict_len];
        let shapes: Vec<Vec<u8>> = vec![
            base[dict_len.saturating_sub(5000)..dict_len].to_vec(), // the end of the dictionary
            base[..3000].to_vec(), // the start of the dictionary (out of window if large)
            text(20_000, 77),
            random(1000, 3),
            Vec::new(),
        ];
        for data in &shapes {
            for level in LEVELS {
                let c = compress_with_dict(data, dict, level);
                let mut dst = vec![0xAAu8; data.len()];
                let n = decompress_with_dict_into(&c, &mut dst, dict).unwrap_or_else(|e| {
                    panic!("dict {dict_len}, data {}, level {level}: {e}", data.len())
                });
                assert_eq!(n, data.len());
                assert_same(&dst, data, &format!("dict {dict_len} level {level}"));
                // A longer dictionary with the same 64 KiB tail decodes it too.
                let mut longer = random(10, 1);
                longer.extend_from_slice(dict);
                if dict_len >= MAX_DISTANCE {
                    let n = decompress_with_dict_into(&c, &mut dst, &longer).unwrap();
                    assert_same(&dst[..n], data, "longer dict");
                }
            }
        }
    }
    // Using the dictionary pays off.
    let dict = text(60_000, 5);
    let data = dict[30_000..40_000].to_vec();
    assert!(compress_with_dict(&data, &dict, 1).len() * 4 < compress(&data, 1).len());
}

#[test]
fn dictionary_offsets() {
    let dict: Vec<u8> = (0..10u8).collect();
    // Offset 11 after 1 output byte reaches dict[0].
    let mut b = Vec::new();
    push_seq(&mut b, b"a", 11, 4);
    push_last(&mut b, b"0123456789ab");
    let mut dst = vec![0u8; 17];
    let n = decompress_with_dict_into(&b, &mut dst, &dict).unwrap();
    assert_eq!(&dst[..n], b"a\x00\x01\x02\x030123456789ab");
    // Offset 12 is one too far.
    let mut b = Vec::new();
    push_seq(&mut b, b"a", 12, 4);
    push_last(&mut b, b"0123456789ab");
    let mut dst = vec![0u8; 17];
    match decompress_with_dict_into(&b, &mut dst, &dict) {
        Err(Error::CorruptBlock { fault, .. }) => {
            assert_eq!(
                fault,
                Fault::Lz4(Lz4Fault::OffsetBeforeStart {
                    offset: 12,
                    available: 11
                })
            )
        }
        other => panic!("{other:?}"),
    }
    // Offset 65535 at the start with a dictionary of 65534 bytes: too far;
    // with 65535 or more bytes: fine.
    let mut b = Vec::new();
    push_seq(&mut b, b"", 65_535, 4);
    push_last(&mut b, b"0123456789ab");
    let big = random(100_000, 9);
    let mut dst = vec![0u8; 16];
    let short = &big[big.len() - 65_534..];
    match decompress_with_dict_into(&b, &mut dst, short) {
        Err(Error::CorruptBlock { fault, .. }) => assert_eq!(
            fault,
            Fault::Lz4(Lz4Fault::OffsetBeforeStart {
                offset: 65_535,
                available: 65_534
            })
        ),
        other => panic!("{other:?}"),
    }
    for d in [&big[big.len() - 65_535..], &big[..]] {
        let n = decompress_with_dict_into(&b, &mut dst, d).unwrap();
        assert_eq!(n, 16);
        assert_eq!(&dst[..4], &big[big.len() - 65_535..big.len() - 65_531]);
    }
}

#[test]
fn input_too_large_is_error() {
    // A zeroed allocation is not touched (calloc): the length check must
    // come before any work on the input.
    let big = vec![0u8; MAX_INPUT_SIZE + 1];
    let mut dst = [0u8; 64];
    match compress_into(&big, &mut dst, 1) {
        Err(Error::InputTooLarge { size, limit }) => {
            assert_eq!(size, MAX_INPUT_SIZE + 1);
            assert_eq!(limit, MAX_INPUT_SIZE);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(block::max_compressed_size(usize::MAX), 0);
}

// ---------------------------------------------------------------------------
// Property tests.
// ---------------------------------------------------------------------------

fn level_strategy() -> impl Strategy<Value = i32> {
    prop::sample::select(LEVELS.to_vec())
}

/// Random sequences, mostly valid, encoded by hand (then sometimes damaged).
fn block_strategy() -> impl Strategy<Value = Vec<u8>> {
    let seq = (
        prop::collection::vec(any::<u8>(), 0..40),
        prop_oneof![1u16..=20, 1u16..=300, any::<u16>()],
        prop_oneof![4usize..=20, 4usize..=600],
    );
    (
        prop::collection::vec(seq, 0..12),
        prop::collection::vec(any::<u8>(), 0..30),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        any::<Option<prop::sample::Index>>(),
    )
        .prop_map(|(seqs, last, flips, cut)| {
            let mut b = Vec::new();
            for (lits, off, ml) in &seqs {
                push_seq(&mut b, lits, *off, *ml);
            }
            push_last(&mut b, &last);
            for (i, v) in flips {
                let i = i.index(b.len());
                b[i] = v;
            }
            if let Some(c) = cut {
                let c = c.index(b.len() + 1);
                b.truncate(c);
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn prop_roundtrip_small(
        shape in shape_strategy(),
        n in prop_oneof![0usize..64, 0usize..4096],
        seed in any::<u64>(),
        level in level_strategy(),
    ) {
        let data = generate(shape, n, seed);
        check_roundtrip(&data, level, &format!("{shape:?} n={n} seed={seed}"));
    }

    #[test]
    fn prop_roundtrip_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..2000), level in level_strategy()) {
        check_roundtrip(&data, level, "arbitrary");
    }

    /// Any block: never a panic; accepted only if valid, and then decoded
    /// exactly as the reference reader decodes it.
    #[test]
    fn prop_decode_matches_reference(b in block_strategy(), extra in 0usize..64, garbage in any::<u8>()) {
        let cap_ref = ref_decode(&b, usize::MAX).map(|(o, _)| o.len()).unwrap_or(1000);
        for cap in [cap_ref, cap_ref + extra, cap_ref.saturating_sub(1)] {
            let mut dst = vec![garbage; cap];
            let ours = decompress_into(&b, &mut dst);
            match (ours, ref_decode(&b, cap)) {
                (Ok(n), Ok((r, _))) => prop_assert_eq!(&dst[..n], &r[..]),
                (Ok(_), Err(e)) => prop_assert!(false, "accepted a block the reference rejects ({}): {:02x?}", e, b),
                (Err(Error::CorruptBlock { at, .. }), _) => prop_assert!(at <= b.len()),
                (Err(e), _) => prop_assert!(false, "unexpected error kind {:?}", e),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn prop_roundtrip_medium(
        shape in shape_strategy(),
        n in 60_000usize..400_000,
        seed in any::<u64>(),
        level in level_strategy(),
    ) {
        let data = generate(shape, n, seed);
        check_roundtrip(&data, level, &format!("{shape:?} n={n} seed={seed}"));
    }

    #[test]
    fn prop_dictionary_roundtrip(
        dict_len in 0usize..100_000,
        n in 0usize..20_000,
        seed in any::<u64>(),
        level in level_strategy(),
    ) {
        let all = mixed(dict_len + n, seed);
        let (dict, data) = all.split_at(dict_len);
        let c = compress_with_dict(data, dict, level);
        prop_assert!(c.len() <= max_compressed_size(data.len()));
        let mut dst = vec![0xAAu8; data.len()];
        let k = decompress_with_dict_into(&c, &mut dst, dict).unwrap();
        prop_assert_eq!(k, data.len());
        prop_assert!(dst == data);
    }
}
