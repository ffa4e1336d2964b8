//! A multi-armed bandit that learns which of several interchangeable
//! routines is cheapest, by Thompson sampling (as ClickHouse chooses its LZ4
//! decoder variant per column reader).
//!
//! Each arm keeps the running mean and variance of its observed costs
//! (Welford's method). To choose, the bandit draws, for every arm, a cost
//! from a normal distribution centred on the arm's mean with the standard
//! error of that mean as spread, and picks the arm with the smallest draw.
//! Arms that look cheap, or that are still uncertain, get picked; an arm
//! that is clearly slower is tried less and less often.
//!
//! The first observation of every arm is discarded (it pays for cold caches
//! and branch predictors), and every arm is tried [`WARMUP_SAMPLES`] times
//! before sampling starts, so the variance estimate means something. The
//! spread never falls below [`MIN_CV`] of the mean per sample: two samples
//! that happen to agree do not make an arm look certain.
//!
//! Costs drift: the first blocks of a process or a stream run while the
//! clock frequency ramps up and caches fill, and are several times slower
//! than later ones. An arm tried only then looks slow for ever, since a
//! clearly slow arm is not tried again. So each time the leading arm's
//! sample count reaches [`REFRESH_FIRST`], and then 4, 16, ... times that,
//! the arms with few samples (under 1/[`REFRESH_RATIO`] of the leader's)
//! are forgotten and tried afresh, at a cost that shrinks as the leader's
//! samples grow.
//!
//! Timings on a shared machine have outliers (a block interrupted by the
//! scheduler takes many times longer), and one outlier would inflate an
//! arm's variance and keep a slow arm in play. Observations are therefore
//! clipped at [`OUTLIER_FACTOR`] times the arm's fastest observation.

/// Timed observations per arm before Thompson sampling takes over.
pub const WARMUP_SAMPLES: u32 = 2;

/// Observations above this multiple of an arm's fastest one are clipped.
/// Real differences between copy strategies on the same data stay well
/// below 2x per block, interruptions are far above it.
pub const OUTLIER_FACTOR: f64 = 2.0;

/// Smallest spread assumed for one observation, relative to the mean.
pub const MIN_CV: f64 = 0.05;

/// Leader sample count at which stale arms are first tried afresh.
pub const REFRESH_FIRST: u32 = 32;

/// An arm with fewer than the leader's samples divided by this is stale at
/// a refresh.
pub const REFRESH_RATIO: u32 = 8;

/// Statistics of one arm.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArmStats {
    /// Times the arm was chosen (including the discarded first run).
    pub pulls: u64,
    /// Observations counted (the first is discarded).
    pub samples: u32,
    /// Mean observed cost.
    pub mean: f64,
    /// Smallest observed cost (before clipping).
    pub min: f64,
    /// Sum of squared deviations from the mean (Welford's M2).
    m2: f64,
    /// Standard error of the mean, kept up to date so that choosing costs
    /// no square roots.
    stderr: f64,
    /// Whether the arm ran since it was last (re)started: its next
    /// observation counts.
    warm: bool,
}

impl ArmStats {
    /// Sample variance of the observed costs.
    pub fn variance(&self) -> f64 {
        if self.samples < 2 {
            0.0
        } else {
            self.m2 / (self.samples - 1) as f64
        }
    }

    fn observe(&mut self, raw: f64) {
        let cost = if self.samples == 0 {
            self.min = raw;
            raw
        } else {
            self.min = self.min.min(raw);
            raw.min(OUTLIER_FACTOR * self.min)
        };
        self.samples += 1;
        let delta = cost - self.mean;
        self.mean += delta / self.samples as f64;
        self.m2 += delta * (cost - self.mean);
        let floor = MIN_CV * self.mean;
        self.stderr = (self.variance().max(floor * floor) / self.samples as f64).sqrt();
    }

    /// Forget the observations (not the pull count): the arm is tried
    /// afresh, its first run discarded again.
    fn forget(&mut self) {
        *self = ArmStats {
            pulls: self.pulls,
            ..ArmStats::default()
        };
    }
}

/// Keep the items of `v` whose entry in `keep` (one per item) is true.
pub(crate) fn retain_by<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    v.retain(|_| flags.next().copied().unwrap_or(false));
}

/// Thompson-sampling bandit over `n` arms minimising cost.
#[derive(Debug, Clone)]
pub struct Bandit {
    arms: Vec<ArmStats>,
    rng: u64,
    /// Leader sample count at which the next refresh happens.
    next_refresh: u32,
}

impl Bandit {
    /// A bandit over `arms` arms; `seed` makes its choices reproducible.
    pub fn new(arms: usize, seed: u64) -> Self {
        Bandit {
            arms: vec![ArmStats::default(); arms],
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            next_refresh: REFRESH_FIRST,
        }
    }

    /// Keep only the arms whose entry in `keep` (one per arm) is true,
    /// with what was learned of them.
    pub fn retain(&mut self, keep: &[bool]) {
        retain_by(&mut self.arms, keep);
    }

    /// Number of arms.
    pub fn len(&self) -> usize {
        self.arms.len()
    }

    /// True when there are no arms.
    pub fn is_empty(&self) -> bool {
        self.arms.is_empty()
    }

    /// Per-arm statistics.
    pub fn stats(&self) -> &[ArmStats] {
        &self.arms
    }

    /// Arm with the lowest mean cost among those past warm-up, if any.
    pub fn best(&self) -> Option<usize> {
        (0..self.arms.len())
            .filter(|&i| self.arms[i].samples > 0)
            .min_by(|&a, &b| self.arms[a].mean.total_cmp(&self.arms[b].mean))
    }

    /// Choose the arm to pull next.
    pub fn choose(&mut self) -> usize {
        // Warm-up: the least-tried arm until all have enough samples.
        if let Some(i) = (0..self.arms.len()).find(|&i| self.arms[i].samples < WARMUP_SAMPLES) {
            return i;
        }
        let mut best = 0;
        let mut best_draw = f64::INFINITY;
        for i in 0..self.arms.len() {
            let (mean, stderr) = (self.arms[i].mean, self.arms[i].stderr);
            let draw = mean + stderr * self.normal();
            if draw < best_draw {
                best_draw = draw;
                best = i;
            }
        }
        best
    }

    /// Record that `arm` was pulled; `cost` is its observed cost, or `None`
    /// when the run was not measured (too small to time).
    pub fn record(&mut self, arm: usize, cost: Option<f64>) {
        let a = &mut self.arms[arm];
        a.pulls += 1;
        let Some(c) = cost.filter(|c| c.is_finite()) else {
            return;
        };
        if !a.warm {
            a.warm = true;
            return;
        }
        a.observe(c);
        if a.samples >= self.next_refresh {
            self.refresh(arm);
        }
    }

    /// Try afresh every arm with few samples next to `leader`'s.
    fn refresh(&mut self, leader: usize) {
        let lead = self.arms[leader].samples;
        self.next_refresh = lead.saturating_mul(4);
        for a in &mut self.arms {
            if a.samples < lead / REFRESH_RATIO {
                a.forget();
            }
        }
    }

    /// xorshift64* step.
    fn next_u64(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// An approximately standard normal draw: the Irwin-Hall sum of four
    /// uniforms (16 bits each, from one 64-bit draw), centred and scaled.
    /// Thompson sampling needs a plausible spread, not exact tails, and this
    /// costs a few nanoseconds instead of a logarithm, a root and a cosine.
    fn normal(&mut self) -> f64 {
        let r = self.next_u64();
        let sum: u64 = (0..4).map(|k| (r >> (16 * k)) & 0xFFFF).sum();
        // Four U(0,1): mean 2, variance 4/12.
        (sum as f64 / 65_536.0 - 2.0) * 3f64.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Simulated arms: cost = mean * (1 + noise * N(0,1)).
    fn simulate(means: &[f64], noise: f64, rounds: usize, seed: u64) -> (Bandit, f64) {
        let mut b = Bandit::new(means.len(), seed);
        let mut env = Bandit::new(1, seed.wrapping_add(1)); // a second RNG
        let best = means.iter().copied().fold(f64::INFINITY, f64::min);
        let mut regret = 0.0;
        for _ in 0..rounds {
            let i = b.choose();
            let cost = means[i] * (1.0 + noise * env.normal());
            regret += means[i] - best;
            b.record(i, Some(cost));
        }
        (b, regret)
    }

    #[test]
    fn converges_to_cheapest_arm() {
        let means = [1.30, 1.00, 1.15, 2.0, 1.05];
        let (b, _) = simulate(&means, 0.05, 2000, 7);
        assert_eq!(b.best(), Some(1));
        let pulls: Vec<u64> = b.stats().iter().map(|a| a.pulls).collect();
        // The cheapest arm gets the large majority of pulls.
        assert!(pulls[1] as f64 > 0.8 * 2000.0, "{pulls:?}");
        // A clearly bad arm is abandoned after warm-up.
        assert!(pulls[3] < 20, "{pulls:?}");
    }

    #[test]
    fn regret_small_when_arms_nearly_equal() {
        // Arms within 1% of each other and 5% noise: hard to tell apart, but
        // cheap to confuse. Regret relative to total cost stays under 0.5%.
        let means = [1.00, 1.005, 1.01, 1.008];
        let rounds = 5000;
        let (_, regret) = simulate(&means, 0.05, rounds, 11);
        assert!(regret / (rounds as f64) < 0.005, "regret {regret}");
    }

    #[test]
    fn first_observation_is_discarded() {
        let mut b = Bandit::new(2, 1);
        b.record(0, Some(1000.0));
        assert_eq!(b.stats()[0].samples, 0);
        b.record(0, Some(1.0));
        assert_eq!(b.stats()[0].samples, 1);
        assert_eq!(b.stats()[0].mean, 1.0);
    }

    #[test]
    fn outliers_do_not_keep_a_slow_arm_alive() {
        // Arm 0 is fast but one in ten of its runs is interrupted (10x);
        // arm 1 is 30% slower and steady. Clipping keeps arm 0 preferred.
        let mut b = Bandit::new(2, 5);
        let mut n = 0u32;
        let mut pulls = [0u32; 2];
        for _ in 0..2000 {
            let i = b.choose();
            n += 1;
            let cost = if i == 0 {
                if n.is_multiple_of(10) { 10.0 } else { 1.0 }
            } else {
                1.3
            };
            pulls[i] += 1;
            b.record(i, Some(cost));
        }
        assert_eq!(b.best(), Some(0));
        assert!(pulls[1] < 200, "{pulls:?}");
    }

    #[test]
    fn recovers_from_slow_early_observations() {
        // Arm 1 is the fastest, but its first runs are 3x slower (it ran
        // while the process warmed up): after warm-up it looks clearly
        // slow and Thompson sampling alone would not try it again. The
        // refresh tries it afresh, and it takes over.
        let means = [1.0, 0.8, 1.2];
        let mut b = Bandit::new(3, 9);
        let mut env = Bandit::new(1, 10);
        let mut pulls_late = [0u32; 3];
        let mut pulls = [0u32; 3];
        for n in 0..3000u32 {
            let i = b.choose();
            let cold = if i == 1 && pulls[1] < 3 { 3.0 } else { 1.0 };
            pulls[i] += 1;
            let cost = means[i] * cold * (1.0 + 0.03 * env.normal());
            if n >= 2000 {
                pulls_late[i] += 1;
            }
            b.record(i, Some(cost));
        }
        assert_eq!(b.best(), Some(1), "{:?}", b.stats());
        assert!(pulls_late[1] > 900, "{pulls_late:?}");
    }

    #[test]
    fn spread_has_a_floor() {
        // Two identical observations: the arm still gets a spread.
        let mut b = Bandit::new(1, 1);
        for _ in 0..3 {
            b.record(0, Some(2.0));
        }
        let a = b.stats()[0];
        assert_eq!(a.samples, 2);
        assert!(a.stderr >= MIN_CV * 2.0 / 2f64.sqrt() * 0.999, "{a:?}");
    }

    #[test]
    fn deterministic_for_a_seed() {
        let means = [1.0, 1.02, 1.04];
        let (a, _) = simulate(&means, 0.1, 500, 3);
        let (b, _) = simulate(&means, 0.1, 500, 3);
        assert_eq!(a.stats(), b.stats());
    }
}
