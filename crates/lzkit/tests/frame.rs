//! Tests of `lzkit::lz4::frame`: round trips with every option, one-shot and
//! streaming (odd write sizes, tiny reads, trickling readers), concatenated
//! and skippable frames, the legacy format, frame listing, and a precise
//! error for each kind of damage.

use lzkit::lz4::frame::{
    self, BlockMode, BlockSize, DecodeOptions, FrameDecoder, FrameEncoder, FrameKind, FrameOptions,
    LEGACY_BLOCK_SIZE, LEGACY_MAGIC, MAGIC, PushDecoder, decompress, decompress_with_dict,
    list_frames,
};
use lzkit::{Error, FrameFault, Lz4FrameFault};
use lzkit_testkit::Rng;
use lzkit_testkit::*;
use proptest::prelude::*;
use std::io::{Read, Write};
use std::sync::Arc;

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

fn one_shot(src: &[u8], dict: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    match dict {
        Some(d) => decompress_with_dict(src, d),
        None => decompress(src),
    }
}

fn dict_of(o: &FrameOptions) -> Option<Vec<u8>> {
    o.dictionary.as_ref().map(|d| d.to_vec())
}

/// Compress with `o` and check the frame layout against the options, then
/// decode one-shot and streaming and compare with `data`.
#[track_caller]
fn check_frame_roundtrip(data: &[u8], o: &FrameOptions, what: &str) -> Vec<u8> {
    let f = frame::compress(data, o);
    let dict = dict_of(o);
    let dict = dict.as_deref();
    check_layout(data, o, &f, what);

    let out = one_shot(&f, dict).unwrap_or_else(|e| panic!("{what}: {o:?}: decode failed: {e}"));
    assert_same(&out, data, &format!("{what}: one-shot"));

    let out = stream_decode(&f, dict, usize::MAX, 1 << 16)
        .unwrap_or_else(|e| panic!("{what}: {o:?}: FrameDecoder failed: {e}"));
    assert_same(&out, data, &format!("{what}: FrameDecoder"));
    f
}

/// Check the frame's bytes say what the options asked for.
#[track_caller]
fn check_layout(data: &[u8], o: &FrameOptions, f: &[u8], what: &str) {
    let magic = u32::from_le_bytes(f[..4].try_into().unwrap());
    if o.legacy {
        assert_eq!(magic, LEGACY_MAGIC, "{what}: legacy magic");
        // Blocks: u32 compressed size then data, 8 MiB of input each.
        let mut p = 4;
        let mut blocks = 0;
        while p < f.len() {
            let n = u32::from_le_bytes(f[p..p + 4].try_into().unwrap()) as usize;
            p += 4 + n;
            blocks += 1;
        }
        assert_eq!(p, f.len(), "{what}: legacy block sizes add up");
        assert_eq!(
            blocks,
            data.len().div_ceil(LEGACY_BLOCK_SIZE),
            "{what}: legacy block count"
        );
        return;
    }
    assert_eq!(magic, MAGIC, "{what}: magic");
    let l = frame_layout(f);
    assert_eq!(l.len, f.len(), "{what}: frame length from its layout");
    let flg = f[4];
    let bd = f[5];
    assert_eq!(flg >> 6, 0b01, "{what}: version");
    assert_eq!(flg & 0x02, 0, "{what}: reserved FLG bit");
    assert_eq!(
        flg & 0x10 != 0,
        o.block_checksum,
        "{what}: block checksum flag"
    );
    assert_eq!(
        flg & 0x04 != 0,
        o.content_checksum,
        "{what}: content checksum flag"
    );
    assert_eq!(
        flg & 0x08 != 0,
        o.content_size.is_some(),
        "{what}: content size flag"
    );
    assert_eq!(flg & 0x01 != 0, o.dict_id.is_some(), "{what}: dict ID flag");
    assert_eq!(bd & 0x8F, 0, "{what}: reserved BD bits");
    assert_eq!((bd >> 4) & 7, o.block_size as u8, "{what}: block size code");
    let hc = (xxhash_rust::xxh32::xxh32(&f[4..l.hc_at], 0) >> 8) as u8;
    assert_eq!(f[l.hc_at], hc, "{what}: header checksum");
    if let Some(p) = l.content_size_at {
        let cs = u64::from_le_bytes(f[p..p + 8].try_into().unwrap());
        assert_eq!(Some(cs), o.content_size, "{what}: content size field");
    }
    if let Some(p) = l.dict_id_at {
        let id = u32::from_le_bytes(f[p..p + 4].try_into().unwrap());
        assert_eq!(Some(id), o.dict_id, "{what}: dict ID field");
    }
    let bmax = o.block_size.bytes();
    assert_eq!(
        l.blocks.len(),
        data.len().div_ceil(bmax),
        "{what}: number of blocks"
    );
    for &(at, size, stored) in &l.blocks {
        assert!(
            size <= bmax,
            "{what}: block at {at} has {size} bytes > max {bmax}"
        );
        if stored {
            assert!(
                size <= bmax,
                "{what}: stored block larger than the block maximum"
            );
        }
    }
    if let Some(p) = l.content_checksum_at {
        let stored = u32::from_le_bytes(f[p..p + 4].try_into().unwrap());
        assert_eq!(
            stored,
            xxhash_rust::xxh32::xxh32(data, 0),
            "{what}: content checksum value"
        );
    }
    if o.block_checksum {
        for &(at, size, _) in &l.blocks {
            let stored = u32::from_le_bytes(f[at + 4 + size..at + 8 + size].try_into().unwrap());
            assert_eq!(
                stored,
                xxhash_rust::xxh32::xxh32(&f[at + 4..at + 4 + size], 0),
                "{what}: block checksum of block at {at}"
            );
        }
    }
}

fn all_options(level: i32, bs: BlockSize, linked: bool, bc: bool, cc: bool) -> FrameOptions {
    opts(
        level,
        bs,
        if linked {
            BlockMode::Linked
        } else {
            BlockMode::Independent
        },
        bc,
        cc,
        None,
        None,
    )
}

// ---------------------------------------------------------------------------
// Round trips.
// ---------------------------------------------------------------------------

#[test]
fn empty_input_every_option() {
    for bs in BLOCK_SIZES {
        for linked in [false, true] {
            for bc in [false, true] {
                for cc in [false, true] {
                    let mut o = all_options(1, bs, linked, bc, cc);
                    check_frame_roundtrip(&[], &o, "empty");
                    o.content_size = Some(0);
                    check_frame_roundtrip(&[], &o, "empty with content size");
                }
            }
        }
    }
    check_frame_roundtrip(&[], &legacy_opts(1), "empty legacy");
    check_frame_roundtrip(&[], &FrameOptions::default(), "empty default");
}

#[test]
fn defaults_match_the_cli() {
    let o = FrameOptions::default();
    assert_eq!(o.level, 1);
    assert_eq!(o.block_size, BlockSize::Max4MB);
    assert_eq!(o.block_mode, BlockMode::Independent);
    assert!(!o.block_checksum && o.content_checksum && o.content_size.is_none());
    assert!(o.dict_id.is_none() && o.dictionary.is_none() && !o.legacy);
    assert_eq!(BlockSize::Max64KB.bytes(), 64 << 10);
    assert_eq!(BlockSize::Max256KB.bytes(), 256 << 10);
    assert_eq!(BlockSize::Max1MB.bytes(), 1 << 20);
    assert_eq!(BlockSize::Max4MB.bytes(), 4 << 20);
    for c in 0..=255u8 {
        assert_eq!(
            BlockSize::from_code(c).map(|b| b as u8),
            (4..=7).contains(&c).then_some(c)
        );
    }
}

#[test]
fn block_boundaries_every_block_size() {
    // Sizes around one and two blocks, with repeats ending exactly at each
    // block end and at the block ends' LAST_LITERALS/MF_LIMIT margins.
    for bs in BLOCK_SIZES {
        let b = bs.bytes();
        let sizes: Vec<usize> = if b >= 1 << 20 {
            vec![b - 1, b, b + 1]
        } else {
            vec![b - 1, b, b + 1, 2 * b - 1, 2 * b, 2 * b + 1]
        };
        for n in sizes {
            let mut ends = Vec::new();
            for k in 1..=n / b {
                ends.extend(tail_ends(k * b));
                ends.push(k * b + 1);
            }
            let data = repeats_ending_at(n, &ends, n as u64);
            for linked in [false, true] {
                let o = all_options(1, bs, linked, true, true);
                check_frame_roundtrip(&data, &o, &format!("{bs:?} n={n} linked={linked}"));
            }
            let data = text(n, 3);
            let o = all_options(9, bs, true, false, true);
            check_frame_roundtrip(&data, &o, &format!("text {bs:?} n={n}"));
        }
    }
}

#[test]
fn incompressible_data_uses_stored_blocks() {
    for bs in [BlockSize::Max64KB, BlockSize::Max256KB] {
        let data = random(3 * bs.bytes() + 17, 42);
        for linked in [false, true] {
            let o = all_options(1, bs, linked, true, true);
            let f = check_frame_roundtrip(&data, &o, "random");
            let l = frame_layout(&f);
            assert!(
                l.blocks.iter().all(|&(_, _, stored)| stored),
                "random data: every block should be stored: {:?}",
                l.blocks
            );
            // Stored blocks: no expansion beyond the block headers.
            assert!(f.len() <= data.len() + 64 + 8 * l.blocks.len());
        }
    }
    // Mixed: compressible and incompressible blocks in one frame.
    let mut data = random(70_000, 1);
    data.extend(text(70_000, 2));
    data.extend(random(70_000, 3));
    let f = check_frame_roundtrip(
        &data,
        &all_options(1, BlockSize::Max64KB, true, true, true),
        "mixed stored",
    );
    let stored: Vec<bool> = frame_layout(&f).blocks.iter().map(|b| b.2).collect();
    assert!(
        stored.contains(&true) && stored.contains(&false),
        "{stored:?}"
    );
}

#[test]
fn linked_blocks_reference_previous_blocks() {
    // Random data with period 60000 (inside the 64 KiB window) in 64 KiB
    // blocks: linked mode finds the repeats across block boundaries,
    // independent mode only those inside a block.
    let unit = random(60_000, 5);
    let data: Vec<u8> = unit.iter().copied().cycle().take(65_536 * 4).collect();
    let linked = check_frame_roundtrip(
        &data,
        &all_options(1, BlockSize::Max64KB, true, false, true),
        "linked",
    );
    let indep = check_frame_roundtrip(
        &data,
        &all_options(1, BlockSize::Max64KB, false, false, true),
        "independent",
    );
    assert!(
        linked.len() < 70_000,
        "linked frame is {} bytes",
        linked.len()
    );
    assert!(
        indep.len() > 230_000,
        "independent frame is {} bytes",
        indep.len()
    );
}

#[test]
fn every_option_combination_small() {
    let datas = [
        ("text", text(150_000, 7)),
        ("mixed", mixed(140_000, 8)),
        ("run", run(130_001, 0)),
        ("period7", periodic(70_000, 7, 9)),
        ("tiny", b"hello hello hello".to_vec()),
    ];
    let dict = text(80_000, 7); // same generator: plenty to reference
    for (name, data) in &datas {
        for level in LEVELS {
            for bs in [BlockSize::Max64KB, BlockSize::Max256KB] {
                for linked in [false, true] {
                    for flags in 0..16u8 {
                        let (bc, cc, cs, dict_on) = (
                            flags & 1 != 0,
                            flags & 2 != 0,
                            flags & 4 != 0,
                            flags & 8 != 0,
                        );
                        if level != 1 && flags % 3 != 0 {
                            continue; // all flags at level 1, a sample at others
                        }
                        let o = opts(
                            level,
                            bs,
                            if linked {
                                BlockMode::Linked
                            } else {
                                BlockMode::Independent
                            },
                            bc,
                            cc,
                            cs.then_some(data.len() as u64),
                            dict_on.then_some((&dict[..], Some(0xD1C7_0000 + flags as u32))),
                        );
                        check_frame_roundtrip(
                            data,
                            &o,
                            &format!(
                                "{name} level {level} {bs:?} linked={linked} flags={flags:04b}"
                            ),
                        );
                    }
                }
            }
        }
        check_frame_roundtrip(data, &legacy_opts(1), &format!("{name} legacy"));
        check_frame_roundtrip(data, &legacy_opts(12), &format!("{name} legacy level 12"));
    }
}

#[test]
fn dictionary_frames() {
    let dict = text(100_000, 11);
    for (i, data) in [
        dict[50_000..90_000].to_vec(),
        text(300_000, 11),
        dict[..5000].to_vec(),
    ]
    .iter()
    .enumerate()
    {
        for linked in [false, true] {
            for dict_id in [None, Some(0), Some(7), Some(u32::MAX)] {
                let o = opts(
                    1,
                    BlockSize::Max64KB,
                    if linked {
                        BlockMode::Linked
                    } else {
                        BlockMode::Independent
                    },
                    false,
                    true,
                    None,
                    Some((&dict[..], dict_id)),
                );
                check_frame_roundtrip(
                    data,
                    &o,
                    &format!("dict case {i} linked {linked} id {dict_id:?}"),
                );
            }
        }
    }
    // The dictionary pays: a frame of data taken from the dictionary.
    let data = dict[60_000..70_000].to_vec();
    let with = frame::compress(
        &data,
        &opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            false,
            None,
            Some((&dict, None)),
        ),
    );
    let without = frame::compress(
        &data,
        &opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            false,
            None,
            None,
        ),
    );
    assert!(
        with.len() * 4 < without.len(),
        "{} vs {}",
        with.len(),
        without.len()
    );
    // A dictionary with dict_id None writes no dict ID; decoders still need it.
    assert!(decompress(&with).map(|v| v != data).unwrap_or(true));
}

#[test]
fn multi_megabyte_frames() {
    let big_text = text(9 << 20, 1);
    check_frame_roundtrip(
        &big_text,
        &all_options(1, BlockSize::Max4MB, false, true, true),
        "9 MiB text 4M",
    );
    check_frame_roundtrip(
        &big_text,
        &all_options(1, BlockSize::Max64KB, true, true, true),
        "9 MiB text 64K linked",
    );
    let mut o = all_options(12, BlockSize::Max1MB, true, false, true);
    o.content_size = Some(big_text.len() as u64);
    check_frame_roundtrip(&big_text, &o, "9 MiB text 1M level 12");
    let m = mixed(6 << 20, 2);
    check_frame_roundtrip(
        &m,
        &all_options(-5, BlockSize::Max256KB, true, true, false),
        "6 MiB mixed fast",
    );
    let r = random((4 << 20) + 1, 3);
    check_frame_roundtrip(
        &r,
        &all_options(1, BlockSize::Max4MB, false, true, true),
        "random 4 MiB + 1",
    );
    // Legacy: more than one 8 MiB block.
    check_frame_roundtrip(&big_text, &legacy_opts(1), "legacy 9 MiB");
    let exact = run(LEGACY_BLOCK_SIZE, 1);
    check_frame_roundtrip(&exact, &legacy_opts(1), "legacy exactly 8 MiB");
    let mut two = mixed(2 * LEGACY_BLOCK_SIZE + 1, 5);
    two[LEGACY_BLOCK_SIZE - 30..LEGACY_BLOCK_SIZE + 30].fill(0);
    check_frame_roundtrip(&two, &legacy_opts(1), "legacy 16 MiB + 1");
}

// ---------------------------------------------------------------------------
// Streaming.
// ---------------------------------------------------------------------------

fn encode_in_pieces(data: &[u8], o: &FrameOptions, piece: &dyn Fn(usize) -> usize) -> Vec<u8> {
    let mut e = FrameEncoder::new(Vec::new(), o);
    let mut p = 0;
    let mut i = 0;
    while p < data.len() {
        let n = piece(i).min(data.len() - p).max(1);
        e.write_all(&data[p..p + n]).unwrap();
        p += n;
        i += 1;
    }
    e.finish().unwrap()
}

#[test]
fn streaming_encoder_odd_writes() {
    let data = mixed(300_001, 21);
    let pieces: [(&str, &dyn Fn(usize) -> usize); 5] = [
        ("1 byte", &|_| 1),
        ("7 bytes", &|_| 7),
        ("100 KB", &|_| 100_000),
        ("varying", &|i| [1, 65_535, 3, 65_537, 1000, 131_072][i % 6]),
        ("everything", &|_| usize::MAX),
    ];
    let dict = text(70_000, 2);
    let option_sets = vec![
        all_options(1, BlockSize::Max64KB, false, true, true),
        all_options(1, BlockSize::Max64KB, true, true, true),
        all_options(9, BlockSize::Max256KB, true, false, false),
        opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Linked,
            true,
            true,
            Some(data.len() as u64),
            Some((&dict, Some(99))),
        ),
        opts(
            -5,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            true,
            Some(data.len() as u64),
            Some((&dict, None)),
        ),
        FrameOptions::default(),
        legacy_opts(1),
    ];
    for o in &option_sets {
        let one_shot_frame = frame::compress(&data, o);
        let d = dict_of(o);
        for (name, piece) in &pieces {
            let f = encode_in_pieces(&data, o, piece);
            check_layout(&data, o, &f, name);
            let out = one_shot(&f, d.as_deref()).unwrap_or_else(|e| panic!("{name} {o:?}: {e}"));
            assert_same(&out, &data, &format!("streamed in {name} pieces, {o:?}"));
            let out2 = one_shot(&one_shot_frame, d.as_deref()).unwrap();
            assert_same(&out2, &out, "streamed vs one-shot content");
        }
    }
}

#[test]
fn streaming_encoder_flush_and_empty() {
    // Empty stream.
    let f = FrameEncoder::new(Vec::new(), &FrameOptions::default())
        .finish()
        .unwrap();
    assert_eq!(decompress(&f).unwrap(), Vec::<u8>::new());
    // flush() in the middle: what was written so far is decodable content.
    let data = text(200_000, 4);
    for o in [
        all_options(1, BlockSize::Max64KB, true, true, true),
        all_options(1, BlockSize::Max64KB, false, false, false),
    ] {
        let mut e = FrameEncoder::new(Vec::new(), &o);
        e.write_all(&data[..1000]).unwrap();
        e.flush().unwrap();
        e.write_all(&data[1000..100_000]).unwrap();
        e.flush().unwrap();
        e.flush().unwrap();
        e.write_all(&data[100_000..]).unwrap();
        let f = e.finish().unwrap();
        assert_same(&decompress(&f).unwrap(), &data, "with flushes");
    }
}

#[test]
fn streaming_encoder_checks_content_size() {
    let data = text(10_000, 1);
    for wrong in [0u64, 9_999, 10_001, u64::MAX] {
        let o = opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            true,
            Some(wrong),
            None,
        );
        let mut e = FrameEncoder::new(Vec::new(), &o);
        let wrote = e.write_all(&data);
        let finished = e.finish();
        assert!(
            wrote.is_err() || finished.is_err(),
            "content size {wrong} declared, 10000 written: no error"
        );
    }
    let o = opts(
        1,
        BlockSize::Max64KB,
        BlockMode::Independent,
        false,
        true,
        Some(10_000),
        None,
    );
    let mut e = FrameEncoder::new(Vec::new(), &o);
    e.write_all(&data).unwrap();
    let f = e.finish().unwrap();
    assert_eq!(decompress(&f).unwrap(), data);
}

#[test]
fn frame_decoder_tiny_reads() {
    let data = mixed(200_000, 31);
    let dict = text(50_000, 3);
    let frames = [
        (
            frame::compress(&data, &all_options(1, BlockSize::Max64KB, true, true, true)),
            None,
        ),
        (
            frame::compress(
                &data,
                &all_options(1, BlockSize::Max64KB, false, false, false),
            ),
            None,
        ),
        (
            frame::compress(
                &data,
                &opts(
                    1,
                    BlockSize::Max64KB,
                    BlockMode::Linked,
                    true,
                    true,
                    Some(200_000),
                    Some((&dict, Some(5))),
                ),
            ),
            Some(&dict[..]),
        ),
        (frame::compress(&data, &legacy_opts(1)), None),
    ];
    for (i, (f, d)) in frames.iter().enumerate() {
        for (in_chunk, out_chunk) in [
            (usize::MAX, 1),
            (usize::MAX, 7),
            (1, 1 << 16),
            (1, 1),
            (7, 13),
            (4096, 65_537),
            (3, 1 << 20),
        ] {
            let out = stream_decode(f, *d, in_chunk, out_chunk)
                .unwrap_or_else(|e| panic!("frame {i}, in {in_chunk} out {out_chunk}: {e}"));
            assert_same(
                &out,
                &data,
                &format!("frame {i}, in {in_chunk} out {out_chunk}"),
            );
        }
    }
    // into_inner gives the reader back.
    let f = &frames[0].0;
    let mut dec = FrameDecoder::new(&f[..]);
    let mut out = Vec::new();
    dec.read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    let rest: &[u8] = dec.into_inner();
    assert!(rest.is_empty());
}

// ---------------------------------------------------------------------------
// Concatenation, skippable frames, legacy.
// ---------------------------------------------------------------------------

#[test]
fn concatenated_and_skippable_frames() {
    let a = text(100_000, 1);
    let b = random(70_000, 2);
    let c = run(5000, 3);
    let fa = frame::compress(&a, &all_options(1, BlockSize::Max64KB, true, true, true));
    let fb = frame::compress(
        &b,
        &all_options(9, BlockSize::Max256KB, false, false, false),
    );
    let fc = frame::compress(&c, &FrameOptions::default());
    let fe = frame::compress(&[], &FrameOptions::default());
    let mut stream = Vec::new();
    stream.extend(skippable_frame(0, b"leading user data"));
    stream.extend(&fa);
    for nib in 0..16u8 {
        stream.extend(skippable_frame(
            nib,
            &random(nib as usize * 100, nib as u64),
        ));
    }
    stream.extend(&fe);
    stream.extend(&fb);
    stream.extend(skippable_frame(0xF, &[]));
    stream.extend(&fc);
    stream.extend(skippable_frame(3, &fa)); // a frame inside a skippable frame is skipped
    stream.extend(&fa);
    let mut expected = a.clone();
    expected.extend(&b);
    expected.extend(&c);
    expected.extend(&a);

    assert_same(&decompress(&stream).unwrap(), &expected, "one-shot");
    for (ic, oc) in [(usize::MAX, 1 << 16), (1, 7), (5, 1)] {
        assert_same(
            &stream_decode(&stream, None, ic, oc).unwrap(),
            &expected,
            "streaming",
        );
    }

    // Only skippable frames.
    let only = [skippable_frame(1, b"x"), skippable_frame(2, &[])].concat();
    assert_eq!(decompress(&only).unwrap(), Vec::<u8>::new());
    assert_eq!(stream_decode(&only, None, 1, 1).unwrap(), Vec::<u8>::new());

    // Listing.
    let info = list_frames(&stream[..]).unwrap();
    let kinds: Vec<FrameKind> = info.iter().map(|i| i.kind).collect();
    assert_eq!(kinds.len(), 1 + 1 + 16 + 1 + 1 + 1 + 1 + 1 + 1);
    assert_eq!(kinds[0], FrameKind::Skippable);
    assert_eq!(kinds[1], FrameKind::Standard);
    let mut pos = 0u64;
    for i in &info {
        assert_eq!(i.offset, pos, "frame offsets are contiguous");
        pos += i.compressed_size;
    }
    assert_eq!(pos, stream.len() as u64);
    let fa_info = &info[1];
    assert_eq!(fa_info.compressed_size, fa.len() as u64);
    assert_eq!(fa_info.block_size, Some(BlockSize::Max64KB));
    assert!(fa_info.block_checksum && fa_info.content_checksum);
    assert_eq!(fa_info.blocks, 2);
    assert_eq!(fa_info.content_size, None);
    assert_eq!(fa_info.dict_id, None);
}

#[test]
fn legacy_followed_by_other_frames() {
    // The lz4 CLI ends a legacy stream at the next magic number.
    let a = text(50_000, 1);
    let b = text(60_000, 2);
    let mut stream = frame::compress(&a, &legacy_opts(1));
    stream.extend(frame::compress(&b, &FrameOptions::default()));
    stream.extend(frame::compress(&a, &legacy_opts(9)));
    let expected = [a.clone(), b.clone(), a.clone()].concat();
    assert_same(
        &decompress(&stream).unwrap(),
        &expected,
        "legacy + frame + legacy",
    );
    assert_same(
        &stream_decode(&stream, None, 3, 11).unwrap(),
        &expected,
        "streaming",
    );
    let info = list_frames(&stream[..]).unwrap();
    let kinds: Vec<FrameKind> = info.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        vec![FrameKind::Legacy, FrameKind::Standard, FrameKind::Legacy]
    );
}

#[test]
fn list_frames_fields() {
    let data = text(300_000, 9);
    let dict = text(1000, 1);
    let o = opts(
        1,
        BlockSize::Max64KB,
        BlockMode::Linked,
        true,
        false,
        Some(300_000),
        Some((&dict, Some(1234))),
    );
    let f = frame::compress(&data, &o);
    let info = list_frames(&f[..]).unwrap();
    assert_eq!(info.len(), 1);
    let i = &info[0];
    assert_eq!(i.kind, FrameKind::Standard);
    assert_eq!(i.offset, 0);
    assert_eq!(i.compressed_size, f.len() as u64);
    assert_eq!(i.content_size, Some(300_000));
    assert_eq!(i.block_size, Some(BlockSize::Max64KB));
    assert_eq!(i.block_mode, Some(BlockMode::Linked));
    assert!(i.block_checksum && !i.content_checksum);
    assert_eq!(i.dict_id, Some(1234));
    assert_eq!(i.blocks, 5);
    assert!(list_frames(&b"not lz4 at all"[..]).is_err());
}

// ---------------------------------------------------------------------------
// Errors.
// ---------------------------------------------------------------------------

/// Decode `src` one-shot and streaming (1-byte reads); both must fail; the
/// one-shot error is returned. Streaming must fail with the same variant.
#[track_caller]
fn both_fail(src: &[u8], dict: Option<&[u8]>, what: &str) -> Error {
    let e1 = match one_shot(src, dict) {
        Ok(v) => panic!("{what}: one-shot decode accepted it ({} bytes)", v.len()),
        Err(e) => e,
    };
    let e2 = match stream_decode(src, dict, 1, 1) {
        Ok(v) => panic!(
            "{what}: FrameDecoder accepted it ({} bytes); one-shot said {e1}",
            v.len()
        ),
        Err(e) => e,
    };
    assert_eq!(
        std::mem::discriminant(&e1),
        std::mem::discriminant(&e2),
        "{what}: one-shot says {e1:?}, streaming says {e2:?}"
    );
    e1
}

fn sample_frame(bc: bool, cc: bool, cs: bool) -> (Vec<u8>, Vec<u8>) {
    let data = mixed(150_000, 77);
    let o = opts(
        1,
        BlockSize::Max64KB,
        BlockMode::Linked,
        bc,
        cc,
        cs.then_some(data.len() as u64),
        None,
    );
    (frame::compress(&data, &o), data)
}

#[test]
fn bad_magic() {
    let (f, _) = sample_frame(false, true, false);
    let mut g = f.clone();
    g[0] ^= 0x01;
    match both_fail(&g, None, "bad magic") {
        Error::CorruptFrame {
            at,
            fault: FrameFault::Lz4(Lz4FrameFault::UnknownMagic { magic }),
        } => {
            assert_eq!(magic, MAGIC ^ 1);
            assert_eq!(at, 0);
        }
        e => panic!("bad magic: {e:?}"),
    }
    // Garbage after a valid frame: reported at its position.
    let mut g = f.clone();
    g.extend_from_slice(b"garbage!");
    match both_fail(&g, None, "trailing garbage") {
        Error::CorruptFrame {
            at,
            fault: FrameFault::Lz4(Lz4FrameFault::UnknownMagic { magic }),
        } => {
            assert_eq!(magic, u32::from_le_bytes(*b"garb"));
            assert_eq!(at, f.len() as u64);
        }
        e => panic!("trailing garbage: {e:?}"),
    }
    // The magic numbers just outside the skippable range.
    for m in [0x184D_2A4Fu32, 0x184D_2A60, 0x184D_2205, 0x184C_2103] {
        let mut g = m.to_le_bytes().to_vec();
        g.extend_from_slice(&[0u8; 16]);
        assert!(
            matches!(
                both_fail(&g, None, "near-magic"),
                Error::CorruptFrame {
                    fault: FrameFault::Lz4(Lz4FrameFault::UnknownMagic { .. }),
                    ..
                }
            ),
            "{m:#x}"
        );
    }
}

#[test]
fn bad_header_fields() {
    let (f, _) = sample_frame(false, true, false);
    // (byte, xor mask, what)
    let edits: &[(usize, u8, &str)] = &[
        (4, 0x02, "FLG reserved bit 1"),
        (4, 0x40, "FLG version 00"),
        (4, 0x80, "FLG version 11"),
        (4, 0xC0, "FLG version 10"),
        (5, 0x80, "BD reserved bit 7"),
        (5, 0x01, "BD reserved bit 0"),
        (5, 0x08, "BD reserved bit 3"),
        (5, 0x40, "BD block size code 0"), // code 4 (0x40) ^ 0x40
        (5, 0x60, "BD block size code 2"), // code 4 (0x40) ^ 0x60 = 0x20
    ];
    let mut wrong = Vec::new();
    for &(at, mask, what) in edits {
        let mut g = f.clone();
        g[at] ^= mask;
        fix_header_checksum(&mut g);
        match both_fail(&g, None, what) {
            Error::CorruptFrame {
                at,
                fault: FrameFault::Lz4(Lz4FrameFault::BadHeader { .. }),
            } => assert_eq!(at, 0, "{what}"),
            e => wrong.push(format!("{what}: {e:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "expected BadHeader:\n{}",
        wrong.join("\n")
    );
    // Every block size code 0..=3 is invalid.
    for code in 0..4u8 {
        let mut g = f.clone();
        g[5] = code << 4;
        fix_header_checksum(&mut g);
        assert!(
            matches!(
                both_fail(&g, None, "code"),
                Error::CorruptFrame {
                    fault: FrameFault::Lz4(Lz4FrameFault::BadHeader { .. }),
                    ..
                }
            ),
            "code {code}"
        );
    }
}

#[test]
fn header_checksum_flip() {
    for (bc, cc, cs) in [(false, true, false), (true, false, true)] {
        let (f, _) = sample_frame(bc, cc, cs);
        let l = frame_layout(&f);
        for bit in 0..8 {
            let mut g = f.clone();
            g[l.hc_at] ^= 1 << bit;
            match both_fail(&g, None, "HC flip") {
                Error::CorruptFrame {
                    fault: FrameFault::Lz4(Lz4FrameFault::HeaderChecksum { stored, computed }),
                    ..
                } => {
                    assert_eq!(stored, f[l.hc_at] ^ (1 << bit));
                    assert_eq!(computed, f[l.hc_at]);
                }
                e => panic!("HC flip: {e:?}"),
            }
        }
        // A flipped content-size byte is caught by the header checksum.
        if let Some(p) = l.content_size_at {
            let mut g = f.clone();
            g[p] ^= 0x10;
            assert!(matches!(
                both_fail(&g, None, "content size flip"),
                Error::CorruptFrame {
                    fault: FrameFault::Lz4(Lz4FrameFault::HeaderChecksum { .. }),
                    ..
                }
            ));
        }
    }
}

#[test]
fn block_checksum_flip() {
    let (f, _) = sample_frame(true, false, false);
    let l = frame_layout(&f);
    assert!(l.blocks.len() >= 3);
    for (idx, &(at, size, _)) in l.blocks.iter().enumerate() {
        // The checksum itself, and a byte of the block's data.
        for (pos, what) in [
            (at + 4 + size, "checksum byte"),
            (at + 4 + size / 2, "data byte"),
        ] {
            let mut g = f.clone();
            g[pos] ^= 0x20;
            match both_fail(&g, None, what) {
                Error::Block {
                    index,
                    at: bat,
                    source,
                } => {
                    assert_eq!(index, idx as u64, "{what}");
                    assert_eq!(bat, at as u64, "{what}: block position");
                    assert!(
                        matches!(*source, Error::BlockChecksum { .. }),
                        "{what} in block {idx}: {source:?}"
                    );
                }
                e => panic!("{what} in block {idx}: {e:?}"),
            }
        }
    }
}

#[test]
fn content_checksum_flip() {
    let (f, data) = sample_frame(false, true, false);
    let l = frame_layout(&f);
    let p = l.content_checksum_at.unwrap();
    for bit in [0, 9, 31] {
        let mut g = f.clone();
        g[p + bit / 8] ^= 1 << (bit % 8);
        match both_fail(&g, None, "content checksum flip") {
            Error::ContentChecksum {
                at,
                stored,
                computed,
            } => {
                assert_eq!(at, p as u64);
                assert_eq!(computed, xxhash_rust::xxh32::xxh32(&data, 0));
                assert_eq!(stored, computed ^ (1 << bit));
            }
            e => panic!("content checksum flip: {e:?}"),
        }
    }
    // Damage inside a stored or compressed block that still decodes is
    // caught by the content checksum (or by the block decoder).
    let mut g = f.clone();
    let (at, size, _) = l.blocks[1];
    g[at + 4 + size - 1] ^= 0x01; // the last literal of block 1
    let e = both_fail(&g, None, "last literal flip");
    assert!(
        matches!(e, Error::ContentChecksum { .. } | Error::Block { .. }),
        "{e:?}"
    );
}

#[test]
fn truncated_frames() {
    let mut wrong = Vec::new();
    for (bc, cc, cs) in [
        (false, true, false),
        (true, true, true),
        (false, false, false),
    ] {
        let (f, _) = sample_frame(bc, cc, cs);
        let l = frame_layout(&f);
        let mut cuts: Vec<usize> = (1..=l.header_len + 10).collect();
        for &(at, size, _) in &l.blocks {
            cuts.extend([
                at,
                at + 1,
                at + 3,
                at + 4,
                at + 5,
                at + 4 + size / 2,
                at + 4 + size - 1,
                at + 4 + size,
            ]);
            if bc {
                cuts.extend([at + 4 + size + 1, at + 4 + size + 3]);
            }
        }
        cuts.extend(l.end_mark_at..f.len());
        cuts.retain(|&c| c > 0 && c < f.len());
        cuts.sort();
        cuts.dedup();
        for cut in cuts {
            let e = both_fail(&f[..cut], None, &format!("cut at {cut} of {}", f.len()));
            let ok = match &e {
                Error::Truncated { .. } => true,
                Error::Block { source, .. } => matches!(
                    **source,
                    Error::Truncated { .. }
                        | Error::CorruptBlock {
                            fault: lzkit::Fault::Lz4(lzkit::Lz4Fault::Truncated),
                            ..
                        }
                ),
                Error::CorruptFrame {
                    fault: FrameFault::Lz4(Lz4FrameFault::UnknownMagic { .. }),
                    ..
                } => cut < 4,
                _ => false,
            };
            if !ok {
                wrong.push(format!(
                    "frame (bc {bc}, cc {cc}, cs {cs}) of {} bytes cut at {cut}: {e:?}",
                    f.len()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} truncations not reported as truncation:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}

#[test]
fn content_size_mismatch() {
    let (f, data) = sample_frame(false, false, true);
    let l = frame_layout(&f);
    let p = l.content_size_at.unwrap();
    let n = data.len() as u64;
    for claimed in [0, n - 1, n + 1, 2 * n, u64::MAX] {
        let mut g = f.clone();
        g[p..p + 8].copy_from_slice(&claimed.to_le_bytes());
        fix_header_checksum(&mut g);
        match both_fail(&g, None, "content size") {
            Error::ContentSize { expected, actual } => {
                assert_eq!(expected, claimed);
                assert!(actual != claimed);
                if claimed > n {
                    assert_eq!(actual, n);
                }
            }
            e => panic!("content size {claimed} for {n} bytes: {e:?}"),
        }
    }
}

#[test]
fn dictionary_required() {
    let dict = text(60_000, 5);
    let data = dict[10_000..50_000].to_vec();
    for (cc, id) in [(true, Some(0x1234_5678u32)), (false, Some(1)), (true, None)] {
        let o = opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            cc,
            None,
            Some((&dict, id)),
        );
        let f = frame::compress(&data, &o);
        assert_eq!(decompress_with_dict(&f, &dict).unwrap(), data);
        let e = both_fail(&f, None, "no dictionary");
        match (&e, id) {
            (Error::DictionaryRequired { dict_id }, Some(id)) => assert_eq!(*dict_id, id),
            (Error::Block { .. } | Error::ContentChecksum { .. }, _) => {}
            _ => panic!("dict id {id:?} without dictionary: {e:?}"),
        }
        // The wrong dictionary: detectable only with a content checksum.
        if !cc {
            continue;
        }
        let other = text(60_000, 6);
        let e = both_fail(&f, Some(&other), "wrong dictionary");
        assert!(
            matches!(
                e,
                Error::Block { .. }
                    | Error::ContentChecksum { .. }
                    | Error::DictionaryRequired { .. }
            ),
            "wrong dictionary: {e:?}"
        );
    }
}

#[test]
fn block_larger_than_maximum() {
    let (f, _) = sample_frame(false, false, false);
    let l = frame_layout(&f);
    let (at, _, _) = l.blocks[0];
    let mut g = f.clone();
    g[at..at + 4].copy_from_slice(&(65_537u32).to_le_bytes());
    let e = both_fail(&g, None, "block too large");
    let inner = match &e {
        Error::Block { source, .. } => &**source,
        other => other,
    };
    assert!(
        matches!(
            inner,
            Error::BlockTooLarge {
                size: 65_537,
                max: 65_536
            }
        ),
        "{e:?}"
    );
    // A stored block too.
    let mut g = f.clone();
    g[at..at + 4].copy_from_slice(&(0x8000_0000u32 | 65_537).to_le_bytes());
    let e = both_fail(&g, None, "stored block too large");
    let inner = match &e {
        Error::Block { source, .. } => &**source,
        other => other,
    };
    assert!(matches!(inner, Error::BlockTooLarge { .. }), "{e:?}");
}

#[test]
fn corrupt_compressed_block_in_frame() {
    // No checksums: damage reaches the block decoder, which must reject it
    // with a Block error carrying the block index.
    let (f, _) = sample_frame(false, false, false);
    let l = frame_layout(&f);
    let (at, size, stored) = l.blocks[1];
    assert!(!stored);
    // Replace the block with one using offset 0.
    let mut bad = Vec::new();
    push_seq(&mut bad, b"abcd", 0, 4);
    push_last(&mut bad, b"0123456789ab");
    let mut g = f[..at].to_vec();
    g.extend_from_slice(&(bad.len() as u32).to_le_bytes());
    g.extend_from_slice(&bad);
    g.extend_from_slice(&f[at + 4 + size..]);
    match both_fail(&g, None, "offset 0 block") {
        Error::Block {
            index,
            at: bat,
            source,
        } => {
            assert_eq!(index, 1);
            assert_eq!(bat, at as u64);
            assert!(
                matches!(
                    *source,
                    Error::CorruptBlock {
                        fault: lzkit::Fault::Lz4(lzkit::Lz4Fault::OffsetZero),
                        ..
                    }
                ),
                "{source:?}"
            );
        }
        e => panic!("{e:?}"),
    }
    // A block decoding to more than the block maximum.
    let mut bad = Vec::new();
    push_seq(&mut bad, b"a", 1, 70_000);
    push_last(&mut bad, b"0123456789ab");
    let mut g = f[..at].to_vec();
    g.extend_from_slice(&(bad.len() as u32).to_le_bytes());
    g.extend_from_slice(&bad);
    g.extend_from_slice(&f[at + 4 + size..]);
    assert!(matches!(
        both_fail(&g, None, "oversized block"),
        Error::Block { index: 1, .. }
    ));
}

#[test]
fn legacy_errors() {
    let data = text(100_000, 3);
    let f = frame::compress(&data, &legacy_opts(1));
    for cut in [1, 3, 5, 7, 8, 9, f.len() / 2, f.len() - 1] {
        both_fail(&f[..cut], None, &format!("legacy cut at {cut}"));
    }
    let mut g = f.clone();
    g[4..8].copy_from_slice(&0x7FFF_FFF0u32.to_le_bytes()); // absurd block size
    both_fail(&g, None, "legacy absurd block size");
}

#[test]
fn corrupt_frames_never_panic_and_decoders_agree() {
    let data = mixed(100_000, 5);
    let dict = text(20_000, 1);
    let frames = [
        frame::compress(
            &data,
            &all_options(1, BlockSize::Max64KB, true, false, false),
        ),
        frame::compress(
            &data,
            &all_options(1, BlockSize::Max64KB, false, true, true),
        ),
        frame::compress(
            &data,
            &opts(
                1,
                BlockSize::Max64KB,
                BlockMode::Linked,
                false,
                false,
                Some(100_000),
                Some((&dict, Some(3))),
            ),
        ),
        frame::compress(&data[..3000], &legacy_opts(1)),
        [
            skippable_frame(1, b"abc"),
            frame::compress(&data[..500], &FrameOptions::default()),
        ]
        .concat(),
    ];
    let mut rng = Rng::for_data(0xF4A3E);
    for (fi, f) in frames.iter().enumerate() {
        for _ in 0..600 {
            let mut g = f.clone();
            match rng.index(4) {
                0 => {
                    for _ in 0..rng.range(1, 3) {
                        let i = rng.index(g.len());
                        g[i] ^= 1 << rng.index(8);
                    }
                }
                1 => {
                    let i = rng.index(g.len().min(40));
                    g[i] = rng.byte();
                }
                2 => g.truncate(rng.index(g.len())),
                _ => {
                    let i = rng.index(g.len());
                    g.insert(i, rng.byte());
                }
            }
            let d = (fi == 2).then_some(&dict[..]);
            if fi != 2 && fi != 3 {
                assert_push_agrees(&g, &[rng.range(1, 5000)], &format!("frame {fi}"));
            }
            let a = one_shot(&g, d);
            let b = stream_decode(&g, d, rng.range(1, 5000), rng.range(1, 5000));
            match (&a, &b) {
                (Ok(x), Ok(y)) => assert_same(x, y, "one-shot vs streaming"),
                (Err(x), Err(y)) => assert_eq!(
                    std::mem::discriminant(x),
                    std::mem::discriminant(y),
                    "frame {fi}: one-shot {x:?} vs streaming {y:?}"
                ),
                _ => panic!(
                    "frame {fi}: one-shot {a:?} vs streaming {:?}",
                    b.as_ref().map(|v| v.len())
                ),
            }
            let _ = list_frames(&g[..]);
        }
    }
}

// ---------------------------------------------------------------------------
// Property tests.
// ---------------------------------------------------------------------------

/// Level, block size, linked, block checksum, content checksum, content
/// size, dictionary (length, ID), legacy.
type OptionBits = (
    i32,
    BlockSize,
    bool,
    bool,
    bool,
    bool,
    Option<(usize, Option<u32>)>,
    bool,
);

fn options_strategy() -> impl Strategy<Value = OptionBits> {
    (
        prop::sample::select(LEVELS.to_vec()),
        prop::sample::select(BLOCK_SIZES.to_vec()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::weighted(
            0.3,
            (
                prop_oneof![1usize..100, 60_000usize..70_000, 100_000usize..130_000],
                any::<Option<u32>>(),
            ),
        ),
        prop::bool::weighted(0.1),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn prop_frame_roundtrip(
        shape in shape_strategy(),
        n in prop_oneof![0usize..2000, 0usize..300_000],
        seed in any::<u64>(),
        (level, bs, linked, bc, cc, cs, dict, legacy) in options_strategy(),
        in_chunk in 1usize..70_000,
        out_chunk in 1usize..70_000,
    ) {
        let data = generate(shape, n, seed);
        let o = if legacy {
            legacy_opts(level)
        } else {
            let dict_bytes = dict.map(|(len, id)| (mixed(len, seed ^ 1).into_iter().chain(data.iter().copied().take(1000)).collect::<Vec<u8>>(), id));
            FrameOptions::new()
                .level(level)
                .block_size(bs)
                .block_mode(if linked { BlockMode::Linked } else { BlockMode::Independent })
                .block_checksum(bc)
                .content_checksum(cc)
                .content_size(cs.then_some(n as u64))
                .dict_id(dict_bytes.as_ref().and_then(|d| d.1))
                .dictionary_opt(dict_bytes.map(|d| Arc::from(d.0)))
                .legacy(false)
                .threads(1)
        };
        let f = check_frame_roundtrip(&data, &o, &format!("{shape:?} n={n} seed={seed}"));
        let d = dict_of(&o);
        let out = stream_decode(&f, d.as_deref(), in_chunk, out_chunk).unwrap();
        prop_assert!(out == data);
        if !legacy && d.is_none() {
            // Fed in pieces, with bytes after the frame left unused.
            let mut g = f.clone();
            g.extend_from_slice(b"after");
            let (out, used) = push_decode(&g, &[in_chunk]).unwrap();
            prop_assert!(out == data);
            prop_assert_eq!(used, f.len());
        }
        // Streaming encoder with odd pieces gives the same content.
        let g = encode_in_pieces(&data, &o, &|i| [in_chunk, 1, out_chunk, 7][i % 4]);
        let out = one_shot(&g, d.as_deref()).unwrap();
        prop_assert!(out == data);
    }

    #[test]
    fn prop_arbitrary_bytes_never_panic(mut bytes in prop::collection::vec(any::<u8>(), 0..600), magic in 0usize..4) {
        // Give the bytes a plausible start so parsing gets past the magic.
        let m = [MAGIC, LEGACY_MAGIC, 0x184D_2A5A, 0][magic];
        if m != 0 && bytes.len() >= 4 {
            bytes[..4].copy_from_slice(&m.to_le_bytes());
        }
        if m != LEGACY_MAGIC {
            assert_push_agrees(&bytes, &[3], "arbitrary bytes");
        }
        let a = decompress(&bytes);
        let b = stream_decode(&bytes, None, 3, 5);
        prop_assert_eq!(a.is_ok(), b.is_ok(), "one-shot {:?} vs streaming {:?}", a, b);
        if let (Ok(x), Ok(y)) = (a, b) {
            prop_assert!(x == y);
        }
        let _ = list_frames(&bytes[..]);
    }
}

/// The push decoder, byte by byte and in one piece, on every option; it
/// refuses legacy frames and frames that need a dictionary, skips a
/// skippable frame as a frame of its own, and keeps what follows a frame.
#[test]
fn push_decoder_frames() {
    let data = mixed(300_000, 9);
    for (bs, linked, bc, cc) in [
        (BlockSize::Max64KB, true, true, true),
        (BlockSize::Max64KB, false, false, false),
        (BlockSize::Max256KB, true, false, true),
        (BlockSize::Max1MB, false, true, false),
    ] {
        let f = frame::compress(&data, &all_options(1, bs, linked, bc, cc));
        for piece in [1, 7, 4096, usize::MAX] {
            let (out, used) = push_decode(&f, &[piece]).unwrap();
            assert_same(
                &out,
                &data,
                &format!("{bs:?} linked={linked} piece={piece}"),
            );
            assert_eq!(used, f.len());
        }
    }
    // A skippable frame is a frame: it ends with nothing decoded.
    let skip = [
        skippable_frame(3, b"meta"),
        frame::compress(b"next", &FrameOptions::new()),
    ]
    .concat();
    let mut dec = PushDecoder::new();
    let mut out = Vec::new();
    assert!(dec.feed(&skip, &mut out).unwrap());
    assert!(out.is_empty());
    assert_eq!(dec.unused(), &skip[12..]);
    dec.reset();
    assert!(dec.feed(&skip[12..], &mut out).unwrap());
    assert_eq!(out, b"next");
    // Legacy and dictionary frames are refused.
    let legacy = frame::compress(&data[..1000], &legacy_opts(1));
    assert!(matches!(
        push_decode(&legacy, &[100]),
        Err(Error::CorruptFrame {
            fault: FrameFault::Lz4(Lz4FrameFault::UnknownMagic { .. }),
            ..
        })
    ));
    let with_id = frame::compress(
        &data[..1000],
        &FrameOptions::new()
            .dictionary(b"dictionary".to_vec())
            .dict_id(Some(5)),
    );
    assert!(matches!(
        push_decode(&with_id, &[100]),
        Err(Error::DictionaryRequired { dict_id: 5 })
    ));
    // An empty skippable frame ends as soon as its 8 bytes are in.
    let empty_skip = skippable_frame(0, b"");
    assert_eq!(empty_skip.len(), 8);
    let mut dec = PushDecoder::new();
    assert!(dec.feed(&empty_skip, &mut out).unwrap());
    assert_eq!(push_decode(&empty_skip, &[3]).unwrap(), (Vec::new(), 8));
    // Errors carry stream positions, however the input arrives: a block
    // size over the frame's maximum, its word fed after the header.
    let small = frame::compress(&data[..100], &FrameOptions::new().content_size(None));
    let header_len = 7;
    let mut bad = small[..header_len].to_vec();
    bad.extend_from_slice(&(8u32 << 20).to_le_bytes());
    let want = frame::decompress_first(&bad, 1).unwrap_err();
    let mut dec = PushDecoder::new();
    dec.feed(&bad[..header_len], &mut out).unwrap();
    let got = dec.feed(&bad[header_len..], &mut out).unwrap_err();
    assert_eq!(format!("{got}"), format!("{want}"));
    // After an error the decoder refuses to go on until reset.
    assert!(dec.feed(&small, &mut out).is_err());
    dec.reset();
    out.clear();
    assert!(dec.feed(&small, &mut out).unwrap());
    assert_eq!(out, &data[..100]);
    // A block begun in one piece, the rest of the frame in one large one.
    let f = frame::compress(&data, &all_options(1, BlockSize::Max64KB, true, true, true));
    let mut dec = PushDecoder::new();
    let mut out = Vec::new();
    dec.feed(&f[..20], &mut out).unwrap();
    assert!(dec.feed(&f[20..], &mut out).unwrap());
    assert_same(&out, &data, "a large piece after a small one");
    // Input after the end is kept, however it arrives.
    let f = frame::compress(&data[..5000], &FrameOptions::new());
    let mut dec = PushDecoder::new();
    let mut out = Vec::new();
    assert!(!dec.feed(&f[..f.len() - 1], &mut out).unwrap());
    assert!(dec.feed(&[f[f.len() - 1], 1, 2], &mut out).unwrap());
    assert!(dec.feed(&[3], &mut out).unwrap());
    assert_eq!(out, &data[..5000]);
    assert_eq!(dec.unused(), &[1, 2, 3]);
}

/// `verify_checksums(false)` reads past block and content checksums on
/// every decode path (one-shot, streaming, 1 and 4 threads, linked and
/// independent blocks); with verification a damaged checksum is an error.
#[test]
fn checksums_can_be_left_unverified() {
    let data = lzkit_testkit::prose_with_noise(600_000, 91);
    for linked in [false, true] {
        let opts = FrameOptions::new()
            .block_size(BlockSize::Max64KB)
            .block_mode(if linked {
                BlockMode::Linked
            } else {
                BlockMode::Independent
            })
            .block_checksum(true)
            .content_checksum(true);
        let packed = lzkit::lz4::frame::compress(&data, &opts);
        // Damage the last block checksum and the content checksum: the
        // 4 bytes before the end mark and the last 4 bytes.
        let mut bad = packed.clone();
        let n = bad.len();
        bad[n - 9] ^= 0x55;
        bad[n - 1] ^= 0x55;
        for threads in [1, 4] {
            let checked = DecodeOptions::new().threads(threads);
            assert!(lzkit::lz4::frame::decompress_with(&bad, &checked).is_err());
            let unchecked = checked.clone().verify_checksums(false);
            let out = lzkit::lz4::frame::decompress_with(&bad, &unchecked).expect("unverified");
            assert!(out == data, "one-shot, linked {linked}, {threads} threads");
            let mut streamed = Vec::new();
            FrameDecoder::with_options(&bad[..], &unchecked)
                .read_to_end(&mut streamed)
                .expect("streaming, unverified");
            assert!(
                streamed == data,
                "streaming, linked {linked}, {threads} threads"
            );
            let mut sink = Vec::new();
            assert!(
                FrameDecoder::with_options(&bad[..], &checked)
                    .read_to_end(&mut sink)
                    .is_err()
            );
        }
    }
}
