//! A first guess of the fastest decode [`Variant`] for a block, from a
//! sample of its sequences: what a stream's decoder starts on, and what the
//! free function uses for each block (it keeps no state between calls).
//!
//! Two features of the first sequences decide it, measured on the 64 KiB
//! blocks of the development corpus (level 1; a Zen 4/5 VM):
//! * the share of sequences **without literals**: over whole blocks, at 80%
//!   or more the `m` shape's match-only branch is predicted, and it was
//!   1.1-1.8 times the plain loop's speed on every such column but one;
//!   below it, mispredicted, it ran at 0.5-0.9 times the plain loop's speed
//!   on most files (executables and source text, at 23% and 66%, at
//!   0.65-0.8). A block's first sequences have more literals than the rest
//!   (no history to match yet), so a sample's threshold is lower: 70%.
//!   Applied to 256 sequences of each file's first block, it gave a
//!   geometric mean of 1.417 times C with the fixed variants it picked,
//!   against 1.387 at 80% (1.363 and 1.338 from 64 sequences), the same
//!   worst file (0.93), and no file on the wrong side by the whole-block
//!   share; 60% sent an executable's blocks to the `m` shape (0.78 times
//!   C).
//! * the **mean match length**: from 24 bytes on, the widest kernel (fewer
//!   chunks per match) was fastest on most files (up to 1.4 times the
//!   32-byte kernel on long-match strings); with short matches in the `m`
//!   shape the 16-byte kernel was 3-10% ahead of the wider ones; otherwise
//!   the 32-byte kernel.
//!
//! Sampling stops early on blocks made mostly of literals (which decode at
//! copy speed, where a long sample would cost more than it could win); the
//! `h` shape is never guessed: only a stream's own timings choose it.
//!
//! A decoder's data prior also bounds what it explores: from a sample of
//! at least 32 sequences, only its shape's family is tried (the `m` shape,
//! or the plain shape and the `h` one).
//! On executables and source text the `m` shape ran at 0.55-0.65 times C:
//! every block spent trying it cost a third or more of its time, and on
//! some runs the bandit settled on it (0.61 times C on Perl source at
//! level 9). With the other shape ruled out only where the sample was
//! clearest (under 60% or from 90% of literal-free sequences) 8 files of
//! the corpus decoded below 0.97 times C at level 1 with one decoder per
//! stream; ruled out always, 1 (geometric mean 1.377 against 1.375, at the
//! 80% threshold; at 70%, 1.40 with 2 files below 0.97).
//!
//! On an Intel Xeon (Emerald Rapids) the `m` shape was faster than the
//! plain one on 47 files of that corpus and slower on 21, hot, in a way
//! that repeated (per-file ratios of two runs correlated at 0.92), and on
//! some columns with few literal-free sequences it was 1.5-2 times the
//! plain speed (`small_range.UInt16`, `flights.distance.Int64`). No
//! feature of the sample separated those from the files where it lost
//! (source text, an executable, two float columns at 0.66-0.8): a rule
//! on the literal share gained 3-4% over the files and sent text to
//! 0.66 times C. So a plain prior also keeps one `m` variant, its own
//! kernel's, for the stream's timings to decide (`Decoder::new`): the
//! README's bench went from 1.37-1.39 to 1.49-1.52 times C (adapt), the
//! hot development corpus from 1.38-1.40 to 1.40-1.42, two runs each.

use super::variant::{DecodeFn, DictDecodeFn, Shape, Variant};
use std::sync::OnceLock;

/// How much of a block a sample reads at most.
#[derive(Debug, Clone, Copy)]
struct Budget {
    /// Sequences.
    sequences: usize,
    /// One sequence per this many bytes of the compressed block.
    input_per_sequence: usize,
    /// 1 / this of the block's output.
    output_share: usize,
    /// Literal bytes, as 1 / this of the compressed block; 0 for no cap.
    literal_share: usize,
}

impl Budget {
    /// A sample of `src`, to decode into `capacity` bytes, within this
    /// budget. Inlined where the budget is a constant, so its divisions
    /// compile to shifts, not `div`s.
    #[inline(always)]
    fn sample(self, src: &[u8], capacity: usize) -> Sample {
        let sequences = self.sequences.min(src.len() / self.input_per_sequence);
        let max_literals = match self.literal_share {
            0 => usize::MAX,
            share => src.len() / share,
        };
        Sample::within(src, sequences, capacity / self.output_share, max_literals)
    }
}

/// A stream's data prior, read once per stream: at most about 0.5 µs.
const STREAM_SAMPLE: Budget = Budget {
    sequences: 256,
    input_per_sequence: 16,
    output_share: 16,
    literal_share: 0,
};
/// The free function's sample of each block: about 0.1-0.2 µs at most, a
/// percent of a 64 KiB block's decode time. Reading a sequence costs about
/// half of decoding it where matches are long, and the first sequences of
/// a block are its densest (there is no history yet): on a 26 KiB block of
/// 140-byte matches on average (0.7 µs to decode), 64 sequences within
/// 1/32 of the output took 81 ns. The cap on sequences per compressed byte
/// keeps the sample at a few percent of any block's decode time.
///
/// The sample stops at literals of half the compressed block: such a block
/// decodes at copy speed whatever the variant, and on a small one the
/// sample's walk over its long literal lengths cost a fifth of the decode
/// (a 2.9 KiB block of three sequences in a 64 KiB buffer: 0.65-0.73 times
/// C's speed through the free function, 0.92 with a fixed variant).
const BLOCK_SAMPLE: Budget = Budget {
    sequences: 64,
    input_per_sequence: 64,
    output_share: 32,
    literal_share: 2,
};
/// The least output a block needs before the free function samples it:
/// below it the sample would cost a visible share of the decode, and the
/// default variant is used.
pub(crate) const BLOCK_SAMPLE_MIN_OUTPUT: usize = 16 << 10;

/// Sequences after which a sample made mostly of literals stops: the
/// first sequences of any block are literal-heavy (there is no history
/// yet to match), so the check waits for these and allows
/// [`LITERAL_SLACK`] literal bytes besides.
const LITERAL_CHECK_AFTER: u32 = 32;
/// Literal bytes a sample may hold beyond twice its match bytes and go on.
const LITERAL_SLACK: u64 = 1024;
/// The least share of literal-free sequences for the `m` shape (percent).
const MATCH_ONLY_PERCENT: u32 = 70;
/// The least sampled sequences for any guess but the default.
const MIN_SEQUENCES: u32 = 4;
/// The least sampled sequences for ruling a shape out of exploration.
const MIN_DECISIVE_SEQUENCES: u32 = 32;

/// What the first sequences of a block look like.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sample {
    /// Sequences read (the last, literal-only one not counted).
    pub sequences: u32,
    /// Of these, sequences without literals.
    pub no_literals: u32,
    /// Literal bytes of the sequences read.
    pub literal_bytes: u64,
    /// Match bytes of the sequences read.
    pub match_bytes: u64,
}

impl Sample {
    /// [`Sample::within`] with no cap on literals.
    #[cfg(test)]
    pub(crate) fn of(src: &[u8], max: usize, max_output: usize) -> Sample {
        Sample::within(src, max, max_output, usize::MAX)
    }

    /// Read up to `max` sequences of `src`, or up to `max_output` bytes of
    /// output, stopping quietly at its end, at anything malformed, before
    /// the sequence whose literals take the sample's past `max_literals`
    /// bytes, or early if literals dominate. Never reads outside `src`.
    fn within(src: &[u8], max: usize, max_output: usize, max_literals: usize) -> Sample {
        let mut s = Sample::default();
        let mut i = 0usize;
        let length = |i: &mut usize, mut n: usize| -> Option<usize> {
            if n == 15 {
                loop {
                    let b = *src.get(*i)?;
                    *i += 1;
                    n += b as usize;
                    if b != 255 {
                        break;
                    }
                }
            }
            Some(n)
        };
        while (s.sequences as usize) < max {
            let Some(&token) = src.get(i) else { break };
            i += 1;
            let Some(literals) = length(&mut i, (token >> 4) as usize) else {
                break;
            };
            if s.literal_bytes + literals as u64 > max_literals as u64 {
                break;
            }
            i = i.saturating_add(literals).saturating_add(2);
            if i > src.len() {
                break;
            }
            let Some(matched) = length(&mut i, (token & 15) as usize) else {
                break;
            };
            s.sequences += 1;
            s.no_literals += u32::from(literals == 0);
            s.literal_bytes += literals as u64;
            s.match_bytes += matched as u64 + 4;
            if s.literal_bytes + s.match_bytes >= max_output as u64 {
                break;
            }
            if s.sequences == LITERAL_CHECK_AFTER
                && s.literal_bytes > 2 * s.match_bytes + LITERAL_SLACK
            {
                break;
            }
        }
        s
    }

    /// Whether this sample has enough sequences for a stream to explore
    /// only the family of the shape it suggests (see [`same_family`]).
    fn decisive(&self) -> bool {
        self.sequences >= MIN_DECISIVE_SEQUENCES
    }

    /// The loop shape and copy width this sample suggests; `None` for too
    /// few sequences.
    fn class(&self) -> Option<(Shape, usize)> {
        if self.sequences < MIN_SEQUENCES {
            return None;
        }
        let match_only = self.no_literals * 100 >= self.sequences * MATCH_ONLY_PERCENT;
        let shape = if match_only {
            Shape::MatchOnly
        } else {
            Shape::Plain
        };
        let mean_match = self.match_bytes / u64::from(self.sequences);
        let width: usize = match (mean_match, match_only) {
            (24.., _) => 64,
            (..12, true) => 16,
            _ => 32,
        };
        Some((shape, width))
    }
}

/// The candidate of `shape` whose width is nearest `width` (by factors of
/// two; ties go to the narrower kernel), SIMD kernels before portable ones.
fn nearest(candidates: &[Variant], shape: Shape, width: usize) -> Option<Variant> {
    let of_shape = || candidates.iter().copied().filter(|v| v.shape() == shape);
    let simd = of_shape().any(|v| !v.is_portable());
    let distance = |v: Variant| (v.width().ilog2()).abs_diff(width.ilog2());
    of_shape()
        .filter(|v| !simd || !v.is_portable())
        .min_by_key(|&v| (distance(v), v.width()))
}

/// A guessable variant with its entry points.
pub(crate) type Choice = (Variant, DecodeFn, DictDecodeFn);

/// The variant (with its entry points) for every class a sample can have,
/// worked out once: indexed by shape (plain, match-only), then width (16,
/// 32, 64); the last entry is the default, for samples too small to tell.
fn table() -> &'static [Choice; 7] {
    static TABLE: OnceLock<[Choice; 7]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let with_entries = |v: Variant| Some((v, v.entry()?, v.dict_entry()?));
        let fallback = with_entries(Variant::default_for_cpu())
            .or_else(|| with_entries(Variant::plain(super::Kernel::Portable16)))
            .expect("the portable kernel runs on every CPU");
        let candidates = Variant::candidates();
        let mut t = [fallback; 7];
        for (i, shape) in [Shape::Plain, Shape::MatchOnly].into_iter().enumerate() {
            for (j, width) in [16, 32, 64].into_iter().enumerate() {
                t[i * 3 + j] = nearest(candidates, shape, width)
                    .and_then(with_entries)
                    .unwrap_or(fallback);
            }
        }
        t
    })
}

/// The variant the free function's sample of `src` (to decode into
/// `capacity` bytes) suggests among the adaptive decoder's candidates,
/// with its entry points.
pub(crate) fn choose(src: &[u8], capacity: usize) -> Choice {
    lookup(&BLOCK_SAMPLE.sample(src, capacity))
}

/// The candidate (with its entry points) for the class of `sample`: plain
/// or match-only, then width 16, 32 or 64; the default for a sample too
/// small to tell.
fn lookup(sample: &Sample) -> Choice {
    let t = table();
    match sample.class() {
        None => t[6],
        Some((shape, width)) => {
            let i = usize::from(shape == Shape::MatchOnly) * 3;
            t[i + (width.ilog2() as usize).saturating_sub(4).min(2)]
        }
    }
}

/// Whether two loop shapes are of one family: the match-only shape, or the
/// plain shape and its variation for medium matches.
pub(crate) fn same_family(a: Shape, b: Shape) -> bool {
    (a == Shape::MatchOnly) == (b == Shape::MatchOnly)
}

/// A stream's data prior from its block `src` (to decode into `capacity`
/// bytes): the variant to start on, and whether the sample was decisive
/// (the stream then explores only that variant's shape family).
pub(crate) fn data_prior(src: &[u8], capacity: usize) -> (Variant, bool) {
    let sample = STREAM_SAMPLE.sample(src, capacity);
    (lookup(&sample).0, sample.decisive())
}

/// The default variant's entry points, for blocks too small to sample.
pub(crate) fn default_choice() -> Choice {
    table()[6]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lz4::block::{Kernel, compress};

    /// The variant among `candidates` the sample `s` suggests; `fallback`
    /// where it suggests none or none matches (what [`table`] holds for
    /// the adaptive decoder's candidates).
    fn pick(s: &Sample, candidates: &[Variant], fallback: Variant) -> Variant {
        s.class()
            .and_then(|(shape, width)| nearest(candidates, shape, width))
            .unwrap_or(fallback)
    }

    /// A column of `n` little-endian u32 values `f(i)`.
    fn column(n: u32, f: impl Fn(u32) -> u32) -> Vec<u8> {
        (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
    }

    #[test]
    fn samples_count_what_the_block_holds() {
        // Literals only: no sequence with a match.
        assert_eq!(
            Sample::of(&compress(b"abc", 1), 100, usize::MAX).sequences,
            0
        );
        assert_eq!(Sample::of(&[], 100, usize::MAX), Sample::default());
        // A run: one long match after one literal.
        let run = compress(&[7u8; 5000], 1);
        let s = Sample::of(&run, 100, usize::MAX);
        assert_eq!(s.sequences, 1);
        assert_eq!(s.literal_bytes, 1);
        assert!(s.match_bytes > 4000, "{s:?}");
        // The cap is respected.
        let c = compress(&column(20_000, |i| (i / 3) * 7919 % 1000), 1);
        assert_eq!(Sample::of(&c, 5, usize::MAX).sequences, 5);
        // So is the cap on output.
        assert_eq!(Sample::of(&run, 100, 10).sequences, 1);
        assert!(Sample::of(&c, 1000, 40).sequences < 10);
    }

    #[test]
    fn the_free_functions_sample_stops_at_literals_of_half_the_block() {
        // Noise, then a run: one sequence whose literals are most of the
        // compressed block.
        let mut x = 7u64;
        let mut data: Vec<u8> = (0..1000)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (x >> 56) as u8
            })
            .collect();
        data.extend_from_slice(&[7u8; 5000]);
        let c = compress(&data, 1);
        assert_eq!(Sample::of(&c, 100, usize::MAX).sequences, 1);
        assert_eq!(
            Sample::within(&c, 100, usize::MAX, c.len() / 2).sequences,
            0
        );
        assert_eq!(BLOCK_SAMPLE.sample(&c, 64 << 10).sequences, 0);
        // The stream's prior has no such cap.
        assert_eq!(STREAM_SAMPLE.sample(&c, 64 << 10).sequences, 1);
    }

    #[test]
    fn malformed_input_stops_the_sample_quietly() {
        for src in [
            &[0xF0][..],
            &[0xFF, 255, 255],
            &[0x10, 1],
            &[0x0F, 0, 0, 255],
        ] {
            let s = Sample::of(src, 100, usize::MAX);
            assert!(s.sequences <= 1, "{src:?}: {s:?}");
        }
        // Every prefix of a real block.
        let c = compress(&column(4000, |i| i * i % 977), 1);
        for n in 0..c.len() {
            let s = Sample::of(&c[..n], 1000, usize::MAX);
            assert!(s.sequences as usize <= n / 3 + 1);
        }
    }

    #[test]
    fn literal_heavy_blocks_stop_early_and_keep_the_plain_shape() {
        let mut x = 1u64;
        let noisy: Vec<u8> = (0..60_000)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                if i % 200 < 10 { b'a' } else { (x >> 56) as u8 }
            })
            .collect();
        let s = Sample::of(&compress(&noisy, 1), 1000, usize::MAX);
        assert!(s.sequences <= LITERAL_CHECK_AFTER, "{s:?}");
        let v = pick(&s, Variant::candidates(), Variant::default_for_cpu());
        assert_eq!(v.shape(), Shape::Plain);
    }

    #[test]
    fn picks_follow_the_features() {
        let portable = [
            Variant::plain(Kernel::Portable16),
            Variant::plain(Kernel::Portable64),
            Variant::new(Kernel::Portable8, Shape::MatchOnly),
            Variant::new(Kernel::Portable16, Shape::MatchOnly),
        ];
        let fallback = Variant::plain(Kernel::Portable16);
        let sample = |sequences, no_literals, match_bytes| Sample {
            sequences,
            no_literals,
            literal_bytes: 10,
            match_bytes,
        };
        // Too few sequences: the fallback.
        assert_eq!(pick(&sample(3, 3, 30), &portable, fallback), fallback);
        // Mostly match-only, short matches: the 16-byte m kernel.
        assert_eq!(
            pick(&sample(100, 90, 600), &portable, fallback),
            Variant::new(Kernel::Portable16, Shape::MatchOnly)
        );
        assert_eq!(
            pick(&sample(100, 90, 600), &[portable[2]], fallback),
            portable[2]
        );
        // Mixed: plain; long matches: the widest.
        assert_eq!(
            pick(&sample(100, 50, 600), &portable, fallback),
            Variant::plain(Kernel::Portable16)
        );
        assert_eq!(
            pick(&sample(100, 50, 6000), &portable, fallback),
            Variant::plain(Kernel::Portable64)
        );
        // Nothing of the wanted shape: the fallback.
        assert_eq!(
            pick(&sample(100, 90, 600), &portable[..2], fallback),
            fallback
        );
        // SIMD kernels are preferred to portable ones where both exist.
        let simd = Variant::candidates();
        let v = pick(&sample(100, 50, 600), simd, Variant::default_for_cpu());
        assert!(simd.contains(&v));
        if simd.iter().any(|v| !v.is_portable()) {
            assert!(!v.is_portable(), "{v:?}");
        }
    }

    #[test]
    fn decisive_samples_and_families() {
        let sample = |sequences| Sample {
            sequences,
            no_literals: 0,
            literal_bytes: 10,
            match_bytes: 10 * u64::from(sequences),
        };
        assert!(sample(32).decisive());
        assert!(!sample(31).decisive());
        assert!(same_family(Shape::Plain, Shape::Medium));
        assert!(same_family(Shape::MatchOnly, Shape::MatchOnly));
        assert!(!same_family(Shape::MatchOnly, Shape::Plain));
        assert!(!same_family(Shape::Medium, Shape::MatchOnly));
    }

    #[test]
    fn guesses_on_columns() {
        // Integers that repeat with a stride: mostly match-only sequences.
        let repeating = compress(&column(16_000, |i| (i / 4) % 50 * 1_000_003), 1);
        let s = Sample::of(&repeating, STREAM_SAMPLE.sequences, usize::MAX);
        assert!(s.sequences >= MIN_SEQUENCES, "{s:?}");
        let v = data_prior(&repeating, 64_000).0;
        assert!(Variant::candidates().contains(&v) || v == Variant::default_for_cpu());
    }
}
