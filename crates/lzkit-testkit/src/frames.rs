//! Frame-format helpers: options spelled out, skippable frames, the layout
//! of a standard frame (for targeted corruption), and header checksum
//! repair; streaming decoding over a trickling reader.

use crate::compare::assert_same;
use lzkit::Error;
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameDecoder, FrameOptions, PushDecoder};
use std::sync::Arc;

/// A skippable frame with magic `0x184D2A50 + nibble` and `payload`.
pub fn skippable_frame(nibble: u8, payload: &[u8]) -> Vec<u8> {
    assert!(nibble < 16);
    let mut v = Vec::new();
    v.extend_from_slice(&(0x184D_2A50u32 + nibble as u32).to_le_bytes());
    v.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

/// Frame options with everything spelled out.
#[allow(clippy::too_many_arguments)]
pub fn opts(
    level: i32,
    block_size: BlockSize,
    block_mode: BlockMode,
    block_checksum: bool,
    content_checksum: bool,
    content_size: Option<u64>,
    dict: Option<(&[u8], Option<u32>)>,
) -> FrameOptions {
    FrameOptions::new()
        .level(level)
        .block_size(block_size)
        .block_mode(block_mode)
        .block_checksum(block_checksum)
        .content_checksum(content_checksum)
        .content_size(content_size)
        .dict_id(dict.and_then(|(_, id)| id))
        .dictionary_opt(dict.map(|(d, _)| Arc::<[u8]>::from(d)))
        .legacy(false)
        .threads(1)
}

/// Legacy-format options at `level`.
pub fn legacy_opts(level: i32) -> FrameOptions {
    FrameOptions::new().level(level).legacy(true)
}

/// Positions of the parts of one standard frame (for targeted corruption).
#[derive(Debug, Clone)]
pub struct FrameLayout {
    /// Header length including magic and the header checksum byte.
    pub header_len: usize,
    /// Position of the header checksum byte.
    pub hc_at: usize,
    /// Position of the content size field if present.
    pub content_size_at: Option<usize>,
    /// Position of the dict ID field if present.
    pub dict_id_at: Option<usize>,
    /// For each block: (position of the size field, data length, stored?).
    pub blocks: Vec<(usize, usize, bool)>,
    pub block_checksum: bool,
    /// Position of the end mark.
    pub end_mark_at: usize,
    /// Position of the content checksum if present.
    pub content_checksum_at: Option<usize>,
    /// Length of the frame.
    pub len: usize,
}

/// Walk one standard frame starting at `f[0]` (panics on malformed input:
/// only for frames our tests built).
pub fn frame_layout(f: &[u8]) -> FrameLayout {
    assert_eq!(u32::from_le_bytes(f[0..4].try_into().unwrap()), 0x184D_2204);
    let flg = f[4];
    let mut p = 6;
    let content_size_at = if flg & 0x08 != 0 {
        p += 8;
        Some(p - 8)
    } else {
        None
    };
    let dict_id_at = if flg & 0x01 != 0 {
        p += 4;
        Some(p - 4)
    } else {
        None
    };
    let hc_at = p;
    p += 1;
    let header_len = p;
    let block_checksum = flg & 0x10 != 0;
    let mut blocks = Vec::new();
    loop {
        let word = u32::from_le_bytes(f[p..p + 4].try_into().unwrap());
        if word == 0 {
            break;
        }
        let size = (word & 0x7FFF_FFFF) as usize;
        blocks.push((p, size, word & 0x8000_0000 != 0));
        p += 4 + size + if block_checksum { 4 } else { 0 };
    }
    let end_mark_at = p;
    p += 4;
    let content_checksum_at = if flg & 0x04 != 0 {
        p += 4;
        Some(p - 4)
    } else {
        None
    };
    FrameLayout {
        header_len,
        hc_at,
        content_size_at,
        dict_id_at,
        blocks,
        block_checksum,
        end_mark_at,
        content_checksum_at,
        len: p,
    }
}

/// Recompute the header checksum byte of the frame at `f[0]` after editing
/// the header.
pub fn fix_header_checksum(f: &mut [u8]) {
    let l = frame_layout_header_only(f);
    let hc = (xxhash_rust::xxh32::xxh32(&f[4..l - 1], 0) >> 8) as u8;
    f[l - 1] = hc;
}

/// Header length (magic to HC inclusive) from the FLG byte only.
pub fn frame_layout_header_only(f: &[u8]) -> usize {
    let flg = f[4];
    7 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 }
}

/// A reader that hands out at most `chunk` bytes per call, like a pipe.
#[derive(Debug, Clone)]
pub struct Trickle<'a> {
    /// What is left to read.
    pub data: &'a [u8],
    /// The most bytes one read gives.
    pub chunk: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Decode with [`FrameDecoder`] (with `dict` if given) over a reader giving
/// `in_chunk` bytes per call, reading into a buffer of `out_chunk` bytes.
pub fn stream_decode(
    src: &[u8],
    dict: Option<&[u8]>,
    in_chunk: usize,
    out_chunk: usize,
) -> lzkit::Result<Vec<u8>> {
    use std::io::{ErrorKind, Read};
    let r = Trickle {
        data: src,
        chunk: in_chunk,
    };
    let mut d = match dict {
        Some(dict) => FrameDecoder::with_dictionary(r, dict),
        None => FrameDecoder::new(r),
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; out_chunk];
    loop {
        match d.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(lzkit::Error::from_io(e)),
        }
    }
}

/// A standard frame of independent blocks whose contents are exactly
/// `pieces` (each compressed on its own at level 1, or stored where that
/// does not pay), in a frame of `block_size` blocks, with block and
/// content checksums as asked. Small pieces in a frame of large blocks
/// make blocks that claim far more room than they decode to.
pub fn frame_of_pieces(
    pieces: &[Vec<u8>],
    block_size: BlockSize,
    block_checksum: bool,
    content_checksum: bool,
) -> Vec<u8> {
    use xxhash_rust::xxh32::xxh32;
    let flg =
        0x60 | if block_checksum { 0x10 } else { 0 } | if content_checksum { 0x04 } else { 0 };
    let mut f = vec![0x04, 0x22, 0x4D, 0x18, flg, (block_size as u8) << 4];
    f.push((xxh32(&f[4..6], 0) >> 8) as u8);
    let mut content = Vec::new();
    for piece in pieces {
        assert!(!piece.is_empty() && piece.len() <= block_size.bytes());
        let packed = lzkit::lz4::block::compress(piece, 1);
        let (data, flag) = if packed.len() < piece.len() {
            (&packed[..], 0)
        } else {
            (&piece[..], 0x8000_0000u32)
        };
        f.extend_from_slice(&(data.len() as u32 | flag).to_le_bytes());
        f.extend_from_slice(data);
        if block_checksum {
            f.extend_from_slice(&xxh32(data, 0).to_le_bytes());
        }
        content.extend_from_slice(piece);
    }
    f.extend_from_slice(&0u32.to_le_bytes());
    if content_checksum {
        f.extend_from_slice(&xxh32(&content, 0).to_le_bytes());
    }
    f
}

/// The first frame of `src` through a [`PushDecoder`] fed in pieces of the
/// sizes `sizes` (cycled): its content and the bytes it took, as
/// [`frame::decompress_first`] gives them; a frame that does not end
/// within `src` is [`Error::Truncated`].
pub fn push_decode(src: &[u8], sizes: &[usize]) -> Result<(Vec<u8>, usize), Error> {
    let mut dec = PushDecoder::new();
    let mut out = Vec::new();
    let (mut at, mut step) = (0, 0);
    while at < src.len() {
        let n = sizes[step % sizes.len()].max(1).min(src.len() - at);
        step += 1;
        dec.feed(&src[at..at + n], &mut out)?;
        at += n;
    }
    if !dec.is_finished() {
        return Err(Error::Truncated {
            at: src.len() as u64,
            what: "frame",
        });
    }
    Ok((out, src.len() - dec.unused().len()))
}

/// [`push_decode`] and [`frame::decompress_first`] agree on `src`: the same
/// content and length, or both an error of the same kind.
#[track_caller]
pub fn assert_push_agrees(src: &[u8], sizes: &[usize], what: &str) {
    let a = frame::decompress_first(src, 1);
    let b = push_decode(src, sizes);
    match (&a, &b) {
        (Ok(x), Ok(y)) => {
            assert_same(
                &y.0,
                &x.0,
                &format!("{what}: PushDecoder vs decompress_first"),
            );
            assert_eq!(x.1, y.1, "{what}: bytes used");
        }
        (Err(x), Err(y)) => assert_eq!(
            std::mem::discriminant(x),
            std::mem::discriminant(y),
            "{what}: decompress_first {x:?} vs PushDecoder {y:?}"
        ),
        _ => panic!(
            "{what}: decompress_first {:?} vs PushDecoder {:?}",
            a.as_ref().map(|v| v.1),
            b.as_ref().map(|v| v.1)
        ),
    }
}
