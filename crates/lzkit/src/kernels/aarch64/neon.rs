//! NEON: `N` 16-byte registers per chunk (16, 32 or 64 bytes); offsets below
//! 16 from `tbl` patterns.

use crate::kernels::{END_INDEX_16, Kernel, for_each_step, pattern_step};
use core::arch::aarch64::*;

/// NEON kernel with `N` registers (width `16 * N`).
pub(crate) struct Neon<const N: usize>;

/// # Safety
/// `src .. src + len + 16 * N` readable, `dst .. dst + len + 16 * N` writable,
/// each chunk's source before its destination.
#[inline(always)]
unsafe fn chunks<const N: usize>(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: i < len, each register's 16 bytes in bounds by the contract.
    for_each_step(len, 16 * N, |i| unsafe {
        for j in 0..N {
            vst1q_u8(dst.add(i + 16 * j), vld1q_u8(src.add(i + 16 * j)));
        }
    });
}

impl<const N: usize> Kernel for Neon<N> {
    const OVERRUN: usize = 16 * N;
    const HISTORY: usize = 16;

    #[inline(always)]
    unsafe fn copy_literals(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { chunks::<N>(dst, src, len) }
    }

    #[inline(always)]
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize) {
        // SAFETY: see `Kernel::copy_match`; 16-byte chunks only when the
        // offset is at least 16; the window load reads 16 history bytes;
        // stores end before dst + len + 16 * N.
        unsafe {
            let src = dst.sub(offset);
            if offset >= 16 * N {
                chunks::<N>(dst, src, len);
            } else if offset >= 16 {
                chunks::<1>(dst, src, len);
            } else {
                let window = vld1q_u8(dst.sub(16));
                let mut p = [vdupq_n_u8(0); N];
                for (j, r) in p.iter_mut().enumerate() {
                    *r = vqtbl1q_u8(window, vld1q_u8(END_INDEX_16[offset].as_ptr().add(16 * j)));
                }
                for_each_step(len, pattern_step(16 * N, offset), |i| {
                    for (j, r) in p.iter().enumerate() {
                        vst1q_u8(dst.add(i + 16 * j), *r);
                    }
                });
            }
        }
    }
}
