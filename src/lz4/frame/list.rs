//! Walking frames without decoding them (`--list`).
use super::{BlockMode, BlockSize};
use crate::error::Result;
use std::io::Read;

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
    /// Total size of the frame in bytes, header to checksum.
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

/// List the frames of a stream.
pub fn list_frames<R: Read>(r: R) -> Result<Vec<FrameInfo>> {
    let _ = r;
    todo!()
}
