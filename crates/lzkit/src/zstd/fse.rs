//! FSE (tANS) tables: reading a table description (RFC 8878 section
//! 4.1.1) and building the decoding table from normalized counts.

use super::bits::ForwardReader;

/// The most symbols any FSE table of the format has (match lengths: 53).
pub(crate) const MAX_SYMBOLS: usize = 53;

/// Normalized counts of one table: `-1` is a "less than one" probability.
pub(crate) struct Counts {
    pub(crate) counts: [i16; MAX_SYMBOLS],
    /// Symbols described (the last nonzero count's symbol + 1).
    pub(crate) symbols: usize,
    pub(crate) accuracy_log: u32,
}

/// Read a table description from the start of `src`: its counts and the
/// bytes it used. `None` if malformed: accuracy log above `max_log`, a
/// symbol above `max_symbol`, counts that do not add up, or a description
/// longer than `src`.
pub(crate) fn read_counts(src: &[u8], max_log: u32, max_symbol: usize) -> Option<(Counts, usize)> {
    let mut r = ForwardReader::new(src);
    let accuracy_log = r.peek(4) + 5;
    r.skip(4);
    if accuracy_log > max_log {
        return None;
    }
    let mut counts = [0i16; MAX_SYMBOLS];
    let mut remaining: i32 = (1 << accuracy_log) + 1;
    let mut threshold: i32 = 1 << accuracy_log;
    let mut nb_bits = accuracy_log + 1;
    let mut symbol = 0usize;
    let mut previous_zero = false;
    while remaining > 1 {
        if previous_zero {
            // Repeat flags: 2 bits each, 3 meaning "3 more, and go on".
            loop {
                let flag = r.peek(2);
                r.skip(2);
                symbol += flag as usize;
                if flag != 3 {
                    break;
                }
                if symbol > max_symbol {
                    return None;
                }
            }
            if symbol > max_symbol {
                return None;
            }
            if r.bytes_used() > src.len() {
                return None;
            }
        }
        if symbol > max_symbol {
            return None;
        }
        let max = 2 * threshold - 1 - remaining;
        let bits = r.peek(nb_bits) as i32;
        let mut count = if (bits & (threshold - 1)) < max {
            r.skip(nb_bits - 1);
            bits & (threshold - 1)
        } else {
            r.skip(nb_bits);
            let c = bits & (2 * threshold - 1);
            if c >= threshold { c - max } else { c }
        };
        count -= 1;
        remaining -= count.abs();
        counts[symbol] = count as i16;
        symbol += 1;
        previous_zero = count == 0;
        if remaining < 1 {
            return None;
        }
        while remaining < threshold {
            nb_bits -= 1;
            threshold >>= 1;
        }
    }
    if remaining != 1 {
        return None;
    }
    let used = r.bytes_used();
    if used > src.len() {
        return None;
    }
    Some((
        Counts {
            counts,
            symbols: symbol,
            accuracy_log,
        },
        used,
    ))
}

/// Bytes of a layout buffer: the largest table (512 cells) and the
/// 16-byte overhang of the runs' stores.
pub(crate) const ORDER_BYTES: usize = 512 + 16;

/// The inverse of the spread's step modulo `1 << log` (the step is odd),
/// per accuracy log: the spread puts the `k`-th symbol of the runs at cell
/// `k * step`, so cell `u` holds the run's symbol `u * inverse`.
const INVERSE_STEP: [u16; 10] = {
    let mut inv = [0u16; 10];
    let mut log = 5;
    while log <= 9 {
        let size = 1u32 << log;
        let step = (size >> 1) + (size >> 3) + 3;
        // Newton's iteration for an odd number's inverse modulo 2^32:
        // each round doubles the correct low bits (3, 6, 12, 24, 48).
        let mut x = step;
        let mut round = 0;
        while round < 4 {
            x = x.wrapping_mul(2u32.wrapping_sub(step.wrapping_mul(x)));
            round += 1;
        }
        inv[log] = (x & (size - 1)) as u16;
        log += 1;
    }
    inv
};

/// Where the symbols of `counts` go in a table of `1 << accuracy_log`
/// cells, as the format's spread puts them (RFC 8878 section 4.1.1),
/// written to `order` so that cell `u` holds symbol `order[(u * stride) &
/// (size - 1)]`; returns the first state of each symbol (its count, 1 for
/// a "less than one" probability) and `stride`. `None` if the counts do
/// not fill the table exactly.
///
/// Without "less than one" symbols the spread visits cells `0, step, 2 *
/// step, ...` and gives them the symbols in order, each repeated its
/// count times: `order` holds those runs, and `stride` is the step's
/// inverse, so no pass over the cells is needed here (the table's build
/// reads the runs in cell order). Otherwise `order` holds the spread
/// itself, and `stride` is 1.
pub(crate) fn lay_out(
    counts: &Counts,
    order: &mut [u8; ORDER_BYTES],
) -> Option<([u16; MAX_SYMBOLS], usize)> {
    let log = counts.accuracy_log;
    if !(5..=9).contains(&log) {
        return None;
    }
    let size = 1usize << log;
    let mut next = [0u16; MAX_SYMBOLS];
    let mut high = size - 1;
    let cs = &counts.counts[..counts.symbols.min(MAX_SYMBOLS)];
    for (s, &c) in cs.iter().enumerate() {
        if c == -1 {
            // More "less than one" symbols than cells (counts no table
            // description passes, but a claim all the same): refused
            // below, with no write past the table.
            if let Some(o) = order.get_mut(high) {
                *o = s as u8;
            }
            high = high.wrapping_sub(1);
            next[s] = 1;
        } else {
            next[s] = c.max(0) as u16;
        }
    }
    // `size` of them fill the table (`high` wraps to the largest value);
    // more wrap further.
    if high >= size && high != usize::MAX {
        return None;
    }
    if high == size - 1 {
        // The symbols in order, 16 bytes at a time: one store for most
        // symbols (the overhang of a run's last store is overwritten by
        // the next run, or lies past the table).
        let mut at = 0usize;
        for (s, &c) in cs.iter().enumerate() {
            let c = c.max(0) as usize;
            let end = at + c;
            if end > size {
                return None;
            }
            let word = [s as u8; 16];
            loop {
                // `at < end <= size <= 512` or `at == end <= 512`.
                if let Some(d) = order.get_mut(at..at + 16) {
                    d.copy_from_slice(&word);
                }
                at += 16;
                if at >= end {
                    break;
                }
            }
            at = end;
        }
        if at != size {
            return None;
        }
        return Some((next, INVERSE_STEP[log as usize] as usize));
    }
    let step = (size >> 1) + (size >> 3) + 3;
    let mask = size - 1;
    let mut position = 0usize;
    for (s, &c) in cs.iter().enumerate() {
        for _ in 0..c.max(0) {
            order[position] = s as u8;
            loop {
                position = (position + step) & mask;
                if position <= high || high >= size {
                    // `high >= size`: wrapped below 0 (every cell is a
                    // "less than one" symbol); never reached for valid counts.
                    break;
                }
            }
        }
    }
    if position != 0 {
        return None;
    }
    Some((next, 1))
}

/// Build the decoding table of `counts`: `fill(cell, symbol, nb_bits,
/// next_state_base)` is called once per cell, in order. `None` if the
/// counts do not fill the table exactly.
pub(crate) fn build(counts: &Counts, mut fill: impl FnMut(usize, u8, u8, u16)) -> Option<()> {
    let log = counts.accuracy_log;
    let size = 1usize << log;
    let mut order = [0u8; ORDER_BYTES];
    let (mut next, stride) = lay_out(counts, &mut order)?;
    let mut at = 0usize;
    for cell in 0..size {
        let s = order[at];
        at = (at + stride) & (size - 1);
        let (nb_bits, base) = transition(&mut next, s, log)?;
        fill(cell, s, nb_bits, base);
    }
    Some(())
}

/// The next transition of symbol `s` in a table of `1 << log` cells:
/// (state bits, next state base), from and advancing its state in
/// `next`. `None` for a symbol with no state (counts that do not match
/// the spread).
#[inline(always)]
pub(crate) fn transition(next: &mut [u16; MAX_SYMBOLS], s: u8, log: u32) -> Option<(u8, u16)> {
    let slot = next.get_mut(s as usize)?;
    let state = *slot;
    *slot = state.wrapping_add(1);
    if state == 0 {
        return None;
    }
    // state < 2 * size for valid counts, so highbit(state) <= log.
    let nb_bits = log.saturating_sub(highbit(state as u32));
    let base = ((state as u32) << nb_bits).wrapping_sub(1 << log) as u16;
    Some((nb_bits as u8, base))
}

/// `floor(log2(x))` for `x >= 1`.
#[inline]
pub(crate) fn highbit(x: u32) -> u32 {
    31 - x.leading_zeros()
}

/// One cell of a plain FSE table (Huffman weights).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Cell {
    pub(crate) symbol: u8,
    pub(crate) nb_bits: u8,
    pub(crate) base: u16,
}

/// A plain FSE decoding table of at most `1 << 6` cells (Huffman weights).
pub(crate) struct SmallTable {
    pub(crate) cells: [Cell; 64],
    pub(crate) log: u32,
}

impl SmallTable {
    /// The table of `counts` (accuracy log at most 6).
    pub(crate) fn new(counts: &Counts) -> Option<SmallTable> {
        let mut t = SmallTable {
            cells: [Cell::default(); 64],
            log: counts.accuracy_log,
        };
        build(counts, |i, symbol, nb_bits, base| {
            t.cells[i & 63] = Cell {
                symbol,
                nb_bits,
                base,
            }
        })?;
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The format's spread, written as RFC 8878 describes it: "less than
    /// one" symbols at the top, then every other symbol's cells visited
    /// `step` apart, skipping the top.
    fn reference_spread(counts: &Counts) -> Vec<u8> {
        let size = 1usize << counts.accuracy_log;
        let mut table = vec![0u8; size];
        let mut high = size - 1;
        for (s, &c) in counts.counts[..counts.symbols].iter().enumerate() {
            if c == -1 {
                table[high] = s as u8;
                high -= 1;
            }
        }
        let step = (size >> 1) + (size >> 3) + 3;
        let mut pos = 0;
        for (s, &c) in counts.counts[..counts.symbols].iter().enumerate() {
            for _ in 0..c.max(0) {
                table[pos] = s as u8;
                pos = (pos + step) & (size - 1);
                while pos > high {
                    pos = (pos + step) & (size - 1);
                }
            }
        }
        table
    }

    /// Counts filling a table of `1 << log` cells: `weights` pick each
    /// symbol's count (some "less than one" where `lows`), the last
    /// symbol takes what is left.
    fn counts(log: u32, weights: &[u16], lows: bool) -> Option<Counts> {
        let size = 1i32 << log;
        let mut counts = [0i16; MAX_SYMBOLS];
        let mut left = size;
        let n = weights.len();
        for (s, &w) in weights[..n - 1].iter().enumerate() {
            let c = if lows && w % 5 == 0 {
                -1
            } else {
                (w % 40) as i32
            };
            if c.abs() > left - 1 {
                break;
            }
            counts[s] = c as i16;
            left -= c.abs();
        }
        counts[n - 1] = left as i16;
        Some(Counts {
            counts,
            symbols: n,
            accuracy_log: log,
        })
    }

    proptest! {
        /// Cell `u` holds `order[(u * stride) & mask]`: the format's
        /// spread, with and without "less than one" symbols, for every
        /// table size.
        #[test]
        fn layout_is_the_spread(
            log in 5u32..=9,
            weights in prop::collection::vec(any::<u16>(), 2..MAX_SYMBOLS),
            lows in any::<bool>(),
        ) {
            let c = counts(log, &weights, lows).unwrap();
            let reference = reference_spread(&c);
            let mut order = [0u8; ORDER_BYTES];
            let (first, stride) = lay_out(&c, &mut order).expect("counts fill the table");
            let mask = (1usize << log) - 1;
            for (u, &s) in reference.iter().enumerate() {
                prop_assert_eq!(order[(u * stride) & mask], s, "cell {}", u);
            }
            for (s, &count) in c.counts[..c.symbols].iter().enumerate() {
                prop_assert_eq!(first[s], if count == -1 { 1 } else { count.max(0) as u16 });
            }
        }
    }

    #[test]
    fn inverse_steps_invert() {
        for (log, &inverse) in INVERSE_STEP.iter().enumerate().skip(5) {
            let size = 1usize << log;
            let step = (size >> 1) + (size >> 3) + 3;
            assert_eq!((step * inverse as usize) & (size - 1), 1);
        }
    }

    /// More "less than one" symbols than cells: refused, not a write past
    /// the table.
    #[test]
    fn more_lows_than_cells_are_refused() {
        let mut c = Counts {
            counts: [-1; MAX_SYMBOLS],
            symbols: 33,
            accuracy_log: 5,
        };
        let mut order = [0u8; ORDER_BYTES];
        assert!(lay_out(&c, &mut order).is_none());
        c.symbols = 32;
        assert!(lay_out(&c, &mut order).is_some());
    }

    #[test]
    fn counts_that_do_not_fill_are_refused() {
        let mut c = counts(6, &[7, 9, 11, 0], false).unwrap();
        let mut order = [0u8; ORDER_BYTES];
        assert!(lay_out(&c, &mut order).is_some());
        c.counts[0] += 1;
        assert!(lay_out(&c, &mut order).is_none());
        c.counts[0] -= 2;
        assert!(lay_out(&c, &mut order).is_none());
    }
}
