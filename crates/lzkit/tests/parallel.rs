//! Multithreaded compression and parallel decompression.
//!
//! * The encoder's output is byte-identical for 1, 2, 3 and 8 threads, in
//!   every block mode, with and without checksums and dictionary, at and
//!   around job boundaries, in the legacy format, and when streamed in odd
//!   pieces with flushes; it decodes with the serial decoder and with the
//!   reference `lz4` (skipped with a note when `lz4` is not on PATH, except
//!   in CI, where that fails).
//! * Parallel decoding (one-shot and streaming) gives the same bytes as
//!   serial decoding, and on corrupt input the same error, after the same
//!   bytes (streaming).
//!
//! The CLI's `-T#` checks are in the `lzkit-cli` crate's `threads` test.

use lzkit::Error;
use lzkit::lz4::frame::{
    self, BlockMode, BlockSize, DecodeOptions, FrameDecoder, FrameEncoder, FrameOptions,
    MIN_JOB_SIZE,
};
use lzkit_testkit::*;
use std::io::{Read, Write};
use std::sync::{Arc, OnceLock};

/// Thread counts every encoder check compares.
const THREADS: [usize; 4] = [1, 2, 3, 8];
/// Thread counts the decoder checks compare with serial decoding: a few
/// batches in flight, and more batches in flight than the frames have.
const DECODE_THREADS: [usize; 2] = [2, 8];
/// The encoder's job size for block sizes up to 4 MiB.
const JOB: usize = MIN_JOB_SIZE;

/// Test input, generated once: mixed shapes with copies from up to 64 KiB
/// back, so matches cross block and job boundaries.
fn data() -> &'static [u8] {
    static DATA: OnceLock<Vec<u8>> = OnceLock::new();
    DATA.get_or_init(|| mixed(2 * JOB + 70_000, 0x7EAD))
}

fn dictionary() -> &'static [u8] {
    static DICT: OnceLock<Vec<u8>> = OnceLock::new();
    // Ends with a copy of the start of the data, so the dictionary is used.
    DICT.get_or_init(|| [text(80_000, 3), data()[..20_000].to_vec()].concat())
}

fn with_threads(o: &FrameOptions, threads: usize) -> FrameOptions {
    o.clone().threads(threads)
}

fn dict_opts(o: &FrameOptions) -> DecodeOptions {
    DecodeOptions::new()
        .threads(1)
        .dictionary_opt(o.dictionary.clone())
}

/// Compress with every thread count, check the outputs are identical and
/// decode with the serial decoder; returns the frame.
fn same_for_every_thread_count(src: &[u8], o: &FrameOptions, what: &str) -> Vec<u8> {
    let serial = frame::compress(src, &with_threads(o, 1));
    for &t in &THREADS[1..] {
        let f = frame::compress(src, &with_threads(o, t));
        assert_same(&f, &serial, &format!("{what}: {t} threads vs 1"));
    }
    let back = frame::decompress_with(&serial, &dict_opts(o))
        .unwrap_or_else(|e| panic!("{what}: serial decode: {e}"));
    assert_same(&back, src, &format!("{what}: round trip"));
    serial
}

fn options(
    level: i32,
    bs: BlockSize,
    mode: BlockMode,
    block_checksum: bool,
    content_checksum: bool,
    dict: Option<u32>,
) -> FrameOptions {
    opts(
        level,
        bs,
        mode,
        block_checksum,
        content_checksum,
        None,
        dict.map(|id| (dictionary(), Some(id).filter(|&i| i != 0))),
    )
}

// ------------------------------------------------------------- compression

#[test]
fn identical_output_for_every_thread_count_around_job_boundaries() {
    let all_sizes = [
        0,
        1,
        JOB - 1,
        JOB,
        JOB + 1,
        2 * JOB - 1,
        2 * JOB,
        2 * JOB + 1,
    ];
    let some_sizes = [0, JOB - 1, JOB + 1, 2 * JOB + 1];
    let linked = BlockMode::Linked;
    let indep = BlockMode::Independent;
    let configs: Vec<(&str, FrameOptions, &[usize])> = vec![
        ("default", FrameOptions::default(), &all_sizes),
        (
            "linked 64K, both checksums",
            options(1, BlockSize::Max64KB, linked, true, true, None),
            &all_sizes,
        ),
        (
            "linked 256K, no checksums, dictionary",
            options(1, BlockSize::Max256KB, linked, false, false, Some(7)),
            &some_sizes,
        ),
        (
            "linked 4M, content checksum, dictionary without ID",
            options(1, BlockSize::Max4MB, linked, false, true, Some(0)),
            &some_sizes,
        ),
        (
            "independent 64K, block checksum, dictionary",
            options(1, BlockSize::Max64KB, indep, true, false, Some(9)),
            &some_sizes,
        ),
        (
            "independent 1M, fast level, content size",
            options(-3, BlockSize::Max1MB, indep, false, true, None).content_size(Some(0)),
            &some_sizes,
        ),
        ("legacy", legacy_opts(1), &some_sizes),
    ];
    for (name, o, sizes) in &configs {
        for &n in *sizes {
            let src = &data()[..n];
            let what = format!("{name}, {n} bytes");
            let f = same_for_every_thread_count(src, o, &what);
            if n == 2 * JOB + 1 {
                let dict = o.dictionary.as_deref();
                check_with_lz4(&f, dict, src, &what);
            }
        }
    }
}

#[test]
fn hc_and_linked_jobs_are_identical() {
    // An HC level, linked blocks: every job after the first starts from the
    // 64 KiB of input before it.
    let src = &data()[..JOB + 300_000];
    let o = options(9, BlockSize::Max64KB, BlockMode::Linked, false, true, None);
    let f = same_for_every_thread_count(src, &o, "level 9 linked");
    check_with_lz4(&f, None, src, "level 9 linked");
}

#[test]
fn linked_jobs_start_from_the_input_before_them() {
    // A 40 KB random unit repeated over two jobs: with its 64 KiB history
    // prefix, the second job finds the unit at once and stores it no
    // second time. The frame is then the unit once plus the long matches'
    // length bytes (one per 255 bytes); storing it again would add 40 KB.
    let unit_len = 40_000;
    let unit = random(unit_len, 5);
    let src: Vec<u8> = unit.iter().copied().cycle().take(2 * JOB).collect();
    let o = options(1, BlockSize::Max64KB, BlockMode::Linked, false, false, None);
    let f = same_for_every_thread_count(&src, &o, "repeated unit");
    let match_bytes = src.len() / 255;
    assert!(
        f.len() < unit_len + match_bytes + unit_len / 2,
        "{} bytes: the unit was stored more than once",
        f.len()
    );
}

/// Stream `src` through an encoder: writes of varying sizes, with a flush
/// after the writes listed in `flush_after`.
fn stream(src: &[u8], o: &FrameOptions, flush_after: &[usize]) -> Vec<u8> {
    let pieces = [1usize, 7, 65_535, 100_000, 1 << 20, 3, 2 * JOB];
    let mut e = FrameEncoder::new(Vec::new(), o);
    let mut p = 0;
    let mut i = 0;
    while p < src.len() {
        let n = pieces[i % pieces.len()].min(src.len() - p);
        e.write_all(&src[p..p + n]).unwrap();
        p += n;
        if flush_after.contains(&i) {
            e.flush().unwrap();
        }
        i += 1;
    }
    e.finish().unwrap()
}

#[test]
fn streamed_writes_and_flushes_are_identical_across_threads() {
    let src = &data()[..2 * JOB + 12_345];
    for o in [
        options(
            1,
            BlockSize::Max64KB,
            BlockMode::Linked,
            true,
            true,
            Some(1),
        ),
        options(
            1,
            BlockSize::Max256KB,
            BlockMode::Independent,
            false,
            true,
            None,
        ),
    ] {
        // Without flushes, write sizes do not matter: same as one-shot.
        let one_shot = frame::compress(src, &o);
        for &t in &THREADS {
            let f = stream(src, &with_threads(&o, t), &[]);
            assert_same(&f, &one_shot, &format!("{t} threads, streamed"));
        }
        // Flushes end jobs early, at the same places for every thread count.
        let flushes = [0, 2, 3, 6, 9];
        let serial = stream(src, &with_threads(&o, 1), &flushes);
        for &t in &THREADS[1..] {
            let f = stream(src, &with_threads(&o, t), &flushes);
            assert_same(&f, &serial, &format!("{t} threads, with flushes"));
        }
        let back = frame::decompress_with(&serial, &dict_opts(&o)).unwrap();
        assert_same(&back, src, "with flushes, round trip");
        check_with_lz4(&serial, o.dictionary.as_deref(), src, "with flushes");
    }
}

#[test]
fn encoder_and_decoder_stay_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<FrameEncoder<Vec<u8>>>();
    send_sync::<FrameDecoder<&'static [u8]>>();
}

#[test]
fn zero_threads_means_all_cores_and_changes_nothing() {
    let src = &data()[..JOB + 5];
    let o = FrameOptions::default();
    assert_same(
        &frame::compress(src, &with_threads(&o, 0)),
        &frame::compress(src, &o),
        "threads 0",
    );
    assert!(frame::effective_threads(0) >= 1);
}

// ----------------------------------------------------------- decompression

/// Read everything `r` gives, in `chunk`-byte reads, until the end or the
/// first error: the bytes, and the error as text.
fn read_prefix(mut r: impl Read, chunk: usize) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(Error::from_io(e).to_string())),
        }
    }
}

fn decode_opts(threads: usize, dict: Option<&[u8]>) -> DecodeOptions {
    DecodeOptions::new()
        .threads(threads)
        .dictionary_opt(dict.map(Arc::from))
}

/// Parallel decoding of `f` (one-shot and streaming) against serial
/// decoding: same bytes, or the same error after the same bytes. Returns
/// the serial one-shot result.
fn check_decoders_agree(f: &[u8], dict: Option<&[u8]>, what: &str) -> Result<Vec<u8>, String> {
    let serial = frame::decompress_with(f, &decode_opts(1, dict)).map_err(|e| e.to_string());
    let serial_stream = read_prefix(
        FrameDecoder::with_options(f, &decode_opts(1, dict)),
        1 << 16,
    );
    for (i, &t) in DECODE_THREADS.iter().enumerate() {
        let par = frame::decompress_with(f, &decode_opts(t, dict)).map_err(|e| e.to_string());
        match (&par, &serial) {
            (Ok(a), Ok(b)) => assert_same(a, b, &format!("{what}: {t} threads, one-shot")),
            _ => assert_eq!(par, serial, "{what}: {t} threads, one-shot"),
        }
        // Streaming, with odd read sizes and a reader that trickles.
        let chunk = [4093, 1 << 20][i % 2];
        let src = Trickle {
            data: f,
            chunk: [100_003, usize::MAX][i % 2],
        };
        let par_stream = read_prefix(
            FrameDecoder::with_options(src, &decode_opts(t, dict)),
            chunk,
        );
        assert_eq!(
            par_stream.1, serial_stream.1,
            "{what}: {t} threads, streaming error"
        );
        assert_same(
            &par_stream.0,
            &serial_stream.0,
            &format!("{what}: {t} threads, streaming bytes"),
        );
    }
    serial
}

/// A frame to decode, its name, and its dictionary.
type Named = (String, Vec<u8>, Option<&'static [u8]>);

#[test]
fn parallel_decoding_gives_the_same_bytes() {
    let src = &data()[..2 * JOB + 1];
    let dict = dictionary();
    let indep = BlockMode::Independent;
    let mut frames: Vec<Named> = Vec::new();
    for (bs, bc) in [
        (BlockSize::Max64KB, true),
        (BlockSize::Max256KB, false),
        (BlockSize::Max4MB, true),
    ] {
        let o = options(1, bs, indep, bc, true, None);
        frames.push((format!("{bs:?} bc={bc}"), frame::compress(src, &o), None));
    }
    let with_dict = options(1, BlockSize::Max64KB, indep, false, true, Some(3));
    frames.push((
        "independent with dictionary".into(),
        frame::compress(src, &with_dict),
        Some(dict),
    ));
    let linked = options(1, BlockSize::Max64KB, BlockMode::Linked, false, true, None);
    frames.push((
        "linked (serial)".into(),
        frame::compress(src, &linked),
        None,
    ));
    // Short blocks in the middle (flushes), content size, and several frames
    // of every kind one after the other.
    let flushed = stream(
        src,
        &options(1, BlockSize::Max256KB, indep, false, true, None),
        &[0, 2, 3, 5],
    );
    frames.push(("with flushes".into(), flushed.clone(), None));
    let mixed_stream = [
        skippable_frame(2, b"skip me"),
        frame::compress(&src[..1000], &FrameOptions::default()),
        flushed,
        frame::compress(&[], &FrameOptions::default()),
        frame::compress(&src[..JOB + 3], &legacy_opts(1)),
        frame::compress(
            &src[..JOB + 7],
            &options(1, BlockSize::Max64KB, indep, true, false, None).content_size(Some(0)),
        ),
        frame::compress(&src[..300_000], &linked),
    ]
    .concat();
    frames.push(("concatenated".into(), mixed_stream, None));
    for (what, f, d) in &frames {
        let out = check_decoders_agree(f, *d, what).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(!out.is_empty(), "{what}");
    }
}

/// Flip one bit.
fn flip(f: &[u8], at: usize, bit: u32) -> Vec<u8> {
    let mut g = f.to_vec();
    g[at] ^= 1 << bit;
    g
}

/// Replace the little-endian u32 at `at`.
fn set_u32(f: &[u8], at: usize, v: u32) -> Vec<u8> {
    let mut g = f.to_vec();
    g[at..at + 4].copy_from_slice(&v.to_le_bytes());
    g
}

#[test]
fn corrupt_frames_fail_the_same_way_in_parallel() {
    // Blocks in more than one batch (a batch is about 4 MiB of output), so
    // the failing block may be in any batch while others are decoded.
    let src = &data()[..JOB + 600_000];
    let indep = BlockMode::Independent;
    let cases = [
        options(1, BlockSize::Max64KB, indep, true, true, None),
        options(1, BlockSize::Max1MB, indep, false, false, None),
    ];
    for o in &cases {
        let f = frame::compress(src, o);
        let l = frame_layout(&f);
        let nb = l.blocks.len();
        // First, middle, last of the first batch (64 blocks of 64 KiB, or
        // 4 of 1 MiB), first of the second, and the last block.
        let per_batch = JOB / o.block_size.bytes();
        let picks = [0, nb / 3, per_batch - 1, per_batch, nb - 1];
        let mut corrupt: Vec<(String, Vec<u8>)> = Vec::new();
        for &k in &picks {
            let (at, size, _) = l.blocks[k];
            corrupt.push((format!("data of block {k}"), flip(&f, at + 4 + size / 2, 3)));
            corrupt.push((format!("start of block {k}"), flip(&f, at + 4, 7)));
            corrupt.push((format!("end of block {k}"), flip(&f, at + 3 + size, 0)));
            if l.block_checksum {
                corrupt.push((format!("checksum of block {k}"), flip(&f, at + 4 + size, 5)));
            }
            corrupt.push((
                format!("size word of block {k} too large"),
                flip(&f, at + 2, 6),
            ));
            corrupt.push((
                format!("size word of block {k} shorter"),
                set_u32(&f, at, (size as u32 / 2).max(1)),
            ));
            corrupt.push((format!("size word of block {k} zero"), set_u32(&f, at, 0)));
            corrupt.push((
                format!("truncated in block {k}"),
                f[..at + 4 + size / 3].to_vec(),
            ));
            // A well-formed block that decodes past the block maximum.
            let mut long = Vec::new();
            push_seq(&mut long, b"abcd", 4, o.block_size.bytes() + 100);
            push_last(&mut long, b"tail1");
            let sum = xxhash_rust::xxh32::xxh32(&long, 0).to_le_bytes();
            let (sum, skip) = if l.block_checksum {
                (&sum[..], 4)
            } else {
                (&[][..], 0)
            };
            let replaced = [
                &f[..at],
                &(long.len() as u32).to_le_bytes()[..],
                &long,
                sum,
                &f[at + 4 + size + skip..],
            ]
            .concat();
            corrupt.push((format!("block {k} decodes too much"), replaced));
            corrupt.push((
                format!("truncated in size word of block {k}"),
                f[..at + 2].to_vec(),
            ));
        }
        corrupt.push((
            "truncated before end mark".into(),
            f[..l.end_mark_at].to_vec(),
        ));
        if let Some(c) = l.content_checksum_at {
            corrupt.push(("content checksum flipped".into(), flip(&f, c + 1, 2)));
            corrupt.push(("truncated in content checksum".into(), f[..c + 2].to_vec()));
        }
        corrupt.push(("garbage after the frame".into(), [&f[..], b"xyz1"].concat()));
        let mut failures = 0;
        for (what, g) in &corrupt {
            let what = format!("{:?} {:?}: {what}", o.block_size, o.block_checksum);
            if check_decoders_agree(g, None, &what).is_err() {
                failures += 1;
            }
        }
        // Nearly every case is an error (a flip in a stored or literal
        // byte without checksums may decode): the check above compared
        // errors, not just successes.
        assert!(
            failures * 10 >= corrupt.len() * 7,
            "{failures} of {}",
            corrupt.len()
        );
    }
}

#[test]
fn corrupt_frames_of_small_blocks_fail_the_same_way_in_waves() {
    // Small blocks in a frame of 4 MiB blocks each claim up to 4 MiB of
    // room, so the one-shot parallel decoder takes a few at a time (waves
    // of about a batch per thread, growing with the output): the failing
    // block, a framing error or a checksum may come in any wave.
    let pieces: Vec<Vec<u8>> = (0..40u64)
        .map(|i| mixed(20_000 + i as usize * 97, i))
        .collect();
    for (bc, cc) in [(true, true), (false, false)] {
        let f = frame_of_pieces(&pieces, BlockSize::Max4MB, bc, cc);
        let what = format!("small blocks bc={bc} cc={cc}");
        let out = check_decoders_agree(&f, None, &what).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_same(&out, &pieces.concat(), &what);
        let l = frame_layout(&f);
        let mut corrupt: Vec<(String, Vec<u8>)> = Vec::new();
        for k in [0, 1, 7, 20, 38, 39] {
            let (at, size, _) = l.blocks[k];
            corrupt.push((format!("data of block {k}"), flip(&f, at + 4 + size / 2, 3)));
            corrupt.push((format!("start of block {k}"), flip(&f, at + 4, 7)));
            if bc {
                corrupt.push((format!("checksum of block {k}"), flip(&f, at + 4 + size, 5)));
            }
            corrupt.push((format!("size word of block {k} zero"), set_u32(&f, at, 0)));
            corrupt.push((
                format!("size word of block {k} too large"),
                set_u32(&f, at, (5 << 20) as u32),
            ));
            corrupt.push((
                format!("truncated in block {k}"),
                f[..at + 4 + size / 3].to_vec(),
            ));
        }
        corrupt.push((
            "truncated before end mark".into(),
            f[..l.end_mark_at].to_vec(),
        ));
        if let Some(c) = l.content_checksum_at {
            corrupt.push(("content checksum flipped".into(), flip(&f, c + 1, 2)));
        }
        let mut failures = 0;
        for (case, g) in &corrupt {
            if check_decoders_agree(g, None, &format!("{what}: {case}")).is_err() {
                failures += 1;
            }
        }
        assert!(
            failures * 10 >= corrupt.len() * 7,
            "{failures} of {}",
            corrupt.len()
        );
    }
}

#[test]
fn streaming_stops_right_before_the_failing_block() {
    let src = &data()[..2 * JOB];
    let o = options(
        1,
        BlockSize::Max64KB,
        BlockMode::Independent,
        true,
        true,
        None,
    );
    let f = frame::compress(src, &o);
    let l = frame_layout(&f);
    let k = l.blocks.len() * 3 / 4;
    let (at, size, _) = l.blocks[k];
    let g = flip(&f, at + 4 + size / 2, 1);
    let (bytes, err) = read_prefix(FrameDecoder::with_threads(&g[..], 4), 1 << 16);
    assert_same(&bytes, &src[..k * (64 << 10)], "bytes before block {k}");
    let err = err.expect("an error");
    assert!(
        err.starts_with(&format!("block {k} at byte {at}: block checksum mismatch")),
        "{err}"
    );
}

#[test]
fn random_corruption_agrees() {
    let src = &data()[..JOB + 600_000];
    let frames = [
        frame::compress(
            src,
            &options(
                1,
                BlockSize::Max64KB,
                BlockMode::Independent,
                true,
                true,
                None,
            ),
        ),
        frame::compress(
            src,
            &options(
                1,
                BlockSize::Max256KB,
                BlockMode::Independent,
                false,
                true,
                Some(5),
            ),
        ),
    ];
    let mut rng = Rng::for_data(0x5EED);
    for (fi, f) in frames.iter().enumerate() {
        let dict = (fi == 1).then_some(dictionary());
        for i in 0..15 {
            let mut g = f.clone();
            match rng.index(3) {
                0 => {
                    for _ in 0..rng.range(1, 3) {
                        let p = rng.index(g.len());
                        g[p] ^= 1 << rng.index(8);
                    }
                }
                1 => g.truncate(rng.index(g.len())),
                _ => {
                    let p = rng.index(g.len());
                    g.insert(p, rng.byte());
                }
            }
            let _ = check_decoders_agree(&g, dict, &format!("frame {fi}, mutation {i}"));
        }
    }
}
