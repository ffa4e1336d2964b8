//! Write seed corpora for the fuzz targets: large valid cases, so that
//! libFuzzer starts from inputs that run the decoders' fast loops, cross
//! dictionary boundaries and reach the parallel decoders, and mutates from
//! there.
//!
//!     cargo run --release --manifest-path fuzz/Cargo.toml --example seeds -- fuzz/corpus
//!
//! Writes `DIR/<target>/seed-*` (overwriting earlier seeds of the same
//! name; nothing else in the directories is touched). Every seed is
//! generated from fixed seeds: the same files on every run. Data comes from
//! the testkit generators (the bench corpus's column-like files, text,
//! mixed data, the decoder shapes), compressed by lzkit and by C, fast and
//! HC, linked and independent, with and without dictionaries.

use lzkit::lz4::block;
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameEncoder, FrameOptions};
use lzkit_fuzz::block::{BlockCase, CapMode, DictMode};
use lzkit_fuzz::dictionary;
use lzkit_fuzz::frame_case::{CaseOptions, FrameCase, LEVELS};
use lzkit_testkit::c_ref::{self, FrameSettings};
use lzkit_testkit::{corpus, data, skippable_frame};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Seeds written to one target's directory.
struct Seeds {
    dir: PathBuf,
    /// Decoder group of the next block seed (rotating: every group starts
    /// with some large blocks).
    group: std::cell::Cell<u8>,
    count: usize,
    bytes: usize,
}

impl Seeds {
    fn new(root: &Path, target: &str) -> Seeds {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Seeds {
            dir,
            group: std::cell::Cell::new(0),
            count: 0,
            bytes: 0,
        }
    }

    fn put(&mut self, name: &str, bytes: &[u8]) {
        let path = self.dir.join(format!("seed-{name}"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.count += 1;
        self.bytes += bytes.len();
    }

    /// The next decoder group.
    fn group(&self) -> u8 {
        self.group.set(self.group.get().wrapping_add(1));
        self.group.get()
    }

    fn report(&self) {
        println!(
            "{}: {} seeds, {} KiB",
            self.dir.display(),
            self.count,
            self.bytes >> 10
        );
    }
}

/// `len` bytes of bench-corpus file `index`.
/// A block case without a dictionary, its capacity chosen by `cap` (with
/// `field` as the capacity field).
fn plain_block(block: &[u8], cap: CapMode, field: u32, group: u8) -> Vec<u8> {
    BlockCase::encode(block, DictMode::None, &[], cap, field, group)
}

fn column(index: usize, len: usize) -> Vec<u8> {
    let mut v = corpus::generate(index, len as f64 / f64::from(1 << 20));
    v.truncate(len);
    v
}

/// A block compressed by lzkit (`c` false) or C at `level`.
fn compress_block(d: &[u8], level: i32, c: bool) -> Vec<u8> {
    if c {
        c_ref::compress(d, level).expect("C compresses")
    } else {
        block::compress(d, level)
    }
}

fn block_seeds(root: &Path) {
    let mut s = Seeds::new(root, "block_decode");
    // Every bench-corpus file, 64 KiB to 768 KiB, compressed by one of
    // lzkit and C at one of fast, default and HC (rotating).
    let combos = [
        (1, false),
        (9, true),
        (12, false),
        (-5, true),
        (1, true),
        (9, false),
        (12, true),
    ];
    for i in 0..corpus::len() {
        let len = (64 << 10) << (i % 4);
        let d = column(i, len);
        let (level, c) = combos[i % combos.len()];
        let b = compress_block(&d, level, c);
        let who = if c { "c" } else { "lzkit" };
        let name = corpus::name(i);
        s.put(
            &format!("{name}-{who}{level}-exact"),
            &plain_block(&b, CapMode::Field, d.len() as u32, s.group()),
        );
        // The same block with a capacity near its size (here exact: the
        // offset byte is 0).
        s.put(
            &format!("{name}-{who}{level}-near"),
            &plain_block(&b, CapMode::NearDecoded, 0, s.group()),
        );
    }
    // Text and mixed data at every level kind, both compressors.
    for (k, d) in [data::text(300_000, 1), data::mixed(200_000, 2)]
        .iter()
        .enumerate()
    {
        for (level, c) in combos {
            let b = compress_block(d, level, c);
            let who = if c { "c" } else { "lzkit" };
            s.put(
                &format!("gen{k}-{who}{level}"),
                &plain_block(&b, CapMode::Field, d.len() as u32, s.group()),
            );
        }
    }
    // The decoder shapes (every copy path), small to medium.
    for (k, d) in data::decoder_shapes().iter().enumerate().step_by(3) {
        let b = block::compress(d, if k % 2 == 0 { 1 } else { 9 });
        s.put(
            &format!("shape{k}"),
            &plain_block(&b, CapMode::NearDecoded, 0, s.group()),
        );
    }
    // Dictionaries: the fixed one (whole, and its window), data that
    // borrows from it, by lzkit (fast, HC) and C.
    let fixed = dictionary();
    let borrowing = [
        &fixed[fixed.len() - 60_000..fixed.len() - 20_000],
        &data::text(90_000, 9)[..],
        &fixed[fixed.len() - 5_000..],
    ]
    .concat();
    for (level, c) in [(1, false), (9, false), (12, false), (1, true)] {
        let b = if c {
            c_ref::compress_with_dict(&borrowing, fixed, 1).expect("C compresses")
        } else {
            block::compress_with_dict(&borrowing, fixed, level)
        };
        let who = if c { "c" } else { "lzkit" };
        s.put(
            &format!("dict-fixed-{who}{level}"),
            &BlockCase::encode(
                &b,
                DictMode::FixedWhole,
                fixed,
                CapMode::Field,
                borrowing.len() as u32,
                s.group(),
            ),
        );
        let window = &fixed[fixed.len() - (1 << 16)..];
        s.put(
            &format!("dict-window-{who}{level}"),
            &BlockCase::encode(
                &b,
                DictMode::FixedWindow,
                window,
                CapMode::NearDecoded,
                0,
                s.group(),
            ),
        );
    }
    // A dictionary in the input: a column file's first 64 KiB, and data
    // continuing it (matches reach back across the boundary).
    for (i, level) in [(3, 1), (8, 9), (14, 1), (15, 12)] {
        let whole = column(i, 320 << 10);
        let (dict, rest) = whole.split_at(64 << 10);
        let b = block::compress_with_dict(rest, dict, level);
        s.put(
            &format!("dict-input-{}-{level}", corpus::name(i)),
            &BlockCase::encode(
                &b,
                DictMode::InInput,
                dict,
                CapMode::Field,
                rest.len() as u32,
                s.group(),
            ),
        );
        let b = c_ref::compress_with_dict(rest, dict, 1).expect("C compresses");
        s.put(
            &format!("dict-input-{}-c", corpus::name(i)),
            &BlockCase::encode(
                &b,
                DictMode::InInput,
                dict,
                CapMode::NearDecoded,
                0,
                s.group(),
            ),
        );
    }
    s.report();
}

/// A frame of `d` compressed by lzkit with these options.
fn lzkit_frame(
    d: &[u8],
    level: i32,
    size: BlockSize,
    mode: BlockMode,
    checksums: bool,
    dict: Option<&[u8]>,
) -> Vec<u8> {
    let o = FrameOptions::new()
        .level(level)
        .block_size(size)
        .block_mode(mode)
        .block_checksum(checksums)
        .content_checksum(checksums)
        .content_size(checksums.then_some(d.len() as u64))
        .dict_id(dict.map(|_| 7))
        .dictionary_opt(dict.map(Arc::<[u8]>::from))
        .threads(1);
    frame::compress(d, &o)
}

/// A frame with 4 MiB blocks cut short by flushes every `piece` bytes:
/// several blocks whose decoding room passes the parallel decoders' batch
/// size with little data.
fn flushed_frame(d: &[u8], piece: usize, mode: BlockMode) -> Vec<u8> {
    let o = FrameOptions::new()
        .block_size(BlockSize::Max4MB)
        .block_mode(mode)
        .content_checksum(true);
    let mut e = FrameEncoder::new(Vec::new(), &o);
    for p in d.chunks(piece) {
        e.write_all(p).expect("writing to a vector");
        e.flush().expect("writing to a vector");
    }
    e.finish().expect("writing to a vector")
}

fn frame_seeds(root: &Path) {
    let mut s = Seeds::new(root, "frame_decode");
    let sizes = [
        BlockSize::Max64KB,
        BlockSize::Max256KB,
        BlockSize::Max1MB,
        BlockSize::Max4MB,
    ];
    // lzkit frames of column files, every block size and mode.
    for (k, &size) in sizes.iter().enumerate() {
        for (m, mode) in [BlockMode::Independent, BlockMode::Linked]
            .into_iter()
            .enumerate()
        {
            let i = (2 * k + m) * 2 % corpus::len();
            let d = column(i, 600 << 10);
            let level = [1, 9][m];
            let f = lzkit_frame(&d, level, size, mode, k % 2 == 0, None);
            s.put(&format!("lzkit-{}-{size:?}-{mode:?}", corpus::name(i)), &f);
        }
    }
    // C frames (linked and independent, checksums, content size).
    for (k, linked) in [false, true].into_iter().enumerate() {
        let d = data::mixed(700_000, 3 + k as u64);
        let settings = FrameSettings {
            level: [1, 9][k],
            block_size: BlockSize::Max64KB,
            linked,
            block_checksum: true,
            content_checksum: true,
            content_size: true,
            dict_id: 0,
        };
        let f = c_ref::compress_frame(&d, &settings, None).expect("C compresses");
        s.put(&format!("c-mixed-linked{linked}"), &f);
    }
    // The parallel decoders: many 64 KiB blocks of compressible data
    // (decoded room past the 4 MiB batch), and 4 MiB blocks cut short.
    let d = column(4, 6 << 20);
    let f = lzkit_frame(
        &d,
        1,
        BlockSize::Max64KB,
        BlockMode::Independent,
        false,
        None,
    );
    s.put("parallel-64k-blocks", &f);
    let d = data::mixed(160_000, 5);
    s.put(
        "parallel-flushed",
        &flushed_frame(&d, 40_000, BlockMode::Independent),
    );
    s.put(
        "linked-flushed",
        &flushed_frame(&d, 50_000, BlockMode::Linked),
    );
    // Dictionary frames (a leading 0xD1 means the fixed dictionary).
    let fixed = dictionary();
    let borrowing = [&fixed[fixed.len() - 30_000..], &data::text(200_000, 6)[..]].concat();
    for mode in [BlockMode::Independent, BlockMode::Linked] {
        let f = lzkit_frame(&borrowing, 1, BlockSize::Max64KB, mode, true, Some(fixed));
        s.put(&format!("dict-{mode:?}"), &[&[0xD1][..], &f].concat());
    }
    let f = flushed_frame(&borrowing, 70_000, BlockMode::Independent);
    s.put("flushed-no-dict-given-dict", &[&[0xD1][..], &f].concat());
    // Several frames in one stream: skippable, standard, legacy.
    let a = lzkit_frame(
        &data::text(100_000, 7),
        1,
        BlockSize::Max64KB,
        BlockMode::Linked,
        true,
        None,
    );
    let b = frame::compress(&data::text(50_000, 8), &FrameOptions::new().legacy(true));
    let stream = [&a[..], &skippable_frame(3, b"skip me"), &a, &b, &a].concat();
    s.put("stream-mixed-frames", &stream);
    s.report();
}

fn frame_mutate_seeds(root: &Path) {
    let mut s = Seeds::new(root, "frame_mutate");
    let level_bits = |level: i32| LEVELS.iter().position(|&l| l == level).unwrap_or(3) as u8;
    let body = data::text(2000, 11);
    // (level, block size bits, linked, checks, more, kind, len)
    let cases: [(i32, u8, bool, bool, u8, u8, u32); 14] = [
        (1, 0, false, false, 0x00, 2, 200_000),
        (1, 0, true, true, 0x01, 3, 300_000),
        (9, 1, true, false, 0x00, 5, 90_000),
        (12, 0, false, true, 0x00, 7, 60_000),
        (-5, 3, false, false, 0x40, 6, 100_000),
        (1, 3, false, true, 0x00, 3 | 4 << 3, 200_000),
        (1, 3, true, false, 0x01, 5 | 7 << 3, 250_000),
        (0, 3, false, true, 0x00, 6 | 3 << 3, 120_000),
        (1, 0, false, true, 0x02, 2, 150_000),
        (1, 0, true, false, 0x04, 2, 150_000),
        (9, 2, false, true, 0x08, 3, 90_000),
        (1, 0, true, true, 0x08 | 0x04, 2, 200_000),
        (1, 0, false, false, 0x80, 4, 100_000),
        (1, 0, false, false, 0x00, 1, 64_000),
    ];
    for (k, &(level, size, linked, checks, more, kind, len)) in cases.iter().enumerate() {
        let opts = level_bits(level)
            | size << 3
            | if linked { 0x20 } else { 0 }
            | if checks { 0xC0 } else { 0 };
        let o = CaseOptions {
            opts,
            more,
            kind,
            len,
            seed: 100 + k as u16,
        };
        s.put(&format!("case{k}"), &FrameCase::encode(o, &[], &body));
    }
    s.report();
}

fn roundtrip_seeds(root: &Path) {
    let mut s = Seeds::new(root, "roundtrip");
    let bodies = [
        data::text(3000, 12),
        data::mixed(20_000, 13),
        column(9, 8000),
    ];
    for (k, body) in bodies.iter().enumerate() {
        for ctl in [
            [0x03, 0x00, 0x00, 0x00],
            [0x65, 0x13, 0x8A, 0x01],
            [0xA6, 0x22, 0x05, 0x40],
        ] {
            s.put(
                &format!("body{k}-{:02x}{:02x}", ctl[0], ctl[2]),
                &[&ctl[..], body].concat(),
            );
        }
    }
    s.report();
}

/// Seekable files: raw cases holding valid files (lzkit's LZ4 writer,
/// plain frames with the table `build_table` makes, libzstd frames with a
/// zstd table, files without a table), and structured cases of each kind,
/// unedited and edited.
fn seekable_seeds(root: &Path) {
    use lzkit_fuzz::seekable::{SeekCase, build};
    let mut s = Seeds::new(root, "seekable_read");
    let bodies = [
        column(3, 200_000),
        data::text(60_000, 31),
        data::mixed(100_000, 32),
    ];
    let reads = [
        (0u32, 100u16),
        (65_530, 4000),
        (150_001, 65_535),
        (0x8000_0000, 10),
    ];
    // (flags, chunk - 1, level): LZ4 written with and without checksums,
    // linked blocks, 64 KiB blocks; plain LZ4 frames indexed; zstd frames
    // with skippable frames between them, without content sizes.
    let kinds: [(u8, u16, u8); 7] = [
        (0x02, 16_383, 2),
        (0x1C, 4095, 4),
        (0x12 | 0x08, 65_535, 1),
        (0x82, 65_535, 2),
        (0x86, 9999, 0),
        (0x03 | 0x10, 7999, 3),
        (0x01 | 0x08 | 0x04, 30_000, 1),
    ];
    for (b, body) in bodies.iter().enumerate() {
        for (k, &(flags, chunk, level)) in kinds.iter().enumerate() {
            let (file, _) = build(flags, chunk, level, body);
            s.put(
                &format!("raw-body{b}-kind{k}"),
                &SeekCase::encode_raw(&reads, 1, &file),
            );
            s.put(
                &format!("structured-body{b}-kind{k}"),
                &SeekCase::encode_structured(&reads, 2, flags, chunk, level, &[], body),
            );
            let edits = [(file.len() as u32 - 3, 0x01), (file.len() as u32 / 2, 0x40)];
            s.put(
                &format!("edited-body{b}-kind{k}"),
                &SeekCase::encode_structured(&reads, 0, flags, chunk, level, &edits, body),
            );
        }
        // Files without a table, to be scanned.
        let lz4 = frame::compress(body, &FrameOptions::new().block_size(BlockSize::Max64KB));
        s.put(
            &format!("plain-lz4-body{b}"),
            &SeekCase::encode_raw(&reads, 3, &lz4),
        );
        let zstd = lzkit_testkit::zstd_ref::compress(
            body,
            &lzkit_testkit::zstd_ref::Settings::new(3),
            None,
        );
        s.put(
            &format!("plain-zstd-body{b}"),
            &SeekCase::encode_raw(&reads, 3, &zstd),
        );
    }
    s.report();
}

/// Crafted seek tables over each kind of seekable file: the true table
/// rewritten, and the attacks of issue 31 (an empty table, only the last
/// entry, an entry decoding to nothing, a misstated size).
fn seek_table_seeds(root: &Path) {
    use lzkit_fuzz::seek_table::TableCase;
    let mut s = Seeds::new(root, "seek_table");
    let bodies = [column(3, 120_000), data::text(100_000, 31)];
    let reads = [(0u32, 100u16), (65_530, 4000), (90_001, 65_535), (7, 1)];
    let kinds: [(u8, u16, u8); 5] = [
        (0x02, 16_383, 2),
        (0x00, 4095, 4),
        (0x82, 65_535, 2),
        (0x03 | 0x10, 7999, 3),
        (0x01 | 0x08, 30_000, 1),
    ];
    // (operation, entry, value) lists.
    let attacks: [&[(u8, u16, u32)]; 6] = [
        &[],
        &[(0, 0, 0); 7],
        &[(0, 0, 0), (0, 0, 0)],
        &[(1, 1, 0)],
        &[(2, 0, 0xFF)],
        &[(8, 1, 0), (5, 2, 12_345)],
    ];
    for (b, body) in bodies.iter().enumerate() {
        for (k, &(flags, chunk, level)) in kinds.iter().enumerate() {
            for (a, edits) in attacks.iter().enumerate() {
                s.put(
                    &format!("body{b}-kind{k}-attack{a}"),
                    &TableCase::encode(flags, chunk, level, (a % 3) as u8, edits, &reads, body),
                );
            }
        }
    }
    s.report();
}

/// zstd frames made by libzstd (levels, flags, a dictionary, several
/// frames with skippable ones between) and hand-built ones (the golden
/// edge cases), each behind `zstd_decode`'s control byte.
fn zstd_decode_seeds(root: &Path) {
    use lzkit_fuzz::zstd::{DecodeCase, trained_dictionary};
    use lzkit_testkit::zstd_frames::{self as zf, FrameHeader};
    use lzkit_testkit::zstd_ref::{self, Settings};
    let mut s = Seeds::new(root, "zstd_decode");
    let text = data::text(100_000, 21);
    let col = column(3, 200_000);
    let mixed = data::mixed(30_000, 22);
    let frames = [
        (
            "text-3",
            zstd_ref::compress(&text, &Settings::new(3), None),
            0u8,
        ),
        (
            "column-1",
            zstd_ref::compress(&col, &Settings::new(1).content_size(true), None),
            0x10,
        ),
        (
            "column-fast",
            zstd_ref::compress(&col, &Settings::new(-5).checksum(false), None),
            0x24,
        ),
        (
            "mixed-19",
            zstd_ref::compress(&mixed, &Settings::new(19), None),
            0x30,
        ),
        (
            "mixed-flushed",
            zstd_ref::compress(&mixed, &Settings::new(6).flush_every(Some(1000)), None),
            0x08,
        ),
        (
            "text-dict",
            zstd_ref::compress(&text[..5000], &Settings::new(3), Some(trained_dictionary())),
            0x02,
        ),
        (
            "col-dict",
            zstd_ref::compress(&col[..3000], &Settings::new(12), Some(trained_dictionary())),
            0x33,
        ),
    ];
    let mut all = Vec::new();
    for (name, f, flags) in &frames {
        s.put(name, &DecodeCase::encode(*flags, f));
        if *flags & 3 == 0 {
            all.extend(zf::skippable_frame(name.len() as u8 % 16, name.as_bytes()));
            all.extend_from_slice(f);
        }
    }
    s.put("concatenated", &DecodeCase::encode(0x20, &all));
    // Hand-built: an RLE first block of 128 KiB, 0 sequences in 2 bytes, a
    // compressed block of RLE literals and RLE-mode sequences.
    let header = FrameHeader::single_segment(131_079).checksum(true);
    let mut rle = vec![0x5A; 131_072];
    rle.extend([0xA5; 7]);
    let f = zf::frame(
        &header,
        &[
            zf::rle_block(false, 0x5A, 131_072),
            zf::rle_block(true, 0xA5, 7),
        ],
        &rle,
    );
    s.put("rle-first-block", &DecodeCase::encode(0x00, &f));
    let mut content = zf::raw_literals(b"zero sequences");
    content.extend([0x80, 0x00]);
    let f = zf::frame(
        &FrameHeader::with_window_log(10),
        &[zf::compressed_block(true, &content)],
        &[],
    );
    s.put("zero-seq-2b", &DecodeCase::encode(0x10, &f));
    let mut content = zf::rle_literals(b'z', 1);
    content.extend(zf::rle_sequences(
        1,
        2,
        52,
        &[zf::SeqExtra {
            match_length: 65_532,
            ..Default::default()
        }],
    ));
    let f = zf::frame(
        &FrameHeader::single_segment(131_072),
        &[zf::compressed_block(true, &content)],
        &[],
    );
    s.put("block-128k", &DecodeCase::encode(0x00, &f));
    s.report();
}

/// `zstd_roundtrip` and `zstd_mutate` cases: bodies of text, columns and
/// mixed data at several levels and flags (see `lzkit_fuzz::zstd::LibCase`).
fn zstd_lib_seeds(root: &Path, target: &str) {
    use lzkit_fuzz::zstd::{LibCase, Mutation};
    let mutate = target == "zstd_mutate";
    let mut s = Seeds::new(root, target);
    let n = if mutate { 20_000 } else { 200_000 };
    let bodies = [data::text(n, 31), column(5, n), data::mixed(n / 2, 32)];
    // (level, flags, dictionary length, flush interval)
    let cases = [
        (3, 0x01, 0, 0),
        (1, 0x03, 0, 0),
        (-5, 0x00, 0, 0),
        (19, 0x05 | 0x10, 0, 0),
        (6, 0x07 | 0x08, 4000, 0),
        (9, 0x21, 0, 999),
        (2, 0x41, 0, 0),
        (4, 0x80, 0, 0),
    ];
    let mutations = [
        Mutation {
            at: 40,
            op: 0,
            value: 0x10,
        },
        Mutation {
            at: 7,
            op: 5,
            value: 3,
        },
    ];
    for (k, body) in bodies.iter().enumerate() {
        for (j, &(level, flags, dict_len, flush)) in cases.iter().enumerate() {
            let m = mutate.then_some(&mutations[..j % 3]);
            s.put(
                &format!("body{k}-case{j}"),
                &LibCase::encode(level, flags, dict_len, flush, m, body),
            );
        }
    }
    s.report();
}

/// Streams of frames (text, a column, with a checksum, with the trained
/// dictionary, a skippable frame between two) cut into pieces of 1, 2,
/// 10, 257 and 4097 bytes and more.
fn zstd_push_seeds(root: &Path) {
    use lzkit_fuzz::zstd::{PushCase, trained_dictionary};
    use lzkit_testkit::zstd_frames as zf;
    use lzkit_testkit::zstd_ref::{self, Settings};
    let mut s = Seeds::new(root, "zstd_push");
    let text = data::text(60_000, 31);
    let col = column(3, 150_000);
    let a = zstd_ref::compress(&text, &Settings::new(3).checksum(true), None);
    let b = zstd_ref::compress(&col, &Settings::new(1).content_size(false), None);
    let mut two = a.clone();
    two.extend(zf::skippable_frame(3, b"between"));
    two.extend_from_slice(&b);
    let d = zstd_ref::compress(&text[..4000], &Settings::new(5), Some(trained_dictionary()));
    s.put("text-1byte", &PushCase::encode(0, [0, 0, 0, 0], &a));
    s.put("column-mixed", &PushCase::encode(0, [1, 3, 16, 64], &b));
    s.put("two-frames", &PushCase::encode(0, [255, 2, 200, 0], &two));
    s.put("dict", &PushCase::encode(2, [3, 9, 0, 1], &d));
}

fn main() {
    let root = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus".into()),
    );
    let only: Vec<String> = std::env::args().skip(2).collect();
    let wanted = |t: &str| only.is_empty() || only.iter().any(|o| o == t);
    if wanted("block_decode") {
        block_seeds(&root);
    }
    if wanted("frame_decode") {
        frame_seeds(&root);
    }
    if wanted("frame_mutate") {
        frame_mutate_seeds(&root);
    }
    if wanted("roundtrip") {
        roundtrip_seeds(&root);
    }
    if wanted("zstd_decode") {
        zstd_decode_seeds(&root);
    }
    if wanted("zstd_push") {
        zstd_push_seeds(&root);
    }
    for t in ["zstd_roundtrip", "zstd_mutate"] {
        if wanted(t) {
            zstd_lib_seeds(&root, t);
        }
    }
    if wanted("seekable_read") {
        seekable_seeds(&root);
    }
    if wanted("seek_table") {
        seek_table_seeds(&root);
    }
}
