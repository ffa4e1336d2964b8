//! `lzkit probe`'s output: a table with the Pareto fronts marked and the
//! recommendation (text), one JSON object, or CSV lines.

use std::fmt::Write as _;

use lzkit::probe::{BlockSize, Candidate, Goal, IoRate, Recommendation, Report};

use super::super::bench::render::{
    Cell, Table, csv_field, human_size, json_array, json_num, json_object, json_str,
};
use super::options::Format;

/// Width the text output keeps within.
const TEXT_WIDTH: usize = 120;
/// What every speed is.
pub const SPEED_UNIT: &str = "MB/s of uncompressed data (MB = 10^6 bytes)";

/// What the report says besides the library's figures.
pub struct Context {
    /// The inputs, as named.
    pub source: String,
    /// The I/O rate of the end-to-end speeds.
    pub io: IoRate,
    /// Each timing's minimum, in seconds.
    pub min_time: f64,
    /// The reference decoders timed, as "lz4 1.10.0" (empty: none).
    pub references: Vec<String>,
    /// Why a reference asked for is absent, and how to get it: a line of
    /// the text report.
    pub missing: Option<&'static str>,
    /// `--per-file`: each file's name and its own quick probe.
    pub per_file: Vec<(String, Report)>,
}

/// The report in `format`.
pub fn render(report: &Report, ctx: &Context, format: Format) -> String {
    let rec = report.recommend(ctx.io);
    match format {
        Format::Text => text(report, ctx, &rec),
        Format::Json => json(report, ctx, &rec),
        Format::Csv => csv(report, ctx, &rec),
    }
}

/// A speed for tables: whole MB/s from 100, else three digits.
fn speed(mbps: f64) -> String {
    match mbps {
        x if x >= 100.0 => format!("{x:.0}"),
        x if x >= 10.0 => format!("{x:.1}"),
        x => format!("{x:.2}"),
    }
}

/// "64 KiB blocks" or "whole files".
fn blocks_label(b: BlockSize) -> String {
    match b {
        BlockSize::WholeFile => "whole files (one block each)".into(),
        b => format!("blocks of {b}"),
    }
}

/// Decimal megabytes, as the speeds count them.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn text(report: &Report, ctx: &Context, rec: &Recommendation) -> String {
    let mut out = String::new();
    let files = match report.files {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let _ = writeln!(
        out,
        "lzkit probe: {} ({files}, {} in all)",
        ctx.source,
        megabytes(report.input_bytes)
    );
    let share = report.sample_bytes as f64 * 100.0 / report.input_bytes.max(1) as f64;
    let coverage = match report.whole_input {
        true => "the whole input".to_string(),
        false => format!("evenly spread, {share:.1}% of the input"),
    };
    let _ = writeln!(
        out,
        "sample: {} in {} {} ({coverage})",
        megabytes(report.sample_bytes),
        report.blocks,
        blocks_label(report.block_size)
    );
    let _ = writeln!(out, "{}", wrap(&ratios_line(report), "        "));
    let refs = match ctx.references.is_empty() {
        true => String::new(),
        false => format!("; dec C: {}", ctx.references.join(", ")),
    };
    let _ = writeln!(
        out,
        "{}",
        wrap(
            &format!(
                "speeds: {SPEED_UNIT}, best pass of at least {:.2} s; comp 1T, comp {t}T: \
                 compression on 1 and {t} threads; dec: decoding on one thread with lzkit's \
                 decoder{refs}; every block's round trip checked; memory: per compressing thread",
                ctx.min_time,
                t = report.threads
            ),
            "        "
        )
    );
    if let Some(missing) = ctx.missing {
        let _ = writeln!(out, "{}", wrap(missing, "        "));
    }
    out.push('\n');
    out.push_str(&table(report, ctx).text());
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        wrap(
            "*: on the Pareto front: no other setting has both a higher ratio and faster \
             decoding (after dec) or compression (after comp 1T).",
            "   "
        )
    );
    if report.candidates.iter().any(|c| c.blocks < report.blocks) {
        let _ = writeln!(
            out,
            "{}",
            wrap(
                "sampled: the share of the sample a slow setting compressed within --time-limit \
                 (blocks spread over the whole sample); its speeds are measured there, its ratio \
                 estimated for the whole sample from a setting that compressed all of it.",
                "   "
            )
        );
    }
    out.push('\n');
    out.push_str(&recommendation_text(report, ctx, rec));
    if !ctx.per_file.is_empty() {
        out.push('\n');
        out.push_str(&per_file_text(ctx));
    }
    out
}

/// The `--per-file` table: one line per file, its best setting for
/// reading, writing and size under the I/O rate.
fn per_file_text(ctx: &Context) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        wrap(
            &format!(
                "Per file (each probed alone: a quick probe, one thread, lzkit's decoders; \
                 at {}):",
                ctx.io
            ),
            ""
        )
    );
    let head = [
        "file", "MB", "reading", "MB/s", "writing", "MB/s", "size", "ratio",
    ];
    let rows: Vec<Vec<String>> = ctx
        .per_file
        .iter()
        .map(|(name, r)| {
            let rec = r.recommend(ctx.io);
            let c = |i: usize| &r.candidates[i];
            vec![
                name.clone(),
                format!("{:.1}", r.input_bytes as f64 / 1e6),
                c(rec.read).setting.to_string(),
                speed(c(rec.read).read_mbps(ctx.io)),
                c(rec.write).setting.to_string(),
                speed(c(rec.write).write_mbps(ctx.io)),
                c(rec.size).setting.to_string(),
                format!("{:.3}", c(rec.size).ratio),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].len())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, cell)| match i {
                1 | 3 | 5 | 7 => format!("{cell:>w$}", w = widths[i]),
                _ => format!("{cell:<w$}", w = widths[i]),
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let _ = writeln!(
        out,
        "{}",
        line(head.iter().map(|h| h.to_string()).collect())
    );
    for row in rows {
        let _ = writeln!(out, "{}", line(row));
    }
    out
}

/// The `--per-file` advice as a JSON array.
fn per_file_json(ctx: &Context) -> String {
    json_array(ctx.per_file.iter().map(|(name, r)| {
        let rec = r.recommend(ctx.io);
        let c = |i: usize| &r.candidates[i];
        let pick = |i: usize, key: &'static str, value: f64| {
            let mut fields = vec![
                ("setting", json_str(&c(i).setting.to_string())),
                (key, json_num(value)),
            ];
            if key != "ratio" {
                fields.push(("ratio", json_num(c(i).ratio)));
            }
            json_object(&fields)
        };
        json_object(&[
            ("file", json_str(name)),
            ("input_bytes", r.input_bytes.to_string()),
            ("whole_input", r.whole_input.to_string()),
            (
                "read",
                pick(rec.read, "read_mbps", c(rec.read).read_mbps(ctx.io)),
            ),
            (
                "write",
                pick(rec.write, "write_mbps", c(rec.write).write_mbps(ctx.io)),
            ),
            ("size", pick(rec.size, "ratio", c(rec.size).ratio)),
        ])
    }))
}

/// How the ratios were estimated, and what their intervals mean.
fn ratios_line(report: &Report) -> String {
    let interval = "±95%: the interval that holds the whole input's ratio with 95% confidence, \
                    from how ratios vary between blocks";
    if report.whole_input {
        return "ratios: exact, the whole input's".into();
    }
    let Some(cal) = &report.calibration else {
        return format!("ratios: those of the sample; {interval}");
    };
    let auxiliaries: Vec<String> = cal.settings().iter().map(|s| s.to_string()).collect();
    let units = match cal.piece_size() {
        Some(p) => format!("pieces of {}", BlockSize::Bytes(p as usize)),
        None => "blocks".to_string(),
    };
    let stopped = match cal.precision() {
        _ if cal.is_complete() => "all of the input".to_string(),
        Some(p) if p <= lzkit::probe::CALIBRATION_PRECISION => format!(
            "{} of {} {units}, enough for ±{:.1}%",
            cal.blocks(),
            cal.input_blocks(),
            p * 100.0
        ),
        Some(p) => format!(
            "{} of {} {units}, ±{:.1}% when --calibrate ran out (target ±{:.0}%)",
            cal.blocks(),
            cal.input_blocks(),
            p * 100.0,
            lzkit::probe::CALIBRATION_PRECISION * 100.0
        ),
        None => format!("{} of {} {units}", cal.blocks(), cal.input_blocks()),
    };
    let compared = match cal.piece_size() {
        Some(_) => {
            "how it compares with them on the pieces kept (a setting that did the whole \
             sample; corrected for pieces against whole blocks there) or on the sample (a \
             setting cut short: through its codec's best that did the whole sample)"
        }
        None => "how it compares with them on the sample",
    };
    format!(
        "ratios: {} compressed {} ({stopped}) in {:.1} s; each setting's ratio is theirs times \
         {compared}; {interval}",
        auxiliaries.join(" and "),
        megabytes(cal.bytes()),
        cal.elapsed().as_secs_f64()
    )
}

/// The text table: one row per candidate.
fn table(report: &Report, ctx: &Context) -> Table {
    let io = ctx.io.mbps().is_some();
    let refs = report
        .candidates
        .iter()
        .any(|c| c.reference_decompress_mbps.is_some());
    let partial = report.candidates.iter().any(|c| c.blocks < report.blocks);
    let mark = |on: bool| if on { " *" } else { "  " };
    let mut head: Vec<String> = ["setting", "ratio", "±95%", "comp 1T"]
        .into_iter()
        .map(String::from)
        .collect();
    head.push(format!("comp {}T", report.threads));
    head.push("dec".into());
    if refs {
        head.push("dec C".into());
    }
    head.push("memory".into());
    if partial {
        head.push("sampled".into());
    }
    if io {
        head.push("read".into());
        head.push("write".into());
    }
    // Each cell: its value and what follows it (a Pareto mark or blanks).
    let mut rows: Vec<Vec<(String, &str)>> = Vec::new();
    for c in &report.candidates {
        let mut row = vec![
            (c.setting.to_string(), ""),
            (format!("{:.3}", c.ratio), "  "),
            (half_width(c), "  "),
            (speed(c.compress_mbps), mark(c.pareto_compress)),
            (speed(c.compress_mbps_threads), "  "),
            (speed(c.decompress_mbps), mark(c.pareto)),
        ];
        if refs {
            row.push((c.reference_decompress_mbps.map_or("-".into(), speed), "  "));
        }
        row.push((human_size(c.compress_memory as u64), "  "));
        if partial {
            let share = c.sample_bytes as f64 * 100.0 / report.sample_bytes.max(1) as f64;
            row.push((format!("{share:.0}%"), "  "));
        }
        if io {
            row.push((speed(c.read_mbps(ctx.io)), "  "));
            row.push((speed(c.write_mbps(ctx.io)), "  "));
        }
        rows.push(row);
    }
    // Numbers right-aligned, marks after them: every cell padded here (the
    // table aligns text cells left), headings over the numbers.
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].0.len())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let pad = |i: usize, s: &str, after: &str| match i {
        0 => s.to_string(),
        _ => format!("{s:>w$}{after}", w = widths[i]),
    };
    Table {
        head: head
            .iter()
            .enumerate()
            .map(|(i, h)| pad(i, h, "  "))
            .collect(),
        rows: rows
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, (s, after))| Cell::Text(pad(i, s, after)))
                    .collect()
            })
            .collect(),
        summary_from: report.candidates.len(),
    }
}

/// The recommendation, with what it assumes.
fn recommendation_text(report: &Report, ctx: &Context, rec: &Recommendation) -> String {
    let mut out = String::new();
    let t = report.threads;
    match ctx.io.mbps() {
        None => {
            let _ = writeln!(
                out,
                "{}",
                wrap(
                    "Recommendation for data in memory (no --io given: moving compressed bytes \
                     costs nothing, so the fastest codecs win; give --io 100MB/s for a network \
                     file system or --io 2GB/s for NVMe):",
                    ""
                )
            );
        }
        Some(_) => {
            let _ = writeln!(
                out,
                "{}",
                wrap(
                    &format!(
                        "Recommendation at {} I/O (reading: the compressed bytes moved, then \
                         decoded on one thread; writing: compressed on {t} threads, then moved):",
                        ctx.io
                    ),
                    ""
                )
            );
        }
    }
    let c = |i: usize| &report.candidates[i];
    let (read, write, size) = (c(rec.read), c(rec.write), c(rec.size));
    for (role, pick, why) in [
        (
            "reading",
            read,
            format!(
                "{} MB/s end to end (ratio {:.3}, decoding at {} MB/s)",
                speed(read.read_mbps(ctx.io)),
                read.ratio,
                speed(read.decompress_mbps)
            ),
        ),
        (
            "writing",
            write,
            format!(
                "{} MB/s end to end (ratio {:.3}, compressing at {} MB/s on {t} threads)",
                speed(write.write_mbps(ctx.io)),
                write.ratio,
                speed(write.compress_mbps_threads)
            ),
        ),
        (
            "size",
            size,
            format!(
                "ratio {:.3} (reading at {} MB/s, writing at {} MB/s end to end)",
                size.ratio,
                speed(size.read_mbps(ctx.io)),
                speed(size.write_mbps(ctx.io))
            ),
        ),
    ] {
        let _ = writeln!(out, "  {role:<9}{:<26}{why}", pick.setting.to_string());
        if let Some(codec) = pick.setting.clickhouse_codec() {
            let _ = writeln!(out, "           in ClickHouse: {codec}");
        }
        let goal = match role {
            "reading" => Goal::Read,
            "writing" => Goal::Write,
            _ => Goal::Size,
        };
        let ties = tie_names(report, ctx, rec, goal);
        if !ties.is_empty() {
            let _ = writeln!(
                out,
                "{}",
                wrap(
                    &format!(
                        "           a tie, within the ratios' intervals, with {}",
                        ties.join(", ")
                    ),
                    "           "
                )
            );
        }
    }
    out
}

/// The settings that tie with the recommendation for `goal`.
fn tie_names(report: &Report, ctx: &Context, rec: &Recommendation, goal: Goal) -> Vec<String> {
    report
        .ties(ctx.io, rec, goal)
        .into_iter()
        .map(|i| report.candidates[i].setting.to_string())
        .collect()
}

/// `text` wrapped at [`TEXT_WIDTH`] on spaces, continuation lines indented.
fn wrap(text: &str, indent: &str) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if !line.trim().is_empty() && line.len() + 1 + word.len() > TEXT_WIDTH {
            lines.push(format!("{indent}{word}"));
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}

/// The half-width of a candidate's ratio interval, in percent of the
/// ratio ("exact" for a whole-input sample, "?" where one block cannot
/// tell); an asymmetric interval shows its wider side.
fn half_width(c: &Candidate) -> String {
    match c.ratio_interval {
        None => "?".into(),
        Some((low, high)) if low == high => "exact".into(),
        Some((low, high)) => {
            let half = (c.ratio - low).max(high - c.ratio) / c.ratio * 100.0;
            if half < 10.0 {
                format!("{half:.1}%")
            } else {
                format!("{half:.0}%")
            }
        }
    }
}

/// The JSON fields naming a setting.
fn setting_fields(c: &Candidate) -> Vec<(&'static str, String)> {
    vec![
        ("codec", json_str(c.setting.codec_name())),
        ("level", c.setting.level.to_string()),
        ("favor_dec_speed", c.setting.favor_dec_speed.to_string()),
        (
            "filter",
            c.setting
                .filter
                .map_or("null".into(), |f| json_str(&f.to_string())),
        ),
        ("setting", json_str(&c.setting.to_string())),
        (
            "clickhouse_codec",
            c.setting
                .clickhouse_codec()
                .map_or("null".into(), |s| json_str(&s)),
        ),
    ]
}

fn json(report: &Report, ctx: &Context, rec: &Recommendation) -> String {
    let block_size = match report.block_size {
        BlockSize::Bytes(n) => n.to_string(),
        BlockSize::WholeFile => json_str("file"),
    };
    let candidates = report.candidates.iter().map(|c| {
        let mut fields = setting_fields(c);
        fields.extend([
            ("ratio", json_num(c.ratio)),
            (
                "ratio_low",
                c.ratio_interval.map_or("null".into(), |i| json_num(i.0)),
            ),
            (
                "ratio_high",
                c.ratio_interval.map_or("null".into(), |i| json_num(i.1)),
            ),
            ("compress_mbps", json_num(c.compress_mbps)),
            ("compress_mbps_threads", json_num(c.compress_mbps_threads)),
            ("decompress_mbps", json_num(c.decompress_mbps)),
            (
                "reference_decompress_mbps",
                c.reference_decompress_mbps.map_or("null".into(), json_num),
            ),
            ("compress_memory", c.compress_memory.to_string()),
            ("decompress_memory", c.decompress_memory.to_string()),
            ("read_mbps", json_num(c.read_mbps(ctx.io))),
            ("write_mbps", json_num(c.write_mbps(ctx.io))),
            ("pareto", c.pareto.to_string()),
            ("pareto_compress", c.pareto_compress.to_string()),
            ("sample_bytes", c.sample_bytes.to_string()),
            ("blocks", c.blocks.to_string()),
            ("compressed_bytes", c.compressed_bytes.to_string()),
        ]);
        json_object(&fields)
    });
    let pick = |i: usize, what: &str, value: f64| {
        let c = &report.candidates[i];
        let mut fields = vec![("index", i.to_string())];
        fields.extend(setting_fields(c));
        let goal = match what {
            "read" => Goal::Read,
            "write" => Goal::Write,
            _ => Goal::Size,
        };
        let ties = tie_names(report, ctx, rec, goal);
        fields.push(("ties", json_array(ties.iter().map(|t| json_str(t)))));
        fields.push((
            match what {
                "read" => "read_mbps",
                "write" => "write_mbps",
                _ => "ratio",
            },
            json_num(value),
        ));
        json_object(&fields)
    };
    let c = |i: usize| &report.candidates[i];
    let recommendation = json_object(&[
        ("io_mbps", ctx.io.mbps().map_or("null".into(), json_num)),
        (
            "read",
            pick(rec.read, "read", c(rec.read).read_mbps(ctx.io)),
        ),
        (
            "write",
            pick(rec.write, "write", c(rec.write).write_mbps(ctx.io)),
        ),
        ("size", pick(rec.size, "size", c(rec.size).ratio)),
    ]);
    let mut out = json_object(&[
        ("tool", json_str("lzkit probe")),
        ("version", json_str(env!("CARGO_PKG_VERSION"))),
        ("source", json_str(&ctx.source)),
        ("input_bytes", report.input_bytes.to_string()),
        ("files", report.files.to_string()),
        ("block_size", block_size),
        ("sample_bytes", report.sample_bytes.to_string()),
        ("sample_blocks", report.blocks.to_string()),
        ("whole_input", report.whole_input.to_string()),
        ("threads", report.threads.to_string()),
        ("calibration", calibration_json(report)),
        ("min_time_s", json_num(ctx.min_time)),
        ("io_mbps", ctx.io.mbps().map_or("null".into(), json_num)),
        ("speed_unit", json_str(SPEED_UNIT)),
        (
            "references",
            json_array(ctx.references.iter().map(|r| json_str(r))),
        ),
        ("candidates", json_array(candidates)),
        ("recommendation", recommendation),
        ("per_file", per_file_json(ctx)),
    ]);
    out.push('\n');
    out
}

/// The calibration pass as a JSON object, or `null`.
fn calibration_json(report: &Report) -> String {
    let Some(cal) = &report.calibration else {
        return "null".into();
    };
    let auxiliaries = cal.settings().into_iter().map(|s| {
        json_object(&[
            ("setting", json_str(&s.to_string())),
            ("ratio", cal.ratio(s).map_or("null".into(), json_num)),
        ])
    });
    json_object(&[
        ("auxiliaries", json_array(auxiliaries)),
        ("blocks", cal.blocks().to_string()),
        ("input_blocks", cal.input_blocks().to_string()),
        (
            "piece_bytes",
            cal.piece_size().map_or("null".into(), |p| p.to_string()),
        ),
        ("bytes", cal.bytes().to_string()),
        ("seconds", json_num(cal.elapsed().as_secs_f64())),
        ("complete", cal.is_complete().to_string()),
        ("precision", cal.precision().map_or("null".into(), json_num)),
        (
            "target_precision",
            json_num(lzkit::probe::CALIBRATION_PRECISION),
        ),
    ])
}

/// CSV columns, in order.
pub const CSV_HEAD: &[&str] = &[
    "codec",
    "level",
    "favor_dec_speed",
    "setting",
    "clickhouse_codec",
    "ratio",
    "ratio_low",
    "ratio_high",
    "compress_mbps",
    "compress_mbps_threads",
    "decompress_mbps",
    "reference_decompress_mbps",
    "compress_memory",
    "decompress_memory",
    "read_mbps",
    "write_mbps",
    "pareto",
    "pareto_compress",
    "sample_bytes",
    "blocks",
    "recommended",
];

fn csv(report: &Report, ctx: &Context, rec: &Recommendation) -> String {
    let rows = report.candidates.iter().enumerate().map(|(i, c)| {
        let recommended: Vec<&str> = [(rec.read, "read"), (rec.write, "write"), (rec.size, "size")]
            .into_iter()
            .filter(|&(j, _)| j == i)
            .map(|(_, what)| what)
            .collect();
        vec![
            Cell::Text(c.setting.codec_name().into()),
            Cell::Int(c.setting.level.into()),
            Cell::Text(c.setting.favor_dec_speed.to_string()),
            Cell::Text(c.setting.to_string()),
            c.setting.clickhouse_codec().map_or(Cell::Empty, Cell::Text),
            Cell::Ratio(c.ratio),
            c.ratio_interval.map_or(Cell::Empty, |i| Cell::Ratio(i.0)),
            c.ratio_interval.map_or(Cell::Empty, |i| Cell::Ratio(i.1)),
            Cell::Ratio(c.compress_mbps),
            Cell::Ratio(c.compress_mbps_threads),
            Cell::Ratio(c.decompress_mbps),
            c.reference_decompress_mbps.map_or(Cell::Empty, Cell::Ratio),
            Cell::Count(c.compress_memory as u64),
            Cell::Count(c.decompress_memory as u64),
            Cell::Ratio(c.read_mbps(ctx.io)),
            Cell::Ratio(c.write_mbps(ctx.io)),
            Cell::Text(c.pareto.to_string()),
            Cell::Text(c.pareto_compress.to_string()),
            Cell::Count(c.sample_bytes),
            Cell::Count(c.blocks as u64),
            Cell::Text(recommended.join(" ")),
        ]
    });
    let table = Table {
        head: CSV_HEAD.iter().map(|h| csv_field(h)).collect(),
        rows: rows.collect(),
        summary_from: report.candidates.len(),
    };
    table.csv()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lzkit::probe::Setting;

    fn report() -> Report {
        let c = |setting: Setting, ratio: f64, comp: f64, dec: f64| Candidate {
            setting,
            ratio,
            ratio_interval: Some((ratio * 0.99, ratio * 1.01)),
            sample_bytes: 1 << 20,
            blocks: 16,
            compressed_bytes: ((1 << 20) as f64 / ratio) as u64,
            compress_mbps: comp,
            compress_mbps_threads: 2.0 * comp,
            decompress_mbps: dec,
            reference_decompress_mbps: Some(dec * 0.9),
            compress_memory: 80 << 10,
            decompress_memory: 64 << 10,
            pareto: true,
            pareto_compress: false,
        };
        Report {
            input_bytes: 1 << 30,
            files: 3,
            sample_bytes: 1 << 20,
            blocks: 16,
            block_size: BlockSize::Bytes(64 << 10),
            whole_input: false,
            threads: 2,
            calibration: None,
            candidates: vec![
                c(Setting::lz4(-8), 1.5, 900.0, 4000.0),
                c(Setting::lz4_favor_dec_speed(12), 2.5, 9.0, 3000.0),
                c(Setting::zstd(19), 3.5, 2.5, 900.0),
            ],
        }
    }

    fn ctx(io: IoRate) -> Context {
        Context {
            source: "a, b and 1 more".into(),
            io,
            min_time: 0.2,
            references: vec!["lz4 1.10.0".into()],
            missing: None,
            per_file: Vec::new(),
        }
    }

    #[test]
    fn text_fits_120_columns_and_recommends() {
        for io in [IoRate::MEMORY, IoRate::from_mbps(100.0)] {
            let out = render(&report(), &ctx(io), Format::Text);
            for line in out.lines() {
                assert!(line.len() <= TEXT_WIDTH, "{} columns: {line}", line.len());
            }
            assert!(out.contains("  reading  ") && out.contains("  size     zstd -19"));
            assert!(out.contains("lz4 -12 --favor-decSpeed"));
            assert!(out.contains("4000 *"), "marks after the number: {out}");
        }
        // From memory the fastest decoder reads best; at 100 MB/s the
        // smallest output does.
        let out = render(&report(), &ctx(IoRate::MEMORY), Format::Text);
        assert!(out.contains("  reading  lz4 --fast=8 "), "{out}");
        let out = render(&report(), &ctx(IoRate::from_mbps(100.0)), Format::Text);
        assert!(out.contains("  reading  zstd -19 "), "{out}");
        assert!(out.contains("Recommendation at 100 MB/s I/O"));
        assert!(out.contains("read") && out.contains("write"));
    }

    #[test]
    fn csv_has_a_line_per_candidate() {
        let out = render(&report(), &ctx(IoRate::MEMORY), Format::Csv);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], CSV_HEAD.join(","));
        assert_eq!(lines.len(), 4);
        // No ClickHouse codec for --fast levels; zstd -19 has one.
        assert!(lines[1].starts_with("lz4,-8,false,lz4 --fast=8,,1.5000,"));
        assert!(lines[3].starts_with("zstd,19,false,zstd -19,CODEC(ZSTD(19)),3.5000,"));
        assert!(lines[1].ends_with(",read write"), "{}", lines[1]);
        assert!(lines[3].ends_with(",size"));
    }

    #[test]
    fn json_names_every_field() {
        let out = render(&report(), &ctx(IoRate::from_mbps(2000.0)), Format::Json);
        for key in [
            "\"candidates\": [",
            "\"codec\": \"zstd\"",
            "\"level\": -8",
            "\"pareto\": true",
            "\"ratio\": 3.5000",
            "\"io_mbps\": 2000.0000",
            "\"recommendation\": {",
        ] {
            assert!(out.contains(key), "{key} in {out}");
        }
    }
}
