//! The report: the ClickHouse study's per-file table (speeds, `max`, `best`,
//! `adapt_boost`, `max_boost`, `adapt_over_max`) with a summary of geometric
//! means and worst files, and a second table of the adaptive decoder's
//! choices; as aligned text, markdown, CSV or JSON.
//!
//! This module holds what was measured ([`Report`]); [`summary`] derives
//! the study's columns and the summary over the files, [`tables`] draws
//! the text, markdown and CSV tables and [`json`] the JSON object.

mod json;
mod summary;
mod tables;

use lzkit::lz4::block::Variant;

use super::measure::{AdaptOutcome, Sampling, Stat};
use summary::{Derived, Summary};

/// Output format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for a terminal.
    Text,
    /// GitHub-flavoured markdown tables, for issues and notes.
    Markdown,
    /// One header line and one line per file, then the summary rows.
    Csv,
    /// One object with settings, files and summary.
    Json,
}

impl Format {
    /// Every format, by command-line name.
    pub const ALL: &[(&str, Format)] = &[
        ("text", Format::Text),
        ("markdown", Format::Markdown),
        ("csv", Format::Csv),
        ("json", Format::Json),
    ];
}

/// How the numbers were obtained, for the report's header.
#[derive(Debug, Clone)]
pub struct Settings {
    /// What was measured ("built-in corpus", or the paths named).
    pub source: String,
    /// Block size in bytes.
    pub block_size: usize,
    /// Compressor and level, as [`super::codec::Compressor::describe`] says.
    pub compressor: String,
    /// Decoder every speed is compared to.
    pub reference: String,
    /// Timed rounds.
    pub rounds: u32,
    /// Statistic over the rounds.
    pub stat: Stat,
    /// How a sample decoded: repeated passes, hot (`--hot`) or a first
    /// visit (`--cold`).
    pub sampling: Sampling,
    /// Seed of the round order and of the adaptive decoders.
    pub seed: u64,
    /// lzkit variants this CPU runs, each a column.
    pub variants: Vec<Variant>,
    /// Variants the adaptive decoder chooses among.
    pub candidates: Vec<Variant>,
    /// Text and markdown: every variant's column (`--variants`), not the
    /// compact table.
    pub all_variants: bool,
    /// Inputs decoded block by block in turn, in groups of this many
    /// (`--interleave N`).
    pub interleave: Option<usize>,
}

/// Decoding speeds of one file in GB/s (10^9 decoded bytes per second).
#[derive(Debug, Clone)]
pub struct Speeds {
    /// `LZ4_decompress_safe`.
    pub reference: f64,
    /// `lz4_flex::block::decompress_into`.
    pub lz4_flex: f64,
    /// Each of [`Settings::variants`], forced.
    pub variants: Vec<f64>,
    /// The adaptive decoder.
    pub adapt: f64,
    /// A new adaptive decoder per pass (per read of the file).
    pub fresh: f64,
    /// The free function `block::decompress_into`.
    pub free: f64,
    /// Copying the decoded bytes.
    pub memcpy: f64,
}

/// Everything measured on one file.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// Display name.
    pub name: String,
    /// Original size.
    pub bytes: usize,
    /// Compressed size (all blocks).
    pub compressed: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// Speeds.
    pub speeds: Speeds,
    /// The adaptive decoder's choices.
    pub adapt: AdaptOutcome,
    /// The variant the free function chose for most blocks.
    pub free_choice: Variant,
}

/// The whole run.
#[derive(Debug, Clone)]
pub struct Report {
    /// How it was measured.
    pub settings: Settings,
    /// One entry per file, in the order measured (not empty).
    pub files: Vec<FileResult>,
}

/// Geometric mean of positive values (NaN when empty).
pub fn geomean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    (sum / n as f64).exp()
}

impl Report {
    /// The report in `format`.
    pub fn render(&self, format: Format) -> String {
        let derived: Vec<Derived> = self
            .files
            .iter()
            .map(|f| Derived::of(f, &self.settings.variants))
            .collect();
        let summary = Summary::of(self, &derived);
        match format {
            Format::Text | Format::Markdown => self.tables(format, &derived, &summary),
            Format::Csv => self.csv_table(&derived, &summary).csv(),
            Format::Json => self.json(&derived, &summary),
        }
    }
}

/// The unit of every decoding speed, as the JSON reports state it.
pub const DECODE_UNIT: &str = "GB/s (10^9 decompressed bytes per second)";

/// The width text output's prose lines and default table fit in.
pub const TEXT_WIDTH: usize = 120;
/// The longest file name the compact tables show whole.
const SHORT_NAME: usize = 24;

/// `name`, cut to [`SHORT_NAME`] characters with a `~` where it was cut.
fn short_name(name: &str) -> String {
    match name.char_indices().nth(SHORT_NAME - 1) {
        Some((at, _)) if name.chars().count() > SHORT_NAME => format!("{}~", &name[..at]),
        _ => name.to_string(),
    }
}

/// `line` broken at spaces into lines of at most `width` characters (a
/// longer word stays whole), the later ones indented by two spaces; each
/// ends in a newline.
pub fn wrap(line: &str, width: usize) -> String {
    let mut out = String::new();
    let mut current = String::new();
    // Characters in `current`, and whether it holds a word yet.
    let (mut len, mut started) = (0usize, false);
    for word in line.split_whitespace() {
        let w = word.chars().count();
        if started && len + 1 + w > width {
            out.push_str(&current);
            out.push('\n');
            current = String::from("  ");
            (len, started) = (2, false);
        }
        if started {
            current.push(' ');
            len += 1;
        }
        current.push_str(word);
        (len, started) = (len + w, true);
    }
    out.push_str(&current);
    out.push('\n');
    out
}

/// Blocks each of `candidates` decoded, in that order.
fn pulls<'a>(adapt: &'a AdaptOutcome, candidates: &'a [Variant]) -> impl Iterator<Item = u64> + 'a {
    candidates.iter().map(|&v| {
        adapt
            .arms
            .iter()
            .find(|a| a.variant == v)
            .map_or(0, |a| a.blocks)
    })
}

/// The variants of the table that are not among `run` (those this CPU
/// cannot run): reported, never replaced by another.
fn skipped(run: &[Variant]) -> Vec<Variant> {
    Variant::ALL
        .iter()
        .filter(|v| !run.contains(v))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lzkit::lz4::block::{Kernel, VariantStats};

    fn file(name: &str, reference: f64, variants: Vec<f64>, adapt: f64) -> FileResult {
        FileResult {
            name: name.into(),
            bytes: 1 << 20,
            compressed: 1 << 18,
            blocks: 16,
            speeds: Speeds {
                reference,
                lz4_flex: 1.0,
                variants,
                adapt,
                fresh: adapt,
                free: reference,
                memcpy: 20.0,
            },
            adapt: AdaptOutcome {
                prior: None,
                preferred: Variant::plain(Kernel::Portable8),
                last: Variant::plain(Kernel::Portable8),
                arms: vec![VariantStats {
                    variant: Variant::plain(Kernel::Portable8),
                    blocks: 48,
                    timed: 40,
                    cost_per_byte: 0.25,
                }],
            },
            free_choice: Variant::plain(Kernel::Portable16),
        }
    }

    fn report() -> Report {
        Report {
            settings: Settings {
                source: "test \"data\"".into(),
                block_size: 65_536,
                compressor: "lz4".into(),
                reference: "ref".into(),
                rounds: 3,
                stat: Stat::Min,
                sampling: Sampling::Passes,
                seed: 1,
                variants: vec![
                    Variant::plain(Kernel::Portable8),
                    Variant::plain(Kernel::Portable16),
                ],
                candidates: vec![Variant::plain(Kernel::Portable8)],
                all_variants: true,
                interleave: None,
            },
            files: vec![
                file("a,b", 2.0, vec![3.0, 4.0], 4.0),
                file("c", 4.0, vec![4.0, 2.0], 3.0),
            ],
        }
    }

    #[test]
    fn derived_and_summary() {
        let r = report();
        let d: Vec<Derived> = r
            .files
            .iter()
            .map(|f| Derived::of(f, &r.settings.variants))
            .collect();
        assert_eq!(
            (d[0].max, d[0].best),
            (4.0, Variant::plain(Kernel::Portable16))
        );
        assert_eq!(
            (d[0].adapt_boost, d[0].max_boost, d[0].adapt_over_max),
            (2.0, 2.0, 1.0)
        );
        assert_eq!(d[1].best, Variant::plain(Kernel::Portable8));
        let s = Summary::of(&r, &d);
        assert!((s.derived.adapt_boost - (2.0f64 * 0.75).sqrt()).abs() < 1e-12);
        assert_eq!(s.worst[0].file, "c");
        // portable8: sqrt(12), portable16: sqrt(8).
        assert_eq!(s.derived.best, Variant::plain(Kernel::Portable8));
        assert_eq!(s.preferred_is_best, 1);
    }

    #[test]
    fn compact_text_fits_a_terminal() {
        let mut r = report();
        r.settings.all_variants = false;
        r.files[0].name = "a_rather_long_file_name_of_a_column.Float64".into();
        let text = r.render(Format::Text);
        for line in text.lines() {
            assert!(line.chars().count() <= TEXT_WIDTH, "{line}");
        }
        for col in [
            "flex", "copy", "m/ref", "a/ref", "n/ref", "f/ref", "a/max", "worst",
        ] {
            assert!(text.contains(col), "{col} missing:\n{text}");
        }
        assert!(text.contains("a_rather_long_file_name~"));
        // The full table is still there with --variants, in every format.
        assert!(r.render(Format::Csv).contains("portable16"));
        let head = text.lines().find(|l| l.starts_with("file ")).unwrap();
        assert!(!head.contains("portable"), "{head}");
    }

    #[test]
    fn wrapping_keeps_every_word() {
        let line = "one two three four five six seven eight nine ten";
        let wrapped = wrap(line, 14);
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 14),
            "{wrapped}"
        );
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words.join(" "), line);
        assert!(wrapped.lines().skip(1).all(|l| l.starts_with("  ")));
        assert_eq!(wrap("short", 80), "short\n");
    }

    #[test]
    fn formats_carry_every_column() {
        let r = report();
        let text = r.render(Format::Text);
        for col in [
            "ref",
            "lz4_flex",
            "portable16",
            "adapt_boost",
            "adapt_over_max",
            "geomean",
            "worst",
        ] {
            assert!(text.contains(col), "{col} missing:\n{text}");
        }
        let csv = r.render(Format::Csv);
        assert!(csv.contains("\"a,b\""));
        let md = r.render(Format::Markdown);
        assert!(
            md.lines()
                .any(|l| l.starts_with("| file | size | ratio | ref |"))
        );
        let json = r.render(Format::Json);
        assert!(json.contains("\"source\": \"test \\\"data\\\"\""));
        assert!(json.contains("\"free_boost\": 1.0000"));
        assert!(json.contains("\"adapt_boost\": 2.0000"));
    }
}
