//! The careful path of the LZ4 block decode loop
//! ([`decompress`](mod@super::decompress)) and what both of its paths
//! share: the sequence syntax's constants, the 255-run lengths, the history
//! before the output ([`Dict`]), the faults, and sequences decoded with
//! exact bounds checks near a buffer's end ([`careful_steps`]), including
//! the reference decoder's shortcut.

use super::format::{LAST_LITERALS, MF_LIMIT, MIN_MATCH};
use crate::error::{Error, Fault, Lz4Fault};
use crate::kernels::exact::{copy_match_exact, copy_short_match_exact};

/// What the decode functions return: the error boxed, so that the result
/// fits in two registers. A 40-byte `Result<usize>` is returned through
/// memory, and copying it through each layer (a 16-byte load of what the
/// callee wrote with 8-byte stores) stalls store-to-load forwarding:
/// measured at about 10% of the time to decode a small block.
pub(crate) type Decoded<T> = std::result::Result<T, Box<Error>>;

/// Token nibble value meaning "more length bytes follow".
pub(super) const RUN_MASK: usize = 15;
/// A non-last literal run must leave this much input: 2 offset bytes, a
/// token and the 5 last literals (LZ4 block format end conditions).
pub(super) const LITERAL_INPUT_GUARD: usize = 2 + 1 + LAST_LITERALS;
/// Match-length bytes may not run closer than this to the input end (a
/// token and the last literals must still follow; same bound as the reference).
pub(super) const MATCH_LENGTH_INPUT_GUARD: usize = LAST_LITERALS - 1;
/// Longest literal run that the token alone encodes (copied without a
/// length check in the fast loop).
pub(super) const SHORT_LITERALS: usize = RUN_MASK - 1;

/// Longest match the token alone encodes.
pub(super) const SHORT_MATCH: usize = RUN_MASK - 1 + MIN_MATCH;

/// The reference decoder's shortcut (`LZ4_decompress_generic`'s safe
/// loop) applies to a sequence whose token leaves more than 16 input bytes
/// (at least this many after the token)...
pub(super) const SHORTCUT_INPUT: usize = SHORT_LITERALS + 2 + 1;
/// ... and that starts at least this many bytes before the output
/// capacity: room for a short literal run and a short match.
pub(super) const SHORTCUT_OUTPUT: usize = SHORT_LITERALS + SHORT_MATCH;
const _: () = assert!(SHORTCUT_INPUT == 17 && SHORTCUT_OUTPUT == 32);

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

/// Decode the sequence at `pos` if it is the block's last literal run
/// that fits the output, and return whether it was. Inlined into the loop
/// (unlike [`careful_steps`], which decodes anything else, including the
/// errors): on a small block, the one call saved is a tenth of the time.
#[inline(always)]
pub(super) fn last_literals(src: &[u8], buf: &mut [u8], pos: &mut Cursor) -> bool {
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
pub(super) fn copy_last_run(
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

/// Read positions: `ip` in the input, `op` in the output buffer.
pub(super) struct Cursor {
    pub(super) ip: usize,
    pub(super) op: usize,
}

#[cold]
pub(super) fn corrupt(at: usize, fault: Lz4Fault) -> Box<Error> {
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
pub(super) const MAX_LENGTH: usize = usize::MAX / 2;

/// The most the decode loop adds to a length that [`read_length`]
/// returned, in its sums and bounds checks (checked where the loop is
/// instantiated, for each kernel's margins).
pub(super) const LENGTH_HEADROOM: usize = 256;

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
pub(super) fn read_length(src: &[u8], ip: &mut usize, limit: usize) -> Decoded<usize> {
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

/// The error for an offset of 0 or one reaching before the history.
#[cold]
pub(super) fn bad_offset(offset: usize, op: usize, ip: usize) -> Box<Error> {
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
pub(super) fn exact_match(
    buf: &mut [u8],
    op: usize,
    offset: usize,
    len: usize,
    ip: usize,
) -> Decoded<usize> {
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

/// A match reaching `offset - op` bytes before the output buffer, into the
/// external dictionary `dict` (the caller checked `op < offset <= op +
/// dict.len()`, or leaves it to this function with the offset's position
/// `offset_at`): checked like [`exact_match`] (`ip` is the position after
/// the match length), its first bytes copied from the dictionary's tail,
/// the rest (a match from the buffer's start) exactly. Returns the new
/// `op`.
#[cold]
#[inline(never)]
pub(super) fn dict_match(
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
/// within `resume`, the fast loop's limits from `fast::fast_limits`).
///
/// Near the end of a block several sequences in a row come here (those
/// in the last `fast::in_margin` input bytes or `fast::out_margin` output
/// bytes):
/// one call for all of them, rather than a call and a return to the fast
/// loop's entry checks for each, was a tenth of a small block's time.
#[inline(never)]
pub(super) fn careful_steps<D: Dict>(
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
