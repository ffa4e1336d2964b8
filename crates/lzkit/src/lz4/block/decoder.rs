//! [`Decoder`]: a block decoder that chooses its variant at run time.

use super::decompress::Decoded;
use super::variant::{DecodeFn, Variant};
use crate::bandit::{ArmStats, Bandit};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU32, Ordering};

/// The least output one timing covers: the clock's resolution and call
/// overhead (~20-50 ns) would swamp a shorter measurement. ClickHouse times
/// only blocks of 32 KiB or more; at 16 KiB a block still takes several
/// microseconds on the fastest variant. Smaller blocks are timed in
/// *batches*: consecutive blocks decoded by the same variant, each timed
/// on its own (what the caller does between blocks is not counted), until
/// they add up to this much output, so streams of small blocks learn too.
pub const MIN_TIMED_BYTES: usize = 16 << 10;

/// How a [`Decoder`] picks its variant for each block.
#[derive(Debug, Clone)]
enum Mode {
    /// Thompson sampling over the available variants.
    Adaptive(Bandit),
    /// Always the same variant.
    Fixed,
    /// Each variant in turn (benchmarks and tests).
    RoundRobin(usize),
}

/// What a [`Decoder`] has learned about one variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariantStats {
    /// The variant.
    pub variant: Variant,
    /// Blocks it decoded.
    pub blocks: u64,
    /// Timed blocks counted (the first is discarded as cold).
    pub timed: u32,
    /// Mean decode time per output byte, in clock ticks (the time-stamp
    /// counter on x86-64, nanoseconds elsewhere); 0 if never timed. Only
    /// comparable between variants of the same decoder.
    pub cost_per_byte: f64,
}

/// An LZ4 block decoder with state: one per stream (as ClickHouse keeps one
/// per column reader), so it learns which decode variant is fastest for that
/// stream's data on this CPU.
///
/// Every variant decodes exactly the same bytes and accepts exactly the same
/// blocks; they differ only in speed.
#[derive(Debug, Clone)]
pub struct Decoder {
    arms: Vec<(Variant, DecodeFn)>,
    mode: Mode,
    /// Blocks decoded per arm (all modes).
    blocks: Vec<u64>,
    /// Arm used for the last block.
    last: usize,
    /// Arm used for blocks that are not timed: the best one known so far.
    settled: usize,
    /// The settled arm's decode function.
    settled_fn: DecodeFn,
    /// The batch being timed, if any (see [`MIN_TIMED_BYTES`]).
    batch: Option<Batch>,
    /// Output still to decode with the settled arm, untimed, before the
    /// next choice: while a converged adaptive decoder's untimed share
    /// lasts (see [`CONVERGED_EVERY`]), and unlimited for a fixed decoder.
    /// When it is nonzero no batch is open.
    untimed_left: usize,
    /// Blocks the arm of the open batch still decodes untimed after a
    /// switch, before its timing starts (see [`SWITCH_WARM_UP_BLOCKS`]).
    warm_left: usize,
    /// Whether this decoder has given its vote to the process prior (see
    /// [`Decoder::process_prior`]).
    voted: bool,
}

/// Small blocks being timed together: the arm, the clock ticks spent in
/// them, their output so far, and how many there were.
#[derive(Debug, Clone, Copy)]
struct Batch {
    arm: usize,
    ticks: u64,
    bytes: usize,
    blocks: usize,
}

impl Batch {
    /// An empty batch for `arm`.
    fn new(arm: usize) -> Self {
        Batch {
            arm,
            ticks: 0,
            bytes: 0,
            blocks: 0,
        }
    }
}
/// Timed samples the settled arm needs before the decoder counts as
/// converged and times only one part in [`CONVERGED_EVERY`] of its output.
const CONVERGED_SAMPLES: u32 = 32;
/// A converged decoder still explores, on this fraction of its output, so
/// it notices when the data changes. Choosing and timing cost ~100 ns, a
/// few percent of a fast 64 KiB block; at 1 in 8 that is under 1%. The
/// fraction is of bytes, not blocks. A batch of small blocks costs two
/// clock reads (~20 ns on a Zen 5 VM) and some bookkeeping per block, up to
/// a tenth of a 3 KiB block's decode time, so after a batch of `n` blocks
/// the untimed share is `n` times larger, up to [`SMALL_BLOCK_SPREAD`]
/// times.
const CONVERGED_EVERY: usize = 8;
/// Blocks an arm decodes untimed after the bandit switches to it. A
/// variant that has not run for a while decodes its first 64 KiB blocks
/// 2.4, 1.35 and 1.06 times slower than usual (branch predictor state;
/// measured on a Zen 5 VM): timed after one block, every arm but the
/// incumbent looked a third slower, and on some columns the bandit kept a
/// variant 1.6 times slower than the best. Counted in blocks, not bytes:
/// on small blocks a long warm-up made each switch costly, and timing
/// averages a batch of them anyway.
const SWITCH_WARM_UP_BLOCKS: usize = 2;
/// The most a converged decoder stretches its untimed share for batches
/// of small blocks (see [`CONVERGED_EVERY`]).
const SMALL_BLOCK_SPREAD: usize = 8;

/// Output a decoder started on a prior variant (see [`Decoder::new`])
/// decodes with it, untimed, before it starts exploring. On streams of
/// 64 KiB blocks of the large development-corpus columns (a Zen 5 VM),
/// exploring cost as much time as decoding 0.4-2 MiB more with the best
/// variant, about 1 MiB typically, while a wrong prior was 40-70% slower
/// than the best (plain against match-only copies; variants of the same
/// shape were within a few percent of each other). Rent or buy: explore
/// once trusting a wrong prior would have cost about what exploring
/// costs, 1 MiB / 0.4-0.7 = 1.5-2.5 MiB. A stream that ends sooner never
/// pays for exploring.
pub const PRIOR_TRUST_BYTES: usize = 2 << 20;

/// Room for one vote counter per candidate variant (there are at most 8).
const MAX_CANDIDATES: usize = 16;

/// Votes for the process prior, by index in [`Variant::candidates`]: each
/// adaptive decoder votes once, for its settled variant, when it first
/// converges.
static VOTES: [AtomicU32; MAX_CANDIDATES] = [const { AtomicU32::new(0) }; MAX_CANDIDATES];

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// An adaptive decoder over every variant this CPU can run.
    ///
    /// It starts on the [process prior](Decoder::process_prior), if there
    /// is one yet (see [`Decoder::with_prior`]): a short stream cannot pay
    /// for trying every variant, so it uses the one that other streams of
    /// this process found fastest most often.
    pub fn new() -> Self {
        // Any varying seed will do; choices only affect speed.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let seed = now.as_nanos() as u64 ^ ((std::process::id() as u64) << 32);
        Decoder::with_seed(seed).with_prior(Decoder::process_prior())
    }

    /// The variant that this process's adaptive decoders settled on most
    /// often, or `None` before any has settled. Each adaptive decoder
    /// votes once, when it has tried every candidate and timed its
    /// favourite 32 times (`CONVERGED_SAMPLES`); ties go to the earlier
    /// candidate.
    pub fn process_prior() -> Option<Variant> {
        let (best, votes) = Decoder::process_votes()
            .into_iter()
            .rev()
            .max_by_key(|&(_, n)| n)?;
        (votes > 0).then_some(best)
    }

    /// The votes behind [`Decoder::process_prior`]: per candidate variant,
    /// how many of this process's adaptive decoders have settled on it.
    pub fn process_votes() -> Vec<(Variant, u32)> {
        Variant::candidates()
            .iter()
            .zip(&VOTES)
            .map(|(&v, n)| (v, n.load(Ordering::Relaxed)))
            .collect()
    }

    /// Start this adaptive decoder on `prior`: its first
    /// [`PRIOR_TRUST_BYTES`] of output are decoded with that variant,
    /// untimed, and only then does it explore. `None`, a variant that is
    /// not a candidate, or a decoder that is not adaptive: unchanged.
    pub fn with_prior(mut self, prior: Option<Variant>) -> Self {
        let arm = prior.and_then(|v| self.arms.iter().position(|a| a.0 == v));
        if let (Some(arm), Mode::Adaptive(_)) = (arm, &self.mode) {
            self.settled = arm;
            self.settled_fn = self.arms[arm].1;
            self.last = arm;
            self.untimed_left = PRIOR_TRUST_BYTES;
        }
        self
    }

    /// An adaptive decoder whose choices are reproducible for `seed`.
    pub fn with_seed(seed: u64) -> Self {
        let arms = arms_of(Variant::candidates());
        let n = arms.len();
        let settled = arms
            .iter()
            .position(|a| a.0 == Variant::default_for_cpu())
            .unwrap_or(0);
        Decoder {
            settled_fn: arms[settled].1,
            arms,
            mode: Mode::Adaptive(Bandit::new(n, seed)),
            blocks: vec![0; n],
            last: 0,
            settled,
            batch: None,
            untimed_left: 0,
            warm_left: 0,
            voted: false,
        }
    }

    /// A decoder that always uses `variant`. Fails if this CPU cannot run it.
    pub fn with_variant(variant: Variant) -> Result<Self> {
        let entry = variant.entry().ok_or(Error::VariantUnavailable {
            variant: variant.name(),
        })?;
        Ok(Decoder {
            arms: vec![(variant, entry)],
            mode: Mode::Fixed,
            blocks: vec![0],
            last: 0,
            settled: 0,
            settled_fn: entry,
            batch: None,
            untimed_left: usize::MAX,
            warm_left: 0,
            voted: false,
        })
    }

    /// A decoder that uses each available variant in turn, block by block.
    pub fn round_robin() -> Self {
        let arms = arms_of(Variant::available());
        let n = arms.len();
        Decoder {
            settled_fn: arms[0].1,
            arms,
            mode: Mode::RoundRobin(0),
            blocks: vec![0; n],
            last: 0,
            settled: 0,
            batch: None,
            untimed_left: 0,
            warm_left: 0,
            voted: false,
        }
    }

    /// Decompress the block `src` into `dst` (capacity `dst.len()`), exactly
    /// like [`super::decompress_into`].
    pub fn decompress_into(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        self.decode_with_prefix(src, dst, 0).map_err(|e| *e)
    }

    /// Decode `src` into `buf[start..]` with `buf[..start]` as history.
    ///
    /// The common case, a fixed decoder or a converged adaptive one between
    /// timings, is kept small enough to inline: on a 3 KiB block the whole
    /// per-block cost of choosing is then a few loads and an indirect call.
    #[inline]
    pub(crate) fn decode_with_prefix(
        &mut self,
        src: &[u8],
        buf: &mut [u8],
        start: usize,
    ) -> Decoded<usize> {
        if self.untimed_left > 0 {
            self.last = self.settled;
            if let Some(count) = self.blocks.get_mut(self.settled) {
                *count += 1;
            }
            let r = (self.settled_fn)(src, buf, start);
            if let Ok(n) = r {
                self.untimed_left = self.untimed_left.saturating_sub(n.max(1));
            }
            return r;
        }
        self.decode_choosing(src, buf, start)
    }

    /// [`Decoder::decode_with_prefix`] when this block's arm must be chosen.
    #[inline(never)]
    fn decode_choosing(&mut self, src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        let arm = match &mut self.mode {
            Mode::Fixed => 0,
            Mode::RoundRobin(next) => {
                let a = *next;
                *next = (a + 1) % self.arms.len();
                a
            }
            Mode::Adaptive(_) => return self.decode_adaptive(src, buf, start),
        };
        self.run_arm(arm, src, buf, start)
    }

    /// Decode with `arm`, counting the block for it.
    fn run_arm(&mut self, arm: usize, src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        self.last = arm;
        self.blocks[arm] += 1;
        (self.arms[arm].1)(src, buf, start)
    }

    /// [`Decoder::decode_with_prefix`] for an adaptive decoder outside its
    /// untimed share: continue the batch being timed, or let the bandit
    /// choose an arm and time this block (starting a batch if it turns out
    /// small). An arm other than the last block's first decodes
    /// [`SWITCH_WARM_UP_BLOCKS`] blocks untimed.
    fn decode_adaptive(&mut self, src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        let mut batch = match self.batch.take() {
            Some(b) => b,
            None => {
                let Mode::Adaptive(bandit) = &mut self.mode else {
                    // Only called for adaptive decoders; decode with the
                    // last arm rather than panic.
                    return self.run_arm(self.last, src, buf, start);
                };
                let arm = bandit.choose();
                if arm != self.last {
                    // A switch: the arm's branch predictor and instruction
                    // cache state are cold, and its first blocks would be
                    // timed slow. Warm it up untimed on the first
                    // SWITCH_WARM_UP_BLOCKS blocks and time it after.
                    self.warm_left = SWITCH_WARM_UP_BLOCKS;
                    self.batch = Some(Batch::new(arm));
                    return self.decode_warming(arm, src, buf, start);
                }
                Batch::new(arm)
            }
        };
        if self.warm_left > 0 {
            self.batch = Some(batch);
            return self.decode_warming(batch.arm, src, buf, start);
        }
        let arm = batch.arm;
        let t0 = ticks();
        let r = self.run_arm(arm, src, buf, start);
        let t1 = ticks();
        let cost = match r {
            Ok(n) => {
                batch.ticks += t1.wrapping_sub(t0);
                batch.bytes += n;
                batch.blocks += 1;
                if batch.bytes < MIN_TIMED_BYTES {
                    self.batch = Some(batch);
                    return r;
                }
                Some(batch.ticks as f64 / batch.bytes as f64)
            }
            Err(_) => None,
        };
        self.record(&batch, cost);
        r
    }

    /// Give the bandit `batch`'s cost (`None`: not measured), settle on
    /// the best arm, and start a converged decoder's untimed share.
    fn record(&mut self, batch: &Batch, cost: Option<f64>) {
        let Mode::Adaptive(bandit) = &mut self.mode else {
            return;
        };
        bandit.record(batch.arm, cost);
        if let Some(best) = bandit.best() {
            self.settled = best;
            self.settled_fn = self.arms[best].1;
        }
        let converged = bandit.stats()[self.settled].samples >= CONVERGED_SAMPLES;
        if converged && !self.voted {
            self.voted = true;
            if let Some(v) = VOTES.get(self.settled) {
                v.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.untimed_left = if converged {
            (CONVERGED_EVERY - 1) * batch.bytes * batch.blocks.clamp(1, SMALL_BLOCK_SPREAD)
        } else {
            0
        };
    }

    /// Decode untimed with `arm` while it warms up after a switch.
    fn decode_warming(
        &mut self,
        arm: usize,
        src: &[u8],
        buf: &mut [u8],
        start: usize,
    ) -> Decoded<usize> {
        self.warm_left = self.warm_left.saturating_sub(1);
        self.run_arm(arm, src, buf, start)
    }

    /// The variant that decoded the last block.
    pub fn last_variant(&self) -> Variant {
        self.arms[self.last].0
    }

    /// The variant this decoder currently believes fastest (for a fixed
    /// decoder, its variant).
    pub fn preferred(&self) -> Variant {
        match &self.mode {
            Mode::Adaptive(b) => self.arms[b.best().unwrap_or(self.settled)].0,
            _ => self.arms[0].0,
        }
    }

    /// What the decoder has observed, per variant.
    pub fn stats(&self) -> Vec<VariantStats> {
        let bandit_stats: Option<&[ArmStats]> = match &self.mode {
            Mode::Adaptive(b) => Some(b.stats()),
            _ => None,
        };
        self.arms
            .iter()
            .enumerate()
            .map(|(i, &(variant, _))| {
                let s = bandit_stats.map(|s| s[i]).unwrap_or_default();
                VariantStats {
                    variant,
                    blocks: self.blocks[i],
                    timed: s.samples,
                    cost_per_byte: s.mean,
                }
            })
            .collect()
    }
}

fn arms_of(variants: &[Variant]) -> Vec<(Variant, DecodeFn)> {
    variants
        .iter()
        .map(|&v| (v, v.entry().expect("available variants have entries")))
        .collect()
}

/// A cheap clock for timing one block. `Instant::now()` costs 50-150 ns on
/// virtual machines (two per block is several percent of a fast 64 KiB
/// block); the x86-64 time-stamp counter costs a few nanoseconds. Ticks are
/// only compared with ticks of the same decoder, so their unit does not
/// matter; a thread migrating between cores mid-block can produce an
/// outlier, which the bandit clips.
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC exists on every x86-64 CPU and has no preconditions.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        EPOCH
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}
