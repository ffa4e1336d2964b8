//! Walking frames without decoding them (`--list`): headers and block size
//! words are read, block data is skipped.

use super::header::{BlockHeader, Header, MAX_DESCRIPTOR_LEN, Magic, unknown_magic};
use super::{BlockMode, BlockSize, LEGACY_BLOCK_SIZE};
use crate::error::{Error, Result};
use crate::lz4::block::max_compressed_size;
use std::io::{self, Read};

/// What kind of frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// A standard LZ4 frame.
    Standard,
    /// A legacy-format stream.
    Legacy,
    /// A skippable frame (user data).
    Skippable,
}

/// Facts about one frame, read from its header and block headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameInfo {
    /// Kind of frame.
    pub kind: FrameKind,
    /// Position of the frame's magic number in the stream.
    pub offset: u64,
    /// Total size of the frame in bytes, magic number to checksum.
    pub compressed_size: u64,
    /// Content size from the header, if present.
    pub content_size: Option<u64>,
    /// Block maximum size (standard frames).
    pub block_size: Option<BlockSize>,
    /// Block mode (standard frames).
    pub block_mode: Option<BlockMode>,
    /// Block checksums present.
    pub block_checksum: bool,
    /// Content checksum present.
    pub content_checksum: bool,
    /// Dictionary ID, if present.
    pub dict_id: Option<u32>,
    /// Number of data blocks.
    pub blocks: u64,
}

impl FrameInfo {
    /// A standard frame at `offset`, `compressed_size` bytes long so far,
    /// its header not read yet (the other kinds are set afterwards).
    fn standard(offset: u64, compressed_size: u64) -> FrameInfo {
        FrameInfo {
            kind: FrameKind::Standard,
            offset,
            compressed_size,
            content_size: None,
            block_size: None,
            block_mode: None,
            block_checksum: false,
            content_checksum: false,
            dict_id: None,
            blocks: 0,
        }
    }

    /// What the frame header `h` states.
    fn set_header(&mut self, h: &Header) {
        self.content_size = h.content_size;
        self.block_size = Some(h.block_size);
        self.block_mode = Some(h.block_mode);
        self.block_checksum = h.block_checksum;
        self.content_checksum = h.content_checksum;
        self.dict_id = h.dict_id;
    }
}

/// A reader that counts the stream position.
struct Counted<R> {
    inner: R,
    pos: u64,
}

impl<R: Read> Counted<R> {
    /// Fill `buf`; a truncation is reported where the input ended, as the
    /// decoders report it (so `--list` and `-d` name the same byte).
    fn fill(&mut self, buf: &mut [u8], what: &'static str) -> Result<()> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.inner.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => {
                    filled += n;
                    self.pos += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
        if filled < buf.len() {
            return Err(Error::Truncated { at: self.pos, what });
        }
        Ok(())
    }

    fn u32(&mut self, what: &'static str) -> Result<u32> {
        let mut b = [0u8; 4];
        self.fill(&mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }

    /// A u32, or `None` at a clean end of input.
    fn u32_or_eof(&mut self, what: &'static str) -> Result<Option<u32>> {
        let mut b = [0u8; 1];
        loop {
            match self.inner.read(&mut b) {
                Ok(0) => return Ok(None),
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
        self.pos += 1;
        let mut rest = [0u8; 3];
        self.fill(&mut rest, what)?;
        Ok(Some(u32::from_le_bytes([b[0], rest[0], rest[1], rest[2]])))
    }

    fn skip(&mut self, n: u64, what: &'static str) -> Result<()> {
        let got = io::copy(&mut (&mut self.inner).take(n), &mut io::sink())?;
        self.pos += got;
        if got < n {
            return Err(Error::Truncated { at: self.pos, what });
        }
        Ok(())
    }
}

/// List the frames of a stream, reading it to the end (block data is
/// skipped, not decoded).
///
/// ```
/// use lzkit::lz4::frame::{self, BlockSize, FrameKind, FrameOptions};
///
/// let opts = FrameOptions::new().block_size(BlockSize::Max64KB).content_size(Some(0));
/// let packed = frame::compress(&vec![1u8; 200_000], &opts);
/// let frames = frame::list_frames(&packed[..])?;
/// assert_eq!(frames.len(), 1);
/// assert_eq!(frames[0].kind, FrameKind::Standard);
/// assert_eq!(frames[0].content_size, Some(200_000));
/// assert_eq!(frames[0].blocks, 4);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn list_frames<R: Read>(r: R) -> Result<Vec<FrameInfo>> {
    walk(r, usize::MAX)
}

/// The first frame of a stream (`None` if it is empty), read as
/// [`list_frames`] reads every frame; the rest of the stream is not read
/// (a legacy frame ends at the next magic number, which is read).
/// `compressed_size` says where the next frame starts.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
/// let one = frame::compress(b"first", &FrameOptions::new());
/// let two = [one.clone(), b"anything after".to_vec()].concat();
/// let f = frame::first_frame(&two[..])?.unwrap();
/// assert_eq!(f.compressed_size, one.len() as u64);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn first_frame<R: Read>(r: R) -> Result<Option<FrameInfo>> {
    Ok(walk(r, 1)?.pop())
}

/// What the header at the start of `src` says (a standard frame's magic
/// number and descriptor, a skippable frame's magic number and size, or a
/// legacy frame's magic number), without reading further:
/// `compressed_size` is the header's length (a skippable frame's whole
/// length) and `blocks` is 0.
///
/// ```
/// use lzkit::lz4::frame::{self, BlockSize, FrameOptions};
/// let f = frame::compress(b"data", &FrameOptions::new().block_size(BlockSize::Max64KB).content_size(Some(4)));
/// let h = frame::read_header(&f[..15])?; // magic, FLG, BD, 8-byte size, HC
/// assert_eq!((h.block_size, h.content_size), (Some(BlockSize::Max64KB), Some(4)));
/// assert!(frame::read_header(&f[..14]).is_err()); // incomplete
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn read_header(src: &[u8]) -> Result<FrameInfo> {
    let truncated = |what| Error::Truncated {
        at: src.len() as u64,
        what,
    };
    let magic = src.get(..4).ok_or(truncated("magic number"))?;
    let magic = u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]);
    let mut info = FrameInfo::standard(0, 4);
    match Magic::classify(magic) {
        Some(Magic::Standard) => {
            let flg = *src.get(4).ok_or(truncated("frame header"))?;
            let len = Header::descriptor_len(flg);
            let desc = src.get(4..4 + len).ok_or(truncated("frame header"))?;
            let h = Header::parse(desc, 0)?;
            info.compressed_size = 4 + len as u64;
            info.set_header(&h);
        }
        Some(Magic::Legacy) => info.kind = FrameKind::Legacy,
        Some(Magic::Skippable) => {
            let size = src.get(4..8).ok_or(truncated("skippable frame size"))?;
            info.kind = FrameKind::Skippable;
            info.compressed_size =
                8 + u64::from(u32::from_le_bytes([size[0], size[1], size[2], size[3]]));
        }
        None => return Err(unknown_magic(magic, 0)),
    }
    Ok(info)
}

/// Up to `max_frames` frames of `r`.
fn walk<R: Read>(r: R, max_frames: usize) -> Result<Vec<FrameInfo>> {
    let mut r = Counted { inner: r, pos: 0 };
    let mut frames = Vec::new();
    let mut pending: Option<(u32, u64)> = None;
    while frames.len() < max_frames {
        let (magic, at) = match pending.take() {
            Some(m) => m,
            None => {
                let at = r.pos;
                match r.u32_or_eof("magic number")? {
                    Some(m) => (m, at),
                    None => return Ok(frames),
                }
            }
        };
        let mut info = FrameInfo::standard(at, 0);
        match Magic::classify(magic) {
            Some(Magic::Standard) => {
                let mut desc = [0u8; MAX_DESCRIPTOR_LEN];
                r.fill(&mut desc[..1], "frame header")?;
                let len = Header::descriptor_len(desc[0]);
                r.fill(&mut desc[1..len], "frame header")?;
                let h = Header::parse(&desc[..len], at)?;
                info.set_header(&h);
                loop {
                    let block_at = r.pos;
                    let word = r.u32("block size")?;
                    match BlockHeader::parse(word, h.block_size.bytes()).map_err(|e| {
                        Error::Block {
                            index: info.blocks,
                            at: block_at,
                            source: Box::new(e),
                        }
                    })? {
                        BlockHeader::End => break,
                        BlockHeader::Data { len, .. } => {
                            let trailer = if h.block_checksum { 4 } else { 0 };
                            r.skip(len as u64 + trailer, "block data")?;
                            info.blocks += 1;
                        }
                    }
                }
                if h.content_checksum {
                    r.skip(4, "content checksum")?;
                }
            }
            Some(Magic::Legacy) => {
                info.kind = FrameKind::Legacy;
                while let Some(word) = r.u32_or_eof("legacy block size")? {
                    if Magic::classify(word).is_some() {
                        pending = Some((word, r.pos - 4));
                        break;
                    }
                    if word as usize > max_compressed_size(LEGACY_BLOCK_SIZE) {
                        return Err(Error::BlockTooLarge {
                            size: word as usize,
                            max: max_compressed_size(LEGACY_BLOCK_SIZE),
                        });
                    }
                    r.skip(word as u64, "legacy block")?;
                    info.blocks += 1;
                }
            }
            Some(Magic::Skippable) => {
                info.kind = FrameKind::Skippable;
                let len = r.u32("skippable frame size")?;
                r.skip(len as u64, "skippable frame")?;
            }
            None => return Err(unknown_magic(magic, at)),
        }
        let end = pending.map_or(r.pos, |(_, p)| p);
        info.compressed_size = end - at;
        frames.push(info);
    }
    Ok(frames)
}
