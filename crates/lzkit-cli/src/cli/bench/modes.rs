//! What the modes beyond block decoding (`--compress`, `--frame`,
//! `--threads`) share: the driver that measures every input with
//! [`super::measure::interleave`], one sample helper, and one
//! report: a row per file (per level, for modes with levels), then a
//! geomean and a worst row per level, in any output format.

use std::fmt::Write as _;
use std::time::Instant;

use super::measure::{POISON, interleave, passes_per_sample};
use super::options::Options;
use super::render::{Cell, Table, json_array, json_object, json_str};
use super::report::{Format, geomean};
use super::rng::Rng;
use super::{Failure, for_each_input};

/// A small enum of what a mode measures (a frame's checksums, a
/// thread's work), each value named in the table's heads and in labels:
/// the enum, `ALL` (every value, in the table's order) and `name`.
macro_rules! named_enum {
    ($(#[$doc:meta])* enum $name:ident {
        $($(#[$vdoc:meta])* $variant:ident => $text:literal,)+
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// Every value, in the table's order.
            const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// Name in the table's heads and in labels.
            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }
    };
}
pub(super) use named_enum;

/// What the summary rows do with a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sum {
    /// Nothing (text, or a value no mean describes).
    Blank,
    /// The group's value (the same on every row of a group: its level).
    Key,
    /// Sum over the files (sizes).
    Total,
    /// Geometric mean over the files.
    Geomean,
    /// Geometric mean, and the lowest value is the worst (lzkit/ref speeds).
    Low,
    /// Geometric mean, and the highest value is the worst (lzkit/ref sizes,
    /// frame costs).
    High,
}

/// A table column: its name and what the summary rows show for it.
pub struct Column {
    /// Name in the head, and key in JSON.
    pub name: String,
    /// Summary treatment.
    pub sum: Sum,
}

/// A column.
pub fn col(name: impl Into<String>, sum: Sum) -> Column {
    Column {
        name: name.into(),
        sum,
    }
}

/// A mode's report: header lines, the table (files, then summary rows),
/// settings for JSON and notes after the table.
pub struct ModeReport {
    /// Lines above the table: what was measured and how.
    pub header: Vec<String>,
    /// The same facts as JSON values, by key.
    pub settings: Vec<(&'static str, String)>,
    /// One row per file (and level), then the summary rows.
    pub table: Table,
    /// Lines under the table: worst files, remarks.
    pub notes: Vec<String>,
}

impl ModeReport {
    /// The report in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text | Format::Markdown => {
                let md = format == Format::Markdown;
                let bullet = if md { "- " } else { "" };
                let mut out = String::new();
                for line in &self.header {
                    let _ = writeln!(out, "{bullet}{line}");
                }
                out.push('\n');
                out.push_str(&if md {
                    self.table.markdown()
                } else {
                    self.table.text()
                });
                if !self.notes.is_empty() {
                    out.push('\n');
                }
                for line in &self.notes {
                    let _ = writeln!(out, "{bullet}{line}");
                }
                out
            }
            Format::Csv => self.table.csv(),
            Format::Json => self.json(),
        }
    }

    /// `{"settings", "files", "summary", "notes"}`: rows as objects keyed
    /// by column name.
    fn json(&self) -> String {
        let t = &self.table;
        let object = |row: &Vec<Cell>| {
            let fields: Vec<(&str, String)> = t
                .head
                .iter()
                .zip(row)
                .map(|(h, c)| (h.as_str(), c.json()))
                .collect();
            json_object(&fields)
        };
        let rows = |range: &[Vec<Cell>]| {
            let items: Vec<String> = range.iter().map(|r| format!("    {}", object(r))).collect();
            format!("[\n{}\n  ]", items.join(",\n"))
        };
        let split = t.summary_from.min(t.rows.len());
        let mut out = String::from("{\n");
        let _ = writeln!(out, "  \"settings\": {},", json_object(&self.settings));
        let _ = writeln!(out, "  \"files\": {},", rows(&t.rows[..split]));
        let _ = writeln!(out, "  \"summary\": {},", rows(&t.rows[split..]));
        let _ = writeln!(
            out,
            "  \"notes\": {}",
            json_array(self.notes.iter().map(|n| json_str(n)))
        );
        out.push_str("}\n");
        out
    }
}

/// One input being measured, as a mode sees it, with what its
/// measurement ([`measure_all`]) shares with the others.
pub struct Subject<'a> {
    /// Its name in the report.
    pub name: &'a str,
    /// Its bytes (not empty).
    pub data: &'a [u8],
    /// The generator of the contenders' order, one for the whole run.
    pub order: &'a mut Rng,
    /// Called after every round (the progress bar).
    pub on_round: &'a mut dyn FnMut(),
}

/// An input's rows, one per group (level), or why there are none.
pub type Rows = Result<Vec<Vec<Cell>>, Failure>;

/// Measure every input with `measure_one`, which returns one row per group
/// (level), the same number for every input, in `columns`' order; then
/// gather the rows by group, each group followed by its geomean and worst
/// rows. Returns the report of that table, with the lines naming each
/// worst value's file as its notes and [`common_settings`] as its
/// settings: the mode adds its header and its own settings.
pub fn run(
    opts: &Options,
    columns: &[Column],
    mut measure_one: impl FnMut(&mut Subject) -> Rows,
) -> Result<ModeReport, Failure> {
    let mut order = Rng::new(opts.seed);
    let mut groups: Vec<Vec<Vec<Cell>>> = Vec::new();
    for_each_input(opts, |_, name, data, _, progress| {
        progress.stage(&name, "measuring");
        let rows = measure_one(&mut Subject {
            name: &name,
            data,
            order: &mut order,
            on_round: &mut || progress.advance(1),
        })?;
        groups.resize_with(groups.len().max(rows.len()), Vec::new);
        for (group, row) in groups.iter_mut().zip(rows) {
            group.push(row);
        }
        Ok(())
    })?;
    let mut rows: Vec<Vec<Cell>> = groups.iter().flatten().cloned().collect();
    let summary_from = rows.len();
    let mut notes = Vec::new();
    for group in &groups {
        let (geo, worst, lines) = summarize(group, columns);
        rows.push(geo);
        rows.push(worst);
        notes.extend(lines);
    }
    let table = Table {
        head: columns.iter().map(|c| c.name.clone()).collect(),
        rows,
        summary_from,
    };
    Ok(ModeReport {
        header: Vec::new(),
        settings: common_settings(opts, super::source_label(opts)),
        table,
        notes,
    })
}

/// The geomean and worst rows of one group of file rows (column 0 holds
/// the file name), and a line per worst value naming its file.
fn summarize(group: &[Vec<Cell>], columns: &[Column]) -> (Vec<Cell>, Vec<Cell>, Vec<String>) {
    let mut geo = vec![Cell::Text("geomean".into())];
    let mut worst = vec![Cell::Text("worst".into())];
    let mut lines = Vec::new();
    let key: Option<String> = columns
        .iter()
        .position(|c| c.sum == Sum::Key)
        .map(|k| format!(" at {} {}", columns[k].name, cell_text(&group[0][k])));
    for (k, column) in columns.iter().enumerate().skip(1) {
        let values = || group.iter().map(|r| r[k].value().unwrap_or(f64::NAN));
        let (g, w) = match column.sum {
            Sum::Blank => (Cell::Empty, Cell::Empty),
            Sum::Key => (group[0][k].clone(), group[0][k].clone()),
            Sum::Total => {
                let total = values().sum::<f64>() as u64;
                match group[0][k] {
                    Cell::Size(_) => (Cell::Size(total), Cell::Empty),
                    _ => (Cell::Count(total), Cell::Empty),
                }
            }
            Sum::Geomean | Sum::Low | Sum::High => {
                let mean = with_kind(&group[0][k], geomean(values()));
                if column.sum == Sum::Geomean {
                    (mean, Cell::Empty)
                } else {
                    let pick = |a: &f64, b: &f64| match column.sum {
                        Sum::Low => a.total_cmp(b),
                        _ => b.total_cmp(a),
                    };
                    let (i, v) = values()
                        .enumerate()
                        .min_by(|a, b| pick(&a.1, &b.1))
                        .unwrap_or((0, f64::NAN));
                    // Not measured (a reference not built in): no worst.
                    lines.extend((!v.is_nan()).then(|| {
                        format!(
                            "worst {}{}: {v:.3} on {}",
                            column.name,
                            key.as_deref().unwrap_or(""),
                            cell_text(&group[i][0])
                        )
                    }));
                    (mean, with_kind(&group[0][k], v))
                }
            }
        };
        geo.push(g);
        worst.push(w);
    }
    (geo, worst, lines)
}

/// `value` in a cell of `like`'s kind.
fn with_kind(like: &Cell, value: f64) -> Cell {
    match like {
        Cell::Speed(_) => Cell::Speed(value),
        Cell::Compression(_) => Cell::Compression(value),
        _ => Cell::Ratio(value),
    }
}

/// A cell's text in a sentence.
fn cell_text(cell: &Cell) -> String {
    match cell {
        Cell::Text(s) => s.clone(),
        Cell::Count(n) | Cell::Size(n) => n.to_string(),
        Cell::Int(n) => n.to_string(),
        other => other.value().map_or_else(String::new, |v| format!("{v}")),
    }
}

/// Contenders measured together on one input, each named by an `Op`.
pub trait Contenders {
    /// What names a contender.
    type Op: Copy;
    /// The contender's name in messages and for the testing hook.
    fn label(&self, op: Self::Op) -> String;
    /// Poison the contender's output.
    fn reset(&mut self, op: Self::Op);
    /// One pass over the input.
    fn pass(&mut self, op: Self::Op) -> Result<(), String>;
    /// Compare the output of the last pass with what it must be; first
    /// corrupt it if `fault` (the testing hook).
    fn check(&mut self, op: Self::Op, fault: bool) -> Result<(), String>;
}

/// Time `ops` of `bench` on `subject` with the shared method
/// ([`interleave`], samples of [`timed_sample`]): seconds per pass of
/// each, the statistic `opts.stat` over `opts.rounds` rounds. An error
/// names the contender that failed.
pub fn measure_all<B: Contenders>(
    opts: &Options,
    bench: &mut B,
    ops: &[B::Op],
    subject: &mut Subject,
) -> Result<Vec<f64>, (B::Op, String)> {
    let passes = passes_per_sample(subject.data.len());
    let mut failed = None;
    let (order, on_round) = (&mut *subject.order, &mut *subject.on_round);
    interleave(ops.len(), opts.rounds, opts.stat, order, on_round, |k| {
        let op = ops[k];
        let label = bench.label(op);
        let fault = faulty(opts, &label);
        failed = Some(op);
        timed_sample(passes, |step| match step {
            Step::Reset => {
                bench.reset(op);
                Ok(())
            }
            Step::Pass => bench.pass(op),
            Step::Check => bench.check(op, fault),
        })
        .map_err(|e| format!("{label}: {e}"))
    })
    .map_err(|e| (failed.unwrap_or(ops[0]), e))
}

/// A step of a sample (see [`timed_sample`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Before the timed passes: poison the output.
    Reset,
    /// One pass over the input.
    Pass,
    /// After the timed passes: verify the output.
    Check,
}

/// One timed sample of `passes` passes (`step(Step::Pass)`), after one
/// untimed pass when there are several (a small input's warm-up: the
/// contenders before it evicted its code and data from the branch
/// predictors and caches); `Step::Reset` comes before the timed passes and
/// `Step::Check` after them. Returns seconds per pass.
fn timed_sample(
    passes: usize,
    mut step: impl FnMut(Step) -> Result<(), String>,
) -> Result<f64, String> {
    if passes > 1 {
        step(Step::Pass)?;
    }
    step(Step::Reset)?;
    let start = Instant::now();
    for _ in 0..passes {
        step(Step::Pass)?;
    }
    let seconds = start.elapsed().as_secs_f64() / passes as f64;
    step(Step::Check)?;
    Ok(seconds.max(1e-9))
}

/// Fill `buf` with the poison byte, so that a contender that skipped
/// writing cannot pass the check with an earlier one's output.
pub fn poison(buf: &mut [u8]) {
    buf.fill(POISON);
}

/// Whether the testing hook `LZKIT_BENCH_FAULT` names `contender`: its
/// output is then corrupted after every sample, which verification must
/// catch (see docs/benchmarking.md).
fn faulty(opts: &Options, contender: &str) -> bool {
    opts.fault.as_deref() == Some(contender)
}

/// The header line of the decoding modes that says how their speeds were
/// measured.
pub fn decode_method(opts: &Options) -> String {
    format!(
        "speeds in GB/s of decompressed data (10^9 bytes/s, one core), {} of {} rounds; \
         contenders interleaved in a random order each round (seed {}), each sample at \
         least 1 MiB of repeated passes; every decode verified",
        opts.stat.name(),
        opts.rounds,
        opts.seed
    )
}

/// The setting of the levels measured, as `[1, 9, 12]`.
pub fn levels_setting(levels: &[i32]) -> (&'static str, String) {
    ("levels", json_array(levels.iter().map(i32::to_string)))
}

/// Settings every mode reports in JSON.
pub fn common_settings(opts: &Options, source: String) -> Vec<(&'static str, String)> {
    vec![
        ("mode", json_str(opts.mode.flag().trim_start_matches('-'))),
        ("source", json_str(&source)),
        ("block_size", opts.block_size.to_string()),
        ("rounds", opts.rounds.to_string()),
        ("stat", json_str(opts.stat.name())),
        ("seed", opts.seed.to_string()),
        ("verified", "true".into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, level: i64, size: u64, speed: f64, ratio: f64) -> Vec<Cell> {
        vec![
            Cell::Text(name.into()),
            Cell::Int(level),
            Cell::Size(size),
            Cell::Speed(speed),
            Cell::Ratio(ratio),
        ]
    }

    #[test]
    fn summary_rows_and_worst_lines() {
        let columns = [
            col("file", Sum::Blank),
            col("level", Sum::Key),
            col("size", Sum::Total),
            col("mbps", Sum::Geomean),
            col("boost", Sum::Low),
        ];
        let group = [row("a", 9, 10, 2.0, 0.5), row("b", 9, 30, 8.0, 2.0)];
        let (geo, worst, lines) = summarize(&group, &columns);
        assert_eq!(geo[2].value(), Some(40.0));
        assert_eq!(geo[3].value(), Some(4.0));
        assert_eq!(geo[4].value(), Some(1.0));
        assert_eq!(worst[4].value(), Some(0.5));
        assert!(matches!(worst[3], Cell::Empty));
        assert_eq!(lines, ["worst boost at level 9: 0.500 on a"]);
    }

    #[test]
    fn a_sample_checks_after_timing() {
        let mut steps = Vec::new();
        let s = timed_sample(3, |step| {
            steps.push(step);
            Ok(())
        })
        .unwrap();
        assert!(s > 0.0);
        use Step::*;
        assert_eq!(steps, [Pass, Reset, Pass, Pass, Pass, Check]);
        let err = timed_sample(1, |step| match step {
            Check => Err("wrong".to_string()),
            _ => Ok(()),
        })
        .unwrap_err();
        assert_eq!(err, "wrong");
    }
}
