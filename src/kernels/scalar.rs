//! Portable kernels: 8- and 16-byte chunk copies through unaligned loads and
//! stores, which every target compiles to plain register moves.

use core::ptr;

/// [`wild_copy`] writes up to this many bytes past `dst + len`: it copies
/// whole 16-byte chunks, so at most 15 extra bytes (rounded up to 16 for a
/// simple bound).
pub(crate) const WILD_OVERRUN: usize = 16;

/// [`copy_match`] writes up to this many bytes past `dst + len`: the first
/// 16-byte pattern store plus 8-byte chunk rounding.
pub(crate) const MATCH_OVERRUN: usize = 16;

/// Copy one 16-byte chunk.
///
/// # Safety
/// `src..src+16` must be readable and `dst..dst+16` writable; they may overlap
/// only if `dst >= src + 16` or `src >= dst + 16` (the load completes before
/// the store, so any overlap is in fact fine, but callers rely on ordering).
#[inline(always)]
unsafe fn copy16(dst: *mut u8, src: *const u8) {
    // SAFETY: the caller guarantees both 16-byte ranges are valid.
    unsafe {
        ptr::write_unaligned(
            dst.cast::<[u8; 16]>(),
            ptr::read_unaligned(src.cast::<[u8; 16]>()),
        )
    }
}

/// Copy one 8-byte chunk.
///
/// # Safety
/// `src..src+8` readable, `dst..dst+8` writable.
#[inline(always)]
unsafe fn copy8(dst: *mut u8, src: *const u8) {
    // SAFETY: the caller guarantees both 8-byte ranges are valid.
    unsafe {
        ptr::write_unaligned(
            dst.cast::<[u8; 8]>(),
            ptr::read_unaligned(src.cast::<[u8; 8]>()),
        )
    }
}

/// Copy `len` bytes from `src` to `dst` in 16-byte chunks, for literals.
///
/// # Safety
/// `src..src+len+WILD_OVERRUN` must be readable, `dst..dst+len+WILD_OVERRUN`
/// writable, and the two ranges must not overlap.
#[inline(always)]
pub(crate) unsafe fn wild_copy(dst: *mut u8, src: *const u8, len: usize) {
    let mut i = 0;
    loop {
        // SAFETY: i < len + 16 at every store, within the caller's bounds.
        unsafe { copy16(dst.add(i), src.add(i)) };
        i += 16;
        if i >= len {
            break;
        }
    }
}

/// Copy a match of `len` bytes that starts `offset` bytes before `dst`
/// (`offset >= 1`), handling overlap: the result is as if copied byte by byte.
///
/// Only bytes in `dst - offset .. dst` and bytes this call has itself written
/// are read, so nothing past the output written so far is ever exposed.
///
/// # Safety
/// `dst - offset .. dst` must be initialised and readable, and
/// `dst .. dst + len + MATCH_OVERRUN` writable (same allocation).
#[inline(always)]
pub(crate) unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize) {
    // SAFETY (whole body): every read is at `dst + k - d` with `d >= 8` (or
    // `>= 16`) for a chunk starting at `dst + k`, so it reads only bytes
    // before that chunk, which are either history or written by this call;
    // every write ends before `dst + len + MATCH_OVERRUN`.
    unsafe {
        let src = dst.sub(offset);
        if offset >= 16 {
            let mut i = 0;
            loop {
                copy16(dst.add(i), src.add(i));
                i += 16;
                if i >= len {
                    break;
                }
            }
        } else if offset >= 8 {
            let mut i = 0;
            loop {
                copy8(dst.add(i), src.add(i));
                i += 8;
                if i >= len {
                    break;
                }
            }
        } else {
            // Offsets 1..=7: build 16 bytes of the repeating pattern, store
            // them, then continue with 8-byte chunks copied from a distance
            // that is a multiple of the period and at least 8.
            let mut pattern = [0u8; 16];
            for (k, b) in pattern.iter_mut().enumerate() {
                *b = *src.add(k % offset);
            }
            ptr::write_unaligned(dst.cast::<[u8; 16]>(), pattern);
            if len > 16 {
                let step = PERIOD_STEP[offset];
                let mut i = 16;
                loop {
                    copy8(dst.add(i), dst.add(i - step));
                    i += 8;
                    if i >= len {
                        break;
                    }
                }
            }
        }
    }
}

/// For a pattern period `p` in 1..=7, the smallest multiple of `p` that is at
/// least 8: copying 8-byte chunks from that distance back repeats the pattern
/// without the chunk reading its own output.
const PERIOD_STEP: [usize; 8] = [0, 8, 8, 9, 8, 10, 12, 14];
