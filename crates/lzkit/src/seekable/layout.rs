//! A seek table checked against the file it describes: an index is a
//! claim, never the truth.
//!
//! [`check_layout`] runs when a table is read, before anything trusts it:
//! the bytes the entries leave out (between entries, before the first and
//! after the last) must hold no data (only skippable frames, empty LZ4
//! frames, and the header and end of the frames whose blocks are listed),
//! and an entry that claims to decode to nothing must do so. So a decode
//! through the table decodes every frame of the file, and a table with no
//! entries (or one that leaves out frames) over a file with data is an
//! error, not an empty file.
//!
//! Entries are compared with their frames' headers by
//! [`super::head::check_head`].

use super::head::check_head;
use super::source::ReadAt;
use super::table::{DEFAULT_TABLE_MEMORY, Entry, EntryKind, SeekTable, TableFormat, bad, le32};
use super::unit;
use crate::error::Result;
use crate::lz4::frame::BlockMode;
use crate::lz4::frame::header::{BlockHeader, Header, MAX_DESCRIPTOR_LEN, Magic};
use crate::zstd;

/// The most bytes an entry that decodes to nothing may take and still be
/// decoded when the table is read (a skippable frame may be any size: its
/// header says so).
const EMPTY_ENTRY_MAX: u32 = 64 << 10;

/// The LZ4 frame whose blocks are entries, while the walk is inside it.
#[derive(Clone, Copy)]
struct OpenFrame {
    /// It ends with a content checksum.
    content_checksum: bool,
    /// Its blocks carry checksums: every block entry of the frame must
    /// say the same (the entry's size depends on it).
    block_checksum: bool,
}

/// The most blocks of a frame the table leaves out that are walked (each
/// is read): such a frame is empty, and empty frames of more blocks than
/// this are not written by any encoder.
const LEFT_OUT_BLOCKS_MAX: u32 = 1024;

/// Where the walk through the bytes between entries is.
struct Walk<'a, S: ?Sized> {
    src: &'a S,
    pos: u64,
    /// An LZ4 frame whose blocks are entries is open.
    open: Option<OpenFrame>,
}

impl<S: ReadAt + ?Sized> Walk<'_, S> {
    fn read<const N: usize>(&self, at: u64) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.src.read_exact_at(&mut b, at)?;
        Ok(b)
    }

    /// Walk from `pos` to `target` over bytes no entry lists, which must
    /// hold no data. `next`: the entry at `target` (`None`: the table).
    fn to(&mut self, target: u64, next: Option<(usize, &Entry)>) -> Result<()> {
        let block_next = match next {
            Some((_, e)) => match e.kind {
                EntryKind::Lz4Block { block_checksum } => Some(block_checksum),
                EntryKind::Frame => None,
            },
            None => None,
        };
        let what = || match next {
            Some((i, e)) => format!("entry {i} (byte {})", e.compressed_offset),
            None => "the table".to_string(),
        };
        if let Some(open) = self.open {
            if let Some(block_checksum) = block_next
                && self.pos == target
            {
                // The next block of the same frame: its entry must say what
                // the frame's header says of block checksums.
                if block_checksum != open.block_checksum {
                    return Err(bad(format!(
                        "{} says its block {} a checksum; its frame's header says otherwise",
                        what(),
                        if block_checksum { "has" } else { "has no" }
                    )));
                }
                return Ok(());
            }
            let content_checksum = open.content_checksum;
            // The frame of the blocks before ends here: its end mark, then
            // its content checksum.
            if target < self.pos.saturating_add(4) || le32(&self.read::<4>(self.pos)?) != 0 {
                return Err(bad(format!(
                    "the LZ4 frame whose blocks the table lists goes on at byte {} with a block the table leaves out (before {})",
                    self.pos,
                    what()
                )));
            }
            self.pos += 4 + if content_checksum { 4 } else { 0 };
            self.open = None;
        }
        while self.pos < target {
            let at = self.pos;
            let left = target - at;
            if left < 4 {
                return Err(bad(format!(
                    "{left} bytes at byte {at} that no entry lists, before {}",
                    what()
                )));
            }
            let magic = le32(&self.read::<4>(at)?);
            if zstd::is_skippable_magic(magic) {
                if left < 8 {
                    return Err(bad(format!("a cut skippable frame at byte {at}")));
                }
                let size = le32(&self.read::<8>(at)?[4..]);
                self.pos = at + 8 + u64::from(size);
                continue;
            }
            if Magic::classify(magic) != Some(Magic::Standard) {
                return Err(bad(format!(
                    "the table leaves out the data at byte {at} (magic number {magic:#010x}), before {}: it does not describe this file (files put end to end?)",
                    what()
                )));
            }
            let flg = self.read::<5>(at)?[4];
            let desc_len = Header::descriptor_len(flg);
            let mut desc = [0u8; MAX_DESCRIPTOR_LEN];
            self.src.read_exact_at(&mut desc[..desc_len], at + 4)?;
            let h = Header::parse(&desc[..desc_len], at)?;
            let after = at + 4 + desc_len as u64;
            if let Some(block_checksum) = block_next
                && after == target
            {
                // The frame whose first block is the next entry.
                if h.block_mode != BlockMode::Independent
                    || h.dict_id.is_some()
                    || h.block_checksum != block_checksum
                {
                    return Err(bad(format!(
                        "{} is a block of the frame at byte {at}, whose header does not allow reading it alone (linked blocks, a dictionary, or block checksums the table does not say)",
                        what()
                    )));
                }
                self.pos = after;
                self.open = Some(OpenFrame {
                    content_checksum: h.content_checksum,
                    block_checksum: h.block_checksum,
                });
                return Ok(());
            }
            // A frame no entry lists: it must be empty (its blocks, if any,
            // decode to nothing).
            let holds_data = || {
                bad(format!(
                    "the table leaves out the LZ4 frame at byte {at}, which holds data (before {}): it does not describe this file (files put end to end?)",
                    what()
                ))
            };
            let trailer = if h.block_checksum { 4 } else { 0 };
            let mut p = after;
            let mut blocks = 0u32;
            loop {
                if p.saturating_add(4) > target {
                    return Err(holds_data());
                }
                let word = le32(&self.read::<4>(p)?);
                p += 4;
                let len = match BlockHeader::parse(word, h.block_size.bytes())? {
                    BlockHeader::End => break,
                    BlockHeader::Data { len, stored } => {
                        blocks += 1;
                        if blocks > LEFT_OUT_BLOCKS_MAX || (stored && len > 0) {
                            return Err(holds_data());
                        }
                        len
                    }
                };
                if len > 0 {
                    // A compressed block that must decode to nothing (a
                    // few bytes at most).
                    if len > 16 || p + len as u64 > target {
                        return Err(holds_data());
                    }
                    let mut data = [0u8; 16];
                    self.src.read_exact_at(&mut data[..len], p)?;
                    let mut out = [0u8; 1];
                    if !matches!(
                        crate::lz4::block::decompress_into(&data[..len], &mut out),
                        Ok(0)
                    ) {
                        return Err(holds_data());
                    }
                }
                p += len as u64 + trailer;
            }
            self.pos = p + if h.content_checksum { 4 } else { 0 };
        }
        if self.pos != target {
            return Err(bad(format!(
                "a frame the table leaves out runs from before {} to byte {}",
                what(),
                self.pos
            )));
        }
        if block_next.is_some() {
            return Err(bad(format!(
                "{} is an LZ4 block, but no frame header comes right before it",
                what()
            )));
        }
        Ok(())
    }
}

/// Reading a table: parsed (`SeekTable::parse`, in `table.rs`), then
/// checked against the file here.
impl SeekTable {
    /// Read the table at the end of `src` (`file_len` bytes long): `None`
    /// if the file does not end with a seek table's footer.
    ///
    /// Everything is checked before it is believed: the entry count against
    /// the file's length (a footer claiming 2^32 entries in a small file is
    /// refused before anything is allocated; entries are read in pieces, so
    /// memory follows what the file holds), the skippable frame's size,
    /// reserved bits, entries that overlap or run past the table, decoded
    /// sizes the compressed ones cannot produce.
    ///
    /// The table is then checked against the file: the bytes its entries
    /// leave out must hold no data (only skippable frames, empty frames,
    /// and the header and end of LZ4 frames whose blocks are entries), and
    /// entries that decode to nothing must. A table with no entries over
    /// a file with data, or one that lists only some frames, is refused.
    ///
    /// The table may take [`DEFAULT_TABLE_MEMORY`] bytes of memory at
    /// most ([`SeekTable::read_from_with_limit`] sets another limit).
    ///
    /// # Errors
    /// [`crate::Error::SeekTable`] for a malformed table, or one that disagrees
    /// with the file; I/O errors of `src`.
    pub fn read_from<S: ReadAt + ?Sized>(src: &S, file_len: u64) -> Result<Option<SeekTable>> {
        Self::read_from_with_limit(src, file_len, DEFAULT_TABLE_MEMORY)
    }

    /// [`SeekTable::read_from`], the table taking at most `memory_limit`
    /// bytes of memory ([`super::table_memory`] of its entry count).
    ///
    /// # Errors
    /// As [`SeekTable::read_from`]; a table over the limit is
    /// [`crate::Error::SeekTable`] naming the memory it needs, and one the system
    /// cannot allocate [`crate::Error::OutOfMemory`].
    pub fn read_from_with_limit<S: ReadAt + ?Sized>(
        src: &S,
        file_len: u64,
        memory_limit: u64,
    ) -> Result<Option<SeekTable>> {
        let Some((table, table_start)) = Self::parse(src, file_len, memory_limit)? else {
            return Ok(None);
        };
        check_layout(&table, src, table_start)?;
        Ok(Some(table))
    }
}

/// Check `table`, read from the end of `src` where it starts at byte
/// `table_start`, against the file: nothing outside its entries holds
/// data, and its entries that decode to nothing do (see the module's
/// documentation).
///
/// # Errors
/// [`crate::Error::SeekTable`] naming the first disagreement; I/O errors.
pub(crate) fn check_layout<S: ReadAt + ?Sized>(
    table: &SeekTable,
    src: &S,
    table_start: u64,
) -> Result<()> {
    let format = table.format();
    let mut walk = Walk {
        src,
        pos: 0,
        open: None,
    };
    let mut comp = Vec::new();
    let mut out = Vec::new();
    for (i, e) in table.entries().iter().enumerate() {
        if format == TableFormat::Lz4 {
            walk.to(e.compressed_offset, Some((i, e)))?;
        }
        if e.decompressed_size == 0 {
            check_empty(format, src, i, e, &mut comp, &mut out)?;
        }
        walk.pos = e.compressed_end();
    }
    if format == TableFormat::Lz4 {
        walk.to(table_start, None)?;
    }
    Ok(())
}

/// Entry `i`, which the table says decodes to nothing: a skippable frame
/// (zstd tables), or a small unit that is decoded now and must give
/// nothing.
fn check_empty<S: ReadAt + ?Sized>(
    format: TableFormat,
    src: &S,
    i: usize,
    e: &Entry,
    comp: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<()> {
    check_head(format, src, i, e)?;
    if format == TableFormat::Zstd {
        let mut magic = [0u8; 4];
        src.read_exact_at(&mut magic, e.compressed_offset)?;
        if zstd::is_skippable_magic(le32(&magic)) {
            // A skippable frame of exactly the entry's length (checked by
            // `check_head`).
            return Ok(());
        }
    }
    // Anything else is decoded: it must give nothing, and fill the entry
    // (an empty frame followed by frames with data does not).
    if e.compressed_size > EMPTY_ENTRY_MAX {
        return Err(bad(format!(
            "entry {i} at byte {} decodes to nothing, the table says, yet takes {} bytes",
            e.compressed_offset, e.compressed_size
        )));
    }
    crate::mem::resize_for_read(comp, e.compressed_size as usize)?;
    src.read_exact_at(comp, e.compressed_offset)?;
    unit::decode_entry(format, i, e, comp, true, false, out)
}
