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
//! Every engine writes its output through [`super::sequence`].
//!
//! The one-shot functions of [`super`] run on per-thread engines
//! ([`with_compressor`]), so repeated calls allocate nothing.

use super::format::{
    LAST_LITERALS, MAX_DISTANCE, MAX_INPUT_SIZE, MF_LIMIT, MIN_MATCH, max_compressed_size,
};
use super::hc::HcCompressor;
use super::sequence::{count_equal, read_u32, read_u64, write_literals, write_match_length};
use crate::error::{Error, Result};
use crate::lz4::Level;
use std::cell::RefCell;

/// Hash table entries: as the reference, 2^13 16-bit entries for inputs
/// under 64 KiB and 2^12 32-bit entries otherwise: 16 KiB either way, so
/// the match choices (and the ratio) follow the reference, and the table
/// shares the L1 cache with the input and output as the reference's does
/// (one table of 2^13 32-bit entries for both made level 1 run at 0.91
/// times the reference's speed over the development corpus).
const TABLE_LOG_MAX: u32 = 13;
const TABLE_SIZE: usize = 1 << TABLE_LOG_MAX;
/// Entries of the large-input table.
const LARGE_TABLE_SIZE: usize = TABLE_SIZE / 2;
/// Inputs under this size (the reference's `LZ4_64Klimit`) use the 2^13 table
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
    /// Positions by hash for large inputs (and with history).
    table: Box<[u32; LARGE_TABLE_SIZE]>,
    /// Positions by hash for small inputs (under 64 KiB, no history): every
    /// position fits 16 bits.
    table16: Box<[u16; TABLE_SIZE]>,
    /// Acceleration factor (1 = default; larger skips faster).
    accel: u32,
    /// Hash of 4 bytes into 2^13 (small inputs) or of 5 bytes into 2^12.
    small: bool,
}

impl FastCompressor {
    /// A compressor for `level` (`<= 0` means acceleration `1 - level`).
    pub(crate) fn new(level: i32) -> Self {
        let accel = Level::new(level).acceleration();
        FastCompressor {
            // Zeroed by `reset` when a block begins.
            table: vec![0u32; LARGE_TABLE_SIZE]
                .into_boxed_slice()
                .try_into()
                .expect("LARGE_TABLE_SIZE entries"),
            table16: vec![0u16; TABLE_SIZE]
                .into_boxed_slice()
                .try_into()
                .expect("TABLE_SIZE entries"),
            accel,
            small: false,
        }
    }

    /// Forget all history.
    pub(crate) fn reset(&mut self, small: bool) {
        if small {
            self.table16.fill(0);
        } else {
            self.table.fill(0);
        }
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
            let h = hash_at::<false>(buf, p);
            self.table[h] = p as u32;
            p += 3;
        }
    }

    /// Start a fresh block: `buf[..start]` (its last 64 KiB) is the only
    /// history.
    fn begin_block(&mut self, buf: &[u8], start: usize) {
        if start == 0 {
            self.reset(buf.len() < SMALL_INPUT_LIMIT);
        } else {
            self.load_history(buf, start);
        }
    }

    /// The position entered under hash `h` (in the small or large table).
    #[inline(always)]
    fn entry<const SMALL: bool>(&self, h: usize) -> usize {
        if SMALL {
            self.table16[h] as usize
        } else {
            self.table[h] as usize
        }
    }

    /// Enter position `p` under hash `h`. In the small table every position
    /// fits 16 bits: small inputs are under `SMALL_INPUT_LIMIT` bytes and
    /// no position past `end - MF_LIMIT + 1` is entered.
    #[inline(always)]
    fn enter<const SMALL: bool>(&mut self, h: usize, p: usize) {
        if SMALL {
            debug_assert!(p <= u16::MAX as usize);
            self.table16[h] = p as u16;
        } else {
            self.table[h] = p as u32;
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
            self.enter::<SMALL>(h, ip);
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
                    m = self.entry::<SMALL>(h);
                    forward_h = hash_at::<SMALL>(buf, forward_ip);
                    self.enter::<SMALL>(h, ip);
                    if in_window::<SMALL>(m, ip, low) && read_u32(buf, m) == read_u32(buf, ip) {
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
                    self.enter::<SMALL>(h2, ip - 2);
                    let h = hash_at::<SMALL>(buf, ip);
                    m = self.entry::<SMALL>(h);
                    self.enter::<SMALL>(h, ip);
                    if !(in_window::<SMALL>(m, ip, low) && read_u32(buf, m) == read_u32(buf, ip)) {
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

/// Whether the table's candidate `m` for position `ip` may be matched:
/// before `ip`, at `low` or after, at most [`MAX_DISTANCE`] back. A small
/// input (`SMALL`: under `SMALL_INPUT_LIMIT` bytes, so every candidate is
/// within the distance of every position) needs only the first, as in the
/// reference's 16-bit table mode.
#[inline(always)]
fn in_window<const SMALL: bool>(m: usize, ip: usize, low: usize) -> bool {
    if SMALL {
        m < ip
    } else {
        m >= low && m < ip && ip - m <= MAX_DISTANCE
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

/// [`super::compress_with_dict_into`]: the history is the last 64 KiB of
/// `dict`, put before `src` in one buffer.
pub(super) fn compress_with_dict_into(
    src: &[u8],
    dict: &[u8],
    dst: &mut [u8],
    level: i32,
) -> Result<usize> {
    check_input_size(src)?;
    let dict = &dict[dict.len().saturating_sub(MAX_DISTANCE + 1)..];
    if dict.is_empty() {
        with_compressor(level, |c| c.compress_block(src, 0, dst))
    } else {
        let mut buf = Vec::with_capacity(dict.len() + src.len());
        buf.extend_from_slice(dict);
        buf.extend_from_slice(src);
        with_compressor(level, |c| c.compress_block(&buf, dict.len(), dst))
    }
}

/// Inputs above [`MAX_INPUT_SIZE`] are an error (the format's limit).
fn check_input_size(src: &[u8]) -> Result<()> {
    match src.len() > MAX_INPUT_SIZE {
        true => Err(Error::InputTooLarge {
            size: src.len(),
            limit: MAX_INPUT_SIZE,
        }),
        false => Ok(()),
    }
}

/// [`compress_with_dict_into`] with no dictionary and lz4's
/// *favor decompression speed* option ([`Compressor::set_favor_dec_speed`]:
/// levels 10 to 12 only, other levels compress as without it), on this
/// thread's engine. The option is switched off again before the engine is
/// reused, so no other call sees it.
pub(super) fn compress_favoring_dec_speed_into(
    src: &[u8],
    dst: &mut [u8],
    level: i32,
) -> Result<usize> {
    check_input_size(src)?;
    with_compressor(level, |c| {
        c.set_favor_dec_speed(true);
        let n = c.compress_block(src, 0, dst);
        c.set_favor_dec_speed(false);
        n
    })
}

thread_local! {
    /// The HC engine behind the one-shot compression functions, one per
    /// thread. Its tables (up to 320 KiB) are allocated once, and starting a
    /// block needs no clearing; a fresh engine per call would allocate and
    /// zero them every time, which costs more than compressing a small or
    /// very repetitive input.
    static THREAD_HC: RefCell<Option<Compressor>> = const { RefCell::new(None) };
    /// The fast engine behind the one-shot functions (levels <= 1): reusing
    /// its table saves an allocation per call, which matters on inputs that
    /// compress at many GB/s.
    static THREAD_FAST: RefCell<Option<(i32, Compressor)>> = const { RefCell::new(None) };
}

/// Run `f` with a compressor for `level`: this thread's HC engine (set to
/// `level`) for levels >= 2, this thread's fast engine below.
fn with_compressor<T>(level: i32, f: impl FnOnce(&mut Compressor) -> T) -> T {
    if level <= 1 {
        return THREAD_FAST.with(|slot| match slot.try_borrow_mut() {
            Ok(mut slot) => {
                if !matches!(*slot, Some((l, _)) if l == level) {
                    *slot = Some((level, Compressor::new(level)));
                }
                f(&mut slot.as_mut().expect("set above").1)
            }
            Err(_) => f(&mut Compressor::new(level)),
        });
    }
    THREAD_HC.with(|slot| match slot.try_borrow_mut() {
        Ok(mut slot) => {
            let reusable = match slot.as_mut() {
                Some(Compressor::High(hc)) => hc.set_level(level),
                _ => false,
            };
            if !reusable {
                *slot = Some(Compressor::new(level));
            }
            f(slot.as_mut().expect("set above"))
        }
        // Re-entered (cannot happen today): use a one-off engine.
        Err(_) => f(&mut Compressor::new(level)),
    })
}

#[cfg(test)]
mod tests {
    use crate::lz4::block::*;

    fn sample(n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n);
        let mut x = 12345u32;
        while v.len() < n {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let k = (x >> 16) as usize % 40;
            let b = (x >> 8) as u8 % 7;
            v.extend(std::iter::repeat_n(b"abcdefghij"[b as usize], k % 9));
            v.extend_from_slice(&(x as u16).to_le_bytes()[..(x as usize >> 3) % 3]);
            v.extend_from_slice(b"the quick brown fox ");
        }
        v.truncate(n);
        v
    }

    #[test]
    fn round_trip_sizes_and_levels() {
        for n in [
            0, 1, 5, 12, 13, 14, 100, 1000, 65_535, 65_536, 65_547, 65_548, 300_000,
        ] {
            let data = sample(n);
            for level in [-10, 0, 1, 9] {
                let c = compress(&data, level);
                assert!(c.len() <= max_compressed_size(n));
                let d = decompress(&c, n).unwrap_or_else(|e| panic!("n={n} level={level}: {e}"));
                assert_eq!(d, data, "n={n} level={level}");
            }
        }
    }

    #[test]
    fn dictionary_round_trip() {
        let dict = sample(100_000);
        let data = sample(50_000);
        let c = compress_with_dict(&data, &dict, 1);
        assert!(c.len() < compress(&data, 1).len());
        let mut out = vec![0u8; data.len()];
        let n = decompress_with_dict_into(&c, &mut out, &dict).unwrap();
        assert_eq!(&out[..n], &data[..]);
    }
}
