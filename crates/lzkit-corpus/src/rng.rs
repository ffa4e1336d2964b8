//! The one seeded random number generator of the workspace: SplitMix64.
//!
//! Tests, fuzz helpers, benchmarks and the built-in corpus of `lzkit bench`
//! all draw from it. Nothing here needs statistical or cryptographic
//! strength, only a stream fixed by its seed on every platform and forever,
//! so a few lines replace a dependency whose stream could change.
//!
//! Two families of draws are kept because recorded data depends on each:
//! the multiply-high draws ([`Rng::below`], [`Rng::unit`], [`Rng::chance`],
//! [`Rng::skewed`], [`Rng::shuffle`]) make the bench corpus and the bench's
//! contender order; the remainder draws ([`Rng::index`], [`Rng::range`],
//! [`Rng::odds`], [`Rng::byte`], [`Rng::fill`]) make the test data, drawn
//! from [`Rng::for_data`].

/// Added to the state at every step: the 64-bit golden ratio, an odd
/// constant whose multiples visit every 64-bit value once (SplitMix64's
/// increment).
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64: a counter advanced by [`GOLDEN_GAMMA`], scrambled by two
/// multiply-xorshift rounds. Every seed, zero included, gives a full-period
/// stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose stream is fixed by `seed` (the seed is the state).
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The generator of the test data (the testkit generators and the tests'
    /// own draws): the seed is first mixed with [`GOLDEN_GAMMA`], so that
    /// the small seeds tests use do not start next to each other.
    pub fn for_data(seed: u64) -> Self {
        Rng::new(seed ^ GOLDEN_GAMMA)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    // -- Multiply-high draws (the bench corpus and contender order). --

    /// Uniform in `0..n` for `n > 0`, by multiplying and keeping the high
    /// half; the bias (at most `n / 2^64`) is far below what matters here.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`, with the 53 bits an `f64` mantissa holds.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// An index in `0..n`, small ones far more likely (the cube of a uniform
    /// draw): a cheap stand-in for the Zipf-like skew of real categorical
    /// columns, where a few values make up most rows.
    pub fn skewed(&mut self, n: usize) -> usize {
        let u = self.unit();
        ((u * u * u * n as f64) as usize).min(n - 1)
    }

    /// Shuffle `items` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    // -- Remainder draws (the test data). --

    /// Uniform in `0..n` (`n > 0`), by remainder.
    pub fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`, by remainder.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.index(hi - lo + 1)
    }

    /// A random byte (the low 8 bits of one draw).
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    /// True with probability `num / den`, by remainder.
    pub fn odds(&mut self, num: u32, den: u32) -> bool {
        (self.next_u64() % u64::from(den)) < u64::from(num)
    }

    /// Fill `buf` with random bytes, 8 (little-endian) per draw.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// A seed for the `index`th member of a family seeded by `seed`, so that
/// members get unrelated streams.
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    Rng::new(seed ^ index.wrapping_mul(GOLDEN_GAMMA)).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_seed_dependent() {
        let draw = |seed| {
            let mut r = Rng::new(seed);
            [r.next_u64(), r.next_u64(), r.next_u64()]
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn splitmix64_reference_values() {
        // SplitMix64 from state 0: the published first outputs.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<u32> = (0..50).collect();
        Rng::new(1).shuffle(&mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn ranges_hold() {
        let mut r = Rng::new(3);
        for _ in 0..10_000 {
            assert!(r.below(10) < 10);
            assert!((0.0..1.0).contains(&r.unit()));
            assert!(r.skewed(5) < 5);
            assert!(r.index(7) < 7);
            assert!((3..=5).contains(&r.range(3, 5)));
        }
    }
}
