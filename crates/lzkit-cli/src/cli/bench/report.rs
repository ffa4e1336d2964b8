//! The report: the ClickHouse study's per-file table (speeds, `max`, `best`,
//! `adapt_boost`, `max_boost`, `adapt_over_max`) with a summary of geometric
//! means and worst files, and a second table of the adaptive decoder's
//! choices; as aligned text, markdown, CSV or JSON.

use std::fmt::Write as _;

use lzkit::lz4::block::{Kernel, MIN_TIMED_BYTES, PRIOR_TRUST_BYTES, Variant};

use super::measure::{AdaptOutcome, Stat};
use super::render::{
    Cell, Table, block_size_label, human_size, json_array, json_num, json_object, json_str,
};

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
    /// Whether every sample was a first visit (`--cold`).
    pub cold: bool,
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

/// The study's derived columns for one file.
#[derive(Debug, Clone, Copy)]
struct Derived {
    /// Compression ratio: original / compressed.
    ratio: f64,
    /// Speed of the fastest fixed lzkit variant.
    max: f64,
    /// That variant.
    best: Variant,
    /// adapt / ref.
    adapt_boost: f64,
    /// fresh / ref.
    fresh_boost: f64,
    /// free / ref.
    free_boost: f64,
    /// max / ref.
    max_boost: f64,
    /// adapt / max.
    adapt_over_max: f64,
}

impl Derived {
    fn of(file: &FileResult, variants: &[Variant]) -> Derived {
        let s = &file.speeds;
        let (best, max) = variants
            .iter()
            .zip(&s.variants)
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(&v, &g)| (v, g))
            .unwrap_or((Variant::plain(Kernel::Portable16), f64::NAN));
        Derived {
            ratio: file.bytes as f64 / file.compressed.max(1) as f64,
            max,
            best,
            adapt_boost: s.adapt / s.reference,
            fresh_boost: s.fresh / s.reference,
            free_boost: s.free / s.reference,
            max_boost: max / s.reference,
            adapt_over_max: s.adapt / max,
        }
    }
}

/// A ratio's lowest value over the files, and where.
#[derive(Debug, Clone)]
struct Worst {
    column: &'static str,
    value: f64,
    file: String,
}

/// The summary over all files.
#[derive(Debug, Clone)]
struct Summary {
    bytes: usize,
    blocks: usize,
    /// Geometric means of the speeds, each file weighted equally.
    speeds: Speeds,
    /// Geometric means of the derived columns; `best` is the fixed variant
    /// with the highest geometric mean speed: the best that choosing one
    /// variant for all data could do.
    derived: Derived,
    /// adapt / that variant's speed, geometric mean.
    adapt_over_fixed: f64,
    /// Lowest adapt_boost, fresh_boost, free_boost, max_boost,
    /// adapt_over_max, adapt_over_fixed.
    worst: Vec<Worst>,
    /// Files on which each candidate was the adaptive decoder's preference.
    preferred: Vec<(Variant, usize)>,
    /// Files on which each candidate was the variant the adaptive decoder
    /// started on (its data prior).
    primed: Vec<(Variant, usize)>,
    /// Files on which the preference was the fastest fixed variant.
    preferred_is_best: usize,
    /// Files of which the adaptive decoder timed no block (all too small).
    untimed: usize,
}

/// Geometric mean of positive values (NaN when empty).
pub fn geomean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    (sum / n as f64).exp()
}

impl Summary {
    fn of(report: &Report, derived: &[Derived]) -> Summary {
        let files = &report.files;
        let variants = &report.settings.variants;
        let geo = |f: &dyn Fn(usize) -> f64| geomean((0..files.len()).map(f));
        let variant_geo: Vec<f64> = (0..variants.len())
            .map(|k| geo(&|i| files[i].speeds.variants[k]))
            .collect();
        let best_k = (0..variants.len())
            .max_by(|&a, &b| variant_geo[a].total_cmp(&variant_geo[b]))
            .unwrap_or(0);
        let over_fixed = |i: usize| files[i].speeds.adapt / files[i].speeds.variants[best_k];
        let worst_of = |column: &'static str, f: &dyn Fn(usize) -> f64| {
            let i = (0..files.len())
                .min_by(|&a, &b| f(a).total_cmp(&f(b)))
                .unwrap_or(0);
            Worst {
                column,
                value: f(i),
                file: files[i].name.clone(),
            }
        };
        let worst = vec![
            worst_of("adapt_boost", &|i| derived[i].adapt_boost),
            worst_of("fresh_boost", &|i| derived[i].fresh_boost),
            worst_of("free_boost", &|i| derived[i].free_boost),
            worst_of("max_boost", &|i| derived[i].max_boost),
            worst_of("adapt_over_max", &|i| derived[i].adapt_over_max),
            worst_of("adapt_over_fixed", &over_fixed),
        ];
        // Files per candidate on which `which` names that candidate.
        let per_candidate = |which: &dyn Fn(&FileResult) -> Option<Variant>| {
            let candidates = report.settings.candidates.iter();
            candidates
                .map(|&v| (v, files.iter().filter(|f| which(f) == Some(v)).count()))
                .collect()
        };
        let preferred = per_candidate(&|f| Some(f.adapt.preferred));
        let primed = per_candidate(&|f| f.adapt.prior);
        Summary {
            bytes: files.iter().map(|f| f.bytes).sum(),
            blocks: files.iter().map(|f| f.blocks).sum(),
            speeds: Speeds {
                reference: geo(&|i| files[i].speeds.reference),
                lz4_flex: geo(&|i| files[i].speeds.lz4_flex),
                variants: variant_geo,
                adapt: geo(&|i| files[i].speeds.adapt),
                fresh: geo(&|i| files[i].speeds.fresh),
                free: geo(&|i| files[i].speeds.free),
                memcpy: geo(&|i| files[i].speeds.memcpy),
            },
            derived: Derived {
                ratio: geo(&|i| derived[i].ratio),
                max: geo(&|i| derived[i].max),
                best: variants
                    .get(best_k)
                    .copied()
                    .unwrap_or(Variant::plain(Kernel::Portable16)),
                adapt_boost: geo(&|i| derived[i].adapt_boost),
                fresh_boost: geo(&|i| derived[i].fresh_boost),
                free_boost: geo(&|i| derived[i].free_boost),
                max_boost: geo(&|i| derived[i].max_boost),
                adapt_over_max: geo(&|i| derived[i].adapt_over_max),
            },
            adapt_over_fixed: geo(&over_fixed),
            worst,
            preferred,
            primed,
            preferred_is_best: files
                .iter()
                .zip(derived)
                .filter(|(f, d)| f.adapt.preferred == d.best)
                .count(),
            untimed: files
                .iter()
                .filter(|f| f.adapt.arms.iter().all(|a| a.timed == 0))
                .count(),
        }
    }
}

/// "variant on n" for each (variant, file count).
fn on_files<'a>(counts: impl Iterator<Item = &'a (Variant, usize)>) -> Vec<String> {
    counts
        .map(|(v, n)| format!("{} on {n}", v.name()))
        .collect()
}

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

    /// Header, speed table, summary lines and the adaptive-choice table.
    fn tables(&self, format: Format, derived: &[Derived], sum: &Summary) -> String {
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
        let mut head = vec!["file".to_string(), "size".into()];
        head.extend(COMPACT.map(|c| c.0.to_string()));
        let cells = |s: &Speeds, d: &Derived| COMPACT.map(|c| named_cell(c.1, s, d));
        let mut rows: Vec<Vec<Cell>> = self
            .files
            .iter()
            .zip(derived)
            .map(|(f, d)| {
                let mut r = vec![Cell::Text(short_name(&f.name)), Cell::Size(f.bytes as u64)];
                r.extend(cells(&f.speeds, d));
                r
            })
            .collect();
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
        let rows = self
            .files
            .iter()
            .zip(derived)
            .map(|(f, d)| {
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
            })
            .collect();
        Table {
            head,
            rows,
            summary_from: usize::MAX,
        }
    }

    fn header_lines(&self, sum: &Summary) -> Vec<String> {
        let s = &self.settings;
        let names = |vs: &[Variant]| vs.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ");
        vec![
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
                if s.cold {
                    ", each one first visit after 1 MiB of other data (--cold)"
                } else {
                    ", each at least 1 MiB of repeated passes"
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
        ]
    }

    fn speed_table(&self, derived: &[Derived], sum: &Summary) -> Table {
        let mut head = vec!["file".to_string(), "size".into()];
        head.extend(speed_head(&self.settings));
        let mut rows: Vec<Vec<Cell>> = self
            .files
            .iter()
            .zip(derived)
            .map(|(f, d)| {
                let mut r = vec![Cell::Text(f.name.clone()), Cell::Size(f.bytes as u64)];
                r.extend(speed_cells(&f.speeds, d));
                r
            })
            .collect();
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
        let rows = self
            .files
            .iter()
            .zip(derived)
            .map(|(f, d)| {
                let mut r = vec![
                    Cell::Text(f.name.clone()),
                    Cell::Text(f.adapt.preferred.name().into()),
                    Cell::Text(f.adapt.last.name().into()),
                    Cell::Text(d.best.name().into()),
                ];
                r.extend(pulls(&f.adapt, &self.settings.candidates).map(Cell::Count));
                r
            })
            .collect();
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
    fn csv_table(&self, derived: &[Derived], sum: &Summary) -> Table {
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
        let mut rows: Vec<Vec<Cell>> = self
            .files
            .iter()
            .zip(derived)
            .map(|(f, d)| {
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
            })
            .collect();
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

    fn json(&self, derived: &[Derived], sum: &Summary) -> String {
        let s = &self.settings;
        let names = |vs: &[Variant]| json_array(vs.iter().map(|v| json_str(v.name())));
        let mut out = String::from("{\n");
        let _ = writeln!(
            out,
            "  \"settings\": {},",
            json_object(&[
                ("source", json_str(&s.source)),
                ("block_size", s.block_size.to_string()),
                ("compressor", json_str(&s.compressor)),
                ("reference", json_str(&s.reference)),
                ("rounds", s.rounds.to_string()),
                ("stat", json_str(s.stat.name())),
                ("cold", s.cold.to_string()),
                ("seed", s.seed.to_string()),
                (
                    "interleave",
                    s.interleave
                        .map_or_else(|| "null".to_string(), |n| n.to_string()),
                ),
                ("unit", json_str(DECODE_UNIT)),
                ("variants", names(&s.variants)),
                ("skipped", names(&skipped(&s.variants))),
                ("candidates", names(&s.candidates)),
            ])
        );
        out.push_str("  \"files\": [\n");
        for (i, (f, d)) in self.files.iter().zip(derived).enumerate() {
            let sep = if i + 1 < self.files.len() { "," } else { "" };
            let _ = writeln!(out, "    {}{sep}", self.json_file(f, d));
        }
        out.push_str("  ],\n");
        let _ = writeln!(out, "  \"summary\": {}", self.json_summary(sum));
        out.push_str("}\n");
        out
    }

    fn json_file(&self, f: &FileResult, d: &Derived) -> String {
        let arms = json_array(f.adapt.arms.iter().map(|a| {
            json_object(&[
                ("variant", json_str(a.variant.name())),
                ("blocks", a.blocks.to_string()),
                ("timed", a.timed.to_string()),
                ("cost_per_byte", json_num(a.cost_per_byte)),
            ])
        }));
        json_object(&[
            ("file", json_str(&f.name)),
            ("bytes", f.bytes.to_string()),
            ("compressed_bytes", f.compressed.to_string()),
            ("blocks", f.blocks.to_string()),
            ("ratio", json_num(d.ratio)),
            ("gbps", self.json_speeds(&f.speeds)),
            ("max", json_num(d.max)),
            ("best", json_str(d.best.name())),
            ("adapt_boost", json_num(d.adapt_boost)),
            ("fresh_boost", json_num(d.fresh_boost)),
            ("free_boost", json_num(d.free_boost)),
            ("max_boost", json_num(d.max_boost)),
            ("adapt_over_max", json_num(d.adapt_over_max)),
            ("free_choice", json_str(f.free_choice.name())),
            ("preferred", json_str(f.adapt.preferred.name())),
            ("last", json_str(f.adapt.last.name())),
            (
                "prior",
                f.adapt
                    .prior
                    .map_or_else(|| "null".to_string(), |v| json_str(v.name())),
            ),
            ("arms", arms),
        ])
    }

    fn json_speeds(&self, s: &Speeds) -> String {
        let mut fields = vec![
            ("ref", json_num(s.reference)),
            ("lz4_flex", json_num(s.lz4_flex)),
        ];
        for (v, &g) in self.settings.variants.iter().zip(&s.variants) {
            fields.push((v.name(), json_num(g)));
        }
        fields.push(("adapt", json_num(s.adapt)));
        fields.push(("fresh", json_num(s.fresh)));
        fields.push(("free", json_num(s.free)));
        fields.push(("memcpy", json_num(s.memcpy)));
        json_object(&fields)
    }

    fn json_summary(&self, sum: &Summary) -> String {
        let geomean = json_object(&[
            ("ratio", json_num(sum.derived.ratio)),
            ("gbps", self.json_speeds(&sum.speeds)),
            ("max", json_num(sum.derived.max)),
            ("adapt_boost", json_num(sum.derived.adapt_boost)),
            ("fresh_boost", json_num(sum.derived.fresh_boost)),
            ("free_boost", json_num(sum.derived.free_boost)),
            ("max_boost", json_num(sum.derived.max_boost)),
            ("adapt_over_max", json_num(sum.derived.adapt_over_max)),
            ("adapt_over_fixed", json_num(sum.adapt_over_fixed)),
        ]);
        let worst: Vec<(&str, String)> = sum
            .worst
            .iter()
            .map(|w| {
                let o = json_object(&[("value", json_num(w.value)), ("file", json_str(&w.file))]);
                (w.column, o)
            })
            .collect();
        let preferred: Vec<(&str, String)> = sum
            .preferred
            .iter()
            .map(|(v, n)| (v.name(), n.to_string()))
            .collect();
        json_object(&[
            ("files", self.files.len().to_string()),
            ("bytes", sum.bytes.to_string()),
            ("blocks", sum.blocks.to_string()),
            ("geomean", geomean),
            ("worst", json_object(&worst)),
            ("best_fixed", json_str(sum.derived.best.name())),
            ("preferred_files", json_object(&preferred)),
            ("preferred_is_best_files", sum.preferred_is_best.to_string()),
            ("untimed_files", sum.untimed.to_string()),
        ])
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
    use lzkit::lz4::block::VariantStats;

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
                cold: false,
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
