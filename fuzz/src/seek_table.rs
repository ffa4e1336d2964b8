//! The `seek_table` target's case: a valid seekable file (built as the
//! `seekable_read` target builds one) whose table is replaced by a
//! *valid-looking* one: its entries edited as an attacker would (left out,
//! resized, moved, merged, turned from frames into blocks), checksums
//! recomputed over the bytes the entries now point at (LZ4 tables),
//! dropped, or kept, and the table written anew (its own checksum right).
//! The frames are never touched: the truth is their content.
//!
//! Input layout:
//!
//! | bytes | field |
//! |-------|-------|
//! | 0     | build flags (as `seekable_read`'s byte 26) |
//! | 1-2   | chunk size - 1 (u16) |
//! | 3     | level |
//! | 4     | checksums: 0 keep, 1 recompute (LZ4) / keep (zstd), 2 drop, 3 keep |
//! | 5     | table edits (low 3 bits, at most [`EDITS`]) |
//! | 6-61  | [`EDITS`] edits: operation (u8), entry (u16), value (u32) |
//! | 62-85 | four reads: offset (u32, modulo the content length + 16), length (u16) |
//! | 86..  | the content (at most [`MAX_BODY`] bytes) |
//!
//! Checks ([`TableCase::check`]): opening gives a typed error or a reader;
//! `decode_all` gives the content or an error (never other bytes); a read
//! gives the content's bytes or an error wherever the table places the
//! entries up to the read as the true table does; where it places them
//! otherwise and the frames state their sizes (lzkit's LZ4 writer, zstd
//! frames with a content size), a read is an error, but for one case:
//! an entry before the read that stands for several frames with the first
//! one's size (its header is right). Where frames do not state their sizes
//! (LZ4 blocks, zstd frames without one), and in that case, a read far
//! from the misplaced entry is not decoded and cannot be checked without
//! decoding everything before it: only a typed error or no error is
//! required there (documented in `lzkit::seekable`).

use crate::ctl::{Ctl, CtlWriter};
use crate::seekable::{build, typed};
use lzkit::seekable::{Entry, EntryKind, ReaderOptions, SeekTable, SeekableReader, TableFormat};
use xxhash_rust::xxh64::xxh64;

/// The most content a case compresses.
pub const MAX_BODY: usize = 128 << 10;
/// Table edits a case has room for.
pub const EDITS: usize = 7;

/// A parsed input.
pub struct TableCase<'a> {
    flags: u8,
    chunk: u16,
    level: u8,
    checksums: u8,
    edits: Vec<(u8, u16, u32)>,
    reads: [(u32, u16); 4],
    body: &'a [u8],
}

impl<'a> TableCase<'a> {
    /// Read a case from a fuzz input (any input is one).
    pub fn parse(input: &'a [u8]) -> Self {
        let mut c = Ctl::new(input);
        let flags = c.u8();
        let chunk = c.u16();
        let level = c.u8();
        let checksums = c.u8() & 3;
        let count = usize::from(c.u8() & 7).min(EDITS);
        let all: Vec<(u8, u16, u32)> = (0..EDITS).map(|_| (c.u8(), c.u16(), c.u32())).collect();
        let reads = [(); 4].map(|()| (c.u32(), c.u16()));
        let body = c.rest();
        TableCase {
            flags,
            chunk,
            level,
            checksums,
            edits: all[..count].to_vec(),
            reads,
            body: &body[..body.len().min(MAX_BODY)],
        }
    }

    /// A case (for seeds).
    pub fn encode(
        flags: u8,
        chunk: u16,
        level: u8,
        checksums: u8,
        edits: &[(u8, u16, u32)],
        reads: &[(u32, u16); 4],
        body: &[u8],
    ) -> Vec<u8> {
        let mut w = CtlWriter::default();
        w.u8(flags)
            .u16(chunk)
            .u8(level)
            .u8(checksums)
            .u8(edits.len() as u8);
        for i in 0..EDITS {
            let (op, entry, value) = edits.get(i).copied().unwrap_or_default();
            w.u8(op).u16(entry).u32(value);
        }
        for &(offset, len) in reads {
            w.u32(offset).u16(len);
        }
        w.bytes(body);
        w.out
    }

    /// Build, craft, read, check.
    pub fn check(&self) {
        // At most 64 chunks: building hundreds of libzstd frames of a few
        // bytes at level 19 under the sanitizer takes longer than the
        // fuzzer's time limit, and says nothing more about tables.
        let chunk = self.chunk.max((self.body.len() / 64) as u16);
        let (file, table) = build(self.flags, chunk, self.level, self.body);
        let data = &file[..file.len() - table.encoded_len() as usize];
        let Some(crafted) = self.craft(&table, data) else {
            return;
        };
        let mut f = data.to_vec();
        f.extend(crafted.to_bytes());
        check_crafted(&f, &table, self.stated(), self.body, &self.reads);
    }

    /// Whether every frame of the file states its decoded size in its
    /// header: lzkit's LZ4 writer, zstd frames with a content size.
    fn stated(&self) -> bool {
        let zstd = self.flags & 0x01 != 0;
        if zstd {
            self.flags & 0x08 == 0
        } else {
            self.flags & 0x80 == 0
        }
    }

    /// The true table's entries edited (see the layout), as a new table;
    /// `None` if the edits make a table [`SeekTable::push`] refuses.
    fn craft(&self, table: &SeekTable, data: &[u8]) -> Option<SeekTable> {
        let mut entries: Vec<Entry> = table.entries().to_vec();
        for &(op, at, value) in &self.edits {
            if entries.is_empty() {
                break;
            }
            let i = usize::from(at) % entries.len();
            let small = (value as i8) as i64;
            let e = &mut entries[i];
            match op % 10 {
                0 => {
                    entries.remove(i);
                }
                1 => e.decompressed_size = value,
                2 => e.decompressed_size = (i64::from(e.decompressed_size) + small).max(0) as u32,
                3 => e.compressed_size = value,
                4 => e.compressed_size = (i64::from(e.compressed_size) + small).max(0) as u32,
                5 => e.compressed_offset = u64::from(value) % (data.len() as u64 + 1),
                6 => e.compressed_offset = (e.compressed_offset as i64 + small).max(0) as u64,
                7 => {
                    e.kind = match e.kind {
                        EntryKind::Frame => EntryKind::Lz4Block {
                            block_checksum: value & 1 != 0,
                        },
                        EntryKind::Lz4Block { .. } => EntryKind::Frame,
                    }
                }
                8 => {
                    if i + 1 < entries.len() {
                        let next = entries.remove(i + 1);
                        let e = &mut entries[i];
                        e.compressed_size = (next.compressed_end() - e.compressed_offset) as u32;
                        e.decompressed_size += next.decompressed_size;
                    }
                }
                _ => {
                    let copy = *e;
                    entries.insert(i + 1, copy);
                }
            }
        }
        let lz4 = table.format() == TableFormat::Lz4;
        let with_sums = match self.checksums {
            2 => false,
            _ => table.has_checksums(),
        };
        let mut out = SeekTable::new(table.format(), with_sums);
        for e in entries {
            let sum = match (with_sums, self.checksums, lz4) {
                (false, _, _) => None,
                // An attacker recomputes what a table's checksum covers
                // where it can: an LZ4 entry's bytes in the file.
                (true, 1, true) => {
                    let bytes = data.get(
                        usize::try_from(e.compressed_offset).ok()?
                            ..usize::try_from(e.compressed_end()).ok()?,
                    )?;
                    Some(xxh64(bytes, 0) as u32)
                }
                (true, _, _) => Some(e.checksum.unwrap_or(0)),
            };
            let kind = if lz4 { e.kind } else { EntryKind::Frame };
            out.push(
                e.compressed_offset,
                e.compressed_size,
                e.decompressed_size,
                sum,
                kind,
            )
            .ok()?;
        }
        Some(out)
    }
}

/// The entries of `crafted` that place content before `end` (entries that
/// decode to nothing place nothing; they are checked when the table is
/// read).
fn placing(crafted: &SeekTable, end: u64) -> impl Iterator<Item = &Entry> {
    crafted
        .entries()
        .iter()
        .filter(move |e| e.decompressed_offset < end && e.decompressed_size > 0)
}

/// Whether `crafted` places every entry that starts before `end` (in the
/// content) where `truth` places the same frame or block.
fn placed_as_true(crafted: &SeekTable, truth: &SeekTable, end: u64) -> bool {
    placing(crafted, end).all(|e| {
        truth.entries().iter().any(|t| {
            t.compressed_offset == e.compressed_offset
                && t.compressed_size == e.compressed_size
                && t.decompressed_offset == e.decompressed_offset
                && t.decompressed_size == e.decompressed_size
                && t.kind == e.kind
        })
    })
}

/// Whether an entry of `crafted` that starts before `end` spans the start
/// of another frame (or block) of `truth`: one entry standing for several
/// units, with the first one's size. Headers cannot show it (the first
/// unit's header is right); only decoding the entry does, which a read
/// does for the entries it reads and `decode_all` for all.
fn spans_units(crafted: &SeekTable, truth: &SeekTable, end: u64) -> bool {
    placing(crafted, end).any(|e| {
        truth.entries().iter().any(|t| {
            t.compressed_offset > e.compressed_offset
                && t.compressed_offset < e.compressed_end()
                && t.decompressed_size > 0
        })
    })
}

/// Open `file` (whose table was crafted from `truth`) and read it: see the
/// module's checks.
fn check_crafted(
    file: &[u8],
    truth: &SeekTable,
    stated: bool,
    body: &[u8],
    reads: &[(u32, u16); 4],
) {
    let opts = ReaderOptions::new().scan(false);
    let r = match SeekableReader::with_options(file, opts) {
        Ok(r) => r,
        Err(e) => {
            assert!(typed(&e), "open: {e:?}");
            return;
        }
    };
    for t in [1, 2] {
        let mut out = Vec::new();
        match r.decode_all(&mut out, t) {
            Ok(n) => {
                assert_eq!(n, out.len() as u64);
                assert!(
                    out == body,
                    "decode_all on {t} threads of a crafted table gives other bytes ({} of {})",
                    out.len(),
                    body.len()
                );
            }
            Err(e) => assert!(typed(&e), "decode_all: {e:?}"),
        }
    }
    for &(offset, len) in reads {
        let o = u64::from(offset) % (r.len() + 16);
        let mut buf = vec![0u8; usize::from(len)];
        let res = r.read_at(o, &mut buf);
        let end = o.saturating_add(u64::from(len)).min(r.len());
        let true_place = placed_as_true(r.table(), truth, end.max(o + 1));
        match res {
            Ok(n) => {
                if true_place {
                    let start = (o as usize).min(body.len());
                    let stop = start.saturating_add(n).min(body.len());
                    assert!(
                        n == stop - start && buf[..n] == body[start..stop],
                        "read_at({o}, {len}) through a crafted table gives other bytes"
                    );
                } else if stated && n > 0 && !spans_units(r.table(), truth, end.max(o + 1)) {
                    panic!(
                        "read_at({o}, {len}) succeeds through a table that misplaces the entries before it, in a file whose frames state their sizes:\ncrafted {:?}\ntrue {:?}",
                        r.table().entries(),
                        truth.entries()
                    );
                }
            }
            Err(e) => assert!(typed(&e), "read_at({o}): {e:?}"),
        }
    }
}
