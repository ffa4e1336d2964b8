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

impl Kernel for Ssse3 {
    const PSHUFB: bool = true;
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
