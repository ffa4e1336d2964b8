//! The sequence decoding tables (RFC 8878 section 3.1.1.3.2): literal
//! length, offset and match length codes, their predefined distributions,
//! and the tables built from FSE counts. The sequence loop
//! ([`super::exec`]) reads them; the block ([`super::block`]) fills them.

use super::bits::with_bit_ops;
use super::fse::{self, Counts, MAX_SYMBOLS};
use std::sync::OnceLock;

/// One cell of a sequence decoding table: the symbol's baseline and extra
/// bits, and the state transition, in one word (`base | add_bits << 32 |
/// nb_bits << 40 | next << 48`), so a table is built with one store a
/// cell; the sequence loop reads the fields it needs from memory (loads
/// of one field each).
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(8))]
pub(crate) struct SeqCell([u8; 8]);

impl SeqCell {
    /// The code half of a cell's bits.
    #[inline(always)]
    const fn code_bits((base, add_bits): (u32, u8)) -> u64 {
        let add_bits = if add_bits < MAX_ADD_BITS {
            add_bits
        } else {
            MAX_ADD_BITS
        };
        base as u64 | (add_bits as u64) << 32
    }

    /// A cell from its word (see the type).
    #[inline(always)]
    fn from_bits(bits: u64) -> SeqCell {
        SeqCell(bits.to_le_bytes())
    }

    /// The symbol's baseline.
    #[inline(always)]
    pub(crate) fn base(&self) -> u32 {
        let b = &self.0;
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// The symbol's extra bits.
    #[inline(always)]
    pub(crate) fn add_bits(&self) -> u8 {
        self.0[4]
    }

    /// The bits of the next state.
    #[inline(always)]
    pub(crate) fn nb_bits(&self) -> u8 {
        self.0[5]
    }

    /// The next state's first cell (an index into [`SeqTables`]' array).
    #[inline(always)]
    pub(crate) fn next(&self) -> u16 {
        u16::from_le_bytes([self.0[6], self.0[7]])
    }
}

/// The most extra bits of any code (offset code 31). Every cell keeps its
/// `add_bits` at or below it ([`SeqCell::code_bits`], the only way cells
/// get them), which bounds the bits the sequence loop consumes between
/// two reloads.
pub(crate) const MAX_ADD_BITS: u8 = 31;

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
/// (enforced where cells are written: checked in [`SeqTables::put`], by
/// construction in [`SeqTables::build`]). A state is
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
        self.cells[region + (i & (SEQ_CELLS - 1))] = SeqCell::from_bits(
            SeqCell::code_bits((base, add_bits))
                | (nb_bits as u64) << 40
                | ((region + next as usize) as u64) << 48,
        );
    }

    /// `field`'s table from normalized counts.
    ///
    /// One pass over the cells in order, each written with one store:
    /// the symbol's code half (baseline and extra bits, looked up once per
    /// symbol) joined with the state transition. The spread puts each
    /// symbol in exactly as many cells as its count (or one for a "less
    /// than one" probability), so its states run from that count up to
    /// below twice it, and every transition lands inside the table;
    /// whatever the counts, clamping each symbol's first state keeps
    /// [`SeqTables`]' invariant with no check a cell (see the body).
    pub(super) fn build(&mut self, field: Field, counts: &Counts) -> Option<()> {
        with_bit_ops(
            #[inline(always)]
            || self.build_body(field, counts),
        )
    }

    #[inline(always)]
    fn build_body(&mut self, field: Field, counts: &Counts) -> Option<()> {
        let log = counts.accuracy_log;
        if log > field.max_log() {
            return None;
        }
        let mut order = [0u8; fse::ORDER_BYTES];
        let (first, stride) = fse::lay_out(counts, &mut order)?;
        // Per symbol (below 64: every field has fewer symbols, so a
        // symbol indexes these with a mask and no check): its next state;
        // its cell's code half is in the field's static table.
        let size = 1usize << log;
        // Every symbol's first state is in `1..=size` (clamped here, once
        // a symbol, rather than checked a cell), and the table has `size`
        // cells, so every state `x` a cell takes is in `1..2 * size`:
        // `highbit(x) <= log`, and the transition `next = (x << nb_bits)
        // - size` with `nb_bits = log - highbit(x)` has `next + (1 <<
        // nb_bits) = ((x + 1) << nb_bits) - size <= size`, which keeps
        // the invariant whatever the counts.
        let mut state = [1u16; 64];
        for (s, &f) in first.iter().enumerate().take(counts.symbols) {
            state[s & 63] = f.clamp(1, size as u16);
        }
        let code = field.code_bits();
        let region = field.region();
        // `region + next` in the cell's top bits, with `- size` folded in.
        let offset = (region as u64).wrapping_sub(size as u64);
        let mask = size - 1;
        let cells = &mut self.cells[region..region + size];
        let mut at = 0usize;
        for cell in cells.iter_mut() {
            let s = order[at & 511] as usize & 63;
            at = (at + stride) & mask;
            let x = state[s];
            state[s] = x.wrapping_add(1);
            let x = x as u32;
            let nb_bits = log - fse::highbit(x);
            let next = ((x as u64) << nb_bits).wrapping_add(offset);
            debug_assert!(next as usize + (1usize << nb_bits) <= region + SEQ_CELLS);
            let bits = code[s] | (nb_bits as u64) << 40 | next << 48;
            *cell = SeqCell::from_bits(bits);
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

    /// Every code's cell bits ([`SeqCell::code_bits`]), by symbol (64
    /// entries, zero past the field's last code).
    #[inline(always)]
    fn code_bits(self) -> &'static [u64; 64] {
        static CODE_BITS: [[u64; 64]; 3] = {
            let mut t = [[0u64; 64]; 3];
            let mut f = 0;
            while f < 3 {
                let field = Field::ALL[f];
                let mut s = 0;
                while s <= field.max_symbol() {
                    t[f][s] = SeqCell::code_bits(field.code(s as u8));
                    s += 1;
                }
                f += 1;
            }
            t
        };
        &CODE_BITS[self as usize]
    }

    /// The code's (baseline, extra bits).
    pub(super) const fn code(self, symbol: u8) -> (u32, u8) {
        let s = symbol as usize;
        match self {
            Field::LiteralLength if s < 16 => (s as u32, 0),
            Field::LiteralLength => LL_CODES[if s - 16 < 19 { s - 16 } else { 19 }],
            Field::MatchLength if s < 32 => (s as u32 + 3, 0),
            Field::MatchLength => ML_CODES[if s - 32 < 20 { s - 32 } else { 20 }],
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
                    prop_assert_eq!(cell.base(), base);
                    prop_assert_eq!(cell.add_bits(), add_bits);
                    prop_assert!(cell.add_bits() <= MAX_ADD_BITS);
                    prop_assert_eq!(cell.nb_bits(), nb_bits);
                    prop_assert_eq!(cell.next() as usize, field.region() + next as usize);
                    prop_assert!(cell.next() as usize + (1 << cell.nb_bits()) <= field.region() + SEQ_CELLS);
                }
            }
        }
    }

    proptest! {
        // Few such counts build (the spread rejects most): many cases.
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// Whatever the counts (valid ones with one of them moved
        /// anywhere, so the sum may be off), a table that builds keeps
        /// the invariant, with no overflow on the way (the build clamps
        /// first states rather than checking cells).
        #[test]
        fn any_counts_keep_the_invariant(
            log in 5u32..=9,
            weights in prop::collection::vec(any::<u8>(), 2..36),
            which in any::<prop::sample::Index>(),
            value in -1i16..=1024,
        ) {
            let mut c = counts(log, &weights);
            c.counts[which.index(c.symbols)] = value;
            for field in Field::ALL {
                let mut t = SeqTables::default();
                if t.build(field, &c).is_some() {
                    for cell in t.cells().iter() {
                        prop_assert!(cell.next() as usize + (1usize << cell.nb_bits()) <= ALL_CELLS);
                    }
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
            assert!(cell.add_bits() <= MAX_ADD_BITS);
            assert!(cell.next() as usize + (1usize << cell.nb_bits()) <= ALL_CELLS);
        }
    }
}
