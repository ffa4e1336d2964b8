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
//! * Options: [`FrameOptions`] and [`DecodeOptions`], built with
//!   [`FrameOptions::new`] / [`DecodeOptions::new`] and their setters; the
//!   level is a [`Level`] (or a plain `i32`).
//!
//! ```
//! use lzkit::lz4::frame::{self, FrameDecoder, FrameEncoder, FrameOptions};
//! use std::io::{Read, Write};
//!
//! let data = b"one-shot or streaming, the same frame. ".repeat(500);
//! let opts = FrameOptions::new().level(9).content_size(Some(0));
//! let one_shot = frame::compress(&data, &opts);
//!
//! let mut enc = FrameEncoder::new(Vec::new(), &opts.clone().content_size(Some(data.len() as u64)));
//! enc.write_all(&data)?;
//! assert_eq!(enc.finish()?, one_shot);
//!
//! let mut back = Vec::new();
//! FrameDecoder::new(&one_shot[..]).read_to_end(&mut back)?;
//! assert_eq!(back, data);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Layout
//! `encoder` writes frames; `decode/` reads them, one module per way
//! (`slice`: one-shot, `stream`: [`FrameDecoder`], `parallel`: worker
//! threads, `legacy`: the legacy format); `header` is the frame descriptor;
//! `list` walks frames without decoding them.

pub(crate) mod decode;
mod encoder;
pub(crate) mod header;
mod list;

pub use crate::pool::effective_threads;
pub use decode::{
    FrameDecoder, PushDecoder, decompress, decompress_first, decompress_into, decompress_with,
    decompress_with_dict, max_decoded_len,
};
pub use encoder::{AutoFinishEncoder, FrameEncoder, compress, try_compress, try_compress_to};
pub use header::{BlockMode, BlockSize};
pub use list::{FrameInfo, FrameKind, first_frame, list_frames, read_header};

use crate::error::{Error, Result};
use crate::lz4::Level;
use std::sync::Arc;

/// The setters both option types have, for their `threads` and
/// `dictionary` fields.
macro_rules! shared_setters {
    ($opts:ident) => {
        impl $opts {
            #[doc = concat!("Set [`", stringify!($opts), "::threads`].")]
            pub fn threads(mut self, threads: usize) -> Self {
                self.threads = threads;
                self
            }

            #[doc = concat!("Set [`", stringify!($opts), "::dictionary`] (shared, not copied, when given an `Arc<[u8]>`).")]
            pub fn dictionary(mut self, dict: impl Into<Arc<[u8]>>) -> Self {
                self.dictionary = Some(dict.into());
                self
            }

            #[doc = concat!("Set or clear [`", stringify!($opts), "::dictionary`].")]
            pub fn dictionary_opt(mut self, dict: Option<Arc<[u8]>>) -> Self {
                self.dictionary = dict;
                self
            }
        }
    };
}

/// Options for writing a frame. [`FrameOptions::new`] (or [`Default`]) gives
/// the `lz4` CLI's defaults: level 1, 4 MiB independent blocks, content
/// checksum on, no block checksum, no content size; the builder methods
/// change them. New options may be added (the struct is non-exhaustive), so
/// build it with [`FrameOptions::new`] rather than a struct literal.
///
/// Some options exclude others: see [`FrameOptions::validate`].
#[derive(Debug, Clone)]
#[non_exhaustive]
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
    /// no checksums, no header options. `block_size` and `content_checksum`
    /// are then ignored; a dictionary, a dictionary ID, block checksums, a
    /// content size or linked blocks are errors ([`FrameOptions::validate`]).
    pub legacy: bool,
    /// Levels 10 to 12: avoid matches that are slow to decode (offsets
    /// below 8, lengths 19 to 36), for faster decoding at a small cost in
    /// ratio (`lz4 --favor-decSpeed`). Other levels ignore it, as in lz4.
    pub favor_dec_speed: bool,
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
            favor_dec_speed: false,
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

    /// Set [`FrameOptions::legacy`].
    pub fn legacy(mut self, on: bool) -> Self {
        self.legacy = on;
        self
    }

    /// Set [`FrameOptions::favor_dec_speed`].
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, FrameOptions};
    ///
    /// let data: Vec<u8> = (0..200_000u32).map(|i| (i % 7 + i / 1000 % 13) as u8).collect();
    /// let plain = frame::compress(&data, &FrameOptions::new().level(12));
    /// let quick = frame::compress(&data, &FrameOptions::new().level(12).favor_dec_speed(true));
    /// assert_ne!(plain, quick);
    /// assert_eq!(frame::decompress(&quick)?, data);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn favor_dec_speed(mut self, on: bool) -> Self {
        self.favor_dec_speed = on;
        self
    }

    /// Check that the options can be used together: the legacy format
    /// (`legacy`) has no dictionary, dictionary ID, block checksums, content
    /// size or linked blocks. [`FrameEncoder`] and [`compress`] report these
    /// as [`Error::InvalidOptions`].
    ///
    /// ```
    /// use lzkit::Error;
    /// use lzkit::lz4::frame::{self, FrameOptions};
    ///
    /// let opts = FrameOptions::new().legacy(true).dictionary(&b"dict"[..]);
    /// assert!(matches!(opts.validate(), Err(Error::InvalidOptions(_))));
    /// assert!(frame::try_compress(b"data", &opts).is_err());
    /// assert!(FrameOptions::new().legacy(true).validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<()> {
        if !self.legacy {
            return Ok(());
        }
        let problem = if self.dictionary.is_some() {
            "the legacy format cannot use a dictionary: remove the dictionary or write a standard frame"
        } else if self.dict_id.is_some() {
            "the legacy format has no dictionary ID: remove dict_id or write a standard frame"
        } else if self.block_checksum {
            "the legacy format has no block checksums: turn block_checksum off or write a standard frame"
        } else if self.content_size.is_some() {
            "the legacy format cannot store the content size: remove content_size or write a standard frame"
        } else if self.block_mode == BlockMode::Linked {
            "the legacy format has only independent blocks: use BlockMode::Independent or write a standard frame"
        } else {
            return Ok(());
        };
        Err(Error::InvalidOptions(problem))
    }
}

shared_setters!(FrameOptions);

/// Options for reading frames: [`decompress_with`] and
/// [`FrameDecoder::with_options`]. [`DecodeOptions::new`] (or [`Default`])
/// decodes on the calling thread without a dictionary. New options may be
/// added (the struct is non-exhaustive): build it with
/// [`DecodeOptions::new`] and the builder methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Worker threads for independent-block frames: 0 = one per core, 1 =
    /// decode on the calling thread. Linked-block frames always decode
    /// serially (each block needs the one before it). Output and errors do
    /// not depend on this value.
    pub threads: usize,
    /// The dictionary the frames were compressed with, if any.
    pub dictionary: Option<Arc<[u8]>>,
    /// Verify block and content checksums (the default). Without, they are
    /// read past and neither computed nor compared (`lz4 --no-crc`): faster,
    /// and damaged data decodes to wrong bytes instead of an error.
    pub verify_checksums: bool,
    /// Refuse a filtered stream joined with other frames (default: off,
    /// as `lz4 -d`, which skips every skippable frame). A stream that
    /// starts with lzkit's filter frame ([`crate::filter::read_frame`])
    /// holds one frame, whose content went through the filter; with this
    /// on, the streaming [`FrameDecoder`] reports
    /// [`crate::Error::FilteredStreamJoined`] for a frame after it, or
    /// for a filter frame after other frames, where undoing the filter
    /// over the whole content would give wrong bytes with no error.
    pub filtered_streams: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            threads: 1,
            dictionary: None,
            verify_checksums: true,
            filtered_streams: false,
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

    /// Set [`DecodeOptions::verify_checksums`].
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, DecodeOptions, FrameOptions};
    ///
    /// let data = b"checked or not ".repeat(100);
    /// let mut packed = frame::compress(&data, &FrameOptions::new());
    /// let last = packed.len() - 1;
    /// packed[last] ^= 1; // damage the content checksum
    /// assert!(frame::decompress(&packed).is_err());
    /// let unchecked = DecodeOptions::new().verify_checksums(false);
    /// assert_eq!(frame::decompress_with(&packed, &unchecked)?, data);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn verify_checksums(mut self, on: bool) -> Self {
        self.verify_checksums = on;
        self
    }

    /// Set [`DecodeOptions::filtered_streams`].
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, DecodeOptions, FrameDecoder, FrameOptions};
    /// use std::io::Read;
    ///
    /// let filter: lzkit::filter::Filter = "delta4".parse()?;
    /// let mut joined = filter.frame();
    /// joined.extend(frame::compress(&filter.encode(&[7; 64]), &FrameOptions::new()));
    /// joined.extend(frame::compress(b"another file", &FrameOptions::new()));
    /// let opts = DecodeOptions::new().filtered_streams(true);
    /// let mut out = Vec::new();
    /// let err = FrameDecoder::with_options(&joined[..], &opts).read_to_end(&mut out);
    /// assert!(err.unwrap_err().to_string().contains("filtered stream"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filtered_streams(mut self, on: bool) -> Self {
        self.filtered_streams = on;
        self
    }
}

shared_setters!(DecodeOptions);

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
            .map(|i| ((i / 7) % 251) as u8 ^ ((i as u64 * i as u64) >> 13) as u8)
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

    #[test]
    fn favor_dec_speed_changes_optimal_levels_only_and_round_trips() {
        let data = sample(600_000);
        for level in [9, 10, 11, 12] {
            let base = FrameOptions::new().level(level);
            let plain = compress(&data, &base);
            let favored = compress(&data, &base.clone().favor_dec_speed(true));
            assert_eq!(decompress(&favored).unwrap(), data, "level {level}");
            if level >= 10 {
                assert_ne!(plain, favored, "level {level}");
            } else {
                assert_eq!(plain, favored, "level {level}: ignored below 10");
            }
        }
    }

    #[test]
    fn legacy_rejects_what_it_cannot_write() {
        use std::io::Write;
        let legacy = FrameOptions::new().legacy(true);
        let bad = [
            legacy.clone().dictionary(&b"dict"[..]),
            legacy.clone().dict_id(Some(7)),
            legacy.clone().block_checksum(true),
            legacy.clone().content_size(Some(3)),
            legacy.clone().block_mode(BlockMode::Linked),
        ];
        for o in &bad {
            assert!(
                matches!(o.validate(), Err(Error::InvalidOptions(_))),
                "{o:?}"
            );
            assert!(matches!(
                try_compress(b"abc", o),
                Err(Error::InvalidOptions(_))
            ));
            assert!(FrameEncoder::try_new(Vec::new(), o).is_err());
            let mut enc = FrameEncoder::new(Vec::new(), o);
            let e = enc.write_all(b"abc").unwrap_err();
            assert!(matches!(Error::from_io(e), Error::InvalidOptions(_)));
            assert!(enc.finish().is_err());
        }
        assert_eq!(decompress(&compress(b"abc", &legacy)).unwrap(), b"abc");
    }

    #[test]
    fn encoder_adapters() {
        use std::io::Write;
        let mut enc = FrameEncoder::new(Vec::new(), &FrameOptions::new());
        enc.write_all(b"abc").unwrap();
        enc.flush().unwrap();
        assert!(!enc.get_ref().is_empty());
        let unterminated = enc.into_inner();
        assert!(decompress(&unterminated).is_err());

        let mut out = Vec::new();
        let mut auto = FrameEncoder::new(&mut out, &FrameOptions::new()).auto_finish();
        auto.write_all(b"abc").unwrap();
        drop(auto);
        assert_eq!(decompress(&out).unwrap(), b"abc");
        let auto = FrameEncoder::new(Vec::new(), &FrameOptions::new()).auto_finish();
        assert_eq!(decompress(&auto.finish().unwrap()).unwrap(), b"");
    }
}
