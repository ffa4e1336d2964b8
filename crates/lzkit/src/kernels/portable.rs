//! Portable kernels: chunks are byte arrays moved with unaligned loads and
//! stores, which compilers turn into plain (or baseline-SIMD) register moves.

use super::{Kernel, copy_chunk, for_each_step, pattern_step};
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
    // SAFETY: i < len, so both chunks end before `len + N`.
    for_each_step(len, N, |i| unsafe {
        copy_chunk::<N>(dst.add(i), src.add(i))
    });
}

impl<const W: usize> Kernel for Portable<W> {
    const OVERRUN: usize = if W > 16 { W } else { 16 };
    const HISTORY: usize = 8;

    #[inline(always)]
    unsafe fn copy_short_literals(dst: *mut u8, src: *const u8) {
        // SAFETY: the caller guarantees 16 bytes at both ends.
        unsafe {
            if W == 8 {
                copy_chunk::<8>(dst, src);
                copy_chunk::<8>(dst.add(8), src.add(8));
            } else {
                copy_chunk::<16>(dst, src);
            }
        }
    }

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
        // pattern path loads the 8 history bytes before `dst` (contract:
        // HISTORY) and keeps the last `offset`; its stores end
        // before `dst + len + 8`.
        // SAFETY: as above.
        unsafe {
            let src = dst.sub(offset);
            if offset >= W {
                chunks::<W>(dst, src, len);
            } else if offset >= 16 {
                chunks::<16>(dst, src, len);
            } else if offset >= 8 {
                chunks::<8>(dst, src, len);
            } else {
                // Offsets 1..=7: take the `offset` bytes before `dst` (the
                // top of the 8 bytes ending there), repeat them across a
                // u64 by doubling shifts, then store it every multiple of
                // the offset that fits in 8 bytes.
                let v = u64::from_le_bytes(read_unaligned(dst.sub(8).cast::<[u8; 8]>()));
                let mut p = v >> (64 - 8 * offset);
                // Double the pattern until it fills 64 bits; shifts of 64 or
                // more contribute nothing (branch-free: no loop to mispredict).
                let s = 8 * offset as u32;
                p |= p << s;
                p |= p.checked_shl(2 * s).unwrap_or(0);
                p |= p.checked_shl(4 * s).unwrap_or(0);
                let bytes = p.to_le_bytes();
                if 8 % offset == 0 {
                    // Offsets 1, 2, 4: the 8-byte pattern tiles any width,
                    // so store whole chunks.
                    let mut wide = [0u8; W];
                    for chunk in wide.chunks_exact_mut(8) {
                        chunk.copy_from_slice(&bytes);
                    }
                    for_each_step(len, W, |i| {
                        write_unaligned(dst.add(i).cast::<[u8; W]>(), wide)
                    });
                } else {
                    for_each_step(len, pattern_step(8, offset), |i| {
                        write_unaligned(dst.add(i).cast::<[u8; 8]>(), bytes)
                    });
                }
            }
        }
    }
}
