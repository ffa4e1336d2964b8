//! The sequence decoding tables (RFC 8878 section 3.1.1.3.2): literal
//! length, offset and match length codes, their predefined distributions,
//! and the tables built from FSE counts. The sequence loop
//! ([`super::exec`]) reads them; the block ([`super::block`]) fills them.

use super::fse::{self, Counts, MAX_SYMBOLS};
use std::sync::OnceLock;

/// One cell of a sequence decoding table: the symbol's baseline and extra
/// bits, and the state transition (8 bytes).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SeqCell {
    pub(crate) base: u32,
    pub(crate) add_bits: u8,
    pub(crate) nb_bits: u8,
    pub(crate) next: u16,
}

/// Cells of the largest sequence table (accuracy log 9): each field's
/// region of [`SeqTables`].
pub(crate) const SEQ_CELLS: usize = 512;

/// Cells of the three tables together.
pub(crate) const ALL_CELLS: usize = 3 * SEQ_CELLS;

/// The three sequence decoding tables in one allocation, literal lengths,
/// offsets and match lengths at cells 0, [`SEQ_CELLS`] and
/// `2 * SEQ_CELLS`, so the sequence loop holds one base pointer.
///
/// A cell's `next` is an index into the whole array (its region's offset
/// included), and every cell keeps `next + (1 << nb_bits) <= ALL_CELLS`
/// (enforced where cells are written: [`SeqTables::put`]). A state is
/// always a field's region offset plus at most `(1 << log) - 1`, or a
/// cell's `next` plus `nb_bits` bits, so it indexes the array without a
/// mask or a bounds check, whatever the input.
#[derive(Clone)]
pub(crate) struct SeqTables {
    cells: Box<[SeqCell; ALL_CELLS]>,
    /// Accuracy log per field (0 for RLE), in [`Field`] order.
    logs: [u32; 3],
}

impl std::fmt::Debug for SeqTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeqTables")
            .field("logs", &self.logs)
            .finish()
    }
}

impl Default for SeqTables {
    fn default() -> Self {
        let mut t = SeqTables {
            cells: Box::new([SeqCell::default(); ALL_CELLS]),
            logs: [0; 3],
        };
        // Each region's default cell stays in its region.
        for field in Field::ALL {
            t.put(field, 0, 0, 0, 0, 0);
        }
        t
    }
}

impl SeqTables {
    /// The cells, for the sequence loop (see the type's invariant).
    #[inline(always)]
    pub(crate) fn cells(&self) -> &[SeqCell; ALL_CELLS] {
        &self.cells
    }

    /// `field`'s accuracy log (the bits of its initial state).
    #[inline(always)]
    pub(crate) fn log(&self, field: Field) -> u32 {
        self.logs[field as usize]
    }

    /// Write cell `i` of `field`'s region; `next` is relative to the
    /// region. A cell whose transition would leave the region (never for
    /// a table built from valid counts) is stored as a transition to the
    /// region's first cell, which keeps the invariant.
    #[inline]
    fn put(&mut self, field: Field, i: usize, base: u32, add_bits: u8, nb_bits: u8, next: u16) {
        let region = field.region();
        let fits = nb_bits <= 9 && next as usize + (1usize << nb_bits) <= SEQ_CELLS;
        let (nb_bits, next) = if fits { (nb_bits, next) } else { (0, 0) };
        self.cells[region + (i & (SEQ_CELLS - 1))] = SeqCell {
            base,
            add_bits,
            nb_bits,
            next: (region + next as usize) as u16,
        };
    }

    /// `field`'s table from normalized counts.
    pub(super) fn build(&mut self, field: Field, counts: &Counts) -> Option<()> {
        let log = counts.accuracy_log;
        if log > field.max_log() {
            return None;
        }
        let mut symbols = [0u8; 512];
        let mut next = fse::spread(counts, &mut symbols)?;
        // Each symbol's code once, not once per cell.
        let mut codes = [(0u32, 0u8); MAX_SYMBOLS];
        for (s, code) in codes.iter_mut().enumerate().take(counts.symbols) {
            *code = field.code(s as u8);
        }
        for (i, &s) in symbols[..1usize << log].iter().enumerate() {
            let (nb_bits, base_state) = fse::transition(&mut next, s, log)?;
            let (base, add_bits) = codes[s as usize % MAX_SYMBOLS];
            self.put(field, i, base, add_bits, nb_bits, base_state);
        }
        self.logs[field as usize] = log;
        Some(())
    }

    /// `field`'s table as one symbol (RLE mode).
    pub(super) fn set_rle(&mut self, field: Field, symbol: u8) {
        let (base, add_bits) = field.code(symbol);
        self.put(field, 0, base, add_bits, 0, 0);
        self.logs[field as usize] = 0;
    }

    /// `field`'s predefined table (copied from one built once).
    pub(super) fn set_predefined(&mut self, field: Field) {
        self.copy_field(predefined(), field);
    }

    /// Copy `field`'s table (its used cells) from `other`.
    fn copy_field(&mut self, other: &SeqTables, field: Field) {
        let r = field.region();
        let n = 1usize << other.logs[field as usize];
        self.cells[r..r + n].copy_from_slice(&other.cells[r..r + n]);
        self.logs[field as usize] = other.logs[field as usize];
    }

    /// Copy the three tables (their used cells) from `other`.
    pub(super) fn set(&mut self, other: &SeqTables) {
        for field in Field::ALL {
            self.copy_field(other, field);
        }
    }
}

/// The predefined tables (RFC 8878 section 3.1.1.3.2.2), built once.
fn predefined() -> &'static SeqTables {
    static TABLES: OnceLock<SeqTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t = SeqTables::default();
        for (field, dist, log) in [
            (Field::LiteralLength, &LL_DEFAULT[..], 6),
            (Field::Offset, &OF_DEFAULT[..], 5),
            (Field::MatchLength, &ML_DEFAULT[..], 6),
        ] {
            let mut counts = Counts {
                counts: [0; MAX_SYMBOLS],
                symbols: dist.len(),
                accuracy_log: log,
            };
            counts.counts[..dist.len()].copy_from_slice(dist);
            t.build(field, &counts)
                .expect("the predefined distributions are valid");
        }
        t
    })
}

/// Which of the three sequence fields a table codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    LiteralLength,
    Offset,
    MatchLength,
}

/// Literal length codes 16..=35: (baseline, extra bits).
const LL_CODES: [(u32, u8); 20] = [
    (16, 1),
    (18, 1),
    (20, 1),
    (22, 1),
    (24, 2),
    (28, 2),
    (32, 3),
    (40, 3),
    (48, 4),
    (64, 6),
    (128, 7),
    (256, 8),
    (512, 9),
    (1024, 10),
    (2048, 11),
    (4096, 12),
    (8192, 13),
    (16384, 14),
    (32768, 15),
    (65536, 16),
];

/// Match length codes 32..=52: (baseline, extra bits).
const ML_CODES: [(u32, u8); 21] = [
    (35, 1),
    (37, 1),
    (39, 1),
    (41, 1),
    (43, 2),
    (47, 2),
    (51, 3),
    (59, 3),
    (67, 4),
    (83, 4),
    (99, 5),
    (131, 7),
    (259, 8),
    (515, 9),
    (1027, 10),
    (2051, 11),
    (4099, 12),
    (8195, 13),
    (16387, 14),
    (32771, 15),
    (65539, 16),
];

/// The predefined distributions (RFC 8878 section 3.1.1.3.2.2).
const LL_DEFAULT: [i16; 36] = [
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
    -1, -1, -1, -1,
];
const ML_DEFAULT: [i16; 53] = [
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
];
const OF_DEFAULT: [i16; 29] = [
    1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
];

impl Field {
    /// The three fields, in table order.
    pub(crate) const ALL: [Field; 3] = [Field::LiteralLength, Field::Offset, Field::MatchLength];

    /// The first cell of the field's region of [`SeqTables`].
    pub(crate) const fn region(self) -> usize {
        self as usize * SEQ_CELLS
    }

    /// Largest symbol (code).
    pub(super) const fn max_symbol(self) -> usize {
        match self {
            Field::LiteralLength => 35,
            Field::Offset => 31,
            Field::MatchLength => 52,
        }
    }

    /// Largest accuracy log of a described table.
    pub(super) const fn max_log(self) -> u32 {
        match self {
            Field::LiteralLength | Field::MatchLength => 9,
            Field::Offset => 8,
        }
    }

    /// The code's (baseline, extra bits).
    pub(super) fn code(self, symbol: u8) -> (u32, u8) {
        let s = symbol as usize;
        match self {
            Field::LiteralLength if s < 16 => (s as u32, 0),
            Field::LiteralLength => LL_CODES[(s - 16).min(19)],
            Field::MatchLength if s < 32 => (s as u32 + 3, 0),
            Field::MatchLength => ML_CODES[(s - 32).min(20)],
            Field::Offset => (1u32 << (s & 31), s as u8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Normalized counts for a table of `1 << log` cells over `symbols`
    /// symbols, some "less than one", from `weights`.
    fn counts(log: u32, weights: &[u8]) -> Counts {
        let size = 1i32 << log;
        let mut c = [0i16; MAX_SYMBOLS];
        let n = weights.len();
        let mut left = size;
        for (s, &w) in weights.iter().enumerate() {
            let rest = (n - s - 1) as i32;
            let v = match w % 4 {
                0 => 0,
                1 => -1,
                _ => (w as i32 % 7 + 1).min(left - rest),
            };
            let v = if v > 0 && left - v < rest { 0 } else { v };
            c[s] = v as i16;
            left -= v.abs();
        }
        // The last symbol takes what is left.
        c[n - 1] = left.max(1) as i16 + c[n - 1].max(0);
        let symbols = n;
        Counts {
            counts: c,
            symbols,
            accuracy_log: log,
        }
    }

    proptest! {
        /// Every built cell stays in its region and matches the generic
        /// FSE build, for any counts that fill the table.
        #[test]
        fn tables_keep_their_invariant(log in 5u32..=9, weights in prop::collection::vec(any::<u8>(), 2..36)) {
            let c = counts(log, &weights);
            let sum: i32 = c.counts[..c.symbols].iter().map(|&v| (v as i32).abs()).sum();
            prop_assume!(sum == 1 << log);
            for field in [Field::LiteralLength, Field::MatchLength] {
                let mut t = SeqTables::default();
                let built = t.build(field, &c);
                let mut reference = Vec::new();
                let generic = fse::build(&c, |i, symbol, nb_bits, next| {
                    reference.push((i, symbol, nb_bits, next));
                });
                prop_assert_eq!(built.is_some(), generic.is_some());
                if built.is_none() {
                    continue;
                }
                for (i, symbol, nb_bits, next) in reference {
                    let cell = t.cells()[field.region() + i];
                    let (base, add_bits) = field.code(symbol);
                    prop_assert_eq!(cell.base, base);
                    prop_assert_eq!(cell.add_bits, add_bits);
                    prop_assert_eq!(cell.nb_bits, nb_bits);
                    prop_assert_eq!(cell.next as usize, field.region() + next as usize);
                    prop_assert!(cell.next as usize + (1 << cell.nb_bits) <= field.region() + SEQ_CELLS);
                }
            }
        }
    }

    #[test]
    fn every_cell_of_every_table_stays_in_the_array() {
        let mut t = SeqTables::default();
        for field in Field::ALL {
            t.set_predefined(field);
        }
        t.set_rle(Field::Offset, 31);
        for cell in t.cells().iter() {
            assert!(cell.next as usize + (1usize << cell.nb_bits) <= ALL_CELLS);
        }
    }
}
