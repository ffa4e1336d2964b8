//! [`Level`]: the zstd compression level, a newtype as [`crate::lz4::Level`]
//! is for LZ4.

/// The lowest level libzstd accepts (its `--fast` levels are negative).
pub const MIN_LEVEL: i32 = -(1 << 17);
/// The highest ordinary level (`zstd -19`); 20 to 22 need `--ultra` in the
/// `zstd` command, and the library accepts them directly.
pub const MAX_LEVEL: i32 = 19;
/// The highest level with `--ultra`.
pub const ULTRA_MAX_LEVEL: i32 = 22;

/// A zstd compression level, meaning what it means to libzstd and the
/// `zstd` command: 1 to 19 as `zstd -#`, 20 to 22 as `zstd --ultra -#`,
/// negative for `zstd --fast=#`; 3 is the default.
///
/// Every function that takes a level takes `impl Into<Level>`, so a plain
/// `i32` works too.
///
/// ```
/// use lzkit::zstd::{Level, ULTRA_MAX_LEVEL};
///
/// assert_eq!(Level::default(), Level::new(3));
/// assert_eq!(Level::new(-5).get(), -5);
/// assert_eq!(Level::new(99).clamped(), Level::new(ULTRA_MAX_LEVEL));
/// assert_eq!(i32::from(Level::from(19)), 19);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(i32);

impl Level {
    /// Level 3: zstd's default.
    pub const DEFAULT: Level = Level(3);

    /// The level `level`, as given (see [`Level`] for what each value
    /// means).
    pub const fn new(level: i32) -> Level {
        Level(level)
    }

    /// The level as a number (negative for `--fast=#`).
    pub const fn get(self) -> i32 {
        self.0
    }

    /// The level within [`MIN_LEVEL`]..=[`ULTRA_MAX_LEVEL`], the range
    /// libzstd accepts.
    pub const fn clamped(self) -> Level {
        Level(if self.0 < MIN_LEVEL {
            MIN_LEVEL
        } else if self.0 > ULTRA_MAX_LEVEL {
            ULTRA_MAX_LEVEL
        } else {
            self.0
        })
    }
}

crate::encoder::level_conversions!(Level);
