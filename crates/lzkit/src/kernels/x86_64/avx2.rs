//! AVX2: 32-byte chunks; offsets below 16 from a per-lane `vpshufb` pattern
//! of a 16-byte window broadcast to both lanes.

use crate::kernels::{END_INDEX_16, Kernel, for_each_step, pattern_step};
use core::arch::x86_64::*;

/// 32-byte kernel. Requires AVX2.
pub(crate) struct Avx2;

/// # Safety
/// `src .. src + len + 32` readable, `dst .. dst + len + 32` writable, each
/// chunk's source before its destination; AVX2 available.
#[inline(always)]
unsafe fn chunks32(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: i < len, so each chunk is in bounds by the caller's contract.
    for_each_step(len, 32, |i| unsafe {
        _mm256_storeu_si256(dst.add(i).cast(), _mm256_loadu_si256(src.add(i).cast()))
    });
}

impl Kernel for Avx2 {
    fill_short_from_window!();
    const OVERRUN: usize = 32;
    const HISTORY: usize = 16;

    #[inline(always)]
    unsafe fn copy_literals(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { chunks32(dst, src, len) }
    }

    #[inline(always)]
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize) {
        // SAFETY: see `Kernel::copy_match`; chunk widths never exceed the
        // offset; the pattern loads read the 16 history bytes before dst,
        // or the offset's bytes and up to 32 bytes of the (initialised)
        // destination range after them; stores end before dst + len + 32.
        unsafe {
            if offset >= 64 {
                chunks32(dst, dst.sub(offset), len);
            } else if offset >= 32 {
                // Two registers hold the `offset` bytes before dst (and
                // scratch after them); storing both at every multiple of
                // the offset repeats the pattern with no load in the loop.
                // Loading from recently written output instead would read
                // across earlier stores, which stalls store-to-load
                // forwarding on every chunk (lines of 21..63 bytes in text
                // columns). The scratch bytes land past each step's valid
                // `offset` bytes and are overwritten by the next step; the
                // last step's stay past `len`, within the overrun.
                let src = dst.sub(offset);
                let a = _mm256_loadu_si256(src.cast());
                let b = _mm256_loadu_si256(src.add(32).cast());
                for_each_step(len, offset, |i| {
                    _mm256_storeu_si256(dst.add(i).cast(), a);
                    // Only where needed: the overrun is 32 bytes past len.
                    if i + 32 < len {
                        _mm256_storeu_si256(dst.add(i + 32).cast(), b);
                    }
                });
            } else if offset >= 16 {
                // As above, with one register.
                let a = _mm256_loadu_si256(dst.sub(offset).cast());
                for_each_step(len, offset, |i| _mm256_storeu_si256(dst.add(i).cast(), a));
            } else {
                // Every index is below 16, so the shuffle can stay within
                // each lane of the broadcast window.
                let window = _mm256_broadcastsi128_si256(_mm_loadu_si128(dst.sub(16).cast()));
                let idx = _mm256_loadu_si256(END_INDEX_16[offset].as_ptr().cast());
                let p = _mm256_shuffle_epi8(window, idx);
                for_each_step(len, pattern_step(32, offset), |i| {
                    _mm256_storeu_si256(dst.add(i).cast(), p)
                });
            }
        }
    }
}
