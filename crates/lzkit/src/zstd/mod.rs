//! Zstandard decoding (RFC 8878), in safe Rust except for the copy kernels
//! and the sequence loop.
//!
//! * [`decompress`] / [`decompress_into`]: every frame of a buffer, one
//!   shot.
//! * [`Decoder`]: reusable: keeps its buffers, its dictionaries and what
//!   its chooser learned between frames (one per stream, as for LZ4).
//! * [`FrameDecoder`]: a [`std::io::Read`] adapter, with a window limit.
//! * [`PushDecoder`]: the same decoding with the input pushed in pieces
//!   (a `decompressobj`, a writer), output handed back block by block.
//! * [`Dictionary`]: raw-content and zstd-format dictionaries.
//! * [`list_frames`]: what `zstd -l` prints, without decoding.
//! * With the `zstd-compress` feature: `compress`, `FrameEncoder` and
//!   `FrameOptions` (the names of their LZ4 counterparts in
//!   [`crate::lz4::frame`]), zstd compression through libzstd at a
//!   [`Level`] (the decoder stays lzkit's own).
//!
//! # Deliberate differences from libzstd
//!
//! Every lzkit entry point (one-shot, into a buffer, every variant,
//! streaming) gives one frame one verdict, and follows RFC 8878 where
//! libzstd is more permissive:
//!
//! * A Huffman literal stream must be consumed exactly; libzstd's
//!   double-symbol decoder accepts some streams whose symbols read past
//!   their start.
//! * A match offset may reach at most the frame's window back, and the
//!   dictionary only while the frame's output is no longer than the window
//!   ([`crate::ZstdFault::OffsetBeyondWindow`]). libzstd's one-shot decoder
//!   checks offsets only against the output so far (and the whole
//!   dictionary), and accepts such frames; its streaming decoder, which
//!   keeps only the window, rejects most of them. No frame a compressor
//!   writes has such offsets.
//!
//! As libzstd, a Frame_Content_Size of 2^64 − 1 (its
//! `ZSTD_CONTENTSIZE_UNKNOWN`) means the frame states no size.
//!
//! Matches whose offset is shorter than the copy width are filled from a
//! pattern register (the same kernels as the LZ4 decoder), and the
//! sequence loop is instantiated per kernel: the [`Variant`]s, among which
//! a [`Decoder`] chooses per stream what is fastest.
//!
//! ```
//! // A frame made by libzstd (`zstd` CLI, level 3) of "hello hello hello\n".
//! let frame = [
//!     0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
//!     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa,
//!     0x74, 0xce,
//! ];
//! assert_eq!(lzkit::zstd::decompress(&frame)?, b"hello hello hello\n");
//! # Ok::<(), lzkit::Error>(())
//! ```

mod bits;
mod block;
mod decoder;
mod dict;
#[cfg(feature = "zstd-compress")]
mod encoder;
mod exec;
pub(crate) mod frame;
mod frame_state;
mod fse;
mod huf;
mod level;
mod list;
mod push;
mod seq;
mod stream;
mod variant;

pub use decoder::{Decoder, VariantStats};
pub use dict::Dictionary;
#[cfg(feature = "zstd-compress")]
pub use encoder::{
    AutoFinishEncoder, DEFAULT_LONG_WINDOW_LOG, FrameEncoder, FrameOptions, compress,
};
pub use level::{Level, MAX_LEVEL, MIN_LEVEL, ULTRA_MAX_LEVEL};
pub use list::{FrameInfo, FrameKind, list_frames};
pub use push::{PushDecoder, Pushed};
pub use stream::FrameDecoder;
pub use variant::Variant;

pub use crate::kernels::table::Kernel;

use crate::error::Result;

/// The magic number that starts every zstd frame (little-endian on disk:
/// `28 b5 2f fd`).
pub const MAGIC: u32 = 0xFD2F_B528;

/// The magic number of a zstd-format dictionary.
pub const DICT_MAGIC: u32 = 0xEC30_A437;

/// The largest block a frame may hold, compressed or decoded: 128 KiB.
pub const BLOCK_SIZE_MAX: usize = 128 << 10;

/// The largest window log the format allows (31 on 64-bit targets).
pub const WINDOW_LOG_MAX: u32 = if usize::BITS >= 64 { 31 } else { 30 };

/// The default limit on a frame's window when streaming: 2^27 = 128 MiB,
/// as `zstd -d` (raise it with [`DecodeOptions::window_log_max`]; frames
/// made with `zstd --long=31` need 31).
pub const DEFAULT_WINDOW_LOG_MAX: u32 = 27;

/// Whether `magic` (four bytes read little-endian) starts a skippable
/// frame (`0x184D2A50` to `0x184D2A5F`, shared with the LZ4 frame format).
pub const fn is_skippable_magic(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == 0x184D_2A50
}

/// Whether `data` starts with a zstd frame's magic number.
///
/// ```
/// assert!(lzkit::zstd::is_zstd(&[0x28, 0xb5, 0x2f, 0xfd, 0]));
/// assert!(!lzkit::zstd::is_zstd(&[0x04, 0x22, 0x4d, 0x18]));
/// ```
pub fn is_zstd(data: &[u8]) -> bool {
    data.len() >= 4 && u32::from_le_bytes([data[0], data[1], data[2], data[3]]) == MAGIC
}

/// Options of a zstd [`Decoder`], [`FrameDecoder`] or [`PushDecoder`].
///
/// ```
/// use lzkit::zstd::DecodeOptions;
/// let opts = DecodeOptions::new().window_log_max(30).verify_checksums(false);
/// assert_eq!(opts.window_limit(), 1 << 30);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    window_log_max: u32,
    verify_checksums: bool,
    filtered_streams: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions::new()
    }
}

impl DecodeOptions {
    /// Window log 27 (128 MiB) at most, checksums verified.
    pub const fn new() -> Self {
        DecodeOptions {
            window_log_max: DEFAULT_WINDOW_LOG_MAX,
            verify_checksums: true,
            filtered_streams: false,
        }
    }

    /// The largest window a streaming decoder accepts, as a log (10 to
    /// [`WINDOW_LOG_MAX`]; clamped to that range): a frame that needs
    /// more is refused with [`crate::ZstdFrameFault::WindowTooLarge`] before
    /// anything is allocated. One-shot decoding into a buffer keeps no
    /// window and ignores it.
    pub const fn window_log_max(mut self, log: u32) -> Self {
        self.window_log_max = if log < 10 {
            10
        } else if log > WINDOW_LOG_MAX {
            WINDOW_LOG_MAX
        } else {
            log
        };
        self
    }

    /// Whether to verify content checksums (XXH64) where frames have
    /// them (default: yes).
    pub const fn verify_checksums(mut self, verify: bool) -> Self {
        self.verify_checksums = verify;
        self
    }

    /// The window limit in bytes.
    pub const fn window_limit(&self) -> u64 {
        1 << self.window_log_max
    }

    /// Whether checksums are verified.
    pub const fn verifies_checksums(&self) -> bool {
        self.verify_checksums
    }

    /// Whether the streaming [`FrameDecoder`] refuses a filtered stream
    /// joined with other frames (default: no, as `zstd -d`, which skips
    /// every skippable frame). A stream that starts with lzkit's filter
    /// frame ([`crate::filter::read_frame`]) holds one frame, whose
    /// content went through the filter; with this on, a frame after it,
    /// or a filter frame after other frames, is
    /// [`crate::Error::FilteredStreamJoined`], where undoing the filter
    /// over the whole content would give wrong bytes with no error.
    ///
    /// ```
    /// use lzkit::zstd::{DecodeOptions, Decoder, FrameDecoder};
    /// use std::io::Read;
    ///
    /// let filter: lzkit::filter::Filter = "delta4".parse()?;
    /// let mut joined = zstd_frame(b"another file");
    /// joined.extend(filter.frame());
    /// joined.extend(zstd_frame(&filter.encode(&[7; 64])));
    /// let opts = DecodeOptions::new().filtered_streams(true);
    /// let mut d = FrameDecoder::with_decoder(&joined[..], Decoder::with_options(opts));
    /// let err = d.read_to_end(&mut Vec::new()).unwrap_err();
    /// assert!(err.to_string().contains("filtered stream"));
    /// # fn zstd_frame(data: &[u8]) -> Vec<u8> {
    /// #     let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x20, data.len() as u8];
    /// #     f.extend([(data.len() << 3) as u8 | 1, (data.len() >> 5) as u8, 0]);
    /// #     f.extend_from_slice(data);
    /// #     f
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn filtered_streams(mut self, on: bool) -> Self {
        self.filtered_streams = on;
        self
    }

    /// Whether filtered streams joined with other frames are refused
    /// ([`DecodeOptions::filtered_streams`]).
    pub const fn checks_filtered_streams(&self) -> bool {
        self.filtered_streams
    }
}

/// Decode every frame of `src` (zstd frames, skippable frames skipped)
/// into a new vector, with [`Variant::default_for_cpu`] (a one-off call
/// has nothing to learn from; a stream of calls does better with one
/// [`Decoder`]).
///
/// The output grows with what the input produces, block by block; a
/// content size in a frame header is used to size it only as far as the
/// input can back it.
///
/// # Errors
/// Any malformed or truncated frame, a wrong checksum, or a frame that
/// needs a dictionary (use a [`Decoder`] with [`Decoder::with_dictionary`]).
pub fn decompress(src: &[u8]) -> Result<Vec<u8>> {
    Decoder::for_cpu().decompress(src)
}

/// Decode every frame of `src` into `dst`; returns the number of bytes
/// written.
///
/// # Errors
/// As [`decompress`], and [`crate::ZstdFault::OutputTooSmall`] if the
/// data does not fit in `dst`.
///
/// ```
/// # let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
/// #     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa, 0x74, 0xce];
/// let mut out = [0u8; 64];
/// let n = lzkit::zstd::decompress_into(&frame, &mut out)?;
/// assert_eq!(&out[..n], b"hello hello hello\n");
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_into(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    Decoder::for_cpu().decompress_into(src, dst)
}
