//! The seek table: what it holds, how it is written, and how it is read
//! back and checked from the end of a file.
//!
//! Two layouts, told apart by the footer's magic number, last in the file:
//!
//! * **zstd** (`contrib/seekable_format` of zstd, exactly): a skippable
//!   frame `0x184D2A5E`, then per frame `Compressed_Size u32`,
//!   `Decompressed_Size u32`, optional `Checksum u32`; then the footer
//!   `Number_Of_Frames u32`, `Descriptor u8` (bit 7: checksums), magic
//!   `0x8F92EAB1`. Frames follow each other from byte 0.
//! * **LZ4** (lzkit's own): a skippable frame `0x184D2A5C`, then
//!   `Table_Checksum u32` (the low 32 bits of the XXH64 of everything after
//!   it up to the footer's magic number: the entries, the entry count and
//!   the descriptor, so that a damaged entry cannot move others), then per
//!   entry
//!   `Compressed_Offset u64`, `Compressed_Size u32`, `Decompressed_Size
//!   u32`, `Flags u8` (bit 0: the entry is one block of a frame, not a
//!   whole frame; bit 1: that block carries a block checksum), optional
//!   `Checksum u32`; then the footer `Number_Of_Entries u32`, `Descriptor
//!   u8` (bit 7: checksums), magic `0x314B5A4C` (`"LZK1"` on disk). Entries
//!   name their offsets, so they can point inside a frame (like ClickHouse
//!   marks) and skip frames that hold no data.
//!
//! All integers are little-endian. A checksum is the low 32 bits of an
//! XXH64 (seed 0): in zstd tables of the entry's decoded bytes, as zstd's
//! format says; in LZ4 tables of the entry's bytes in the file (the frame
//! or block as stored), so that they are checked before decoding and a
//! read that needs one block of a frame need not decode the others.

use super::source::ReadAt;
use crate::error::{Error, Result};
use xxhash_rust::xxh64::{Xxh64, xxh64};

/// The skippable magic number of a zstd seek table.
pub const ZSTD_TABLE_MAGIC: u32 = 0x184D_2A5E;
/// The footer magic number of a zstd seek table.
pub const ZSTD_FOOTER_MAGIC: u32 = 0x8F92_EAB1;
/// The skippable magic number of an LZ4 seek table (lzkit's format).
pub const LZ4_TABLE_MAGIC: u32 = 0x184D_2A5C;
/// The footer magic number of an LZ4 seek table: `"LZK1"` on disk.
pub const LZ4_FOOTER_MAGIC: u32 = 0x314B_5A4C;

/// Footer length: entry count, descriptor, magic number.
pub const FOOTER_LEN: u64 = 9;
/// Skippable frame header length: magic number and frame size.
const SKIPPABLE_HEADER_LEN: u64 = 8;

/// The largest entry: 1 GiB of decoded data, as zstd's seekable format
/// allows per frame. Larger units are refused (they are not random access).
pub const MAX_ENTRY_SIZE: u64 = 1 << 30;

/// The fewest bytes an entry can take in the file: a zstd skippable frame
/// (magic number and size), an LZ4 frame (magic number, the shortest
/// header, the end mark), an LZ4 block (its size word). A table whose
/// entries would take less is refused, so a table's length is bounded by
/// the data it indexes.
const fn min_entry_len(format: TableFormat, kind: EntryKind) -> u32 {
    match (format, kind) {
        (TableFormat::Zstd, _) => 8,
        (TableFormat::Lz4, EntryKind::Frame) => 11,
        (TableFormat::Lz4, EntryKind::Lz4Block { .. }) => 4,
    }
}

/// The memory a table of `count` entries takes once read.
pub const fn table_memory(count: u64) -> u64 {
    count.saturating_mul(std::mem::size_of::<Entry>() as u64)
}

/// The memory [`SeekTable::read_from`] lets a table take: 128 MiB (over
/// three million entries; a file of 1 MiB chunks that large holds 3 TiB).
pub const DEFAULT_TABLE_MEMORY: u64 = 128 << 20;

/// Descriptor bit 7: entries carry checksums.
const CHECKSUM_FLAG: u8 = 0x80;
/// Descriptor bits the formats reserve (must be zero).
const RESERVED_BITS: u8 = 0x7C;
/// LZ4 entry flags.
const FLAG_BLOCK: u8 = 0x01;
const FLAG_BLOCK_CHECKSUM: u8 = 0x02;

/// Which layout a table has: that of the format its data is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// LZ4 data, lzkit's table.
    Lz4,
    /// zstd data, zstd's seekable format.
    Zstd,
}

/// What sets a layout apart: one row per [`TableFormat`].
struct Layout {
    /// The name of the data's format.
    name: &'static str,
    /// The magic number of the table's skippable frame.
    table_magic: u32,
    /// The footer's magic number.
    footer_magic: u32,
    /// Bytes between the skippable frame's header and the entries (the
    /// LZ4 table's checksum).
    prefix_len: u64,
    /// Bytes of one entry without its checksum.
    entry_len: u64,
    /// The kind of entry that takes the fewest bytes in the file.
    smallest: EntryKind,
    /// The most one compressed byte decodes to, and the slack on top:
    /// LZ4 expands at most 255 times (plus a block's last literals);
    /// zstd's densest unit is an RLE block, 4 bytes for 128 KiB.
    expansion: (u64, u64),
}

impl TableFormat {
    /// Every layout.
    const ALL: [TableFormat; 2] = [TableFormat::Lz4, TableFormat::Zstd];

    /// The layout's row.
    const fn layout(self) -> &'static Layout {
        match self {
            TableFormat::Lz4 => {
                const {
                    &Layout {
                        name: "LZ4",
                        table_magic: LZ4_TABLE_MAGIC,
                        footer_magic: LZ4_FOOTER_MAGIC,
                        prefix_len: 4,
                        entry_len: 17,
                        smallest: EntryKind::Lz4Block {
                            block_checksum: false,
                        },
                        expansion: (255, 64),
                    }
                }
            }
            TableFormat::Zstd => {
                const {
                    &Layout {
                        name: "zstd",
                        table_magic: ZSTD_TABLE_MAGIC,
                        footer_magic: ZSTD_FOOTER_MAGIC,
                        prefix_len: 0,
                        entry_len: 8,
                        smallest: EntryKind::Frame,
                        expansion: (32 << 10, 0),
                    }
                }
            }
        }
    }

    /// Bytes between the skippable frame's header and the entries: the
    /// LZ4 table's checksum.
    const fn prefix_len(self) -> u64 {
        self.layout().prefix_len
    }

    /// Bytes of one entry.
    const fn entry_len(self, checksums: bool) -> u64 {
        self.layout().entry_len + if checksums { 4 } else { 0 }
    }

    /// The name of the data's format.
    pub const fn name(self) -> &'static str {
        self.layout().name
    }
}

/// What a table entry points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A whole frame (LZ4 or zstd; in zstd tables, also a skippable frame,
    /// which decodes to nothing).
    Frame,
    /// One block of an LZ4 frame of independent blocks: its size word, its
    /// data and, if `block_checksum`, its checksum.
    Lz4Block {
        /// The block carries a block checksum (the frame's header says so).
        block_checksum: bool,
    },
}

/// One entry: a piece of the file that decodes on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Where its bytes start in the file.
    pub compressed_offset: u64,
    /// How many bytes it takes in the file.
    pub compressed_size: u32,
    /// Where its decoded bytes start in the decoded content.
    pub decompressed_offset: u64,
    /// How many bytes it decodes to.
    pub decompressed_size: u32,
    /// Low 32 bits of the XXH64 of its decoded bytes (zstd tables) or of
    /// its bytes in the file (LZ4 tables), if the table has checksums.
    pub checksum: Option<u32>,
    /// A whole frame or one block of one.
    pub kind: EntryKind,
}

impl Entry {
    /// The end of its decoded bytes in the content.
    pub const fn decompressed_end(&self) -> u64 {
        self.decompressed_offset + self.decompressed_size as u64
    }

    /// The end of its bytes in the file.
    pub const fn compressed_end(&self) -> u64 {
        self.compressed_offset + self.compressed_size as u64
    }
}

/// The most bytes `compressed` bytes of `format` can decode to: tables
/// whose sizes claim more are refused before anything is allocated for
/// them (see [`Layout::expansion`]).
fn max_expansion(format: TableFormat, compressed: u64) -> u64 {
    let (times, slack) = format.layout().expansion;
    compressed.saturating_mul(times).saturating_add(slack)
}

/// A seek table: the entries of a file, in order, with their offsets in the
/// file and in the decoded content.
///
/// ```
/// use lzkit::seekable::{SeekTable, TableFormat};
///
/// let mut table = SeekTable::new(TableFormat::Zstd, true);
/// table.push_frame(0, 120, 1000, Some(7))?;
/// table.push_frame(120, 80, 500, Some(9))?;
/// assert_eq!(table.decompressed_size(), 1500);
/// assert_eq!(table.find(1200), Some(1));
/// let bytes = table.to_bytes();
/// assert_eq!(bytes.len(), 8 + 2 * 12 + 9);
/// # Ok::<(), lzkit::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekTable {
    format: TableFormat,
    checksums: bool,
    entries: Vec<Entry>,
    /// Decoded bytes of all entries.
    decompressed: u64,
}

pub(super) fn bad(reason: impl Into<String>) -> Error {
    Error::SeekTable {
        reason: reason.into(),
    }
}

impl SeekTable {
    /// An empty table for data in `format`, with checksums or without.
    pub const fn new(format: TableFormat, checksums: bool) -> SeekTable {
        SeekTable {
            format,
            checksums,
            entries: Vec::new(),
            decompressed: 0,
        }
    }

    /// The data's format.
    pub const fn format(&self) -> TableFormat {
        self.format
    }

    /// Whether entries carry checksums.
    pub const fn has_checksums(&self) -> bool {
        self.checksums
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The decoded size of the whole content.
    pub const fn decompressed_size(&self) -> u64 {
        self.decompressed
    }

    /// Where the data ends in the file (the table starts there when it is
    /// written right after).
    pub fn compressed_end(&self) -> u64 {
        self.entries.last().map_or(0, Entry::compressed_end)
    }

    /// Whether the entries are whole frames that follow each other from
    /// byte 0 to where the data ends: then decoding them in order is
    /// decoding the file, as a sequential decoder would (a table written by
    /// [`super::SeekableWriter`], and every zstd table).
    pub fn is_contiguous(&self) -> bool {
        let mut end = 0;
        self.entries.iter().all(|e| {
            let follows = e.kind == EntryKind::Frame && e.compressed_offset == end;
            end = e.compressed_end();
            follows
        })
    }

    /// The largest decoded size of one entry (the chunk size of a file
    /// written with `--seekable`).
    pub fn max_entry_size(&self) -> u32 {
        self.entries
            .iter()
            .map(|e| e.decompressed_size)
            .max()
            .unwrap_or(0)
    }

    /// The index of the entry holding decoded byte `offset`, or `None` past
    /// the end (entries that decode to nothing are never returned).
    pub fn find(&self, offset: u64) -> Option<usize> {
        if offset >= self.decompressed {
            return None;
        }
        Some(
            self.entries
                .partition_point(|e| e.decompressed_end() <= offset),
        )
    }

    /// Append a whole frame at `offset` in the file, `compressed` bytes
    /// long, decoding to `decompressed` bytes.
    ///
    /// # Errors
    /// [`Error::SeekTable`] if it overlaps the previous entry, if zstd
    /// frames do not follow each other, if the checksum's presence differs
    /// from the table's, or if the sizes are impossible.
    pub fn push_frame(
        &mut self,
        offset: u64,
        compressed: u32,
        decompressed: u32,
        checksum: Option<u32>,
    ) -> Result<()> {
        self.push(offset, compressed, decompressed, checksum, EntryKind::Frame)
    }

    /// Append an entry (see [`SeekTable::push_frame`]).
    ///
    /// # Errors
    /// As [`SeekTable::push_frame`]; block entries are for LZ4 tables only.
    pub fn push(
        &mut self,
        offset: u64,
        compressed: u32,
        decompressed: u32,
        checksum: Option<u32>,
        kind: EntryKind,
    ) -> Result<()> {
        let index = self.entries.len();
        let end = self.compressed_end();
        if self.format == TableFormat::Zstd && offset != end {
            return Err(bad(format!(
                "entry {index} starts at byte {offset}, not where the previous ends ({end}): zstd frames must follow each other"
            )));
        }
        if offset < end {
            return Err(bad(format!(
                "entry {index} at byte {offset} overlaps the previous one (which ends at byte {end})"
            )));
        }
        if checksum.is_some() != self.checksums {
            return Err(bad(format!(
                "entry {index}: a checksum is {} in a table {} checksums",
                if checksum.is_some() {
                    "given"
                } else {
                    "missing"
                },
                if self.checksums { "with" } else { "without" }
            )));
        }
        if matches!(kind, EntryKind::Lz4Block { .. }) && self.format != TableFormat::Lz4 {
            return Err(bad("block entries are for LZ4 tables only"));
        }
        let least = min_entry_len(self.format, kind);
        if compressed < least {
            return Err(bad(format!(
                "entry {index} takes {compressed} bytes, fewer than the {least} of the shortest {}",
                match kind {
                    EntryKind::Frame => "frame",
                    EntryKind::Lz4Block { .. } => "block",
                }
            )));
        }
        if u64::from(decompressed) > MAX_ENTRY_SIZE {
            return Err(bad(format!(
                "entry {index} decodes to {decompressed} bytes, more than the limit of {MAX_ENTRY_SIZE}"
            )));
        }
        if u64::from(decompressed) > max_expansion(self.format, u64::from(compressed)) {
            return Err(bad(format!(
                "entry {index}: {compressed} bytes of {} cannot decode to {decompressed} bytes",
                self.format.name()
            )));
        }
        offset
            .checked_add(u64::from(compressed))
            .ok_or_else(|| bad(format!("entry {index} ends past 2^64")))?;
        let decompressed_offset = self.decompressed;
        self.decompressed = decompressed_offset
            .checked_add(u64::from(decompressed))
            .ok_or_else(|| bad("decoded sizes add up to more than 2^64 bytes"))?;
        self.entries
            .try_reserve(1)
            .map_err(|_| crate::mem::out_of_memory(std::mem::size_of::<Entry>()))?;
        self.entries.push(Entry {
            compressed_offset: offset,
            compressed_size: compressed,
            decompressed_offset,
            decompressed_size: decompressed,
            checksum,
            kind,
        });
        Ok(())
    }

    /// The length of the table on disk.
    pub fn encoded_len(&self) -> u64 {
        SKIPPABLE_HEADER_LEN
            + self.format.prefix_len()
            + self.entries.len() as u64 * self.format.entry_len(self.checksums)
            + FOOTER_LEN
    }

    /// The table as it goes on disk: a skippable frame that ends with the
    /// footer.
    ///
    /// # Panics
    /// Never for a table under 2^32 entries and 4 GiB (what a table built
    /// from data can be: each entry stands for at least one byte of file).
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = self.encoded_len();
        let mut out = Vec::with_capacity(len as usize);
        let layout = self.format.layout();
        out.extend_from_slice(&layout.table_magic.to_le_bytes());
        out.extend_from_slice(&((len - SKIPPABLE_HEADER_LEN) as u32).to_le_bytes());
        // The LZ4 table's checksum, filled in below.
        out.resize(out.len() + self.format.prefix_len() as usize, 0);
        for e in &self.entries {
            if self.format == TableFormat::Lz4 {
                out.extend_from_slice(&e.compressed_offset.to_le_bytes());
            }
            out.extend_from_slice(&e.compressed_size.to_le_bytes());
            out.extend_from_slice(&e.decompressed_size.to_le_bytes());
            if self.format == TableFormat::Lz4 {
                out.push(match e.kind {
                    EntryKind::Frame => 0,
                    EntryKind::Lz4Block { block_checksum } => {
                        FLAG_BLOCK
                            | if block_checksum {
                                FLAG_BLOCK_CHECKSUM
                            } else {
                                0
                            }
                    }
                });
            }
            if let Some(c) = e.checksum {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.push(if self.checksums { CHECKSUM_FLAG } else { 0 });
        if self.format == TableFormat::Lz4 {
            let sum = xxh64(&out[12..], 0) as u32;
            out[8..12].copy_from_slice(&sum.to_le_bytes());
        }
        out.extend_from_slice(&layout.footer_magic.to_le_bytes());
        out
    }

    /// The format of the table whose footer is `footer` (the last 9 bytes
    /// of a file), or `None` if it is not a seek table's.
    pub fn footer_format(footer: &[u8; 9]) -> Option<TableFormat> {
        let magic = le32(&footer[5..]);
        TableFormat::ALL
            .into_iter()
            .find(|format| format.layout().footer_magic == magic)
    }

    /// The table at the end of `src`, checked in itself but not yet
    /// against the file, and where it starts.
    pub(super) fn parse<S: ReadAt + ?Sized>(
        src: &S,
        file_len: u64,
        memory_limit: u64,
    ) -> Result<Option<(SeekTable, u64)>> {
        if file_len < SKIPPABLE_HEADER_LEN + FOOTER_LEN {
            return Ok(None);
        }
        let mut footer = [0u8; 9];
        src.read_exact_at(&mut footer, file_len - FOOTER_LEN)?;
        let Some(format) = Self::footer_format(&footer) else {
            return Ok(None);
        };
        let count = le32(&footer);
        let descriptor = footer[4];
        if descriptor & RESERVED_BITS != 0 {
            return Err(bad(format!(
                "reserved bits set in the descriptor ({descriptor:#04x})"
            )));
        }
        let checksums = descriptor & CHECKSUM_FLAG != 0;
        let entry_len = format.entry_len(checksums);
        let table_len =
            SKIPPABLE_HEADER_LEN + format.prefix_len() + u64::from(count) * entry_len + FOOTER_LEN;
        if table_len > file_len {
            return Err(bad(format!(
                "the footer claims {count} entries ({table_len} bytes of table), more than the file's {file_len} bytes"
            )));
        }
        let table_start = file_len - table_len;
        // Each entry stands for some bytes of the file before the table.
        let least = min_entry_len(format, format.layout().smallest);
        if u64::from(count) * u64::from(least) > table_start {
            return Err(bad(format!(
                "the footer claims {count} entries, but the {table_start} bytes before the table hold {} at most",
                table_start / u64::from(least)
            )));
        }
        let memory = table_memory(u64::from(count));
        if memory > memory_limit {
            return Err(bad(format!(
                "its {count} entries take {memory} bytes of memory, more than the limit of {memory_limit} (raise it: --memory)"
            )));
        }
        let mut header = [0u8; 8];
        src.read_exact_at(&mut header, table_start)?;
        let magic = le32(&header);
        let frame_size = le32(&header[4..]);
        let expected_magic = format.layout().table_magic;
        if magic != expected_magic {
            return Err(bad(format!(
                "{count} entries put the table at byte {table_start}, where magic {magic:#010x} stands instead of {expected_magic:#010x}"
            )));
        }
        if u64::from(frame_size) != table_len - SKIPPABLE_HEADER_LEN {
            return Err(bad(format!(
                "the skippable frame holds {frame_size} bytes, {count} entries need {}",
                table_len - SKIPPABLE_HEADER_LEN
            )));
        }
        let mut table = SeekTable::new(format, checksums);
        table
            .entries
            .try_reserve_exact(count as usize)
            .map_err(|_| {
                crate::mem::out_of_memory(usize::try_from(memory).unwrap_or(usize::MAX))
            })?;
        let mut stored_sum = [0u8; 4];
        let mut sum = Xxh64::new(0);
        if format == TableFormat::Lz4 {
            src.read_exact_at(&mut stored_sum, table_start + SKIPPABLE_HEADER_LEN)?;
        }
        // Entries in pieces of at most 64 KiB: what is allocated is what
        // was read.
        let per_piece = (64 << 10) / entry_len;
        let mut at = table_start + SKIPPABLE_HEADER_LEN + format.prefix_len();
        let mut left = u64::from(count);
        let mut buf = Vec::new();
        let mut offset = 0u64;
        while left > 0 {
            let n = left.min(per_piece);
            buf.resize((n * entry_len) as usize, 0);
            src.read_exact_at(&mut buf, at)?;
            sum.update(&buf);
            for raw in buf.chunks_exact(entry_len as usize) {
                let (e_offset, rest) = match format {
                    TableFormat::Lz4 => (Some(le64(&raw[..8])), &raw[8..]),
                    TableFormat::Zstd => (None, raw),
                };
                let compressed = le32(&rest[..4]);
                let decompressed = le32(&rest[4..8]);
                let (kind, rest) = match format {
                    TableFormat::Lz4 => {
                        let flags = rest[8];
                        if flags & !(FLAG_BLOCK | FLAG_BLOCK_CHECKSUM) != 0
                            || flags == FLAG_BLOCK_CHECKSUM
                        {
                            return Err(bad(format!(
                                "entry {}: unknown flags {flags:#04x}",
                                table.len()
                            )));
                        }
                        let kind = if flags & FLAG_BLOCK != 0 {
                            EntryKind::Lz4Block {
                                block_checksum: flags & FLAG_BLOCK_CHECKSUM != 0,
                            }
                        } else {
                            EntryKind::Frame
                        };
                        (kind, &rest[9..])
                    }
                    TableFormat::Zstd => (EntryKind::Frame, &rest[8..]),
                };
                let checksum = checksums.then(|| le32(&rest[..4]));
                let start = e_offset.unwrap_or(offset);
                table.push(start, compressed, decompressed, checksum, kind)?;
                offset = table.compressed_end();
                if offset > table_start {
                    return Err(bad(format!(
                        "entry {} ends at byte {offset}, past the start of the table (byte {table_start})",
                        table.len() - 1
                    )));
                }
            }
            left -= n;
            at += n * entry_len;
        }
        sum.update(&footer[..5]);
        let computed = sum.digest() as u32;
        if format == TableFormat::Lz4 && computed != u32::from_le_bytes(stored_sum) {
            return Err(bad(format!(
                "its checksum is {:#010x}, its entries give {computed:#010x}: the table is damaged",
                u32::from_le_bytes(stored_sum)
            )));
        }
        if format == TableFormat::Zstd && offset != table_start {
            return Err(bad(format!(
                "the frames' sizes add up to {offset} bytes, but the table starts at byte {table_start}"
            )));
        }
        Ok(Some((table, table_start)))
    }
}

/// The little-endian `u32` in the first four bytes of `b`.
pub(super) fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zstd_table() -> SeekTable {
        let mut t = SeekTable::new(TableFormat::Zstd, true);
        t.push_frame(0, 100, 1000, Some(1)).unwrap();
        t.push_frame(100, 50, 0, Some(2)).unwrap();
        t.push_frame(150, 60, 700, Some(3)).unwrap();
        t
    }

    /// The table at the end of `file`, not checked against the file's data
    /// (these files hold zeros where the data would be).
    fn parsed(file: &[u8]) -> Result<Option<SeekTable>> {
        Ok(SeekTable::parse(file, file.len() as u64, DEFAULT_TABLE_MEMORY)?.map(|(t, _)| t))
    }

    fn file_with(table: &SeekTable) -> Vec<u8> {
        let mut file = vec![0u8; table.compressed_end() as usize];
        file.extend_from_slice(&table.to_bytes());
        file
    }

    #[test]
    fn a_table_reads_back_as_written() {
        let t = zstd_table();
        let file = file_with(&t);
        let back = parsed(&file[..]).unwrap().unwrap();
        assert_eq!(back, t);
        assert_eq!(back.find(999), Some(0));
        assert_eq!(back.find(1000), Some(2));
        assert_eq!(back.find(1700), None);

        let mut l = SeekTable::new(TableFormat::Lz4, false);
        l.push(
            11,
            100,
            4000,
            None,
            EntryKind::Lz4Block {
                block_checksum: true,
            },
        )
        .unwrap();
        l.push_frame(300, 20, 10, None).unwrap();
        let file = file_with(&l);
        assert_eq!(parsed(&file[..]).unwrap(), Some(l));
    }

    #[test]
    fn a_damaged_lz4_entry_is_found_by_the_table_checksum() {
        let mut t = SeekTable::new(TableFormat::Lz4, true);
        t.push_frame(0, 100, 1000, Some(1)).unwrap();
        t.push_frame(100, 100, 1000, Some(2)).unwrap();
        let good = file_with(&t);
        let first = good.len() - 9 - 2 * 21;
        // Entry 0's decoded size, one more: every later entry would move.
        let mut f = good.clone();
        f[first + 12] ^= 1;
        let e = parsed(&f[..]).unwrap_err();
        assert!(e.to_string().contains("damaged"), "{e}");
        // A damaged checksum is found as well.
        let mut f = good;
        f[first - 4] ^= 0x40;
        let e = parsed(&f[..]).unwrap_err();
        assert!(e.to_string().contains("damaged"), "{e}");
    }

    #[test]
    fn a_file_without_a_footer_has_no_table() {
        assert_eq!(parsed(&[0u8; 40][..]).unwrap(), None);
        assert_eq!(parsed(&[0u8; 3][..]).unwrap(), None);
    }

    #[test]
    fn lying_tables_are_refused() {
        let good = file_with(&zstd_table());
        let n = good.len();
        let check = |file: &[u8], needle: &str| {
            let e = parsed(file).unwrap_err();
            assert!(matches!(e, Error::SeekTable { .. }), "{e}");
            assert!(e.to_string().contains(needle), "{e}");
        };
        // 2^32 - 1 entries in a tiny file.
        let mut f = good.clone();
        f[n - 9..n - 5].copy_from_slice(&u32::MAX.to_le_bytes());
        check(&f, "claims 4294967295 entries");
        // Reserved bits.
        let mut f = good.clone();
        f[n - 5] |= 0x04;
        check(&f, "reserved bits");
        // Sizes that do not add up.
        let mut f = good.clone();
        let first = n - 9 - 3 * 12;
        f[first..first + 4].copy_from_slice(&99u32.to_le_bytes());
        check(&f, "add up to");
        // A frame past the table.
        let mut f = good.clone();
        f[first..first + 4].copy_from_slice(&5000u32.to_le_bytes());
        check(&f, "past the start of the table");
        // A decoded size no frame of that length can have.
        let mut f = good.clone();
        f[first + 4..first + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        check(&f, "decodes to");
        // A wrong skippable frame size.
        let mut f = good.clone();
        f[first - 4..first].copy_from_slice(&7u32.to_le_bytes());
        check(&f, "skippable frame holds 7");
        // One entry fewer than there are: the magic is not where it says.
        let mut f = good;
        f[n - 9..n - 5].copy_from_slice(&2u32.to_le_bytes());
        check(&f, "where magic");
    }
}
