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
    /// Lowest adapt_boost, max_boost, adapt_over_max, adapt_over_fixed.
    worst: Vec<Worst>,
    /// Files on which each candidate was the adaptive decoder's preference.
    preferred: Vec<(Variant, usize)>,
    /// Files on which each candidate was the variant the adaptive decoder
    /// started on (the process prior).
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

/// Names of the speed columns shared by every format.
fn speed_head(settings: &Settings) -> Vec<String> {
    let mut head = vec!["ratio".to_string(), "ref".into(), "lz4_flex".into()];
    head.extend(settings.variants.iter().map(|v| v.name().to_string()));
    head.extend(
        [
            "adapt",
            "max",
            "best",
            "adapt_boost",
            "max_boost",
            "adapt_over_max",
            "memcpy",
        ]
        .map(String::from),
    );
    head
}

/// The speed cells of one file, or of the geomean row, in [`speed_head`]'s
/// order.
fn speed_cells(s: &Speeds, d: &Derived) -> Vec<Cell> {
    let mut cells = vec![
        Cell::Compression(d.ratio),
        Cell::Speed(s.reference),
        Cell::Speed(s.lz4_flex),
    ];
    cells.extend(s.variants.iter().map(|&g| Cell::Speed(g)));
    cells.extend([
        Cell::Speed(s.adapt),
        Cell::Speed(d.max),
        Cell::Text(d.best.name().into()),
        Cell::Ratio(d.adapt_boost),
        Cell::Ratio(d.max_boost),
        Cell::Ratio(d.adapt_over_max),
        Cell::Speed(s.memcpy),
    ]);
    cells
}

/// The worst row's speed cells: only the three ratio columns.
fn worst_cells(sum: &Summary, n_variants: usize) -> Vec<Cell> {
    let mut cells = vec![Cell::Empty; 3 + n_variants + 3];
    cells.extend(sum.worst[..3].iter().map(|w| Cell::Ratio(w.value)));
    cells.push(Cell::Empty);
    cells
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
        let mut out = String::new();
        for line in self.header_lines(sum) {
            let _ = writeln!(out, "{bullet}{line}");
        }
        out.push('\n');
        out.push_str(&render(&self.speed_table(derived, sum)));
        out.push('\n');
        for line in self.summary_lines(sum) {
            let _ = writeln!(out, "{bullet}{line}");
        }
        out.push('\n');
        out.push_str(&render(&self.adapt_table(derived)));
        out.push('\n');
        for line in self.adapt_lines(sum) {
            let _ = writeln!(out, "{bullet}{line}");
        }
        out
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
                 adapt = lzkit Decoder, one per file, learning over all rounds among {}",
                s.reference,
                names(&s.variants),
                names(&s.candidates)
            ),
            "max, best = fastest fixed variant; adapt_boost = adapt/ref; max_boost = max/ref; \
             adapt_over_max = adapt/max; memcpy = copying the decoded bytes (the ceiling)"
                .to_string(),
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
        worst.extend(worst_cells(sum, self.settings.variants.len()));
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
            "adaptive decoder per file: preferred = Decoder::preferred() after all rounds, last = \
             last_variant(), best = fastest fixed variant, pulls = blocks each candidate decoded \
             (stats(); blocks under the timing threshold are timed in batches, and once the \
             choice is clear most blocks go to the settled variant untimed); names ending in m \
             have the match-only branch, in h the branch-free medium matches"
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
                "started on the process prior (the variant earlier files' adaptive decoders \
                 settled on most often; trusted for the first {} MiB, then explored): {}",
                PRIOR_TRUST_BYTES >> 20,
                primed.join(", ")
            ));
        }
        if sum.untimed > 0 {
            lines.push(format!(
                "{} files were decoded without a single timing of {} KiB or more completing: \
                 the adaptive decoder used the variant it started on, the process prior or \
                 its default (see last and preferred)",
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
        head.extend(["preferred".to_string(), "last".into()]);
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
        rows.extend(self.summary_rows(sum, lead, 2 + cands.len()));
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
                    "unit",
                    json_str("GB/s (10^9 decompressed bytes per second)")
                ),
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
            ("max_boost", json_num(d.max_boost)),
            ("adapt_over_max", json_num(d.adapt_over_max)),
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
        fields.push(("memcpy", json_num(s.memcpy)));
        json_object(&fields)
    }

    fn json_summary(&self, sum: &Summary) -> String {
        let geomean = json_object(&[
            ("ratio", json_num(sum.derived.ratio)),
            ("gbps", self.json_speeds(&sum.speeds)),
            ("max", json_num(sum.derived.max)),
            ("adapt_boost", json_num(sum.derived.adapt_boost)),
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
        assert!(json.contains("\"adapt_boost\": 2.0000"));
    }
}
