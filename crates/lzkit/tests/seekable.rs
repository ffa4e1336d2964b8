//! `lzkit::seekable`: seekable LZ4 and zstd files.
//!
//! * Random access: property tests over random data (column-like data
//!   among it), chunk sizes from 1 byte to hundreds of KiB, LZ4 frame
//!   options (levels, block and content checksums, linked blocks, blocks
//!   smaller than a chunk) and zstd levels, with and without table
//!   checksums: `read_at` at random and at every edge (entry boundaries,
//!   first and last byte, empty reads, reads from or across the end) and
//!   `copy_range` give the original bytes, and `Read + Seek` behaves as a
//!   `Cursor` over them.
//! * Compatibility: the files decode with lzkit's ordinary decoders, with
//!   liblz4 (`LZ4F_decompress`) and libzstd, and with the `lz4` and `zstd`
//!   commands (skipped with a note when a command is missing, except in
//!   CI, where that fails); libzstd's seekable library
//!   (`contrib/seekable_format`, through `zstd-safe`) reads lzkit's zstd
//!   files, and lzkit reads the files of libzstd's seekable compressor.
//! * The output is the same for any number of threads.
//! * `build_table`: entries per block of independent-block LZ4 frames, per
//!   frame otherwise; several frames with skippable frames between them;
//!   files of the `lz4` and `zstd` commands; refusals (legacy frames,
//!   dictionaries) and corrupt data.
//! * Hostile tables: counts of 2^32 - 1, sizes that do not add up, offsets
//!   past the end, impossible decoded sizes, wrong checksums, and random
//!   edits anywhere in a file: a typed error or the right bytes, never a
//!   panic, never wrong bytes from a table with checksums.
//! * Many threads reading one reader (over a file, and over a locked
//!   `Cursor`); `decode_all` on 1, 2 and 4 threads, and the entry its
//!   error names; files without a table (scanned, or refused).
//!
//! The zstd-writing tests need the `zstd-compress` feature (on in the
//! workspace's `cargo test`, through lzkit-cli).

use lzkit::Error;
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameKind, FrameOptions};
use lzkit::seekable::{
    self, Entry, EntryKind, FOOTER_LEN, LZ4_FOOTER_MAGIC, LZ4_TABLE_MAGIC, Locked, MAX_ENTRY_SIZE,
    ReadAt, ReaderOptions, SeekTable, SeekableReader, SeekableWriter, TableFormat, WriteOptions,
    ZSTD_FOOTER_MAGIC, ZSTD_TABLE_MAGIC,
};
use lzkit_testkit::zstd_ref::{self, Settings};
use lzkit_testkit::{
    BLOCK_SIZES, Kind, LEVELS, Rng, assert_same, c_ref, check_with_lz4, generate_kind,
    lz4_available, mixed, random, skippable_frame, text,
};
use proptest::prelude::*;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Data and expectations.
// ---------------------------------------------------------------------------

/// `len` bytes of test data of kind `kind % 6`: an integer column, mixed
/// shapes, text, random bytes, runs, or periodic data.
fn data_of(kind: u8, len: usize, seed: u64) -> Vec<u8> {
    let mut d = match kind % 6 {
        0 => generate_kind(Kind::Column, len, seed),
        1 => mixed(len, seed),
        2 => text(len, seed),
        3 => random(len, seed),
        4 => generate_kind(Kind::Runs, len, seed),
        _ => generate_kind(Kind::Periodic, len, seed),
    };
    d.truncate(len);
    assert_eq!(d.len(), len, "generator {kind} gave too few bytes");
    d
}

/// A column of integers, as a database stores it.
fn column(len: usize, seed: u64) -> Vec<u8> {
    data_of(0, len, seed)
}

/// What `read_at(offset, ..len)` must give: the content from `offset`, cut
/// at its end (nothing from or past it).
fn want(orig: &[u8], offset: u64, len: usize) -> &[u8] {
    let start = offset.min(orig.len() as u64) as usize;
    let end = start.saturating_add(len).min(orig.len());
    &orig[start..end]
}

/// Errors a corrupt or hostile file may give: typed format errors, never
/// I/O errors (everything read lies inside the file) nor allocation
/// failures (nothing is allocated for what a small file claims).
fn typed(e: &Error) -> bool {
    !matches!(
        e,
        Error::Io(_)
            | Error::OutOfMemory { .. }
            | Error::InvalidOptions(_)
            | Error::OutputTooSmall { .. }
            | Error::InputTooLarge { .. }
            | Error::VariantUnavailable { .. }
    )
}

/// Whether `e` names table entry `k` (a decoding error of that entry, or
/// its disagreement with the table).
fn names_entry(e: &Error, k: usize) -> bool {
    match e {
        Error::Frame { index, .. } => *index == k as u64,
        Error::SeekTable { reason } => reason.starts_with(&format!("entry {k} ")),
        _ => false,
    }
}

fn is_seek_table(e: &Error) -> bool {
    matches!(e, Error::SeekTable { .. })
}

fn is_not_seekable(e: &Error) -> bool {
    matches!(e, Error::NotSeekable { .. })
}

// ---------------------------------------------------------------------------
// Reading checks.
// ---------------------------------------------------------------------------

/// `read_at(offset, len)` must give exactly [`want`].
fn check_read<S: ReadAt>(r: &SeekableReader<S>, orig: &[u8], offset: u64, len: usize, what: &str) {
    let mut buf = vec![0xA5u8; len];
    let n = r
        .read_at(offset, &mut buf)
        .unwrap_or_else(|e| panic!("{what}: read_at({offset}, {len}): {e}"));
    let w = want(orig, offset, len);
    assert_eq!(n, w.len(), "{what}: read_at({offset}, {len}): length");
    if buf[..n] != *w {
        assert_same(&buf[..n], w, &format!("{what}: read_at({offset}, {len})"));
    }
}

/// Reads at the edges of the content and of the entries (at most about 40
/// entries, evenly spread, and the last): empty reads, the first and the
/// last byte, reads across boundaries, from and across the end, from
/// offsets near 2^64.
fn edge_reads(table: &SeekTable) -> Vec<(u64, usize)> {
    let len = table.decompressed_size();
    let mut v = vec![
        (0, 0),
        (0, 1),
        (len.saturating_sub(1), 1),
        (len.saturating_sub(1), 0),
        (len, 0),
        (len, 10),
        (len + 1, 5),
        (len.saturating_sub(3), 10),
        (u64::MAX, 3),
        (u64::MAX - 2, 10),
        (0, len as usize + 7),
    ];
    let entries = table.entries();
    let step = (entries.len() / 40).max(1);
    for e in entries.iter().step_by(step).chain(entries.last()) {
        let b = e.decompressed_offset;
        let end = e.decompressed_end();
        let size = e.decompressed_size as usize;
        v.extend([
            (b, 0),
            (b, 1),
            (b.saturating_sub(1), 1),
            (b.saturating_sub(1), 2),
            (end.saturating_sub(1), 1),
            (end.saturating_sub(1), 2),
            (b, size),
            (b.saturating_sub(3), size + 6),
        ]);
    }
    v
}

/// Every edge read and `extra` reads (offsets taken modulo a little more
/// than the content, so that some start past its end): `read_at`, and
/// `copy_range` for a few.
fn check_reads<S: ReadAt>(r: &SeekableReader<S>, orig: &[u8], extra: &[(u64, usize)], what: &str) {
    assert_eq!(r.len(), orig.len() as u64, "{what}: content length");
    let span = orig.len() as u64 + orig.len() as u64 / 8 + 2;
    let mut reads = edge_reads(r.table());
    reads.extend(extra.iter().map(|&(o, l)| (o % span, l)));
    for (i, &(o, l)) in reads.iter().enumerate() {
        check_read(r, orig, o, l, what);
        if i % 4 == 0 {
            let mut out = Vec::new();
            let n = r
                .copy_range(o, l as u64, &mut out)
                .unwrap_or_else(|e| panic!("{what}: copy_range({o}, {l}): {e}"));
            assert_eq!(n, out.len() as u64, "{what}: copy_range({o}, {l}) count");
            assert!(
                out == want(orig, o, l),
                "{what}: copy_range({o}, {l}) gave other bytes"
            );
        }
    }
}

/// The same result from both sides of a `Read`/`Seek` comparison: equal
/// values, or errors of the same kind.
fn same<T: PartialEq + std::fmt::Debug>(a: io::Result<T>, b: io::Result<T>, what: &str) {
    match (a, b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "{what}"),
        (Err(x), Err(y)) => assert_eq!(x.kind(), y.kind(), "{what}: {x} vs {y}"),
        (x, y) => panic!("{what}: the reader gives {x:?}, a Cursor {y:?}"),
    }
}

/// Random seeks (from the start, the end and the current position, before
/// the start and past the end included) and reads, on the reader and on a
/// `Cursor` over the original: the same results and positions.
fn check_read_seek<S: ReadAt>(r: &mut SeekableReader<S>, orig: &[u8], seed: u64, what: &str) {
    let mut c = Cursor::new(orig);
    let mut rng = Rng::for_data(seed);
    let len = orig.len();
    let span = len + 100;
    r.seek(SeekFrom::Start(0)).unwrap();
    for step in 0..48 {
        let what = format!("{what}: step {step}");
        match rng.index(9) {
            0 => {
                let p = rng.index(span) as u64;
                same(
                    r.seek(SeekFrom::Start(p)),
                    c.seek(SeekFrom::Start(p)),
                    &what,
                );
            }
            1 => {
                let d = rng.index(2 * span) as i64 - span as i64;
                same(r.seek(SeekFrom::End(d)), c.seek(SeekFrom::End(d)), &what);
            }
            2 => {
                let d = rng.index(2 * span) as i64 - span as i64;
                same(
                    r.seek(SeekFrom::Current(d)),
                    c.seek(SeekFrom::Current(d)),
                    &what,
                );
            }
            3 => {
                // Overflowing and negative targets.
                let to = [
                    SeekFrom::End(i64::MIN),
                    SeekFrom::Current(i64::MIN),
                    SeekFrom::End(-(len as i64) - 1),
                    SeekFrom::End(-(len as i64)),
                    SeekFrom::End(0),
                    SeekFrom::Current(0),
                ][rng.index(6)];
                same(r.seek(to), c.seek(to), &format!("{what}: {to:?}"));
            }
            4 if rng.odds(1, 4) => {
                let mut a = Vec::new();
                let mut b = Vec::new();
                same(r.read_to_end(&mut a), c.read_to_end(&mut b), &what);
                assert!(a == b, "{what}: read_to_end gave other bytes");
            }
            _ => {
                let n = if rng.odds(1, 8) {
                    0
                } else {
                    rng.index(len.max(1) / 3 + 20)
                };
                let mut a = vec![0u8; n];
                let mut b = vec![0u8; n];
                same(r.read(&mut a), c.read(&mut b), &what);
                assert!(a == b, "{what}: read gave other bytes");
            }
        }
        same(r.stream_position(), c.stream_position(), &what);
    }
}

/// `decode_all` on each thread count gives the original.
fn check_decode_all<S: ReadAt + Sync>(
    r: &SeekableReader<S>,
    orig: &[u8],
    threads: &[usize],
    what: &str,
) {
    for &t in threads {
        let mut out = Vec::new();
        let n = r
            .decode_all(&mut out, t)
            .unwrap_or_else(|e| panic!("{what}: decode_all on {t} threads: {e}"));
        assert_eq!(n, orig.len() as u64, "{what}: decode_all on {t} threads");
        assert_same(&out, orig, &format!("{what}: decode_all on {t} threads"));
    }
}

/// The table a reader found is the one at the end of the file, and
/// describes `orig` in entries of `chunk` bytes (the last may be shorter;
/// an empty input has one empty entry).
fn check_writer_table(table: &SeekTable, file: &[u8], orig: &[u8], chunk: usize, what: &str) {
    let back = SeekTable::read_from(file, file.len() as u64)
        .unwrap()
        .expect("a table");
    assert_eq!(&back, table, "{what}: the table read back");
    assert!(table.is_contiguous(), "{what}: frames follow each other");
    assert_eq!(table.decompressed_size(), orig.len() as u64, "{what}");
    assert_eq!(
        table.compressed_end() + table.encoded_len(),
        file.len() as u64,
        "{what}: the table ends the file"
    );
    let chunks = orig.len().div_ceil(chunk).max(1);
    assert_eq!(table.len(), chunks, "{what}: one entry per chunk");
    for (i, e) in table.entries().iter().enumerate() {
        assert_eq!(e.kind, EntryKind::Frame, "{what}: entry {i}");
        let start = (i * chunk).min(orig.len());
        let size = chunk.min(orig.len() - start);
        assert_eq!(e.decompressed_size as usize, size, "{what}: entry {i}");
        assert_eq!(e.decompressed_offset, start as u64, "{what}: entry {i}");
        assert_eq!(
            e.checksum,
            table
                .has_checksums()
                .then(|| entry_sum(table, file, e, &orig[start..start + size])),
            "{what}: entry {i}'s checksum"
        );
    }
}

// ---------------------------------------------------------------------------
// References: liblz4, libzstd, the commands, libzstd's seekable library.
// ---------------------------------------------------------------------------

/// An LZ4 file decodes to `orig` with lzkit's frame decoder and liblz4.
fn check_lz4_decoders(file: &[u8], orig: &[u8], what: &str) {
    let ours = frame::decompress(file).unwrap_or_else(|e| panic!("{what}: lzkit: {e}"));
    assert_same(&ours, orig, &format!("{what}: lz4::frame::decompress"));
    let c = c_ref::decompress_frames(file, None, usize::MAX)
        .unwrap_or_else(|e| panic!("{what}: liblz4: {e}"));
    assert_same(&c, orig, &format!("{what}: liblz4"));
}

/// A zstd file decodes to `orig` with lzkit's zstd decoder and libzstd.
fn check_zstd_decoders(file: &[u8], orig: &[u8], what: &str) {
    let ours = lzkit::zstd::decompress(file).unwrap_or_else(|e| panic!("{what}: lzkit: {e}"));
    assert_same(&ours, orig, &format!("{what}: lzkit::zstd::decompress"));
    let lib = zstd::stream::decode_all(file).unwrap_or_else(|e| panic!("{what}: libzstd: {e}"));
    assert_same(&lib, orig, &format!("{what}: libzstd"));
}

/// The `zstd` command decodes `file` to `orig` (skipped as
/// `zstd_ref::cli_available` says).
fn check_with_zstd_cli(file: &[u8], orig: &[u8], what: &str) {
    if zstd_ref::cli_available() {
        let out = zstd_ref::cli(&["-d", "-c"], Some(file));
        assert_same(&out, orig, &format!("{what}: zstd -d"));
    }
}

/// `data` compressed by the `lz4` command with `args`; `None` when `lz4`
/// is not on PATH (see `lz4_available`).
fn lz4_cli(args: &[&str], data: &[u8]) -> Option<Vec<u8>> {
    if !lz4_available() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in");
    std::fs::write(&path, data).unwrap();
    let out = std::process::Command::new("lz4")
        .args(["-q", "-c"])
        .args(args)
        .arg(&path)
        .output()
        .expect("run lz4");
    assert!(
        out.status.success(),
        "lz4 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

/// libzstd's seekable decompressor on `file`: the same frames as `table`,
/// and the original bytes at every read of `reads`.
fn check_libzstd_seekable(
    file: &[u8],
    orig: &[u8],
    table: &SeekTable,
    reads: &[(u64, usize)],
    what: &str,
) {
    use zstd_safe::seekable::Seekable;
    let mut s = Seekable::create();
    s.init_buff(file).unwrap_or_else(|c| {
        panic!(
            "{what}: libzstd's seekable reader refuses the file: {}",
            zstd_safe::get_error_name(c)
        )
    });
    assert_eq!(s.num_frames() as usize, table.len(), "{what}: libzstd");
    for (i, e) in table.entries().iter().enumerate() {
        let f = i as u32;
        let what = format!("{what}: libzstd, frame {i}");
        assert_eq!(
            s.frame_compressed_size(f),
            Ok(e.compressed_size as usize),
            "{what}"
        );
        assert_eq!(
            s.frame_decompressed_size(f),
            Ok(e.decompressed_size as usize),
            "{what}"
        );
        assert_eq!(
            s.frame_compressed_offset(f).ok(),
            Some(e.compressed_offset),
            "{what}"
        );
        assert_eq!(
            s.frame_decompressed_offset(f).ok(),
            Some(e.decompressed_offset),
            "{what}"
        );
    }
    let span = orig.len() as u64 + 2;
    for &(o, l) in reads {
        let o = o % span;
        let mut buf = vec![0u8; l];
        let n = s.decompress(&mut buf[..], o).unwrap_or_else(|c| {
            panic!(
                "{what}: libzstd: decompress({o}, {l}): {}",
                zstd_safe::get_error_name(c)
            )
        });
        let w = want(orig, o, l);
        assert_eq!(n, w.len(), "{what}: libzstd: decompress({o}, {l})");
        assert!(
            buf[..n] == *w,
            "{what}: libzstd: decompress({o}, {l}) gave other bytes"
        );
    }
}

/// A seekable file written by libzstd's seekable compressor
/// (`ZSTD_seekable_compressStream`) at `level`, with frames of at most
/// `max_frame` bytes (0: libzstd's default) and frame checksums in the
/// table if `checksums`.
fn libzstd_seekable_file(data: &[u8], level: i32, checksums: bool, max_frame: u32) -> Vec<u8> {
    use zstd_safe::seekable::SeekableCStream;
    use zstd_safe::{InBuffer, OutBuffer};
    let mut cs = SeekableCStream::create();
    cs.init(level, checksums, max_frame)
        .unwrap_or_else(|c| panic!("libzstd seekable init: {}", zstd_safe::get_error_name(c)));
    let mut file = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut input = InBuffer::around(data);
    while input.pos() < data.len() {
        let mut out = OutBuffer::around(&mut buf[..]);
        cs.compress_stream(&mut out, &mut input)
            .unwrap_or_else(|c| panic!("libzstd seekable: {}", zstd_safe::get_error_name(c)));
        let n = out.pos();
        file.extend_from_slice(&buf[..n]);
    }
    loop {
        let mut out = OutBuffer::around(&mut buf[..]);
        let left = cs
            .end_stream(&mut out)
            .unwrap_or_else(|c| panic!("libzstd seekable end: {}", zstd_safe::get_error_name(c)));
        let n = out.pos();
        file.extend_from_slice(&buf[..n]);
        if left == 0 {
            return file;
        }
    }
}

// ---------------------------------------------------------------------------
// Random access to files lzkit writes.
// ---------------------------------------------------------------------------

fn chunk_size() -> impl Strategy<Value = usize> {
    prop_oneof![
        2 => 1usize..64,
        3 => 64usize..5000,
        3 => 5000usize..300_000,
    ]
}

fn lz4_frame_options() -> impl Strategy<Value = FrameOptions> {
    (
        prop::sample::select(LEVELS.to_vec()),
        prop::sample::select(BLOCK_SIZES.to_vec()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(level, block_size, linked, block_sum, content_sum)| {
            FrameOptions::new()
                .level(level)
                .block_size(block_size)
                .block_mode(if linked {
                    BlockMode::Linked
                } else {
                    BlockMode::Independent
                })
                .block_checksum(block_sum)
                .content_checksum(content_sum)
        })
}

/// Random reads: offsets (taken modulo a little more than the content by
/// [`check_reads`]) and lengths, short ones more often.
fn reads() -> impl Strategy<Value = Vec<(u64, usize)>> {
    prop::collection::vec(
        (
            any::<u64>(),
            prop_oneof![3 => 0usize..100, 2 => 0usize..20_000, 1 => 0usize..200_000],
        ),
        0..24,
    )
}

/// A data length for `chunk`-byte chunks: small chunks, small data (at most
/// a few hundred entries).
fn cap_len(len: usize, chunk: usize) -> usize {
    len.min(chunk.saturating_mul(300))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn lz4_files_read_at_random(
        kind in 0u8..6,
        len in 0usize..300_000,
        seed in any::<u64>(),
        chunk in chunk_size(),
        opts in lz4_frame_options(),
        checksums in any::<bool>(),
        cache in 1usize..6,
        verify in prop::bool::weighted(0.8),
        extra in reads(),
    ) {
        let data = data_of(kind, cap_len(len, chunk), seed);
        let what = format!("LZ4, {} bytes of kind {kind}, chunk {chunk}, {opts:?}, checksums {checksums}", data.len());
        let wopts = WriteOptions::lz4(opts).chunk_size(chunk).checksums(checksums);
        let file = seekable::compress(&data, &wopts).unwrap();
        check_lz4_decoders(&file, &data, &what);

        let ropts = ReaderOptions::new().scan(false).cache_entries(cache).verify_checksums(verify);
        let mut r = SeekableReader::with_options(&file[..], ropts).unwrap();
        prop_assert!(!r.scanned());
        prop_assert_eq!(r.table().format(), TableFormat::Lz4);
        prop_assert_eq!(r.table().has_checksums(), checksums);
        check_writer_table(r.table(), &file, &data, chunk, &what);
        check_reads(&r, &data, &extra, &what);
        check_read_seek(&mut r, &data, seed, &what);
    }
}

#[cfg(feature = "zstd-compress")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn zstd_files_read_at_random(
        kind in 0u8..6,
        len in 0usize..300_000,
        seed in any::<u64>(),
        chunk in chunk_size(),
        level in prop::sample::select(vec![-5, -1, 1, 3, 6]),
        frame_checksum in any::<bool>(),
        checksums in any::<bool>(),
        cache in 1usize..6,
        extra in reads(),
    ) {
        let data = data_of(kind, cap_len(len, chunk), seed);
        let what = format!("zstd, {} bytes of kind {kind}, chunk {chunk}, level {level}, frame checksum {frame_checksum}, checksums {checksums}", data.len());
        let enc = lzkit::zstd::FrameOptions::new().level(level).checksum(frame_checksum);
        let wopts = WriteOptions::zstd(enc).chunk_size(chunk).checksums(checksums);
        let file = seekable::compress(&data, &wopts).unwrap();
        check_zstd_decoders(&file, &data, &what);

        let ropts = ReaderOptions::new().scan(false).cache_entries(cache);
        let mut r = SeekableReader::with_options(&file[..], ropts).unwrap();
        prop_assert!(!r.scanned());
        prop_assert_eq!(r.table().format(), TableFormat::Zstd);
        prop_assert_eq!(r.table().has_checksums(), checksums);
        check_writer_table(r.table(), &file, &data, chunk, &what);
        check_reads(&r, &data, &extra, &what);
        check_read_seek(&mut r, &data, seed, &what);
        // zstd's own seekable library reads it.
        let mut all = edge_reads(r.table());
        all.extend(extra.iter().copied());
        check_libzstd_seekable(&file, &data, r.table(), &all, &what);
    }
}

/// Files of a few shapes decode with the `lz4` / `zstd` commands too (and
/// an empty or one-byte input gives a file they read).
#[test]
fn lz4_files_decode_with_the_lz4_command() {
    let cases: Vec<(Vec<u8>, FrameOptions, usize)> = vec![
        (Vec::new(), FrameOptions::new(), 4096),
        (vec![42], FrameOptions::new(), 4096),
        (column(300_000, 1), FrameOptions::new(), 64 << 10),
        (
            mixed(200_000, 2),
            FrameOptions::new()
                .level(9)
                .block_size(BlockSize::Max64KB)
                .block_mode(BlockMode::Linked)
                .block_checksum(true),
            150_000,
        ),
        (
            random(50_000, 3),
            FrameOptions::new().level(-5).content_checksum(false),
            1000,
        ),
    ];
    for (i, (data, opts, chunk)) in cases.into_iter().enumerate() {
        let what = format!("case {i}");
        let file = seekable::compress(&data, &WriteOptions::lz4(opts).chunk_size(chunk)).unwrap();
        check_lz4_decoders(&file, &data, &what);
        check_with_lz4(&file, None, &data, &what);
        let r = SeekableReader::open(&file[..]).unwrap();
        assert!(!r.scanned());
        check_reads(&r, &data, &[], &what);
    }
}

#[cfg(feature = "zstd-compress")]
#[test]
fn zstd_files_decode_with_the_zstd_command_and_libzstd() {
    use lzkit::zstd::FrameOptions;
    let cases: Vec<(Vec<u8>, FrameOptions, usize, bool)> = vec![
        (Vec::new(), FrameOptions::new(), 4096, true),
        (vec![42], FrameOptions::new(), 4096, false),
        (column(300_000, 1), FrameOptions::new(), 64 << 10, true),
        (
            text(100_000, 2),
            FrameOptions::new().level(19).checksum(false),
            30_000,
            true,
        ),
        (
            random(50_000, 3),
            FrameOptions::new().level(-5),
            1000,
            false,
        ),
    ];
    for (i, (data, opts, chunk, checksums)) in cases.into_iter().enumerate() {
        let what = format!("case {i}");
        let wopts = WriteOptions::zstd(opts)
            .chunk_size(chunk)
            .checksums(checksums);
        let file = seekable::compress(&data, &wopts).unwrap();
        check_zstd_decoders(&file, &data, &what);
        check_with_zstd_cli(&file, &data, &what);
        let r = SeekableReader::open(&file[..]).unwrap();
        assert!(!r.scanned());
        check_reads(&r, &data, &[], &what);
        let reads = edge_reads(r.table());
        check_libzstd_seekable(&file, &data, r.table(), &reads, &what);
    }
}

/// The writer's output is the same for 1, 2 and 3 threads, whole or
/// written in odd pieces, with more chunks than a pool keeps in flight.
#[test]
fn the_output_is_the_same_for_any_number_of_threads() {
    let data = column(1 << 20, 7);
    #[cfg_attr(not(feature = "zstd-compress"), allow(unused_mut))]
    let mut cases: Vec<(WriteOptions, &str)> = vec![
        (
            WriteOptions::lz4(FrameOptions::new()).chunk_size(64 << 10),
            "LZ4, 64 KiB chunks",
        ),
        (
            WriteOptions::lz4(FrameOptions::new().level(9).block_checksum(true))
                .chunk_size(5000)
                .checksums(false),
            "LZ4 HC, 5000-byte chunks",
        ),
        (
            WriteOptions::lz4(
                FrameOptions::new()
                    .block_size(BlockSize::Max64KB)
                    .block_mode(BlockMode::Linked),
            )
            .chunk_size(300_000),
            "LZ4, linked 64 KiB blocks, 300 KB chunks",
        ),
    ];
    #[cfg(feature = "zstd-compress")]
    cases.extend([
        (
            WriteOptions::zstd(lzkit::zstd::FrameOptions::new()).chunk_size(64 << 10),
            "zstd, 64 KiB chunks",
        ),
        (
            WriteOptions::zstd(lzkit::zstd::FrameOptions::new().level(-3).checksum(false))
                .chunk_size(3000),
            "zstd fast, 3000-byte chunks",
        ),
    ]);
    for (opts, what) in &cases {
        let one = seekable::compress(&data, &opts.clone().threads(1)).unwrap();
        for t in [2, 3] {
            let many = seekable::compress(&data, &opts.clone().threads(t)).unwrap();
            assert!(many == one, "{what}: {t} threads give other bytes");
        }
        // Written in odd pieces through the writer, with flushes.
        let mut rng = Rng::for_data(what.len() as u64);
        let mut w = SeekableWriter::new(Vec::new(), &opts.clone().threads(2)).unwrap();
        let mut at = 0;
        while at < data.len() {
            let n = rng.range(1, 70_000).min(data.len() - at);
            w.write_all(&data[at..at + n]).unwrap();
            if rng.odds(1, 5) {
                w.flush().unwrap();
            }
            at += n;
        }
        let (pieces, table) = w.finish().unwrap();
        assert!(pieces == one, "{what}: written in pieces");
        let back = SeekTable::read_from(&one[..], one.len() as u64)
            .unwrap()
            .unwrap();
        assert_eq!(table, back, "{what}: finish returns the table written");
    }
}

#[test]
fn options_that_cannot_be_seekable_are_refused() {
    let data = b"some data".repeat(100);
    let refused = |opts: WriteOptions, what: &str| {
        let e = seekable::compress(&data, &opts).unwrap_err();
        assert!(matches!(e, Error::InvalidOptions(_)), "{what}: {e}");
        assert!(SeekableWriter::new(Vec::new(), &opts).is_err(), "{what}");
    };
    let lz4 = || WriteOptions::lz4(FrameOptions::new());
    refused(lz4().chunk_size(0), "chunk 0");
    refused(
        lz4().chunk_size(MAX_ENTRY_SIZE as usize + 1),
        "chunk over 1 GiB",
    );
    refused(
        WriteOptions::lz4(FrameOptions::new().legacy(true)),
        "legacy",
    );
    refused(
        WriteOptions::lz4(FrameOptions::new().dictionary(&b"dictionary"[..])),
        "dictionary",
    );
    refused(
        WriteOptions::lz4(FrameOptions::new().dict_id(Some(9))),
        "dictionary ID",
    );
    #[cfg(feature = "zstd-compress")]
    refused(
        WriteOptions::zstd(
            lzkit::zstd::FrameOptions::new()
                .dictionary(Some(std::sync::Arc::from(&b"dictionary"[..]))),
        ),
        "zstd dictionary",
    );
    // A chunk of exactly 1 GiB is allowed (not compressed here).
    assert!(lz4().chunk_size(MAX_ENTRY_SIZE as usize).validate().is_ok());
}

// ---------------------------------------------------------------------------
// libzstd's seekable format, both ways.
// ---------------------------------------------------------------------------

/// lzkit reads the files of libzstd's seekable compressor, with and
/// without checksums, and finds the frames libzstd reports.
#[test]
fn lzkit_reads_libzstd_seekable_files() {
    let cases: [(Vec<u8>, i32, bool, u32); 6] = [
        (column(400_000, 11), 3, true, 10_000),
        (mixed(300_000, 12), 1, false, 4096),
        (text(200_000, 13), -3, true, 0),
        (column(100_000, 14), 19, true, 33_333),
        (random(60_000, 15), 5, false, 1000),
        (Vec::new(), 3, true, 1000),
    ];
    for (i, (data, level, checksums, max_frame)) in cases.iter().enumerate() {
        let what = format!(
            "libzstd seekable, case {i}: level {level}, checksums {checksums}, frames of {max_frame}"
        );
        let file = libzstd_seekable_file(data, *level, *checksums, *max_frame);
        check_zstd_decoders(&file, data, &what);

        let table = SeekTable::read_from(&file[..], file.len() as u64)
            .unwrap()
            .expect("a table");
        assert_eq!(table.format(), TableFormat::Zstd, "{what}");
        assert_eq!(table.has_checksums(), *checksums, "{what}");
        if *max_frame > 0 {
            // Frames of `max_frame` bytes; libzstd ends a stream whose
            // last frame is full with an empty one.
            let full = data.len().div_ceil(*max_frame as usize);
            assert!(
                table.len() == full || table.len() == full + 1,
                "{what}: {} frames",
                table.len()
            );
            for (k, e) in table.entries().iter().enumerate() {
                let size = (*max_frame as usize)
                    .min(data.len() - (k * *max_frame as usize).min(data.len()));
                assert_eq!(e.decompressed_size as usize, size, "{what}: frame {k}");
            }
        }
        // The same frames as libzstd finds.
        let reads = edge_reads(&table);
        check_libzstd_seekable(&file, data, &table, &reads, &what);

        for verify in [true, false] {
            let ropts = ReaderOptions::new().scan(false).verify_checksums(verify);
            let mut r = SeekableReader::with_options(&file[..], ropts).unwrap();
            assert!(!r.scanned(), "{what}");
            assert_eq!(r.table(), &table, "{what}");
            check_reads(&r, data, &[(12_345, 50_000), (99_999, 3)], &what);
            check_decode_all(&r, data, &[1, 2], &what);
            check_read_seek(&mut r, data, i as u64, &what);
        }
    }
}

/// libzstd's seekable reader reads lzkit's zstd tables: those of files
/// lzkit writes, and those `build_table` makes for a run of frames.
#[test]
fn libzstd_reads_tables_lzkit_builds() {
    let data = column(250_000, 21);
    for checksums in [true, false] {
        let mut file = Vec::new();
        for (k, piece) in data.chunks(40_000).enumerate() {
            let s = Settings::new(1 + k as i32 % 5)
                .checksum(k % 2 == 0)
                .content_size(k % 3 != 0);
            file.extend(zstd_ref::compress(piece, &s, None));
        }
        let table = seekable::build_table(&file[..], file.len() as u64, checksums).unwrap();
        assert_eq!(table.len(), 7);
        file.extend(table.to_bytes());
        let what = format!("build_table, checksums {checksums}");
        let mut reads = edge_reads(&table);
        reads.extend([(1000, 100_000), (239_000, 20_000)]);
        check_libzstd_seekable(&file, &data, &table, &reads, &what);
    }
}

// ---------------------------------------------------------------------------
// build_table: files without a table.
// ---------------------------------------------------------------------------

/// An LZ4 file of many kinds of frames, skippable frames between them, and
/// its content.
fn mixed_lz4_file() -> (Vec<u8>, Vec<u8>) {
    use lzkit_testkit::opts;
    let mut file = Vec::new();
    let mut content = Vec::new();
    let mut add = |d: Vec<u8>, f: Vec<u8>, file: &mut Vec<u8>| {
        content.extend_from_slice(&d);
        file.extend(f);
    };
    let a = column(200_000, 31);
    // Independent 64 KiB blocks, a content size and checksum: 4 entries.
    let fa = frame::compress(
        &a,
        &opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            true,
            Some(a.len() as u64),
            None,
        ),
    );
    add(a, fa, &mut file);
    file.extend(skippable_frame(3, b"between frames"));
    // Linked blocks: one entry.
    let b = mixed(150_000, 32);
    let fb = frame::compress(
        &b,
        &opts(
            9,
            BlockSize::Max64KB,
            BlockMode::Linked,
            true,
            true,
            None,
            None,
        ),
    );
    add(b, fb, &mut file);
    // One block: one entry for the frame.
    let c = text(1000, 33);
    let fc = frame::compress(&c, &FrameOptions::new());
    add(c, fc, &mut file);
    // An empty frame: no entry.
    let fe = frame::compress(&[], &FrameOptions::new());
    add(Vec::new(), fe, &mut file);
    file.extend(skippable_frame(0, b""));
    // Block checksums, no content checksum, incompressible: stored blocks.
    let d = random(100_000, 34);
    let fd = frame::compress(
        &d,
        &opts(
            -5,
            BlockSize::Max64KB,
            BlockMode::Independent,
            true,
            false,
            None,
            None,
        ),
    );
    add(d, fd, &mut file);
    // liblz4's frame of independent blocks, with a content size.
    let e = column(140_000, 35);
    let settings = c_ref::FrameSettings {
        level: 1,
        block_size: BlockSize::Max64KB,
        linked: false,
        block_checksum: false,
        content_checksum: true,
        content_size: true,
        dict_id: 0,
    };
    let fe = c_ref::compress_frame(&e, &settings, None).unwrap();
    add(e, fe, &mut file);
    (file, content)
}

/// The entries `build_table` makes for an LZ4 file: per block in frames of
/// several independent blocks (pointing inside the frame), per frame
/// otherwise, none for skippable and empty frames; they cover the content.
fn check_lz4_entries(table: &SeekTable, file: &[u8], content: &[u8], what: &str) {
    let frames = frame::list_frames(file).unwrap();
    let mut expected = Vec::new();
    for f in &frames {
        if f.kind != FrameKind::Standard {
            continue;
        }
        let start = f.offset;
        let end = f.offset + f.compressed_size;
        if f.block_mode == Some(BlockMode::Independent) && f.blocks > 1 {
            for _ in 0..f.blocks {
                expected.push((
                    EntryKind::Lz4Block {
                        block_checksum: f.block_checksum,
                    },
                    start,
                    end,
                ));
            }
        } else if f.blocks > 0 {
            expected.push((EntryKind::Frame, start, end));
        }
    }
    assert_eq!(table.len(), expected.len(), "{what}: entries");
    for (i, (e, (kind, start, end))) in table.entries().iter().zip(&expected).enumerate() {
        assert_eq!(e.kind, *kind, "{what}: entry {i}");
        match kind {
            EntryKind::Frame => {
                assert_eq!(e.compressed_offset, *start, "{what}: entry {i}");
                assert_eq!(e.compressed_end(), *end, "{what}: entry {i}");
            }
            EntryKind::Lz4Block { .. } => {
                assert!(
                    e.compressed_offset > *start && e.compressed_end() < *end,
                    "{what}: entry {i} ({e:?}) lies inside its frame ({start}..{end})"
                );
            }
        }
    }
    assert_eq!(table.decompressed_size(), content.len() as u64, "{what}");
    for (i, e) in table.entries().iter().enumerate() {
        let d = &content[e.decompressed_offset as usize..e.decompressed_end() as usize];
        assert_eq!(
            e.checksum,
            table.has_checksums().then(|| entry_sum(table, file, e, d)),
            "{what}: entry {i}'s checksum"
        );
    }
}

/// Append `table` to `file` and read the result through it (no scan),
/// compared with `content`; the result still decodes as a whole.
fn check_indexed<F: Fn(&[u8], &[u8], &str)>(
    mut file: Vec<u8>,
    table: &SeekTable,
    content: &[u8],
    decoders: F,
    what: &str,
) -> Vec<u8> {
    file.extend(table.to_bytes());
    decoders(&file, content, what);
    let mut r = SeekableReader::with_options(&file[..], ReaderOptions::new().scan(false))
        .unwrap_or_else(|e| panic!("{what}: open with the table appended: {e}"));
    assert!(!r.scanned(), "{what}");
    assert_eq!(r.table(), table, "{what}: the table read back");
    let mut rng = Rng::for_data(content.len() as u64);
    let extra: Vec<(u64, usize)> = (0..60)
        .map(|_| (rng.next_u64(), rng.index(100_000)))
        .collect();
    check_reads(&r, content, &extra, what);
    check_decode_all(&r, content, &[1, 2], what);
    check_read_seek(&mut r, content, 5, what);
    file
}

#[test]
fn build_table_indexes_lz4_frames_and_their_blocks() {
    let (file, content) = mixed_lz4_file();
    check_lz4_decoders(&file, &content, "the file");
    for checksums in [true, false] {
        let what = format!("mixed LZ4 file, checksums {checksums}");
        let table = seekable::build_table(&file[..], file.len() as u64, checksums).unwrap();
        assert_eq!(table.format(), TableFormat::Lz4);
        assert_eq!(table.has_checksums(), checksums);
        assert!(!table.is_contiguous(), "{what}: block entries");
        check_lz4_entries(&table, &file, &content, &what);
        let indexed = check_indexed(file.clone(), &table, &content, check_lz4_decoders, &what);
        check_with_lz4(&indexed, None, &content, &what);

        // Opened without its table, the file is scanned into the same one.
        let r = SeekableReader::open(&file[..]).unwrap();
        assert!(r.scanned(), "{what}");
        let rebuilt = seekable::build_table(&file[..], file.len() as u64, true).unwrap();
        assert_eq!(r.table(), &rebuilt, "{what}");
    }
}

/// A file lzkit wrote already has the table `build_table` would make.
#[test]
fn build_table_of_a_seekable_file_is_its_table() {
    let data = column(300_000, 41);
    let file = seekable::compress(
        &data,
        &WriteOptions::lz4(FrameOptions::new()).chunk_size(50_000),
    )
    .unwrap();
    let written = SeekTable::read_from(&file[..], file.len() as u64)
        .unwrap()
        .unwrap();
    // The table at the end is a skippable frame, which LZ4 tables leave out.
    let built = seekable::build_table(&file[..], file.len() as u64, true).unwrap();
    assert_eq!(built, written);
    let data_end = written.compressed_end();
    let built = seekable::build_table(&file[..], data_end, true).unwrap();
    assert_eq!(built, written);
    #[cfg(feature = "zstd-compress")]
    {
        let file = seekable::compress(
            &data,
            &WriteOptions::zstd(lzkit::zstd::FrameOptions::new()).chunk_size(50_000),
        )
        .unwrap();
        let written = SeekTable::read_from(&file[..], file.len() as u64)
            .unwrap()
            .unwrap();
        let built = seekable::build_table(&file[..], written.compressed_end(), true).unwrap();
        assert_eq!(built, written);
    }
}

#[test]
fn build_table_indexes_zstd_frames() {
    let mut file = Vec::new();
    let mut content = Vec::new();
    let mut frames = 0;
    for (k, len) in [70_000usize, 1, 0, 130_000, 5000].into_iter().enumerate() {
        let d = data_of(k as u8, len, 50 + k as u64);
        let s = Settings::new([1, 3, -2, 7, 19][k])
            .checksum(k % 2 == 1)
            .content_size(k != 3);
        file.extend(zstd_ref::compress(&d, &s, None));
        content.extend_from_slice(&d);
        frames += 1;
        if k % 2 == 0 {
            file.extend(lzkit_testkit::zstd_frames::skippable_frame(
                k as u8,
                &text(k * 10, 1),
            ));
            frames += 1;
        }
    }
    check_zstd_decoders(&file, &content, "the file");
    for checksums in [true, false] {
        let what = format!("zstd frames, checksums {checksums}");
        let table = seekable::build_table(&file[..], file.len() as u64, checksums).unwrap();
        assert_eq!(table.format(), TableFormat::Zstd);
        assert_eq!(table.len(), frames, "{what}: skippable frames are entries");
        assert!(table.is_contiguous(), "{what}");
        assert_eq!(table.compressed_end(), file.len() as u64, "{what}");
        let listed = lzkit::zstd::list_frames(&file[..]).unwrap();
        for (e, f) in table.entries().iter().zip(&listed) {
            assert_eq!(e.compressed_offset, f.offset, "{what}");
            assert_eq!(u64::from(e.compressed_size), f.compressed_size, "{what}");
            if let lzkit::zstd::FrameKind::Skippable { .. } = f.kind {
                assert_eq!(e.decompressed_size, 0, "{what}");
            }
        }
        let indexed = check_indexed(file.clone(), &table, &content, check_zstd_decoders, &what);
        check_with_zstd_cli(&indexed, &content, &what);
        let reads = edge_reads(&table);
        check_libzstd_seekable(&indexed, &content, &table, &reads, &what);

        let r = SeekableReader::open(&file[..]).unwrap();
        assert!(r.scanned(), "{what}");
    }
}

#[test]
fn build_table_indexes_files_of_the_lz4_command() {
    let data = column(300_000, 61);
    for args in [
        &[][..],
        &["-B4"],
        &["-B4", "-BX"],
        &["-B4", "-BD"],
        &["-B5", "-9", "--content-size"],
    ] {
        let Some(file) = lz4_cli(args, &data) else {
            return;
        };
        let what = format!("lz4 {args:?}");
        let table = seekable::build_table(&file[..], file.len() as u64, true).unwrap();
        check_lz4_entries(&table, &file, &data, &what);
        let blocks = frame::list_frames(&file[..]).unwrap()[0].blocks as usize;
        let linked = args.contains(&"-BD");
        assert_eq!(table.len(), if linked { 1 } else { blocks }, "{what}");
        if args.contains(&"-B4") && !linked {
            assert_eq!(table.len(), 5, "{what}: 64 KiB blocks");
        }
        let indexed = check_indexed(file, &table, &data, check_lz4_decoders, &what);
        check_with_lz4(&indexed, None, &data, &what);
    }
    // Two files of the command, one after the other.
    let (Some(a), Some(b)) = (
        lz4_cli(&["-B4"], &data[..100_000]),
        lz4_cli(&["-B4"], &data[100_000..]),
    ) else {
        return;
    };
    let file = [a, b].concat();
    let table = seekable::build_table(&file[..], file.len() as u64, false).unwrap();
    check_lz4_entries(&table, &file, &data, "two lz4 files");
    check_indexed(file, &table, &data, check_lz4_decoders, "two lz4 files");
    // The legacy format is refused.
    let legacy = lz4_cli(&["-l"], &data).unwrap();
    let e = seekable::build_table(&legacy[..], legacy.len() as u64, true).unwrap_err();
    assert!(is_not_seekable(&e), "lz4 -l: {e}");
}

#[test]
fn build_table_indexes_files_of_the_zstd_command() {
    if !zstd_ref::cli_available() {
        return;
    }
    let data = column(300_000, 71);
    let mut file = Vec::new();
    for (piece, args) in data.chunks(110_000).zip([
        &["-c", "-3"][..],
        &["-c", "-1", "--no-check"],
        &["-c", "--fast=3", "--no-check", "--no-content-size"],
    ]) {
        file.extend(zstd_ref::cli(args, Some(piece)));
    }
    let table = seekable::build_table(&file[..], file.len() as u64, true).unwrap();
    assert_eq!(table.len(), 3);
    let indexed = check_indexed(file, &table, &data, check_zstd_decoders, "zstd command");
    check_with_zstd_cli(&indexed, &data, "zstd command");
    check_libzstd_seekable(&indexed, &data, &table, &edge_reads(&table), "zstd command");
}

#[test]
fn build_table_refuses_what_cannot_be_read_at_random() {
    let data = column(200_000, 81);
    let not_seekable = |file: &[u8], what: &str| {
        let e = seekable::build_table(file, file.len() as u64, true).unwrap_err();
        assert!(is_not_seekable(&e), "{what}: {e}");
        let e = SeekableReader::open(file).err().expect("refused");
        assert!(is_not_seekable(&e), "{what}: open: {e}");
    };
    // Legacy frames, alone or after a standard frame.
    let legacy = frame::compress(&data, &lzkit_testkit::legacy_opts(1));
    not_seekable(&legacy, "legacy");
    let after = [frame::compress(&data, &FrameOptions::new()), legacy].concat();
    not_seekable(&after, "legacy after a standard frame");
    // An LZ4 frame with a dictionary ID.
    let dict = text(30_000, 82);
    let with_dict = frame::compress(
        &data,
        &lzkit_testkit::opts(
            1,
            BlockSize::Max64KB,
            BlockMode::Independent,
            false,
            true,
            None,
            Some((&dict[..], Some(0xD1C7))),
        ),
    );
    not_seekable(&with_dict, "LZ4 with a dictionary ID");
    // A zstd frame with a dictionary ID.
    let samples: Vec<Vec<u8>> = (0..300).map(|i| text(300, 100 + i)).collect();
    let zdict = zstd_ref::train_dictionary(&samples, 4096).unwrap();
    let zframe = zstd_ref::compress(
        &text(20_000, 83),
        &Settings::new(3).dict_id(true),
        Some(&zdict),
    );
    not_seekable(&zframe, "zstd with a dictionary ID");
    // Not compressed data at all, an empty file, a lone skippable frame.
    not_seekable(&text(5000, 84), "text");
    not_seekable(&[], "empty");
    not_seekable(&skippable_frame(1, b"nothing else"), "a skippable frame");
}

#[test]
fn build_table_refuses_corrupt_data() {
    let data = column(200_000, 91);
    let lz4 = frame::compress(&data, &FrameOptions::new().block_size(BlockSize::Max64KB));
    let layout = lzkit_testkit::frame_layout(&lz4);
    let zstd = zstd_ref::compress(&data, &Settings::new(3).checksum(true), None);
    let mut cases: Vec<(Vec<u8>, String)> = Vec::new();
    for (name, f) in [("LZ4", &lz4), ("zstd", &zstd)] {
        for cut in [1, 4, f.len() / 2] {
            cases.push((f[..f.len() - cut].to_vec(), format!("{name} cut by {cut}")));
        }
        let mut mid = f.clone();
        let m = f.len() * 2 / 3;
        mid[m] ^= 0x5A;
        mid[m + 1] ^= 0xA5;
        cases.push((mid, format!("{name} with bytes changed")));
        let mut tail = f.clone();
        tail.extend_from_slice(b"JUNK");
        cases.push((tail, format!("{name} with junk after it")));
        let mut last = f.clone();
        *last.last_mut().unwrap() ^= 1;
        cases.push((last, format!("{name} with its last byte changed")));
    }
    // The second block's data of the LZ4 frame.
    let (at, _, _) = layout.blocks[1];
    let mut b = lz4.clone();
    b[at + 100] ^= 0xFF;
    cases.push((b, "LZ4, a byte of block 1".into()));
    // An LZ4 frame then a zstd frame.
    cases.push(([lz4.clone(), zstd.clone()].concat(), "LZ4 then zstd".into()));
    cases.push(([zstd.clone(), lz4.clone()].concat(), "zstd then LZ4".into()));
    for (file, what) in &cases {
        match seekable::build_table(&file[..], file.len() as u64, true) {
            Ok(t) => panic!("{what}: a table of {} entries for corrupt data", t.len()),
            Err(e) => assert!(typed(&e), "{what}: {e:?}"),
        }
        if let Err(e) = SeekableReader::open(&file[..]) {
            assert!(typed(&e), "{what}: {e:?}");
        } else {
            panic!("{what}: opened");
        }
    }
}

// ---------------------------------------------------------------------------
// Files without a table.
// ---------------------------------------------------------------------------

#[test]
fn files_without_a_table_are_scanned_or_refused() {
    let data = column(500_000, 101);
    let lz4 = frame::compress(&data, &FrameOptions::new().block_size(BlockSize::Max64KB));
    let zstd = zstd_ref::compress(&data, &Settings::new(3), None);
    for (file, what) in [(&lz4, "LZ4"), (&zstd, "zstd")] {
        let e = SeekableReader::with_options(&file[..], ReaderOptions::new().scan(false))
            .err()
            .expect("refused");
        assert!(is_not_seekable(&e), "{what}: {e}");
        let mut r = SeekableReader::open(&file[..]).unwrap();
        assert!(r.scanned(), "{what}");
        check_reads(&r, &data, &[(123_456, 70_000), (450_000, 60_000)], what);
        check_decode_all(&r, &data, &[1, 2], what);
        check_read_seek(&mut r, &data, 3, what);
    }
    // The LZ4 frame has 8 blocks, so 8 entries; the zstd frame one.
    assert_eq!(SeekableReader::open(&lz4[..]).unwrap().table().len(), 8);
    assert_eq!(SeekableReader::open(&zstd[..]).unwrap().table().len(), 1);
}

// ---------------------------------------------------------------------------
// Hostile tables.
// ---------------------------------------------------------------------------

/// The checksum entry `e` of `table` must have: the low 32 bits of the
/// XXH64 of its bytes in `file` (LZ4 tables) or of its decoded bytes
/// `decoded` (zstd tables).
fn entry_sum(table: &SeekTable, file: &[u8], e: &Entry, decoded: &[u8]) -> u32 {
    let of = match table.format() {
        TableFormat::Lz4 => &file[e.compressed_offset as usize..e.compressed_end() as usize],
        TableFormat::Zstd => decoded,
    };
    xxhash_rust::xxh64::xxh64(of, 0) as u32
}

/// Where entry `i` of `table` (at the end of `file`) starts in the file.
fn entry_at(file: &[u8], table: &SeekTable, i: usize) -> usize {
    let entry_len = match (table.format(), table.has_checksums()) {
        (TableFormat::Lz4, c) => 17 + 4 * usize::from(c),
        (TableFormat::Zstd, c) => 8 + 4 * usize::from(c),
    };
    let checksum = match table.format() {
        TableFormat::Lz4 => 4,
        TableFormat::Zstd => 0,
    };
    file.len() - table.encoded_len() as usize + 8 + checksum + i * entry_len
}

/// `file` with its LZ4 table's checksum made right again after an edit of
/// its entries, so that the edit reaches the check it is meant for (the
/// table's checksum would refuse it first). zstd tables have none.
fn sealed(file: &[u8]) -> Vec<u8> {
    let mut f = file.to_vec();
    let n = f.len();
    if n < 21 || get32(&f, n - 4) != lzkit::seekable::LZ4_FOOTER_MAGIC {
        return f;
    }
    let count = get32(&f, n - 9) as usize;
    let entry_len = if f[n - 5] & 0x80 != 0 { 21 } else { 17 };
    let Some(start) = count
        .checked_mul(entry_len)
        .and_then(|e| n.checked_sub(8 + 4 + e + 9))
    else {
        return f;
    };
    let sum = xxhash_rust::xxh64::xxh64(&f[start + 12..n - 4], 0) as u32;
    put32(&mut f, start + 8, sum);
    f
}

/// Offsets of an entry's fields from [`entry_at`].
struct Fields {
    compressed: usize,
    decompressed: usize,
    flags: Option<usize>,
    checksum: usize,
}

fn fields(format: TableFormat) -> Fields {
    match format {
        TableFormat::Lz4 => Fields {
            compressed: 8,
            decompressed: 12,
            flags: Some(16),
            checksum: 17,
        },
        TableFormat::Zstd => Fields {
            compressed: 0,
            decompressed: 4,
            flags: None,
            checksum: 8,
        },
    }
}

fn put32(file: &mut [u8], at: usize, v: u32) {
    file[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get32(file: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(file[at..at + 4].try_into().unwrap())
}

/// Open must fail with `Error::SeekTable`, scan or not.
fn open_fails(file: &[u8], what: &str) -> String {
    let file = &sealed(file)[..];
    for scan in [true, false] {
        let e = SeekableReader::with_options(file, ReaderOptions::new().scan(scan))
            .err()
            .unwrap_or_else(|| panic!("{what}: opened"));
        assert!(is_seek_table(&e), "{what}: {e:?}");
    }
    SeekableReader::open(file).err().unwrap().to_string()
}

/// A seekable file, its content, and what it is.
type TableFile = (Vec<u8>, Vec<u8>, &'static str);

/// Seekable files with tables of every kind (and their content), made once:
/// lzkit's LZ4 and zstd writers, `build_table` over LZ4 blocks and zstd
/// frames, libzstd's seekable compressor; with and without checksums.
fn table_files() -> &'static [TableFile] {
    static FILES: OnceLock<Vec<TableFile>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut v = Vec::new();
        let a = column(120_000, 111);
        let opts = WriteOptions::lz4(FrameOptions::new()).chunk_size(8000);
        v.push((
            seekable::compress(&a, &opts).unwrap(),
            a.clone(),
            "LZ4 writer, checksums",
        ));
        let b = mixed(200_000, 112);
        let opts = WriteOptions::lz4(
            FrameOptions::new()
                .block_size(BlockSize::Max64KB)
                .block_mode(BlockMode::Linked)
                .block_checksum(true),
        )
        .chunk_size(90_000)
        .checksums(false);
        v.push((
            seekable::compress(&b, &opts).unwrap(),
            b,
            "LZ4 writer, linked blocks, no checksums",
        ));
        let (file, content) = mixed_lz4_file();
        for checksums in [true, false] {
            let t = seekable::build_table(&file[..], file.len() as u64, checksums).unwrap();
            let f = [file.clone(), t.to_bytes()].concat();
            v.push((
                f,
                content.clone(),
                if checksums {
                    "LZ4 blocks indexed, checksums"
                } else {
                    "LZ4 blocks indexed, no checksums"
                },
            ));
        }
        let c = text(100_000, 113);
        let mut zfile = Vec::new();
        for (k, piece) in c.chunks(4000).enumerate() {
            let s = Settings::new(3).checksum(k % 3 == 0);
            zfile.extend(zstd_ref::compress(piece, &s, None));
        }
        for checksums in [true, false] {
            let t = seekable::build_table(&zfile[..], zfile.len() as u64, checksums).unwrap();
            let f = [zfile.clone(), t.to_bytes()].concat();
            v.push((
                f,
                c.clone(),
                if checksums {
                    "zstd frames indexed, checksums"
                } else {
                    "zstd frames indexed, no checksums"
                },
            ));
        }
        let d = column(100_000, 114);
        v.push((
            libzstd_seekable_file(&d, 3, true, 3000),
            d,
            "libzstd seekable, checksums",
        ));
        #[cfg(feature = "zstd-compress")]
        {
            let opts = WriteOptions::zstd(lzkit::zstd::FrameOptions::new().checksum(false))
                .chunk_size(5000);
            v.push((
                seekable::compress(&a, &opts).unwrap(),
                a.clone(),
                "zstd writer, checksums",
            ));
        }
        v
    })
}

#[test]
fn a_footer_claiming_2_to_the_32_entries_is_refused_at_once() {
    for (file, _, what) in table_files() {
        let mut f = file.clone();
        let n = f.len();
        put32(&mut f, n - 9, u32::MAX);
        let start = Instant::now();
        let msg = open_fails(&f, what);
        assert!(msg.contains("4294967295"), "{what}: {msg}");
        assert!(start.elapsed() < Duration::from_secs(1), "{what}");
    }
    // Tiny files that are nothing but a footer (and a little before it).
    for magic in [LZ4_FOOTER_MAGIC, ZSTD_FOOTER_MAGIC] {
        for descriptor in [0u8, 0x80] {
            for before in [0usize, 8, 100, 4096] {
                let mut f = vec![0u8; before];
                f.extend_from_slice(&u32::MAX.to_le_bytes());
                f.push(descriptor);
                f.extend_from_slice(&magic.to_le_bytes());
                let start = Instant::now();
                if f.len() as u64 >= FOOTER_LEN + 8 {
                    open_fails(&f, &format!("{before} bytes and a footer"));
                } else {
                    // Too short for a table: not one, and no frame either.
                    let e = SeekableReader::open(&f[..]).err().unwrap();
                    assert!(typed(&e), "{e:?}");
                }
                assert!(start.elapsed() < Duration::from_secs(1));
            }
        }
    }
    // A plausible table frame and a count of 2^32 - 1 in a tiny file.
    for (magic, footer) in [
        (LZ4_TABLE_MAGIC, LZ4_FOOTER_MAGIC),
        (ZSTD_TABLE_MAGIC, ZSTD_FOOTER_MAGIC),
    ] {
        let mut f = Vec::new();
        f.extend_from_slice(&magic.to_le_bytes());
        f.extend_from_slice(&u32::MAX.to_le_bytes());
        f.extend_from_slice(&u32::MAX.to_le_bytes());
        f.push(0x80);
        f.extend_from_slice(&footer.to_le_bytes());
        let e = SeekTable::read_from(&f[..], f.len() as u64).unwrap_err();
        assert!(is_seek_table(&e), "{e}");
    }
}

#[test]
fn sizes_that_do_not_add_up_are_refused() {
    for (file, orig, what) in table_files() {
        let table = SeekTable::read_from(&file[..], file.len() as u64)
            .unwrap()
            .unwrap();
        let fl = fields(table.format());
        let e0 = entry_at(file, &table, 0);
        let e1 = entry_at(file, &table, 1);
        // One frame a byte longer: zstd frames no longer end at the table;
        // LZ4 entries overlap the next (or run into the table).
        let mut f = file.clone();
        put32(
            &mut f,
            e0 + fl.compressed,
            get32(file, e0 + fl.compressed) + 1,
        );
        let mut lz4_gap = false;
        if table.format() == TableFormat::Lz4 {
            let [a, b] = [table.entries()[0], table.entries()[1]];
            lz4_gap = a.compressed_end() < b.compressed_offset;
        }
        if !lz4_gap {
            let msg = open_fails(&f, what);
            assert!(
                msg.contains("add up")
                    || msg.contains("overlaps")
                    || msg.contains("past the start"),
                "{what}: {msg}"
            );
        }
        // One byte moved from the second frame to the first (LZ4 entries
        // name their offsets: the second starts a byte later): the table
        // holds, the two entries do not decode.
        let mut f = file.clone();
        put32(
            &mut f,
            e0 + fl.compressed,
            get32(file, e0 + fl.compressed) + 1,
        );
        put32(
            &mut f,
            e1 + fl.compressed,
            get32(file, e1 + fl.compressed) - 1,
        );
        if table.format() == TableFormat::Lz4 {
            let offset = table.entries()[1].compressed_offset + 1;
            f[e1..e1 + 8].copy_from_slice(&offset.to_le_bytes());
        }
        let r = SeekableReader::open(sealed(&f)).unwrap();
        let t = r.table();
        for k in [0, 1] {
            let at = t.entries()[k].decompressed_offset;
            // (A read checks the entries before the one it reads too.)
            let e = r.read_at(at, &mut [0u8; 1]).unwrap_err();
            assert!(
                names_entry(&e, k) || names_entry(&e, 0),
                "{what}: entry {k}: {e}"
            );
        }
        // Entry 2's content is placed by entry 1's size, which no longer
        // agrees with its frame: reading it is an error too.
        let e = r
            .read_at(t.entries()[2].decompressed_offset, &mut [0u8; 10])
            .unwrap_err();
        assert!(
            names_entry(&e, 1) || names_entry(&e, 0),
            "{what}: entry 2: {e}"
        );
        let e = r.decode_all(io::sink(), 2).unwrap_err();
        assert!(names_entry(&e, 0), "{what}: decode_all: {e}");

        // A decoded size one byte more or less than the entry's.
        for delta in [1i64, -1] {
            let k = table.len() - 1;
            let ek = entry_at(file, &table, k);
            let mut f = file.clone();
            let size = get32(file, ek + fl.decompressed);
            put32(&mut f, ek + fl.decompressed, (size as i64 + delta) as u32);
            let r = SeekableReader::open(sealed(&f)).unwrap();
            assert_eq!(r.len(), (orig.len() as i64 + delta) as u64, "{what}");
            let e = r.read_at(r.len() - 1, &mut [0u8; 1]).unwrap_err();
            assert!(names_entry(&e, k), "{what}: {e}");
            check_read(&r, orig, 0, 100, what);
            let e = r.decode_all(io::sink(), 1).unwrap_err();
            assert!(names_entry(&e, k), "{what}: decode_all: {e}");
        }
    }
}

#[test]
fn impossible_sizes_and_offsets_are_refused() {
    for (file, _, what) in table_files() {
        let table = SeekTable::read_from(&file[..], file.len() as u64)
            .unwrap()
            .unwrap();
        let fl = fields(table.format());
        let k = table.len() / 2;
        let ek = entry_at(file, &table, k);
        let csize = get32(file, ek + fl.compressed);
        let most = match table.format() {
            TableFormat::Lz4 => u64::from(csize) * 255 + 64,
            TableFormat::Zstd => u64::from(csize) * (32 << 10),
        }
        .min(MAX_ENTRY_SIZE);
        for claim in [u32::MAX, most as u32 + 1, (MAX_ENTRY_SIZE + 1) as u32] {
            let mut f = file.clone();
            put32(&mut f, ek + fl.decompressed, claim);
            let msg = open_fails(&f, &format!("{what}: decodes to {claim}"));
            assert!(msg.contains("decode"), "{what}: {msg}");
        }
        // The most a frame of that size can decode to is believed (and is
        // then found to be wrong when decoded), without a large allocation
        // when the claim is large (checked by the time it takes).
        let mut f = file.clone();
        put32(&mut f, ek + fl.decompressed, most as u32);
        let r = SeekableReader::open(sealed(&f)).unwrap();
        let at = r.table().entries()[k].decompressed_offset;
        let e = r.read_at(at, &mut [0u8; 10]).unwrap_err();
        assert!(names_entry(&e, k), "{what}: {e}");

        if table.format() == TableFormat::Lz4 {
            // An entry past the end of the data, past the file, before the
            // previous one.
            let data_end = table.compressed_end();
            for (offset, needle) in [
                (data_end, "past the start of the table"),
                (file.len() as u64, "past the start of the table"),
                (u64::MAX - 3, "past"),
                (0, "overlaps"),
            ] {
                let mut f = file.clone();
                let i = if offset == 0 { 1 } else { table.len() - 1 };
                let ei = entry_at(file, &table, i);
                f[ei..ei + 8].copy_from_slice(&offset.to_le_bytes());
                let msg = open_fails(&f, &format!("{what}: entry at {offset}"));
                assert!(msg.contains(needle), "{what}: {msg}");
            }
            // Unknown flags; a block checksum without a block.
            for flags in [0x04u8, 0x02, 0x80, 0xFF] {
                let mut f = file.clone();
                f[ek + fl.flags.unwrap()] = flags;
                let msg = open_fails(&f, &format!("{what}: flags {flags:#x}"));
                assert!(msg.contains("flags"), "{what}: {msg}");
            }
            // A frame taken for a block and a block for a frame: the table
            // disagrees with the file (found when it is read), or the entry
            // does not decode.
            let mut f = file.clone();
            let flags = &mut f[ek + fl.flags.unwrap()];
            *flags = u8::from(*flags == 0);
            match SeekableReader::open(sealed(&f)) {
                Err(e) => assert!(is_seek_table(&e), "{what}: {e}"),
                Ok(r) => {
                    let e = r.read_at(at, &mut [0u8; 10]).unwrap_err();
                    assert!(names_entry(&e, k), "{what}: {e}");
                }
            }
        }
        // Reserved descriptor bits.
        let n = file.len();
        for bit in [0x04u8, 0x08, 0x40] {
            let mut f = file.clone();
            f[n - 5] |= bit;
            let msg = open_fails(&f, &format!("{what}: descriptor bit {bit:#x}"));
            assert!(msg.contains("reserved"), "{what}: {msg}");
        }
        // The skippable frame's size.
        let start = n - table.encoded_len() as usize;
        let mut f = file.clone();
        put32(&mut f, start + 4, get32(file, start + 4) + 1);
        open_fails(&f, &format!("{what}: table frame size"));
    }
}

#[test]
fn wrong_checksums_are_found_unless_not_verified() {
    for (file, orig, what) in table_files() {
        let table = SeekTable::read_from(&file[..], file.len() as u64)
            .unwrap()
            .unwrap();
        if !table.has_checksums() {
            continue;
        }
        let fl = fields(table.format());
        // Skip empty entries (skippable frames have the checksum of nothing).
        let k = (table.len() / 3..table.len())
            .find(|&k| table.entries()[k].decompressed_size > 0)
            .unwrap();
        let ek = entry_at(file, &table, k);
        let mut f = file.clone();
        f[ek + fl.checksum + 2] ^= 0x10;
        let r = SeekableReader::open(sealed(&f)).unwrap();
        let e = &r.table().entries()[k];
        let err = r
            .read_at(e.decompressed_end() - 1, &mut [0u8; 1])
            .unwrap_err();
        assert!(is_seek_table(&err) && names_entry(&err, k), "{what}: {err}");
        assert!(err.to_string().contains("checksum"), "{what}: {err}");
        // Other entries read.
        check_read(&r, orig, 0, 1000, what);
        for t in [1, 2] {
            let err = r.decode_all(io::sink(), t).unwrap_err();
            assert!(names_entry(&err, k), "{what}: decode_all on {t}: {err}");
        }
        // Not verified: the data is still right (the table's checksums
        // are what was wrong).
        let r =
            SeekableReader::with_options(sealed(&f), ReaderOptions::new().verify_checksums(false))
                .unwrap();
        check_reads(&r, orig, &[], what);
        check_decode_all(&r, orig, &[1, 2], what);
    }
}

/// A hostile file (made from one with table `good`): open, reads and
/// `decode_all` give typed errors or the right bytes, never a panic.
///
/// What "right" can mean: with a table that has checksums (and was not
/// scanned), `decode_all` checks every entry, so if it succeeds it gives
/// the original. A read checks only the entries it decodes: if an edit
/// changed the decoded size of another entry, the entries after it are
/// placed elsewhere in the content, and a read of them gives their own
/// (checked) bytes at the offsets the table says — so reads are compared
/// with the original only while the table places every entry where `good`
/// does. A scanned file, or one without checksums, has nothing to check
/// the data against and may decode to other bytes.
fn check_hostile(
    file: &[u8],
    orig: &[u8],
    good: &SeekTable,
    scan: bool,
    cache: usize,
    reads: &[(u64, usize)],
    what: &str,
) {
    let ropts = ReaderOptions::new().scan(scan).cache_entries(cache);
    let r = match SeekableReader::with_options(file, ropts) {
        Ok(r) => r,
        Err(e) => {
            assert!(typed(&e), "{what}: open: {e:?}");
            if !scan {
                assert!(
                    is_seek_table(&e) || is_not_seekable(&e),
                    "{what}: open: {e:?}"
                );
            }
            return;
        }
    };
    let strict = r.table().has_checksums() && !r.scanned();
    let placed = |t: &SeekTable| -> Vec<(u64, u32)> {
        t.entries()
            .iter()
            .map(|e| (e.decompressed_offset, e.decompressed_size))
            .collect()
    };
    let strict_reads = strict && placed(r.table()) == placed(good);
    let span = r.len().max(orig.len() as u64) + 10;
    for &(o, l) in reads {
        let o = o % span;
        let mut buf = vec![0u8; l];
        match r.read_at(o, &mut buf) {
            Ok(n) => {
                assert!(n <= l, "{what}");
                if strict_reads {
                    let w = want(orig, o, l);
                    assert!(
                        n <= w.len() && buf[..n] == w[..n],
                        "{what}: read_at({o}, {l}) gave other bytes"
                    );
                }
            }
            Err(e) => assert!(typed(&e), "{what}: read_at({o}, {l}): {e:?}"),
        }
    }
    if r.len() > 64 << 20 {
        return;
    }
    let mut one = Vec::new();
    let mut two = Vec::new();
    match (r.decode_all(&mut one, 1), r.decode_all(&mut two, 2)) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{what}");
            assert!(one == two, "{what}: decode_all on 1 and 2 threads differ");
            if strict {
                assert_same(&one, orig, &format!("{what}: decode_all"));
            }
            // Everything decodes: so does every read.
            let mut all = vec![0u8; one.len()];
            assert_eq!(r.read_at(0, &mut all).unwrap(), one.len(), "{what}");
            assert!(all == one, "{what}: read_at and decode_all differ");
        }
        (Err(a), Err(b)) => {
            assert!(typed(&a), "{what}: decode_all: {a:?}");
            assert_eq!(a.to_string(), b.to_string(), "{what}: decode_all's errors");
        }
        (a, b) => panic!(
            "{what}: decode_all on 1 thread: {:?}, on 2: {:?}",
            a.err(),
            b.err()
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn hostile_edits_give_errors_or_the_right_bytes(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec((0u8..5, any::<u32>(), 1u8..=255), 1..5),
        scan in any::<bool>(),
        cache in 1usize..4,
        reads in prop::collection::vec((any::<u64>(), 0usize..30_000), 1..8),
    ) {
        let files = table_files();
        let (file, orig, name) = &files[which.index(files.len())];
        let table = SeekTable::read_from(&file[..], file.len() as u64).unwrap().unwrap();
        let table_len = table.encoded_len() as usize;
        let mut f = file.clone();
        for &(region, pos, x) in &edits {
            let pos = pos as usize;
            let n = f.len();
            if n == 0 {
                break;
            }
            match region {
                // In the table (footer included).
                0 => { let at = n - 1 - pos % table_len.min(n); f[at] ^= x; }
                // In the footer.
                1 => { let at = n - 1 - pos % 9; f[at] ^= x; }
                // In the data.
                2 => { let at = pos % (n - table_len.min(n)).max(1); f[at] ^= x; }
                // Anywhere.
                3 => { let at = pos % n; f[at] ^= x; }
                // Cut or grown at the end.
                _ => {
                    if x % 2 == 0 { f.truncate(n - 1 - pos % n.min(64)); }
                    else { f.extend(std::iter::repeat_n(x, pos % 16)); }
                }
            }
        }
        let what = format!("{name}, edits {edits:?}");
        check_hostile(&f, orig, &table, scan, cache, &reads, &what);
    }
}

/// A zstd entry that starts like a skippable frame whose size field says
/// 4 GiB: an error (on 32-bit targets too, where the size plus its header
/// does not fit a `usize`), whether the entry is read or decoded with the
/// rest.
#[test]
fn a_skippable_frame_claiming_4_gib_in_a_zstd_entry_is_an_error() {
    let data = text(5000, 141);
    let file = zstd_ref::compress(&data, &Settings::new(3), None);
    let first = file.len() as u32;
    for size in [u32::MAX, u32::MAX - 7, 1000] {
        let mut f = file.clone();
        f.extend_from_slice(&0x184D_2A53u32.to_le_bytes());
        f.extend_from_slice(&size.to_le_bytes());
        f.extend_from_slice(&[0u8; 4]);
        let mut t = SeekTable::new(TableFormat::Zstd, false);
        t.push_frame(0, first, data.len() as u32, None).unwrap();
        t.push_frame(u64::from(first), 12, 0, None).unwrap();
        f.extend(t.to_bytes());
        // The table is checked against the frame when it is read.
        let e = SeekableReader::open(&f[..]).err().unwrap();
        assert!(names_entry(&e, 1), "size {size}: {e}");
    }
}

// ---------------------------------------------------------------------------
// Threads.
// ---------------------------------------------------------------------------

/// Four threads reading one reader at random, each read compared with the
/// original.
fn read_from_threads<S: ReadAt + Sync>(r: &SeekableReader<S>, orig: &[u8], what: &str) {
    std::thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || {
                let mut rng = Rng::for_data(1000 + t);
                for _ in 0..300 {
                    let o = rng.index(orig.len() + 100) as u64;
                    let l = if rng.odds(1, 10) {
                        rng.index(200_000)
                    } else {
                        rng.index(5000)
                    };
                    check_read(r, orig, o, l, &format!("{what}: thread {t}"));
                }
            });
        }
    });
}

#[test]
fn threads_share_one_reader() {
    let data = column(2 << 20, 121);
    #[cfg_attr(not(feature = "zstd-compress"), allow(unused_mut))]
    let mut files = vec![(
        seekable::compress(
            &data,
            &WriteOptions::lz4(FrameOptions::new()).chunk_size(16 << 10),
        )
        .unwrap(),
        "LZ4",
    )];
    #[cfg(feature = "zstd-compress")]
    files.push((
        seekable::compress(
            &data,
            &WriteOptions::zstd(lzkit::zstd::FrameOptions::new().level(1)).chunk_size(16 << 10),
        )
        .unwrap(),
        "zstd",
    ));
    for (file, what) in &files {
        let tmp = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(tmp.path(), file).unwrap();
        let f = std::fs::File::open(tmp.path()).unwrap();
        for cache in [1, 3] {
            let r = SeekableReader::with_options(
                &f,
                ReaderOptions::new().scan(false).cache_entries(cache),
            )
            .unwrap();
            read_from_threads(&r, &data, &format!("{what} over a file, cache {cache}"));
        }
        let r = SeekableReader::from_reader(Cursor::new(file.clone())).unwrap();
        read_from_threads(&r, &data, &format!("{what} over a locked Cursor"));
        let r = SeekableReader::open(Locked::new(Cursor::new(file.clone()))).unwrap();
        check_decode_all(&r, &data, &[1, 4], what);
    }
}

#[test]
fn decode_all_on_any_number_of_threads() {
    let data = column(3 << 20, 131);
    #[cfg_attr(not(feature = "zstd-compress"), allow(unused_mut))]
    let mut files = vec![
        (
            seekable::compress(
                &data,
                &WriteOptions::lz4(FrameOptions::new()).chunk_size(64 << 10),
            )
            .unwrap(),
            "LZ4, 64 KiB chunks",
        ),
        (
            // Many entries to a job.
            seekable::compress(
                &data[..400_000],
                &WriteOptions::lz4(FrameOptions::new()).chunk_size(1000),
            )
            .unwrap(),
            "LZ4, 1000-byte chunks",
        ),
    ];
    #[cfg(feature = "zstd-compress")]
    files.push((
        seekable::compress(
            &data,
            &WriteOptions::zstd(lzkit::zstd::FrameOptions::new().level(1)).chunk_size(100_000),
        )
        .unwrap(),
        "zstd, 100 KB chunks",
    ));
    for (file, what) in &files {
        let r = SeekableReader::open(&file[..]).unwrap();
        let orig = &data[..r.len() as usize];
        check_decode_all(&r, orig, &[1, 2, 4], what);

        // Two corrupt entries: every thread count names the first.
        let n = r.table().len();
        let (k, k2) = (n / 2, n / 2 + 7);
        let mut f = file.clone();
        for i in [k, k2] {
            let e = r.table().entries()[i];
            let mid = (e.compressed_offset + u64::from(e.compressed_size) / 2) as usize;
            f[mid] ^= 0x55;
            f[mid + 1] ^= 0xAA;
        }
        let bad = SeekableReader::open(&f[..]).unwrap();
        for t in [1, 2, 4] {
            let mut out = Vec::new();
            let e = bad.decode_all(&mut out, t).unwrap_err();
            assert!(names_entry(&e, k), "{what}, {t} threads: {e}");
            assert!(out.len() <= r.table().entries()[k].decompressed_offset as usize);
            assert!(out[..] == orig[..out.len()], "{what}: before the error");
        }
        let at = r.table().entries()[k2].decompressed_offset + 5;
        let e = bad.read_at(at, &mut [0u8; 10]).unwrap_err();
        assert!(names_entry(&e, k2), "{what}: read_at: {e}");
    }
    // Entries that point inside frames (build_table's blocks).
    let lz4 = frame::compress(&data, &FrameOptions::new().block_size(BlockSize::Max64KB));
    let table = seekable::build_table(&lz4[..], lz4.len() as u64, false).unwrap();
    let r = SeekableReader::with_table(&lz4[..], table, true, ReaderOptions::new());
    check_decode_all(&r, &data, &[1, 2, 4], "LZ4 blocks");
}

// ---------------------------------------------------------------------------
// The table itself.
// ---------------------------------------------------------------------------

#[test]
fn tables_find_entries_and_round_trip() {
    let mut t = SeekTable::new(TableFormat::Lz4, false);
    t.push_frame(0, 100, 1000, None).unwrap();
    t.push(
        150,
        30,
        0,
        None,
        EntryKind::Lz4Block {
            block_checksum: false,
        },
    )
    .unwrap();
    t.push(
        180,
        40,
        500,
        None,
        EntryKind::Lz4Block {
            block_checksum: true,
        },
    )
    .unwrap();
    assert_eq!(t.decompressed_size(), 1500);
    assert_eq!(t.max_entry_size(), 1000);
    assert_eq!(t.find(0), Some(0));
    assert_eq!(t.find(999), Some(0));
    // The empty entry is never found.
    assert_eq!(t.find(1000), Some(2));
    assert_eq!(t.find(1499), Some(2));
    assert_eq!(t.find(1500), None);
    assert_eq!(t.find(u64::MAX), None);
    assert!(!t.is_contiguous());
    // Over zeros where its frames should be, the table is refused: it is
    // checked against the file it describes.
    let mut file = vec![0u8; 220];
    file.extend(t.to_bytes());
    let e = SeekTable::read_from(&file[..], file.len() as u64).unwrap_err();
    assert!(e.to_string().contains("does not describe this file"), "{e}");
    // Checksums must be all or none; zstd frames follow each other; no
    // blocks in zstd tables; no overlaps.
    assert!(t.push_frame(300, 1, 1, Some(5)).is_err());
    assert!(t.push_frame(219, 1, 1, None).is_err());
    let mut z = SeekTable::new(TableFormat::Zstd, true);
    z.push_frame(0, 10, 100, Some(1)).unwrap();
    assert!(z.push_frame(11, 10, 100, Some(1)).is_err());
    assert!(z.push_frame(10, 10, 100, None).is_err());
    assert!(
        z.push(
            10,
            10,
            100,
            Some(1),
            EntryKind::Lz4Block {
                block_checksum: false
            }
        )
        .is_err()
    );
    assert_eq!(SeekTable::read_from(&[0u8; 16][..], 16).unwrap(), None);
}

/// A writer that fails (or panics) after some writes stops `decode_all`'s
/// workers: the call returns the error (or re-raises the panic) instead of
/// waiting for workers that wait for room.
#[test]
fn decode_all_stops_when_its_writer_fails_or_panics() {
    struct Failing {
        writes: usize,
        panic: bool,
    }
    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes += 1;
            if self.writes > 2 {
                if self.panic {
                    panic!("the writer panics");
                }
                return Err(io::Error::other("disk full"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let data = column(24 << 20, 7);
    let opts = FrameOptions::new();
    let file = seekable::compress(&data, &WriteOptions::lz4(opts).chunk_size(256 << 10)).unwrap();
    for panic in [false, true] {
        let file = file.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r = SeekableReader::open(&file[..]).unwrap();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                r.decode_all(Failing { writes: 0, panic }, 2)
            }));
            let _ = tx.send(match result {
                Ok(Ok(_)) => "finished",
                Ok(Err(_)) => "error",
                Err(_) => "panic",
            });
        });
        let got = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("decode_all hung after its writer stopped");
        assert_eq!(got, if panic { "panic" } else { "error" });
    }
}
