//! A seek table is an index, never the truth (issue 31, items 1, 2, 6, 7
//! and 8): tables that disagree with the frames of their file are refused
//! when they are read, reads check the entries that place their content,
//! claims of sizes are never read or allocated before the data backs
//! them, and `decode_all` holds a bounded number of bytes in flight.
//!
//! Every table here is crafted the way an attacker would: with its checksum
//! recomputed (it is written by [`SeekTable::to_bytes`]).

use lzkit::Error;
use lzkit::lz4::frame::{self, FrameOptions};
use lzkit::seekable::{
    self, EntryKind, ReadAt, ReaderOptions, SeekTable, SeekableReader, TableFormat, WriteOptions,
};
use lzkit_testkit::text;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// 6,000,000 bytes of prose.
fn content() -> Vec<u8> {
    text(6_000_000, 31)
}

/// A seekable LZ4 file of `data` in 64 KiB chunks, and its table.
fn seekable_lz4(data: &[u8]) -> (Vec<u8>, SeekTable) {
    let file = seekable::compress(
        data,
        &WriteOptions::lz4(FrameOptions::new()).chunk_size(64 << 10),
    )
    .unwrap();
    let table = SeekTable::read_from(&file[..], file.len() as u64)
        .unwrap()
        .unwrap();
    (file, table)
}

/// `file` with its own table (`old`) replaced by `table`.
fn retabled(file: &[u8], old: &SeekTable, table: &SeekTable) -> Vec<u8> {
    let mut f = file[..file.len() - old.encoded_len() as usize].to_vec();
    f.extend(table.to_bytes());
    f
}

/// A copy of `t`'s entries, entry `i` changed by `edit` (or left out when
/// `edit` returns `None`).
fn edited(
    t: &SeekTable,
    mut edit: impl FnMut(usize, seekable::Entry) -> Option<seekable::Entry>,
) -> SeekTable {
    let mut out = SeekTable::new(t.format(), t.has_checksums());
    for (i, e) in t.entries().iter().enumerate() {
        if let Some(e) = edit(i, *e) {
            out.push(
                e.compressed_offset,
                e.compressed_size,
                e.decompressed_size,
                e.checksum,
                e.kind,
            )
            .unwrap();
        }
    }
    out
}

fn is_seek_table(e: &Error) -> bool {
    matches!(e, Error::SeekTable { .. })
}

/// Item 1: a table of no entries over a file of 6,000,000 bytes described
/// it as empty: `decode_all` wrote nothing and reported success.
#[test]
fn an_empty_table_over_data_is_refused() {
    let data = content();
    for blocks in [false, true] {
        let opts = FrameOptions::new().block_size(frame::BlockSize::Max64KB);
        let opts = if blocks {
            opts.block_mode(frame::BlockMode::Independent)
        } else {
            opts
        };
        let file = frame::compress(&data, &opts);
        for checksums in [false, true] {
            let mut f = file.clone();
            f.extend(SeekTable::new(TableFormat::Lz4, checksums).to_bytes());
            let e = SeekTable::read_from(&f[..], f.len() as u64).unwrap_err();
            assert!(is_seek_table(&e), "{e}");
            assert!(e.to_string().contains("leaves out"), "{e}");
            let e = SeekableReader::open(&f[..]).err().expect("refused");
            assert!(is_seek_table(&e), "{e}");
            // The data itself decodes, as `lz4 -d` decodes it.
            assert_eq!(frame::decompress(&f).unwrap(), data);
        }
    }
    // zstd tables of no entries were refused already (their sizes must add
    // up to the table's offset).
}

/// Item 2: a table listing only the last frame gave the last frame's bytes
/// for offset 0; a table with one entry claiming to decode to nothing
/// skipped that frame's bytes in every read.
#[test]
fn tables_that_leave_out_frames_are_refused() {
    let data = content();
    let (file, table) = seekable_lz4(&data);
    let last = table.len() - 1;
    let cases: [(&str, SeekTable); 4] = [
        (
            "only the last frame",
            edited(&table, |i, e| (i == last).then_some(e)),
        ),
        (
            "the first frame left out",
            edited(&table, |i, e| (i > 0).then_some(e)),
        ),
        (
            "a middle frame left out",
            edited(&table, |i, e| (i != 40).then_some(e)),
        ),
        (
            "one entry decoding to nothing",
            edited(&table, |i, mut e| {
                if i == 7 {
                    e.decompressed_size = 0;
                }
                Some(e)
            }),
        ),
    ];
    for (what, t) in cases {
        let f = retabled(&file, &table, &t);
        let e = SeekTable::read_from(&f[..], f.len() as u64).unwrap_err();
        assert!(is_seek_table(&e), "{what}: {e}");
        assert!(SeekableReader::open(&f[..]).is_err(), "{what}");
    }
}

/// Item 2, the decoded side: entry 3 claims 100 bytes fewer than its frame
/// holds. A read of entry 10 (whose content that claim places) checks the
/// entries before it and is an error, not bytes from the wrong place.
#[test]
fn a_misstated_size_before_the_read_is_an_error() {
    let data = content();
    let (file, table) = seekable_lz4(&data);
    let t = edited(&table, |i, mut e| {
        if i == 3 {
            e.decompressed_size -= 100;
        }
        Some(e)
    });
    let f = retabled(&file, &table, &t);
    let r = SeekableReader::open(&f[..]).unwrap();
    let at = r.table().entries()[10].decompressed_offset;
    let e = r.read_at(at, &mut [0u8; 64]).unwrap_err();
    assert!(e.to_string().contains("entry 3 "), "{e}");
    // So is a full decode.
    assert!(r.decode_all(io::sink(), 2).is_err());
    // Reads before it are right.
    let mut buf = [0u8; 64];
    assert_eq!(r.read_at(1000, &mut buf).unwrap(), 64);
    assert_eq!(&buf[..], &data[1000..1064]);
}

/// A source of `len` bytes that are zero but for `head` at byte 0 and
/// `tail` at the end (a sparse file), counting the bytes read.
struct Sparse {
    len: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    read: AtomicU64,
}

impl ReadAt for Sparse {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "past the end"))?;
        self.read.fetch_add(buf.len() as u64, Ordering::Relaxed);
        let tail_start = self.len - self.tail.len() as u64;
        for (i, b) in buf.iter_mut().enumerate() {
            let at = offset + i as u64;
            *b = if at < self.head.len() as u64 {
                self.head[at as usize]
            } else if at >= tail_start {
                self.tail[(at - tail_start) as usize]
            } else {
                0
            };
        }
        let _ = end;
        Ok(())
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.len)
    }
}

/// Item 6: a 3 GB file that is all a zstd seek table of empty entries
/// (sparse: it costs nothing on disk) took gigabytes before it was refused;
/// a real table over the memory limit is refused by its count.
#[test]
fn a_table_of_millions_of_empty_entries_is_refused_by_its_count() {
    let count: u32 = 375_000_000;
    let entries_len = u64::from(count) * 8;
    let mut tail = Vec::new();
    tail.extend_from_slice(&u32::from_le_bytes(*b"^*M\x18").to_le_bytes());
    tail.extend_from_slice(&((entries_len + 9) as u32).to_le_bytes());
    let mut footer = Vec::new();
    footer.extend_from_slice(&count.to_le_bytes());
    footer.push(0);
    footer.extend_from_slice(&seekable::ZSTD_FOOTER_MAGIC.to_le_bytes());
    let len = 8 + entries_len + 9;
    // The skippable header sits at byte 0 (the whole file is the table).
    let src = Sparse {
        len,
        head: tail,
        tail: footer,
        read: AtomicU64::new(0),
    };
    let e = SeekTable::read_from(&src, len).unwrap_err();
    assert!(is_seek_table(&e), "{e}");
    assert!(src.read.load(Ordering::Relaxed) < 1 << 20, "read too much");

    // A table the data could need, but whose entries take more memory than
    // the limit allows.
    let data = text(3 << 20, 7);
    let file = seekable::compress(
        &data,
        &WriteOptions::lz4(FrameOptions::new()).chunk_size(4096),
    )
    .unwrap();
    let n = file.len() as u64;
    let t = SeekTable::read_from(&file[..], n).unwrap().unwrap();
    let need = seekable::table_memory(t.len() as u64);
    let e = SeekTable::read_from_with_limit(&file[..], n, need - 1).unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    assert!(SeekTable::read_from_with_limit(&file[..], n, need).is_ok());
    let opts = ReaderOptions::new().memory_limit(need - 1);
    assert!(SeekableReader::with_options(&file[..], opts).is_err());
}

/// Item 7: an entry claiming 3 GB of compressed bytes in a sparse file was
/// read whole (2.9 GB, 50 s) before its magic number was checked.
#[test]
fn a_huge_entry_is_checked_before_it_is_read() {
    let comp: u32 = 3_000_000_000;
    let decoded: u32 = 1 << 30;
    let mut t = SeekTable::new(TableFormat::Lz4, false);
    t.push(0, comp, decoded, None, EntryKind::Frame).unwrap();
    let table = t.to_bytes();
    let len = u64::from(comp) + table.len() as u64;
    // Zeros where the frame should be: the magic number is wrong.
    let zeros = Sparse {
        len,
        head: Vec::new(),
        tail: table.clone(),
        read: AtomicU64::new(0),
    };
    // A real header claiming the size, then zeros.
    let mut header = Vec::new();
    let opts = FrameOptions::new().content_size(Some(u64::from(decoded)));
    let one = frame::compress(&[], &opts);
    header.extend_from_slice(&one[..one.len() - 4]); // no end mark
    let lying = Sparse {
        len,
        head: header,
        tail: table,
        read: AtomicU64::new(0),
    };
    for (what, src) in [("zeros", &zeros), ("a header, then zeros", &lying)] {
        let r = SeekableReader::open(src).unwrap();
        let e = r.read_at(0, &mut [0u8; 1]).unwrap_err();
        assert!(
            !matches!(e, Error::OutOfMemory { .. } | Error::Io(_)),
            "{what}: {e}"
        );
        let e = r.decode_all(io::sink(), 2).unwrap_err();
        assert!(
            !matches!(e, Error::OutOfMemory { .. } | Error::Io(_)),
            "{what}: {e}"
        );
        let read = src.read.load(Ordering::Relaxed);
        assert!(read < 16 << 20, "{what}: {read} bytes read");
    }
}

/// A source that counts the entries read whole (reads of more than 64
/// bytes: headers are read in fewer).
struct Counting<'a> {
    file: &'a [u8],
    entries: AtomicUsize,
}

impl ReadAt for Counting<'_> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if buf.len() > 64 {
            self.entries.fetch_add(1, Ordering::SeqCst);
        }
        self.file.read_exact_at(buf, offset)
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.file.len() as u64)
    }
}

/// A writer that stalls on its first write and notes how many entries the
/// decoders had read by then.
struct Stalling<'a> {
    src: &'a Counting<'a>,
    seen: Mutex<Option<usize>>,
}

impl Write for &Stalling<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut seen = self.seen.lock().unwrap();
        if seen.is_none() {
            std::thread::sleep(Duration::from_millis(300));
            *seen = Some(self.src.entries.load(Ordering::SeqCst));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Item 8: `decode_all` ran up to threads × 4 jobs ahead of its writer
/// whatever their size (8 entries of 1 GiB: 5.2 GB). With a memory limit
/// of 3 MiB and 1 MiB entries, a stalled writer lets at most three entries
/// be decoded ahead (the one it writes and what fits the limit).
#[test]
fn decode_all_holds_what_the_memory_limit_allows() {
    let data = text(40 << 20, 3);
    let file = seekable::compress(
        &data,
        &WriteOptions::lz4(FrameOptions::new()).chunk_size(1 << 20),
    )
    .unwrap();
    let src = Counting {
        file: &file,
        entries: AtomicUsize::new(0),
    };
    let opts = ReaderOptions::new().memory_limit(3 << 20);
    let r = SeekableReader::with_options(&src, opts).unwrap();
    let w = Stalling {
        src: &src,
        seen: Mutex::new(None),
    };
    let n = r.decode_all(&w, 4).unwrap();
    assert_eq!(n, data.len() as u64);
    let ahead = w.seen.lock().unwrap().unwrap();
    assert!(ahead <= 3, "{ahead} entries read while the writer stalled");
}

/// A review's finding: an empty zstd frame followed by a frame of data,
/// listed as one entry that decodes to nothing (the first frame's header
/// says 0): `-d` wrote nothing and `-d --rm` deleted the source.
#[test]
fn an_empty_zstd_entry_that_holds_frames_is_refused() {
    use lzkit_testkit::zstd_ref::{self, Settings};
    let data = text(100_000, 5);
    let empty = zstd_ref::compress(&[], &Settings::new(3), None);
    let full = zstd_ref::compress(&data, &Settings::new(3), None);
    let mut f = empty.clone();
    f.extend_from_slice(&full);
    let mut t = SeekTable::new(TableFormat::Zstd, false);
    t.push_frame(0, f.len() as u32, 0, None).unwrap();
    f.extend(t.to_bytes());
    // Refused: the entry is decoded when the table is read, and gives
    // more than nothing.
    let e = SeekTable::read_from(&f[..], f.len() as u64).unwrap_err();
    assert!(matches!(e, Error::Frame { index: 0, .. }), "{e}");
    assert!(SeekableReader::open(&f[..]).is_err());
    // An empty frame alone, and a skippable frame, are empty entries.
    let mut ok = empty.clone();
    let mut t = SeekTable::new(TableFormat::Zstd, false);
    t.push_frame(0, empty.len() as u32, 0, None).unwrap();
    let skip = lzkit_testkit::skippable_frame(3, b"abc");
    t.push_frame(empty.len() as u64, skip.len() as u32, 0, None)
        .unwrap();
    ok.extend_from_slice(&skip);
    ok.extend(t.to_bytes());
    assert!(SeekTable::read_from(&ok[..], ok.len() as u64).is_ok());
}

/// A review's finding: block entries that disagree with their frame's
/// header about block checksums (which moves every later block by four
/// bytes), and a block entry at a frame's end mark (after which the frame
/// stayed open), were accepted.
#[test]
fn block_entries_must_agree_with_their_frame() {
    let data = text(600_000, 9);
    let opts = FrameOptions::new()
        .block_size(frame::BlockSize::Max64KB)
        .block_mode(frame::BlockMode::Independent)
        .block_checksum(true);
    let file = frame::compress(&data, &opts);
    let table = seekable::build_table(&file[..], file.len() as u64, false).unwrap();
    assert!(table.len() > 5);
    let mut f = file.clone();
    f.extend(table.to_bytes());
    assert!(SeekTable::read_from(&f[..], f.len() as u64).is_ok());
    // Block 3 said to carry no checksum, four bytes shorter.
    let lie = edited(&table, |i, mut e| {
        if i == 3 {
            e.kind = EntryKind::Lz4Block {
                block_checksum: false,
            };
            e.compressed_size -= 4;
        }
        Some(e)
    });
    let bad = retabled(&f, &table, &lie);
    let e = SeekTable::read_from(&bad[..], bad.len() as u64).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    // An entry at the end mark, decoding to nothing.
    let last = *table.entries().last().unwrap();
    let mut t = edited(&table, |_, e| Some(e));
    t.push(
        last.compressed_end(),
        8,
        0,
        None,
        EntryKind::Lz4Block {
            block_checksum: true,
        },
    )
    .unwrap();
    let bad = retabled(&f, &table, &t);
    let e = SeekTable::read_from(&bad[..], bad.len() as u64).unwrap_err();
    assert!(e.to_string().contains("end mark"), "{e}");
}

/// A review's finding: `lzkit index` leaves out LZ4 frames that decode to
/// nothing, and the table was then refused when such a frame held a block
/// (a stored block of no bytes, as some encoders flush).
#[test]
fn a_table_may_leave_out_frames_whose_blocks_are_empty() {
    let data = text(200_000, 2);
    let opts = FrameOptions::new()
        .block_size(frame::BlockSize::Max64KB)
        .block_mode(frame::BlockMode::Independent);
    let mut file = frame::compress(&data, &opts);
    // A frame: header, a stored block of no bytes, the end mark.
    let empty = frame::compress(&[], &FrameOptions::new().content_checksum(false));
    let header = &empty[..empty.len() - 4];
    file.extend_from_slice(header);
    file.extend_from_slice(&0x8000_0000u32.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend(frame::compress(&data[..50_000], &opts));
    assert_eq!(
        frame::decompress_with(&file, &Default::default())
            .unwrap()
            .len(),
        250_000
    );
    let table = seekable::build_table(&file[..], file.len() as u64, true).unwrap();
    file.extend(table.to_bytes());
    let r = SeekableReader::open(&file[..]).unwrap();
    let mut out = Vec::new();
    r.decode_all(&mut out, 2).unwrap();
    assert_eq!(&out[..200_000], &data[..]);
}

/// A review's finding: a table that understates one entry's size ends the
/// content early, and a read past that end reported the end without
/// checking anything.
#[test]
fn a_read_past_an_understated_end_is_an_error() {
    let data = content();
    let (file, table) = seekable_lz4(&data);
    let t = edited(&table, |i, mut e| {
        if i == 9 {
            e.decompressed_size = 1;
        }
        Some(e)
    });
    let f = retabled(&file, &table, &t);
    let r = SeekableReader::open(&f[..]).unwrap();
    let past = r.len() + 10;
    assert!(r.read_at(past, &mut [0u8; 10]).is_err());
    assert!(r.copy_range(r.len() - 5, 100, &mut io::sink()).is_err());
}

/// A review's finding: an entry of 1 GiB of compressed bytes (plausible
/// for its size) was read whole before anything was decoded, whatever
/// the memory limit; entries over a quarter of the limit are decoded as
/// they are read.
#[test]
fn entries_over_the_memory_limit_are_read_as_they_are_decoded() {
    let comp: u32 = 1_140_000_000;
    let mut t = SeekTable::new(TableFormat::Lz4, false);
    t.push(0, comp, 1 << 30, None, EntryKind::Frame).unwrap();
    let table = t.to_bytes();
    let one = frame::compress(&[], &FrameOptions::new());
    let src = Sparse {
        len: u64::from(comp) + table.len() as u64,
        head: one[..one.len() - 4].to_vec(),
        tail: table,
        read: AtomicU64::new(0),
    };
    let opts = ReaderOptions::new().memory_limit(64 << 20);
    let r = SeekableReader::with_options(&src, opts).unwrap();
    let e = r.read_at(0, &mut [0u8; 1]).unwrap_err();
    assert!(!matches!(e, Error::OutOfMemory { .. }), "{e}");
    assert!(src.read.load(Ordering::Relaxed) < 16 << 20);
}
