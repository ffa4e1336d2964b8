//! [`list_frames`]: what each frame of a zstd stream holds, from its
//! headers alone (what `zstd -l` prints).

use super::frame::{self, HEADER_MAX, Start};
use crate::error::{Error, Result};
use std::io::{self, Read};

/// What kind of frame a [`FrameInfo`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameKind {
    /// A zstd frame.
    Zstd,
    /// A skippable frame (user data that decoders skip).
    Skippable {
        /// Its magic number (`0x184D2A50` to `0x184D2A5F`).
        magic: u32,
    },
}

/// One frame of a zstd stream, from its headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FrameInfo {
    /// Position of the frame's first byte in the stream.
    pub offset: u64,
    /// Zstd or skippable.
    pub kind: FrameKind,
    /// The whole frame's length in the stream (header, blocks, checksum).
    pub compressed_size: u64,
    /// The content size the header declares, if it does.
    pub content_size: Option<u64>,
    /// Window size in bytes (0 for skippable frames).
    pub window_size: u64,
    /// Dictionary ID (0: none).
    pub dict_id: u32,
    /// The stored content checksum (XXH64, low 32 bits), if the frame has one.
    pub checksum: Option<u32>,
    /// Number of blocks.
    pub blocks: u64,
    /// Whether the frame is single-segment (no window descriptor).
    pub single_segment: bool,
}

/// List the frames of the stream `r`, reading block headers and skipping
/// block contents (nothing is decoded, nothing is checked beyond the
/// headers).
///
/// # Errors
/// A stream that is not zstd, a malformed header, a truncated frame, or
/// an I/O error.
///
/// ```
/// # let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
/// #     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa, 0x74, 0xce];
/// let frames = lzkit::zstd::list_frames(&frame[..])?;
/// assert_eq!(frames.len(), 1);
/// assert_eq!(frames[0].compressed_size, frame.len() as u64);
/// assert_eq!(frames[0].checksum, Some(0xce74_aaa3));
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn list_frames<R: Read>(mut r: R) -> Result<Vec<FrameInfo>> {
    let mut frames = Vec::new();
    let mut at = 0u64;
    let mut head = [0u8; HEADER_MAX];
    loop {
        let got = read_up_to(&mut r, &mut head[..5])?;
        if got == 0 {
            return Ok(frames);
        }
        let truncated = |at: u64, what| Error::Truncated { at, what };
        if got < 5 {
            // A skippable frame needs 8 bytes, a zstd one more: short
            // either way (but report an unknown magic number first).
            if got == 4 {
                frame::parse(&head[..4], at)?;
            }
            return Err(truncated(at + got as u64, "frame header"));
        }
        let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = if super::is_skippable_magic(magic) {
            8
        } else {
            frame::header_len(&head[..5]).min(HEADER_MAX)
        };
        let more = read_up_to(&mut r, &mut head[5..len])?;
        let have = 5 + more;
        match frame::parse(&head[..have], at)? {
            Start::Skippable(total) => {
                let skipped = skip(&mut r, total - 8)?;
                if skipped < total - 8 {
                    return Err(truncated(at + 8 + skipped, "skippable frame"));
                }
                frames.push(FrameInfo {
                    offset: at,
                    kind: FrameKind::Skippable { magic },
                    compressed_size: total,
                    content_size: None,
                    window_size: 0,
                    dict_id: 0,
                    checksum: None,
                    blocks: 0,
                    single_segment: false,
                });
                at += total;
            }
            Start::Frame(h) => {
                let mut p = at + h.len as u64;
                let mut blocks = 0u64;
                loop {
                    let mut b = [0u8; 3];
                    if read_up_to(&mut r, &mut b)? < 3 {
                        return Err(truncated(p, "block header"));
                    }
                    let bh = frame::block_header(b, p, h.block_max())?;
                    p += 3;
                    let n = bh.input_len() as u64;
                    let skipped = skip(&mut r, n)?;
                    if skipped < n {
                        return Err(truncated(p + skipped, "block"));
                    }
                    p += n;
                    blocks += 1;
                    if bh.last {
                        break;
                    }
                }
                let checksum = if h.checksum {
                    let mut c = [0u8; 4];
                    if read_up_to(&mut r, &mut c)? < 4 {
                        return Err(truncated(p, "content checksum"));
                    }
                    p += 4;
                    Some(u32::from_le_bytes(c))
                } else {
                    None
                };
                frames.push(FrameInfo {
                    offset: at,
                    kind: FrameKind::Zstd,
                    compressed_size: p - at,
                    content_size: h.content_size,
                    window_size: h.window,
                    dict_id: h.dict_id,
                    checksum,
                    blocks,
                    single_segment: h.single_segment,
                });
                at = p;
            }
        }
    }
}

/// Read until `buf` is full or the input ends; returns the bytes read.
fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Io(e)),
        }
    }
    Ok(n)
}

/// Read and drop `n` bytes; returns how many there were.
fn skip<R: Read>(r: &mut R, n: u64) -> Result<u64> {
    io::copy(&mut r.by_ref().take(n), &mut io::sink()).map_err(Error::Io)
}
