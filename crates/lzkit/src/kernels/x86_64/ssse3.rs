//! SSSE3: 16-byte chunks; offsets below 16 from a `pshufb` pattern.

use crate::kernels::{END_INDEX_16, Kernel, for_each_step, pattern_step};
use core::arch::x86_64::*;

/// 16-byte kernel with a `pshufb` pattern register. Requires SSSE3.
pub(crate) struct Ssse3;

/// # Safety
/// `src .. src + len + 16` readable, `dst .. dst + len + 16` writable, each
/// chunk's source before its destination; SSSE3 available.
#[inline(always)]
pub(super) unsafe fn chunks16(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: i < len, so each chunk is in bounds by the caller's contract.
    for_each_step(len, 16, |i| unsafe {
        _mm_storeu_si128(dst.add(i).cast(), _mm_loadu_si128(src.add(i).cast()))
    });
}

/// A 16-byte register holding the `offset` bytes before `dst` repeated.
///
/// # Safety
/// `dst - 16 .. dst` readable; `offset` in 1..16; SSSE3 available.
#[inline(always)]
pub(super) unsafe fn pattern16(dst: *const u8, offset: usize) -> __m128i {
    // SAFETY: 16 readable bytes before dst (caller); the index row is 64 bytes.
    unsafe {
        let window = _mm_loadu_si128(dst.sub(16).cast());
        _mm_shuffle_epi8(
            window,
            _mm_loadu_si128(END_INDEX_16[offset].as_ptr().cast()),
        )
    }
}

/// `T8[o][i] = 8 - o + i % o`: shuffle indices repeating the last `o`
/// bytes of an 8-byte window (offsets 1 to 8). A `const`, not a `static`:
/// the trait methods that use it make a static an exported symbol, which
/// the loop would then address through the GOT (one load more than the
/// address of a private constant).
const T8: [[u8; 16]; 9] = {
    let mut t = [[0u8; 16]; 9];
    let mut o = 1;
    while o <= 8 {
        let mut i = 0;
        while i < 16 {
            t[o][i] = (8 - o + i % o) as u8;
            i += 1;
        }
        o += 1;
    }
    t
};

/// [`Kernel::fill_short`] of the x86-64 SIMD kernels: a 16-byte pattern
/// register built from 8-byte loads of the bytes before `window_end` (one
/// for offsets up to 8, two above), stored every multiple of the offset.
/// A 16-byte load from the output usually straddles two recent stores
/// (the previous literal and match copies), which store-to-load
/// forwarding cannot serve: it waited for them to retire, about a third
/// of the zstd sequence loop's time on integer columns.
///
/// # Safety
/// SSSE3 available; `window_end - 16 .. window_end` initialised, its last
/// `offset` bytes (1 to 15) those before `dst`; `dst .. dst + len + 15`
/// writable.
#[inline(always)]
pub(super) unsafe fn fill_short(dst: *mut u8, window_end: *const u8, offset: usize, len: usize) {
    // SAFETY: the caller guarantees the ranges and SSSE3.
    unsafe {
        let lo = _mm_loadl_epi64(window_end.sub(8).cast());
        let pattern = if offset <= 8 {
            _mm_shuffle_epi8(lo, _mm_loadu_si128(T8[offset].as_ptr().cast()))
        } else {
            let window = _mm_unpacklo_epi64(_mm_loadl_epi64(window_end.sub(16).cast()), lo);
            _mm_shuffle_epi8(
                window,
                _mm_loadu_si128(END_INDEX_16[offset].as_ptr().cast()),
            )
        };
        for_each_step(len, pattern_step(16, offset), |i| {
            _mm_storeu_si128(dst.add(i).cast(), pattern)
        });
    }
}

impl Kernel for Ssse3 {
    fill_short_from_window!();
    const OVERRUN: usize = 16;
    const HISTORY: usize = 16;

    #[inline(always)]
    unsafe fn copy_literals(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { chunks16(dst, src, len) }
    }

    #[inline(always)]
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize) {
        // SAFETY: see `Kernel::copy_match`; the pattern loads read the 16
        // history bytes before dst, or the offset's bytes and up to 16
        // bytes of the (initialised) destination range after them; stores
        // end before dst + len + 16.
        unsafe {
            if offset >= 32 {
                chunks16(dst, dst.sub(offset), len);
            } else if offset >= 16 {
                // Two registers hold the `offset` bytes before dst (and
                // scratch after them), stored at every multiple of the
                // offset: no load in the loop, where loading recent output
                // would stall store-to-load forwarding (see the AVX2
                // kernel). Scratch lands past each step's valid bytes and
                // is overwritten by the next step, or stays past `len`.
                let src = dst.sub(offset);
                let a = _mm_loadu_si128(src.cast());
                let b = _mm_loadu_si128(src.add(16).cast());
                for_each_step(len, offset, |i| {
                    _mm_storeu_si128(dst.add(i).cast(), a);
                    // Only where needed: the overrun is 16 bytes past len.
                    if i + 16 < len {
                        _mm_storeu_si128(dst.add(i + 16).cast(), b);
                    }
                });
            } else {
                let p = pattern16(dst, offset);
                for_each_step(len, pattern_step(16, offset), |i| {
                    _mm_storeu_si128(dst.add(i).cast(), p)
                });
            }
        }
    }
}
