//! Frame descriptor: FLG, BD, optional fields and the header checksum.

/// Maximum uncompressed size of a block (frame spec: BD byte bits 6-4).
///
/// ```
/// use lzkit::lz4::frame::BlockSize;
///
/// assert_eq!(BlockSize::Max64KB.bytes(), 65_536);
/// assert_eq!(BlockSize::from_code(7), Some(BlockSize::Max4MB));
/// assert_eq!(BlockSize::from_code(3), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockSize {
    /// 64 KiB (`-B4`).
    Max64KB = 4,
    /// 256 KiB (`-B5`).
    Max256KB = 5,
    /// 1 MiB (`-B6`).
    Max1MB = 6,
    /// 4 MiB (`-B7`).
    Max4MB = 7,
}

impl BlockSize {
    /// Size in bytes.
    pub const fn bytes(self) -> usize {
        1 << (8 + 2 * self as usize)
    }

    /// From the BD byte's block-size code (4..=7).
    pub const fn from_code(code: u8) -> Option<BlockSize> {
        match code {
            4 => Some(BlockSize::Max64KB),
            5 => Some(BlockSize::Max256KB),
            6 => Some(BlockSize::Max1MB),
            7 => Some(BlockSize::Max4MB),
            _ => None,
        }
    }
}

/// Whether blocks depend on the data of earlier blocks.
///
/// ```
/// use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameOptions};
///
/// let data = b"linked blocks see the 64 KiB before them. ".repeat(5000);
/// let small = FrameOptions::new().block_size(BlockSize::Max64KB);
/// let linked = frame::compress(&data, &small.clone().block_mode(BlockMode::Linked));
/// let independent = frame::compress(&data, &small);
/// assert!(linked.len() <= independent.len());
/// assert_eq!(frame::decompress(&linked)?, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockMode {
    /// Each block may use the previous 64 KiB of decoded data (`-BD`): better
    /// ratio with small blocks, serial decoding only.
    Linked,
    /// Each block stands alone (`-BI`, the CLI default).
    Independent,
}

use super::{LEGACY_MAGIC, MAGIC, SKIPPABLE_MAGIC_MAX, SKIPPABLE_MAGIC_MIN};
use crate::error::{Error, Lz4FrameFault, Result};
use xxhash_rust::xxh32::xxh32;

/// The error for `magic`, read at stream position `at`, that starts no
/// frame this reader takes.
pub(crate) fn unknown_magic(magic: u32, at: u64) -> Error {
    Error::CorruptFrame {
        at,
        fault: Lz4FrameFault::UnknownMagic { magic }.into(),
    }
}

/// FLG bits (frame spec: "FLG byte").
const FLG_VERSION_MASK: u8 = 0b1100_0000;
const FLG_VERSION_01: u8 = 0b0100_0000;
const FLG_INDEPENDENT: u8 = 1 << 5;
const FLG_BLOCK_CHECKSUM: u8 = 1 << 4;
const FLG_CONTENT_SIZE: u8 = 1 << 3;
const FLG_CONTENT_CHECKSUM: u8 = 1 << 2;
const FLG_RESERVED: u8 = 1 << 1;
const FLG_DICT_ID: u8 = 1;
/// BD: only bits 6-4 (block max size) may be set.
const BD_SIZE_SHIFT: u8 = 4;
const BD_RESERVED: u8 = 0b1000_1111;

/// Longest descriptor: FLG, BD, content size (8), dictionary ID (4), HC.
pub(crate) const MAX_DESCRIPTOR_LEN: usize = 15;
/// Shortest descriptor: FLG, BD, HC.
pub(crate) const MIN_DESCRIPTOR_LEN: usize = 3;
/// Block size word: high bit set means "stored uncompressed".
pub(crate) const BLOCK_STORED_FLAG: u32 = 0x8000_0000;

/// The options a frame header carries, in the order the descriptor
/// stores them (frame spec: "Frame Descriptor"): FLG's flags, BD, then the
/// optional fields that FLG announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    /// FLG bit 5 (B.Indep).
    pub block_mode: BlockMode,
    /// FLG bit 4 (B.Checksum).
    pub block_checksum: bool,
    /// FLG bit 2 (C.Checksum).
    pub content_checksum: bool,
    /// BD bits 6-4 (Block MaxSize).
    pub block_size: BlockSize,
    /// FLG bit 3 (C.Size), and the 8-byte field it announces.
    pub content_size: Option<u64>,
    /// FLG bit 0 (DictID), and the 4-byte field it announces.
    pub dict_id: Option<u32>,
}

impl Header {
    /// Append magic number and descriptor (with its checksum byte) to `out`.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC.to_le_bytes());
        let desc_start = out.len();
        let mut flg = FLG_VERSION_01;
        if self.block_mode == BlockMode::Independent {
            flg |= FLG_INDEPENDENT;
        }
        if self.block_checksum {
            flg |= FLG_BLOCK_CHECKSUM;
        }
        if self.content_size.is_some() {
            flg |= FLG_CONTENT_SIZE;
        }
        if self.content_checksum {
            flg |= FLG_CONTENT_CHECKSUM;
        }
        if self.dict_id.is_some() {
            flg |= FLG_DICT_ID;
        }
        out.push(flg);
        out.push((self.block_size as u8) << BD_SIZE_SHIFT);
        if let Some(size) = self.content_size {
            out.extend_from_slice(&size.to_le_bytes());
        }
        if let Some(id) = self.dict_id {
            out.extend_from_slice(&id.to_le_bytes());
        }
        out.push(header_checksum(&out[desc_start..]));
    }

    /// Length of the descriptor (after the magic number) given its FLG byte.
    pub(crate) fn descriptor_len(flg: u8) -> usize {
        MIN_DESCRIPTOR_LEN
            + if flg & FLG_CONTENT_SIZE != 0 { 8 } else { 0 }
            + if flg & FLG_DICT_ID != 0 { 4 } else { 0 }
    }

    /// Parse a descriptor (the bytes after the magic number, exactly
    /// [`Header::descriptor_len`] long). `at` is the frame's stream position,
    /// for error messages.
    pub(crate) fn parse(desc: &[u8], at: u64) -> Result<Header> {
        let bad = |reason| Error::CorruptFrame {
            at,
            fault: Lz4FrameFault::BadHeader { reason }.into(),
        };
        let flg = desc[0];
        let bd = desc[1];
        if flg & FLG_VERSION_MASK != FLG_VERSION_01 {
            return Err(bad("unsupported version (FLG bits 7-6 must be 01)"));
        }
        if flg & FLG_RESERVED != 0 {
            return Err(bad("reserved FLG bit 1 is set"));
        }
        if bd & BD_RESERVED != 0 {
            return Err(bad("reserved BD bits are set"));
        }
        let block_size = BlockSize::from_code(bd >> BD_SIZE_SHIFT)
            .ok_or(bad("invalid block maximum size (BD code must be 4 to 7)"))?;
        let n = desc.len();
        let stored = desc[n - 1];
        let computed = header_checksum(&desc[..n - 1]);
        if stored != computed {
            return Err(Error::CorruptFrame {
                at,
                fault: Lz4FrameFault::HeaderChecksum { stored, computed }.into(),
            });
        }
        let mut p = 2;
        let content_size = if flg & FLG_CONTENT_SIZE != 0 {
            p += 8;
            Some(u64::from_le_bytes(
                desc[p - 8..p].try_into().expect("8 bytes"),
            ))
        } else {
            None
        };
        let dict_id = if flg & FLG_DICT_ID != 0 {
            p += 4;
            Some(u32::from_le_bytes(
                desc[p - 4..p].try_into().expect("4 bytes"),
            ))
        } else {
            None
        };
        Ok(Header {
            block_size,
            block_mode: if flg & FLG_INDEPENDENT != 0 {
                BlockMode::Independent
            } else {
                BlockMode::Linked
            },
            block_checksum: flg & FLG_BLOCK_CHECKSUM != 0,
            content_checksum: flg & FLG_CONTENT_CHECKSUM != 0,
            content_size,
            dict_id,
        })
    }
}

/// Frame spec: HC = (XXH32(descriptor, 0) >> 8) & 0xFF.
fn header_checksum(desc: &[u8]) -> u8 {
    (xxh32(desc, 0) >> 8) as u8
}

/// What a 4-byte magic number introduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Magic {
    Standard,
    Legacy,
    Skippable,
}

impl Magic {
    pub(crate) fn classify(magic: u32) -> Option<Magic> {
        match magic {
            MAGIC => Some(Magic::Standard),
            LEGACY_MAGIC => Some(Magic::Legacy),
            SKIPPABLE_MAGIC_MIN..=SKIPPABLE_MAGIC_MAX => Some(Magic::Skippable),
            _ => None,
        }
    }
}

/// A block's size word, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockHeader {
    /// End mark: no more blocks in this frame.
    End,
    /// A block of `len` bytes, `stored` uncompressed or not.
    Data { len: usize, stored: bool },
}

impl BlockHeader {
    /// Decode a block size word and check it against the frame's maximum
    /// (frame spec: a block is never larger than the block maximum size;
    /// incompressible data is stored instead).
    pub(crate) fn parse(word: u32, max: usize) -> Result<BlockHeader> {
        if word == 0 {
            return Ok(BlockHeader::End);
        }
        let len = (word & !BLOCK_STORED_FLAG) as usize;
        if len > max {
            return Err(Error::BlockTooLarge { size: len, max });
        }
        Ok(BlockHeader::Data {
            len,
            stored: word & BLOCK_STORED_FLAG != 0,
        })
    }
}
