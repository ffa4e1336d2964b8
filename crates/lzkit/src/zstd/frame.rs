//! Frame and block headers (RFC 8878 sections 3.1.1 and 3.1.1.2).

use super::{BLOCK_SIZE_MAX, MAGIC, WINDOW_LOG_MAX, is_skippable_magic};
use crate::error::{Error, Result, ZstdFrameFault};

/// The most bytes a frame header takes, magic number included.
pub(crate) const HEADER_MAX: usize = 18;

/// The Frame_Content_Size that means "unknown" (libzstd's
/// `ZSTD_CONTENTSIZE_UNKNOWN`, 2^64 - 1).
pub(crate) const CONTENT_SIZE_UNKNOWN: u64 = u64::MAX;

/// A parsed frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    /// Header length, magic number included.
    pub(crate) len: usize,
    /// Window size in bytes (the content size for single-segment frames).
    pub(crate) window: u64,
    pub(crate) dict_id: u32,
    pub(crate) content_size: Option<u64>,
    pub(crate) checksum: bool,
    pub(crate) single_segment: bool,
}

impl Header {
    /// The largest block of this frame, compressed or decoded.
    pub(crate) fn block_max(&self) -> usize {
        self.window.min(BLOCK_SIZE_MAX as u64) as usize
    }
}

/// What starts at some position of the input.
pub(crate) enum Start {
    /// A zstd frame.
    Frame(Header),
    /// A skippable frame: its total length (header included).
    Skippable(u64),
}

/// The length of the frame header starting with `src` (at least 5 bytes),
/// so a reader knows how much to read before [`parse`]: 8 for a
/// skippable frame (its magic number and size).
pub(crate) fn header_len(src: &[u8]) -> usize {
    if let Some(m) = src.get(..4)
        && is_skippable_magic(u32::from_le_bytes([m[0], m[1], m[2], m[3]]))
    {
        // Magic number and size.
        return 8;
    }
    let Some(&fhd) = src.get(4) else {
        return 5;
    };
    let single = fhd & 0x20 != 0;
    let dict = [0, 1, 2, 4][(fhd & 3) as usize];
    let fcs = match fhd >> 6 {
        0 => single as usize,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    5 + (!single) as usize + dict + fcs
}

/// Parse what starts `src` (absolute position `at`, for errors): a frame
/// header or a skippable frame's header.
pub(crate) fn parse(src: &[u8], at: u64) -> Result<Start> {
    let truncated = |what| Error::Truncated {
        at: at + src.len() as u64,
        what,
    };
    let magic_bytes = src.get(..4).ok_or_else(|| truncated("magic number"))?;
    let magic = u32::from_le_bytes([
        magic_bytes[0],
        magic_bytes[1],
        magic_bytes[2],
        magic_bytes[3],
    ]);
    if is_skippable_magic(magic) {
        let size = src
            .get(4..8)
            .ok_or_else(|| truncated("skippable frame size"))?;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]);
        return Ok(Start::Skippable(8 + size as u64));
    }
    if magic != MAGIC {
        return Err(Error::CorruptFrame {
            at,
            fault: ZstdFrameFault::NotZstd { magic }.into(),
        });
    }
    let fhd = *src.get(4).ok_or_else(|| truncated("frame header"))?;
    let len = header_len(src);
    let h = src.get(..len).ok_or_else(|| truncated("frame header"))?;
    let bad = |what| Error::CorruptFrame {
        at: at + 4,
        fault: ZstdFrameFault::Malformed(what).into(),
    };
    if fhd & 0x08 != 0 {
        return Err(bad("reserved bit set in the frame header"));
    }
    let single_segment = fhd & 0x20 != 0;
    let mut p = 5;
    let mut window = 0u64;
    if !single_segment {
        let wd = h[p];
        p += 1;
        let log = 10 + (wd >> 3) as u32;
        if log > WINDOW_LOG_MAX {
            return Err(Error::CorruptFrame {
                at: at + 5,
                fault: ZstdFrameFault::WindowTooLarge {
                    window: 1 << log,
                    limit: 1 << WINDOW_LOG_MAX,
                }
                .into(),
            });
        }
        let base = 1u64 << log;
        window = base + (base / 8) * (wd & 7) as u64;
    }
    let le = |bytes: &[u8]| bytes.iter().rev().fold(0u64, |v, &b| v << 8 | b as u64);
    let dict_len = [0, 1, 2, 4][(fhd & 3) as usize];
    let dict_id = le(&h[p..p + dict_len]) as u32;
    p += dict_len;
    let fcs_len = len - p;
    let field = match fcs_len {
        0 => None,
        2 => Some(le(&h[p..]) + 256),
        _ => Some(le(&h[p..])),
    };
    if single_segment {
        window = field.unwrap_or(0);
    }
    // 2^64 - 1 is libzstd's ZSTD_CONTENTSIZE_UNKNOWN: a frame stating it
    // states no size (libzstd reads it so, and so does every lzkit entry
    // point), rather than one no decoder could ever match.
    let content_size = field.filter(|&n| n != CONTENT_SIZE_UNKNOWN);
    Ok(Start::Frame(Header {
        len,
        window,
        dict_id,
        content_size,
        checksum: fhd & 0x04 != 0,
        single_segment,
    }))
}

/// A block header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockHeader {
    pub(crate) last: bool,
    /// 0 raw, 1 RLE, 2 compressed (3, reserved, is rejected by [`block_header`]).
    pub(crate) kind: u8,
    /// Raw: its length; RLE: the decoded length; compressed: the block's length.
    pub(crate) size: usize,
}

impl BlockHeader {
    /// Bytes of input the block takes after its header.
    pub(crate) fn input_len(&self) -> usize {
        if self.kind == 1 { 1 } else { self.size }
    }
}

/// Parse the 3-byte block header `b` at absolute position `at`, for a
/// frame whose blocks are at most `block_max` bytes.
pub(crate) fn block_header(b: [u8; 3], at: u64, block_max: usize) -> Result<BlockHeader> {
    let v = u32::from_le_bytes([b[0], b[1], b[2], 0]);
    let h = BlockHeader {
        last: v & 1 != 0,
        kind: ((v >> 1) & 3) as u8,
        size: (v >> 3) as usize,
    };
    let bad = |what| Error::CorruptFrame {
        at,
        fault: ZstdFrameFault::Malformed(what).into(),
    };
    if h.kind == 3 {
        return Err(bad("reserved block type"));
    }
    if h.size > block_max {
        return Err(bad("block larger than the frame's block maximum"));
    }
    Ok(h)
}
