//! The LZ4 block format: one compressed block, no header, no checksum.
//!
//! A block is a series of sequences. Each sequence is a token (high nibble:
//! literal length, low nibble: match length minus [`MIN_MATCH`]), optional
//! 255-run length bytes, the literals, a 2-byte little-endian match offset and
//! optional match-length bytes. The last sequence has literals only.
//!
//! * [`compress`] / [`compress_into`]: levels mean what they mean in the
//!   reference library (lz4 1.10), so either can replace the other:
//!   - level 1 is the fast compressor (one hash probe per position, like
//!     `LZ4_compress_default`); levels `<= 0` trade ratio for speed like the
//!     CLI's `--fast=N` (acceleration `1 - level`);
//!   - level 2 probes two hash tables (4- and 8-byte keys) per position;
//!   - levels 3 to 9 (HC) search hash chains 4, 8, ..., 256 links deep and
//!     match lazily (9 is the CLI's `-9`, the usual HC level);
//!   - levels 10 to 12 parse optimally (priced in output bytes) over deeper
//!     chain searches; levels above 12 compress like 12.
//!   - [`compress_favor_dec_speed`]: lz4's `--favor-decSpeed` for levels 10 to 12.
//! * [`decompress_into`]: safe on any input. It never panics, never reads or
//!   writes outside the two slices, only ever copies bytes it has itself
//!   written in this call (or the dictionary), and reports malformed input as
//!   [`Error::CorruptBlock`](crate::Error::CorruptBlock). It accepts exactly
//!   the blocks that the reference decoder (`LZ4_decompress_safe` of lz4
//!   1.10, `_usingDict` with a dictionary) accepts with the same output
//!   capacity, and decodes them to the same bytes, with one exception: a
//!   match offset of 0, which the format forbids and the reference decoder
//!   does not check ([`Lz4Fault::OffsetZero`](crate::Lz4Fault::OffsetZero)).
//!   Like the reference decoder, it checks the format's end-of-block rules
//!   against the capacity and the input's end, not against where the output
//!   ends, and waives them where the reference decoder's shortcut does; so
//!   the capacity can decide whether a block is accepted.
//!
//! # Layout
//! * `format`: the format's limits ([`MIN_MATCH`], [`MF_LIMIT`], ...) and
//!   [`max_compressed_size`];
//! * `sequence`: writing sequences, the output path of every compressor;
//! * `compress`: the fast compressor and the per-level dispatch; `hc`: the
//!   high-compression engines (levels 2 to 12);
//! * `decompress` (entry points), `fast` (the fast loop) and `careful` (the
//!   exact-bounds steps and what both loops share), `variant`, `decoder`:
//!   the decode loop, its instances (from the kernel table), and the
//!   adaptive [`Decoder`] that chooses among them.

mod careful;
mod compress;
mod decoder;
mod decompress;
mod fast;
mod format;
mod guess;
mod hc;
mod sequence;
mod variant;

pub use crate::kernels::table::Kernel;
pub(crate) use compress::Compressor;
pub use decoder::Decoder;
#[doc(hidden)]
pub use decoder::{MIN_TIMED_BYTES, PRIOR_TRUST_BYTES, VariantStats};
pub use format::max_decoded_size;
pub use format::{
    LAST_LITERALS, MAX_DISTANCE, MAX_INPUT_SIZE, MF_LIMIT, MIN_MATCH, max_compressed_size,
};
#[doc(hidden)]
pub use variant::Shape;
pub use variant::Variant;

use crate::error::Result;
use crate::lz4::Level;

/// Compress `src` into a new vector at `level` (1 = default fast; `<= 0` =
/// faster; 2..=12 = slower, smaller: see the [module documentation](self)
/// and [`Level`]; a plain `i32` works).
///
/// # Panics
/// If `src` is larger than [`MAX_INPUT_SIZE`].
///
/// ```
/// use lzkit::lz4::block;
///
/// let data = b"abcabcabcabcabcabcabcabcabcabc".repeat(10);
/// let packed = block::compress(&data, 9);
/// assert!(packed.len() < data.len());
/// assert_eq!(block::decompress(&packed, data.len())?, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress(src: &[u8], level: impl Into<Level>) -> Vec<u8> {
    compress_with_dict(src, &[], level)
}

/// Compress `src` into `dst` and return the compressed size. `dst` should be
/// at least [`max_compressed_size`]`(src.len())` bytes; a smaller buffer is an
/// error if the output does not fit in it.
///
/// ```
/// use lzkit::lz4::block;
///
/// let data = vec![7u8; 10_000];
/// let mut dst = vec![0u8; block::max_compressed_size(data.len())];
/// let n = block::compress_into(&data, &mut dst, 1)?;
/// let mut out = vec![0u8; data.len()];
/// assert_eq!(block::decompress_into(&dst[..n], &mut out)?, data.len());
/// assert_eq!(out, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress_into(src: &[u8], dst: &mut [u8], level: impl Into<Level>) -> Result<usize> {
    compress::compress_with_dict_into(src, &[], dst, level.into().get())
}

/// Compress `src` using the last 64 KiB of `dict` as history (an external
/// dictionary); decode the result with [`decompress_with_dict_into`].
///
/// # Panics
/// If `src` is larger than [`MAX_INPUT_SIZE`].
///
/// ```
/// use lzkit::lz4::block;
///
/// let dict = b"GET /index.html HTTP/1.1\r\nHost: example.com\r\n".repeat(4);
/// let msg = b"GET /index.html HTTP/1.1\r\nHost: example.org\r\n";
/// let packed = block::compress_with_dict(msg, &dict, 1);
/// let mut out = vec![0u8; msg.len()];
/// let n = block::decompress_with_dict_into(&packed, &mut out, &dict)?;
/// assert_eq!(&out[..n], &msg[..]);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress_with_dict(src: &[u8], dict: &[u8], level: impl Into<Level>) -> Vec<u8> {
    let mut dst = vec![0u8; max_compressed_size(src.len())];
    let n = compress::compress_with_dict_into(src, dict, &mut dst, level.into().get())
        .expect("input larger than MAX_INPUT_SIZE");
    dst.truncate(n);
    dst
}

/// [`compress_with_dict`] into a caller's buffer.
///
/// ```
/// use lzkit::lz4::block;
///
/// let dict = b"a shared preamble, ".repeat(20);
/// let msg = b"a shared preamble, then something new";
/// let mut dst = vec![0u8; block::max_compressed_size(msg.len())];
/// let n = block::compress_with_dict_into(msg, &dict, &mut dst, 1)?;
/// let mut out = vec![0u8; msg.len()];
/// block::decompress_with_dict_into(&dst[..n], &mut out, &dict)?;
/// assert_eq!(&out[..], &msg[..]);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress_with_dict_into(
    src: &[u8],
    dict: &[u8],
    dst: &mut [u8],
    level: impl Into<Level>,
) -> Result<usize> {
    compress::compress_with_dict_into(src, dict, dst, level.into().get())
}

/// Compress `src` at `level` with lz4's *favor decompression speed* option
/// (`LZ4HC_setFavorDecSpeed`, the CLI's `--favor-decSpeed`, the frame
/// option [`FrameOptions::favor_dec_speed`](crate::lz4::frame::FrameOptions::favor_dec_speed)):
/// levels 10 to 12 avoid matches that are slow to copy (offsets below 8,
/// lengths 19 to 36), for faster decoding at a small cost in ratio. Other
/// levels compress exactly as [`compress`], as in the reference.
///
/// # Panics
/// If `src` is larger than [`MAX_INPUT_SIZE`].
///
/// ```
/// use lzkit::lz4::block;
///
/// let data: Vec<u8> = (0..20_000u32).flat_map(|i| (i % 700).to_le_bytes()).collect();
/// let fast_to_decode = block::compress_favor_dec_speed(&data, 12);
/// assert_eq!(block::decompress(&fast_to_decode, data.len())?, data);
/// // Below level 10 the option changes nothing.
/// assert_eq!(block::compress_favor_dec_speed(&data, 9), block::compress(&data, 9));
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress_favor_dec_speed(src: &[u8], level: impl Into<Level>) -> Vec<u8> {
    let mut dst = vec![0u8; max_compressed_size(src.len())];
    let n = compress_favor_dec_speed_into(src, &mut dst, level)
        .expect("input larger than MAX_INPUT_SIZE");
    dst.truncate(n);
    dst
}

/// [`compress_favor_dec_speed`] into a caller's buffer (at least
/// [`max_compressed_size`]`(src.len())` bytes, as for [`compress_into`]);
/// returns the compressed size.
///
/// ```
/// use lzkit::lz4::block;
///
/// let data = b"favor decompression speed, ".repeat(500);
/// let mut dst = vec![0u8; block::max_compressed_size(data.len())];
/// let n = block::compress_favor_dec_speed_into(&data, &mut dst, 11)?;
/// assert_eq!(block::decompress(&dst[..n], data.len())?, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress_favor_dec_speed_into(
    src: &[u8],
    dst: &mut [u8],
    level: impl Into<Level>,
) -> Result<usize> {
    compress::compress_favoring_dec_speed_into(src, dst, level.into().get())
}

/// Decompress the block `src` into `dst` and return the number of bytes
/// written. `dst.len()` is the capacity: any upper bound of the decoded size.
///
/// Bytes of `dst` past the returned length are unspecified (they may have been
/// used as scratch space) but are never read as match sources.
///
/// The free functions keep **no state** between calls: each block is
/// decoded with the variant that a sample of its first sequences suggests
/// ([`free_variant`]; a fraction of a microsecond on blocks of 16 KiB and
/// more, the CPU's default variant on smaller ones), so no call is
/// affected by what was decoded before it, on this thread or any other.
/// A [`Decoder`] kept per stream (a column, a file) also learns from its
/// own timings which variant is fastest, and is the better choice for
/// long streams.
///
/// ```
/// use lzkit::lz4::block;
///
/// let data = b"one block, no header: the caller keeps the size. ".repeat(20);
/// let packed = block::compress(&data, 1);
/// let mut out = vec![0u8; data.len()];
/// let n = block::decompress_into(&packed, &mut out)?;
/// assert_eq!(&out[..n], &data[..]);
/// // Malformed input is an error, never a panic.
/// assert!(block::decompress_into(&[0xF0, 1, 2], &mut out).is_err());
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_into(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let (_, entry, _) = free_choice(src, dst.len());
    entry(src, dst, 0).map_err(|e| *e)
}

/// The free functions' variant for `src` into `capacity` bytes, with its
/// entry points (see [`free_variant`]).
#[inline]
fn free_choice(src: &[u8], capacity: usize) -> guess::Choice {
    if capacity >= guess::BLOCK_SAMPLE_MIN_OUTPUT {
        guess::choose(src, capacity)
    } else {
        guess::default_choice()
    }
}

/// The variant the free functions ([`decompress_into`] and the others)
/// decode the block `src` with, into `capacity` bytes: the one a sample of
/// its first sequences suggests if `capacity` is at least 16 KiB, else
/// [`Variant::default_for_cpu`]. Depends on nothing but its arguments.
///
/// ```
/// use lzkit::lz4::block::{self, Variant};
/// let packed = block::compress(&[1u8; 100], 1);
/// assert_eq!(block::free_variant(&packed, 100), Variant::default_for_cpu());
/// ```
pub fn free_variant(src: &[u8], capacity: usize) -> Variant {
    // (see guess.rs for the rule and the measurements behind it)
    free_choice(src, capacity).0
}

/// The variant a decoder's data prior ([`Decoder::with_data_prior`]) sets
/// when `src`, to decode into `capacity` bytes, is the block it is taken
/// from. Benchmark reports.
#[doc(hidden)]
pub fn stream_guess(src: &[u8], capacity: usize) -> Variant {
    guess::data_prior(src, capacity).0
}

/// Decompress a block compressed with a dictionary ([`compress_with_dict`]):
/// matches may reach into the last 64 KiB of `dict`. Keeps no state, as
/// [`decompress_into`].
///
/// ```
/// use lzkit::lz4::block;
///
/// let dict = b"{\"user\": \"\", \"role\": \"admin\", \"active\": true}".repeat(3);
/// let record = b"{\"user\": \"ada\", \"role\": \"admin\", \"active\": true}";
/// let packed = block::compress_with_dict(record, &dict, 9);
/// let mut out = vec![0u8; record.len()];
/// let n = block::decompress_with_dict_into(&packed, &mut out, &dict)?;
/// assert_eq!(&out[..n], &record[..]);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_with_dict_into(src: &[u8], dst: &mut [u8], dict: &[u8]) -> Result<usize> {
    if dict.is_empty() {
        return decompress_into(src, dst);
    }
    let (_, _, entry) = free_choice(src, dst.len());
    entry(src, dict, dst).map_err(|e| *e)
}

/// Decompress `src` into a new vector of at most `max_size` bytes (an
/// upper bound of the decoded size; a block that decodes to more is an
/// error).
///
/// The buffer decoded into is `max_size` bytes, or what `src` can decode to
/// at most (255 bytes per input byte, plus 64) if that is less: a generous
/// `max_size` costs nothing and the result is the same. If the system will
/// not allocate it, the error is [`Error::OutOfMemory`](crate::Error::OutOfMemory).
///
/// ```
/// use lzkit::lz4::block;
///
/// let data = vec![b'x'; 4096];
/// let packed = block::compress(&data, 1);
/// assert_eq!(block::decompress(&packed, data.len())?, data);
/// assert!(block::decompress(&packed, 100).is_err());
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress(src: &[u8], max_size: usize) -> Result<Vec<u8>> {
    let mut dst = crate::mem::zeroed(max_size.min(max_decoded_size(src.len())))?;
    let n = decompress_into(src, &mut dst)?;
    dst.truncate(n);
    Ok(dst)
}
