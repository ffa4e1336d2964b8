//! The `seekable_read` target's case: seekable files (`lzkit::seekable`),
//! arbitrary or valid and edited, opened and read every way.
//!
//! Input layout ([`SeekCase::parse`], written by [`SeekCase::encode_raw`]
//! and [`SeekCase::encode_structured`]):
//!
//! | bytes | field |
//! |-------|-------|
//! | 0     | bit 0: structured (else raw) |
//! | 1-24  | four reads: offset (u32; bit 31 set: `2^64 - 1 - (low 8 bits)`, else modulo the content length + 16), length (u16) |
//! | 25    | decoded entries the reader keeps (low 2 bits, plus 1) |
//!
//! Raw: the rest is the file.
//!
//! Structured:
//!
//! | bytes | field |
//! |-------|-------|
//! | 26    | bit 0 zstd (else LZ4), 1 table checksums, 2 block checksums (LZ4) / frame checksums (zstd), 3 linked blocks (LZ4) / no content size (zstd), 4 content checksum (LZ4) / skippable frames between the frames (zstd), 5-6 block size (LZ4), 7 LZ4 through `build_table` (plain frames, then their table) |
//! | 27-28 | chunk size - 1 (u16; raised so that there are at most 512 chunks) |
//! | 29    | level (an index into [`LZ4_LEVELS`] / [`ZSTD_LEVELS`]) |
//! | 30    | edits (low 4 bits, at most [`EDITS`]) |
//! | 31-70 | [`EDITS`] edits: position (u32, modulo the file's length), XOR mask (u8) |
//! | 71..  | the body: the content (at most [`MAX_BODY`] bytes) |
//!
//! Checks ([`check_file`]): opening (with the table, or scanning the file
//! when it has none; and with scanning off) gives a typed error or a
//! reader; each read gives a typed error or as many bytes as it asked for,
//! fewer only at the end of the content; `decode_all` on 1 and 2 threads
//! agree (the same bytes, or the same error); when everything decodes,
//! reads give the same bytes; and a file without a table that the reader
//! scans decodes to what lzkit's ordinary decoder makes of it. A valid
//! file must read back as its content; an edited one, as far as its table
//! has checksums to check it by, too (see [`check_file`]).

use crate::ctl::{Ctl, CtlWriter};
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameOptions};
use lzkit::seekable::{self, ReaderOptions, SeekTable, SeekableReader, WriteOptions};
use lzkit::{Error, ZstdFrameFault};
use lzkit_testkit::zstd_check;
use lzkit_testkit::zstd_ref::{self, Settings};
use std::io::Read;

/// The most content a structured case compresses.
pub const MAX_BODY: usize = 256 << 10;
/// Edits a structured case has room for.
pub const EDITS: usize = 8;
/// The most content `decode_all`, and the scan of a file without a table,
/// may produce (a small file can claim, and hold, far more).
pub const MAX_OUTPUT: u64 = 32 << 20;
/// The largest entry the reads decode.
pub const MAX_ENTRY: u32 = 64 << 20;

/// LZ4 levels by the level field.
pub const LZ4_LEVELS: [i32; 6] = [-5, 0, 1, 3, 9, 12];
/// zstd levels by the level field.
pub const ZSTD_LEVELS: [i32; 6] = [-5, -1, 1, 3, 6, 19];

const BLOCK_SIZES: [BlockSize; 4] = [
    BlockSize::Max64KB,
    BlockSize::Max256KB,
    BlockSize::Max1MB,
    BlockSize::Max4MB,
];

/// One read: the offset field and the length.
#[derive(Clone, Copy, Debug)]
pub struct ReadField {
    /// See the layout.
    pub offset: u32,
    /// Bytes asked for.
    pub len: u16,
}

impl ReadField {
    /// The offset this field means for content of `len` bytes.
    fn offset(self, len: u64) -> u64 {
        if self.offset & 0x8000_0000 != 0 {
            u64::MAX - u64::from(self.offset & 0xFF)
        } else {
            u64::from(self.offset) % (len + 16)
        }
    }
}

/// A parsed input.
pub struct SeekCase<'a> {
    /// The reads.
    pub reads: [ReadField; 4],
    /// Decoded entries the reader keeps.
    pub cache: usize,
    /// The file (raw), or the structured fields.
    pub kind: CaseKind<'a>,
}

/// What follows the common fields.
pub enum CaseKind<'a> {
    /// The file itself.
    Raw(&'a [u8]),
    /// A file to build from `body`, then edit.
    Structured {
        /// Codec and options (see the layout).
        flags: u8,
        /// Chunk size field.
        chunk: u16,
        /// Level field.
        level: u8,
        /// The edits to make: (position, XOR mask).
        edits: Vec<(u32, u8)>,
        /// The content.
        body: &'a [u8],
    },
}

impl<'a> SeekCase<'a> {
    /// Read a case from a fuzz input (any input is one).
    pub fn parse(input: &'a [u8]) -> Self {
        let mut c = Ctl::new(input);
        let structured = c.u8() & 1 != 0;
        let reads = [(); 4].map(|()| ReadField {
            offset: c.u32(),
            len: c.u16(),
        });
        let cache = usize::from(c.u8() & 3) + 1;
        let kind = if structured {
            let flags = c.u8();
            let chunk = c.u16();
            let level = c.u8();
            let count = usize::from(c.u8() & 0x0F).min(EDITS);
            let all: Vec<(u32, u8)> = (0..EDITS).map(|_| (c.u32(), c.u8())).collect();
            let body = c.rest();
            CaseKind::Structured {
                flags,
                chunk,
                level,
                edits: all[..count].to_vec(),
                body: &body[..body.len().min(MAX_BODY)],
            }
        } else {
            CaseKind::Raw(c.rest())
        };
        SeekCase { reads, cache, kind }
    }

    fn encode_common(w: &mut CtlWriter, structured: bool, reads: &[(u32, u16); 4], cache: u8) {
        w.u8(u8::from(structured));
        for &(offset, len) in reads {
            w.u32(offset).u16(len);
        }
        w.u8(cache);
    }

    /// A raw case (for seeds).
    pub fn encode_raw(reads: &[(u32, u16); 4], cache: u8, file: &[u8]) -> Vec<u8> {
        let mut w = CtlWriter::default();
        Self::encode_common(&mut w, false, reads, cache);
        w.bytes(file);
        w.out
    }

    /// A structured case (for seeds).
    pub fn encode_structured(
        reads: &[(u32, u16); 4],
        cache: u8,
        flags: u8,
        chunk: u16,
        level: u8,
        edits: &[(u32, u8)],
        body: &[u8],
    ) -> Vec<u8> {
        let mut w = CtlWriter::default();
        Self::encode_common(&mut w, true, reads, cache);
        w.u8(flags).u16(chunk).u8(level).u8(edits.len() as u8);
        for i in 0..EDITS {
            let (pos, x) = edits.get(i).copied().unwrap_or_default();
            w.u32(pos).u8(x);
        }
        w.bytes(body);
        w.out
    }

    /// Run the checks.
    pub fn check(&self) {
        match &self.kind {
            CaseKind::Raw(file) => check_file(file, &self.reads, self.cache, None),
            CaseKind::Structured {
                flags,
                chunk,
                level,
                edits,
                body,
            } => {
                let (mut file, table) = build(*flags, *chunk, *level, body);
                check_valid(&file, &table, body, &self.reads);
                if edits.is_empty() {
                    return;
                }
                for &(pos, x) in edits {
                    let at = pos as usize % file.len();
                    file[at] ^= x;
                }
                check_file(&file, &self.reads, self.cache, Some((body, &table)));
            }
        }
    }
}

/// The seekable file of a structured case (before its edits), and its
/// table: what `flags`, `chunk` and `level` say (see the layout), of
/// `body`.
pub fn build(flags: u8, chunk: u16, level: u8, body: &[u8]) -> (Vec<u8>, SeekTable) {
    let checksums = flags & 0x02 != 0;
    let chunk = (usize::from(chunk) + 1).max(body.len().div_ceil(512));
    let level = usize::from(level);
    let mut file = if flags & 0x01 == 0 {
        let opts = FrameOptions::new()
            .level(LZ4_LEVELS[level % LZ4_LEVELS.len()])
            .block_size(BLOCK_SIZES[usize::from(flags >> 5) & 3])
            .block_mode(if flags & 0x08 != 0 {
                BlockMode::Linked
            } else {
                BlockMode::Independent
            })
            .block_checksum(flags & 0x04 != 0)
            .content_checksum(flags & 0x10 != 0);
        if flags & 0x80 == 0 {
            let w = WriteOptions::lz4(opts)
                .chunk_size(chunk)
                .checksums(checksums);
            let file = seekable::compress(body, &w).expect("lzkit's seekable LZ4 writer");
            let table = SeekTable::read_from(&file[..], file.len() as u64)
                .expect("the writer's table")
                .expect("a table");
            return (file, table);
        }
        // Plain frames of 64 KiB blocks (each frame a chunk, at least 1
        // KiB), indexed without rewriting.
        let opts = opts.block_size(BlockSize::Max64KB);
        let mut file = Vec::new();
        for piece in body.chunks(chunk.max(1024)) {
            file.extend(frame::compress(piece, &opts));
        }
        if body.is_empty() {
            file.extend(frame::compress(&[], &opts));
        }
        file
    } else {
        let s = Settings::new(ZSTD_LEVELS[level % ZSTD_LEVELS.len()])
            .checksum(flags & 0x04 != 0)
            .content_size(flags & 0x08 == 0);
        let mut file = Vec::new();
        for (k, piece) in body.chunks(chunk).enumerate() {
            file.extend(zstd_ref::compress(piece, &s, None));
            if flags & 0x10 != 0 {
                file.extend(lzkit_testkit::skippable_frame(
                    k as u8 & 0x0F,
                    &piece[..piece.len().min(7)],
                ));
            }
        }
        if body.is_empty() {
            file.extend(zstd_ref::compress(&[], &s, None));
        }
        file
    };
    let table = seekable::build_table(&file[..], file.len() as u64, checksums)
        .expect("build_table of valid frames");
    file.extend(table.to_bytes());
    (file, table)
}

/// A valid file reads back as `body`, every way.
fn check_valid(file: &[u8], table: &SeekTable, body: &[u8], reads: &[ReadField; 4]) {
    let r = SeekableReader::with_options(file, ReaderOptions::new().scan(false))
        .unwrap_or_else(|e| panic!("a valid file does not open: {e}"));
    assert!(r.table() == table, "the table read back differs");
    assert_eq!(r.len(), body.len() as u64);
    for t in [1, 2] {
        let mut out = Vec::new();
        r.decode_all(&mut out, t)
            .unwrap_or_else(|e| panic!("a valid file: decode_all on {t} threads: {e}"));
        assert!(
            out == body,
            "a valid file: decode_all on {t} threads gives other bytes"
        );
    }
    for read in reads {
        let o = read.offset(r.len());
        let mut buf = vec![0u8; usize::from(read.len)];
        let n = r
            .read_at(o, &mut buf)
            .unwrap_or_else(|e| panic!("a valid file: read_at({o}): {e}"));
        assert!(
            buf[..n] == *want(body, o, buf.len()),
            "a valid file: read_at({o}, {}) gives other bytes",
            buf.len()
        );
    }
}

/// The content's bytes `offset..offset + len`, cut at its end.
fn want(orig: &[u8], offset: u64, len: usize) -> &[u8] {
    let start = offset.min(orig.len() as u64) as usize;
    let end = start.saturating_add(len).min(orig.len());
    &orig[start..end]
}

/// Errors a reader may give for a corrupt file: format errors, never I/O
/// errors (everything it reads lies inside the file) nor failed
/// allocations.
pub(crate) fn typed(e: &Error) -> bool {
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

/// What lzkit's ordinary streaming decoder makes of a file without a
/// table: its content, or its error; `None` past [`MAX_OUTPUT`] (the scan
/// would decode as much: not tried), and for a zstd window over the
/// streaming decoder's limit (the scan decodes frames whole, with no
/// window limit: no verdict to compare with).
fn plain_decode(file: &[u8]) -> Option<Result<Vec<u8>, String>> {
    // The first magic number after skippable frames says the format, as
    // the scan decides.
    let mut at = 0usize;
    let zstd = loop {
        let Some(head) = file.get(at..at + 4) else {
            return Some(Err("no frame".into()));
        };
        let magic = u32::from_le_bytes(head.try_into().unwrap());
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            let Some(size) = file.get(at + 4..at + 8) else {
                return Some(Err("truncated skippable frame".into()));
            };
            at += 8 + u32::from_le_bytes(size.try_into().unwrap()) as usize;
            continue;
        }
        break magic == lzkit::zstd::MAGIC;
    };
    let mut out = Vec::new();
    let limit = MAX_OUTPUT + 1;
    let res = if zstd {
        lzkit::zstd::FrameDecoder::new(file)
            .take(limit)
            .read_to_end(&mut out)
    } else {
        frame::FrameDecoder::new(file)
            .take(limit)
            .read_to_end(&mut out)
    };
    match res {
        _ if out.len() as u64 > MAX_OUTPUT => None,
        Ok(_) => Some(Ok(out)),
        Err(e) => {
            let e = Error::from_io(e);
            match zstd_check::zstd_frame_fault(&e) {
                Some(ZstdFrameFault::WindowTooLarge { .. }) => None,
                _ => Some(Err(e.to_string())),
            }
        }
    }
}

/// Open `file` with and without scanning and read it every way (see the
/// module doc). `good`: the content and table of the valid file `file` was
/// edited from. With a table that has checksums (not scanned), whatever
/// `decode_all` gives is that content, and so is whatever a read gives
/// while the table places every entry where `good`'s does (an edited
/// decoded size moves the entries after it, and reads of those, which do
/// not decode the edited entry, give their own bytes at the moved offsets).
pub fn check_file(
    file: &[u8],
    reads: &[ReadField; 4],
    cache: usize,
    good: Option<(&[u8], &SeekTable)>,
) {
    let has_table = SeekTable::read_from(file, file.len() as u64);
    if let Err(e) = &has_table {
        assert!(
            matches!(e, Error::SeekTable { .. }),
            "a table's error: {e:?}"
        );
    }
    // A file without a table is scanned: only when its ordinary decoding
    // stays small (a scan decodes all of it).
    let plain = match has_table {
        Ok(None) => plain_decode(file),
        _ => Some(Err(String::new())),
    };
    for scan in [true, false] {
        if scan && plain.is_none() {
            continue;
        }
        let opts = ReaderOptions::new().scan(scan).cache_entries(cache);
        let r = match SeekableReader::with_options(file, opts) {
            Ok(r) => r,
            Err(e) => {
                assert!(typed(&e), "open (scan {scan}): {e:?}");
                if !scan {
                    assert!(
                        matches!(e, Error::SeekTable { .. } | Error::NotSeekable { .. }),
                        "open without a scan: {e:?}"
                    );
                }
                continue;
            }
        };
        let strict = good.is_some() && r.table().has_checksums() && !r.scanned();
        let placed = |t: &SeekTable| -> Vec<(u64, u32)> {
            t.entries()
                .iter()
                .map(|e| (e.decompressed_offset, e.decompressed_size))
                .collect()
        };
        let strict_reads = strict && good.is_some_and(|(_, t)| placed(t) == placed(r.table()));
        if r.table().max_entry_size() <= MAX_ENTRY {
            for read in reads {
                let o = read.offset(r.len());
                let mut buf = vec![0u8; usize::from(read.len)];
                match r.read_at(o, &mut buf) {
                    Ok(n) => {
                        let left = r.len().saturating_sub(o);
                        assert_eq!(
                            n as u64,
                            left.min(buf.len() as u64),
                            "read_at({o}, {}) of {} bytes",
                            buf.len(),
                            r.len()
                        );
                        if strict_reads {
                            let (body, _) = good.unwrap();
                            let w = want(body, o, buf.len());
                            assert!(
                                n <= w.len() && buf[..n] == w[..n],
                                "read_at({o}, {}) gives other bytes than the content",
                                buf.len()
                            );
                        }
                    }
                    Err(e) => assert!(typed(&e), "read_at({o}): {e:?}"),
                }
            }
        }
        if r.len() > MAX_OUTPUT {
            continue;
        }
        let mut one = Vec::new();
        let mut two = Vec::new();
        match (r.decode_all(&mut one, 1), r.decode_all(&mut two, 2)) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b);
                assert_eq!(a, one.len() as u64);
                assert!(one == two, "decode_all on 1 and 2 threads differ");
                assert_eq!(a, r.len(), "decode_all's length");
                if let Some((body, _)) = good.filter(|_| strict) {
                    assert!(one == body, "decode_all gives other bytes than the content");
                }
                let mut all = vec![0u8; one.len()];
                let n = r
                    .read_at(0, &mut all)
                    .unwrap_or_else(|e| panic!("decode_all works, read_at fails: {e}"));
                assert_eq!(n, one.len());
                assert!(all == one, "read_at and decode_all differ");
                if r.scanned() {
                    match &plain {
                        Some(Ok(p)) => assert!(
                            *p == one,
                            "a scanned file decodes to other bytes than lzkit's decoder gives"
                        ),
                        Some(Err(e)) => panic!(
                            "a scanned file decodes ({} bytes), lzkit's decoder fails: {e}",
                            one.len()
                        ),
                        None => unreachable!("not scanned"),
                    }
                }
            }
            (Err(a), Err(b)) => {
                assert!(typed(&a), "decode_all: {a:?}");
                assert_eq!(a.to_string(), b.to_string(), "decode_all's errors");
            }
            (a, b) => panic!("decode_all on 1 thread: {:?}; on 2: {:?}", a.err(), b.err()),
        }
    }
}
