//! [`Level`]: the one compression level type of the library, the CLI and
//! the benchmark.

/// The highest compression level (`lz4 --best`, `LZ4HC_CLEVEL_MAX`). Higher
/// levels compress like it, as in the reference library.
pub const MAX_LEVEL: i32 = 12;

/// A compression level, meaning what it means in the reference library
/// (lz4 1.10) and its CLI:
///
/// * `1` (the default) is the fast compressor (`-1`);
/// * `0` and below are faster with acceleration `1 - level`; the CLI's
///   `--fast=N` is level `-N` ([`Level::fast`]);
/// * `2` to [`MAX_LEVEL`] (12) are the high-compression levels (`-2` ...
///   `-12`, `-9` being the usual HC level, `--best` 12); higher levels
///   compress like 12.
///
/// Every function that takes a level takes `impl Into<Level>`, so a plain
/// `i32` works too.
///
/// ```
/// use lzkit::lz4::{Level, MAX_LEVEL};
///
/// assert_eq!(Level::default(), Level::new(1));
/// assert_eq!(Level::fast(3).get(), -3);
/// assert_eq!(Level::fast(3).acceleration(), 4);
/// assert_eq!(Level::saturating(99), Level::BEST);
/// assert_eq!(Level::BEST.get(), MAX_LEVEL);
/// assert!(Level::new(9).is_hc() && !Level::new(1).is_hc());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(i32);

impl Level {
    /// Level 1: the fast compressor, the `lz4` CLI's default.
    pub const DEFAULT: Level = Level(1);
    /// [`MAX_LEVEL`]: the smallest output (`--best`).
    pub const BEST: Level = Level(MAX_LEVEL);
    /// Largest acceleration, and largest `--fast=N`, lz4 accepts
    /// (`LZ4_ACCELERATION_MAX`); larger requests are clamped to it.
    pub const MAX_ACCELERATION: u32 = 65_537;

    /// The level `level`, as given (see [`Level`] for what each value
    /// means).
    pub const fn new(level: i32) -> Level {
        Level(level)
    }

    /// The CLI's `--fast=N`: level `-N`, which the fast compressor runs
    /// with acceleration `N + 1` (as lz4's frame API does). 0 means 1;
    /// values above [`Level::MAX_ACCELERATION`] mean it.
    pub const fn fast(n: u32) -> Level {
        let a = if n == 0 {
            1
        } else if n > Self::MAX_ACCELERATION {
            Self::MAX_ACCELERATION
        } else {
            n
        };
        // `a` is at most MAX_ACCELERATION, so the cast cannot wrap.
        Level(-(a as i32))
    }

    /// Level `n` as the CLI reads `-#`: at most [`MAX_LEVEL`] (as lz4 does,
    /// higher requests compress at the highest).
    pub const fn saturating(n: u64) -> Level {
        if n > MAX_LEVEL as u64 {
            Level::BEST
        } else {
            Level(n as i32)
        }
    }

    /// The level as a number (negative for `--fast=N`).
    pub const fn get(self) -> i32 {
        self.0
    }

    /// The fast compressor's acceleration: `1 - level` for levels `<= 0`
    /// (at most [`Level::MAX_ACCELERATION`]), 1 otherwise.
    pub const fn acceleration(self) -> u32 {
        if self.0 >= 1 {
            1
        } else {
            let a = 1i64 - self.0 as i64;
            if a > Self::MAX_ACCELERATION as i64 {
                Self::MAX_ACCELERATION
            } else {
                a as u32
            }
        }
    }

    /// A high-compression level (2 and up), where
    /// [`favor_dec_speed`](crate::lz4::frame::FrameOptions::favor_dec_speed)
    /// may apply.
    pub const fn is_hc(self) -> bool {
        self.0 >= 2
    }
}

crate::encoder::level_conversions!(Level);
