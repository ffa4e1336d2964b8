//! The sequence decoding tables (RFC 8878 section 3.1.1.3.2): literal
//! length, offset and match length codes, their predefined distributions,
//! and the tables built from FSE counts. The sequence loop
//! ([`super::exec`]) reads them; the block ([`super::block`]) fills them.

use super::fse::{self, Counts, MAX_SYMBOLS};
use std::sync::OnceLock;

/// One cell of a sequence decoding table: the symbol's baseline and extra
/// bits, and the state transition (8 bytes).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub(crate) struct SeqCell {
    pub(crate) base: u32,
    pub(crate) add_bits: u8,
    pub(crate) nb_bits: u8,
    pub(crate) next: u16,
}

/// Cells of the largest sequence table (accuracy log 9).
pub(crate) const SEQ_CELLS: usize = 512;

/// A sequence decoding table (literal lengths, offsets or match lengths).
#[derive(Clone)]
pub(crate) struct SeqTable {
    pub(crate) cells: Box<[SeqCell; SEQ_CELLS]>,
    pub(crate) log: u32,
}

impl std::fmt::Debug for SeqTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeqTable").field("log", &self.log).finish()
    }
}

impl Default for SeqTable {
    fn default() -> Self {
        SeqTable {
            cells: Box::new([SeqCell::default(); SEQ_CELLS]),
            log: 0,
        }
    }
}

impl SeqTable {
    /// Copy `other` into this table (only its used cells).
    pub(super) fn set(&mut self, other: &SeqTable) {
        let n = 1usize << other.log;
        self.cells[..n].copy_from_slice(&other.cells[..n]);
        self.log = other.log;
    }
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

    /// Build `table` from normalized counts.
    pub(super) fn build(self, counts: &Counts, table: &mut SeqTable) -> Option<()> {
        fse::build(counts, |i, symbol, nb_bits, next| {
            let (base, add_bits) = self.code(symbol);
            table.cells[i & (SEQ_CELLS - 1)] = SeqCell {
                base,
                add_bits,
                nb_bits,
                next,
            };
        })?;
        table.log = counts.accuracy_log;
        Some(())
    }

    /// The predefined table.
    pub(super) fn predefined(self) -> &'static SeqTable {
        static TABLES: OnceLock<[SeqTable; 3]> = OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            let make = |field: Field, dist: &[i16], log: u32| {
                let mut counts = Counts {
                    counts: [0; MAX_SYMBOLS],
                    symbols: dist.len(),
                    accuracy_log: log,
                };
                counts.counts[..dist.len()].copy_from_slice(dist);
                let mut t = SeqTable::default();
                field
                    .build(&counts, &mut t)
                    .expect("the predefined distributions are valid");
                t
            };
            [
                make(Field::LiteralLength, &LL_DEFAULT, 6),
                make(Field::Offset, &OF_DEFAULT, 5),
                make(Field::MatchLength, &ML_DEFAULT, 6),
            ]
        });
        &tables[self as usize]
    }
}
