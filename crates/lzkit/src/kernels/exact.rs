//! Match copies and pattern fills that need no SIMD and no slack: what a
//! decode loop uses where a kernel's wild copies cannot go (near the ends
//! of the buffers, and before the kernel's pattern window exists), and the
//! fixed-size copy of the LZ4 loop's medium shape. Plain Rust, every target.

use super::{copy_chunk, pattern_step};

/// Bytes [`copy_medium_match`] copies, and the shortest offset it takes:
/// the longest match, and shortest offset, of the LZ4 loop's medium shape.
pub(crate) const MEDIUM_MATCH: usize = 32;

/// Copy [`MEDIUM_MATCH`] bytes from `offset >= MEDIUM_MATCH` bytes back,
/// as four 8-byte pieces (small loads are the likeliest to be served whole
/// by one earlier store).
///
/// # Safety
/// `dst - offset .. dst` initialised and `dst .. dst + MEDIUM_MATCH`
/// writable, in one allocation; `offset >= MEDIUM_MATCH`.
#[inline(always)]
pub(crate) unsafe fn copy_medium_match(dst: *mut u8, offset: usize) {
    // SAFETY: the source range ends at or before dst (offset >=
    // MEDIUM_MATCH), and both are in bounds by the caller's contract.
    unsafe {
        let src = dst.sub(offset);
        for i in [0, 8, 16, 24] {
            copy_chunk::<8>(dst.add(i), src.add(i));
        }
    }
}

/// Copy the first `len` bytes of a match at `dst` from `offset` bytes back
/// without a kernel, whose pattern copy needs [`super::Kernel::HISTORY`]
/// bytes of output before `dst` (the first sequences of a block, often a long
/// run of one byte in high-ratio columns). Offsets below 16 are filled
/// from a 16-byte pattern value, larger ones copied in 16-byte pieces.
/// Returns `len`.
///
/// # Safety
/// `1 <= offset`, `dst - offset .. dst` initialised and
/// `dst .. dst + len + 16` writable, in one allocation.
#[cold]
#[inline(never)]
pub(crate) unsafe fn copy_match_early(dst: *mut u8, offset: usize, len: usize) -> usize {
    // SAFETY: every store is 16 bytes at an offset below len; loads read
    // from dst - offset up to 16 bytes, within dst + 16 (offset >= 1).
    unsafe {
        let src = dst.sub(offset);
        let mut o = 0;
        if offset < 16 {
            let word = pattern_of(src.cast::<[u8; 16]>().read_unaligned(), offset).to_le();
            while o < len {
                dst.add(o).cast::<u128>().write_unaligned(word);
                o += pattern_step(16, offset);
            }
        } else {
            // Each piece reads only bytes before its destination.
            while o < len {
                copy_chunk::<16>(dst.add(o), src.add(o));
                o += 16;
            }
        }
    }
    len
}

/// Copy a match of `len` bytes from `offset` bytes before `op` to
/// `buf[op..]`, as if byte by byte, with exact bounds: no write reaches
/// past `buf.len()` (stores may write scratch bytes between the match's end
/// and the capacity, as wild copies do; later sequences overwrite them).
/// Returns `op + len`.
///
/// The caller checks `1 <= offset <= op` and `op + len <= buf.len()`; a
/// call that breaks them panics, and never writes out of bounds.
#[inline(always)]
pub(crate) fn copy_match_exact(buf: &mut [u8], op: usize, offset: usize, len: usize) -> usize {
    debug_assert!(offset >= 1 && offset <= op, "callers check the offset");
    let capacity = buf.len();
    let end = op + len;
    let mut o = op;
    // Where a 16-byte store may start: it must end by the capacity.
    let last_store = capacity.checked_sub(16);
    if offset < 16 {
        // The pattern as one 16-byte value stored every `step` bytes (a
        // multiple of the offset), so no store waits for another. A run of
        // one byte 400 long took nine growing library copies here before, a
        // quarter of a small block's time.
        let word = pattern16(buf, op, offset).to_le();
        let step = pattern_step(16, offset);
        // All of it, however long: library copies of the doubling pieces
        // ran at a third of the stores' speed on a 64 KiB run of one byte
        // (the whole of a 64 KiB block of a high-ratio column), the
        // library's string moves slow on sources this close.
        if let Some(last_store) = last_store {
            let p = buf.as_mut_ptr();
            // Four stores a round while they all fit (a long run, often a
            // block's first match, spent a third of its time on the loop's
            // own instructions with one store a round).
            //
            // Each 16-byte store is written as two 8-byte halves, in address
            // order and in the order a u128 store puts them in memory (on
            // either byte order). As u128 stores, LLVM ordered the halves
            // 0, 8, 24, 16, 40, 32, .. and the store buffer then did not
            // commit two a cycle: a 64 KiB run at offset 8 ran at 0.7 times
            // the C library's speed on an Emerald Rapids Xeon, 1.5 times in
            // order. Merged into 16-byte stores, which split at every 16
            // bytes at offset 8, it ran at 0.8 times the 8-byte stores.
            let (lo, hi) = if cfg!(target_endian = "little") {
                (word as u64, (word >> 64) as u64)
            } else {
                ((word >> 64) as u64, word as u64)
            };
            while o < end && o + 3 * step <= last_store {
                for k in 0..4 {
                    // SAFETY: both halves lie in o + k * step .. + 16, and
                    // o + k * step + 16 <= o + 3 * step + 16 <= capacity.
                    unsafe {
                        let at = p.add(o + k * step);
                        at.cast::<u64>().write_unaligned(lo);
                        at.add(8).cast::<u64>().write_unaligned(hi);
                    }
                }
                o += 4 * step;
            }
            while o < end && o <= last_store {
                // SAFETY: o + 16 <= capacity, the length of the slice p
                // points into. (Slice stores here cost a third more: their
                // bounds checks.)
                unsafe { p.add(o).cast::<u128>().write_unaligned(word) };
                o += step;
            }
        }
        if o < end {
            // Stopped by the capacity: the tail (under 16 bytes) starts at
            // the pattern's phase 0, its first bytes.
            for (d, s) in buf[o..end].iter_mut().zip(word.to_ne_bytes()) {
                *d = s;
            }
        }
        return end;
    } else if len < PIECES_UP_TO {
        // Short: 16-byte pieces, each reading bytes written before it.
        while o < end && last_store.is_some_and(|l| o <= l) {
            buf.copy_within(o - offset..o - offset + 16, o);
            o += 16;
        }
        while o < end {
            buf[o] = buf[o - offset];
            o += 1;
        }
        return end;
    }
    // Long: library copies of pieces that read only bytes already written.
    // What is written so far is a whole number of offsets, so the distance
    // from the source start stays a multiple of the offset as it doubles
    // and the pattern repeats correctly; the pieces soon become large
    // (a 64 KiB run of one byte, common in high-ratio columns, at the end
    // of a block, is a dozen copies).
    let src0 = op - offset;
    while o < end {
        let n = (o - src0).min(end - o);
        buf.copy_within(src0..src0 + n, o);
        o += n;
    }
    end
}

/// Copy a match of at most 16 bytes from `offset >= 8` bytes before `op`
/// as two 8-byte pieces, each reading only bytes written before it; up to
/// `op + 16` is written. The caller checks `offset <= op` and
/// `op + 16 <= buf.len()` (a call that breaks them panics).
#[inline(always)]
pub(crate) fn copy_short_match_exact(buf: &mut [u8], op: usize, offset: usize) {
    for i in [0, 8] {
        let from = op - offset + i;
        buf.copy_within(from..from + 8, op + i);
    }
}

/// The `offset` bytes before `op` (1 <= offset < 16) repeated to 16
/// bytes, as a little-endian value: byte `i` is `buf[op - offset + i % offset]`.
///
/// One 16-byte load, a mask and a multiplication by a constant that places
/// copies of the masked bytes `offset` apart (they do not overlap, so no
/// carries mix them). Building it by doubling with variable shifts took
/// about 8 ns, most of a short match's time.
#[inline(always)]
fn pattern16(buf: &[u8], op: usize, offset: usize) -> u128 {
    let from = op - offset;
    if let Some(bytes) = buf.get(from..from + 16) {
        let mut x = [0u8; 16];
        x.copy_from_slice(bytes);
        return pattern_of(x, offset);
    }
    // Within 16 bytes of the capacity: a byte at a time.
    let mut v = 0u128;
    for i in 0..16 {
        v |= (buf[from + i % offset] as u128) << (8 * i);
    }
    v
}

/// The first `offset` (1..16) of `bytes` repeated to 16 bytes, as a
/// little-endian value (see [`pattern16`]).
#[inline(always)]
fn pattern_of(bytes: [u8; 16], offset: usize) -> u128 {
    (u128::from_le_bytes(bytes) & PATTERN_MASK[offset]).wrapping_mul(PATTERN_MUL[offset])
}

/// `PATTERN_MASK[o]` keeps the low `o` bytes of a 16-byte value.
const PATTERN_MASK: [u128; 16] = {
    let mut t = [0u128; 16];
    let mut o = 1;
    while o < 16 {
        t[o] = (1u128 << (8 * o)) - 1;
        o += 1;
    }
    t
};

/// `PATTERN_MUL[o]` has a 1 in the low bit of every `o`-th byte: multiplied
/// by an `o`-byte value, it repeats the value every `o` bytes.
const PATTERN_MUL: [u128; 16] = {
    let mut t = [0u128; 16];
    let mut o = 1;
    while o < 16 {
        let mut at = 0;
        while at < 16 {
            t[o] |= 1u128 << (8 * at);
            at += o;
        }
        o += 1;
    }
    t
};

/// Match length from which [`copy_match_exact`] copies matches with offsets of
/// 16 or more with library calls rather than 16-byte pieces.
const PIECES_UP_TO: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    /// `copy_match_exact` against the format's definition (byte by byte),
    /// for every short offset and the pieces' and the doubling copies'
    /// ones, lengths across the stores' rounds, and capacities from the
    /// match's end to past the last store: the match comes out as defined,
    /// nothing before it or past the capacity changes.
    #[test]
    fn exact_copies_match_the_definition() {
        for offset in (1..=40).chain([63, 64, 100]) {
            for len in (0..=80).chain([127, 128, 129, 500, 1000]) {
                for slack in [0, 1, 7, 15, 16, 17, 40, 100] {
                    let op = offset + 3;
                    let capacity = op + len + slack;
                    // Guard bytes after the capacity: no store reaches them.
                    let mut all: Vec<u8> = (0..capacity + 32).map(|i| (i * 7 + 3) as u8).collect();
                    let mut want = all.clone();
                    for i in op..op + len {
                        want[i] = want[i - offset];
                    }
                    let buf = &mut all[..capacity];
                    assert_eq!(copy_match_exact(buf, op, offset, len), op + len);
                    let what = format!("offset {offset} len {len} slack {slack}");
                    assert!(all[..op + len] == want[..op + len], "{what}");
                    assert!(
                        all[capacity..] == want[capacity..],
                        "{what}: past the capacity"
                    );
                }
            }
        }
    }
}
