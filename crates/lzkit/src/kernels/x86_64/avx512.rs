//! AVX-512 with VBMI: 64-byte chunks; every offset below 64 from one `vpermb`
//! of the 64 bytes before the destination, so even offsets 16..63 need no
//! load in the loop.

use crate::kernels::{END_INDEX_64, Kernel, for_each_step, pattern_step};
use core::arch::x86_64::*;

/// 64-byte kernel. Requires AVX-512 F, BW and VBMI.
pub(crate) struct Avx512Vbmi;

/// # Safety
/// As [`chunks64`], with 32-byte chunks; AVX2 available (implied by
/// AVX-512F).
#[inline(always)]
unsafe fn chunks32(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: i < len, so each chunk is in bounds by the caller's contract.
    for_each_step(len, 32, |i| unsafe {
        _mm256_storeu_si256(dst.add(i).cast(), _mm256_loadu_si256(src.add(i).cast()))
    });
}

/// # Safety
/// `src .. src + len + 64` readable, `dst .. dst + len + 64` writable, each
/// chunk's source before its destination; AVX-512F available.
#[inline(always)]
unsafe fn chunks64(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: i < len, so each chunk is in bounds by the caller's contract.
    for_each_step(len, 64, |i| unsafe {
        _mm512_storeu_si512(dst.add(i).cast(), _mm512_loadu_si512(src.add(i).cast()))
    });
}

impl Kernel for Avx512Vbmi {
    fill_short_from_window!();
    const OVERRUN: usize = 64;
    const HISTORY: usize = 64;

    #[inline(always)]
    unsafe fn copy_literals(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { chunks64(dst, src, len) }
    }

    #[inline(always)]
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize) {
        // SAFETY: see `Kernel::copy_match`; the window load reads the 64
        // history bytes before dst (HISTORY) and only its last
        // `offset` bytes are selected; stores end before dst + len + 64.
        unsafe {
            if offset >= 128 {
                chunks64(dst, dst.sub(offset), len);
            } else if offset >= 64 {
                // A 64-byte load `offset` back would straddle the last two
                // 64-byte stores, which the CPU cannot forward: a stall a
                // chunk (0.65 times the 32-byte kernel's speed on a column
                // of day-periodic integers, offset 96). 32-byte chunks load
                // what one earlier store wrote wherever the offset is a
                // multiple of 32, and are the 32-byte kernel's copy.
                chunks32(dst, dst.sub(offset), len);
            } else {
                let window = _mm512_loadu_si512(dst.sub(64).cast());
                let idx = _mm512_loadu_si512(END_INDEX_64[offset].as_ptr().cast());
                let p = _mm512_permutexvar_epi8(idx, window);
                for_each_step(len, pattern_step(64, offset), |i| {
                    _mm512_storeu_si512(dst.add(i).cast(), p)
                });
            }
        }
    }
}
