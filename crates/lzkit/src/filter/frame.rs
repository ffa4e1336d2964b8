//! The filter frame: how a compressed stream records the filter its
//! content went through, so that a decoder can undo it.
//!
//! It is a *skippable frame*, which the LZ4 frame format and zstd both
//! define (same magic numbers `0x184D2A50..=0x184D2A5F`, same layout), put
//! before the first frame of the stream. `lz4 -d` and `zstd -d`, and any
//! decoder of either format, skip it and write the filtered bytes
//! (exactly [`Filter::encode`] of the input); lzkit reads it and undoes
//! the filter. The layout, all integers little-endian:
//!
//! | offset | bytes | field |
//! |-------:|------:|-------|
//! | 0  | 4 | magic number [`FRAME_MAGIC`] `0x184D2A54` (bytes `54 2A 4D 18`) |
//! | 4  | 4 | frame size: the bytes that follow this field, `10 + L` |
//! | 8  | 4 | tag [`FRAME_TAG`], ASCII `LZKF` |
//! | 12 | 1 | version [`FRAME_VERSION`] (1) |
//! | 13 | 1 | `L`, the length of the filter's name (1 to 16) |
//! | 14 | L | the filter's name in ASCII, as [`Filter`]'s `Display` writes it (`shuffle4`, `delta8`) |
//! | 14 + L | 4 | XXH32 (seed 0) of bytes 8 to 14 + L (tag to name) |
//!
//! Skippable frame `0x184D2A54` is lzkit's filter frame only when its
//! content starts with the tag: other skippable frames with that magic
//! number are someone else's and are left alone ([`read_frame`] returns
//! `None`). The seekable format's seek tables use `0x184D2A5C` (LZ4) and
//! `0x184D2A5E` (zstd), at the end of a file.
//!
//! ```
//! use lzkit::filter::{self, Filter};
//!
//! let f: Filter = "shuffle4".parse()?;
//! let header = f.frame();
//! assert_eq!(&header[..4], &[0x54, 0x2A, 0x4D, 0x18]);
//! assert_eq!(&header[8..12], b"LZKF");
//! assert_eq!(header.len(), 26);
//! // Read back from the start of a stream: the filter and the frame's length.
//! let mut stream = header.clone();
//! stream.extend_from_slice(b"...frames...");
//! assert_eq!(filter::read_frame(&stream)?, Some((f, 26)));
//! // A stream that starts with anything else records no filter.
//! assert_eq!(filter::read_frame(b"\x04\x22\x4d\x18")?, None);
//! # Ok::<(), lzkit::filter::FilterError>(())
//! ```

use xxhash_rust::xxh32::xxh32;

use super::{Filter, FilterError};

/// What a stream decoder asked to check filtered streams
/// ([`crate::lz4::frame::DecodeOptions::filtered_streams`],
/// [`crate::zstd::DecodeOptions::filtered_streams`]) knows of the frames
/// it met: a filter frame is undone over everything after it, so a
/// filtered stream must be the filter frame (among leading skippable
/// frames) and one data frame, alone. Joined with other frames (`cat`),
/// in either order, its content would come out wrong with no error.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FrameGuard {
    /// Whether to check at all.
    pub(crate) on: bool,
    /// Data frames (LZ4 or zstd, not skippable) met so far.
    data_frames: u64,
    /// Whether a filter frame came before the first data frame.
    filtered: bool,
}

impl FrameGuard {
    /// A guard that checks if `on`.
    pub(crate) fn new(on: bool) -> Self {
        FrameGuard {
            on,
            ..Default::default()
        }
    }

    /// A skippable frame of magic number `magic` at byte `at`, whose
    /// content starts with `content` (its first 4 bytes or fewer): a
    /// filter frame after a data frame is refused.
    pub(crate) fn skippable(&mut self, magic: u32, content: &[u8], at: u64) -> crate::Result<()> {
        if !self.on || magic != FRAME_MAGIC || !content.starts_with(&FRAME_TAG) {
            return Ok(());
        }
        if self.data_frames > 0 {
            return Err(crate::Error::FilteredStreamJoined {
                at,
                what: "a filter frame after other frames",
            });
        }
        self.filtered = true;
        Ok(())
    }

    /// A data frame starting at byte `at`: a second one after a filter
    /// frame is refused.
    pub(crate) fn data_frame(&mut self, at: u64) -> crate::Result<()> {
        if self.on && self.filtered && self.data_frames > 0 {
            return Err(crate::Error::FilteredStreamJoined {
                at,
                what: "a frame after a filtered stream's frame",
            });
        }
        self.data_frames += 1;
        Ok(())
    }
}

/// The magic number of the filter frame: skippable frame `0x184D2A54`.
pub const FRAME_MAGIC: u32 = 0x184D_2A54;
/// The tag that starts the filter frame's content.
pub const FRAME_TAG: [u8; 4] = *b"LZKF";
/// The version of the filter frame's layout that lzkit writes and reads.
pub const FRAME_VERSION: u8 = 1;
/// The longest filter name a frame holds.
const MAX_NAME: usize = 16;
/// Bytes of the frame before the name: magic, size, tag, version, length.
const BEFORE_NAME: usize = 14;
/// Bytes of the frame's content that are not the name: tag, version,
/// length, checksum.
const CONTENT_FIXED: usize = 10;

impl Filter {
    /// The filter frame that records this filter, to put before the first
    /// frame of a compressed stream (see [the module](crate::filter::frame)
    /// for its layout).
    ///
    /// ```
    /// let f: lzkit::filter::Filter = "delta8".parse()?;
    /// assert_eq!(lzkit::filter::read_frame(&f.frame())?, Some((f, 24)));
    /// # Ok::<(), lzkit::filter::FilterError>(())
    /// ```
    pub fn frame(&self) -> Vec<u8> {
        let name = self.to_string();
        debug_assert!(!name.is_empty() && name.len() <= MAX_NAME);
        let mut out = Vec::with_capacity(BEFORE_NAME + name.len() + 4);
        out.extend_from_slice(&FRAME_MAGIC.to_le_bytes());
        out.extend_from_slice(&((CONTENT_FIXED + name.len()) as u32).to_le_bytes());
        out.extend_from_slice(&FRAME_TAG);
        out.push(FRAME_VERSION);
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        let sum = xxh32(&out[8..], 0);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }
}

/// Whether `bytes` start with a skippable frame `0x184D2A54` whose content
/// starts with the tag `LZKF`: a filter frame, valid or not. Needs at
/// least 12 bytes to say yes.
pub fn is_filter_frame(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && bytes[..4] == FRAME_MAGIC.to_le_bytes() && bytes[8..12] == FRAME_TAG
}

/// The filter recorded by the filter frame at the start of `bytes`, and
/// the frame's length in bytes (the compressed frames start after it); or
/// `None` if `bytes` do not start with a filter frame ([`is_filter_frame`]:
/// another skippable frame, an LZ4 or zstd frame, anything else).
///
/// # Errors
/// A filter frame that cannot be used is an error, never skipped (the
/// content would come out filtered):
/// * [`FilterError::UnsupportedVersion`]: a version other than
///   [`FRAME_VERSION`] (written by a newer lzkit);
/// * [`FilterError::CorruptFrame`]: cut short, a size or name length that
///   do not agree, a checksum that fails, or a name that is no filter.
pub fn read_frame(bytes: &[u8]) -> Result<Option<(Filter, usize)>, FilterError> {
    if !is_filter_frame(bytes) {
        return Ok(None);
    }
    let corrupt = |reason: String| Err(FilterError::CorruptFrame { reason });
    let Some(&version) = bytes.get(12) else {
        return corrupt("cut short before its version".into());
    };
    if version != FRAME_VERSION {
        return Err(FilterError::UnsupportedVersion { version });
    }
    let size = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let Some(&name_len) = bytes.get(13) else {
        return corrupt("cut short before the filter's name".into());
    };
    let name_len = usize::from(name_len);
    if name_len == 0 || name_len > MAX_NAME {
        return corrupt(format!(
            "filter name of {name_len} bytes (names are 1 to {MAX_NAME})"
        ));
    }
    if size != CONTENT_FIXED + name_len {
        return corrupt(format!(
            "frame size {size} for a name of {name_len} bytes (should be {})",
            CONTENT_FIXED + name_len
        ));
    }
    let total = 8 + size;
    if bytes.len() < total {
        return corrupt(format!("cut short: {} of its {total} bytes", bytes.len()));
    }
    let name_end = BEFORE_NAME + name_len;
    let stored = u32::from_le_bytes([
        bytes[name_end],
        bytes[name_end + 1],
        bytes[name_end + 2],
        bytes[name_end + 3],
    ]);
    let computed = xxh32(&bytes[8..name_end], 0);
    if stored != computed {
        return corrupt(format!("checksum {stored:08x}, computed {computed:08x}"));
    }
    let name = &bytes[BEFORE_NAME..name_end];
    let filter = std::str::from_utf8(name)
        .ok()
        .and_then(|name| Filter::parse(name).ok());
    match filter {
        Some(filter) => Ok(Some((filter, total))),
        None => corrupt(format!(
            "it names the filter '{}', which this lzkit does not know",
            String::from_utf8_lossy(name).escape_debug()
        )),
    }
}
