//! [`Compressor`], the block compressor for every level: it runs the fast
//! engine below for levels <= 1 and the high-compression engines of
//! [`super::hc`] for levels 2 to 12, behind one interface.
//!
//! The fast LZ4 compressor (levels <= 1): one hash probe per position, with
//! the reference's skip heuristic (the step grows by one every 64 misses,
//! scaled by the acceleration) so incompressible data is crossed quickly.
//!
//! The compressor keeps its hash table between calls so that linked frame
//! blocks can find matches in earlier blocks; table entries are positions in
//! the caller's buffer, and [`Compressor::rebase`] follows the buffer when the
//! caller slides its window.
//!
//! The sequence-writing helpers at the end of this file ([`write_literals`],
//! [`write_match_length`], [`count_equal`], ...) are the one output path of
//! every engine.

use super::hc::HcCompressor;
use super::{LAST_LITERALS, MAX_DISTANCE, MF_LIMIT, MIN_MATCH, max_compressed_size};
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::kernels::portable::Portable;

/// Literal copies in the compressor use 16-byte portable chunks.
type LiteralCopy = Portable<16>;

/// Hash table entries: 2^13. The reference uses 2^13 16-bit entries for
/// inputs under 64 KiB and 2^12 32-bit entries otherwise (16 KiB either way);
/// we keep one table of the larger count and use 2^12 of it for large inputs,
/// so the match choices (and the ratio) follow the reference.
const TABLE_LOG_MAX: u32 = 13;
const TABLE_SIZE: usize = 1 << TABLE_LOG_MAX;
/// Inputs up to this size (the reference's `LZ4_64Klimit`) use the 2^13 table
/// and a 4-byte hash.
const SMALL_INPUT_LIMIT: usize = 65_536 + MF_LIMIT - 1;
/// The reference's skip trigger: after 2^6 failed probes the step grows by 1.
const SKIP_TRIGGER: u32 = 6;
/// Inputs shorter than this are stored as literals only (LZ4 block format:
/// "blocks under 13 bytes cannot be compressed").
const MIN_INPUT_LENGTH: usize = MF_LIMIT + 1;

/// Reusable compressor state for one level: the fast engine (levels <= 1) or
/// a high-compression engine (levels 2 to 12, see [`super::hc`]).
///
/// Positions are indices in the caller's buffer: `buf[..start]` is history
/// that matches may reach back into (at most [`MAX_DISTANCE`] bytes), and
/// `buf[start..]` is the block to compress.
pub(crate) enum Compressor {
    Fast(FastCompressor),
    High(HcCompressor),
}

impl Compressor {
    /// A compressor for `level`: `<= 0` is the fast engine with acceleration
    /// `1 - level`, 1 the fast engine, 2 to 12 the HC engines (above 12: 12).
    pub(crate) fn new(level: i32) -> Self {
        if level <= 1 {
            Compressor::Fast(FastCompressor::new(level))
        } else {
            Compressor::High(HcCompressor::new(level))
        }
    }

    /// Levels >= 10 only: avoid matches that are slow to decode (offsets
    /// below 8, lengths 19 to 36), at a small cost in ratio. Other levels
    /// ignore it, as in the reference.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "crate-internal until the public API exposes it")
    )]
    pub(crate) fn set_favor_dec_speed(&mut self, on: bool) {
        if let Compressor::High(hc) = self {
            hc.set_favor_dec_speed(on);
        }
    }

    /// The caller moved its buffer's contents `shift` bytes towards the
    /// start; follow it.
    #[allow(
        dead_code,
        reason = "for encoders that slide their window; the frame encoder reloads history per job"
    )]
    pub(crate) fn rebase(&mut self, shift: usize) {
        match self {
            Compressor::Fast(f) => f.rebase(shift),
            Compressor::High(h) => h.rebase(shift),
        }
    }

    /// Forget all history, then enter `buf[..end]` (its last 64 KiB) as
    /// history for the next [`Compressor::compress_next`].
    pub(crate) fn load_history(&mut self, buf: &[u8], end: usize) {
        match self {
            Compressor::Fast(f) => f.load_history(buf, end),
            Compressor::High(h) => h.load_history(buf, end),
        }
    }

    /// Compress `buf[start..]` as one block, with `buf[..start]` (its last
    /// 64 KiB) as history. Starts from a fresh state.
    pub(crate) fn compress_block(
        &mut self,
        buf: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Result<usize> {
        match self {
            Compressor::Fast(f) => f.begin_block(buf, start),
            Compressor::High(h) => h.begin_block(buf, start),
        }
        self.compress_next(buf, start, dst)
    }

    /// Compress `buf[start..]` as one block, keeping the state from earlier
    /// calls on the same (possibly rebased) buffer.
    pub(crate) fn compress_next(
        &mut self,
        buf: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Result<usize> {
        let len = buf.len() - start;
        if dst.len() >= max_compressed_size(len) {
            return Ok(self.compress_unchecked(buf, start, dst));
        }
        // Small destination: compress into scratch space and check the fit.
        let mut tmp = vec![0u8; max_compressed_size(len)];
        let n = self.compress_unchecked(buf, start, &mut tmp);
        if n > dst.len() {
            return Err(Error::OutputTooSmall {
                capacity: dst.len(),
                needed: n,
            });
        }
        dst[..n].copy_from_slice(&tmp[..n]);
        Ok(n)
    }

    /// Compress into `dst` of at least `max_compressed_size` bytes.
    fn compress_unchecked(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> usize {
        match self {
            Compressor::Fast(f) => f.compress_generic(buf, start, dst),
            Compressor::High(h) => h.compress(buf, start, dst),
        }
    }
}

/// Reusable state of the fast compressor.
pub(crate) struct FastCompressor {
    table: Box<[u32; TABLE_SIZE]>,
    /// Acceleration factor (1 = default; larger skips faster).
    accel: u32,
    /// Hash of 4 bytes into 2^13 (small inputs) or of 5 bytes into 2^12.
    small: bool,
}

impl FastCompressor {
    /// A compressor for `level` (`<= 0` means acceleration `1 - level`).
    pub(crate) fn new(level: i32) -> Self {
        let accel = if level >= 1 {
            1
        } else {
            (1i64 - level as i64).min(65_537) as u32
        };
        FastCompressor {
            // Zeroed by `reset` when a block begins.
            table: vec![0u32; TABLE_SIZE]
                .into_boxed_slice()
                .try_into()
                .expect("TABLE_SIZE entries"),
            accel,
            small: false,
        }
    }

    /// Forget all history.
    pub(crate) fn reset(&mut self, small: bool) {
        // The large-input hash uses only the first half of the table.
        let used = if small { TABLE_SIZE } else { TABLE_SIZE / 2 };
        self.table[..used].fill(0);
        self.small = small;
    }

    /// The caller moved its buffer's contents `shift` bytes towards the start;
    /// move the table's positions with them (positions that fell off the
    /// start become 0, which is harmless: every candidate is verified).
    pub(crate) fn rebase(&mut self, shift: usize) {
        let shift = shift.min(u32::MAX as usize) as u32;
        for e in self.table.iter_mut() {
            *e = e.saturating_sub(shift);
        }
    }

    /// Reset, then enter positions of `buf[..end]` (its last 64 KiB) as
    /// history for the next block.
    pub(crate) fn load_history(&mut self, buf: &[u8], end: usize) {
        self.reset(false);
        let begin = end.saturating_sub(MAX_DISTANCE);
        let mut p = begin;
        while p + 8 <= end {
            let h = self.hash(buf, p);
            self.table[h] = p as u32;
            p += 3;
        }
    }

    /// Start a fresh block: `buf[..start]` (its last 64 KiB) is the only
    /// history.
    fn begin_block(&mut self, buf: &[u8], start: usize) {
        if start == 0 {
            self.reset(buf.len() <= SMALL_INPUT_LIMIT);
        } else {
            self.load_history(buf, start);
        }
    }

    #[inline(always)]
    fn hash(&self, buf: &[u8], p: usize) -> usize {
        if self.small {
            hash_at::<true>(buf, p)
        } else {
            hash_at::<false>(buf, p)
        }
    }

    /// The compression loop. `dst` holds at least `max_compressed_size` bytes.
    pub(super) fn compress_generic(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> usize {
        // One instance of the loop per hash, so the choice is not a branch
        // on every probe.
        if self.small {
            self.compress_with::<true>(buf, start, dst)
        } else {
            self.compress_with::<false>(buf, start, dst)
        }
    }

    #[inline(always)]
    fn compress_with<const SMALL: bool>(
        &mut self,
        buf: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> usize {
        let end = buf.len();
        let mut op = 0usize;
        let mut anchor = start;
        if end - start >= MIN_INPUT_LENGTH {
            // Positions past this cannot start a match (LZ4 block format:
            // the last match starts at least MF_LIMIT bytes before the end).
            let mflimit_plus_one = end - MF_LIMIT + 1;
            // Matches end at least LAST_LITERALS bytes before the end.
            let match_limit = end - LAST_LITERALS;
            let low = start.saturating_sub(MAX_DISTANCE);
            let mut ip = start;

            let h = hash_at::<SMALL>(buf, ip);
            self.table[h] = ip as u32;
            ip += 1;
            let mut forward_h = hash_at::<SMALL>(buf, ip);

            'outer: loop {
                // Find a match: probe forward, widening the step on misses.
                let mut forward_ip = ip;
                let mut step = 1usize;
                let mut search = self.accel << SKIP_TRIGGER;
                let mut m;
                loop {
                    let h = forward_h;
                    ip = forward_ip;
                    forward_ip += step;
                    step = (search >> SKIP_TRIGGER) as usize;
                    search += 1;
                    if forward_ip > mflimit_plus_one {
                        break 'outer;
                    }
                    m = self.table[h] as usize;
                    forward_h = hash_at::<SMALL>(buf, forward_ip);
                    self.table[h] = ip as u32;
                    if m >= low
                        && m < ip
                        && ip - m <= MAX_DISTANCE
                        && read_u32(buf, m) == read_u32(buf, ip)
                    {
                        break;
                    }
                }
                // Extend backwards over equal bytes.
                while ip > anchor && m > low && buf[ip - 1] == buf[m - 1] {
                    ip -= 1;
                    m -= 1;
                }
                // Literal run, then one or more matches with no literals
                // between them.
                let mut token_pos = op;
                op = write_literals(dst, op, &buf[anchor..], ip - anchor);
                loop {
                    dst[op..op + 2].copy_from_slice(&((ip - m) as u16).to_le_bytes());
                    op += 2;
                    let ml = count_equal(buf, ip + MIN_MATCH, m + MIN_MATCH, match_limit);
                    ip += ml + MIN_MATCH;
                    op = write_match_length(dst, token_pos, op, ml);
                    anchor = ip;
                    if ip >= mflimit_plus_one {
                        break 'outer;
                    }
                    // Enter a position the match skipped, as the reference does.
                    let h2 = hash_at::<SMALL>(buf, ip - 2);
                    self.table[h2] = (ip - 2) as u32;
                    let h = hash_at::<SMALL>(buf, ip);
                    m = self.table[h] as usize;
                    self.table[h] = ip as u32;
                    if !(m >= low
                        && m < ip
                        && ip - m <= MAX_DISTANCE
                        && read_u32(buf, m) == read_u32(buf, ip))
                    {
                        break;
                    }
                    // A match right here: a sequence with no literals.
                    token_pos = op;
                    dst[op] = 0;
                    op += 1;
                }
                ip += 1;
                forward_h = hash_at::<SMALL>(buf, ip);
            }
        }
        // Last literals.
        write_literals(dst, op, &buf[anchor..], end - anchor)
    }
}

/// Hash of 4 bytes into 2^13 slots (`SMALL`, inputs under 64 KiB) or of 5
/// bytes into 2^12 (the reference's choices, so matches and ratio follow it).
#[inline(always)]
fn hash_at<const SMALL: bool>(buf: &[u8], p: usize) -> usize {
    if SMALL {
        let v = read_u32(buf, p);
        (v.wrapping_mul(2_654_435_761) >> (32 - TABLE_LOG_MAX)) as usize
    } else {
        let v = read_u64(buf, p);
        ((v << 24).wrapping_mul(889_523_592_379) >> (64 - (TABLE_LOG_MAX - 1))) as usize
    }
}

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
    let mut done = 0;
    for (x, y) in xs.chunks_exact(8).zip(ys.chunks_exact(8)) {
        let diff = u64::from_le_bytes(x.try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(y.try_into().expect("8 bytes"));
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

#[inline(always)]
pub(super) fn read_u32(buf: &[u8], p: usize) -> u32 {
    u32::from_le_bytes(buf[p..p + 4].try_into().expect("4 bytes"))
}

#[inline(always)]
pub(super) fn read_u64(buf: &[u8], p: usize) -> u64 {
    u64::from_le_bytes(buf[p..p + 8].try_into().expect("8 bytes"))
}
