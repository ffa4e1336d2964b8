//! Helpers shared by the benchmark programs: input listing, size parsing
//! and the geometric mean (the C reference is `lzkit_testkit::c_ref`).

use lzkit::lz4::block;
use std::path::{Path, PathBuf};

/// Parse a size with an optional K or M suffix (binary), 1..=MAX_INPUT_SIZE.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1 << 10),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    let n: usize = digits.parse().map_err(|e| format!("bad size {s:?}: {e}"))?;
    match n.checked_mul(unit) {
        Some(n) if n > 0 && n <= block::MAX_INPUT_SIZE => Ok(n),
        _ => Err(format!(
            "size {s:?} out of range 1..={}",
            block::MAX_INPUT_SIZE
        )),
    }
}

/// The regular files named, or directly inside the directories named, sorted.
pub fn list_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let dir = std::fs::read_dir(input).map_err(|e| format!("{}: {e}", input.display()))?;
            for entry in dir {
                let path = entry
                    .map_err(|e| format!("{}: {e}", input.display()))?
                    .path();
                if path.is_file() {
                    files.push(path);
                }
            }
        } else if input.is_file() {
            files.push(input.clone());
        } else {
            return Err(format!("{}: not a file or directory", input.display()));
        }
    }
    files.sort();
    Ok(files)
}

/// A path's file name, for table rows.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// Geometric mean (1.0 for no values).
pub fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.fold((0.0, 0u32), |(s, n), x| (s + x.ln(), n + 1));
    (sum / f64::from(n.max(1))).exp()
}
