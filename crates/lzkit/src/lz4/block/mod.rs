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
//! * [`decompress_into`]: safe on any input. It never panics, never reads or
//!   writes outside the two slices, only ever copies bytes it has itself
//!   written in this call (or the dictionary), and reports malformed input as
//!   [`Error::CorruptBlock`].

mod compress;
mod decoder;
mod decompress;
mod hc;
mod variant;

pub(crate) use compress::Compressor;
pub use decoder::Decoder;
#[doc(hidden)]
pub use decoder::{MIN_TIMED_BYTES, PRIOR_TRUST_BYTES, VariantStats};
#[doc(hidden)]
pub use variant::Shape;
pub use variant::{Kernel, Variant};

use std::cell::RefCell;

thread_local! {
    /// The adaptive decoder behind [`decompress_into`]: one per thread, so
    /// callers of the free function share what it learns without locking.
    static THREAD_DECODER: RefCell<Decoder> = RefCell::new(Decoder::new());
}

/// Run `f` with this thread's adaptive decoder.
pub(crate) fn with_thread_decoder<T>(f: impl FnOnce(&mut Decoder) -> T) -> T {
    THREAD_DECODER.with(|d| match d.try_borrow_mut() {
        Ok(mut d) => f(&mut d),
        // Re-entered (cannot happen today): use a one-off decoder.
        Err(_) => f(&mut Decoder::for_cpu()),
    })
}

use crate::error::{Error, Result};

/// LZ4 block format: the shortest match is 4 bytes.
pub const MIN_MATCH: usize = 4;
/// LZ4 block format: the last 5 bytes of a block are always literals.
pub const LAST_LITERALS: usize = 5;
/// LZ4 block format: the last match must start at least 12 bytes before the
/// end of the block (a match needs 4 bytes, then 8 more, so that a decoder's
/// wild copies of the last match stay inside the block's own last literals).
pub const MF_LIMIT: usize = 12;
/// Largest match offset: offsets are 16-bit, so the window is 64 KiB - 1.
pub const MAX_DISTANCE: usize = 65_535;
/// Largest input the block format accepts (`LZ4_MAX_INPUT_SIZE`).
pub const MAX_INPUT_SIZE: usize = 0x7E00_0000;

/// Upper bound of the compressed size of `n` input bytes (incompressible data
/// grows by one length byte per 255 literals, plus the token and slack).
/// Returns 0 when `n` exceeds [`MAX_INPUT_SIZE`].
pub const fn max_compressed_size(n: usize) -> usize {
    if n > MAX_INPUT_SIZE {
        0
    } else {
        n + n / 255 + 16
    }
}

/// Compress `src` into a new vector at `level` (1 = default fast; `<= 0` =
/// faster; 2..=12 = slower, smaller: see the [module documentation](self)).
///
/// # Panics
/// If `src` is larger than [`MAX_INPUT_SIZE`].
pub fn compress(src: &[u8], level: i32) -> Vec<u8> {
    let mut dst = vec![0u8; max_compressed_size(src.len())];
    let n = compress_into(src, &mut dst, level).expect("input larger than MAX_INPUT_SIZE");
    dst.truncate(n);
    dst
}

/// Compress `src` into `dst` and return the compressed size. `dst` should be
/// at least [`max_compressed_size`]`(src.len())` bytes; a smaller buffer is an
/// error if the output does not fit in it.
pub fn compress_into(src: &[u8], dst: &mut [u8], level: i32) -> Result<usize> {
    compress_with_dict_into(src, &[], dst, level)
}

/// Compress `src` using the last 64 KiB of `dict` as history (an external
/// dictionary); decode the result with [`decompress_with_dict_into`].
pub fn compress_with_dict(src: &[u8], dict: &[u8], level: i32) -> Vec<u8> {
    let mut dst = vec![0u8; max_compressed_size(src.len())];
    let n = compress_with_dict_into(src, dict, &mut dst, level)
        .expect("input larger than MAX_INPUT_SIZE");
    dst.truncate(n);
    dst
}

/// [`compress_with_dict`] into a caller's buffer.
pub fn compress_with_dict_into(
    src: &[u8],
    dict: &[u8],
    dst: &mut [u8],
    level: i32,
) -> Result<usize> {
    if src.len() > MAX_INPUT_SIZE {
        return Err(Error::InputTooLarge {
            size: src.len(),
            limit: MAX_INPUT_SIZE,
        });
    }
    let dict = &dict[dict.len().saturating_sub(MAX_DISTANCE + 1)..];
    if dict.is_empty() {
        with_compressor(level, |c| c.compress_block(src, 0, dst))
    } else {
        let mut buf = Vec::with_capacity(dict.len() + src.len());
        buf.extend_from_slice(dict);
        buf.extend_from_slice(src);
        with_compressor(level, |c| c.compress_block(&buf, dict.len(), dst))
    }
}

thread_local! {
    /// The HC engine behind the one-shot compression functions, one per
    /// thread. Its tables (up to 320 KiB) are allocated once, and starting a
    /// block needs no clearing; a fresh engine per call would allocate and
    /// zero them every time, which costs more than compressing a small or
    /// very repetitive input.
    static THREAD_HC: RefCell<Option<Compressor>> = const { RefCell::new(None) };
    /// The fast engine behind the one-shot functions (levels <= 1): reusing
    /// its table saves an allocation per call, which matters on inputs that
    /// compress at many GB/s.
    static THREAD_FAST: RefCell<Option<(i32, Compressor)>> = const { RefCell::new(None) };
}

/// Run `f` with a compressor for `level`: this thread's HC engine (set to
/// `level`) for levels >= 2, this thread's fast engine below.
fn with_compressor<T>(level: i32, f: impl FnOnce(&mut Compressor) -> T) -> T {
    if level <= 1 {
        return THREAD_FAST.with(|slot| match slot.try_borrow_mut() {
            Ok(mut slot) => {
                if !matches!(*slot, Some((l, _)) if l == level) {
                    *slot = Some((level, Compressor::new(level)));
                }
                f(&mut slot.as_mut().expect("set above").1)
            }
            Err(_) => f(&mut Compressor::new(level)),
        });
    }
    THREAD_HC.with(|slot| match slot.try_borrow_mut() {
        Ok(mut slot) => {
            let reusable = match slot.as_mut() {
                Some(Compressor::High(hc)) => hc.set_level(level),
                _ => false,
            };
            if !reusable {
                *slot = Some(Compressor::new(level));
            }
            f(slot.as_mut().expect("set above"))
        }
        // Re-entered (cannot happen today): use a one-off engine.
        Err(_) => f(&mut Compressor::new(level)),
    })
}

/// Decompress the block `src` into `dst` and return the number of bytes
/// written. `dst.len()` is the capacity: any upper bound of the decoded size.
///
/// Bytes of `dst` past the returned length are unspecified (they may have been
/// used as scratch space) but are never read as match sources.
///
/// Uses this thread's adaptive [`Decoder`], which picks the fastest decode
/// variant for the data as it goes; use a [`Decoder`] of your own per stream
/// for better choices when one thread decodes several kinds of data.
pub fn decompress_into(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    with_thread_decoder(|d| d.decompress_into(src, dst))
}

/// Decompress a block compressed with a dictionary ([`compress_with_dict`]).
pub fn decompress_with_dict_into(src: &[u8], dst: &mut [u8], dict: &[u8]) -> Result<usize> {
    if dict.is_empty() {
        return decompress_into(src, dst);
    }
    let dict = &dict[dict.len().saturating_sub(MAX_DISTANCE)..];
    let mut buf = vec![0u8; dict.len() + dst.len()];
    buf[..dict.len()].copy_from_slice(dict);
    let n =
        with_thread_decoder(|d| d.decode_with_prefix(src, &mut buf, dict.len())).map_err(|e| *e)?;
    dst[..n].copy_from_slice(&buf[dict.len()..dict.len() + n]);
    Ok(n)
}

/// Decompress `src` into a new vector of at most `max_size` bytes.
pub fn decompress(src: &[u8], max_size: usize) -> Result<Vec<u8>> {
    let mut dst = vec![0u8; max_size];
    let n = decompress_into(src, &mut dst)?;
    dst.truncate(n);
    Ok(dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n);
        let mut x = 12345u32;
        while v.len() < n {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let k = (x >> 16) as usize % 40;
            let b = (x >> 8) as u8 % 7;
            v.extend(std::iter::repeat_n(b"abcdefghij"[b as usize], k % 9));
            v.extend_from_slice(&(x as u16).to_le_bytes()[..(x as usize >> 3) % 3]);
            v.extend_from_slice(b"the quick brown fox ");
        }
        v.truncate(n);
        v
    }

    #[test]
    fn round_trip_sizes_and_levels() {
        for n in [
            0, 1, 5, 12, 13, 14, 100, 1000, 65_535, 65_536, 65_547, 65_548, 300_000,
        ] {
            let data = sample(n);
            for level in [-10, 0, 1, 9] {
                let c = compress(&data, level);
                assert!(c.len() <= max_compressed_size(n));
                let d = decompress(&c, n).unwrap_or_else(|e| panic!("n={n} level={level}: {e}"));
                assert_eq!(d, data, "n={n} level={level}");
            }
        }
    }

    #[test]
    fn dictionary_round_trip() {
        let dict = sample(100_000);
        let data = sample(50_000);
        let c = compress_with_dict(&data, &dict, 1);
        assert!(c.len() < compress(&data, 1).len());
        let mut out = vec![0u8; data.len()];
        let n = decompress_with_dict_into(&c, &mut out, &dict).unwrap();
        assert_eq!(&out[..n], &data[..]);
    }
}
