//! The one output path of every block compressor (fast and HC): writing
//! sequences (token, length bytes, literals, offset), and the word readers
//! and match extension the match finders share.

use super::format::{MAX_DISTANCE, MIN_MATCH};
use crate::kernels::Kernel;
use crate::kernels::portable::Portable;

/// Literal copies in the compressors use 16-byte portable chunks.
type LiteralCopy = Portable<16>;

/// Write a token with the literal length `n` (match nibble 0), the length's
/// 255-run bytes and the literals `src[..n]` at `dst[op..]`. Returns the new
/// output position; the token is at the old `op`.
#[inline(always)]
pub(super) fn write_literals(dst: &mut [u8], op: usize, src: &[u8], n: usize) -> usize {
    let mut o = op + 1;
    if n >= 15 {
        dst[op] = 15 << 4;
        o = write_length(dst, o, n - 15);
    } else {
        dst[op] = (n as u8) << 4;
    }
    if n + LiteralCopy::OVERRUN <= src.len() && o + n + LiteralCopy::OVERRUN <= dst.len() {
        // SAFETY: both checks above bound the chunked copy's reads and
        // writes, which stop within OVERRUN bytes past `n`.
        unsafe { LiteralCopy::copy_literals(dst.as_mut_ptr().add(o), src.as_ptr(), n) };
    } else {
        dst[o..o + n].copy_from_slice(&src[..n]);
    }
    o + n
}

/// Put the match length `ml` (already minus MIN_MATCH) into the token at
/// `token_pos` and any 255-run bytes at `dst[op..]`.
#[inline(always)]
pub(super) fn write_match_length(dst: &mut [u8], token_pos: usize, op: usize, ml: usize) -> usize {
    if ml >= 15 {
        dst[token_pos] |= 15;
        write_length(dst, op, ml - 15)
    } else {
        dst[token_pos] |= ml as u8;
        op
    }
}

/// Write a length continuation: 255 bytes, then the remainder.
#[inline(always)]
fn write_length(dst: &mut [u8], mut op: usize, mut n: usize) -> usize {
    while n >= 255 {
        dst[op] = 255;
        op += 1;
        n -= 255;
    }
    dst[op] = n as u8;
    op + 1
}

/// Write one sequence at `dst[op..]`: the literals `buf[anchor..ip]`, then a
/// match of `len` bytes at `offset`. Returns the new output position.
#[inline(always)]
pub(super) fn write_sequence(
    dst: &mut [u8],
    op: usize,
    buf: &[u8],
    anchor: usize,
    ip: usize,
    offset: usize,
    len: usize,
) -> usize {
    debug_assert!(len >= MIN_MATCH && (1..=MAX_DISTANCE).contains(&offset));
    debug_assert!(offset <= ip);
    let token = op;
    let op = write_literals(dst, op, &buf[anchor..], ip - anchor);
    dst[op..op + 2].copy_from_slice(&(offset as u16).to_le_bytes());
    write_match_length(dst, token, op + 2, len - MIN_MATCH)
}

/// Number of equal bytes at `a` and `b` (with `b < a`), not going past `limit`.
#[inline(always)]
pub(super) fn count_equal(buf: &[u8], a: usize, b: usize, limit: usize) -> usize {
    if a >= limit {
        return 0;
    }
    // Two slices of the same length, taken once: the loop below then needs
    // no bounds checks.
    let n = limit - a;
    let (xs, ys) = (&buf[a..limit], &buf[b..b + n]);
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let mut done = 0;
    // 16 bytes a step: long matches (runs, repeated rows) are most of the
    // time of highly compressible blocks, and a step's loop overhead is
    // then half of it.
    for (x, y) in xs.chunks_exact(16).zip(ys.chunks_exact(16)) {
        let lo = word(x, 0) ^ word(y, 0);
        let hi = word(x, 8) ^ word(y, 8);
        if lo | hi != 0 {
            return done
                + if lo != 0 {
                    (lo.trailing_zeros() / 8) as usize
                } else {
                    8 + (hi.trailing_zeros() / 8) as usize
                };
        }
        done += 16;
    }
    if xs.len() - done >= 8 {
        let diff = word(xs, done) ^ word(ys, done);
        if diff != 0 {
            return done + (diff.trailing_zeros() / 8) as usize;
        }
        done += 8;
    }
    done + xs[done..]
        .iter()
        .zip(&ys[done..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Little-endian 4 bytes of `buf` at `p`.
#[inline(always)]
pub(super) fn read_u32(buf: &[u8], p: usize) -> u32 {
    u32::from_le_bytes(buf[p..p + 4].try_into().expect("4 bytes"))
}

/// Little-endian 8 bytes of `buf` at `p`.
#[inline(always)]
pub(super) fn read_u64(buf: &[u8], p: usize) -> u64 {
    u64::from_le_bytes(buf[p..p + 8].try_into().expect("8 bytes"))
}
