//! Reversible byte filters to put before LZ4 or zstd on columns of
//! fixed-width numbers.
//!
//! Neither filter changes the length of its input. Both see the input as
//! `len / w` elements of `w` bytes, followed by `len % w` tail bytes that
//! they copy unchanged.
//!
//! * **Byte shuffle** (`shuffle2`, `shuffle4`, `shuffle8`), as Blosc does
//!   it: the first byte of every element, then the second byte of every
//!   element, and so on. Output byte `j * n + i` is input byte `i * w + j`,
//!   for `n` elements. Similar bytes (the high bytes of small numbers, the
//!   exponents of floats) end up side by side, where a compressor finds them.
//! * **Delta** (`delta1`, `delta2`, `delta4`, `delta8`), as ClickHouse's
//!   `Delta(w)` codec: elements are little-endian unsigned integers, and
//!   output element `i` is `input[i] - input[i - 1]` (wrapping), element 0
//!   unchanged. Sorted or slowly changing values become small numbers.
//!
//! ```
//! use lzkit::filter::Filter;
//!
//! let filter: Filter = "delta4".parse()?;
//! let column: Vec<u8> = (1000u32..1100).flat_map(u32::to_le_bytes).collect();
//! let filtered = filter.encode(&column);
//! assert_eq!(&filtered[4..8], &1u32.to_le_bytes()); // 1001 - 1000
//! assert_eq!(filter.decode(&filtered), column);
//! assert_eq!(filter.clickhouse_codec().as_deref(), Some("Delta(4)"));
//! # Ok::<(), lzkit::filter::FilterError>(())
//! ```
//!
//! On streams, [`FilterWriter`] and [`FilterReader`] give the same bytes
//! as [`Filter::encode`] and [`Filter::decode`] of the whole stream (delta
//! as the bytes come; shuffle holds the whole stream in memory).
//!
//! A compressed stream records its filter in a *filter frame*, a
//! skippable frame of LZ4 and zstd put before its first frame
//! ([`Filter::frame`], [`read_frame`]; the layout is in [`frame`]):
//! `lz4 -d` and `zstd -d` skip it and write the filtered bytes, and lzkit
//! undoes the filter.
//!
//! The filters are safe on any input: any length, including 0 and lengths
//! that are no multiple of the element width. They are written in safe
//! Rust that the compiler vectorizes, and on x86-64 with SSE2 intrinsics
//! where the compiler did not do as well; on x86-64 the kernels are also
//! compiled for AVX2 and AVX-512, chosen at run time.

use std::fmt;
use std::str::FromStr;

mod delta;
pub mod frame;
mod shuffle;
mod stream;

pub use frame::{FRAME_MAGIC, FRAME_TAG, FRAME_VERSION, is_filter_frame, read_frame};
pub use stream::{FilterReader, FilterWriter};

/// What a [`Filter`] does to each element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterKind {
    /// Byte shuffle: byte planes of the elements (widths 2, 4, 8).
    Shuffle,
    /// Delta: wrapping differences of consecutive elements read as
    /// little-endian unsigned integers (widths 1, 2, 4, 8).
    Delta,
}

impl FilterKind {
    /// The kind's name, the prefix of the filter names: `shuffle`, `delta`.
    pub const fn name(self) -> &'static str {
        match self {
            FilterKind::Shuffle => "shuffle",
            FilterKind::Delta => "delta",
        }
    }

    /// The element widths, in bytes, that this kind accepts.
    pub const fn widths(self) -> &'static [usize] {
        match self {
            FilterKind::Shuffle => &[2, 4, 8],
            FilterKind::Delta => &[1, 2, 4, 8],
        }
    }
}

impl fmt::Display for FilterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A filter: a [`FilterKind`] and an element width it accepts.
///
/// Made by [`Filter::new`] or by parsing its name ([`Filter::parse`],
/// [`FromStr`]); [`Display`](fmt::Display) writes the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Filter {
    kind: FilterKind,
    /// One of `kind.widths()`.
    width: u8,
}

/// Every valid filter name, in the order error messages list them.
const NAMES: &str = "shuffle2, shuffle4, shuffle8, delta1, delta2, delta4, delta8";

/// Why a filter could not be made or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// A name that is no filter ([`Filter::parse`]).
    #[error("unknown filter '{0}': the filters are {NAMES}")]
    UnknownName(String),
    /// A width the kind does not accept ([`Filter::new`], or a name such
    /// as `shuffle3`).
    #[error("{kind} has no element width {width}: {kind} takes widths {widths:?} (filters: {NAMES})", widths = kind.widths())]
    BadWidth {
        /// The kind asked for.
        kind: FilterKind,
        /// The width asked for, in bytes.
        width: usize,
    },
    /// The output buffer's length is not the input's
    /// ([`Filter::encode_into`], [`Filter::decode_into`]).
    #[error(
        "output buffer of {dst} bytes for an input of {src} bytes: a filter's output is exactly as long as its input"
    )]
    LengthMismatch {
        /// The input's length in bytes.
        src: usize,
        /// The output buffer's length in bytes.
        dst: usize,
    },
    /// A filter frame of a layout version this lzkit does not read
    /// ([`read_frame`]): written by a newer lzkit.
    #[error(
        "filter frame of version {version}, but this lzkit reads version {FRAME_VERSION}: decode with a newer lzkit (lz4 -d or zstd -d give the filtered bytes)"
    )]
    UnsupportedVersion {
        /// The version the frame states.
        version: u8,
    },
    /// A filter frame that is damaged ([`read_frame`]): the filter it
    /// records cannot be trusted, so the content cannot be unfiltered.
    #[error("corrupt filter frame: {reason}")]
    CorruptFrame {
        /// What is wrong with it.
        reason: String,
    },
}

impl Filter {
    /// Every filter: `shuffle2`, `shuffle4`, `shuffle8`, `delta1`,
    /// `delta2`, `delta4`, `delta8`.
    pub const ALL: [Filter; 7] = [
        Filter::of(FilterKind::Shuffle, 2),
        Filter::of(FilterKind::Shuffle, 4),
        Filter::of(FilterKind::Shuffle, 8),
        Filter::of(FilterKind::Delta, 1),
        Filter::of(FilterKind::Delta, 2),
        Filter::of(FilterKind::Delta, 4),
        Filter::of(FilterKind::Delta, 8),
    ];

    /// A filter whose width is known to be valid.
    const fn of(kind: FilterKind, width: u8) -> Filter {
        Filter { kind, width }
    }

    /// The filter of `kind` on elements of `width` bytes.
    ///
    /// # Errors
    /// [`FilterError::BadWidth`] if `kind` does not take `width`
    /// ([`FilterKind::widths`]).
    pub fn new(kind: FilterKind, width: usize) -> Result<Filter, FilterError> {
        if kind.widths().contains(&width) {
            Ok(Filter::of(kind, width as u8))
        } else {
            Err(FilterError::BadWidth { kind, width })
        }
    }

    /// The filter named `name`: `shuffle2`, `shuffle4`, `shuffle8`,
    /// `delta1`, `delta2`, `delta4` or `delta8` (what
    /// [`Display`](fmt::Display) writes).
    ///
    /// # Errors
    /// [`FilterError::BadWidth`] for a kind followed by a width it does not
    /// take (`shuffle1`, `delta3`); [`FilterError::UnknownName`] for any
    /// other name.
    pub fn parse(name: &str) -> Result<Filter, FilterError> {
        for kind in [FilterKind::Shuffle, FilterKind::Delta] {
            let Some(digits) = name.strip_prefix(kind.name()) else {
                continue;
            };
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                // Too many digits for a usize is a width no kind takes.
                let width = digits.parse().unwrap_or(usize::MAX);
                return Filter::new(kind, width);
            }
        }
        Err(FilterError::UnknownName(name.to_string()))
    }

    /// What the filter does to each element.
    pub const fn kind(self) -> FilterKind {
        self.kind
    }

    /// The element width in bytes.
    pub const fn width(self) -> usize {
        self.width as usize
    }

    /// The ClickHouse column codec that does what this filter does:
    /// `Delta(w)` for delta; `None` for shuffle, which ClickHouse has no
    /// codec for.
    pub fn clickhouse_codec(&self) -> Option<String> {
        match self.kind {
            FilterKind::Delta => Some(format!("Delta({})", self.width)),
            FilterKind::Shuffle => None,
        }
    }

    /// Filter `src` into `dst`.
    ///
    /// # Errors
    /// [`FilterError::LengthMismatch`] if `dst.len() != src.len()` (`dst`
    /// is left untouched).
    pub fn encode_into(&self, src: &[u8], dst: &mut [u8]) -> Result<(), FilterError> {
        check_lengths(src, dst)?;
        simd::run(*self, Direction::Encode, src, dst);
        Ok(())
    }

    /// Undo the filter: decode `src` (an output of [`encode_into`](Self::encode_into)
    /// or [`encode`](Self::encode)) into `dst`.
    ///
    /// # Errors
    /// [`FilterError::LengthMismatch`] if `dst.len() != src.len()` (`dst`
    /// is left untouched).
    pub fn decode_into(&self, src: &[u8], dst: &mut [u8]) -> Result<(), FilterError> {
        check_lengths(src, dst)?;
        simd::run(*self, Direction::Decode, src, dst);
        Ok(())
    }

    /// `src` filtered, in a new vector of the same length.
    pub fn encode(&self, src: &[u8]) -> Vec<u8> {
        let mut dst = vec![0; src.len()];
        // Cannot fail: the lengths are equal.
        let _ = self.encode_into(src, &mut dst);
        dst
    }

    /// `src` unfiltered (the inverse of [`encode`](Self::encode)), in a new
    /// vector of the same length.
    pub fn decode(&self, src: &[u8]) -> Vec<u8> {
        let mut dst = vec![0; src.len()];
        // Cannot fail: the lengths are equal.
        let _ = self.decode_into(src, &mut dst);
        dst
    }
}

/// [`FilterError::LengthMismatch`] unless the lengths are equal.
fn check_lengths(src: &[u8], dst: &[u8]) -> Result<(), FilterError> {
    if src.len() == dst.len() {
        Ok(())
    } else {
        Err(FilterError::LengthMismatch {
            src: src.len(),
            dst: dst.len(),
        })
    }
}

impl FromStr for Filter {
    type Err = FilterError;

    /// [`Filter::parse`].
    fn from_str(name: &str) -> Result<Filter, FilterError> {
        Filter::parse(name)
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.kind.name(), self.width)
    }
}

/// Which way a filter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encode,
    Decode,
}

/// [`kernel`] compiled for the target's baseline.
const BASELINE: u8 = 0;
/// [`kernel`] compiled with AVX2.
#[cfg(target_arch = "x86_64")]
const AVX2: u8 = 1;
/// [`kernel`] compiled with AVX-512.
#[cfg(target_arch = "x86_64")]
const AVX512: u8 = 2;

/// The kernel of `filter` in `direction` on `src` into `dst` (of the same
/// length), in the form that is fastest when compiled for `LEVEL`
/// ([`BASELINE`], or on x86-64 `AVX2`, `AVX512`; see [`shuffle`] for the
/// forms).
#[inline(always)]
fn kernel<const LEVEL: u8>(filter: Filter, direction: Direction, src: &[u8], dst: &mut [u8]) {
    use Direction::{Decode, Encode};
    use FilterKind::{Delta, Shuffle};
    // The SSE2 transposes on x86-64: every width for the baseline, width
    // 8 with AVX2.
    #[cfg(target_arch = "x86_64")]
    let sse2 = LEVEL == BASELINE || (LEVEL == AVX2 && filter.width == 8);
    // The byte transpose in plain Rust, for widths 4 and 8 with AVX2 and
    // AVX-512; otherwise the integer form.
    let transpose = LEVEL != BASELINE && filter.width != 2;
    match (filter.kind, filter.width, direction) {
        #[cfg(target_arch = "x86_64")]
        (Shuffle, 2, Encode) if sse2 => shuffle::sse2::encode::<2>(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Shuffle, 2, Decode) if sse2 => shuffle::sse2::decode::<2>(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Shuffle, 4, Encode) if sse2 => shuffle::sse2::encode::<4>(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Shuffle, 4, Decode) if sse2 => shuffle::sse2::decode::<4>(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Shuffle, _, Encode) if sse2 => shuffle::sse2::encode::<8>(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Shuffle, _, Decode) if sse2 => shuffle::sse2::decode::<8>(src, dst),
        (Shuffle, 2, Encode) => shuffle::words::encode2(src, dst),
        (Shuffle, 2, Decode) => shuffle::words::decode2(src, dst),
        (Shuffle, 4, Encode) if transpose => shuffle::encode::<4>(src, dst),
        (Shuffle, 4, Decode) if transpose => shuffle::decode::<4>(src, dst),
        (Shuffle, 4, Encode) => shuffle::words::encode4(src, dst),
        (Shuffle, 4, Decode) => shuffle::words::decode4(src, dst),
        (Shuffle, _, Encode) if transpose => shuffle::encode::<8>(src, dst),
        (Shuffle, _, Decode) if transpose => shuffle::decode::<8>(src, dst),
        (Shuffle, _, Encode) => shuffle::words::encode8(src, dst),
        (Shuffle, _, Decode) => shuffle::words::decode8(src, dst),
        (Delta, 1, Encode) => delta::d1::encode(src, dst),
        (Delta, 2, Encode) => delta::d2::encode(src, dst),
        (Delta, 4, Encode) => delta::d4::encode(src, dst),
        (Delta, _, Encode) => delta::d8::encode(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Delta, 1, Decode) => delta::sse2::decode1(src, dst),
        #[cfg(target_arch = "x86_64")]
        (Delta, 2, Decode) => delta::sse2::decode2(src, dst),
        #[cfg(not(target_arch = "x86_64"))]
        (Delta, 1, Decode) => delta::d1::decode(src, dst),
        #[cfg(not(target_arch = "x86_64"))]
        (Delta, 2, Decode) => delta::d2::decode(src, dst),
        (Delta, 4, Decode) => delta::d4::decode(src, dst),
        (Delta, _, Decode) => delta::d8::decode(src, dst),
    }
}

/// The kernels compiled for the widest vectors the CPU has.
mod simd {
    use super::{BASELINE, Direction, Filter, kernel};

    /// [`kernel`] compiled for AVX-512 or AVX2 where the CPU has them,
    /// else for the target's baseline.
    #[inline(always)]
    pub(super) fn run(filter: Filter, direction: Direction, src: &[u8], dst: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Isa, has};
            if has(Isa::Avx512Vbmi) {
                // SAFETY: `avx512` requires AVX-512 F, BW and VBMI, which
                // `Isa::Avx512Vbmi` detected.
                return unsafe { avx512(filter, direction, src, dst) };
            }
            if has(Isa::Avx2) {
                // SAFETY: `avx2` requires AVX2, which was just detected.
                return unsafe { avx2(filter, direction, src, dst) };
            }
        }
        kernel::<BASELINE>(filter, direction, src, dst)
    }

    /// [`kernel`] compiled with AVX2. (A closure passed in would not do:
    /// it is compiled once, without the target features.)
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2(filter: Filter, direction: Direction, src: &[u8], dst: &mut [u8]) {
        kernel::<{ super::AVX2 }>(filter, direction, src, dst)
    }

    /// [`kernel`] compiled with AVX-512 F, BW and VBMI.
    ///
    /// # Safety
    /// The CPU supports AVX-512 F, BW and VBMI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn avx512(filter: Filter, direction: Direction, src: &[u8], dst: &mut [u8]) {
        kernel::<{ super::AVX512 }>(filter, direction, src, dst)
    }
}

#[cfg(test)]
mod tests;
