//! Deterministic test data. Every generator is a pure function of its
//! arguments, drawn from [`Rng`]:
//!
//! * named [`Shape`]s: random, runs, periodic patterns, text, low-entropy,
//!   mixtures with copies around the 64 KiB window edge, and repeats that
//!   end at the block-end limits; plus the sizes that matter to the formats;
//! * [`Kind`]s that stress the compression engines ([`generate_kind`]);
//! * [`decoder_shapes`], which reach every copy path of the block decoders;
//! * [`prose_with_noise`], the command-line tests' files.
//!
//! The column-like files of the bench corpus are in [`crate::corpus`].

use crate::rng::Rng;

/// Uniformly random bytes: incompressible.
pub fn random(n: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; n];
    Rng::for_data(seed).fill(&mut v);
    v
}

/// `n` copies of one byte.
pub fn run(n: usize, byte: u8) -> Vec<u8> {
    vec![byte; n]
}

/// A random pattern of `period` bytes repeated: matches at offset `period`
/// (overlapping copies for offsets < 8 or < 16 stress wild-copy decoders).
pub fn periodic(n: usize, period: usize, seed: u64) -> Vec<u8> {
    assert!(period > 0);
    let pat = random(period, seed);
    (0..n).map(|i| pat[i % period]).collect()
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "compression",
    "block",
    "frame",
    "literal",
    "match",
    "offset",
    "dictionary",
    "checksum",
    "stream",
    "buffer",
    "decoder",
    "encoder",
    "sequence",
    "token",
    "length",
    "window",
    "history",
];

/// Text-like data: words, punctuation, line breaks and numbers.
pub fn text(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::for_data(seed);
    let mut v = Vec::with_capacity(n + 32);
    while v.len() < n {
        let w = WORDS[r.index(WORDS.len())];
        if r.odds(1, 12) {
            let mut cap = w.as_bytes().to_vec();
            cap[0] = cap[0].to_ascii_uppercase();
            v.extend_from_slice(&cap);
        } else {
            v.extend_from_slice(w.as_bytes());
        }
        match r.index(20) {
            0 => v.extend_from_slice(b", "),
            1 => v.extend_from_slice(b".\n"),
            2 => v.extend_from_slice(format!(" {} ", r.next_u64() % 100_000).as_bytes()),
            _ => v.push(b' '),
        }
    }
    v.truncate(n);
    v
}

/// Bytes drawn from a 4-letter alphabet: many short, overlapping matches.
pub fn low_entropy(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::for_data(seed);
    (0..n).map(|_| b"ACGT"[r.index(4)]).collect()
}

/// A mixture of segments of every shape, plus copies of earlier data at
/// distances around the 64 KiB window edge.
pub fn mixed(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::for_data(seed);
    let mut v: Vec<u8> = Vec::with_capacity(n + 70_000);
    while v.len() < n {
        let len = r.range(1, 1 + (n / 4).clamp(16, 40_000));
        let s = r.next_u64();
        match r.index(8) {
            0 => v.extend(random(len, s)),
            1 => v.extend(run(len, r.byte())),
            2 => v.extend(periodic(len, r.range(1, 16), s)),
            3 | 4 => v.extend(text(len, s)),
            5 => v.extend(low_entropy(len, s)),
            _ => {
                // Copy from the past, sometimes right at or past the window edge.
                if v.is_empty() {
                    continue;
                }
                let dist = match r.index(4) {
                    0 => r.range(1, v.len().min(16)),
                    1 => r.range(1, v.len()),
                    _ => {
                        let d = 65_535 + r.range(0, 3) - 1; // 65534..=65536
                        if d > v.len() { v.len() } else { d }
                    }
                };
                let start = v.len() - dist;
                for i in 0..len {
                    let b = v[start + i];
                    v.push(b);
                }
            }
        }
    }
    v.truncate(n);
    v
}

/// Random data with long repeats ending exactly at each position in `ends`
/// (each repeat copies the 40 bytes that lie 100 bytes earlier), so a
/// compressor finds a match that ends precisely there.
pub fn repeats_ending_at(n: usize, ends: &[usize], seed: u64) -> Vec<u8> {
    let mut v = random(n, seed);
    for &e in ends {
        if e <= n && e >= 140 {
            let (dst, len) = (e - 40, 40);
            v.copy_within(dst - 100..dst - 100 + len, dst);
        }
    }
    v
}

/// Ends of matches that stress the end-of-block rules of a block of `n`
/// bytes: the very end, LAST_LITERALS and MF_LIMIT and their neighbours.
pub fn tail_ends(n: usize) -> Vec<usize> {
    [0usize, 1, 4, 5, 6, 7, 11, 12, 13]
        .iter()
        .filter_map(|&d| n.checked_sub(d))
        .collect()
}

/// A named shape, for proptest strategies.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    Random,
    Run(u8),
    Periodic(usize),
    Text,
    LowEntropy,
    Mixed,
    /// Matches ending at the block's tail (see [`tail_ends`]).
    Tail,
}

pub fn generate(shape: Shape, n: usize, seed: u64) -> Vec<u8> {
    match shape {
        Shape::Random => random(n, seed),
        Shape::Run(b) => run(n, b),
        Shape::Periodic(p) => periodic(n, p, seed),
        Shape::Text => text(n, seed),
        Shape::LowEntropy => low_entropy(n, seed),
        Shape::Mixed => mixed(n, seed),
        Shape::Tail => repeats_ending_at(n, &tail_ends(n), seed),
    }
}

pub fn shape_strategy() -> impl proptest::strategy::Strategy<Value = Shape> {
    use proptest::prelude::*;
    prop_oneof![
        2 => Just(Shape::Random),
        1 => any::<u8>().prop_map(Shape::Run),
        2 => (1usize..=16).prop_map(Shape::Periodic),
        2 => Just(Shape::Text),
        1 => Just(Shape::LowEntropy),
        3 => Just(Shape::Mixed),
        2 => Just(Shape::Tail),
    ]
}

/// Sizes that matter to the formats: tiny, around MF_LIMIT, around 64 KiB.
pub fn interesting_small_sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=40).collect();
    for base in [255usize, 256, 4096, 65_535, 65_536] {
        for d in [-2i64, -1, 0, 1, 2] {
            v.push((base as i64 + d) as usize);
        }
    }
    v.sort();
    v.dedup();
    v
}

// ---------------------------------------------------------------------------
// Kinds that stress the compression engines (the HC tests' data).
// ---------------------------------------------------------------------------

/// Kinds of data that each stress a different part of the compressors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Runs of one byte value (run analysis, long matches at offset 1).
    Runs,
    /// A pattern of period 1..=16 with rare changes (short offsets).
    Periodic,
    /// Words from a small vocabulary (many short, overlapping matches).
    Text,
    /// Uniform random bytes (no matches: literal runs, skipping).
    Random,
    /// Slowly changing little-endian integers, like a database column.
    Column,
    /// Segments of all the others.
    Mixed,
}

/// Every [`Kind`], [`Kind::Mixed`] last.
pub const KINDS: [Kind; 6] = [
    Kind::Runs,
    Kind::Periodic,
    Kind::Text,
    Kind::Random,
    Kind::Column,
    Kind::Mixed,
];

/// Mixed into the seed of [`generate_kind`]'s generator (the stream these
/// data were first drawn from).
const KIND_SALT: u64 = 0x6863_5F74_6573_7473;

/// `len` bytes of `kind`, fixed by `seed`.
pub fn generate_kind(kind: Kind, len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ KIND_SALT);
    let mut out = Vec::with_capacity(len + 64);
    match kind {
        Kind::Runs => {
            while out.len() < len {
                let b = if rng.index(4) == 0 { rng.byte() } else { 0 };
                let max = if rng.index(8) == 0 { 5000 } else { 40 };
                let n = 1 + rng.index(max);
                out.extend(std::iter::repeat_n(b, n));
            }
        }
        Kind::Periodic => {
            let period = 1 + rng.index(16);
            let mut pattern: Vec<u8> = (0..period).map(|_| rng.byte()).collect();
            while out.len() < len {
                if rng.index(500) == 0 {
                    let i = rng.index(period);
                    pattern[i] = rng.byte();
                }
                out.extend_from_slice(&pattern);
            }
        }
        Kind::Text => {
            let words: Vec<Vec<u8>> = (0..300)
                .map(|_| {
                    let n = 2 + rng.index(9);
                    (0..n).map(|_| b'a' + rng.index(26) as u8).collect()
                })
                .collect();
            while out.len() < len {
                out.extend_from_slice(&words[rng.index(words.len())]);
                out.push(match rng.index(12) {
                    0 => b'.',
                    1 => b'\n',
                    _ => b' ',
                });
            }
        }
        Kind::Random => {
            out.extend((0..len).map(|_| rng.byte()));
        }
        Kind::Column => {
            let mut v: u32 = rng.next_u64() as u32 >> 8;
            while out.len() < len {
                if rng.index(3) == 0 {
                    v = v.wrapping_add(rng.index(300) as u32);
                }
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        Kind::Mixed => {
            while out.len() < len {
                let k = KINDS[rng.index(KINDS.len() - 1)];
                let n = 1 + rng.index(20_000);
                out.extend(generate_kind(k, n, rng.next_u64()));
            }
        }
    }
    out.truncate(len);
    out
}

// ---------------------------------------------------------------------------
// Inputs for the decoder variants.
// ---------------------------------------------------------------------------

/// Inputs that exercise every copy path of the block decoders: runs
/// (offset 1), short periods 2..=70 (pattern fills below and above each
/// copy width), long matches, literal runs of every length around chunk
/// sizes, integer columns of every width, random and text-like data, and
/// sizes around the block-end margins.
pub fn decoder_shapes() -> Vec<Vec<u8>> {
    let mut r = Rng::for_data(0x1234_5678);
    let mut out = Vec::new();
    for period in 1..=70usize {
        let pat: Vec<u8> = (0..period).map(|_| r.byte()).collect();
        let mut v = Vec::new();
        while v.len() < 3000 + period * 17 {
            // Alternate pattern stretches with literal runs of varying length.
            let run = r.index(300);
            v.extend(pat.iter().cycle().take(run));
            let lits = r.index(40);
            v.extend((0..lits).map(|_| r.byte()));
        }
        out.push(v);
    }
    // Integer-column-like data: small values in wide little-endian ints.
    for width in [1usize, 2, 4, 8] {
        let mut v = Vec::new();
        let mut val = 0u64;
        for i in 0..40_000 {
            if i % 97 == 0 {
                val = r.index(50) as u64;
            }
            v.extend_from_slice(&val.to_le_bytes()[..width]);
        }
        out.push(v);
    }
    // Random (incompressible) and text-like.
    out.push(random(100_000, r.next_u64()));
    let words = [
        "lz4 ", "block ", "decoder ", "variant ", "a ", "the ", "pattern ", "\n",
    ];
    out.push(
        (0..20_000)
            .flat_map(|_| words[r.index(words.len())].bytes())
            .collect(),
    );
    // Sizes around the margins.
    for n in [
        0usize, 1, 4, 5, 12, 13, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200,
    ] {
        out.push((0..n).map(|i| (i % 3) as u8).collect());
    }
    out
}

// ---------------------------------------------------------------------------
// Prose with noise (the command-line tests' data).
// ---------------------------------------------------------------------------

/// Words, numbers, line breaks and short runs of random bytes: compresses
/// to about half, but not trivially.
pub fn prose_with_noise(len: usize, seed: u64) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "lorem",
        "ipsum",
        "frame",
        "block",
        "match",
        "offset",
        "literal",
        "token",
        "checksum",
        "dictionary",
        "window",
        "header",
        "stream",
        "the",
        "of",
        "and",
        "compression",
        "lz4",
    ];
    let mut r = Rng::for_data(seed);
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        match r.index(16) {
            0 => {
                // A run of random bytes: an incompressible stretch.
                for _ in 0..r.index(64) {
                    out.push(r.byte());
                }
            }
            1 => out.extend_from_slice(format!("{} ", r.index(100_000)).as_bytes()),
            2 => out.push(b'\n'),
            _ => {
                out.extend_from_slice(WORDS[r.index(WORDS.len())].as_bytes());
                out.push(b' ');
            }
        }
    }
    out.truncate(len);
    out
}
