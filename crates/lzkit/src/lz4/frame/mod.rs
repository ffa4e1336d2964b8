//! The LZ4 frame format (spec v1.6.4) and the legacy format.
//!
//! A frame is `magic | FLG | BD | [content size] | [dict ID] | HC | blocks | end
//! mark | [content checksum]`. This module writes and reads all of it:
//! block sizes 64 KiB to 4 MiB, linked and independent blocks, block and
//! content checksums (XXH32), content size, dictionary ID with a user-supplied
//! dictionary, stored blocks when compression does not pay, skippable frames
//! (skipped on read), concatenated frames, and the legacy format
//! (`lz4 -l`, magic `0x184C2102`, 8 MiB blocks).
//!
//! * One-shot: [`compress`], [`decompress`], [`decompress_with_dict`].
//! * Streaming with memory bounded by the block size: [`FrameEncoder`]
//!   (a [`std::io::Write`]) and [`FrameDecoder`] (a [`std::io::Read`]).
//! * Inspection without decoding: [`list_frames`].
//! * Multithreading: [`FrameOptions::threads`] compresses jobs of
//!   [`MIN_JOB_SIZE`] bytes (or one block, if larger) in parallel, with output
//!   byte-identical whatever the thread count; [`DecodeOptions::threads`]
//!   ([`decompress_with`], [`FrameDecoder::with_options`]) decodes the blocks
//!   of independent-block frames in parallel, with the same output and the
//!   same errors as serial decoding.

mod decode;
mod encoder;
mod header;
mod list;

pub use crate::pool::effective_threads;
pub use decode::{FrameDecoder, decompress, decompress_with, decompress_with_dict};
pub use encoder::{FrameEncoder, compress};
pub use header::{BlockMode, BlockSize};
pub use list::{FrameInfo, FrameKind, list_frames};

use crate::lz4::Level;
use std::sync::Arc;

/// Options for writing a frame. [`Default`] gives the `lz4` CLI's defaults:
/// level 1, 4 MiB independent blocks, content checksum on, no block checksum,
/// no content size.
#[derive(Debug, Clone)]
pub struct FrameOptions {
    /// Compression level, as for [`crate::lz4::block::compress`]: the
    /// number of a [`Level`] (set it with [`FrameOptions::level`]).
    pub level: i32,
    /// Maximum uncompressed size of one block.
    pub block_size: BlockSize,
    /// Whether blocks may reference data of earlier blocks.
    pub block_mode: BlockMode,
    /// Append an XXH32 of each compressed block.
    pub block_checksum: bool,
    /// Append an XXH32 of the whole decoded content.
    pub content_checksum: bool,
    /// Store this content size in the header. The encoder checks it: a
    /// stream whose length differs is an error at [`FrameEncoder::finish`].
    pub content_size: Option<u64>,
    /// Dictionary ID to record in the header (informational for decoders).
    pub dict_id: Option<u32>,
    /// Dictionary: its last 64 KiB are the history of the first block (linked
    /// mode) or of every block (independent mode). Decoders need the same one.
    pub dictionary: Option<Arc<[u8]>>,
    /// Write the legacy format (`lz4 -l`) instead: 8 MiB independent blocks,
    /// no checksums, no header options. Incompatible with a dictionary.
    pub legacy: bool,
    /// Worker threads: 0 = one per core, 1 = compress on the calling thread.
    /// Input is cut into jobs of [`MIN_JOB_SIZE`] bytes (or one block, if
    /// larger) in every case, so the output is the same for any value.
    pub threads: usize,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions {
            level: 1,
            block_size: BlockSize::Max4MB,
            block_mode: BlockMode::Independent,
            block_checksum: false,
            content_checksum: true,
            content_size: None,
            dict_id: None,
            dictionary: None,
            legacy: false,
            threads: 1,
        }
    }
}

impl FrameOptions {
    /// The defaults (see [`FrameOptions`]); change them with the methods
    /// below.
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameOptions};
    ///
    /// let opts = FrameOptions::new()
    ///     .level(9)
    ///     .block_size(BlockSize::Max256KB)
    ///     .block_mode(BlockMode::Linked)
    ///     .block_checksum(true)
    ///     .threads(2);
    /// let data = b"builder options ".repeat(1000);
    /// assert_eq!(frame::decompress(&frame::compress(&data, &opts))?, data);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Set [`FrameOptions::level`] (a [`Level`] or a plain `i32`).
    pub fn level(mut self, level: impl Into<Level>) -> Self {
        self.level = level.into().get();
        self
    }

    /// Set [`FrameOptions::block_size`].
    pub fn block_size(mut self, block_size: BlockSize) -> Self {
        self.block_size = block_size;
        self
    }

    /// Set [`FrameOptions::block_mode`].
    pub fn block_mode(mut self, block_mode: BlockMode) -> Self {
        self.block_mode = block_mode;
        self
    }

    /// Set [`FrameOptions::block_checksum`].
    pub fn block_checksum(mut self, on: bool) -> Self {
        self.block_checksum = on;
        self
    }

    /// Set [`FrameOptions::content_checksum`].
    pub fn content_checksum(mut self, on: bool) -> Self {
        self.content_checksum = on;
        self
    }

    /// Set [`FrameOptions::content_size`].
    pub fn content_size(mut self, size: Option<u64>) -> Self {
        self.content_size = size;
        self
    }

    /// Set [`FrameOptions::dict_id`].
    pub fn dict_id(mut self, id: Option<u32>) -> Self {
        self.dict_id = id;
        self
    }

    /// Set [`FrameOptions::dictionary`] (shared, not copied, when given an
    /// `Arc<[u8]>`).
    pub fn dictionary(mut self, dict: impl Into<Arc<[u8]>>) -> Self {
        self.dictionary = Some(dict.into());
        self
    }

    /// Set or clear [`FrameOptions::dictionary`].
    pub fn dictionary_opt(mut self, dict: Option<Arc<[u8]>>) -> Self {
        self.dictionary = dict;
        self
    }

    /// Set [`FrameOptions::legacy`].
    pub fn legacy(mut self, on: bool) -> Self {
        self.legacy = on;
        self
    }

    /// Set [`FrameOptions::threads`].
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
}

/// Options for reading frames: [`decompress_with`] and
/// [`FrameDecoder::with_options`]. [`Default`] decodes on the calling thread
/// without a dictionary.
#[derive(Debug, Clone)]
pub struct DecodeOptions {
    /// Worker threads for independent-block frames: 0 = one per core, 1 =
    /// decode on the calling thread. Linked-block frames always decode
    /// serially (each block needs the one before it). Output and errors do
    /// not depend on this value.
    pub threads: usize,
    /// The dictionary the frames were compressed with, if any.
    pub dictionary: Option<Arc<[u8]>>,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            threads: 1,
            dictionary: None,
        }
    }
}

impl DecodeOptions {
    /// The defaults (see [`DecodeOptions`]); change them with the methods
    /// below.
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, DecodeOptions, FrameOptions};
    ///
    /// let data = b"decode options ".repeat(1000);
    /// let packed = frame::compress(&data, &FrameOptions::new());
    /// let opts = DecodeOptions::new().threads(0);
    /// assert_eq!(frame::decompress_with(&packed, &opts)?, data);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Set [`DecodeOptions::threads`].
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Set [`DecodeOptions::dictionary`] (shared, not copied, when given an
    /// `Arc<[u8]>`).
    pub fn dictionary(mut self, dict: impl Into<Arc<[u8]>>) -> Self {
        self.dictionary = Some(dict.into());
        self
    }

    /// Set or clear [`DecodeOptions::dictionary`].
    pub fn dictionary_opt(mut self, dict: Option<Arc<[u8]>>) -> Self {
        self.dictionary = dict;
        self
    }
}

/// Smallest input of one compression job: the encoder cuts its input into
/// jobs of `max(MIN_JOB_SIZE, block size)` bytes (a whole number of blocks),
/// ended early only by [`FrameEncoder`]'s `flush`. Jobs are what threads
/// compress in parallel; in linked mode each starts from the 64 KiB of input
/// before it, so jobs depend on the input alone.
pub const MIN_JOB_SIZE: usize = 4 << 20;

/// Magic number of a standard frame (little-endian on the wire).
pub const MAGIC: u32 = 0x184D_2204;
/// Magic number of the legacy format.
pub const LEGACY_MAGIC: u32 = 0x184C_2102;
/// Skippable frames use magic numbers `0x184D2A50..=0x184D2A5F`.
pub const SKIPPABLE_MAGIC_MIN: u32 = 0x184D_2A50;
/// Last skippable magic number.
pub const SKIPPABLE_MAGIC_MAX: u32 = 0x184D_2A5F;
/// Uncompressed size of each legacy block (8 MiB).
pub const LEGACY_BLOCK_SIZE: usize = 8 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| ((i / 7) % 251) as u8 ^ ((i * i) >> 13) as u8)
            .collect()
    }

    #[test]
    fn every_option_round_trips_one_shot_and_streaming() {
        let data = sample(700_000);
        let dict: Arc<[u8]> = sample(90_000).into();
        for bs in [
            BlockSize::Max64KB,
            BlockSize::Max256KB,
            BlockSize::Max1MB,
            BlockSize::Max4MB,
        ] {
            for mode in [BlockMode::Linked, BlockMode::Independent] {
                for flags in 0..16 {
                    let opts = FrameOptions {
                        block_size: bs,
                        block_mode: mode,
                        block_checksum: flags & 1 != 0,
                        content_checksum: flags & 2 != 0,
                        content_size: (flags & 4 != 0).then_some(0),
                        dictionary: (flags & 8 != 0).then(|| dict.clone()),
                        ..FrameOptions::default()
                    };
                    let c = compress(&data, &opts);
                    let d = if flags & 8 != 0 {
                        decompress_with_dict(&c, &dict)
                    } else {
                        decompress(&c)
                    };
                    assert_eq!(d.unwrap(), data, "{opts:?}");
                    let mut out = Vec::new();
                    let mut dec = if flags & 8 != 0 {
                        FrameDecoder::with_dictionary(&c[..], &dict)
                    } else {
                        FrameDecoder::new(&c[..])
                    };
                    std::io::copy(&mut dec, &mut out).unwrap();
                    assert_eq!(out, data, "streaming {opts:?}");
                }
            }
        }
    }

    #[test]
    fn legacy_round_trips() {
        let data = sample(9 << 20);
        let c = compress(
            &data,
            &FrameOptions {
                legacy: true,
                ..FrameOptions::default()
            },
        );
        assert_eq!(decompress(&c).unwrap(), data);
    }
}
