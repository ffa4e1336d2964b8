//! The LZ4 block decode loop, written once and instantiated per copy
//! strategy ([`Kernel`]) in [`super::variant`]. This file holds its entry
//! points; [`super::fast`] the fast loop, [`super::careful`] the careful
//! steps and what both share (the format's syntax, lengths, faults).
//!
//! Two loops share the work. The *fast loop* runs while enough input and
//! output remain that the kernel's wild copies cannot leave the buffers
//! ([`in_margin`](super::fast::in_margin),
//! [`out_margin`](super::fast::out_margin)); there, literals and matches
//! are copied with few branches. It starts at a block's first sequence:
//! until the kernel's pattern window ([`Kernel::HISTORY`]) of output
//! exists, matches that would use it are copied by
//! [`copy_match_early`](crate::kernels::exact::copy_match_early). Near
//! either end, or for a sequence too long to copy wildly, *careful steps*
//! decode sequences with exact bounds and exact copies ([`careful_steps`],
//! one call for a block's whole tail). Neither needs slack from the caller.
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
//! output buffer is copied from the dictionary's tail by
//! [`dict_match`](super::careful::dict_match), off the fast path. No
//! dictionary bytes are copied up front.
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
//! least 17 input bytes after it
//! ([`SHORTCUT_INPUT`](super::careful::SHORTCUT_INPUT)) and that starts at
//! least 32 bytes ([`SHORTCUT_OUTPUT`](super::careful::SHORTCUT_OUTPUT))
//! before the capacity: its literal
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
//! 4 GiB, a literal or match length is at most [`MAX_LENGTH`](super::careful::MAX_LENGTH) (half the
//! address space, the reference decoder's limit too), else
//! [`Lz4Fault::LengthOverflow`]; no sum or bounds check of the loop then
//! overflows. On 64-bit targets no input is long enough to overflow one,
//! and the checks compile away.

use super::careful::{Cursor, careful_steps, corrupt, last_literals};
pub(crate) use super::careful::{Decoded, Dict, ExtDict, NoDict};
pub(crate) use super::fast::{MATCH_ONLY, MEDIUM, PLAIN};
use super::fast::{fast_limits, fast_loop};
#[cfg(doc)]
use super::format::{LAST_LITERALS, MF_LIMIT};
use crate::error::Lz4Fault;
use crate::kernels::Kernel;

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

#[cfg(test)]
mod tests {
    use super::super::careful::RUN_MASK;
    use super::super::format::MIN_MATCH;

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
}
