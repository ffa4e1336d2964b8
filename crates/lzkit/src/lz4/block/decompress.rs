//! The LZ4 block decode loop, written once and instantiated per copy
//! strategy ([`Kernel`]) in [`super::variant`].
//!
//! Two loops share the work. The *fast loop* runs while enough input and
//! output remain that the kernel's wild copies cannot leave the buffers
//! ([`in_margin`], [`out_margin`]); there, literals and matches are copied
//! with few branches. It starts at a block's first sequence: until the
//! kernel's pattern window ([`Kernel::HISTORY`]) of output exists, matches
//! that would use it are copied by [`copy_match_early`]. Near either end,
//! or for a sequence too long to copy wildly, *careful steps* decode
//! sequences with exact bounds and exact copies ([`careful_steps`], one
//! call for a block's whole tail). Neither needs slack from the caller.
//!
//! The fast loop comes in three shapes (the `S` parameter). Its critical path
//! is the chain from one token's load, through the literal length in it, to
//! the next token's address. With [`MATCH_ONLY`], a *match-only* sequence (token below
//! 15: no literals, a short match) is decoded on a branch of its own that
//! advances the input by a constant 3 bytes; where such sequences dominate
//! (integer and float columns) the branch is predicted and consecutive
//! tokens load in parallel, about 1.3x faster. Where they are mixed with
//! others at random the branch mispredicts and the plain shape wins. With
//! [`MEDIUM`], matches of up to 32 bytes from at least 32 back are decoded
//! without a branch on whether a length byte follows the offset: at HC
//! levels a third of the sequences have one, at random, and the plain
//! shape mispredicts each; elsewhere the medium path's wider stores and
//! its offset test cost more than they save. The adaptive decoder learns
//! which shape suits the data.
//!
//! An external dictionary is a third parameter of the loop (`D`, a
//! [`Dict`]): without one ([`NoDict`]) every test of it is a constant and
//! compiles away; with one ([`ExtDict`]), a match reaching before the
//! output buffer is copied from the dictionary's tail by [`dict_match`],
//! off the fast path. No dictionary bytes are copied up front.
//!
//! Acceptance rules: exactly those of the reference decoder,
//! `LZ4_decompress_safe` (and `_usingDict`) of lz4 1.10, but for offset 0.
//! The format's end conditions are checked as it checks them, against the
//! output *capacity* and the input end, not against where the block's
//! output ends:
//! * a literal run that ends within [`MF_LIMIT`] bytes of the output capacity,
//!   or within 8 bytes of the input end, must be the last sequence: it must
//!   end exactly at the input end;
//! * a match must end at least [`LAST_LITERALS`] bytes before the capacity;
//! * a match offset must be between 1 and the number of bytes of history
//!   (the prefix plus what this call has written, plus the dictionary).
//!
//! Except, as in the reference decoder's two-stage shortcut, for a sequence
//! whose literal length fits the token (at most 14), whose token leaves at
//! least 17 input bytes after it ([`SHORTCUT_INPUT`]) and that starts at
//! least 32 bytes ([`SHORTCUT_OUTPUT`]) before the capacity: its literal
//! run need not leave 8 input bytes (the offset is read, the next token
//! follows it), and if its match is short too (at most 18 bytes, the token
//! alone encodes it) and comes from 8 or more bytes back inside the output
//! buffer (with its prefix, not the external dictionary), that match need
//! not end [`LAST_LITERALS`] before the capacity. So a block whose last
//! literal run is shorter than 5 bytes, or whose last match starts fewer
//! than 12 bytes before its end, decodes where `lz4 -d` decodes it. Those
//! sequences are near an end of a buffer, so only the careful step sees
//! them: the fast loop's margins keep it far from both ends, where both
//! sets of rules accept the same sequences.
//!
//! Offset 0 is rejected ([`Lz4Fault::OffsetZero`]): the format says it is
//! invalid. The reference decoder does not check for it and copies a
//! match from the position being written.
//!
//! Lengths: on 32-bit targets, where 17 MiB of 255-run bytes add up to
//! 4 GiB, a literal or match length is at most [`MAX_LENGTH`] (half the
//! address space, the reference decoder's limit too), else
//! [`Lz4Fault::LengthOverflow`]; no sum or bounds check of the loop then
//! overflows. On 64-bit targets no input is long enough to overflow one,
//! and the checks compile away.

use super::{LAST_LITERALS, MF_LIMIT, MIN_MATCH};
use crate::error::{Error, Fault, Lz4Fault};

/// What the decode functions return: the error boxed, so that the result
/// fits in two registers. A 40-byte `Result<usize>` is returned through
/// memory, and copying it through each layer (a 16-byte load of what the
/// callee wrote with 8-byte stores) stalls store-to-load forwarding:
/// measured at about 10% of the time to decode a small block.
pub(crate) type Decoded<T> = std::result::Result<T, Box<Error>>;
use crate::kernels::Kernel;
use crate::kernels::exact::{
    MEDIUM_MATCH, copy_match_early, copy_match_exact, copy_medium_match, copy_short_match_exact,
};

/// Token nibble value meaning "more length bytes follow".
const RUN_MASK: usize = 15;
/// A non-last literal run must leave this much input: 2 offset bytes, a
/// token and the 5 last literals (LZ4 block format end conditions).
const LITERAL_INPUT_GUARD: usize = 2 + 1 + LAST_LITERALS;
/// Match-length bytes may not run closer than this to the input end (a
/// token and the last literals must still follow; same bound as the reference).
const MATCH_LENGTH_INPUT_GUARD: usize = LAST_LITERALS - 1;
/// Longest literal run that the token alone encodes (copied without a
/// length check in the fast loop).
const SHORT_LITERALS: usize = RUN_MASK - 1;

/// Longest match the token alone encodes.
const SHORT_MATCH: usize = RUN_MASK - 1 + MIN_MATCH;

/// The reference decoder's shortcut (`LZ4_decompress_generic`'s safe
/// loop) applies to a sequence whose token leaves more than 16 input bytes
/// (at least this many after the token)...
const SHORTCUT_INPUT: usize = SHORT_LITERALS + 2 + 1;
/// ... and that starts at least this many bytes before the output
/// capacity: room for a short literal run and a short match.
const SHORTCUT_OUTPUT: usize = SHORT_LITERALS + SHORT_MATCH;
const _: () = assert!(SHORTCUT_INPUT == 17 && SHORTCUT_OUTPUT == 32);

/// Loop shape: every sequence decoded the same way.
pub(crate) const PLAIN: u8 = 0;
/// Loop shape: match-only sequences on a branch of their own.
pub(crate) const MATCH_ONLY: u8 = 1;
/// Loop shape: medium matches without a branch on a length byte.
pub(crate) const MEDIUM: u8 = 2;

/// Fast loop entry: input left. The token and a short literal run copied as
/// one 16-byte chunk fit, and after a short run the offset, a token and the
/// last literals (the end conditions of a non-last run).
const fn in_margin() -> usize {
    let chunk = 1 + 16;
    let exact = 1 + SHORT_LITERALS + LITERAL_INPUT_GUARD;
    if chunk > exact { chunk } else { exact }
}

/// Input that must remain after a long literal run in the fast loop: its
/// wild copy reads up to the kernel's overrun past the run, and a non-last
/// run leaves the end conditions' bytes.
const fn long_literal_in_margin<K: Kernel>() -> usize {
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
const fn out_margin<K: Kernel>() -> usize {
    let short = SHORT_MATCH + K::OVERRUN;
    let medium = MEDIUM_MATCH + LAST_LITERALS;
    SHORT_LITERALS + if short > medium { short } else { medium }
}

const _: () = assert!(
    SHORT_LITERALS + SHORT_MATCH > 16 && SHORT_MATCH > MF_LIMIT && SHORT_MATCH + 16 > LAST_LITERALS,
    "out_margin covers the 16-byte literal chunk and the end conditions"
);

/// Decode the block `src` into `buf[start..]` with kernel `K` in loop
/// shape `S` ([`PLAIN`], [`MATCH_ONLY`] or [`MEDIUM`], see the module
/// documentation), where `buf[..start]` is history that matches may
/// reference (a dictionary or earlier blocks). Returns the number of bytes
/// written after `start`.
///
/// Inlined into each variant's (possibly `#[target_feature]`) entry point,
/// so the whole loop is compiled for that instruction set.
#[inline(always)]
pub(crate) fn decode<K: Kernel, const S: u8>(
    src: &[u8],
    buf: &mut [u8],
    start: usize,
) -> Decoded<usize> {
    decode_with::<K, S, NoDict>(src, buf, start, NoDict)
}

/// Decode the block `src` into `dst` with kernel `K` in loop shape `S`,
/// where matches reaching before `dst` read the end of `dict` (an external
/// dictionary), inside the loop: the dictionary is not copied. Returns the
/// number of bytes written. A separate instantiation of the loop: the
/// dictionary costs [`decode`] nothing.
#[inline(always)]
pub(crate) fn decode_dict<K: Kernel, const S: u8>(
    src: &[u8],
    dict: &[u8],
    dst: &mut [u8],
) -> Decoded<usize> {
    decode_with::<K, S, ExtDict>(src, dst, 0, ExtDict(dict))
}

/// History before the output buffer that matches may reach: none
/// ([`NoDict`], a zero-sized type, so the loop's functions take no extra
/// argument), or an external dictionary ([`ExtDict`]). Every test of it
/// in the loop is on [`Dict::EXTERNAL`], a constant.
pub(crate) trait Dict: Copy {
    /// Whether there is a dictionary.
    const EXTERNAL: bool;
    /// The dictionary (empty for [`NoDict`]).
    fn bytes(&self) -> &[u8];
}

/// No history before the output buffer.
#[derive(Clone, Copy)]
pub(crate) struct NoDict;

impl Dict for NoDict {
    const EXTERNAL: bool = false;
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        &[]
    }
}

/// An external dictionary: the bytes just before the output buffer.
#[derive(Clone, Copy)]
pub(crate) struct ExtDict<'a>(pub(crate) &'a [u8]);

impl Dict for ExtDict<'_> {
    const EXTERNAL: bool = true;
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.0
    }
}

/// [`decode`] and [`decode_dict`]: the loop with history `dict` before
/// `buf` (and `buf[..start]`).
#[inline(always)]
pub(crate) fn decode_with<K: Kernel, const S: u8, D: Dict>(
    src: &[u8],
    buf: &mut [u8],
    start: usize,
    dict: D,
) -> Decoded<usize> {
    debug_assert!(start <= buf.len());
    if buf.len() == start {
        return decode_into_nothing(src);
    }
    let mut pos = Cursor { ip: 0, op: start };
    let resume = fast_limits::<K>(src.len(), buf.len());
    loop {
        if fast_loop::<K, S, D>(src, buf, &mut pos, dict)?
            || last_literals(src, buf, &mut pos)
            || careful_steps(src, buf, &mut pos, resume, dict)?
        {
            return Ok(pos.op - start);
        }
    }
}

/// The last input and output positions from which the fast loop decodes
/// a sequence (its loop condition), or `None` where the block is too small
/// for it to run at all.
#[inline(always)]
fn fast_limits<K: Kernel>(iend: usize, oend: usize) -> Option<(usize, usize)> {
    Some((
        iend.checked_sub(in_margin())?,
        oend.checked_sub(out_margin::<K>())?,
    ))
}

/// Decode the sequence at `pos` if it is the block's last literal run
/// that fits the output, and return whether it was. Inlined into the loop
/// (unlike [`careful_steps`], which decodes anything else, including the
/// errors): on a small block, the one call saved is a tenth of the time.
#[inline(always)]
fn last_literals(src: &[u8], buf: &mut [u8], pos: &mut Cursor) -> bool {
    let (mut ip, op) = (pos.ip, pos.op);
    let Some(&token) = src.get(ip) else {
        return false;
    };
    ip += 1;
    let mut lit = (token >> 4) as usize;
    if lit == RUN_MASK {
        match read_length(src, &mut ip, src.len()) {
            Ok(more) => lit += more,
            Err(_) => return false,
        }
    }
    copy_last_run(src, buf, pos, ip, op, lit)
}

/// Copy the `lit`-byte literal run at `src[ip..]` to `buf[op..]` and move
/// `pos` past it, if it is the block's last sequence and fits the output;
/// return whether it was. A run up to the input's end is the last sequence
/// (LZ4 block format); careful_step accepts it under the same conditions.
#[inline(always)]
fn copy_last_run(
    src: &[u8],
    buf: &mut [u8],
    pos: &mut Cursor,
    ip: usize,
    op: usize,
    lit: usize,
) -> bool {
    if lit != src.len() - ip || lit > buf.len() - op {
        return false;
    }
    copy_exact(&mut buf[op..op + lit], &src[ip..]);
    pos.ip = src.len();
    pos.op = op + lit;
    true
}

/// With no output capacity, the only acceptable block is the empty block,
/// the single byte 0 (LZ4 block format: "empty input is the single byte
/// 0x00"); the reference decoder rejects anything else there, even a
/// literal-only token with a nonzero match nibble that it accepts when it
/// has room.
#[cold]
fn decode_into_nothing(src: &[u8]) -> Decoded<usize> {
    match src {
        [0] => Ok(0),
        [] => Err(corrupt(0, Lz4Fault::Truncated)),
        [token, ..] if token >> 4 != 0 => Err(corrupt(0, Lz4Fault::OutputTooSmall { capacity: 0 })),
        _ => Err(corrupt(0, Lz4Fault::BadEnd)),
    }
}

/// Read positions: `ip` in the input, `op` in the output buffer.
struct Cursor {
    ip: usize,
    op: usize,
}

#[cold]
fn corrupt(at: usize, fault: Lz4Fault) -> Box<Error> {
    Box::new(Error::CorruptBlock {
        at,
        fault: Fault::Lz4(fault),
    })
}

/// Read a 255-run length continuation starting at `*ip`, a byte at a time:
/// the tail of [`read_length`], and its reference in tests. Each byte read
/// must leave `*ip <= limit`. At most [`MAX_LENGTH`] where lengths can
/// overflow (else [`Lz4Fault::LengthOverflow`]).
#[inline(always)]
fn read_length_bytewise(src: &[u8], ip: &mut usize, limit: usize) -> Decoded<usize> {
    let mut len = 0usize;
    loop {
        let b = length_byte(src, ip, limit)?;
        // No overflow: len was at most MAX_LENGTH (checked below) before
        // this byte, or lengths cannot overflow at all.
        len += b as usize;
        len = bounded_length(len, *ip)?;
        if b != 255 {
            return Ok(len);
        }
    }
}

/// `len`, a length read from 255-run bytes (the input position now `ip`),
/// or [`Lz4Fault::LengthOverflow`] if it is over [`MAX_LENGTH`] where
/// lengths can overflow `usize`. Compiled away where they cannot.
#[inline(always)]
fn bounded_length(len: usize, ip: usize) -> Decoded<usize> {
    if LENGTH_MAY_OVERFLOW && len > MAX_LENGTH {
        return Err(corrupt(ip, Lz4Fault::LengthOverflow));
    }
    Ok(len)
}

/// Read the length byte at `*ip`, which must leave `*ip <= limit`.
#[inline(always)]
fn length_byte(src: &[u8], ip: &mut usize, limit: usize) -> Decoded<u8> {
    let Some(&b) = src.get(*ip) else {
        return Err(corrupt(*ip, Lz4Fault::Truncated));
    };
    *ip += 1;
    if *ip > limit {
        return Err(corrupt(*ip, Lz4Fault::Truncated));
    }
    Ok(b)
}

/// Whether a length read from 255-run bytes can overflow `usize`: each
/// input byte adds at most 255, and on 64-bit targets no input is large
/// enough (address spaces are below 2^56 bytes), so the check compiles
/// away there. On 32-bit targets 17 MiB of 255s add up to 4 GiB.
const LENGTH_MAY_OVERFLOW: bool = usize::BITS < 64;

/// Longest length [`read_length`] returns where lengths can overflow
/// (longer ones are [`Lz4Fault::LengthOverflow`], as the reference decoder
/// rejects lengths over half the address space; no valid block has one,
/// since its input would not fit in memory). The decode loop adds at most
/// [`LENGTH_HEADROOM`] to a length read (the token's nibble, the minimum
/// match, its margins), which then cannot overflow, on any target.
const MAX_LENGTH: usize = usize::MAX / 2;

/// The most the decode loop adds to a length that [`read_length`]
/// returned, in its sums and bounds checks (checked where the loop is
/// instantiated, for each kernel's margins).
const LENGTH_HEADROOM: usize = 256;

const _: () = assert!(
    MAX_LENGTH <= usize::MAX - LENGTH_HEADROOM,
    "a length read plus what the loop adds to it fits in usize"
);

/// Length bytes [`read_length`] reads one at a time before going eight
/// at a time.
const LENGTH_BYTEWISE: usize = 4;

/// Read a 255-run length continuation (literal or match) starting at
/// `*ip`, each byte read leaving `*ip <= limit`: [`LENGTH_BYTEWISE`] bytes
/// one at a time, then eight at a time while they fit before `limit`. A
/// 64 KiB match has 257 length bytes of 255, common in high-ratio columns,
/// and then costs one load and compare per 8 bytes instead of a loop
/// iteration per byte (measured 18-22% faster on such columns). The fast
/// loop reads a single length byte itself and comes here for more. An
/// incompressible 64 KiB block is one literal run with 257 length bytes,
/// which a byte at a time cost 10% of its decode (a memcpy).
///
/// Where lengths can overflow `usize` (32-bit targets: 17 MiB of 255s add
/// up to 4 GiB), the sum is checked against [`MAX_LENGTH`] as it grows
/// and before it is returned: the result is at most `MAX_LENGTH`, or the
/// error is [`Lz4Fault::LengthOverflow`]. On 64-bit targets the checks
/// compile away.
#[inline(always)]
fn read_length(src: &[u8], ip: &mut usize, limit: usize) -> Decoded<usize> {
    let mut len = 0usize;
    // The first bytes one at a time: a short length then ends on a
    // predicted branch, and the next token's address does not wait for a
    // load (the word path's position depends on the loaded bytes; taken
    // for every length it cost 25% on columns of medium matches).
    for _ in 0..LENGTH_BYTEWISE {
        let b = length_byte(src, ip, limit)?;
        len += b as usize;
        if b != 255 {
            return Ok(len);
        }
    }
    let word_limit = limit.min(src.len());
    while *ip + 8 <= word_limit {
        let word = u64::from_le_bytes(src[*ip..*ip + 8].try_into().unwrap_or([0; 8]));
        if word == u64::MAX {
            *ip += 8;
            // No overflow: at most MAX_LENGTH before (checked below).
            len = bounded_length(len + 8 * 255, *ip)?;
            continue;
        }
        // The first byte below 255 ends the length; the bytes before it
        // are all 255, and all are within the limit.
        let n = ((!word).trailing_zeros() / 8) as usize;
        len += 255 * n + (word >> (8 * n) & 0xFF) as usize;
        *ip += n + 1;
        return bounded_length(len, *ip);
    }
    // Both at most MAX_LENGTH: the sum fits.
    let rest = read_length_bytewise(src, ip, limit)?;
    bounded_length(len + rest, *ip)
}

/// Decode sequences while both buffers are far from their ends. Returns
/// `false` when the next sequence needs the careful step (`pos` then points
/// at its token), `true` when it decoded the block's last literal run
/// (`pos` is then at the input's end).
#[inline(always)]
fn fast_loop<K: Kernel, const S: u8, D: Dict>(
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
        // Long matches (not marked cold: at HC levels they are common).
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
        if offset >= K::SHORT_MATCH_MIN_OFFSET {
            K::copy_short_match(opp, offset);
        } else {
            // Out of line: the common path then falls through into the next
            // sequence with no taken branch (measured 10% on such columns).
            std::hint::cold_path();
            if offset == 0 {
                return Err(bad_offset(0, history, distance(ipp, sp) - 2));
            }
            if history < K::HISTORY {
                copy_match_early(opp, offset, len);
            } else {
                K::copy_match(opp, offset, len);
            }
        }
        Ok(opp.add(len))
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

/// The error for an offset of 0 or one reaching before the history.
#[cold]
fn bad_offset(offset: usize, op: usize, ip: usize) -> Box<Error> {
    if offset == 0 {
        corrupt(ip, Lz4Fault::OffsetZero)
    } else {
        corrupt(
            ip,
            Lz4Fault::OffsetBeforeStart {
                offset,
                available: op,
            },
        )
    }
}

#[inline(always)]
fn check_offset(offset: usize, op: usize, ip: usize) -> Decoded<()> {
    if offset == 0 || offset > op {
        return Err(bad_offset(offset, op, ip));
    }
    Ok(())
}

/// Copy a match with exact bounds ([`copy_match_exact`]) after checking
/// that it fits the output with the last literals after it. Returns the
/// new `op`.
#[inline(never)]
fn exact_match(buf: &mut [u8], op: usize, offset: usize, len: usize, ip: usize) -> Decoded<usize> {
    let capacity = buf.len();
    if len > capacity - op {
        return Err(corrupt(ip, Lz4Fault::OutputTooSmall { capacity }));
    }
    if capacity - op - len < LAST_LITERALS {
        // LZ4 block format: the last 5 bytes are always literals, so a match
        // this close to the capacity means the output does not fit.
        return Err(corrupt(ip, Lz4Fault::OutputTooSmall { capacity }));
    }
    Ok(copy_match_exact(buf, op, offset, len))
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

/// A match reaching `offset - op` bytes before the output buffer, into the
/// external dictionary `dict` (the caller checked `op < offset <= op +
/// dict.len()`, or leaves it to this function with the offset's position
/// `offset_at`): checked like [`exact_match`] (`ip` is the position after
/// the match length), its first bytes copied from the dictionary's tail,
/// the rest (a match from the buffer's start) exactly. Returns the new
/// `op`.
#[cold]
#[inline(never)]
fn dict_match(
    buf: &mut [u8],
    op: usize,
    offset: usize,
    len: usize,
    dict: &[u8],
    offset_at: usize,
    ip: usize,
) -> Decoded<usize> {
    if offset > op + dict.len() {
        return Err(bad_offset(offset, op + dict.len(), offset_at));
    }
    let capacity = buf.len();
    if len > capacity - op || capacity - op - len < LAST_LITERALS {
        // As in exact_match: no room, or no room for the last literals.
        return Err(corrupt(ip, Lz4Fault::OutputTooSmall { capacity }));
    }
    let back = offset.saturating_sub(op);
    let from_dict = back.min(len);
    let at = dict.len() - back;
    buf[op..op + from_dict].copy_from_slice(&dict[at..at + from_dict]);
    let op = op + from_dict;
    if from_dict == len {
        return Ok(op);
    }
    // Now op == offset: the rest starts at the buffer's first byte.
    Ok(copy_match_exact(buf, op, offset, len - from_dict))
}

/// Copy `src` into `dst` (same length), without a library call for the
/// short runs the careful step sees most.
#[inline(always)]
fn copy_exact(dst: &mut [u8], src: &[u8]) {
    if src.len() <= 16 {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    } else {
        dst.copy_from_slice(src);
    }
}

/// Decode sequences with exact bounds checks from `pos` until the block
/// ends (returns `true`) or the fast loop can go on (`false`: `pos` is
/// within `resume`, the fast loop's limits from [`fast_limits`]).
///
/// Near the end of a block several sequences in a row come here (those
/// in the last [`in_margin`] input bytes or [`out_margin`] output bytes):
/// one call for all of them, rather than a call and a return to the fast
/// loop's entry checks for each, was a tenth of a small block's time.
#[inline(never)]
fn careful_steps<D: Dict>(
    src: &[u8],
    buf: &mut [u8],
    pos: &mut Cursor,
    resume: Option<(usize, usize)>,
    dict: D,
) -> Decoded<bool> {
    loop {
        if careful_step(src, buf, pos, dict)? || last_literals(src, buf, pos) {
            return Ok(true);
        }
        if resume.is_some_and(|(ilimit, olimit)| pos.ip <= ilimit && pos.op <= olimit) {
            return Ok(false);
        }
    }
}

/// Decode one sequence with exact bounds checks. Returns `true` when it was
/// the last sequence of the block.
#[inline(always)]
fn careful_step<D: Dict>(src: &[u8], buf: &mut [u8], pos: &mut Cursor, dict: D) -> Decoded<bool> {
    let iend = src.len();
    let oend = buf.len();
    let (mut ip, op) = (pos.ip, pos.op);
    let Some(&token) = src.get(ip) else {
        return Err(corrupt(ip, Lz4Fault::Truncated));
    };
    let token = token as usize;
    ip += 1;
    let mut lit = token >> 4;
    // The reference decoder's two-stage shortcut (see the module
    // documentation): a short literal run with enough input and output
    // left is not held to the end conditions, nor is a short match after
    // it from at least 8 bytes back within the history.
    let shortcut = lit < RUN_MASK && iend - ip >= SHORTCUT_INPUT && oend - op >= SHORTCUT_OUTPUT;
    if lit == RUN_MASK {
        lit += read_length(src, &mut ip, iend)?;
    }
    let in_left = iend - ip;
    let out_left = oend - op;
    if !shortcut && (lit + MF_LIMIT > out_left || lit + LITERAL_INPUT_GUARD > in_left) {
        // Must be the last sequence: literals up to the input end exactly.
        if lit != in_left {
            // More input than literals: the block goes on, but either the
            // output has no room left for what follows (the buffer is too
            // small) or the input ends too soon for a following offset,
            // token and last literals (it was cut short).
            let fault = if lit > in_left || lit + MF_LIMIT <= out_left {
                Lz4Fault::Truncated
            } else {
                Lz4Fault::OutputTooSmall { capacity: oend }
            };
            return Err(corrupt(ip, fault));
        }
        if lit > out_left {
            return Err(corrupt(ip, Lz4Fault::OutputTooSmall { capacity: oend }));
        }
        // `decode` and `careful_steps` try `last_literals` first, so from there
        // only the errors above are reached; this keeps the step complete.
        copy_exact(&mut buf[op..op + lit], &src[ip..ip + lit]);
        pos.ip = iend;
        pos.op = op + lit;
        return Ok(true);
    }
    copy_literals_careful(buf, op, src, ip, lit);
    ip += lit;
    let op = op + lit;
    // in_left - lit >= LITERAL_INPUT_GUARD, or (the shortcut) in_left >=
    // SHORTCUT_INPUT and lit <= SHORT_LITERALS: the offset is in bounds
    // and at least one byte follows it.
    let offset = u16::from_le_bytes([src[ip], src[ip + 1]]) as usize;
    check_offset(offset, op + dict.bytes().len(), ip)?;
    ip += 2;
    let mut len = token & 15;
    if len == RUN_MASK {
        len += read_length(src, &mut ip, iend - MATCH_LENGTH_INPUT_GUARD)?;
    }
    len += MIN_MATCH;
    pos.op = if D::EXTERNAL && offset > op {
        // check_offset checked the offset (offset_at is not used).
        dict_match(buf, op, offset, len, dict.bytes(), ip, ip)?
    } else if offset >= 8 && len <= 16 && oend - op >= 16 + LAST_LITERALS {
        // A short match with room after it (the first sequence of a block,
        // which the fast loop leaves to this step, often has one): two
        // 8-byte pieces, each reading only bytes written before it.
        copy_short_match_exact(buf, op, offset);
        op + len
    } else if shortcut && token & 15 != RUN_MASK && offset >= 8 && oend - op < len + LAST_LITERALS {
        // The shortcut's short match, ending in the last literals' place,
        // which the shortcut allows.
        shortcut_match(buf, op, offset, len)
    } else {
        exact_match(buf, op, offset, len, ip)?
    };
    pos.ip = ip;
    Ok(false)
}

/// Copy a short match (at most [`SHORT_MATCH`] bytes from at least 8
/// back) of a sequence the reference decoder's shortcut decodes, which
/// holds it to no end condition: where it ends within [`LAST_LITERALS`] of
/// the capacity (rare: only near the end of a block, and valid only
/// because the reference decoder accepts it). It fits: the sequence
/// started at least [`SHORTCUT_OUTPUT`] bytes before the capacity, room
/// for its literals and this match. Out of line, to keep the careful
/// step's code small. Returns the new `op`.
#[cold]
#[inline(never)]
fn shortcut_match(buf: &mut [u8], op: usize, offset: usize, len: usize) -> usize {
    copy_match_exact(buf, op, offset, len)
}

/// The careful step's copy of a non-last literal run of `lit` bytes from
/// `src[ip..]` to `buf[op..]`: a short run as one 16-byte piece where both
/// buffers have room for it; else exactly (a library copy for a long run
/// measured faster than a loop of pieces).
#[inline(always)]
fn copy_literals_careful(buf: &mut [u8], op: usize, src: &[u8], ip: usize, lit: usize) {
    const PIECE: usize = 16;
    if lit <= PIECE && src.len() - ip >= PIECE && buf.len() - op >= PIECE {
        buf[op..op + PIECE].copy_from_slice(&src[ip..ip + PIECE]);
    } else {
        copy_exact(&mut buf[op..op + lit], &src[ip..ip + lit]);
    }
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
    fn exact_match_copies_as_if_byte_by_byte() {
        // Every offset through the pattern, piece and library paths, lengths
        // around the piece sizes, ending exactly LAST_LITERALS before the
        // capacity (no room for any overrun), a few bytes further, and with
        // room for whole 16-byte stores past the end.
        for offset in 1..=80usize {
            for len in (4..=40).chain([63, 64, 65, 100, 226, 423, 3000]) {
                for room in [LAST_LITERALS, LAST_LITERALS + 7, 40] {
                    let history: Vec<u8> = (0..offset + 3).map(|i| (i * 37 + 11) as u8).collect();
                    let op = history.len();
                    let capacity = op + len + room;
                    let mut buf = history.clone();
                    buf.resize(capacity, 0xEE);
                    let mut want = buf.clone();
                    for o in op..op + len {
                        want[o] = want[o - offset];
                    }
                    let end = exact_match(&mut buf, op, offset, len, 0).expect("fits");
                    assert_eq!(end, op + len);
                    // Bytes past the end are scratch.
                    assert_eq!(
                        buf[..end],
                        want[..end],
                        "offset {offset} len {len} room {room}"
                    );
                }
            }
        }
    }

    /// Append the length bytes for `rest` past the token's 15.
    fn push_length(out: &mut Vec<u8>, mut rest: usize) {
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }

    /// Append a sequence: `lits`, then a match of `len` from `offset` back.
    fn push_sequence(out: &mut Vec<u8>, lits: &[u8], offset: usize, len: usize) {
        let code = (len - MIN_MATCH).min(RUN_MASK);
        out.push(((lits.len().min(RUN_MASK) as u8) << 4) | code as u8);
        if lits.len() >= RUN_MASK {
            push_length(out, lits.len() - RUN_MASK);
        }
        out.extend_from_slice(lits);
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        if code == RUN_MASK {
            push_length(out, len - MIN_MATCH - RUN_MASK);
        }
    }

    #[test]
    fn matches_before_the_kernel_history_exists() {
        // Blocks whose first matches come before K::HISTORY bytes of output
        // (copy_match_early), after a prefix of 0..=20 bytes, with every
        // offset the prefix and literals allow and lengths through the
        // short, long and pattern paths, decoded by every variant into a
        // buffer with room for the fast loop; checked against a copy made
        // byte by byte.
        let variants = crate::lz4::block::Variant::available();
        for prefix in [0usize, 1, 3, 8, 15, 16, 20] {
            for lits in [1usize, 2, 5, 14, 15, 40] {
                for offset in 1..=prefix + lits {
                    for len in [4usize, 7, 18, 19, 33, 64, 100, 423] {
                        let mut block = Vec::new();
                        let literals: Vec<u8> = (0..lits).map(|i| (i * 7 + 1) as u8).collect();
                        push_sequence(&mut block, &literals, offset, len);
                        // A second match right after, from offset 2.
                        push_sequence(&mut block, b"z", 2, 9);
                        let tail = [0xA5u8; 200];
                        block.push(0xF0);
                        push_length(&mut block, tail.len() - RUN_MASK);
                        block.extend_from_slice(&tail);
                        let mut want: Vec<u8> = (0..prefix).map(|i| (i * 31 + 3) as u8).collect();
                        want.extend_from_slice(&literals);
                        for _ in 0..len {
                            want.push(want[want.len() - offset]);
                        }
                        want.push(b'z');
                        for _ in 0..9 {
                            want.push(want[want.len() - 2]);
                        }
                        want.extend_from_slice(&tail);
                        for &v in variants {
                            let entry = v.entry().expect("available");
                            let mut buf = want[..prefix].to_vec();
                            buf.resize(want.len(), 0xEE);
                            let n = entry(&block, &mut buf, prefix).unwrap_or_else(|e| {
                                panic!("{v:?} prefix {prefix} lits {lits} offset {offset} len {len}: {e}")
                            });
                            assert_eq!(n, want.len() - prefix);
                            assert_eq!(
                                buf, want,
                                "{v:?} prefix {prefix} lits {lits} offset {offset} len {len}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn lengths_stop_at_half_the_address_space_on_32_bit() {
        // 255-runs that sum to exactly MAX_LENGTH on 32-bit targets, and
        // one more: from several starts (the word path's alignment), both
        // readers. On 64-bit targets both are plain lengths.
        let max32 = (u32::MAX / 2) as u64;
        let run = (max32 / 255) as usize;
        for last in [(max32 % 255) as u8, (max32 % 255) as u8 + 1] {
            let want = 255 * run as u64 + last as u64;
            for start in 0..3 {
                let mut src = vec![0u8; start];
                src.resize(start + run, 255);
                src.push(last);
                src.push(0);
                for reader in [read_length, read_length_bytewise] {
                    let mut ip = start;
                    let got = reader(&src, &mut ip, src.len());
                    if LENGTH_MAY_OVERFLOW && want > max32 {
                        assert!(
                            matches!(
                                got.as_ref().map_err(|e| &**e),
                                Err(Error::CorruptBlock {
                                    fault: Fault::Lz4(Lz4Fault::LengthOverflow),
                                    ..
                                })
                            ),
                            "{want}: {got:?}"
                        );
                    } else {
                        assert_eq!(got.ok().map(|n| n as u64), Some(want));
                        assert_eq!(ip, start + run + 1);
                    }
                }
            }
        }
    }

    #[test]
    fn read_length_matches_bytewise() {
        // Runs of 255 of every length up to 40, ended by various bytes or
        // by the input's end, read from several starts against every limit.
        for run in 0..40usize {
            for end in [None, Some(0u8), Some(1), Some(254)] {
                let mut src = vec![255u8; run];
                src.extend(end);
                src.extend([7u8; 3].iter().take(run % 4));
                for start in 0..3.min(src.len() + 1) {
                    for limit in start..=src.len() + 2 {
                        let (mut a, mut b) = (start, start);
                        let got = read_length(&src, &mut a, limit).map_err(|e| e.to_string());
                        let want =
                            read_length_bytewise(&src, &mut b, limit).map_err(|e| e.to_string());
                        assert_eq!(
                            got, want,
                            "run {run} end {end:?} start {start} limit {limit}"
                        );
                        assert_eq!(a, b, "run {run} end {end:?} start {start} limit {limit}");
                    }
                }
            }
        }
    }
}
