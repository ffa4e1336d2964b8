//! Timing the decoders on one input: contenders interleaved in a random
//! order every round, every decode checked against the original bytes.
//!
//! Why this shape (see `docs/benchmarking.md`): on a shared machine the
//! speed drifts while a run goes on, so no contender may get all its
//! samples in a quiet or a busy stretch. Each round runs every contender
//! once, in a freshly shuffled order, and the statistic (minimum or median)
//! is taken per contender over the rounds.
//!
//! How a sample decodes is its [`Sampling`]: by default the input over and
//! over into fresh copies of the output (after a warm-up), as the study
//! did; with `--hot` in passes back to back into one output, the best pass
//! counting, which is what a reader that decompresses a block into a
//! buffer and reads it at once sees; with `--cold` once, after other data
//! (see [`FLUSH_BYTES`]), which is what a scan over many columns sees.

use std::ops::Range;
use std::time::Instant;

use lzkit::lz4::block::{self, Decoder, Kernel, Variant, VariantStats};
use xxhash_rust::xxh64::xxh64;

use super::codec::{Blocks, Compressor, compress_blocks, ref_decompress};
use super::reference;
use super::rng::Rng;

/// One sample decodes the input at least this many bytes' worth (whole
/// passes): a 2 KiB column file decodes in well under a microsecond, which
/// the clock cannot time, while 1 MiB takes tens of microseconds even at
/// memcpy speed, so clock overhead stays below a thousandth.
pub const MIN_SAMPLE_BYTES: usize = 1 << 20;
/// Before each sample, a contender decodes at least this much output
/// untimed (the input's first blocks, or all of it). Contenders run in turn,
/// and a decoder whose branch predictor state the others evicted runs its
/// first blocks two to three times slower (measured on a 2-core Zen 5 VM:
/// 2.4x, 1.35x, 1.06x for its first three 64 KiB blocks). Without the
/// warm-up a sample measured that cold start, and a contender's result
/// depended on whether the one before it in the round shared its code:
/// the same variant ran at 5.4 or 6.9 GB/s from run to run.
pub const WARM_UP_BYTES: usize = 256 << 10;
/// Written over the output before every sample, so that a decoder that
/// skipped writing cannot pass the check with an earlier one's output.
pub const POISON: u8 = 0xA5;
/// What a `--cold` measurement decodes before every sample: enough other
/// data that the branch predictors no longer hold the input. Repeated
/// passes over an input of a few hundred KiB let them learn its branches by
/// heart, and a variant that branches on the data can run 1.5 times faster
/// on its sixth pass than on its first (weather.pressure.Float64, 204 KiB,
/// avx2-32m: 2.3 GB/s first, 4.7 GB/s sixth pass, on a Zen 5 VM); after 1
/// MiB of other data it is back to first-visit speed.
pub const FLUSH_BYTES: usize = 1 << 20;
/// A `--hot` sample decodes at least this much in passes back to back
/// (after its first pass), each pass timed on its own; the sample is the
/// best of them. Passes over the same input let the branch predictors
/// learn its sequences by heart, and that is the hot case's speed: on a
/// 745 KB column of a short match every 18 bytes, lz4's C decoder went
/// from 3.5 GB/s on its second pass to 7.5 GB/s from its twentieth (Zen 4
/// VM); a sample of 5 passes saw neither that nor lzkit's own steady
/// speed.
pub const HOT_SAMPLE_BYTES: usize = 32 << 20;
/// The fewest timed passes of a `--hot` sample, however large the input.
pub const HOT_MIN_PASSES: usize = 3;
/// A `--hot` pass decodes at least this much: inputs smaller than this are
/// decoded into as many copies as make it up (every copy checked), so that
/// one clock read times at least a few microseconds. Small enough to stay
/// in L2 with the input.
pub const HOT_PASS_BYTES: usize = 64 << 10;
/// x86 cores compare the low 12 address bits of a load with those of
/// earlier stores before the full address is known: the period of "4K
/// aliasing" (see [`output_buffer`]).
const ALIAS_PERIOD: usize = 4096;

/// A decoder (or the memcpy ceiling) being timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// lz4 1.10 `LZ4_decompress_safe` through `lz4-sys`: the baseline.
    Ref,
    /// `lz4_flex::block::decompress_into` (the crate's safe decoder).
    Lz4Flex,
    /// An lzkit decoder forced to one variant (`Decoder::with_variant`).
    Fixed(Variant),
    /// An adaptive lzkit decoder, one per input, learning over all rounds.
    Adapt,
    /// A new adaptive lzkit decoder for every pass over the input (each
    /// read of a file by a fresh decoder: nothing converges).
    Fresh,
    /// `lzkit::lz4::block::decompress_into`, the free function (no state).
    Free,
    /// Copying the decoded bytes block by block: the speed no decoder beats.
    Memcpy,
}

impl Contender {
    /// Every contender on this CPU, in the report's column order: the
    /// references first when they are built in ([`reference::BUILT_IN`]).
    pub fn all() -> Vec<Contender> {
        let mut all = match reference::BUILT_IN {
            true => vec![Contender::Ref, Contender::Lz4Flex],
            false => Vec::new(),
        };
        all.extend(Variant::available().iter().map(|&v| Contender::Fixed(v)));
        all.extend([
            Contender::Adapt,
            Contender::Fresh,
            Contender::Free,
            Contender::Memcpy,
        ]);
        all
    }

    /// Column name.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Ref => "ref",
            Contender::Lz4Flex => "lz4_flex",
            Contender::Fixed(v) => v.name(),
            Contender::Adapt => "adapt",
            Contender::Fresh => "fresh",
            Contender::Free => "free",
            Contender::Memcpy => "memcpy",
        }
    }
}

/// How a sample decodes the input (`docs/benchmarking.md`, "Hot and
/// interleaved measure different things").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// After a warm-up, passes into fresh copies of the output, at least
    /// [`MIN_SAMPLE_BYTES`] in all, under one clock: with the contenders
    /// taking turns, each decode starts from L3 or memory (the default).
    Passes,
    /// A pass over the input, then timed passes back to back
    /// ([`hot_passes`])
    /// into the same output, the best counting: the blocks and the output
    /// are in cache where they fit (`--hot`).
    Hot,
    /// One pass after [`FLUSH_BYTES`] of other data (`--cold`).
    Cold,
}

impl Sampling {
    /// Name in the report (the table's mode) and the JSON settings.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Passes => "interleaved",
            Sampling::Hot => "hot",
            Sampling::Cold => "cold",
        }
    }
}

/// Which statistic of the per-round times a speed reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    /// The fastest round: the one least disturbed by the neighbours.
    Min,
    /// The middle round: typical rather than best-case.
    Median,
}

impl Stat {
    /// Name on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Min => "min",
            Stat::Median => "median",
        }
    }

    /// The statistic of `samples` (not empty).
    fn of(self, samples: &mut [f64]) -> f64 {
        samples.sort_by(f64::total_cmp);
        match self {
            Stat::Min => samples[0],
            Stat::Median => {
                let mid = samples.len() / 2;
                if samples.len() % 2 == 1 {
                    samples[mid]
                } else {
                    (samples[mid - 1] + samples[mid]) / 2.0
                }
            }
        }
    }
}

/// How to measure.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Timed rounds (after one untimed warm-up round).
    pub rounds: u32,
    /// Statistic over the rounds.
    pub stat: Stat,
    /// Seed of this input's adaptive decoder.
    pub adapt_seed: u64,
    /// How a sample decodes ([`Sampling::Cold`] needs the other data, the
    /// `flush` argument of [`measure`]).
    pub sampling: Sampling,
    /// Testing hook (`LZKIT_BENCH_FAULT`): the contender whose output is
    /// corrupted after every sample, which verification must catch.
    pub fault: Option<Contender>,
}

/// What the adaptive decoder ended up with on one input.
#[derive(Debug, Clone)]
pub struct AdaptOutcome {
    /// The variant it started on: the data prior from its first block
    /// (see `Decoder::with_data_prior`).
    pub prior: Option<Variant>,
    /// `Decoder::preferred()`: the variant it believes fastest.
    pub preferred: Variant,
    /// `Decoder::last_variant()`: the variant of the last block.
    pub last: Variant,
    /// `Decoder::stats()`: per candidate variant, blocks decoded (pulls),
    /// blocks timed and mean time per byte.
    pub arms: Vec<VariantStats>,
}

/// The measurement of one input.
#[derive(Debug, Clone)]
pub struct Measured {
    /// GB/s (10^9 decoded bytes per second) per contender, in the order given.
    pub gbps: Vec<f64>,
    /// The adaptive decoder's choices, if it was among the contenders.
    pub adapt: Option<AdaptOutcome>,
}

/// The input being decoded: original bytes and their compressed blocks.
struct Work<'a> {
    original: &'a [u8],
    blocks: &'a Blocks,
}

/// How a contender decodes, with the state it keeps across rounds.
enum Engine {
    Ref,
    Lz4Flex,
    /// A fixed or adaptive lzkit decoder.
    Lzkit(Box<Decoder>),
    /// A new adaptive decoder (`Decoder::new()`) per pass.
    Fresh,
    Free,
    Memcpy,
}

/// A contender and its engine.
struct Runner {
    contender: Contender,
    engine: Engine,
    /// The variant an adaptive engine started on (its data prior).
    prior: Option<Variant>,
}

impl Runner {
    fn new(
        contender: Contender,
        adapt_seed: u64,
        first_block: (&[u8], usize),
    ) -> Result<Runner, String> {
        let prior = match contender {
            Contender::Adapt => Some(block::stream_guess(first_block.0, first_block.1)),
            _ => None,
        };
        let engine = match contender {
            Contender::Ref => Engine::Ref,
            Contender::Lz4Flex => Engine::Lz4Flex,
            Contender::Fixed(v) => Engine::Lzkit(Box::new(
                Decoder::with_variant(v).map_err(|e| e.to_string())?,
            )),
            // What Decoder::new() builds (starting on the variant a sample
            // of its first block suggests), with a seed of ours, so that
            // --seed repeats the bandit's random choices too.
            Contender::Adapt => {
                Engine::Lzkit(Box::new(Decoder::with_seed(adapt_seed).with_data_prior()))
            }
            Contender::Fresh => Engine::Fresh,
            Contender::Free => Engine::Free,
            Contender::Memcpy => Engine::Memcpy,
        };
        Ok(Runner {
            contender,
            engine,
            prior,
        })
    }

    /// Decode the first `blocks` blocks of `work` into `out` (the
    /// original's length). The `match` is outside the block loop, so each
    /// engine's loop is compiled for it alone.
    fn pass(&mut self, work: &Work, out: &mut [u8], blocks: usize) -> Result<(), String> {
        match &mut self.engine {
            Engine::Ref => decode_blocks(work, out, blocks, |src, dst| {
                ref_decompress(src, dst).ok_or_else(|| "LZ4_decompress_safe failed".to_string())
            }),
            Engine::Lz4Flex => decode_blocks(work, out, blocks, |src, dst| {
                reference::flex_decompress_into(src, dst)
            }),
            Engine::Lzkit(decoder) => decode_blocks(work, out, blocks, |src, dst| {
                decoder.decompress_into(src, dst).map_err(|e| e.to_string())
            }),
            Engine::Fresh => {
                let mut decoder = Decoder::new();
                decode_blocks(work, out, blocks, |src, dst| {
                    decoder.decompress_into(src, dst).map_err(|e| e.to_string())
                })
            }
            Engine::Free => decode_blocks(work, out, blocks, |src, dst| {
                block::decompress_into(src, dst).map_err(|e| e.to_string())
            }),
            Engine::Memcpy => {
                for b in work.blocks.blocks.iter().take(blocks) {
                    out[b.original.clone()].copy_from_slice(&work.original[b.original.clone()]);
                }
                Ok(())
            }
        }
    }

    /// The adaptive decoder's outcome, if this is the adaptive contender.
    fn adapt_outcome(&self) -> Option<AdaptOutcome> {
        match (&self.engine, self.contender) {
            (Engine::Lzkit(d), Contender::Adapt) => Some(AdaptOutcome {
                prior: self.prior,
                preferred: d.preferred(),
                last: d.last_variant(),
                arms: d.stats(),
            }),
            _ => None,
        }
    }
}

/// The first compressed block of `work` (empty if it has none).
fn first_block<'a>(work: &Work<'a>) -> (&'a [u8], usize) {
    work.blocks.blocks.first().map_or((&[][..], 0), |b| {
        (&work.blocks.data[b.compressed.clone()], b.original.len())
    })
}

/// Decode the first `blocks` blocks each into its place in `out` with
/// `decode`, which returns the decoded size; a block must decode to exactly
/// its original length.
#[inline(always)]
fn decode_blocks(
    work: &Work,
    out: &mut [u8],
    blocks: usize,
    mut decode: impl FnMut(&[u8], &mut [u8]) -> Result<usize, String>,
) -> Result<(), String> {
    for (i, b) in work.blocks.blocks.iter().enumerate().take(blocks) {
        let dst = &mut out[b.original.clone()];
        let n = decode(&work.blocks.data[b.compressed.clone()], dst)
            .map_err(|e| format!("block {i}: {e}"))?;
        if n != dst.len() {
            return Err(format!(
                "block {i}: decoded {n} bytes instead of {}",
                dst.len()
            ));
        }
    }
    Ok(())
}

/// Time `contenders` decoding `blocks` back into `original`. `order` shuffles
/// each round's order; `on_round` is called after every round (progress).
/// Fails, naming the contender and the place, on any decode error or any
/// output byte that differs from the original.
pub fn measure(
    original: &[u8],
    blocks: &Blocks,
    contenders: &[Contender],
    plan: Plan,
    mut flush: Option<&mut Flush>,
    order: &mut Rng,
    on_round: impl FnMut(),
) -> Result<Measured, String> {
    if original.is_empty() {
        return Err("nothing to decode: the input is empty".into());
    }
    let work = Work { original, blocks };
    let mut runners = contenders
        .iter()
        .map(|&c| Runner::new(c, plan.adapt_seed, first_block(&work)))
        .collect::<Result<Vec<_>, _>>()?;
    // Every pass of a sample decodes into its own copy of the output, so
    // that every decode is checked, not just a sample's last. A cold sample
    // is one pass; a hot one decodes its passes into the same copies.
    let copies = match (plan.sampling, &flush) {
        (Sampling::Cold, None) => return Err("a cold measurement needs other data".into()),
        (Sampling::Cold, Some(_)) => 1,
        (Sampling::Hot, _) => HOT_PASS_BYTES.div_ceil(original.len()),
        (Sampling::Passes, _) => passes_per_sample(original.len()),
    };
    let clock = clock_overhead();
    let digest = xxh64(original, 0);
    let (mut buffer, place) = output_buffer(copies * original.len(), original);
    let out = &mut buffer[place];
    let seconds = interleave(
        runners.len(),
        plan.rounds,
        plan.stat,
        order,
        on_round,
        |k| {
            let fault = plan.fault == Some(runners[k].contender);
            match (plan.sampling, flush.as_deref_mut()) {
                (Sampling::Cold, Some(flush)) => {
                    cold_sample(&mut runners[k], &work, out, flush, clock, fault)
                }
                (Sampling::Hot, _) => hot_sample(&mut runners[k], &work, out, digest, fault),
                _ => sample(&mut runners[k], &work, out, fault),
            }
        },
    )?;
    let gbps = seconds
        .iter()
        .map(|s| original.len() as f64 / s / 1e9)
        .collect();
    let adapt = runners.iter().find_map(Runner::adapt_outcome);
    Ok(Measured { gbps, adapt })
}

/// The method every mode shares: `contenders` contenders, one sample each
/// per round, in an order `order` shuffles afresh every round. Round 0
/// warms caches, page tables and branch predictors and checks every
/// contender once before anything is timed; it is not recorded. Then
/// `rounds` timed rounds; `on_round` is called after every round
/// (progress). `sample(k)` takes contender `k`'s sample and returns its
/// seconds (per pass), having verified its output: its first error ends
/// the measurement. Returns `stat` of each contender's seconds.
pub fn interleave(
    contenders: usize,
    rounds: u32,
    stat: Stat,
    order: &mut Rng,
    mut on_round: impl FnMut(),
    mut sample: impl FnMut(usize) -> Result<f64, String>,
) -> Result<Vec<f64>, String> {
    let mut samples = vec![Vec::with_capacity(rounds as usize); contenders];
    let mut sequence: Vec<usize> = (0..contenders).collect();
    for round in 0..=rounds {
        order.shuffle(&mut sequence);
        for &k in &sequence {
            let seconds = sample(k)?;
            if round > 0 {
                samples[k].push(seconds);
            }
        }
        on_round();
    }
    Ok(samples.iter_mut().map(|s| stat.of(s)).collect())
}

/// Passes of an input of `len` bytes that make one sample of at least
/// [`MIN_SAMPLE_BYTES`].
pub fn passes_per_sample(len: usize) -> usize {
    MIN_SAMPLE_BYTES.div_ceil(len.max(1))
}

/// One sample: warm the contender up (see [`WARM_UP_BYTES`]), poison
/// `out`, decode one copy of the input into each of its
/// `original.len()`-byte chunks under the clock, then check every copy.
/// Returns seconds per pass.
fn sample(runner: &mut Runner, work: &Work, out: &mut [u8], fault: bool) -> Result<f64, String> {
    let name = runner.contender.name();
    let len = work.original.len();
    let all = work.blocks.blocks.len();
    let warm_up = work
        .blocks
        .blocks
        .iter()
        .position(|b| b.original.end >= WARM_UP_BYTES)
        .map_or(all, |i| i + 1);
    runner
        .pass(work, &mut out[..len], warm_up)
        .map_err(|e| format!("{name}: {e}"))?;
    let seconds = timed_copies(runner, work, out)?;
    corrupt_if(fault, out);
    verify(out, work.original).map_err(|e| format!("{name}: {e}"))?;
    Ok(seconds)
}

/// Poison `out`, then decode one copy of the input into each of its
/// `original.len()`-byte chunks under one clock. Returns seconds per copy.
fn timed_copies(runner: &mut Runner, work: &Work, out: &mut [u8]) -> Result<f64, String> {
    let name = runner.contender.name();
    let len = work.original.len();
    let all = work.blocks.blocks.len();
    out.fill(POISON);
    let start = Instant::now();
    for copy in out.chunks_exact_mut(len) {
        runner
            .pass(work, copy, all)
            .map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(start.elapsed().as_secs_f64() / (out.len() / len) as f64)
}

/// One `--hot` sample: a pass over the input (its blocks and output then
/// in cache where they fit, the branch predictors trained), then
/// [`hot_passes`] passes back to back, each timed on its own, into the same
/// `out` (one or more copies of the input, [`HOT_PASS_BYTES`] at least).
/// Before every pass `out` is poisoned; after it, every copy is checked
/// against `digest` (the input's XXH64), which reads only the output and
/// leaves the input's blocks in cache. Returns the best pass's seconds per
/// copy.
fn hot_sample(
    runner: &mut Runner,
    work: &Work,
    out: &mut [u8],
    digest: u64,
    fault: bool,
) -> Result<f64, String> {
    let name = runner.contender.name();
    let len = work.original.len();
    let mut best = f64::INFINITY;
    for pass in 0..=hot_passes(out.len()) {
        let seconds = timed_copies(runner, work, out)?;
        corrupt_if(fault, out);
        if out.chunks_exact(len).any(|copy| xxh64(copy, 0) != digest) {
            verify(out, work.original).map_err(|e| format!("{name}: {e}"))?;
            return Err(format!("{name}: decoded bytes differ from the original"));
        }
        if pass > 0 {
            best = best.min(seconds);
        }
    }
    Ok(best)
}

/// Timed passes of a `--hot` sample that decodes `bytes` a pass: enough
/// for [`HOT_SAMPLE_BYTES`], at least [`HOT_MIN_PASSES`].
pub fn hot_passes(bytes: usize) -> usize {
    HOT_SAMPLE_BYTES.div_ceil(bytes.max(1)).max(HOT_MIN_PASSES)
}

/// One `--cold` sample: poison `out` (one copy of the input), decode
/// [`FLUSH_BYTES`] of other data, then decode the input once under the
/// clock and check it. Returns seconds, less the clock's own `clock`.
fn cold_sample(
    runner: &mut Runner,
    work: &Work,
    out: &mut [u8],
    flush: &mut Flush,
    clock: f64,
    fault: bool,
) -> Result<f64, String> {
    let name = runner.contender.name();
    out.fill(POISON);
    flush.run()?;
    let start = Instant::now();
    runner
        .pass(work, out, work.blocks.blocks.len())
        .map_err(|e| format!("{name}: {e}"))?;
    let seconds = start.elapsed().as_secs_f64() - clock;
    corrupt_if(fault, out);
    verify(out, work.original).map_err(|e| format!("{name}: {e}"))?;
    // A pass shorter than the clock's jitter still counts as a nanosecond.
    Ok(seconds.max(1e-9))
}

/// Testing hook: when `fault`, change the last output byte, as a decoder
/// that went wrong would.
fn corrupt_if(fault: bool, out: &mut [u8]) {
    if let (true, Some(last)) = (fault, out.last_mut()) {
        *last ^= 0x5A;
    }
}

/// The least time between two clock reads: what timing a single pass
/// adds to it (about 20 ns on a VM, a tenth of a 1 KiB input's decode).
fn clock_overhead() -> f64 {
    (0..100)
        .map(|_| Instant::now().elapsed().as_secs_f64())
        .fold(f64::INFINITY, f64::min)
}

/// Other data for `--cold` samples (see [`FLUSH_BYTES`]), with the decoder
/// that decodes it: a variant the adaptive decoder never chooses, so that
/// no contender's own code is warmed by it.
pub struct Flush {
    original: Vec<u8>,
    blocks: Blocks,
    decoder: Decoder,
    out: Vec<u8>,
}

impl Flush {
    /// Compress `data` (LZ4 level 1, 64 KiB blocks) for decoding before
    /// every cold sample.
    pub fn new(data: Vec<u8>) -> Result<Flush, String> {
        let blocks = compress_blocks(&data, 64 << 10, Compressor::Ref, 1)?;
        let decoder =
            Decoder::with_variant(Variant::plain(Kernel::Portable8)).map_err(|e| e.to_string())?;
        Ok(Flush {
            out: vec![0; data.len()],
            original: data,
            blocks,
            decoder,
        })
    }

    /// Decode the other data once (checked, so that a fault is not silent).
    fn run(&mut self) -> Result<(), String> {
        let work = Work {
            original: &self.original,
            blocks: &self.blocks,
        };
        let decoder = &mut self.decoder;
        decode_blocks(
            &work,
            &mut self.out,
            work.blocks.blocks.len(),
            |src, dst| decoder.decompress_into(src, dst).map_err(|e| e.to_string()),
        )
        .map_err(|e| format!("flush data: {e}"))
    }
}

/// A buffer with a `len`-byte range in it whose address is half a page
/// ([`ALIAS_PERIOD`]) away from `original`'s, modulo the page. Copying into
/// memory a few bytes ahead of the source modulo 4 KiB can run ten times
/// slower (loads falsely match earlier stores: "4K aliasing"), and where two
/// allocations land is up to the allocator: left to chance, one built-in
/// file in seventeen had a memcpy "ceiling" of 3 GB/s instead of 30.
fn output_buffer(len: usize, original: &[u8]) -> (Vec<u8>, Range<usize>) {
    let buffer = vec![0u8; len + ALIAS_PERIOD];
    let want = (original.as_ptr() as usize + ALIAS_PERIOD / 2) % ALIAS_PERIOD;
    let have = buffer.as_ptr() as usize % ALIAS_PERIOD;
    let start = (want + ALIAS_PERIOD - have) % ALIAS_PERIOD;
    (buffer, start..start + len)
}

/// Check that every copy in `out` equals `original`; on a mismatch, name the
/// first wrong byte's offset in the original.
pub fn verify(out: &[u8], original: &[u8]) -> Result<(), String> {
    for copy in out.chunks_exact(original.len()) {
        if copy != original {
            let at = copy
                .iter()
                .zip(original)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "decoded bytes differ from the original at offset {at}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 400 KB of u32 runs: 7 blocks of 64 KiB.
    fn runs_input() -> Vec<u8> {
        (0..100_000u32)
            .flat_map(|i| (i / 9).to_le_bytes())
            .collect()
    }

    /// Two rounds, adapt seed 5, no fault: the plan of the sampling tests.
    fn plan(stat: Stat, sampling: Sampling) -> Plan {
        Plan {
            rounds: 2,
            stat,
            adapt_seed: 5,
            sampling,
            fault: None,
        }
    }

    /// [`measure`] with a fixed round order and no progress callback.
    fn measure_quietly(
        original: &[u8],
        blocks: &Blocks,
        contenders: &[Contender],
        plan: Plan,
        flush: Option<&mut Flush>,
    ) -> Result<Measured, String> {
        measure(
            original,
            blocks,
            contenders,
            plan,
            flush,
            &mut Rng::new(1),
            || {},
        )
    }

    #[test]
    fn statistics() {
        assert_eq!(Stat::Min.of(&mut [3.0, 1.0, 2.0]), 1.0);
        assert_eq!(Stat::Median.of(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(Stat::Median.of(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn every_contender_measured_and_adapt_reported() {
        let original = runs_input();
        let blocks = compress_blocks(&original, 65_536, Compressor::Ref, 1).unwrap();
        let contenders = Contender::all();
        let plan = plan(Stat::Median, Sampling::Passes);
        let mut rounds = 0;
        let m = measure(
            &original,
            &blocks,
            &contenders,
            plan,
            None,
            &mut Rng::new(1),
            || rounds += 1,
        )
        .unwrap();
        assert_eq!(rounds, 3);
        assert_eq!(m.gbps.len(), contenders.len());
        assert!(m.gbps.iter().all(|g| g.is_finite() && *g > 0.0));
        let adapt = m.adapt.unwrap();
        let pulls: u64 = adapt.arms.iter().map(|a| a.blocks).sum();
        // 3 rounds of a warm-up over the 4 blocks that reach 256 KiB, then
        // `passes` passes over 7 blocks.
        let passes = MIN_SAMPLE_BYTES.div_ceil(original.len()) as u64;
        assert_eq!(WARM_UP_BYTES, 4 * 65_536);
        assert_eq!(pulls, 3 * (4 + passes * 7));
    }

    #[test]
    fn cold_samples_decode_the_input_once_after_the_flush_data() {
        let original = runs_input();
        let blocks = compress_blocks(&original, 65_536, Compressor::Ref, 1).unwrap();
        let other: Vec<u8> = (0..200_000u32).map(|i| (i % 251 / 7) as u8).collect();
        let mut flush = Flush::new(other).unwrap();
        let contenders = [Contender::Ref, Contender::Adapt, Contender::Memcpy];
        let plan = plan(Stat::Min, Sampling::Cold);
        let m = measure_quietly(&original, &blocks, &contenders, plan, Some(&mut flush)).unwrap();
        assert!(m.gbps.iter().all(|g| g.is_finite() && *g > 0.0));
        // No warm-up and one pass per sample: 3 rounds of 7 blocks.
        let pulls: u64 = m.adapt.unwrap().arms.iter().map(|a| a.blocks).sum();
        assert_eq!(pulls, 3 * 7);
        // Before each of the 9 samples, the flush decoder decoded its 4 blocks.
        assert_eq!(flush.decoder.stats()[0].blocks, 9 * 4);

        // A wrong decode is caught in a cold sample too.
        let mut other = original.clone();
        other[100] = 8;
        let wrong = compress_blocks(&other, 65_536, Compressor::Ref, 1).unwrap();
        let err = measure_quietly(&original, &wrong, &[Contender::Ref], plan, Some(&mut flush))
            .unwrap_err();
        assert!(err.contains("ref") && err.contains("offset 100"), "{err}");
    }

    #[test]
    fn hot_samples_pass_back_to_back_and_check_every_pass() {
        let original = runs_input();
        let blocks = compress_blocks(&original, 65_536, Compressor::Ref, 1).unwrap();
        let contenders = [Contender::Ref, Contender::Adapt, Contender::Memcpy];
        let plan = plan(Stat::Min, Sampling::Hot);
        let m = measure_quietly(&original, &blocks, &contenders, plan, None).unwrap();
        assert!(m.gbps.iter().all(|g| g.is_finite() && *g > 0.0));
        // 3 rounds of a first pass and the timed ones over 7 blocks.
        let pulls: u64 = m.adapt.unwrap().arms.iter().map(|a| a.blocks).sum();
        let passes = hot_passes(original.len()) as u64;
        assert_eq!(pulls, 3 * (1 + passes) * 7);
        assert!(passes * original.len() as u64 >= HOT_SAMPLE_BYTES as u64);
        assert_eq!(hot_passes(1 << 30), HOT_MIN_PASSES);

        // An input under HOT_PASS_BYTES: decoded into copies that make
        // it up, every one of them counted (one block each).
        let small = &original[..20_000];
        let one = compress_blocks(small, 65_536, Compressor::Ref, 1).unwrap();
        let m = measure_quietly(small, &one, &[Contender::Adapt], plan, None).unwrap();
        let pulls: u64 = m.adapt.unwrap().arms.iter().map(|a| a.blocks).sum();
        let copies = HOT_PASS_BYTES.div_ceil(small.len());
        let passes = hot_passes(copies * small.len()) as u64;
        assert_eq!(pulls, 3 * (1 + passes) * copies as u64);

        // A wrong decode is caught, and so is a later pass gone wrong.
        let mut other = original.clone();
        other[100] = 8;
        let wrong = compress_blocks(&other, 65_536, Compressor::Ref, 1).unwrap();
        let err = measure_quietly(&original, &wrong, &[Contender::Ref], plan, None).unwrap_err();
        assert!(err.contains("ref") && err.contains("offset 100"), "{err}");
        let hooked = Plan {
            fault: Some(Contender::Memcpy),
            ..plan
        };
        let err = measure_quietly(&original, &blocks, &contenders, hooked, None).unwrap_err();
        assert!(err.starts_with("memcpy:"), "{err}");
        // A cold plan without other data is refused, not measured warm.
        let cold = Plan {
            sampling: Sampling::Cold,
            ..plan
        };
        assert!(measure_quietly(&original, &blocks, &contenders, cold, None).is_err());
    }

    #[test]
    fn a_wrong_decode_is_caught() {
        let original = vec![7u8; 70_000];
        let mut blocks = compress_blocks(&original, 65_536, Compressor::Ref, 1).unwrap();
        // Swap the two blocks' compressed bytes: both still decode, but the
        // first now decodes the short block's bytes into the long block's place.
        blocks.blocks[0].compressed = blocks.blocks[1].compressed.clone();
        let plan = Plan {
            rounds: 1,
            stat: Stat::Min,
            adapt_seed: 0,
            sampling: Sampling::Passes,
            fault: None,
        };
        let err = measure_quietly(&original, &blocks, &[Contender::Ref], plan, None).unwrap_err();
        assert!(err.contains("ref: block 0"), "{err}");

        // Same length, wrong bytes: the byte check catches it.
        let mut other = original.clone();
        other[100] = 8;
        let good = compress_blocks(&other, 65_536, Compressor::Ref, 1).unwrap();
        let err = measure_quietly(
            &original,
            &good,
            &[Contender::Memcpy, Contender::Ref],
            plan,
            None,
        )
        .unwrap_err();
        assert!(err.contains("ref") && err.contains("offset 100"), "{err}");

        // The testing hook corrupts the named contender's output only.
        let blocks = compress_blocks(&original, 65_536, Compressor::Ref, 1).unwrap();
        let hooked = Plan {
            fault: Some(Contender::Memcpy),
            ..plan
        };
        let both = [Contender::Ref, Contender::Memcpy];
        let err = measure_quietly(&original, &blocks, &both, hooked, None).unwrap_err();
        assert!(err.starts_with("memcpy:"), "{err}");
        measure_quietly(&original, &blocks, &[Contender::Ref], hooked, None).unwrap();
    }
}
