//! Level 2: two hash tables, one probe each (the reference's "lz4mid").
//!
//! One table is keyed by 7 bytes (read as 8, the top one dropped), so that
//! a hit is usually a long match; the other by 4 bytes, any minimum match. At each position the long table is tried
//! first; a short match is then taken unless the next position starts a
//! longer long match. Misses step faster and faster through incompressible
//! data. After a match, a few of the positions it covered are entered so
//! that the next matches can refer to them.

use super::{IndexSpace, IndexTables, restart};
use crate::lz4::block::sequence::{
    count_equal, read_u32, read_u64, write_literals, write_sequence,
};
use crate::lz4::block::{LAST_LITERALS, MAX_DISTANCE, MF_LIMIT, MIN_MATCH};

/// Each table has 2^14 entries (together the size of the chain levels' hash
/// table, as in the reference).
const HASH_LOG: u32 = 14;
const HASH_SIZE: usize = 1 << HASH_LOG;
/// Knuth's multiplicative hash constant (2^32 / golden ratio).
const HASH4_MUL: u32 = 2_654_435_761;
/// Multiplier of the long key's hash: the reference's, an odd 56-bit
/// constant. (The 64-bit golden-ratio constant spreads the keys of some
/// integer columns worse: up to 3% larger output on them.)
const HASH8_MUL: u64 = 58_295_818_150_454_627;
/// Bytes a long key reads (the hash keeps the low 7 of them).
const LONG_KEY: usize = 8;
/// After this many literals in a row the search step grows by one (2^9).
const SKIP_LOG: u32 = 9;
/// Inputs shorter than this are stored as literals only (LZ4 block format).
const MIN_INPUT_LENGTH: usize = MF_LIMIT + 1;
/// When loading history, every position of its last 32 KiB goes into the
/// long table (the rest, and the short table, every third position).
const HISTORY_DENSE: usize = 32 * 1024;
/// History positions entered into the short table: one in this many.
const HISTORY_STEP: usize = 3;

/// State of the level 2 compressor.
pub(crate) struct MidCompressor {
    /// 4-byte hash -> index of the latest position with it.
    short: Box<[u32; HASH_SIZE]>,
    /// 7-byte hash -> index of the latest position with it.
    long: Box<[u32; HASH_SIZE]>,
    space: IndexSpace,
}

impl IndexTables for MidCompressor {
    fn space(&mut self) -> &mut IndexSpace {
        &mut self.space
    }
    fn clear(&mut self) {
        self.short.fill(0);
        self.long.fill(0);
    }
    fn lower(&mut self, by: u32) {
        for e in self.short.iter_mut().chain(self.long.iter_mut()) {
            *e = e.saturating_sub(by);
        }
    }
}

#[inline(always)]
fn hash4(buf: &[u8], p: usize) -> usize {
    (read_u32(buf, p).wrapping_mul(HASH4_MUL) >> (32 - HASH_LOG)) as usize
}

#[inline(always)]
fn hash8(buf: &[u8], p: usize) -> usize {
    // Shifting left by 8 drops the top byte: the key is 7 bytes.
    ((read_u64(buf, p) << 8).wrapping_mul(HASH8_MUL) >> (64 - HASH_LOG)) as usize
}

impl MidCompressor {
    pub(super) fn new() -> Self {
        MidCompressor {
            short: Box::new([0; HASH_SIZE]),
            long: Box::new([0; HASH_SIZE]),
            space: IndexSpace::new(),
        }
    }

    #[inline(always)]
    fn put_short(&mut self, buf: &[u8], p: usize) {
        self.short[hash4(buf, p)] = self.space.index(p);
    }

    #[inline(always)]
    fn put_long(&mut self, buf: &[u8], p: usize) {
        self.long[hash8(buf, p)] = self.space.index(p);
    }

    /// Forget all history, then enter `buf[..end]` (its last 64 KiB).
    pub(super) fn load_history(&mut self, buf: &[u8], end: usize) {
        restart(self, buf.len(), end);
        let begin = self.space.pos(self.space.low);
        if end < begin + LONG_KEY + 1 {
            return;
        }
        let last = end - LONG_KEY;
        let mut p = begin;
        while p < last {
            self.put_short(buf, p);
            self.put_long(buf, p + 1);
            p += HISTORY_STEP;
        }
        for p in last.saturating_sub(HISTORY_DENSE).max(begin)..last {
            self.put_long(buf, p);
        }
        self.space.next = self.space.index(end);
    }

    /// The position of table entry `idx` if it is a usable match source for
    /// the position of index `ip_idx`: inside the history and the window.
    #[inline(always)]
    fn candidate(&self, idx: u32, ip_idx: u32) -> Option<usize> {
        (idx >= self.space.low && idx < ip_idx && ip_idx - idx <= MAX_DISTANCE as u32)
            .then(|| self.space.pos(idx))
    }

    /// Compress `buf[start..]`; `dst` holds at least `max_compressed_size`.
    pub(super) fn compress(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> usize {
        super::make_room(self, buf.len());
        let end = buf.len();
        let mut op = 0;
        let mut anchor = start;
        if end - start >= MIN_INPUT_LENGTH {
            let mf_limit = end - MF_LIMIT;
            let limit = end - LAST_LITERALS;
            // Past this, end-of-match positions are not entered (their
            // 8-byte keys would run past the input).
            let fill_limit = end - LONG_KEY;
            let history_start = self.space.pos(self.space.low);
            let mut ip = start;
            while ip <= mf_limit {
                let Some((mut ip2, mut len, offset)) = self.find(buf, ip, mf_limit, limit) else {
                    // Step faster the longer the literal run gets.
                    ip += 1 + ((ip - anchor) >> SKIP_LOG);
                    continue;
                };
                // Extend the match backwards over equal bytes.
                while ip2 > anchor
                    && ip2 - offset > history_start
                    && buf[ip2 - 1] == buf[ip2 - 1 - offset]
                {
                    ip2 -= 1;
                    len += 1;
                }
                // Enter the first positions of the match ...
                self.put_long(buf, ip2 + 1);
                self.put_long(buf, ip2 + 2);
                self.put_short(buf, ip2 + 1);
                op = write_sequence(dst, op, buf, anchor, ip2, offset, len);
                ip = ip2 + len;
                anchor = ip;
                // ... and its last ones.
                if ip - 2 < fill_limit {
                    if ip > history_start + 5 {
                        self.put_long(buf, ip - 5);
                    }
                    self.put_long(buf, ip - 3);
                    self.put_long(buf, ip - 2);
                    self.put_short(buf, ip - 2);
                    self.put_short(buf, ip - 1);
                }
            }
        }
        self.space.next = self.space.index(end);
        write_literals(dst, op, &buf[anchor..], end - anchor)
    }

    /// Probe both tables at `ip` (entering `ip`): the match start, length
    /// and offset, if any.
    #[inline(always)]
    fn find(
        &mut self,
        buf: &[u8],
        ip: usize,
        mf_limit: usize,
        limit: usize,
    ) -> Option<(usize, usize, usize)> {
        let ip_idx = self.space.index(ip);
        let h8 = hash8(buf, ip);
        let cand = self.long[h8];
        self.long[h8] = ip_idx;
        if let Some(m) = self.candidate(cand, ip_idx) {
            let len = count_equal(buf, ip, m, limit);
            if len >= MIN_MATCH {
                return Some((ip, len, ip - m));
            }
        }
        let h4 = hash4(buf, ip);
        let cand = self.short[h4];
        self.short[h4] = ip_idx;
        let m = self.candidate(cand, ip_idx)?;
        let len = count_equal(buf, ip, m, limit);
        if len < MIN_MATCH {
            return None;
        }
        // A short match: take a longer long match at the next position
        // instead, if there is one.
        if ip < mf_limit {
            let h8 = hash8(buf, ip + 1);
            if let Some(m2) = self.candidate(self.long[h8], ip_idx + 1) {
                let len2 = count_equal(buf, ip + 1, m2, limit);
                if len2 > len {
                    self.long[h8] = ip_idx + 1;
                    return Some((ip + 1, len2, ip + 1 - m2));
                }
            }
        }
        Some((ip, len, ip - m))
    }
}
