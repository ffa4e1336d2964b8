//! The fast loop of the LZ4 block decoder
//! ([`decompress`](mod@super::decompress)): the sequences decoded while
//! both buffers are far from their ends, with the kernel's wild copies, in
//! the three loop shapes.

use super::careful::{
    Cursor, Decoded, Dict, LENGTH_HEADROOM, LITERAL_INPUT_GUARD, MATCH_LENGTH_INPUT_GUARD,
    RUN_MASK, SHORT_LITERALS, SHORT_MATCH, bad_offset, copy_last_run, dict_match, exact_match,
    read_length,
};
use super::format::{LAST_LITERALS, MF_LIMIT, MIN_MATCH};
use crate::kernels::exact::{MEDIUM_MATCH, copy_match_early, copy_medium_match};
use crate::kernels::{Kernel, pattern_step};

/// Loop shape: every sequence decoded the same way.
pub(crate) const PLAIN: u8 = 0;
/// Loop shape: match-only sequences on a branch of their own.
pub(crate) const MATCH_ONLY: u8 = 1;
/// Loop shape: medium matches without a branch on a length byte.
pub(crate) const MEDIUM: u8 = 2;

/// Fast loop entry: input left. The token and a short literal run copied as
/// one 16-byte chunk fit, and after a short run the offset, a token and the
/// last literals (the end conditions of a non-last run).
pub(super) const fn in_margin() -> usize {
    let chunk = 1 + 16;
    let exact = 1 + SHORT_LITERALS + LITERAL_INPUT_GUARD;
    if chunk > exact { chunk } else { exact }
}

/// Input that must remain after a long literal run in the fast loop: its
/// wild copy reads up to the kernel's overrun past the run, and a non-last
/// run leaves the end conditions' bytes.
pub(super) const fn long_literal_in_margin<K: Kernel>() -> usize {
    if K::OVERRUN > LITERAL_INPUT_GUARD {
        K::OVERRUN
    } else {
        LITERAL_INPUT_GUARD
    }
}

/// Fast loop entry: output left. A short literal run (one 16-byte chunk,
/// at most 14 bytes kept) then a short match copied with the kernel's
/// overrun fit; that also keeps a short run ending more than [`MF_LIMIT`]
/// and a short match at least [`LAST_LITERALS`] before the capacity, and so
/// does a [`MEDIUM_MATCH`]-byte copy with the last literals after it. After
/// a long literal run, the same margin is checked past the run.
pub(super) const fn out_margin<K: Kernel>() -> usize {
    let short = SHORT_MATCH + K::OVERRUN;
    let medium = MEDIUM_MATCH + LAST_LITERALS;
    SHORT_LITERALS + if short > medium { short } else { medium }
}

const _: () = assert!(
    SHORT_MATCH <= 3 * 5 + 8 - 5 && 24 <= SHORT_MATCH + 16,
    "copy_short_pattern's three stores cover a short match and stay in its room"
);

const _: () = assert!(
    SHORT_LITERALS + SHORT_MATCH > 16 && SHORT_MATCH > MF_LIMIT && SHORT_MATCH + 16 > LAST_LITERALS,
    "out_margin covers the 16-byte literal chunk and the end conditions"
);

/// The last input and output positions from which the fast loop decodes
/// a sequence (its loop condition), or `None` where the block is too small
/// for it to run at all.
#[inline(always)]
pub(super) fn fast_limits<K: Kernel>(iend: usize, oend: usize) -> Option<(usize, usize)> {
    Some((
        iend.checked_sub(in_margin())?,
        oend.checked_sub(out_margin::<K>())?,
    ))
}

/// Decode sequences while both buffers are far from their ends. Returns
/// `false` when the next sequence needs the careful step (`pos` then points
/// at its token), `true` when it decoded the block's last literal run
/// (`pos` is then at the input's end).
#[inline(always)]
pub(super) fn fast_loop<K: Kernel, const S: u8, D: Dict>(
    src: &[u8],
    buf: &mut [u8],
    pos: &mut Cursor,
    dict: D,
) -> Decoded<bool> {
    const {
        assert!(
            RUN_MASK + MIN_MATCH + long_literal_in_margin::<K>() + out_margin::<K>() + K::OVERRUN
                <= LENGTH_HEADROOM,
            "what the loop adds to a length read stays within LENGTH_HEADROOM"
        )
    };
    let iend = src.len();
    let oend = buf.len();
    let (mut ip, mut op) = (pos.ip, pos.op);
    // The loop starts at the block's first sequence: a kernel's pattern
    // copy, which may read K::HISTORY bytes before the output position, is
    // only used once that much output exists ([`copy_match_early`] before).
    // The loop runs while ip <= ilimit and op <= olimit.
    let Some((ilimit, olimit)) = fast_limits::<K>(iend, oend) else {
        return Ok(false);
    };
    let sp = src.as_ptr();
    // Derived again after every call that takes `buf` (the out-of-line
    // match helpers): such a call reborrows the slice, after which a
    // pointer derived before it may no longer be used to access it (the
    // aliasing rules Miri checks). Comparisons and distances need no
    // access, so `olim` may stay.
    let mut bp = buf.as_mut_ptr();
    // Both positions are raw pointers rather than indices: the next token's
    // address is then one add away from the previous token's load (the
    // loop's critical dependency chain), and loads and stores use simple
    // addressing. This measured about 5% faster than indices.
    // SAFETY: all four are at most the slices' ends.
    let (ilim, olim) = unsafe { (sp.add(ilimit), bp.add(olimit)) };
    // SAFETY: `ip <= src.len()` and `op <= buf.len()` (positions in the slices).
    let (mut ipp, mut opp) = unsafe { (sp.add(ip), bp.add(op)) };
    while ipp <= ilim && opp <= olim {
        // SAFETY: ipp < iend (loop condition).
        let token = unsafe { *ipp } as usize;
        if S == MATCH_ONLY && token < RUN_MASK {
            // A match-only sequence: no literals, a short match. Taking this
            // branch (predicted) advances the input by a constant 3 bytes,
            // so the next token's load does not wait for this one's value.
            // SAFETY: in_margin covers the token and offset.
            let offset = unsafe {
                let offset = read_le16(ipp.add(1));
                ipp = ipp.add(3);
                offset
            };
            if D::EXTERNAL {
                let len = token + MIN_MATCH;
                // SAFETY: `opp` and `ipp` are in their slices, not before
                // their starts (loop invariant), `ipp` past the offset.
                if let Some((op, ip)) = unsafe { reaches_dict(bp, opp, sp, ipp, offset) } {
                    let op = dict_match(buf, op, offset, len, dict.bytes(), ip - 2, ip)?;
                    // `buf` was reborrowed: pointers into it are derived
                    // anew (see `bp`).
                    bp = buf.as_mut_ptr();
                    // SAFETY: dict_match returns a position in buf.
                    opp = unsafe { bp.add(op) };
                    continue;
                }
            }
            // SAFETY: out_margin covers a short match at opp.
            opp = unsafe { short_match::<K>(opp, bp, offset, token + MIN_MATCH, ipp, sp)? };
            continue;
        }
        let mut lit = token >> 4;
        if lit <= SHORT_LITERALS {
            // SAFETY: in_margin covers ip + 1 + 16 and out_margin covers
            // op + 16; src and buf are distinct slices.
            unsafe {
                K::copy_short_literals(opp, ipp.add(1));
                ipp = ipp.add(1);
            }
        } else {
            // Long runs are rare in the data where per-sequence cost
            // matters (many short sequences); keep the short path straight.
            std::hint::cold_path();
            // SAFETY: in_margin covers the token and the byte after it.
            let first = unsafe { *ipp.add(1) } as usize;
            let run_end = if first != 255 {
                lit += first;
                // SAFETY: as above.
                unsafe { ipp.add(2) }
            } else {
                // Runs of 270 bytes or more, out of line: a run with one
                // length byte is then one straight block, entered and left
                // by a taken branch each (three before; see the long
                // matches below for why taken branches count).
                std::hint::cold_path();
                // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
                let seq_start = unsafe { distance(ipp, sp) };
                ip = seq_start + 1;
                lit += read_length(src, &mut ip, iend)?;
                // SAFETY: ip <= iend.
                unsafe { sp.add(ip) }
            };
            // SAFETY: `run_end` is in src, not before its start (read_length
            // keeps ip <= iend).
            let run = unsafe { distance(run_end, sp) };
            // SAFETY: `opp` is in its slice, not before its start (loop invariant).
            let op = unsafe { distance(opp, bp) };
            if lit + long_literal_in_margin::<K>() > iend - run
                || lit + out_margin::<K>() > oend - op
            {
                // The block's last literal run is copied here: through
                // `last_literals`, its length would be read again (257
                // bytes for a 64 KiB run).
                if copy_last_run(src, buf, pos, run, op, lit) {
                    return Ok(true);
                }
                // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
                pos.ip = unsafe { distance(ipp, sp) };
                pos.op = op;
                return Ok(false);
            }
            // SAFETY: both margins, just checked past the run, are at
            // least the kernel's overrun.
            unsafe {
                ipp = run_end;
                K::copy_literals(opp, ipp, lit);
            }
        }
        // A non-last literal run by the end conditions: at least
        // LITERAL_INPUT_GUARD input bytes remain (in_margin) and the run ends
        // more than MF_LIMIT before the capacity (out_margin).
        // SAFETY: both stay in bounds (see above), and so does the offset.
        let offset = unsafe {
            ipp = ipp.add(lit);
            opp = opp.add(lit);
            let offset = read_le16(ipp);
            ipp = ipp.add(2);
            offset
        };
        let code = token & 15;
        if S == MEDIUM {
            // A match of up to MEDIUM_MATCH bytes (at most one length
            // byte) from at least as far back: no branch on the match code.
            let long = code == RUN_MASK;
            // SAFETY: a non-last literal run leaves LITERAL_INPUT_GUARD
            // input bytes, so the byte after the offset is readable. A mask
            // rather than an `if`, which the compiler turns back into the
            // branch this path exists to avoid.
            let extra = (unsafe { *ipp }) as usize & (long as usize).wrapping_neg();
            let len = code + MIN_MATCH + extra;
            if offset >= MEDIUM_MATCH && len <= MEDIUM_MATCH {
                // SAFETY: `opp` is in its slice, not before its start (loop invariant).
                let history = unsafe { distance(opp, bp) };
                if offset > history {
                    if D::EXTERNAL {
                        // SAFETY: the length byte, if any, is readable (as
                        // above); `ipp` stays in src, not before its start.
                        let ip = unsafe {
                            ipp = ipp.add(long as usize);
                            distance(ipp, sp)
                        };
                        let offset_at = ip - long as usize - 2;
                        let bytes = dict.bytes();
                        let op = dict_match(buf, history, offset, len, bytes, offset_at, ip)?;
                        bp = buf.as_mut_ptr();
                        // SAFETY: dict_match returns a position in buf.
                        opp = unsafe { bp.add(op) };
                        continue;
                    }
                    // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
                    return Err(bad_offset(
                        offset,
                        history,
                        unsafe { distance(ipp, sp) } - 2,
                    ));
                }
                // SAFETY: MEDIUM_MATCH <= offset <= history; out_margin
                // leaves MEDIUM_MATCH + LAST_LITERALS bytes after a short
                // literal run or a checked long one.
                unsafe {
                    ipp = ipp.add(long as usize);
                    copy_medium_match(opp, offset);
                    opp = opp.add(len);
                }
                continue;
            }
        }
        if code != RUN_MASK {
            // A short match (at most 18 bytes): out_margin leaves room for
            // its chunks after a short literal run or a checked long one.
            if D::EXTERNAL {
                let len = code + MIN_MATCH;
                // SAFETY: `opp` and `ipp` are in their slices, not before
                // their starts (loop invariant), `ipp` past the offset.
                if let Some((op, ip)) = unsafe { reaches_dict(bp, opp, sp, ipp, offset) } {
                    let op = dict_match(buf, op, offset, len, dict.bytes(), ip - 2, ip)?;
                    // `buf` was reborrowed: pointers into it are derived
                    // anew (see `bp`).
                    bp = buf.as_mut_ptr();
                    // SAFETY: dict_match returns a position in buf.
                    opp = unsafe { bp.add(op) };
                    continue;
                }
            }
            // SAFETY: out_margin leaves SHORT_MATCH + OVERRUN after opp.
            opp = unsafe { short_match::<K>(opp, bp, offset, code + MIN_MATCH, ipp, sp)? };
            continue;
        }
        // Long matches, out of line. In line, they made the short match a
        // taken branch: a second taken branch per sequence, after which the
        // branch predictor could no longer learn a 745 KB column's
        // sequences by heart from repeated passes (a reader's hot cache),
        // where lz4's C decoder does (0.68x C, issue 36).
        std::hint::cold_path();
        // SAFETY: `opp` is in its slice, not before its start (loop invariant).
        let history = unsafe { distance(opp, bp) };
        if offset == 0 || offset > history + dict.bytes().len() {
            // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
            return Err(bad_offset(
                offset,
                history + dict.bytes().len(),
                unsafe { distance(ipp, sp) } - 2,
            ));
        }
        // The usual long match has one length byte: read with one load and
        // the input pointer kept (a round trip through an index and
        // `read_length` lengthened the chain to the next token by a
        // third on columns of 19-40 byte matches).
        // SAFETY: a non-last literal run leaves LITERAL_INPUT_GUARD input
        // bytes, so after the offset this byte is readable, and reading it
        // leaves MATCH_LENGTH_INPUT_GUARD bytes (read_length's limit).
        let first = unsafe { *ipp } as usize;
        let len = if first != 255 {
            // SAFETY: as above.
            ipp = unsafe { ipp.add(1) };
            RUN_MASK + MIN_MATCH + first
        } else {
            // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
            ip = unsafe { distance(ipp, sp) };
            let more = read_length(src, &mut ip, iend - MATCH_LENGTH_INPUT_GUARD)?;
            // SAFETY: ip <= iend.
            ipp = unsafe { sp.add(ip) };
            RUN_MASK + MIN_MATCH + more
        };
        op = history;
        if D::EXTERNAL && offset > op {
            // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
            let ip = unsafe { distance(ipp, sp) };
            // The offset was checked above (offset_at is not used).
            op = dict_match(buf, op, offset, len, dict.bytes(), ip, ip)?;
            bp = buf.as_mut_ptr();
            // SAFETY: dict_match returns a position in buf.
            opp = unsafe { bp.add(op) };
            continue;
        }
        if len + K::OVERRUN <= oend - op {
            // SAFETY: 1 <= offset <= op, so the source is initialised history
            // in buf; op + len + OVERRUN <= oend was just checked, and
            // OVERRUN > LAST_LITERALS keeps the end condition. After the
            // early part, K::HISTORY bytes of output exist before the rest,
            // and OVERRUN >= 16 covers the early part's stores.
            unsafe {
                let early = if op < K::HISTORY {
                    copy_match_early(opp, offset, len.min(K::HISTORY - op))
                } else {
                    0
                };
                if early < len {
                    K::copy_match(opp.add(early), offset, len - early);
                }
                opp = opp.add(len);
            }
        } else {
            // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
            op = exact_match(buf, op, offset, len, unsafe { distance(ipp, sp) })?;
            bp = buf.as_mut_ptr();
            // SAFETY: op <= oend.
            opp = unsafe { bp.add(op) };
        }
    }
    // SAFETY: `ipp` is in its slice, not before its start (loop invariant).
    pos.ip = unsafe { distance(ipp, sp) };
    // SAFETY: `opp` is in its slice, not before its start (loop invariant).
    pos.op = unsafe { distance(opp, bp) };
    Ok(false)
}

/// Copy a short match (at most [`SHORT_MATCH`] bytes) of `len` bytes from
/// `offset` bytes back to `opp`, after checking the offset against the
/// history before `opp` (`bp` is the output buffer's start). Returns the
/// output pointer after the match. `ipp` (in the input starting at `sp`)
/// points just past the offset, for the error position.
///
/// # Safety
/// `opp` points into the output buffer that starts at `bp`, at least
/// `SHORT_MATCH + K::OVERRUN` bytes before its end; `ipp` points into the
/// input that starts at `sp`, at least 2 bytes past `sp`.
#[inline(always)]
unsafe fn short_match<K: Kernel>(
    opp: *mut u8,
    bp: *mut u8,
    offset: usize,
    len: usize,
    ipp: *const u8,
    sp: *const u8,
) -> Decoded<*mut u8> {
    // Bytes of history before opp: the prefix plus what was written.
    // Offset 0 is rejected where it can occur (it is less than
    // SHORT_MATCH_MIN_OFFSET), keeping one compare on the common path.
    // SAFETY: `opp` is in the buffer starting at `bp` (the contract).
    let history = unsafe { distance(opp, bp) };
    if offset > history {
        // SAFETY: `ipp` is in the input starting at `sp` (the contract).
        return Err(bad_offset(
            offset,
            history,
            unsafe { distance(ipp, sp) } - 2,
        ));
    }
    // SAFETY: 1 <= offset <= history (0 is rejected before the pattern
    // copy), and the caller's room for the copy's chunks.
    unsafe {
        // `copy_short_pattern` takes offsets below 8 only.
        const { assert!(K::SHORT_MATCH_MIN_OFFSET <= 8) };
        if offset >= K::SHORT_MATCH_MIN_OFFSET {
            K::copy_short_match(opp, offset);
        } else {
            // Out of line: the common path then falls through into the next
            // sequence with no taken branch (measured 10% on such columns).
            std::hint::cold_path();
            if offset == 0 {
                return Err(bad_offset(0, history, distance(ipp, sp) - 2));
            }
            if history < 4 {
                copy_match_early(opp, offset, len);
            } else {
                copy_short_pattern(opp, offset, len);
            }
        }
        Ok(opp.add(len))
    }
}

/// Copy a short match (at most [`SHORT_MATCH`] bytes) from `offset` (1 to
/// 7) bytes back: its bytes read with 4-byte loads that end at or before
/// `dst`, repeated across a `u64`, stored every multiple of the offset.
/// The bytes before `dst` were written a few stores ago, and a load from
/// inside one of those stores is forwarded from it, where the kernels'
/// 16-byte pattern load (the 16 bytes before `dst`) straddles several and
/// waits for them to reach the cache. lz4's C decoder builds these
/// patterns from small loads too; with the kernels' pattern, integer
/// columns of offset-4 matches decoded at 0.87-0.92x C
/// (`weather.wind_dir.Int32`: 1.81 -> 2.32 GB/s, C 1.97, hot).
///
/// # Safety
/// `dst - 4 .. dst` initialised (and `offset <= 4` or `dst - offset ..
/// dst` too), `dst .. dst + 24` writable, same allocation; `1 <= offset <
/// 8`, `len <= SHORT_MATCH`.
#[inline(always)]
unsafe fn copy_short_pattern(dst: *mut u8, offset: usize, len: usize) {
    debug_assert!((1..8).contains(&offset) && len <= SHORT_MATCH);
    // SAFETY: the loads read `dst - max(4, offset) .. dst`, the stores
    // `dst .. dst + 24` (the caller's contract).
    unsafe {
        let le32 = |p: *const u8| u64::from(u32::from_le(p.cast::<u32>().read_unaligned()));
        let last = le32(dst.sub(4));
        // The offset's bytes, low first, nothing above them.
        let w = if offset >= 4 {
            let first = le32(dst.sub(offset));
            first | last << (8 * (offset - 4))
        } else {
            last >> (8 * (4 - offset))
        };
        // Repeated to 8 bytes by doubling; shifts of 64 or more add nothing.
        let s = 8 * offset as u32;
        let mut p = w | w << s;
        p |= p.checked_shl(2 * s).unwrap_or(0);
        p |= p.checked_shl(4 * s).unwrap_or(0);
        // Three stores a multiple of the offset apart, 5 to 8 bytes: 18
        // bytes or more, whatever the offset (a loop of stores until
        // `len` mispredicted its count on mixed offsets and lengths).
        let step = pattern_step(8, offset);
        for i in [0, step, 2 * step] {
            dst.add(i).cast::<u64>().write_unaligned(p.to_le());
        }
    }
}

/// How far the fast loop's pointer `p` is past `base`, the start of its
/// slice.
///
/// # Safety
/// `p` and `base` point into (or one past the end of) the same slice, and
/// `p` is not before `base`.
#[inline(always)]
unsafe fn distance<T>(p: *const T, base: *const T) -> usize {
    // SAFETY: the caller's contract is `offset_from`'s, and the difference
    // is not negative.
    unsafe { p.offset_from(base) as usize }
}

/// In the fast loop with a dictionary: whether the match `offset` back
/// from `opp` reaches before the output buffer (which starts at `bp`); if
/// so, the output and input positions for [`dict_match`]. It takes no
/// `buf`: reborrowing the slice on every match would invalidate the
/// loop's pointers into it, which are derived again only after a call
/// that does take it.
///
/// # Safety
/// `opp` points into the buffer starting at `bp`, not before it; `ipp`
/// points into the input starting at `sp`, just past the match offset.
#[inline(always)]
unsafe fn reaches_dict(
    bp: *mut u8,
    opp: *mut u8,
    sp: *const u8,
    ipp: *const u8,
    offset: usize,
) -> Option<(usize, usize)> {
    // SAFETY: the caller's contract.
    let (op, ip) = unsafe { (distance(opp, bp), distance(ipp, sp)) };
    (offset > op).then_some((op, ip))
}

/// Read a little-endian `u16` at `p`, as one load.
///
/// # Safety
/// `p .. p + 2` readable.
#[inline(always)]
unsafe fn read_le16(p: *const u8) -> usize {
    // SAFETY: the caller guarantees both bytes.
    u16::from_le(unsafe { p.cast::<u16>().read_unaligned() }) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_patterns_copy_as_if_byte_by_byte() {
        // Every offset 1..8, every short length, after 4 to 12 bytes of
        // history; bytes past the match are scratch.
        for offset in 1..8usize {
            for len in MIN_MATCH..=SHORT_MATCH {
                for history in 4.max(offset)..=12 {
                    let mut buf: Vec<u8> = (0..history).map(|i| (i * 37 + 11) as u8).collect();
                    buf.resize(history + 24, 0xEE);
                    let mut want = buf.clone();
                    for o in history..history + len {
                        want[o] = want[o - offset];
                    }
                    // SAFETY: `history >= max(4, offset)` bytes before the
                    // match, 24 after it, one allocation.
                    unsafe { copy_short_pattern(buf.as_mut_ptr().add(history), offset, len) };
                    assert_eq!(
                        buf[..history + len],
                        want[..history + len],
                        "offset {offset} len {len} history {history}"
                    );
                }
            }
        }
    }
}
