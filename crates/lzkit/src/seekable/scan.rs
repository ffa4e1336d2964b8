//! Building a seek table for a file that has none, by reading it once:
//! what `lzkit index` appends, and what a reader falls back to.

use super::source::{ReadAt, Window};
use super::table::{EntryKind, MAX_ENTRY_SIZE, SeekTable, TableFormat};
use super::unit::{self, entry_checksum};
use crate::error::{Error, Result};
use crate::format::{self, Codec, Format, Found};
use crate::lz4::frame::header::{BlockHeader, Header, MAX_DESCRIPTOR_LEN};
use crate::lz4::frame::{self, BlockMode, FrameKind};
use crate::zstd;
use xxhash_rust::xxh32::Xxh32;

fn not_seekable(reason: String) -> Error {
    Error::NotSeekable { reason }
}

/// The format of the data in `src`: the first magic number after any
/// skippable frames (stepped over by their stated sizes, never read).
fn detect<S: ReadAt + ?Sized>(src: &S, len: u64) -> Result<TableFormat> {
    let mut at = 0u64;
    loop {
        let mut input = Window {
            src,
            pos: at,
            end: len,
        };
        let sniffed = format::sniff(&mut input, 0).map_err(Error::from_io)?;
        if let Found::OverLimit { remaining } = sniffed.found {
            at += 8 + remaining;
            if at > len {
                return Err(Error::Truncated {
                    at: len,
                    what: "skippable frame",
                });
            }
            continue;
        }
        let Some(&[b0, b1, b2, b3]) = sniffed.rest().get(..4) else {
            return Err(not_seekable(
                "the file holds no LZ4 or zstd frame".to_string(),
            ));
        };
        let magic = u32::from_le_bytes([b0, b1, b2, b3]);
        return match Format::from_magic(magic).and_then(Format::codec) {
            Some(Codec::Zstd) => Ok(TableFormat::Zstd),
            Some(Codec::Lz4) => Ok(TableFormat::Lz4),
            _ => Err(not_seekable(format!(
                "not LZ4 or zstd data (magic number {magic:#010x} at byte {at})"
            ))),
        };
    }
}

/// Build the seek table of `src` (`len` bytes, with no table at its end)
/// by reading it once and decoding every entry, with checksums if
/// `checksums`:
///
/// * zstd: one entry per frame (skippable frames too, decoding to
///   nothing, as zstd's format needs);
/// * LZ4: one entry per block in frames of several independent blocks
///   (the entries then point inside the frame, like ClickHouse marks),
///   one per frame otherwise; skippable frames are left out.
///
/// Decoding every entry checks the data: a corrupt file gets no table.
///
/// # Errors
/// [`Error::NotSeekable`] with the reason for data that cannot be read at
/// random: LZ4 frames that need a dictionary, legacy frames, entries over 1
/// GiB; errors of corrupt or truncated data; I/O errors.
///
/// ```
/// use lzkit::lz4::frame::{self, BlockSize, FrameOptions};
/// use lzkit::seekable;
///
/// let data = vec![7u8; 300_000];
/// let file = frame::compress(&data, &FrameOptions::new().block_size(BlockSize::Max64KB));
/// let table = seekable::build_table(&file[..], file.len() as u64, true)?;
/// assert_eq!(table.len(), 5); // one entry per 64 KiB block
/// assert_eq!(table.decompressed_size(), 300_000);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn build_table<S: ReadAt + ?Sized>(src: &S, len: u64, checksums: bool) -> Result<SeekTable> {
    match detect(src, len)? {
        TableFormat::Zstd => scan_zstd(src, len, checksums),
        TableFormat::Lz4 => scan_lz4(src, len, checksums),
    }
}

fn entry_size(len: u64, what: &str, at: u64) -> Result<u32> {
    if len > MAX_ENTRY_SIZE {
        return Err(not_seekable(format!(
            "the {what} at byte {at} holds {len} bytes, more than the 1 GiB a table entry can (rewrite it with `lzkit --seekable`)"
        )));
    }
    Ok(len as u32)
}

fn scan_zstd<S: ReadAt + ?Sized>(src: &S, len: u64, checksums: bool) -> Result<SeekTable> {
    let frames = zstd::list_frames(Window {
        src,
        pos: 0,
        end: len,
    })?;
    let mut table = SeekTable::new(TableFormat::Zstd, checksums);
    let mut comp = Vec::new();
    let mut out = Vec::new();
    for f in &frames {
        let c = entry_size(f.compressed_size, "frame", f.offset)?;
        if let zstd::FrameKind::Skippable { .. } = f.kind {
            table.push_frame(f.offset, c, 0, checksums.then(|| entry_checksum(&[])))?;
            continue;
        }
        if let Some(size) = f.content_size {
            entry_size(size, "frame", f.offset)?;
        }
        if f.dict_id != 0 {
            return Err(not_seekable(format!(
                "the frame at byte {} needs dictionary {:#010x}",
                f.offset, f.dict_id
            )));
        }
        crate::mem::resize_for_read(&mut comp, c as usize)?;
        src.read_exact_at(&mut comp, f.offset)?;
        unit::decode(
            TableFormat::Zstd,
            EntryKind::Frame,
            &comp,
            None,
            true,
            &mut out,
        )
        .map_err(|e| Error::Frame {
            index: table.len() as u64,
            at: f.offset,
            source: Box::new(e),
        })?;
        let d = entry_size(out.len() as u64, "frame", f.offset)?;
        table.push_frame(f.offset, c, d, checksums.then(|| entry_checksum(&out)))?;
    }
    Ok(table)
}

fn scan_lz4<S: ReadAt + ?Sized>(src: &S, len: u64, checksums: bool) -> Result<SeekTable> {
    let frames = frame::list_frames(Window {
        src,
        pos: 0,
        end: len,
    })?;
    let mut table = SeekTable::new(TableFormat::Lz4, checksums);
    let mut comp = Vec::new();
    let mut out = Vec::new();
    for (index, f) in frames.iter().enumerate() {
        let wrap = |e: Error| Error::Frame {
            index: index as u64,
            at: f.offset,
            source: Box::new(e),
        };
        match f.kind {
            FrameKind::Skippable => continue,
            FrameKind::Legacy => {
                return Err(not_seekable(format!(
                    "the legacy-format frame at byte {} is not indexed (recompress it: `lzkit recompress`)",
                    f.offset
                )));
            }
            FrameKind::Standard => {}
        }
        if let Some(id) = f.dict_id {
            return Err(not_seekable(format!(
                "the frame at byte {} needs dictionary {id:#010x}",
                f.offset
            )));
        }
        if f.block_mode == Some(BlockMode::Independent) && f.blocks > 1 {
            index_blocks(src, f.offset, checksums, &mut table, &mut comp, &mut out)
                .map_err(wrap)?;
            continue;
        }
        let c = entry_size(f.compressed_size, "frame", f.offset)?;
        crate::mem::resize_for_read(&mut comp, c as usize)?;
        src.read_exact_at(&mut comp, f.offset)?;
        unit::decode(
            TableFormat::Lz4,
            EntryKind::Frame,
            &comp,
            None,
            true,
            &mut out,
        )
        .map_err(wrap)?;
        if out.is_empty() {
            continue;
        }
        let d = entry_size(out.len() as u64, "frame", f.offset)?;
        table.push_frame(f.offset, c, d, checksums.then(|| entry_checksum(&comp)))?;
    }
    Ok(table)
}

/// One entry per block of the independent-block frame at `at`; the frame's
/// content checksum and size are checked on the way.
fn index_blocks<S: ReadAt + ?Sized>(
    src: &S,
    at: u64,
    checksums: bool,
    table: &mut SeekTable,
    comp: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut desc = [0u8; MAX_DESCRIPTOR_LEN];
    src.read_exact_at(&mut desc[..1], at + 4)?;
    let desc_len = Header::descriptor_len(desc[0]);
    src.read_exact_at(&mut desc[1..desc_len], at + 5)?;
    let h = Header::parse(&desc[..desc_len], at)?;
    let kind = EntryKind::Lz4Block {
        block_checksum: h.block_checksum,
    };
    let trailer = if h.block_checksum { 4 } else { 0 };
    let mut pos = at + 4 + desc_len as u64;
    let mut content = Xxh32::new(0);
    let mut total = 0u64;
    let mut word = [0u8; 4];
    loop {
        src.read_exact_at(&mut word, pos)?;
        let len = match BlockHeader::parse(u32::from_le_bytes(word), h.block_size.bytes())? {
            BlockHeader::End => break,
            BlockHeader::Data { len, .. } => len,
        };
        let c = 4 + len + trailer;
        crate::mem::resize_for_read(comp, c)?;
        src.read_exact_at(comp, pos)?;
        unit::decode(TableFormat::Lz4, kind, comp, None, true, out)?;
        if h.content_checksum {
            content.update(out);
        }
        total += out.len() as u64;
        table.push(
            pos,
            c as u32,
            out.len() as u32,
            checksums.then(|| entry_checksum(comp)),
            kind,
        )?;
        pos += c as u64;
    }
    if h.content_checksum {
        src.read_exact_at(&mut word, pos + 4)?;
        let stored = u32::from_le_bytes(word);
        let computed = content.digest();
        if stored != computed {
            return Err(Error::ContentChecksum {
                at: pos + 4,
                stored,
                computed,
            });
        }
    }
    if let Some(size) = h.content_size
        && size != total
    {
        return Err(Error::ContentSize {
            expected: size,
            actual: total,
        });
    }
    Ok(())
}
