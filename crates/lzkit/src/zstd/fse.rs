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

/// Spread the symbols of `counts` over the first `1 << accuracy_log`
/// entries of `symbols`, as the format prescribes; returns the first
/// state of each symbol (its count, 1 for a "less than one"
/// probability). `None` if the counts do not fill the table exactly.
pub(crate) fn spread(counts: &Counts, symbols: &mut [u8; 512]) -> Option<[u16; MAX_SYMBOLS]> {
    let log = counts.accuracy_log;
    if log > 9 {
        return None;
    }
    let size = 1usize << log;
    let mut next = [0u16; MAX_SYMBOLS];
    let mut high = size - 1;
    let cs = &counts.counts[..counts.symbols.min(MAX_SYMBOLS)];
    for (s, &c) in cs.iter().enumerate() {
        if c == -1 {
            symbols[high] = s as u8;
            high = high.wrapping_sub(1);
            next[s] = 1;
        } else {
            next[s] = c.max(0) as u16;
        }
    }
    let step = (size >> 1) + (size >> 3) + 3;
    let mask = size - 1;
    let mut position = 0usize;
    if high == size - 1 {
        // No "less than one" symbol: lay the symbols out in order, 8 at a
        // time, then visit the table's positions once each (the step is
        // odd, so it visits all of them and comes back to 0).
        let mut runs = [0u8; 512 + 8];
        let mut at = 0usize;
        for (s, &c) in cs.iter().enumerate() {
            let c = c.max(0) as usize;
            if at + c > size {
                return None;
            }
            let word = (s as u64).wrapping_mul(0x0101_0101_0101_0101).to_le_bytes();
            let mut k = 0;
            while k < c {
                runs[at + k..at + k + 8].copy_from_slice(&word);
                k += 8;
            }
            at += c;
        }
        if at != size {
            return None;
        }
        // Two positions at a time, `step` apart, each moving by twice
        // the step: two short dependency chains rather than one long one.
        // The table (a power of two of at least 32 cells) splits into
        // pairs, and the even and odd visits together are the visits of
        // one step.
        let step2 = (2 * step) & mask;
        let mut other = step & mask;
        for pair in runs[..size].chunks_exact(2) {
            symbols[position] = pair[0];
            symbols[other] = pair[1];
            position = (position + step2) & mask;
            other = (other + step2) & mask;
        }
        return Some(next);
    }
    for (s, &c) in cs.iter().enumerate() {
        for _ in 0..c.max(0) {
            symbols[position] = s as u8;
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
    Some(next)
}

/// Build the decoding table of `counts`: `fill(cell, symbol, nb_bits,
/// next_state_base)` is called once per cell, in order. `None` if the
/// counts do not fill the table exactly.
pub(crate) fn build(counts: &Counts, mut fill: impl FnMut(usize, u8, u8, u16)) -> Option<()> {
    let log = counts.accuracy_log;
    let size = 1usize << log;
    let mut symbols = [0u8; 512];
    let mut next = spread(counts, &mut symbols)?;
    for (cell, &s) in symbols[..size].iter().enumerate() {
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
