//! [`Policy`]: which arm decodes each block of one stream, and what is
//! learned from timing it.
//!
//! A codec's decoder holds one policy over its arms (`A`: an arm id such as
//! a decoder variant; `F`: the arm's decode function pointer) and calls it
//! around every block:
//!
//! ```text
//! if let Some(entry) = policy.untimed() {      // inlined: the common case
//!     let r = entry(src, dst);
//!     if let Ok(n) = r { policy.untimed_done(n) }
//!     return r;
//! }
//! // out of line: choosing, timing
//! let mut pull = policy.begin();
//! let r = pull.run(|entry| entry(src, dst));
//! policy.finish(&pull, r.as_ref().ok().copied());
//! ```
//!
//! The policy never calls the decode function itself, so the codec's call
//! keeps its own signature and registers, and the common case compiles to
//! a few loads and one indirect call.

use super::bandit::{ArmStats, Bandit, retain_by};
use std::sync::atomic::{AtomicU32, Ordering};

/// The least output one timing covers: the clock's resolution and call
/// overhead (~20-50 ns) would swamp a shorter measurement. ClickHouse times
/// only blocks of 32 KiB or more; at 16 KiB a block still takes several
/// microseconds on the fastest variant. Smaller blocks are timed in
/// *batches*: consecutive blocks decoded by the same arm, each timed on its
/// own (what the caller does between blocks is not counted), until they add
/// up to this much output, so streams of small blocks learn too.
pub const MIN_TIMED_BYTES: usize = 16 << 10;

/// Timed samples the settled arm needs before the policy counts as
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

/// Output a policy started on a prior arm (see [`Policy::with_prior`])
/// decodes with it, untimed, before it starts exploring. On streams of
/// 64 KiB LZ4 blocks of the large development-corpus columns (a Zen 5 VM),
/// exploring cost as much time as decoding 0.4-2 MiB more with the best
/// variant, about 1 MiB typically, while a wrong prior was 40-70% slower
/// than the best (plain against match-only copies; variants of the same
/// shape were within a few percent of each other). Rent or buy: explore
/// once trusting a wrong prior would have cost about what exploring
/// costs, 1 MiB / 0.4-0.7 = 1.5-2.5 MiB. A stream that ends sooner never
/// pays for exploring.
pub const PRIOR_TRUST_BYTES: usize = 2 << 20;

/// Room for one vote counter per arm of an adaptive policy: votes for
/// arms past it are dropped.
const MAX_VOTED_ARMS: usize = 16;

/// One codec's votes for its process prior, by arm index: each adaptive
/// policy given this table votes once, for its settled arm, when it first
/// converges. Each codec owns one static table over its own candidate
/// list, so no codec votes for another's arms.
#[derive(Debug)]
pub struct Votes([AtomicU32; MAX_VOTED_ARMS]);

impl Default for Votes {
    fn default() -> Self {
        Votes::new()
    }
}

impl Votes {
    /// A table with no votes.
    pub const fn new() -> Self {
        Votes([const { AtomicU32::new(0) }; MAX_VOTED_ARMS])
    }

    /// The votes for arm `arm`.
    pub fn count(&self, arm: usize) -> u32 {
        self.0.get(arm).map_or(0, |n| n.load(Ordering::Relaxed))
    }

    /// The arm among the first `arms` with the most votes, ties going to
    /// the earlier arm; `None` before any has a vote.
    pub fn leader(&self, arms: usize) -> Option<usize> {
        let (best, votes) = (0..arms)
            .map(|i| (i, self.count(i)))
            .rev()
            .max_by_key(|&(_, n)| n)?;
        (votes > 0).then_some(best)
    }

    fn vote(&self, arm: usize) {
        if let Some(n) = self.0.get(arm) {
            n.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// How a [`Policy`] picks its arm for each block.
#[derive(Debug, Clone)]
enum Mode {
    /// Thompson sampling over the arms.
    Adaptive(Bandit),
    /// Always the same arm.
    Fixed,
    /// Each arm in turn (benchmarks and tests).
    RoundRobin(usize),
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

/// What a [`Policy`] has learned about one arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmReport<A> {
    /// The arm.
    pub arm: A,
    /// Blocks it decoded.
    pub blocks: u64,
    /// Timed blocks (or batches) counted (the first is discarded as cold).
    pub timed: u32,
    /// Mean decode time per output byte, in clock ticks (see [`ticks`]);
    /// 0 if never timed.
    pub cost_per_byte: f64,
}

/// One block's decode chosen by [`Policy::begin`]: its arm's entry point,
/// run (and timed where the policy wants it) by [`Pull::run`], then handed
/// back to [`Policy::finish`].
#[derive(Debug, Clone, Copy)]
pub struct Pull<F> {
    entry: F,
    timed: bool,
    ticks: u64,
}

impl<F: Copy> Pull<F> {
    /// Run `call` on the chosen entry point, timing it if this block is
    /// timed; returns what `call` returns.
    #[inline(always)]
    pub fn run<R>(&mut self, call: impl FnOnce(F) -> R) -> R {
        if !self.timed {
            return call(self.entry);
        }
        let t0 = ticks();
        let r = call(self.entry);
        self.ticks = ticks().wrapping_sub(t0);
        r
    }
}

/// The per-stream arm chooser over arms `(A, F)`: an id and a decode
/// function pointer each (see the module documentation for how a codec
/// calls it).
#[derive(Debug, Clone)]
pub struct Policy<A, F> {
    arms: Vec<(A, F)>,
    mode: Mode,
    /// Blocks decoded per arm (all modes).
    blocks: Vec<u64>,
    /// Arm used for the last block.
    last: usize,
    /// Arm used for blocks that are not timed: the best one known so far.
    settled: usize,
    /// The settled arm's decode function.
    settled_fn: F,
    /// The arm settled on before any observation, without a prior.
    initial: usize,
    /// The batch being timed, if any (see [`MIN_TIMED_BYTES`]).
    batch: Option<Batch>,
    /// Output still to decode with the settled arm, untimed, before the
    /// next choice: while a prior is trusted, while a converged adaptive
    /// policy's untimed share lasts (see [`CONVERGED_EVERY`]), and
    /// unlimited for a fixed one. When it is nonzero no batch is open.
    untimed_left: usize,
    /// Blocks the arm of the open batch still decodes untimed after a
    /// switch, before its timing starts (see [`SWITCH_WARM_UP_BLOCKS`]).
    warm_left: usize,
    /// Where this policy votes when it first converges; `None` once it
    /// has voted, or if it never votes.
    votes: Option<&'static Votes>,
    /// Output a prior arm decodes untimed before exploring (see
    /// [`PRIOR_TRUST_BYTES`], the default).
    prior_trust: usize,
}

impl<A: Copy + Eq, F: Copy> Policy<A, F> {
    /// An adaptive policy over `arms`, settled on `arms[initial]` until it
    /// has learned better; `seed` makes its choices reproducible. It votes
    /// in `votes` (indexed like `arms`) when it converges.
    ///
    /// # Panics
    /// If `arms[initial]` does not exist.
    pub fn adaptive(
        arms: Vec<(A, F)>,
        initial: usize,
        seed: u64,
        votes: Option<&'static Votes>,
    ) -> Self {
        let n = arms.len();
        Policy {
            settled_fn: arms[initial].1,
            arms,
            mode: Mode::Adaptive(Bandit::new(n, seed)),
            blocks: vec![0; n],
            last: 0,
            settled: initial,
            initial,
            batch: None,
            untimed_left: 0,
            warm_left: 0,
            votes,
            prior_trust: PRIOR_TRUST_BYTES,
        }
    }

    /// A policy that always uses `arm`.
    pub fn fixed(arm: A, entry: F) -> Self {
        Policy {
            arms: vec![(arm, entry)],
            mode: Mode::Fixed,
            blocks: vec![0],
            last: 0,
            settled: 0,
            settled_fn: entry,
            initial: 0,
            batch: None,
            untimed_left: usize::MAX,
            warm_left: 0,
            votes: None,
            prior_trust: PRIOR_TRUST_BYTES,
        }
    }

    /// A policy that uses each of `arms` in turn, block by block.
    ///
    /// # Panics
    /// If `arms` is empty.
    pub fn round_robin(arms: Vec<(A, F)>) -> Self {
        let n = arms.len();
        Policy {
            settled_fn: arms[0].1,
            arms,
            mode: Mode::RoundRobin(0),
            blocks: vec![0; n],
            last: 0,
            settled: 0,
            initial: 0,
            batch: None,
            untimed_left: 0,
            warm_left: 0,
            votes: None,
            prior_trust: PRIOR_TRUST_BYTES,
        }
    }

    /// Start this adaptive policy on `prior`: its first
    /// [`PRIOR_TRUST_BYTES`] of output are decoded with that arm, untimed,
    /// and only then does it explore. `None`, or an arm it does not have:
    /// no prior (it explores from the first block). A policy that is not
    /// adaptive is unchanged.
    pub fn with_prior(mut self, prior: Option<A>) -> Self {
        self.set_prior(prior);
        self
    }

    /// Trust a prior (given after this, with [`Policy::with_prior`]) for
    /// `bytes` of output rather than [`PRIOR_TRUST_BYTES`]: a codec whose
    /// arms differ less pays for exploring over a longer stream.
    pub fn with_prior_trust(mut self, bytes: usize) -> Self {
        self.prior_trust = bytes;
        self
    }

    /// Whether this policy chooses its arm by what it learns.
    pub fn is_adaptive(&self) -> bool {
        matches!(self.mode, Mode::Adaptive(_))
    }

    /// Drop the arms `keep` refuses from this adaptive policy, keeping
    /// what it learned of the others; nothing happens if it would drop
    /// every arm or none, or if the policy is not adaptive. An arm it
    /// settled on that is dropped gives way to the first one left. The
    /// policy no longer votes: its arms are no longer the list its votes
    /// table is indexed by.
    pub fn retain_arms(&mut self, keep: impl Fn(A) -> bool) {
        let Mode::Adaptive(bandit) = &mut self.mode else {
            return;
        };
        let mask: Vec<bool> = self.arms.iter().map(|a| keep(a.0)).collect();
        if !mask.contains(&false) || !mask.contains(&true) {
            return;
        }
        // An arm's index among those kept; 0 for a dropped one.
        let map = |old: usize| match mask[old] {
            true => mask[..old].iter().filter(|&&k| k).count(),
            false => 0,
        };
        bandit.retain(&mask);
        retain_by(&mut self.arms, &mask);
        retain_by(&mut self.blocks, &mask);
        self.settled = map(self.settled);
        self.initial = map(self.initial);
        self.last = map(self.last);
        self.settled_fn = self.arms[self.settled].1;
        self.batch = None;
        self.warm_left = 0;
        self.votes = None;
    }

    /// [`Policy::with_prior`] in place.
    pub fn set_prior(&mut self, prior: Option<A>) {
        if !self.is_adaptive() {
            return;
        }
        match prior.and_then(|p| self.arms.iter().position(|a| a.0 == p)) {
            Some(arm) => {
                self.settled = arm;
                self.last = arm;
                self.untimed_left = self.prior_trust;
            }
            None => {
                self.settled = self.initial;
                self.last = 0;
                self.untimed_left = 0;
            }
        }
        self.settled_fn = self.arms[self.settled].1;
    }

    /// The same policy (its mode, what it has learned, its prior) over
    /// other entry points of the same arms: `entry(arm)` gives each, and
    /// `None` from it gives `None`. The copy does not vote (the policy it
    /// was copied from does).
    pub fn map_entries<G: Copy>(
        &self,
        mut entry: impl FnMut(A) -> Option<G>,
    ) -> Option<Policy<A, G>> {
        let arms = self
            .arms
            .iter()
            .map(|&(arm, _)| Some((arm, entry(arm)?)))
            .collect::<Option<Vec<(A, G)>>>()?;
        Some(Policy {
            settled_fn: arms[self.settled].1,
            arms,
            mode: self.mode.clone(),
            blocks: self.blocks.clone(),
            last: self.last,
            settled: self.settled,
            initial: self.initial,
            batch: self.batch,
            untimed_left: self.untimed_left,
            warm_left: self.warm_left,
            votes: None,
            prior_trust: self.prior_trust,
        })
    }

    /// The settled arm's entry point if this block is decoded with it,
    /// untimed, with no choice (the common case); the block is counted.
    /// Report its output with [`Policy::untimed_done`]. `None`: call
    /// [`Policy::begin`].
    #[inline(always)]
    pub fn untimed(&mut self) -> Option<F> {
        if self.untimed_left > 0 {
            self.last = self.settled;
            if let Some(count) = self.blocks.get_mut(self.settled) {
                *count += 1;
            }
            return Some(self.settled_fn);
        }
        None
    }

    /// An untimed block decoded `bytes` of output.
    #[inline(always)]
    pub fn untimed_done(&mut self, bytes: usize) {
        self.untimed_left = self.untimed_left.saturating_sub(bytes.max(1));
    }

    /// Choose the arm for a block that [`Policy::untimed`] did not take:
    /// continue the batch being timed, or (adaptive) let the bandit choose
    /// an arm, which times its blocks after [`SWITCH_WARM_UP_BLOCKS`]
    /// untimed ones if it differs from the last block's. The block is
    /// counted for the arm.
    pub fn begin(&mut self) -> Pull<F> {
        let (arm, timed) = match &mut self.mode {
            Mode::Fixed => (0, false),
            Mode::RoundRobin(next) => {
                let a = *next;
                *next = (a + 1) % self.arms.len();
                (a, false)
            }
            Mode::Adaptive(bandit) => {
                let arm = match self.batch {
                    Some(batch) => batch.arm,
                    None => {
                        let arm = bandit.choose();
                        if arm != self.last {
                            // A switch: the arm's branch predictor and
                            // instruction cache state are cold, and its
                            // first blocks would be timed slow. Warm it
                            // up untimed and time it after.
                            self.warm_left = SWITCH_WARM_UP_BLOCKS;
                        }
                        self.batch = Some(Batch::new(arm));
                        arm
                    }
                };
                if self.warm_left > 0 {
                    self.warm_left -= 1;
                    (arm, false)
                } else {
                    (arm, true)
                }
            }
        };
        self.last = arm;
        self.blocks[arm] += 1;
        Pull {
            entry: self.arms[arm].1,
            timed,
            ticks: 0,
        }
    }

    /// The block of `pull` ended with `out` bytes of output (`None`: an
    /// error). A timed block joins its batch; a complete batch (or an
    /// error) gives the bandit its cost, settles on the best arm, and
    /// starts a converged policy's untimed share.
    pub fn finish(&mut self, pull: &Pull<F>, out: Option<usize>) {
        if !pull.timed {
            return;
        }
        let Some(mut batch) = self.batch.take() else {
            return;
        };
        let cost = match out {
            Some(n) => {
                batch.ticks += pull.ticks;
                batch.bytes += n;
                batch.blocks += 1;
                if batch.bytes < MIN_TIMED_BYTES {
                    self.batch = Some(batch);
                    return;
                }
                Some(batch.ticks as f64 / batch.bytes as f64)
            }
            None => None,
        };
        self.record(&batch, cost);
    }

    /// Give the bandit `batch`'s cost (`None`: not measured), settle on
    /// the best arm, vote once converged, and start a converged policy's
    /// untimed share.
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
        if converged && let Some(votes) = self.votes.take() {
            votes.vote(self.settled);
        }
        self.untimed_left = if converged {
            (CONVERGED_EVERY - 1) * batch.bytes * batch.blocks.clamp(1, SMALL_BLOCK_SPREAD)
        } else {
            0
        };
    }

    /// The arm that decoded the last block.
    pub fn last(&self) -> A {
        self.arms[self.last].0
    }

    /// The arm this policy currently believes fastest (for a fixed one,
    /// its arm; for round robin, the first).
    pub fn preferred(&self) -> A {
        match &self.mode {
            Mode::Adaptive(b) => self.arms[b.best().unwrap_or(self.settled)].0,
            _ => self.arms[0].0,
        }
    }

    /// What the policy has observed, per arm.
    pub fn stats(&self) -> Vec<ArmReport<A>> {
        let bandit_stats: Option<&[ArmStats]> = match &self.mode {
            Mode::Adaptive(b) => Some(b.stats()),
            _ => None,
        };
        self.arms
            .iter()
            .enumerate()
            .map(|(i, &(arm, _))| {
                let s = bandit_stats.map(|s| s[i]).unwrap_or_default();
                ArmReport {
                    arm,
                    blocks: self.blocks[i],
                    timed: s.samples,
                    cost_per_byte: s.mean,
                }
            })
            .collect()
    }
}

/// A cheap clock for timing one block. `Instant::now()` costs 50-150 ns on
/// virtual machines (two per block is several percent of a fast 64 KiB
/// block); the x86-64 time-stamp counter costs a few nanoseconds. Ticks are
/// only compared with ticks of the same policy, so their unit does not
/// matter (time-stamp counter ticks on x86-64, nanoseconds elsewhere); a
/// thread migrating between cores mid-block can produce an outlier, which
/// the bandit clips.
#[inline(always)]
pub fn ticks() -> u64 {
    crate::cpu::ticks()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decode function stand-in: returns the block size it is given.
    type Fake = fn(usize) -> Result<usize, ()>;

    fn ok(n: usize) -> Result<usize, ()> {
        Ok(n)
    }

    /// Run one block of `n` bytes through `p` the way a codec does.
    fn block(p: &mut Policy<u8, Fake>, n: usize) -> Result<usize, ()> {
        if let Some(entry) = p.untimed() {
            let r = entry(n);
            if let Ok(n) = r {
                p.untimed_done(n);
            }
            return r;
        }
        let mut pull = p.begin();
        let r = pull.run(|entry| entry(n));
        p.finish(&pull, r.as_ref().ok().copied());
        r
    }

    #[test]
    fn retained_arms_keep_what_was_learned_and_the_settled_arm() {
        let arms: Vec<(u8, u8)> = (0..4).map(|i| (i, i * 10)).collect();
        let mut p = Policy::adaptive(arms.clone(), 2, 7, None).with_prior(Some(3));
        p.retain_arms(|a| a != 1);
        assert_eq!(p.arms.iter().map(|a| a.0).collect::<Vec<_>>(), [0, 2, 3]);
        assert_eq!(p.preferred(), 3);
        assert_eq!(p.untimed(), Some(30));
        assert_eq!(p.blocks.len(), 3);
        assert_eq!(p.stats().len(), 3);
        // The settled arm dropped: the first one left.
        p.retain_arms(|a| a != 3);
        assert_eq!(p.preferred(), 0);
        // Dropping all or none: unchanged.
        p.retain_arms(|_| false);
        p.retain_arms(|_| true);
        assert_eq!(p.arms.len(), 2);
        // A fixed policy: unchanged.
        let mut f = Policy::fixed(5u8, 50u8);
        f.retain_arms(|_| false);
        assert_eq!(f.preferred(), 5);
    }

    #[test]
    fn votes_go_to_the_leader_ties_to_the_earlier_arm() {
        let v = Votes::new();
        assert_eq!(v.leader(4), None);
        v.vote(2);
        v.vote(1);
        assert_eq!(v.leader(4), Some(1));
        v.vote(2);
        assert_eq!(v.leader(4), Some(2));
        assert_eq!(v.leader(2), Some(1));
        v.vote(MAX_VOTED_ARMS); // dropped, no panic
        assert_eq!(v.count(MAX_VOTED_ARMS), 0);
    }

    #[test]
    fn a_converged_policy_votes_once_in_its_codecs_table() {
        static OURS: Votes = Votes::new();
        static OTHERS: Votes = Votes::new();
        let arms: Vec<(u8, Fake)> = vec![(10, ok), (11, ok), (12, ok)];
        let mut p = Policy::adaptive(arms, 1, 3, Some(&OURS));
        for _ in 0..20_000 {
            block(&mut p, 64 << 10).unwrap();
        }
        let ours: u32 = (0..3).map(|i| OURS.count(i)).sum();
        assert_eq!(ours, 1);
        assert_eq!(OTHERS.leader(3), None);
        assert!(p.stats().iter().all(|s| s.timed > 0), "{:?}", p.stats());
    }

    #[test]
    fn a_prior_is_trusted_then_dropped_by_none() {
        let arms: Vec<(u8, Fake)> = vec![(10, ok), (11, ok), (12, ok)];
        let p = Policy::adaptive(arms, 0, 3, None).with_prior(Some(12));
        assert_eq!(p.preferred(), 12);
        let mut q = p.clone().with_prior(None);
        assert_eq!(q.preferred(), 10);
        let mut p = p;
        block(&mut p, 1000).unwrap();
        assert_eq!(p.last(), 12);
        // Without the prior, the first block is the bandit's choice and
        // counted towards exploring.
        block(&mut q, 1000).unwrap();
        assert_eq!(q.stats().iter().map(|s| s.blocks).sum::<u64>(), 1);
        assert!(q.untimed_left == 0);
    }

    #[test]
    fn fixed_and_round_robin() {
        let mut f: Policy<u8, Fake> = Policy::fixed(7, ok);
        for _ in 0..5 {
            block(&mut f, 10).unwrap();
        }
        assert_eq!((f.last(), f.stats()[0].blocks), (7, 5));
        let mut r: Policy<u8, Fake> = Policy::round_robin(vec![(1, ok), (2, ok)]);
        for _ in 0..4 {
            block(&mut r, 10).unwrap();
        }
        assert!(r.stats().iter().all(|s| s.blocks == 2));
    }
}
