//! Portable kernels: chunks are byte arrays moved with unaligned loads and
//! stores, which compilers turn into plain (or baseline-SIMD) register moves.

use super::{Kernel, PATTERN_INDEX, pattern_step};
use core::ptr::{read_unaligned, write_unaligned};

/// Portable kernel with chunk width `W` (8, 16, 32 or 64).
pub(crate) struct Portable<const W: usize>;

/// Copy `[u8; N]` chunks from `src` to `dst` until `len` bytes are covered.
///
/// # Safety
/// `src .. src + len + N` readable, `dst .. dst + len + N` writable, and each
/// chunk's source ends at or before its destination's start (or the ranges
/// do not overlap).
#[inline(always)]
unsafe fn chunks<const N: usize>(dst: *mut u8, src: *const u8, len: usize) {
    let mut i = 0;
    loop {
        // SAFETY: i < len, so both chunks end before `len + N`.
        unsafe {
            write_unaligned(
                dst.add(i).cast::<[u8; N]>(),
                read_unaligned(src.add(i).cast::<[u8; N]>()),
            )
        };
        i += N;
        if i >= len {
            break;
        }
    }
}

impl<const W: usize> Kernel for Portable<W> {
    const OVERRUN: usize = if W > 16 { W } else { 16 };

    #[inline(always)]
    unsafe fn copy_literals(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: forwarded contract; W <= OVERRUN.
        unsafe { chunks::<W>(dst, src, len) }
    }

    #[inline(always)]
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize) {
        // SAFETY (whole body): `src = dst - offset` is in the allocation
        // (contract). Chunk copies run only when the chunk width is at most
        // the offset, so each reads bytes before its own destination. The
        // pattern path loads 16 bytes at `src`, ending before `dst + 16 <=
        // dst + OVERRUN`, and keeps only indices below `offset`; its stores
        // end before `dst + len + W`.
        unsafe {
            let src = dst.sub(offset);
            if offset >= W {
                chunks::<W>(dst, src, len);
            } else if offset >= 16 {
                chunks::<16>(dst, src, len);
            } else {
                let window: [u8; 16] = read_unaligned(src.cast::<[u8; 16]>());
                let idx = &PATTERN_INDEX[offset];
                let mut pattern = [0u8; W];
                for (i, b) in pattern.iter_mut().enumerate() {
                    *b = window[idx[i] as usize & 15];
                }
                let step = pattern_step(W, offset);
                let mut i = 0;
                loop {
                    write_unaligned(dst.add(i).cast::<[u8; W]>(), pattern);
                    i += step;
                    if i >= len {
                        break;
                    }
                }
            }
        }
    }
}
