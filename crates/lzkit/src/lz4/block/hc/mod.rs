//! High-compression (HC) engines, levels 2 to 12. Each level means what it
//! means in the reference library (lz4 1.10), so that users can switch
//! between lzkit and lz4 without retuning:
//!
//! | level | engine | match search |
//! |---|---|---|
//! | 2 | [`mid`]: one probe in each of two hash tables (4- and 8-byte keys) | 2 probes |
//! | 3..=9 | [`lazy`]: hash chains, lazy matching over up to three overlapping matches | 4, 8, ..., 256 chain steps |
//! | 10..=12 | [`optimal`]: hash chains, price-based optimal parsing | 96, 512, 16384 chain steps |
//!
//! Levels above 12 compress like 12.
//!
//! # Positions and indices
//! The engines are driven through [`super::compress::Compressor`], whose
//! positions are indices in the caller's buffer (`buf[..start]` is history).
//! Tables store `u32` *indices* instead: index = position + `base`
//! ([`IndexSpace`]). Starting a fresh block moves `base` past every index
//! already stored, so old entries fall below the window without clearing the
//! tables; following a caller who slides its buffer ([`HcCompressor::rebase`])
//! is one addition. Every candidate a table yields is checked against the
//! window and then compared byte by byte, so a stale entry costs a probe,
//! never a wrong match.

mod chain;
mod lazy;
mod mid;
mod optimal;

use super::format::MAX_DISTANCE;
use crate::lz4::MAX_LEVEL;

/// Indices start here after a clear, one window above 0: an entry that was
/// never written holds 0, which is then always below the window.
const INDEX_START: u32 = 1 << 16;

/// When `base` passes this, indices are lowered (or the tables cleared) so
/// that `base + buf.len()` can never overflow a `u32`: buffers hold at most
/// `MAX_INPUT_SIZE` (< 2^31) bytes plus 64 KiB of history.
const BASE_LIMIT: u32 = 1 << 30;

/// How table indices map to the caller's buffer, and which of them are valid.
///
/// Invariants: `INDEX_START <= base <= low`, and the tables hold no index at
/// or above `next`. For the hash chains, every position from `low` up to
/// `next` has been entered.
#[derive(Clone, Copy, Debug)]
pub(super) struct IndexSpace {
    /// Index of `buf[0]`.
    pub(super) base: u32,
    /// Lowest valid index: the first byte of history the tables describe.
    pub(super) low: u32,
    /// One past the highest index the tables may hold.
    pub(super) next: u32,
}

impl IndexSpace {
    fn new() -> Self {
        IndexSpace {
            base: INDEX_START,
            low: INDEX_START,
            next: INDEX_START,
        }
    }

    /// Index of buffer position `pos`.
    #[inline(always)]
    pub(super) fn index(&self, pos: usize) -> u32 {
        self.base + pos as u32
    }

    /// Buffer position of the valid index `idx` (`idx >= low >= base`).
    #[inline(always)]
    pub(super) fn pos(&self, idx: u32) -> usize {
        (idx - self.base) as usize
    }

    /// Lowest index a match for position index `ip_idx` may start at.
    #[inline(always)]
    pub(super) fn lowest_for(&self, ip_idx: u32) -> u32 {
        self.low.max(ip_idx.saturating_sub(MAX_DISTANCE as u32))
    }
}

/// Match-finder tables whose entries are indices of an [`IndexSpace`].
pub(super) trait IndexTables {
    /// The index space the entries refer to.
    fn space(&mut self) -> &mut IndexSpace;
    /// Zero every entry.
    fn clear(&mut self);
    /// Subtract `by` (a multiple of 64 Ki) from every entry, saturating at 0.
    fn lower(&mut self, by: u32);
}

/// Forget all history: the next buffer's indices start above every index in
/// the tables, and `buf[..history]` is the history the caller will enter
/// (its last [`MAX_DISTANCE`] bytes).
pub(super) fn restart<T: IndexTables>(t: &mut T, buf_len: usize, history: usize) {
    let mut base = t.space().next;
    if base > BASE_LIMIT {
        t.clear();
        base = INDEX_START;
    }
    let low = base + history.saturating_sub(MAX_DISTANCE) as u32;
    *t.space() = IndexSpace {
        base,
        low,
        next: low,
    };
    make_room(t, buf_len);
}

/// Follow a caller who moved its buffer's contents `shift` bytes towards the
/// start: position `p` is now what position `p + shift` was.
pub(super) fn rebase<T: IndexTables>(t: &mut T, shift: usize) {
    let s = *t.space();
    let Some(base) = u32::try_from(shift)
        .ok()
        .and_then(|sh| s.base.checked_add(sh))
    else {
        // A shift far beyond anything the tables hold: nothing survives.
        t.clear();
        *t.space() = IndexSpace::new();
        return;
    };
    let low = s.low.max(base);
    *t.space() = IndexSpace {
        base,
        low,
        next: s.next.max(low),
    };
    if base > BASE_LIMIT {
        lower(t);
    }
}

/// Before compressing a buffer of `buf_len` bytes: keep its indices inside
/// `u32`, and skip chain entries for positions the caller dropped.
///
/// # Panics
/// If the buffer is longer than 3 GiB (its indices would not fit in `u32`;
/// the search loops rely on them for memory safety, so this is checked in
/// release builds too). Blocks are at most [`super::MAX_INPUT_SIZE`] bytes.
pub(super) fn make_room<T: IndexTables>(t: &mut T, buf_len: usize) {
    if t.space().base > BASE_LIMIT {
        lower(t);
    }
    let s = t.space();
    assert!(
        u64::from(s.base) + buf_len as u64 <= u64::from(u32::MAX),
        "buffer of {buf_len} bytes too large for the HC match finders"
    );
    s.next = s.next.max(s.low);
}

/// Lower every index by a multiple of 64 Ki (so that the chain table, which
/// is indexed by an index's low 16 bits, stays in place) that leaves `base`
/// at least `INDEX_START`.
fn lower<T: IndexTables>(t: &mut T) {
    let s = *t.space();
    let by = (s.base - INDEX_START) & !0xFFFF;
    t.lower(by);
    *t.space() = IndexSpace {
        base: s.base - by,
        low: s.low - by,
        next: s.next - by,
    };
}

/// Little-endian 2 bytes at `p`.
///
/// # Safety
/// `p .. p + 2` is inside one live allocation (a slice being searched).
#[inline(always)]
pub(super) unsafe fn load_u16(p: *const u8) -> u16 {
    // SAFETY: the caller guarantees the 2 bytes are readable.
    u16::from_le(unsafe { p.cast::<u16>().read_unaligned() })
}

/// Little-endian 4 bytes at `p`.
///
/// # Safety
/// `p .. p + 4` is inside one live allocation (a slice being searched).
#[inline(always)]
pub(super) unsafe fn load_u32(p: *const u8) -> u32 {
    // SAFETY: the caller guarantees the 4 bytes are readable.
    u32::from_le(unsafe { p.cast::<u32>().read_unaligned() })
}

/// Little-endian 8 bytes at `p`.
///
/// # Safety
/// `p .. p + 8` is inside one live allocation (a slice being searched).
#[inline(always)]
pub(super) unsafe fn load_u64(p: *const u8) -> u64 {
    // SAFETY: the caller guarantees the 8 bytes are readable.
    u64::from_le(unsafe { p.cast::<u64>().read_unaligned() })
}

/// The engine a level selects, with the reference's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    /// Level 2.
    Mid,
    /// Levels 3..=9: follow at most `attempts` chain links per search.
    Lazy { attempts: u32 },
    /// Levels 10..=12: `attempts` chain links per search; a match longer
    /// than `sufficient_len` is taken at once; `full_update` searches at
    /// more positions (level 12).
    Optimal {
        attempts: u32,
        sufficient_len: usize,
        full_update: bool,
    },
}

impl Strategy {
    fn for_level(level: i32) -> Self {
        match level.clamp(2, MAX_LEVEL) {
            2 => Strategy::Mid,
            // Levels 3..=9 double the search depth each step: 4 .. 256.
            l @ 3..=9 => Strategy::Lazy {
                attempts: 1 << (l - 1),
            },
            10 => Strategy::Optimal {
                attempts: 96,
                sufficient_len: 64,
                full_update: false,
            },
            11 => Strategy::Optimal {
                attempts: 512,
                sufficient_len: 128,
                full_update: false,
            },
            _ => Strategy::Optimal {
                attempts: 16_384,
                sufficient_len: optimal::MAX_SUFFICIENT_LEN,
                full_update: true,
            },
        }
    }
}

/// Reusable state of an HC engine. See [`super::compress::Compressor`] for
/// the calling convention.
pub(crate) enum HcCompressor {
    Mid(mid::MidCompressor),
    Lazy(lazy::LazyCompressor),
    Optimal(optimal::OptimalCompressor),
}

impl HcCompressor {
    /// An engine for `level` (2..=12; lower means 2, higher means 12).
    pub(crate) fn new(level: i32) -> Self {
        match Strategy::for_level(level) {
            Strategy::Mid => HcCompressor::Mid(mid::MidCompressor::new()),
            Strategy::Lazy { attempts } => HcCompressor::Lazy(lazy::LazyCompressor::new(attempts)),
            Strategy::Optimal {
                attempts,
                sufficient_len,
                full_update,
            } => HcCompressor::Optimal(optimal::OptimalCompressor::new(
                attempts,
                sufficient_len,
                full_update,
            )),
        }
    }

    /// Make this engine compress at `level` from its next block on, with
    /// `favor_dec_speed` off. Returns false (and changes nothing) if `level`
    /// needs another kind of engine.
    pub(crate) fn set_level(&mut self, level: i32) -> bool {
        match (self, Strategy::for_level(level)) {
            (HcCompressor::Mid(_), Strategy::Mid) => true,
            (HcCompressor::Lazy(e), Strategy::Lazy { attempts }) => {
                e.attempts = attempts;
                true
            }
            (
                HcCompressor::Optimal(e),
                Strategy::Optimal {
                    attempts,
                    sufficient_len,
                    full_update,
                },
            ) => {
                e.configure(attempts, sufficient_len, full_update);
                true
            }
            _ => false,
        }
    }

    /// Levels >= 10: avoid matches slow to decode. Ignored below, as in the
    /// reference.
    pub(crate) fn set_favor_dec_speed(&mut self, on: bool) {
        if let HcCompressor::Optimal(o) = self {
            o.favor_dec_speed = on;
        }
    }

    /// See [`super::compress::Compressor::rebase`].
    pub(crate) fn rebase(&mut self, shift: usize) {
        match self {
            HcCompressor::Mid(e) => rebase(e, shift),
            HcCompressor::Lazy(e) => rebase(&mut e.finder, shift),
            HcCompressor::Optimal(e) => rebase(&mut e.finder, shift),
        }
    }

    /// Forget all history, then enter `buf[..end]` (its last 64 KiB).
    pub(crate) fn load_history(&mut self, buf: &[u8], end: usize) {
        match self {
            HcCompressor::Mid(e) => e.load_history(buf, end),
            HcCompressor::Lazy(e) => e.finder.load_history(buf, end),
            HcCompressor::Optimal(e) => e.finder.load_history(buf, end),
        }
    }

    /// Start a fresh block at `buf[start..]` with `buf[..start]` as history.
    pub(crate) fn begin_block(&mut self, buf: &[u8], start: usize) {
        if start == 0 {
            match self {
                HcCompressor::Mid(e) => restart(e, buf.len(), 0),
                HcCompressor::Lazy(e) => restart(&mut e.finder, buf.len(), 0),
                HcCompressor::Optimal(e) => restart(&mut e.finder, buf.len(), 0),
            }
        } else {
            self.load_history(buf, start);
        }
    }

    /// Compress `buf[start..]` into `dst` (at least `max_compressed_size`
    /// bytes) and return the compressed size.
    pub(crate) fn compress(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> usize {
        // The tables must describe only bytes before `start`; a caller who
        // goes back in its buffer gets its history reloaded.
        let space = match self {
            HcCompressor::Mid(e) => *e.space(),
            HcCompressor::Lazy(e) => *e.finder.space(),
            HcCompressor::Optimal(e) => *e.finder.space(),
        };
        if space.next > space.base.saturating_add(start as u32) {
            self.load_history(buf, start);
        }
        match self {
            HcCompressor::Mid(e) => e.compress(buf, start, dst),
            HcCompressor::Lazy(e) => e.compress(buf, start, dst),
            HcCompressor::Optimal(e) => e.compress(buf, start, dst),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_reference_table() {
        assert_eq!(Strategy::for_level(2), Strategy::Mid);
        assert_eq!(Strategy::for_level(3), Strategy::Lazy { attempts: 4 });
        assert_eq!(Strategy::for_level(6), Strategy::Lazy { attempts: 32 });
        assert_eq!(Strategy::for_level(9), Strategy::Lazy { attempts: 256 });
        assert_eq!(
            Strategy::for_level(11),
            Strategy::Optimal {
                attempts: 512,
                sufficient_len: 128,
                full_update: false
            }
        );
        assert_eq!(Strategy::for_level(40), Strategy::for_level(12));
    }

    use crate::lz4::block::compress::Compressor;
    use crate::lz4::block::{MIN_MATCH, compress, decompress, decompress_with_dict_into};

    /// Deterministic test data: short-period patterns (periods 2 to 7, never
    /// one byte value), text-like words and random bytes.
    fn sample(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut v = Vec::with_capacity(n + 64);
        while v.len() < n {
            let r = next();
            match r % 4 {
                0 => {
                    let period = 2 + (r >> 8) as usize % 6;
                    let pattern: Vec<u8> = (0..period).map(|i| (r >> (16 + i)) as u8 | 1).collect();
                    let pattern = if pattern.iter().all(|&b| b == pattern[0]) {
                        vec![pattern[0], !pattern[0]]
                    } else {
                        pattern
                    };
                    v.extend(pattern.iter().cycle().take(20 + (r >> 24) as usize % 200));
                }
                1 | 2 => {
                    let words: [&[u8]; 6] = [
                        b"alpha ",
                        b"beta ",
                        b"gamma ",
                        b"delta, ",
                        b"epsilon ",
                        b"zeta. ",
                    ];
                    v.extend_from_slice(words[(r >> 8) as usize % 6]);
                }
                _ => v.extend((0..(r >> 8) % 24).map(|_| next() as u8)),
            }
        }
        v.truncate(n);
        v
    }

    /// The sequences of a block: (literal count, offset, match length);
    /// the last one has offset and length 0.
    fn sequences(block: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        let length = |i: &mut usize, mut n: usize| {
            if n == 15 {
                loop {
                    let b = block[*i];
                    *i += 1;
                    n += b as usize;
                    if b != 255 {
                        break;
                    }
                }
            }
            n
        };
        while i < block.len() {
            let token = block[i];
            i += 1;
            let lits = length(&mut i, (token >> 4) as usize);
            i += lits;
            if i == block.len() {
                out.push((lits, 0, 0));
                break;
            }
            let offset = u16::from_le_bytes([block[i], block[i + 1]]) as usize;
            i += 2;
            let len = length(&mut i, (token & 15) as usize) + MIN_MATCH;
            out.push((lits, offset, len));
        }
        out
    }

    fn compress_favoring(data: &[u8], level: i32) -> Vec<u8> {
        let mut c = Compressor::new(level);
        c.set_favor_dec_speed(true);
        let mut dst = vec![0u8; crate::lz4::block::max_compressed_size(data.len())];
        let n = c.compress_block(data, 0, &mut dst).expect("fits");
        dst.truncate(n);
        dst
    }

    #[test]
    fn favor_dec_speed_avoids_short_offsets() {
        let data = sample(300_000, 7);
        for level in 10..=12 {
            let plain = compress(&data, level);
            let favored = compress_favoring(&data, level);
            assert_eq!(decompress(&favored, data.len()).expect("decodes"), data);
            let short = |b: &[u8]| {
                sequences(b)
                    .iter()
                    .filter(|s| (1..8).contains(&s.1))
                    .count()
            };
            // The data has no runs of one byte value (whose matches run
            // analysis may still take at any offset), so none at all.
            assert!(short(&plain) > 100, "level {level}: test data too easy");
            assert_eq!(short(&favored), 0, "level {level}: offsets below 8");
            // It costs ratio (much on this data, made of short periods;
            // about 0.5% on typical data), but stays a compressor.
            assert!(favored.len() > plain.len(), "level {level}: no effect");
            assert!(
                favored.len() < plain.len() + plain.len() / 2,
                "level {level}: {} vs {}",
                favored.len(),
                plain.len()
            );
        }
        // Below level 10 the flag changes nothing, as in the reference.
        assert_eq!(compress_favoring(&data, 9), compress(&data, 9));
    }

    #[test]
    fn reused_engines_compress_like_fresh_ones() {
        // `block::compress` reuses one engine per thread: whatever it did
        // before, its output must be a fresh engine's.
        let inputs = [sample(100_000, 1), sample(70_000, 2), sample(3_000, 3)];
        for (i, level) in [12, 10, 2, 9, 3, 12, 11, 2, 10, 5].into_iter().enumerate() {
            let data = &inputs[i % inputs.len()];
            let mut dst = vec![0u8; crate::lz4::block::max_compressed_size(data.len())];
            let n = Compressor::new(level)
                .compress_block(data, 0, &mut dst)
                .expect("fits");
            assert_eq!(compress(data, level), &dst[..n], "level {level}, input {i}");
        }
        // A favouring engine left behind does not leak into the next call.
        let data = &inputs[0];
        let favored = compress_favoring(data, 12);
        assert_ne!(compress(data, 12), favored);
    }

    /// Compress `data` block by block through one engine, as a streaming
    /// encoder with a sliding window does (history kept, buffer slid and
    /// rebased), and check that every block decodes with the data before it
    /// as dictionary.
    fn stream(level: i32, data: &[u8], block: usize, window: usize) {
        let mut c = Compressor::new(level);
        let mut win: Vec<u8> = Vec::new();
        c.load_history(&win, 0);
        let mut done = 0;
        while done < data.len() {
            let n = block.min(data.len() - done);
            let start = win.len();
            win.extend_from_slice(&data[done..done + n]);
            let mut dst = vec![0u8; crate::lz4::block::max_compressed_size(n)];
            let size = c.compress_next(&win, start, &mut dst).expect("fits");
            let mut out = vec![0u8; n];
            let dict = &data[done.saturating_sub(MAX_DISTANCE)..done];
            let got = decompress_with_dict_into(&dst[..size], &mut out, dict)
                .unwrap_or_else(|e| panic!("level {level}, block at {done}: {e}"));
            assert_eq!(
                &out[..got],
                &data[done..done + n],
                "level {level}, at {done}"
            );
            done += n;
            if win.len() > window {
                let shift = win.len() - MAX_DISTANCE;
                win.drain(..shift);
                c.rebase(shift);
            }
        }
    }

    #[test]
    fn linked_blocks_with_sliding_window() {
        let data = sample(600_000, 11);
        for level in [2, 3, 9, 10, 12] {
            stream(level, &data, 65_536, 3 * 65_536);
            stream(level, &data, 20_000, 100_000);
        }
    }

    #[test]
    fn history_is_used() {
        // The second half repeats the first: with it as history, the second
        // half costs little.
        let half = sample(50_000, 5);
        for level in [2, 4, 9, 11] {
            let alone = compress(&half, level).len();
            let with_history = crate::lz4::block::compress_with_dict(&half, &half, level).len();
            assert!(
                with_history * 10 < alone,
                "level {level}: {with_history} with history, {alone} without"
            );
        }
    }

    #[test]
    fn index_space_survives_renormalisation() {
        // Push the indices past the limit with many fresh blocks and big
        // rebases: output must stay identical to a fresh engine's.
        let data = sample(70_000, 9);
        let want = compress(&data, 9);
        let mut c = Compressor::new(9);
        let mut dst = vec![0u8; crate::lz4::block::max_compressed_size(data.len())];
        for round in 0..40 {
            c.rebase(1 << 26);
            let n = c.compress_block(&data, 0, &mut dst).expect("fits");
            assert_eq!(&dst[..n], &want[..], "round {round}");
        }
        if let Compressor::High(HcCompressor::Lazy(e)) = &mut c {
            assert!(e.finder.space().base <= BASE_LIMIT);
        } else {
            panic!("level 9 is a lazy engine");
        }
    }
}
