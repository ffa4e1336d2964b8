//! The report as tables: the compact or full speed table with its
//! summary rows, the adaptive decoder's choices and the prose around them
//! (text and markdown), and the one wide CSV table.

use std::fmt::Write as _;

use lzkit::lz4::block::{MIN_TIMED_BYTES, PRIOR_TRUST_BYTES, Variant};

use super::super::measure::{HOT_MIN_PASSES, HOT_SAMPLE_BYTES, Sampling};
use super::super::reference::{self, MISSING};
use super::super::render::{Cell, Table, block_size_label, human_size};
use super::summary::{Derived, Summary, on_files};
use super::{
    FileResult, Format, Report, Settings, Speeds, TEXT_WIDTH, pulls, short_name, skipped, wrap,
};

/// The columns after the per-variant ones, by their CSV and JSON names.
const TAIL: [&str; 11] = [
    "adapt",
    "fresh",
    "free",
    "max",
    "best",
    "adapt_boost",
    "fresh_boost",
    "free_boost",
    "max_boost",
    "adapt_over_max",
    "memcpy",
];

/// The compact table's columns after file and size: the head shown, and
/// the column's CSV and JSON name (for its cells and its worst value).
const COMPACT: [(&str, &str); 11] = [
    ("ratio", "ratio"),
    ("ref", "ref"),
    ("flex", "lz4_flex"),
    ("adapt", "adapt"),
    ("copy", "memcpy"),
    ("best", "best"),
    ("m/ref", "max_boost"),
    ("a/ref", "adapt_boost"),
    ("n/ref", "fresh_boost"),
    ("f/ref", "free_boost"),
    ("a/max", "adapt_over_max"),
];

/// The cell of the column named `name` (a CSV and JSON name, not a
/// variant's) for speeds `s` and derived values `d`.
fn named_cell(name: &str, s: &Speeds, d: &Derived) -> Cell {
    match name {
        "ratio" => Cell::Compression(d.ratio),
        "ref" => Cell::Speed(s.reference),
        "lz4_flex" => Cell::Speed(s.lz4_flex),
        "adapt" => Cell::Speed(s.adapt),
        "fresh" => Cell::Speed(s.fresh),
        "free" => Cell::Speed(s.free),
        "memcpy" => Cell::Speed(s.memcpy),
        "max" => Cell::Speed(d.max),
        "best" => Cell::Text(d.best.name().into()),
        "adapt_boost" => Cell::Ratio(d.adapt_boost),
        "fresh_boost" => Cell::Ratio(d.fresh_boost),
        "free_boost" => Cell::Ratio(d.free_boost),
        "max_boost" => Cell::Ratio(d.max_boost),
        "adapt_over_max" => Cell::Ratio(d.adapt_over_max),
        _ => Cell::Empty,
    }
}

/// Names of the speed columns shared by every format.
fn speed_head(settings: &Settings) -> Vec<String> {
    let mut head = vec!["ratio".to_string(), "ref".into(), "lz4_flex".into()];
    head.extend(settings.variants.iter().map(|v| v.name().to_string()));
    head.extend(TAIL.map(String::from));
    head
}

/// The speed cells of one file, or of the geomean row, in [`speed_head`]'s
/// order.
fn speed_cells(s: &Speeds, d: &Derived) -> Vec<Cell> {
    let mut cells: Vec<Cell> = ["ratio", "ref", "lz4_flex"]
        .iter()
        .map(|n| named_cell(n, s, d))
        .collect();
    cells.extend(s.variants.iter().map(|&g| Cell::Speed(g)));
    cells.extend(TAIL.iter().map(|n| named_cell(n, s, d)));
    cells
}

/// The worst row's cells under the columns `head`: the lowest value of
/// each ratio column that has one, empty elsewhere.
fn worst_cells(sum: &Summary, head: &[String]) -> Vec<Cell> {
    head.iter()
        .map(|h| {
            sum.worst
                .iter()
                .find(|w| w.column == h)
                .map_or(Cell::Empty, |w| Cell::Ratio(w.value))
        })
        .collect()
}

impl Report {
    /// One row per file, made by `row` from the file and its derived
    /// columns.
    fn per_file(
        &self,
        derived: &[Derived],
        row: impl Fn(&FileResult, &Derived) -> Vec<Cell>,
    ) -> Vec<Vec<Cell>> {
        self.files
            .iter()
            .zip(derived)
            .map(|(f, d)| row(f, d))
            .collect()
    }

    /// Header, speed table, summary lines and the adaptive-choice table.
    pub(super) fn tables(&self, format: Format, derived: &[Derived], sum: &Summary) -> String {
        let md = format == Format::Markdown;
        let render = |t: &Table| if md { t.markdown() } else { t.text() };
        // In markdown, lines of prose need a blank line between paragraphs
        // and two trailing spaces to break; a list keeps them apart simply.
        let bullet = if md { "- " } else { "" };
        // Prose lines fit a terminal as text; markdown leaves the wrapping
        // to its reader.
        let prose = |out: &mut String, lines: Vec<String>| {
            for line in lines {
                match md {
                    true => {
                        let _ = writeln!(out, "{bullet}{line}");
                    }
                    false => out.push_str(&wrap(&line, TEXT_WIDTH)),
                }
            }
        };
        let full = self.settings.all_variants;
        let mut out = String::new();
        prose(&mut out, self.header_lines(sum));
        out.push('\n');
        out.push_str(&render(&match full {
            true => self.speed_table(derived, sum),
            false => self.compact_table(derived, sum),
        }));
        out.push('\n');
        prose(&mut out, self.summary_lines(sum));
        out.push('\n');
        out.push_str(&render(&match full {
            true => self.adapt_table(derived),
            false => self.compact_adapt_table(derived),
        }));
        out.push('\n');
        prose(&mut out, self.adapt_lines(sum));
        out
    }

    /// The default text table, under [`TEXT_WIDTH`] columns: ref, lz4_flex,
    /// the adaptive decoder, memcpy, the best fixed variant and the
    /// ratios to ref (every variant's column with `--variants`).
    fn compact_table(&self, derived: &[Derived], sum: &Summary) -> Table {
        // The head names the sampling: hot and interleaved figures of the
        // same file differ by up to 2x, and tables get pasted without
        // their header lines.
        let file = format!("file ({})", self.settings.sampling.name());
        let mut head = vec![file, "size".into()];
        head.extend(COMPACT.map(|c| c.0.to_string()));
        let cells = |s: &Speeds, d: &Derived| COMPACT.map(|c| named_cell(c.1, s, d));
        let mut rows: Vec<Vec<Cell>> = self.per_file(derived, |f, d| {
            let mut r = vec![Cell::Text(short_name(&f.name)), Cell::Size(f.bytes as u64)];
            r.extend(cells(&f.speeds, d));
            r
        });
        let summary_from = rows.len();
        let mut geo = vec![Cell::Text("geomean".into()), Cell::Size(sum.bytes as u64)];
        geo.extend(cells(&sum.speeds, &sum.derived));
        rows.push(geo);
        let mut worst = vec![Cell::Text("worst".into()), Cell::Empty];
        worst.extend(worst_cells(sum, &COMPACT.map(|c| c.1.to_string())));
        rows.push(worst);
        Table {
            head,
            rows,
            summary_from,
        }
    }

    /// The default choice table: per file, what each entry point decoded
    /// with, and the fastest fixed variant.
    fn compact_adapt_table(&self, derived: &[Derived]) -> Table {
        let head = ["file", "adapt", "pulls", "fresh", "free", "best"]
            .map(String::from)
            .to_vec();
        let rows = self.per_file(derived, |f, d| {
            let pulls: u64 = f.adapt.arms.iter().map(|a| a.blocks).sum();
            let on_preferred = f
                .adapt
                .arms
                .iter()
                .find(|a| a.variant == f.adapt.preferred)
                .map_or(0, |a| a.blocks);
            vec![
                Cell::Text(short_name(&f.name)),
                Cell::Text(f.adapt.preferred.name().into()),
                Cell::Text(format!("{on_preferred}/{pulls}")),
                Cell::Text(f.adapt.prior.map_or("-", |v| v.name()).into()),
                Cell::Text(f.free_choice.name().into()),
                Cell::Text(d.best.name().into()),
            ]
        });
        Table {
            head,
            rows,
            summary_from: usize::MAX,
        }
    }

    fn header_lines(&self, sum: &Summary) -> Vec<String> {
        let s = &self.settings;
        let names = |vs: &[Variant]| vs.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ");
        let mut lines = vec![
            format!(
                "lzkit bench: {}: {} files, {} in {} blocks of {}",
                s.source,
                self.files.len(),
                human_size(sum.bytes as u64),
                sum.blocks,
                block_size_label(s.block_size)
            ),
            format!("compressed with {}", s.compressor),
            format!(
                "speeds in GB/s of decompressed data (10^9 bytes/s, one core), {} of {} rounds{}; \
                 contenders interleaved in a random order each round (seed {}); every decode verified",
                s.stat.name(),
                s.rounds,
                match s.sampling {
                    Sampling::Cold =>
                        ", each one first visit after 1 MiB of other data (--cold)".to_string(),
                    Sampling::Hot => format!(
                        ", each the best pass of {} MiB (at least {HOT_MIN_PASSES} passes) back \
                         to back into one output after a first pass, the blocks and output in \
                         cache where they fit (--hot)",
                        HOT_SAMPLE_BYTES >> 20
                    ),
                    Sampling::Passes => ", each at least 1 MiB of repeated passes".to_string(),
                },
                s.seed
            ),
            format!(
                "ref = {}; lz4_flex = lz4_flex::block::decompress_into (safe); {} = lzkit \
                 Decoder::with_variant (a name ending in m: the loop with the match-only branch; \
                 in h: medium matches without a length branch); \
                 adapt = lzkit Decoder, one per file, learning over all rounds among {}; \
                 fresh = a new Decoder for every pass over the file (each read by a fresh \
                 decoder); free = block::decompress_into (keeps no state){}",
                s.reference,
                names(&s.variants),
                names(&s.candidates),
                match s.interleave {
                    Some(n) => format!(
                        "; each row a group of {n} files whose blocks are decoded in turn, \
                         round-robin (named by its first file)"
                    ),
                    None => String::new(),
                }
            ),
            match s.all_variants {
                true => "max, best = fastest fixed variant; adapt_boost = adapt/ref; \
                         fresh_boost, free_boost = fresh/ref, free/ref; max_boost = max/ref; \
                         adapt_over_max = adapt/max; memcpy = copying the decoded bytes (the \
                         ceiling)"
                    .to_string(),
                false => "flex = lz4_flex; copy = memcpy, copying the decoded bytes (the \
                          ceiling); best = fastest fixed variant (all of them: --variants); \
                          m/ref = best/ref (max_boost); a/ref, n/ref, f/ref = adapt, fresh, free \
                          over ref; a/max = adapt/best (adapt_over_max)"
                    .to_string(),
            },
            format!(
                "skipped (this CPU cannot run them): {}",
                match skipped(&s.variants).as_slice() {
                    [] => "none".to_string(),
                    vs => names(vs),
                }
            ),
        ];
        if !reference::BUILT_IN {
            lines.push(MISSING.to_string());
        }
        lines
    }

    fn speed_table(&self, derived: &[Derived], sum: &Summary) -> Table {
        let mut head = vec!["file".to_string(), "size".into()];
        head.extend(speed_head(&self.settings));
        let mut rows: Vec<Vec<Cell>> = self.per_file(derived, |f, d| {
            let mut r = vec![Cell::Text(f.name.clone()), Cell::Size(f.bytes as u64)];
            r.extend(speed_cells(&f.speeds, d));
            r
        });
        let lead = [
            vec![Cell::Text("geomean".into()), Cell::Size(sum.bytes as u64)],
            vec![Cell::Text("worst".into()), Cell::Empty],
        ];
        let summary_from = rows.len();
        rows.extend(self.summary_rows(sum, lead, 0));
        Table {
            head,
            rows,
            summary_from,
        }
    }

    /// The geomean and worst rows: `lead` cells before the speed columns,
    /// `tail` empty cells after them.
    fn summary_rows(&self, sum: &Summary, lead: [Vec<Cell>; 2], tail: usize) -> [Vec<Cell>; 2] {
        let [mut geo, mut worst] = lead;
        geo.extend(speed_cells(&sum.speeds, &sum.derived));
        worst.extend(worst_cells(sum, &speed_head(&self.settings)));
        for row in [&mut geo, &mut worst] {
            row.extend(vec![Cell::Empty; tail]);
        }
        [geo, worst]
    }

    fn summary_lines(&self, sum: &Summary) -> Vec<String> {
        let mut lines: Vec<String> = sum
            .worst
            .iter()
            // Ratios to a reference not built in.
            .filter(|w| !w.value.is_nan())
            .map(|w| format!("worst {}: {:.3} on {}", w.column, w.value, w.file))
            .collect();
        let best = sum.derived.best;
        let k = self.settings.variants.iter().position(|&v| v == best);
        lines.push(format!(
            "best fixed variant over all files: {} ({:.2} GB/s geomean); adapt_over_fixed = \
             adapt/{}: {:.3} geomean",
            best.name(),
            k.map_or(f64::NAN, |k| sum.speeds.variants[k]),
            best.name(),
            sum.adapt_over_fixed
        ));
        lines
    }

    fn adapt_table(&self, derived: &[Derived]) -> Table {
        let mut head = vec![
            "file".to_string(),
            "preferred".into(),
            "last".into(),
            "best".into(),
        ];
        head.extend(
            self.settings
                .candidates
                .iter()
                .map(|v| format!("pulls {}", v.name())),
        );
        let rows = self.per_file(derived, |f, d| {
            let mut r = vec![
                Cell::Text(f.name.clone()),
                Cell::Text(f.adapt.preferred.name().into()),
                Cell::Text(f.adapt.last.name().into()),
                Cell::Text(d.best.name().into()),
            ];
            r.extend(pulls(&f.adapt, &self.settings.candidates).map(Cell::Count));
            r
        });
        Table {
            head,
            rows,
            summary_from: usize::MAX,
        }
    }

    fn adapt_lines(&self, sum: &Summary) -> Vec<String> {
        let counts = on_files(sum.preferred.iter());
        let mut lines = vec![
            match self.settings.all_variants {
                true => {
                    "adaptive decoder per file: preferred = Decoder::preferred() after all \
                         rounds, last = last_variant(), best = fastest fixed variant, pulls = \
                         blocks each candidate decoded (stats(); blocks under the timing \
                         threshold are timed in batches, and once the choice is clear most blocks \
                         go to the settled variant untimed); prior = the variant a sample of the \
                         first block suggested, free_choice = the free function's variant for \
                         most blocks; names ending in m have the match-only branch, in h the \
                         branch-free medium matches"
                }
                false => {
                    "choices per file: adapt = the adaptive decoder's preference after all \
                          rounds, pulls = blocks it decoded with it / all; fresh = the variant a \
                          new decoder starts on (a sample of the first block; it explores only \
                          after 2 MiB); free = the free function's variant for most blocks; \
                          best = fastest fixed variant; names ending in m have the match-only \
                          branch, in h the branch-free medium matches"
                }
            }
            .to_string(),
            format!(
                "preferred: {} files; preferred = best on {} of {} files",
                counts.join(", "),
                sum.preferred_is_best,
                self.files.len()
            ),
        ];
        let primed = on_files(sum.primed.iter().filter(|c| c.1 > 0));
        if !primed.is_empty() {
            lines.push(format!(
                "started on (the variant a sample of the first block suggested; trusted for \
                 the first {} MiB, then explored): {}",
                PRIOR_TRUST_BYTES >> 20,
                primed.join(", ")
            ));
        }
        if sum.untimed > 0 {
            lines.push(format!(
                "{} files were decoded without a single timing of {} KiB or more completing: \
                 the adaptive decoder used the variant it started on (see last and \
                 preferred)",
                sum.untimed,
                MIN_TIMED_BYTES >> 10
            ));
        }
        lines
    }

    /// One wide table: sizes, speeds, derived columns and the adaptive
    /// decoder's choices per file, then the geomean and worst rows.
    pub(super) fn csv_table(&self, derived: &[Derived], sum: &Summary) -> Table {
        let cands = &self.settings.candidates;
        let mut head = ["file", "bytes", "compressed_bytes", "blocks"]
            .map(String::from)
            .to_vec();
        head.extend(speed_head(&self.settings));
        head.extend([
            "preferred".to_string(),
            "last".into(),
            "prior".into(),
            "free_choice".into(),
        ]);
        head.extend(cands.iter().map(|v| format!("pulls_{}", v.name())));
        let mut rows: Vec<Vec<Cell>> = self.per_file(derived, |f, d| {
            let mut r = vec![
                Cell::Text(f.name.clone()),
                Cell::Size(f.bytes as u64),
                Cell::Size(f.compressed as u64),
                Cell::Count(f.blocks as u64),
            ];
            r.extend(speed_cells(&f.speeds, d));
            r.push(Cell::Text(f.adapt.preferred.name().into()));
            r.push(Cell::Text(f.adapt.last.name().into()));
            r.push(Cell::Text(f.adapt.prior.map_or("", |v| v.name()).into()));
            r.push(Cell::Text(f.free_choice.name().into()));
            r.extend(pulls(&f.adapt, cands).map(Cell::Count));
            r
        });
        let lead = [
            vec![
                Cell::Text("geomean".into()),
                Cell::Size(sum.bytes as u64),
                Cell::Empty,
                Cell::Count(sum.blocks as u64),
            ],
            vec![
                Cell::Text("worst".into()),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
            ],
        ];
        let summary_from = rows.len();
        rows.extend(self.summary_rows(sum, lead, 4 + cands.len()));
        Table {
            head,
            rows,
            summary_from,
        }
    }
}
