//! The hash-chain match finder of levels 3 to 12.
//!
//! A hash table maps the hash of 4 bytes to the latest position with that
//! hash; a chain table links every position of the last 64 KiB to the
//! previous one with the same hash, as a 16-bit backwards distance stored at
//! the position's low 16 bits (the window is 64 KiB, so older links are never
//! needed and the slots can be reused). A search walks a chain from the
//! newest candidate to the oldest, for at most `attempts` links.
//!
//! Two shortcuts keep deep searches affordable, as in the reference:
//! * *chain swap* (optimal levels): once a match of length `L` is found at
//!   `m`, any longer match must also repeat each 4-byte piece of it; walking
//!   the chain of the piece whose chain reaches back the farthest skips the
//!   candidates that cannot match;
//! * *run analysis* (levels 9 and up): inside a run of one byte value every
//!   chain link has length 1; instead of stepping through the run byte by
//!   byte, jump to where a run of the wanted length starts.

use super::{IndexSpace, IndexTables, load_u16, load_u32, load_u64, restart};
use crate::lz4::block::sequence::{count_equal, read_u32, read_u64};
use crate::lz4::block::{MAX_DISTANCE, MIN_MATCH};

/// Hash table entries: 2^15, as the reference's HC levels use.
const HASH_LOG: u32 = 15;
const HASH_SIZE: usize = 1 << HASH_LOG;
/// One chain slot per position of a 64 KiB window, indexed by the low 16
/// bits of the position's index.
const CHAIN_SIZE: usize = 1 << 16;
/// Knuth's multiplicative hash constant (2^32 / golden ratio).
const HASH_MUL: u32 = 2_654_435_761;
/// Chain swap: scan the positions of a match one by one at first, then
/// with a step growing by one every 2^4 positions without a better chain.
const SWAP_ACCEL_LOG: u32 = 4;
/// Bytes of a candidate's match compared in the search loop itself before
/// calling `count_equal`, and how far they reach from `ip`.
const PEEL: usize = 8;
const PEELED: usize = MIN_MATCH + PEEL;
/// `favor_dec_speed`: offsets below this make the decoder copy a match in
/// pieces smaller than its 8-byte chunks, so they are skipped.
pub(super) const FAVOR_MIN_OFFSET: u32 = 8;

/// A match for the position a search was asked about (`ip`): it starts
/// `back` bytes before `ip` (only wider searches look back), copies `len`
/// bytes from `offset` bytes earlier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Match {
    pub(super) len: usize,
    pub(super) offset: usize,
    pub(super) back: usize,
}

/// Which shortcuts a search takes (see the module doc). Each engine's
/// choice is a type, so that the search loop of a level without a shortcut
/// has no test for it.
pub(super) trait SearchMode {
    /// Follow the rarest piece of the best match.
    const CHAIN_SWAP: bool;
    /// Jump through runs of one byte value.
    const RUN_ANALYSIS: bool;
    /// Skip offsets below [`FAVOR_MIN_OFFSET`].
    const FAVOR_DEC_SPEED: bool;
}

/// Levels 3 to 8.
pub(super) struct LazyMode;
/// Level 9.
pub(super) struct LazyRunsMode;
/// Levels 10 to 12.
pub(super) struct OptimalMode;
/// Levels 10 to 12 with `favor_dec_speed`.
pub(super) struct OptimalFavorMode;

impl SearchMode for LazyMode {
    const CHAIN_SWAP: bool = false;
    const RUN_ANALYSIS: bool = false;
    const FAVOR_DEC_SPEED: bool = false;
}
impl SearchMode for LazyRunsMode {
    const CHAIN_SWAP: bool = false;
    const RUN_ANALYSIS: bool = true;
    const FAVOR_DEC_SPEED: bool = false;
}
impl SearchMode for OptimalMode {
    const CHAIN_SWAP: bool = true;
    const RUN_ANALYSIS: bool = true;
    const FAVOR_DEC_SPEED: bool = false;
}
impl SearchMode for OptimalFavorMode {
    const CHAIN_SWAP: bool = true;
    const RUN_ANALYSIS: bool = true;
    const FAVOR_DEC_SPEED: bool = true;
}

/// Hash chains over the caller's buffer.
pub(super) struct ChainFinder {
    /// Hash of 4 bytes -> index of the latest position with that hash.
    head: Box<[u32; HASH_SIZE]>,
    /// Low 16 bits of a position's index -> distance back to the previous
    /// position with the same hash (at most `MAX_DISTANCE`).
    chain: Box<[u16; CHAIN_SIZE]>,
    space: IndexSpace,
}

impl IndexTables for ChainFinder {
    fn space(&mut self) -> &mut IndexSpace {
        &mut self.space
    }
    fn clear(&mut self) {
        self.head.fill(0);
    }
    fn lower(&mut self, by: u32) {
        // Chain links are relative and stay valid.
        for e in self.head.iter_mut() {
            *e = e.saturating_sub(by);
        }
    }
}

#[inline(always)]
fn hash(v: u32) -> usize {
    (v.wrapping_mul(HASH_MUL) >> (32 - HASH_LOG)) as usize
}

impl ChainFinder {
    pub(super) fn new() -> Self {
        ChainFinder {
            head: Box::new([0; HASH_SIZE]),
            // Never read before written: every position from `low` on is
            // entered before any search can reach it.
            chain: Box::new([0; CHAIN_SIZE]),
            space: IndexSpace::new(),
        }
    }

    /// Forget all history, then enter every position of `buf[..end]` (its
    /// last 64 KiB) that has 4 bytes to hash.
    pub(super) fn load_history(&mut self, buf: &[u8], end: usize) {
        restart(self, buf.len(), end);
        if end >= MIN_MATCH {
            self.insert_until(buf, end - (MIN_MATCH - 1));
        }
    }

    /// Before a block: see [`super::make_room`].
    pub(super) fn prepare(&mut self, buf_len: usize) {
        super::make_room(self, buf_len);
    }

    /// Enter every position before `target` not entered yet.
    #[inline(always)]
    fn insert_until(&mut self, buf: &[u8], target: usize) {
        let first = self.space.pos(self.space.next);
        if first >= target {
            return;
        }
        let mut idx = self.space.next;
        // Each position's 4-byte key, without a bounds check per position.
        for key in buf[first..target + MIN_MATCH - 1].windows(MIN_MATCH) {
            let h = hash(u32::from_le_bytes([key[0], key[1], key[2], key[3]]));
            // Links past the window are cut to its size (they end a walk
            // either way). The test is on the head (not a `min` of the
            // distance) so that it stays a conditional move: as a branch,
            // the many fresh (zero) heads of a new block mispredict it.
            let prev = self.head[h];
            let delta = std::hint::select_unpredictable(
                prev < idx - MAX_DISTANCE as u32,
                MAX_DISTANCE as u32,
                idx - prev,
            );
            self.chain[idx as u16 as usize] = delta as u16;
            self.head[h] = idx;
            idx += 1;
        }
        self.space.next = idx;
    }

    #[inline(always)]
    fn link(&self, idx: u32) -> u32 {
        u32::from(self.chain[idx as u16 as usize])
    }

    /// Find a match for `buf[ip..]` longer than `longest`, ending at most at
    /// `high_limit`; it may start up to `ip - low_limit` bytes before `ip`
    /// (`Match::back`), and its length counts from its start. `None` if there
    /// is no longer match. Enters all positions before `ip` first.
    ///
    /// `M` chooses the shortcuts; `attempts` bounds the chain links followed.
    ///
    /// # Panics
    /// Unless `low_limit <= ip`, `ip + 4 <= high_limit < buf.len()` and
    /// `longest > ip - low_limit` (so that the first bytes to compare are at
    /// or after `ip`).
    #[inline(always)]
    pub(super) fn find_wider<M: SearchMode>(
        &mut self,
        buf: &[u8],
        ip: usize,
        low_limit: usize,
        high_limit: usize,
        mut longest: usize,
        mut attempts: u32,
    ) -> Option<Match> {
        self.insert_until(buf, ip);
        assert!(low_limit <= ip && ip + MIN_MATCH <= high_limit && high_limit < buf.len());
        let look_back = ip - low_limit;
        assert!(longest > look_back);
        if low_limit + longest >= high_limit {
            // Matches end at `high_limit`: none can be longer.
            return None;
        }
        let space = self.space;
        let base = space.base;
        let ip_idx = space.index(ip);
        let lowest = space.lowest_for(ip_idx).max(base);
        // Candidates are the indices `m` with `lowest <= m < ip_idx`, i.e.
        // `m.wrapping_sub(lowest) < window`: one test, which also catches
        // any step below 0 (it wraps to a huge index).
        let window = ip_idx.saturating_sub(lowest);
        let history_start = space.pos(space.low.max(base));
        let pattern = read_u32(buf, ip);
        let mut m = self.head[hash(pattern)];
        // The best match so far: `longest` bytes, at `best_offset` (0: none
        // yet), starting `best_back` bytes before `ip`.
        let (mut best_offset, mut best_back) = (0u32, 0usize);
        // The 2 bytes ending at the current best length: a longer match must
        // repeat them, one cheap test before a full comparison. `probe` is
        // where they are relative to a candidate.
        let mut probe = longest - 1 - look_back;
        let mut tail = read_u16(buf, low_limit + longest - 1);
        // Chain swap: which piece of the match the walk follows.
        let mut chain_pos = 0u32;
        // Run analysis: length of the run at `ip` (0: not tested, 1: no run).
        let mut src_run = 0usize;

        let peel = ip + PEELED <= high_limit;
        // Address of index 0 (not itself readable): candidate `m`'s bytes
        // start at `origin + m`, one addition per candidate.
        let origin = buf.as_ptr().wrapping_sub(base as usize);

        while m.wrapping_sub(lowest) < window && attempts > 0 {
            attempts -= 1;
            let cand = origin.wrapping_add(m as usize);
            // SAFETY: `base <= lowest <= m < ip_idx`, so `cand` is
            // `buf[m - base]` with `m - base < ip`. While `longest <=
            // high_limit - low_limit` (every match and run found is bounded
            // by `high_limit`), the 2 bytes at `cand + probe` end at most at
            // `low_limit + longest <= high_limit < buf.len()`; the 4 bytes at
            // `cand` end before `ip + 4 <= high_limit`.
            if !(M::FAVOR_DEC_SPEED && ip_idx - m < FAVOR_MIN_OFFSET)
                // SAFETY: the 2 bytes at `cand + probe` (above).
                && unsafe { load_u16(cand.add(probe)) } == tail
                // SAFETY: the 4 bytes at `cand` (above).
                && unsafe { load_u32(cand) } == pattern
            {
                let mp = (m - base) as usize;
                let back = if look_back > 0 {
                    count_back(buf, ip, mp, low_limit, history_start)
                } else {
                    0
                };
                // The first 8 bytes after the 4 known equal ones are
                // compared here: most matches end inside them.
                let forward = if peel {
                    // SAFETY: `peel` means `ip + 12 <= high_limit <
                    // buf.len()`, and `cand` is `buf[mp]` with `mp < ip`.
                    let diff = unsafe {
                        load_u64(buf.as_ptr().add(ip + MIN_MATCH)) ^ load_u64(cand.add(MIN_MATCH))
                    };
                    if diff != 0 {
                        (diff.trailing_zeros() / 8) as usize
                    } else {
                        PEEL + count_equal(buf, ip + PEELED, mp + PEELED, high_limit)
                    }
                } else {
                    count_equal(buf, ip + MIN_MATCH, mp + MIN_MATCH, high_limit)
                };
                let len = MIN_MATCH + forward + back;
                if len > longest {
                    longest = len;
                    probe = longest - 1 - look_back;
                    tail = read_u16(buf, low_limit + longest - 1);
                    best_offset = ip_idx - m;
                    best_back = back;
                }

                if M::CHAIN_SWAP && len == longest && m + longest as u32 <= ip_idx {
                    // Find the piece of the match whose chain reaches back
                    // the farthest, and walk that chain from now on.
                    let end = (longest - MIN_MATCH + 1) as u32;
                    let mut farthest = 1;
                    let mut pos = 0;
                    let mut accel = 1u32 << SWAP_ACCEL_LOG;
                    while pos < end {
                        let d = self.link(m + pos);
                        let step = accel >> SWAP_ACCEL_LOG;
                        accel += 1;
                        if d > farthest {
                            // Rare: as a branch (not conditional moves) the
                            // next position does not wait for this load.
                            std::hint::cold_path();
                            farthest = d;
                            chain_pos = pos;
                            accel = 1 << SWAP_ACCEL_LOG;
                        }
                        pos += step;
                    }
                    if farthest > 1 {
                        m = m.wrapping_sub(farthest);
                        continue;
                    }
                }
            }

            // The next candidate. (Without chain swap, or before it first
            // acts, `chain_pos` is 0: this is `m`'s own link.)
            let link = self.link(m + chain_pos);
            if M::RUN_ANALYSIS && chain_pos == 0 && link == 1 {
                // The previous position has the same hash: maybe a run.
                if src_run == 0 {
                    src_run = if is_byte_run(pattern) {
                        MIN_MATCH + count_run(buf, ip + MIN_MATCH, high_limit, pattern as u8)
                    } else {
                        1
                    };
                }
                let cand = m - 1;
                if src_run > 1 && cand >= lowest {
                    let cp = (cand - base) as usize;
                    if read_u32(buf, cp) == pattern {
                        let fwd =
                            MIN_MATCH + count_run(buf, cp + MIN_MATCH, high_limit, pattern as u8);
                        let back_run = count_run_back(buf, cp, history_start, pattern as u8)
                            .min((cand - lowest) as usize);
                        let segment = back_run + fwd;
                        if segment >= src_run && fwd <= src_run {
                            // The run holds the whole source run: try where
                            // it ends exactly src_run bytes later, so that
                            // what follows the run may match too.
                            m = cand + fwd as u32 - src_run as u32;
                        } else {
                            // Too short: its start gives the longest run match.
                            m = cand - back_run as u32;
                            if look_back == 0 {
                                let run_len = segment.min(src_run);
                                if longest < run_len {
                                    longest = run_len;
                                    probe = longest - 1;
                                    tail = read_u16(buf, low_limit + longest - 1);
                                    best_offset = ip_idx - m;
                                    best_back = 0;
                                }
                                m = m.wrapping_sub(self.link(m));
                            }
                        }
                        continue;
                    }
                }
            }

            m = m.wrapping_sub(link);
        }
        (best_offset != 0).then_some(Match {
            len: longest,
            offset: best_offset as usize,
            back: best_back,
        })
    }
}

/// Little-endian 2 bytes at `p`.
#[inline(always)]
fn read_u16(buf: &[u8], p: usize) -> u16 {
    u16::from_le_bytes([buf[p], buf[p + 1]])
}

/// Number of equal bytes before `ip` and `mp` (`mp < ip <= buf.len()`),
/// going back at most to `ip_min` and `mp_min`.
#[inline(always)]
fn count_back(buf: &[u8], ip: usize, mp: usize, ip_min: usize, mp_min: usize) -> usize {
    assert!(mp < ip && ip <= buf.len());
    let max = (ip - ip_min).min(mp.saturating_sub(mp_min));
    let (x, y) = (buf.as_ptr().wrapping_add(ip), buf.as_ptr().wrapping_add(mp));
    let mut n = 0;
    // 4 bytes at a time (most extensions are short): the highest differing
    // byte is the first mismatch going back.
    while n + 4 <= max {
        // SAFETY: `n + 4 <= max <= mp < ip <= buf.len()`: both 4-byte reads
        // end at or before `ip` and `mp`, and start inside `buf`.
        let diff = unsafe { load_u32(x.sub(n + 4)) ^ load_u32(y.sub(n + 4)) };
        if diff != 0 {
            return n + (diff.leading_zeros() / 8) as usize;
        }
        n += 4;
    }
    while n < max && buf[ip - n - 1] == buf[mp - n - 1] {
        n += 1;
    }
    n
}

/// All 4 bytes of `v` equal.
#[inline(always)]
fn is_byte_run(v: u32) -> bool {
    v == (v & 0xFF).wrapping_mul(0x0101_0101)
}

/// Number of bytes equal to `b` from `p`, not going past `limit`.
#[inline(always)]
fn count_run(buf: &[u8], p: usize, limit: usize, b: u8) -> usize {
    let pattern = u64::from(b).wrapping_mul(0x0101_0101_0101_0101);
    let mut q = p;
    while q + 8 <= limit {
        let diff = read_u64(buf, q) ^ pattern;
        if diff != 0 {
            return q - p + (diff.trailing_zeros() / 8) as usize;
        }
        q += 8;
    }
    while q < limit && buf[q] == b {
        q += 1;
    }
    q - p
}

/// Number of bytes equal to `b` just before `p`, not going below `low`.
#[inline(always)]
fn count_run_back(buf: &[u8], p: usize, low: usize, b: u8) -> usize {
    let pattern = u64::from(b).wrapping_mul(0x0101_0101_0101_0101);
    let mut q = p;
    while q >= low + 8 {
        let diff = read_u64(buf, q - 8) ^ pattern;
        if diff != 0 {
            return p - q + (diff.leading_zeros() / 8) as usize;
        }
        q -= 8;
    }
    while q > low && buf[q - 1] == b {
        q -= 1;
    }
    p - q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let buf = b"xxaaaaaaaaaaaaayaaaaz";
        assert_eq!(count_run(buf, 2, buf.len(), b'a'), 13);
        assert_eq!(count_run(buf, 2, 6, b'a'), 4);
        assert_eq!(count_run_back(buf, 15, 0, b'a'), 13);
        assert_eq!(count_run_back(buf, 15, 5, b'a'), 10);
        assert_eq!(count_run_back(buf, 20, 0, b'a'), 4);
        assert!(is_byte_run(0x4141_4141) && !is_byte_run(0x4141_4142));
        let buf = b"0123456789abcdef0123456789abcdef";
        assert_eq!(count_back(buf, 26, 10, 16, 0), 10);
        assert_eq!(count_back(buf, 26, 10, 20, 0), 6);
        assert_eq!(count_back(buf, 26, 10, 0, 0), 10);
        assert_eq!(count_back(buf, 26, 10, 0, 5), 5);
    }
}
