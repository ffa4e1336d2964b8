//! Values given on the command line, read the same way by every
//! subcommand: sizes with suffixes, levels, thread counts and the numbers
//! lz4 reads inside option clusters.
//!
//! Each function returns what went wrong without wording it for one
//! option (or with a plain wording); the caller names the option in its
//! own message, so `--memory`, `--range`, `lzkit bench -B` and `lzkit
//! probe -B` keep their messages while sharing one reading.

use std::ops::RangeInclusive;

/// Most worker threads of the lz4-style interface; larger requests are
/// clamped to it, as lz4 does (`LZ4_NBWORKERS_MAX`).
pub const MAX_THREADS: usize = 200;

/// The power of two of a size suffix: none or B (0), K, KB, KiB (10), M,
/// MB, MiB (20), G, GB, GiB (30), in any case; all binary, as the `lz4`
/// and `zstd` commands read them. The one table of every size on the
/// command line.
pub fn binary_shift(suffix: &str) -> Option<u32> {
    match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => Some(0),
        "k" | "kb" | "kib" => Some(10),
        "m" | "mb" | "mib" => Some(20),
        "g" | "gb" | "gib" => Some(30),
        _ => None,
    }
}

/// How a size may be written: the parts where the subcommands' sizes
/// really differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeSyntax {
    /// A fraction is allowed (`1.5M`): the number is read as a float and
    /// the bytes rounded down. Otherwise only digits.
    pub fractions: bool,
    /// The largest suffix accepted, as its [`binary_shift`]: 30 for G, 20
    /// for M.
    pub largest_shift: u32,
}

impl SizeSyntax {
    /// Digits and a suffix up to G (`4096`, `64K`, `2GiB`): the sizes of
    /// the lz4-style interface (`--memory`, `--range`, `--seekable`).
    pub const WHOLE: SizeSyntax = SizeSyntax {
        fractions: false,
        largest_shift: 30,
    };
    /// Digits and a suffix up to M (`64K`, `1M`): `lzkit bench -B`'s
    /// block sizes.
    pub const WHOLE_TO_M: SizeSyntax = SizeSyntax {
        fractions: false,
        largest_shift: 20,
    };
    /// Digits with an optional fraction and a suffix up to G (`1.5M`):
    /// `lzkit probe`'s sizes.
    pub const FRACTIONAL: SizeSyntax = SizeSyntax {
        fractions: true,
        largest_shift: 30,
    };
}

/// Why a size could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// The suffix is none of [`binary_shift`]'s, or larger than the
    /// syntax allows.
    Unit,
    /// The number is missing or unreadable, or the size overflows.
    Number,
}

/// A size written as [`SizeSyntax::WHOLE`] says (`0` included), with a
/// plain message when it cannot be read.
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_size_with(text, SizeSyntax::WHOLE).map_err(|_| {
        format!("invalid size '{text}': use digits with an optional K, M or G (64K, 1M, 4G)")
    })
}

/// A size written as `syntax` says: a number, then an optional suffix
/// ([`binary_shift`]). Zero is a size; callers that need at least a byte
/// say so.
pub fn parse_size_with(text: &str, syntax: SizeSyntax) -> Result<u64, SizeError> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || (syntax.fractions && c == '.')))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let shift = binary_shift(suffix)
        .filter(|&s| s <= syntax.largest_shift)
        .ok_or(SizeError::Unit)?;
    if syntax.fractions {
        let n: f64 = number.parse().map_err(|_| SizeError::Number)?;
        let bytes = n * (1u64 << shift) as f64;
        if !(bytes.is_finite() && bytes < u64::MAX as f64) {
            return Err(SizeError::Number);
        }
        return Ok(bytes as u64);
    }
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or(SizeError::Number)
}

/// The decimal number at the start of `digits`, as lz4 reads the numbers
/// inside option clusters (`-12`, `-T4`, `-B65536`): it saturates instead
/// of overflowing. Returns the value and the number of digits consumed
/// (0 when `digits` does not start with one; the value is then 0).
pub fn leading_number(digits: &[u8]) -> (u64, usize) {
    let mut n: u64 = 0;
    let mut used = 0;
    for &d in digits.iter().take_while(|d| d.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(u64::from(d - b'0'));
        used += 1;
    }
    (n, used)
}

/// A thread count of the lz4-style interface as given (`-T#`,
/// `--threads=#`, `LZ4_NBWORKERS`), clamped to [`MAX_THREADS`]; 0 means one
/// per core.
pub fn thread_count(n: u64) -> usize {
    usize::try_from(n).map_or(MAX_THREADS, |n| n.min(MAX_THREADS))
}

/// Why a count (threads, rounds) could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountError {
    /// Not a non-negative integer that fits.
    NotANumber,
    /// A number, above the largest allowed.
    TooLarge(usize),
}

/// A count from 0 to `max` written as plain digits (`--threads=8`, where
/// 0 is one thread per core).
pub fn parse_count(text: &str, max: usize) -> Result<usize, CountError> {
    match text.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        Ok(n) => Err(CountError::TooLarge(n)),
        Err(_) => Err(CountError::NotANumber),
    }
}

/// The `N` of `--fast[=N]`: 1 when absent, else an integer of at least 1.
pub fn parse_fast(value: Option<&str>) -> Result<u32, String> {
    match value {
        None => Ok(1),
        Some(v) => match v.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!(
                "invalid --fast value '{v}': expected an integer >= 1"
            )),
        },
    }
}

/// A level within `range` (surrounding spaces allowed): above the range is
/// its top (as lz4 reads `-99`), below it or not an integer is `None`.
pub fn parse_level(text: &str, range: RangeInclusive<i32>) -> Option<i32> {
    match text.trim().parse::<i64>() {
        Ok(n) if n > i64::from(*range.end()) => Some(*range.end()),
        Ok(n) if n >= i64::from(*range.start()) => Some(n as i32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        assert_eq!(binary_shift(""), Some(0));
        assert_eq!(binary_shift("B"), Some(0));
        assert_eq!(binary_shift("kIb"), Some(10));
        assert_eq!(binary_shift("MB"), Some(20));
        assert_eq!(binary_shift("g"), Some(30));
        assert_eq!(binary_shift("T"), None);
        assert_eq!(binary_shift("KK"), None);
    }

    #[test]
    fn whole_sizes() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64K"), Ok(65_536));
        assert_eq!(parse_size("256kib"), Ok(256 << 10));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        for bad in ["", "K", "1.5M", "1X", "-1", "1 K", "20000000000G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert!(parse_size("1T").unwrap_err().contains("'1T'"));
    }

    #[test]
    fn syntax_limits() {
        let up_to_m = SizeSyntax::WHOLE_TO_M;
        assert_eq!(parse_size_with("1M", up_to_m), Ok(1 << 20));
        assert_eq!(parse_size_with("1G", up_to_m), Err(SizeError::Unit));
        assert_eq!(parse_size_with("xK", up_to_m), Err(SizeError::Unit));
        assert_eq!(parse_size_with("K", up_to_m), Err(SizeError::Number));
        assert_eq!(parse_size_with("1.5K", up_to_m), Err(SizeError::Unit));
    }

    #[test]
    fn fractional_sizes() {
        let f = SizeSyntax::FRACTIONAL;
        assert_eq!(parse_size_with("1.5M", f), Ok(3 << 19));
        assert_eq!(parse_size_with("100", f), Ok(100));
        assert_eq!(parse_size_with(".5K", f), Ok(512));
        assert_eq!(parse_size_with("0.3", f), Ok(0));
        assert_eq!(parse_size_with(".", f), Err(SizeError::Number));
        assert_eq!(parse_size_with("", f), Err(SizeError::Number));
        assert_eq!(parse_size_with("1X", f), Err(SizeError::Unit));
        assert_eq!(
            parse_size_with("99999999999999999999G", f),
            Err(SizeError::Number)
        );
    }

    #[test]
    fn cluster_numbers_and_threads() {
        assert_eq!(leading_number(b"12fc"), (12, 2));
        assert_eq!(leading_number(b"x"), (0, 0));
        assert_eq!(leading_number(b"99999999999999999999999"), (u64::MAX, 23));
        assert_eq!(thread_count(4), 4);
        assert_eq!(thread_count(100_000), MAX_THREADS);
        assert_eq!(thread_count(u64::MAX), MAX_THREADS);
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("0", 1024), Ok(0));
        assert_eq!(parse_count("1024", 1024), Ok(1024));
        assert_eq!(parse_count("1025", 1024), Err(CountError::TooLarge(1025)));
        assert_eq!(parse_count("-1", 1024), Err(CountError::NotANumber));
        assert_eq!(parse_count("", 1024), Err(CountError::NotANumber));
    }

    #[test]
    fn fast_and_levels() {
        assert_eq!(parse_fast(None), Ok(1));
        assert_eq!(parse_fast(Some("7")), Ok(7));
        assert!(parse_fast(Some("0")).is_err());
        assert!(parse_fast(Some("x")).unwrap_err().contains("'x'"));
        assert_eq!(parse_level("9", -5..=12), Some(9));
        assert_eq!(parse_level(" 99 ", -5..=12), Some(12));
        assert_eq!(parse_level("-5", -5..=12), Some(-5));
        assert_eq!(parse_level("-6", -5..=12), None);
        assert_eq!(parse_level("x", -5..=12), None);
    }
}
