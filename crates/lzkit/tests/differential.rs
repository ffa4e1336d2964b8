//! Differential tests against the C reference implementation (liblz4, via
//! the `lz4-sys` FFI): our blocks and frames decode with C, C's decode with
//! ours, and on thousands of damaged blocks and frames our decoders never
//! accept what C rejects, and agree with C on what both accept.

use lzkit::Error;
use lzkit::lz4::block::{
    Decoder, Variant, compress, compress_with_dict, decompress_into, decompress_with_dict_into,
};
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameOptions};
use lzkit_testkit::c_ref::{self, FrameSettings};
use lzkit_testkit::*;

/// C block compression at `level` (panics if C fails).
fn c_compress(data: &[u8], level: i32) -> Vec<u8> {
    c_ref::compress(data, level).expect("C compression failed")
}

/// C block decoding into `cap` bytes prefilled with `fill`; `None` if C
/// rejects the block.
fn c_decompress(src: &[u8], cap: usize, fill: u8) -> Option<Vec<u8>> {
    c_ref::decompress(src, cap, &[], fill)
}

/// A whole frame compressed by C (panics if C fails).
fn c_frame(data: &[u8], o: &FrameSettings, dict: Option<&[u8]>) -> Vec<u8> {
    c_ref::compress_frame(data, o, dict).expect("C frame compression")
}

/// A stream of frames decoded by C, to the end.
fn c_frame_decompress(src: &[u8], dict: Option<&[u8]>) -> Result<Vec<u8>, c_ref::FrameError> {
    c_ref::decompress_frames(src, dict, usize::MAX)
}

fn our_frame_opts(o: &FrameSettings, n: usize, dict: Option<&[u8]>) -> FrameOptions {
    opts(
        o.level,
        o.block_size,
        if o.linked {
            BlockMode::Linked
        } else {
            BlockMode::Independent
        },
        o.block_checksum,
        o.content_checksum,
        o.content_size.then_some(n as u64),
        dict.map(|d| (d, (o.dict_id != 0).then_some(o.dict_id))),
    )
}

fn datasets() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for n in [
        0usize, 1, 5, 12, 13, 17, 100, 1000, 65_535, 65_536, 65_537, 200_000,
    ] {
        v.push((format!("text {n}"), text(n, n as u64)));
        v.push((format!("random {n}"), random(n, n as u64)));
        v.push((format!("mixed {n}"), mixed(n, n as u64 + 1)));
        v.push((format!("tail {n}"), repeats_ending_at(n, &tail_ends(n), 3)));
    }
    for p in 1..=16 {
        v.push((format!("period {p}"), periodic(3000 + p, p, p as u64)));
    }
    v.push(("run 1 MiB".into(), run(1 << 20, 0xCC)));
    v.push(("low entropy 300K".into(), low_entropy(300_000, 1)));
    v
}

// ---------------------------------------------------------------------------
// Blocks.
// ---------------------------------------------------------------------------

#[test]
fn our_blocks_decode_with_c() {
    for (name, data) in datasets() {
        for level in LEVELS {
            let c = compress(&data, level);
            // Exact capacity: C checks the end-of-block rules against it.
            match c_decompress(&c, data.len(), 0xAA) {
                Some(out) => assert_same(&out, &data, &format!("{name} level {level}: C decode")),
                None => panic!("{name} level {level}: C rejects our block"),
            }
            let out = c_decompress(&c, data.len() + 100, 0).expect("C decode, larger dst");
            assert_same(
                &out,
                &data,
                &format!("{name} level {level}: C decode, larger dst"),
            );
        }
    }
}

#[test]
fn c_blocks_decode_with_ours() {
    let c_levels = [-20, -1, 0, 1, 2, 3, 4, 9, 10, 12];
    for (name, data) in datasets() {
        for level in c_levels {
            if level >= 10 && data.len() > 300_000 {
                continue;
            }
            let c = c_compress(&data, level);
            for cap in [data.len(), data.len() + 1, data.len() + 4096] {
                let mut dst = vec![0xAAu8; cap];
                let n = decompress_into(&c, &mut dst).unwrap_or_else(|e| {
                    panic!("{name}: C level {level} block, capacity {cap}: we reject it: {e}")
                });
                assert_eq!(n, data.len(), "{name} level {level}");
                assert_same(
                    &dst[..n],
                    &data,
                    &format!("{name}: C level {level}, capacity {cap}"),
                );
            }
        }
    }
}

#[test]
fn dictionary_blocks_both_ways() {
    let base = text(250_000, 9);
    for dict_len in [1usize, 1000, 65_535, 65_536, 100_000] {
        let dict = &base[..dict_len];
        for data in [
            base[dict_len / 2..dict_len / 2 + 20_000].to_vec(),
            text(5000, 9),
            random(3000, 1),
        ] {
            for level in LEVELS {
                let ours = compress_with_dict(&data, dict, level);
                let out = c_ref::decompress(&ours, data.len(), dict, 0)
                    .unwrap_or_else(|| panic!("dict {dict_len}: C rejects our dict block"));
                assert_same(
                    &out,
                    &data,
                    &format!("dict {dict_len} level {level}: ours -> C"),
                );
            }
            for accel in [1, 5] {
                let theirs = c_ref::compress_with_dict(&data, dict, accel).unwrap();
                let mut dst = vec![0xAAu8; data.len()];
                let n = decompress_with_dict_into(&theirs, &mut dst, dict)
                    .unwrap_or_else(|e| panic!("dict {dict_len}: we reject C's dict block: {e}"));
                assert_same(&dst[..n], &data, &format!("dict {dict_len}: C -> ours"));
            }
        }
    }
}

#[test]
fn fast_levels_write_exactly_what_c_writes() {
    // Level 1 is LZ4_compress_default and levels <= 0 are
    // LZ4_compress_fast: the same hash tables (16-bit entries up to 64 KiB +
    // 10 bytes of input, 32-bit above), the same probes, so the same bytes.
    // Sizes around the table switch and the format's minimum, and inputs
    // of every kind. Above the switch the C library on a 32-bit target
    // hashes 4 bytes, not 5, into a table of pointers; lzkit writes what
    // the 64-bit library writes on every target.
    let small = [0, 12, 13, 100, 4096, 65_535, 65_546];
    let large = [65_547, 70_000, 300_000];
    let sizes: Vec<usize> = match cfg!(target_pointer_width = "64") {
        true => small.iter().chain(&large).copied().collect(),
        false => small.to_vec(),
    };
    for (name, data) in [
        ("text", text(300_000, 4)),
        ("mixed", mixed(300_000, 5)),
        ("low entropy", low_entropy(300_000, 6)),
    ] {
        for &n in &sizes {
            for level in [1, 0, -3] {
                assert!(
                    compress(&data[..n], level) == c_compress(&data[..n], level),
                    "{name}, {n} bytes, level {level}: output differs from C's"
                );
            }
        }
    }
}

#[test]
fn compression_ratio_close_to_c() {
    // Level 1 is the same algorithm as LZ4_compress_default: a broken match
    // finder would show here first. Generous margin.
    for (name, data) in [
        ("text", text(1 << 20, 1)),
        ("mixed", mixed(1 << 20, 2)),
        ("low entropy", low_entropy(1 << 20, 3)),
    ] {
        let ours = compress(&data, 1).len();
        let theirs = c_compress(&data, 1).len();
        assert!(
            ours <= theirs + theirs / 10 + 64,
            "{name}: level 1 gives {ours} bytes, C gives {theirs}"
        );
    }
}

#[test]
fn hc_levels_ratio_close_to_c() {
    // Levels mean what they mean in liblz4 1.10 (the block module's
    // contract): each level's output should be about as small as C's at the
    // same level, and HC levels clearly smaller than level 1 on text.
    let datas = [
        ("text", text(1 << 20, 1)),
        ("mixed", mixed(1 << 20, 2)),
        ("low entropy", low_entropy(1 << 19, 3)),
    ];
    let mut wrong = Vec::new();
    for (name, data) in &datas {
        let fast = compress(data, 1).len();
        for level in [2, 3, 6, 9, 10, 12] {
            let ours = compress(data, level).len();
            let theirs = c_compress(data, level).len();
            if ours > theirs + theirs / 20 + 64 {
                wrong.push(format!(
                    "{name} level {level}: ours {ours} bytes, C {theirs}"
                ));
            }
            if *name == "text" && level >= 9 && ours >= fast {
                wrong.push(format!(
                    "{name} level {level}: {ours} bytes, level 1 gives {fast}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "compressed sizes:\n{}", wrong.join("\n"));
}

/// Damage a block: flips, random bytes, truncation, insertion, deletion,
/// duplicated ranges, special bytes at token positions.
fn mutate(b: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = b.to_vec();
    for _ in 0..rng.range(1, 3) {
        if m.is_empty() {
            m.push(rng.byte());
            continue;
        }
        let i = rng.index(m.len());
        match rng.index(8) {
            0 | 1 => m[i] ^= 1 << rng.index(8),
            2 => m[i] = rng.byte(),
            3 => m.truncate(i),
            4 => m.insert(i, rng.byte()),
            5 => {
                m.remove(i);
            }
            6 => {
                let j = rng.range(i, (i + 16).min(m.len()));
                let piece = m[i..j].to_vec();
                let k = rng.index(m.len() + 1);
                m.splice(k..k, piece);
            }
            _ => m[i] = [0x00, 0xFF, 0xF0, 0x0F, 0x10, 0x01][rng.index(6)],
        }
    }
    m
}

#[test]
fn mutated_blocks_agree_with_c() {
    let sources: Vec<(&str, Vec<u8>)> = vec![
        ("text", text(4000, 1)),
        ("mixed", mixed(6000, 2)),
        ("period 3", periodic(2000, 3, 3)),
        ("low entropy", low_entropy(3000, 4)),
        ("short", text(40, 5)),
        ("tail", repeats_ending_at(1000, &tail_ends(1000), 6)),
        ("random", random(500, 7)),
    ];
    let mut rng = Rng::for_data(0xD1FF);
    let (mut cases, mut both_ok) = (0usize, 0usize);
    let mut stricter = std::collections::BTreeMap::<String, usize>::new();
    for (name, data) in &sources {
        let blocks = [c_compress(data, 1), c_compress(data, 9), compress(data, 1)];
        for block in &blocks {
            for _ in 0..1500 {
                let m = mutate(block, &mut rng);
                for cap in [data.len(), data.len() + 1 + rng.index(200)] {
                    cases += 1;
                    let fill = rng.byte();
                    let theirs = c_decompress(&m, cap, fill);
                    let mut dst = vec![fill; cap];
                    let ours = decompress_into(&m, &mut dst);
                    match (&theirs, &ours) {
                        (None, Ok(n)) => panic!(
                            "{name}: C rejects, we accept ({n} bytes), capacity {cap}: block {m:02x?}"
                        ),
                        (Some(t), Ok(n)) => {
                            both_ok += 1;
                            assert_eq!(
                                *n,
                                t.len(),
                                "{name}: lengths differ, capacity {cap}: {m:02x?}"
                            );
                            assert_same(&dst[..*n], t, &format!("{name}: C vs ours on {m:02x?}"));
                        }
                        (Some(_), Err(e)) => {
                            // Only offset 0 (checked below), but count why.
                            let why = match e {
                                Error::CorruptBlock { fault, .. } => format!("{fault:?}"),
                                e => format!("{e:?}"),
                            };
                            let why = why.split([' ', '{']).next().unwrap_or("").to_string();
                            *stricter.entry(why).or_default() += 1;
                        }
                        (None, Err(Error::CorruptBlock { at, .. })) => assert!(*at <= m.len()),
                        (None, Err(e)) => panic!("unexpected error kind {e:?}"),
                    }
                }
            }
        }
    }
    eprintln!(
        "{cases} damaged blocks: {both_ok} accepted by both; rejected only by us: {stricter:?}"
    );
    // The one documented difference: C copies a match at offset 0.
    assert!(
        stricter.keys().all(|k| k == "Lz4(OffsetZero)"),
        "we reject blocks C accepts: {stricter:?}"
    );
    assert!(
        both_ok > 1000,
        "mutations too destructive: only {both_ok} accepted"
    );
}

#[test]
fn literal_heavy_blocks_agree_with_c_in_every_variant() {
    // The literal-heavy class of issue 36 (a nearly incompressible Int16
    // column: literal runs around 14 bytes, a few with 255-run lengths,
    // short matches from far back), whose fast loop keeps long matches and
    // 255-run literal lengths out of line: C's level-1 and level-9 blocks,
    // and damaged copies of them, through every variant.
    let column = (0..corpus::len())
        .find(|&i| corpus::name(i) == "wandering_counts.Int16")
        .map(|i| corpus::generate(i, 0.25))
        .expect("in the built-in corpus");
    let mut rng = Rng::for_data(0x36);
    for chunk in column.chunks(64 << 10).take(2) {
        for level in [1, 9] {
            let block = c_compress(chunk, level);
            let mut damaged = vec![block.clone()];
            damaged.extend((0..200).map(|_| mutate(&block, &mut rng)));
            for m in &damaged {
                let cap = chunk.len() + rng.index(100);
                let theirs = c_decompress(m, cap, 0x5A);
                for &v in Variant::available() {
                    let mut d = Decoder::with_variant(v).expect("available");
                    let mut dst = vec![0x5Au8; cap];
                    match (&theirs, d.decompress_into(m, &mut dst)) {
                        (Some(t), Ok(n)) => {
                            assert_same(&dst[..n], t, &format!("{v} level {level}"))
                        }
                        (None, Ok(n)) => {
                            panic!("{v} level {level}: C rejects, we accept {n} bytes")
                        }
                        (Some(_), Err(e)) => assert!(
                            matches!(
                                e,
                                Error::CorruptBlock {
                                    fault: lzkit::Fault::Lz4(lzkit::Lz4Fault::OffsetZero),
                                    ..
                                }
                            ),
                            "{v} level {level}: we reject what C accepts: {e}"
                        ),
                        (None, Err(_)) => {}
                    }
                }
            }
        }
    }
}

#[test]
fn mutated_dictionary_blocks_agree_with_c() {
    let dict = text(70_000, 3);
    let data = [dict[40_000..44_000].to_vec(), text(3000, 3)].concat();
    let block = c_ref::compress_with_dict(&data, &dict, 1).unwrap();
    let mut rng = Rng::for_data(0xD1C7);
    for _ in 0..3000 {
        let m = mutate(&block, &mut rng);
        for cap in [data.len(), data.len() + 50] {
            let theirs = c_ref::decompress(&m, cap, &dict, 0);
            let mut dst = vec![0x5Au8; cap];
            let ours = decompress_with_dict_into(&m, &mut dst, &dict);
            match (theirs, ours) {
                (None, Ok(n)) => panic!("C rejects, we accept {n} bytes: {m:02x?}"),
                (Some(t), Ok(n)) => assert_same(&dst[..n], &t, "dict block: C vs ours"),
                _ => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Frames.
// ---------------------------------------------------------------------------

fn frame_option_grid() -> Vec<FrameSettings> {
    let mut v = Vec::new();
    for (i, bs) in BLOCK_SIZES.into_iter().enumerate() {
        for linked in [false, true] {
            for flags in 0..8u8 {
                v.push(FrameSettings {
                    level: [1, -3, 9, 12, 0, 1, 4, 1][(i * 2 + flags as usize) % 8],
                    block_size: bs,
                    linked,
                    block_checksum: flags & 1 != 0,
                    content_checksum: flags & 2 != 0,
                    content_size: flags & 4 != 0,
                    dict_id: 0,
                });
            }
        }
    }
    v
}

/// The inputs every frame option of [`frame_option_grid`] is tried on.
fn frame_datasets() -> [(&'static str, Vec<u8>); 5] {
    [
        ("mixed 300K", mixed(300_000, 1)),
        ("text 70K", text(70_000, 2)),
        ("random 140K", random(140_000, 3)),
        ("empty", Vec::new()),
        ("tiny", b"abcabcabcabcabcabc".to_vec()),
    ]
}

#[test]
fn c_frames_decode_with_ours() {
    let datas = frame_datasets();
    for (name, data) in &datas {
        for o in frame_option_grid() {
            let f = c_frame(data, &o, None);
            let out = frame::decompress(&f)
                .unwrap_or_else(|e| panic!("{name}: C frame {o:?}: we fail: {e}"));
            assert_same(&out, data, &format!("{name}: C frame {o:?}"));
            let out = stream_decode(&f, None, usize::MAX, 4099).unwrap();
            assert_same(&out, data, &format!("{name}: C frame {o:?}, FrameDecoder"));
        }
    }
    // Large: several 4 MiB blocks, linked and independent.
    let big = mixed(9 << 20, 4);
    for linked in [false, true] {
        let o = FrameSettings {
            level: 1,
            block_size: BlockSize::Max4MB,
            linked,
            block_checksum: true,
            content_checksum: true,
            content_size: true,
            dict_id: 0,
        };
        let f = c_frame(&big, &o, None);
        assert_same(&frame::decompress(&f).unwrap(), &big, "9 MiB C frame");
    }
    // Concatenated C frames.
    let a = c_frame(&datas[0].1, &frame_option_grid()[3], None);
    let b = c_frame(&datas[1].1, &frame_option_grid()[20], None);
    let s = [a.clone(), skippable_frame(4, b"x"), b, a].concat();
    let expected = [datas[0].1.clone(), datas[1].1.clone(), datas[0].1.clone()].concat();
    assert_same(
        &frame::decompress(&s).unwrap(),
        &expected,
        "concatenated C frames",
    );
}

#[test]
fn our_frames_decode_with_c() {
    let datas = frame_datasets();
    for (name, data) in &datas {
        for o in frame_option_grid() {
            let f = frame::compress(data, &our_frame_opts(&o, data.len(), None));
            let out = c_frame_decompress(&f, None)
                .unwrap_or_else(|e| panic!("{name}: our frame {o:?}: C fails: {e}"));
            assert_same(
                &out,
                data,
                &format!("{name}: our frame {o:?}, decoded by C"),
            );
        }
    }
    let big = text(9 << 20, 4);
    for linked in [false, true] {
        let o = opts(
            1,
            BlockSize::Max4MB,
            if linked {
                BlockMode::Linked
            } else {
                BlockMode::Independent
            },
            true,
            true,
            Some(big.len() as u64),
            None,
        );
        let f = frame::compress(&big, &o);
        assert_same(
            &c_frame_decompress(&f, None).unwrap(),
            &big,
            "9 MiB frame decoded by C",
        );
    }
    // Streamed in odd pieces.
    let data = &datas[0].1;
    let mut e = frame::FrameEncoder::new(
        Vec::new(),
        &our_frame_opts(&frame_option_grid()[9], data.len(), None),
    );
    for chunk in data.chunks(7777) {
        std::io::Write::write_all(&mut e, chunk).unwrap();
    }
    let f = e.finish().unwrap();
    assert_same(
        &c_frame_decompress(&f, None).unwrap(),
        data,
        "streamed frame decoded by C",
    );
}

#[test]
fn dictionary_frames_both_ways() {
    let dict = text(100_000, 8);
    let data = [dict[20_000..60_000].to_vec(), text(200_000, 8)].concat();
    for linked in [false, true] {
        for dict_id in [0u32, 77] {
            let o = FrameSettings {
                level: 1,
                block_size: BlockSize::Max64KB,
                linked,
                block_checksum: true,
                content_checksum: true,
                content_size: false,
                dict_id,
            };
            let theirs = c_frame(&data, &o, Some(&dict));
            let out = frame::decompress_with_dict(&theirs, &dict)
                .unwrap_or_else(|e| panic!("C dict frame (linked {linked}): we fail: {e}"));
            assert_same(&out, &data, "C dict frame decoded by us");
            let out = stream_decode_dict(&theirs, &dict);
            assert_same(&out, &data, "C dict frame, FrameDecoder");

            let ours = frame::compress(&data, &our_frame_opts(&o, data.len(), Some(&dict)));
            let out = c_frame_decompress(&ours, Some(&dict))
                .unwrap_or_else(|e| panic!("our dict frame (linked {linked}): C fails: {e}"));
            assert_same(&out, &data, "our dict frame decoded by C");
        }
    }
}

fn stream_decode_dict(src: &[u8], dict: &[u8]) -> Vec<u8> {
    stream_decode(src, Some(dict), usize::MAX, 1000).unwrap()
}

#[test]
fn mutated_frames_agree_with_c() {
    let data = mixed(150_000, 12);
    let mut frames = Vec::new();
    for (i, o) in frame_option_grid().iter().enumerate() {
        if o.block_size != BlockSize::Max64KB && i % 3 != 0 {
            continue;
        }
        frames.push(c_frame(&data, o, None));
        frames.push(frame::compress(&data, &our_frame_opts(o, data.len(), None)));
    }
    let mut rng = Rng::for_data(0xF00D);
    let (mut cases, mut both_ok) = (0, 0);
    for f in &frames {
        for _ in 0..120 {
            let mut m = f.clone();
            // Mostly damage the header and block headers, where frame logic lives.
            let i = match rng.index(3) {
                0 => rng.index(m.len().min(24)),
                _ => rng.index(m.len()),
            };
            match rng.index(5) {
                0 | 1 => m[i] ^= 1 << rng.index(8),
                2 => m[i] = rng.byte(),
                3 => m.truncate(i),
                _ => m.insert(i, rng.byte()),
            }
            cases += 1;
            let theirs = c_frame_decompress(&m, None);
            let ours = frame::decompress(&m);
            match (&theirs, &ours) {
                (Err(t), Ok(v)) => panic!(
                    "C rejects ({t}), we accept ({} bytes): byte {i} of a frame changed/cut",
                    v.len()
                ),
                (Ok(t), Ok(v)) => {
                    both_ok += 1;
                    assert_same(v, t, "mutated frame: C vs ours");
                }
                _ => {}
            }
        }
    }
    eprintln!("{cases} damaged frames, {both_ok} accepted by both");
}

#[test]
fn tiny_blocks_tiny_capacities_agree_with_c() {
    // Every block of 1 and 2 bytes, and a sample of 3..=8 bytes, at
    // capacities 0..=20: where C rejects, we must too; where C accepts, we
    // must too (but for offset 0), with the same output.
    let mut blocks: Vec<Vec<u8>> = (0..=255u8).map(|a| vec![a]).collect();
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            blocks.push(vec![a, b]);
        }
    }
    let mut rng = Rng::for_data(0x7151);
    for _ in 0..100_000 {
        let n = rng.range(3, 8);
        let mut b: Vec<u8> = (0..n).map(|_| rng.byte()).collect();
        // Small tokens and offsets make valid blocks likely.
        b[0] &= 0x3F;
        let offset_at = (b[0] >> 4) as usize + 1;
        if offset_at < n && rng.odds(1, 2) {
            b[offset_at] &= 7;
        }
        blocks.push(b);
    }
    let mut wrong = Vec::new();
    for b in &blocks {
        for cap in 0..=20usize {
            let theirs = c_decompress(b, cap, 0xEE);
            let mut dst = vec![0xEEu8; cap];
            let ours = decompress_into(b, &mut dst);
            match (&theirs, &ours) {
                (None, Ok(n)) => wrong.push(format!(
                    "C rejects {b:02x?} at capacity {cap}, we accept ({n} bytes)"
                )),
                (Some(t), Ok(n)) => assert_eq!(&dst[..*n], &t[..], "{b:02x?} at capacity {cap}"),
                (Some(_), Err(e)) => {
                    if !matches!(
                        e,
                        Error::CorruptBlock {
                            fault: lzkit::Fault::Lz4(lzkit::Lz4Fault::OffsetZero),
                            ..
                        }
                    ) {
                        wrong.push(format!(
                            "C accepts {b:02x?} at capacity {cap}, we reject it: {e}"
                        ));
                    }
                }
                (None, Err(_)) => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements, e.g.:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(12)].join("\n")
    );
}
