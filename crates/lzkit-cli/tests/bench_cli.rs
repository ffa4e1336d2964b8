//! Integration tests of `lzkit bench`: every output format carries the
//! study's columns and rows, CSV and JSON parse, files and directories are
//! read, and errors exit with a message; the other modes (`--compress`,
//! `--frame`, `--threads`, `--codec zstd`) have their rows and columns, and a corrupted
//! output (the `LZKIT_BENCH_FAULT` testing hook) stops each of them with
//! its exit status. Settings are tiny (`-i 2`, a small built-in corpus,
//! small files written here); no speed is ever asserted, only that speeds
//! are positive numbers.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use lzkit::lz4::block::Variant;
use tempfile::TempDir;

#[path = "common/json.rs"]
mod json;
use json::Json;

const BIN: &str = env!("CARGO_BIN_EXE_lzkit");

/// Columns the ClickHouse study's table has, in every format.
const STUDY_COLUMNS: &[&str] = &[
    "ref",
    "lz4_flex",
    "adapt",
    "max",
    "best",
    "adapt_boost",
    "max_boost",
    "adapt_over_max",
    "memcpy",
];

/// A few of the built-in corpus' files.
const BUILT_IN_FILES: &[&str] = &["sorted_month.UInt32", "carrier.String", "random.bin"];

/// Smallest built-in corpus: every file at its 4 KiB minimum or so.
const TINY: &[&str] = &["--corpus-scale", "0.001", "-i", "2"];

fn bench(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("bench")
        .args(args)
        .stdin(Stdio::null())
        .env_remove(FAULT)
        .output()
        .expect("run lzkit")
}

/// The testing hook: the contender it names has its output corrupted
/// after every sample.
const FAULT: &str = "LZKIT_BENCH_FAULT";

/// A run with the output of `contender` corrupted: it must stop with
/// `status`, name the contender, and print no report.
fn fails_verification(args: &[&str], contender: &str, status: i32) {
    let out = Command::new(BIN)
        .arg("bench")
        .args(args)
        .stdin(Stdio::null())
        .env(FAULT, contender)
        .output()
        .expect("run lzkit");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(status),
        "{args:?} {contender}: {err}"
    );
    assert!(err.contains(contender), "{contender}: {err}");
    assert!(out.stdout.is_empty(), "no report after a failed check");
}

/// A positive, finite number in a JSON row.
fn positive(row: &Json, key: &str) -> f64 {
    let v = row.get(key).num();
    assert!(v > 0.0 && v.is_finite(), "{key} = {v}");
    v
}

/// Standard output of a run that must succeed.
fn stdout_of(args: &[&str]) -> String {
    let out = bench(args);
    assert!(
        out.status.success(),
        "lzkit bench {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Standard error is not a terminal here, so no progress bar was drawn.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Column-like test data: sorted u32 runs, then length-prefixed strings.
fn write_sample(dir: &Path, name: &str, values: u32) -> PathBuf {
    let mut data: Vec<u8> = (0..values).flat_map(|i| (i / 500).to_le_bytes()).collect();
    for i in 0..values / 4 {
        let s = format!("carrier-{}", i % 7);
        data.push(s.len() as u8);
        data.extend_from_slice(s.as_bytes());
    }
    let path = dir.join(name);
    fs::write(&path, data).unwrap();
    path
}

fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[test]
fn text_has_the_study_table_for_the_built_in_corpus() {
    let out = stdout_of(&[TINY, &["--variants"]].concat());
    assert!(out.contains("built-in corpus"), "{out}");
    assert!(out.contains("min of 2 rounds"), "statistic stated:\n{out}");
    let header = out
        .lines()
        .find(|l| l.starts_with("file ") && l.contains("ratio"))
        .expect("speed table header");
    for col in STUDY_COLUMNS {
        assert!(words(header).contains(col), "{col} missing from {header}");
    }
    for name in BUILT_IN_FILES.iter().chain(&["geomean", "worst"]) {
        assert!(
            out.lines().any(|l| l.starts_with(name)),
            "no row for {name}:\n{out}"
        );
    }
    // The geomean row has a number under every speed column.
    let geo = out.lines().find(|l| l.starts_with("geomean")).unwrap();
    let numbers = words(geo)
        .iter()
        .filter(|w| w.parse::<f64>().is_ok())
        .count();
    assert!(numbers >= STUDY_COLUMNS.len(), "{geo}");
    // The adaptive decoder's table.
    assert!(
        out.lines()
            .any(|l| words(l).starts_with(&["file", "preferred", "last", "best"]))
    );
    assert!(out.contains("worst adapt_over_max:"), "{out}");
    assert!(out.contains("best fixed variant over all files:"), "{out}");
}

#[test]
fn the_default_text_table_fits_120_columns() {
    let out = stdout_of(TINY);
    for line in out.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    let header = out
        .lines()
        .find(|l| l.starts_with("file ") && l.contains("ratio"))
        .expect("speed table header");
    for col in [
        "ref", "flex", "adapt", "copy", "best", "m/ref", "a/ref", "n/ref", "f/ref",
    ] {
        assert!(words(header).contains(&col), "{col} missing from {header}");
    }
}

#[test]
fn markdown_tables_are_well_formed() {
    let out = stdout_of(
        &[
            TINY,
            &["--variants", "--format", "markdown", "--stat", "median"],
        ]
        .concat(),
    );
    assert!(out.contains("median of 2 rounds"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("| file |"))
        .collect();
    assert_eq!(
        starts.len(),
        2,
        "a speed table and an adaptive-choice table:\n{out}"
    );
    for &start in &starts {
        let bars = lines[start].matches('|').count();
        assert!(
            lines[start + 1].starts_with("| ---"),
            "{}",
            lines[start + 1]
        );
        let rows: Vec<&str> = lines[start + 2..]
            .iter()
            .take_while(|l| l.starts_with('|'))
            .copied()
            .collect();
        assert!(rows.len() >= BUILT_IN_FILES.len(), "{out}");
        for row in rows {
            assert_eq!(row.matches('|').count(), bars, "ragged row {row}");
        }
    }
    for col in STUDY_COLUMNS {
        assert!(lines[starts[0]].contains(&format!("| {col} |")), "{col}");
    }
}

#[test]
fn csv_parses_with_one_row_per_file() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "sample.bin", 30_000);
    let size = fs::metadata(&file).unwrap().len();
    let out = stdout_of(&[
        "-i",
        "2",
        "-B",
        "16K",
        "--format",
        "csv",
        file.to_str().unwrap(),
    ]);
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split(',').collect()).collect();
    let head = &rows[0];
    for col in STUDY_COLUMNS
        .iter()
        .chain(&["file", "bytes", "blocks", "preferred"])
    {
        assert!(head.contains(col), "{col} missing from {head:?}");
    }
    assert!(head.iter().any(|h| h.starts_with("pulls_")), "{head:?}");
    assert_eq!(rows.len(), 4, "header, the file, geomean, worst:\n{out}");
    for row in &rows {
        assert_eq!(row.len(), head.len(), "ragged row {row:?}");
    }
    let cell = |row: usize, col: &str| rows[row][head.iter().position(|h| h == &col).unwrap()];
    assert_eq!(cell(1, "file"), "sample.bin");
    assert_eq!(cell(1, "bytes"), size.to_string());
    assert_eq!(cell(1, "blocks"), size.div_ceil(16 << 10).to_string());
    for col in ["ref", "lz4_flex", "adapt", "max", "adapt_boost", "memcpy"] {
        let v: f64 = cell(1, col)
            .parse()
            .unwrap_or_else(|_| panic!("{col}: {}", cell(1, col)));
        assert!(v > 0.0 && v.is_finite(), "{col} = {v}");
    }
    assert_eq!((cell(2, "file"), cell(3, "file")), ("geomean", "worst"));
    assert!(cell(3, "adapt_over_max").parse::<f64>().is_ok());
    let pulls: u64 = head
        .iter()
        .enumerate()
        .filter(|(_, h)| h.starts_with("pulls_"))
        .map(|(i, _)| rows[1][i].parse::<u64>().unwrap())
        .sum();
    assert!(pulls > 0, "the adaptive decoder decoded blocks");
}

#[test]
fn json_parses_and_describes_every_file_of_a_directory() {
    let dir = TempDir::new().unwrap();
    write_sample(dir.path(), "a.bin", 20_000);
    write_sample(dir.path(), "b.bin", 40_000);
    fs::write(dir.path().join("empty"), b"").unwrap();
    let args = ["-i", "2", "--format", "json", "--compressor", "lzkit", "-9"];
    let out = bench(&[&args[..], &[dir.path().to_str().unwrap()]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty, skipped"));
    let json = Json::parse(&String::from_utf8(out.stdout).unwrap()).expect("valid JSON");

    let settings = json.get("settings");
    assert_eq!(settings.get("rounds").num(), 2.0);
    assert_eq!(settings.get("stat").str(), "min");
    assert!(settings.get("compressor").str().contains("lzkit"));
    assert!(settings.get("compressor").str().contains("level 9"));
    // Every variant of the table is either run or reported as skipped.
    let names = |key| -> Vec<&str> { settings.get(key).arr().iter().map(|v| v.str()).collect() };
    let (run, skipped) = (names("variants"), names("skipped"));
    assert_eq!(run.len() + skipped.len(), Variant::ALL.len());
    assert!(skipped.iter().all(|s| !run.contains(s)));
    let files = json.get("files").arr();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].get("file").str(), "a.bin");
    for f in files {
        let gbps = f.get("gbps");
        for c in ["ref", "lz4_flex", "adapt", "memcpy"] {
            assert!(gbps.get(c).num() > 0.0, "{c}");
        }
        for c in ["max", "adapt_boost", "max_boost", "adapt_over_max"] {
            assert!(f.get(c).num() > 0.0, "{c}");
        }
        assert!(!f.get("best").str().is_empty());
        assert!(!f.get("preferred").str().is_empty());
        assert!(!f.get("arms").arr().is_empty());
        // The variant the adaptive decoder started on: none, or a candidate.
        if let Json::Str(prior) = f.get("prior") {
            let arms = f.get("arms").arr();
            assert!(arms.iter().any(|a| a.get("variant").str() == prior));
        }
    }
    // Every adaptive decoder starts on its data prior (a candidate).
    assert!(!files[0].get("prior").str().is_empty());
    let summary = json.get("summary");
    assert!(summary.get("geomean").get("adapt_boost").num() > 0.0);
    assert!(
        !summary
            .get("worst")
            .get("adapt_over_max")
            .get("file")
            .str()
            .is_empty()
    );
}

#[test]
fn cold_runs_say_so_in_every_format() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "a.bin", 30_000);
    let path = file.to_str().unwrap();
    let out = bench(&["--cold", "-i", "2", "--format", "json", path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = Json::parse(&String::from_utf8(out.stdout).unwrap()).expect("valid JSON");
    assert!(matches!(json.get("settings").get("cold"), Json::Bool(true)));
    let gbps = json.get("files").arr()[0].get("gbps");
    for c in ["ref", "adapt", "memcpy"] {
        assert!(gbps.get(c).num() > 0.0, "{c}");
    }
    let text = stdout_of(&["--cold", "-i", "1", path]);
    assert!(text.contains("first visit"), "{text}");
    let warm = stdout_of(&["-i", "1", path]);
    assert!(warm.contains("repeated passes") && !warm.contains("first visit"));
}

#[test]
fn hot_runs_say_so_in_the_table_and_the_settings() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "a.bin", 30_000);
    let path = file.to_str().unwrap();
    let out = bench(&["--hot", "-i", "2", "--format", "json", path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = Json::parse(&String::from_utf8(out.stdout).unwrap()).expect("valid JSON");
    let settings = json.get("settings");
    assert!(matches!(settings.get("hot"), Json::Bool(true)));
    assert!(matches!(settings.get("cold"), Json::Bool(false)));
    assert_eq!(settings.get("sampling").str(), "hot");
    let gbps = json.get("files").arr()[0].get("gbps");
    for c in ["ref", "adapt", "fresh", "free", "memcpy"] {
        assert!(gbps.get(c).num() > 0.0, "{c}");
    }
    // The compact table names its sampling in its head.
    let text = stdout_of(&["--hot", "-i", "1", path]);
    assert!(text.contains("back to back"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("file (hot) ")), "{text}");
    let warm = stdout_of(&["-i", "1", path]);
    assert!(warm.lines().any(|l| l.starts_with("file (interleaved) ")));
    fails_verification(&["-i", "1", "--hot", path], "free", 11);
    fail(&["--hot", "--cold"], "one at a time");
}

#[test]
fn quick_uses_a_small_built_in_corpus() {
    let out = stdout_of(&["--quick", "-i", "1", "--format", "csv"]);
    assert_eq!(out.lines().count(), 1 + 18 + 2, "{out}");
    assert!(out.lines().any(|l| l.starts_with("sorted_month.UInt32,")));
}

/// A run that must stop with status 1 and a message containing `needle`.
fn fail(args: &[&str], needle: &str) {
    let out = bench(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn errors_exit_with_a_message() {
    fail(&["/no/such/file"], "no such file");
    fail(&["--format", "xml"], "unknown format");
    fail(&["-B", "12"], "block size");
    fail(&["--bogus"], "Try 'lzkit bench -h'");
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("empty"), b"").unwrap();
    fail(&[dir.path().to_str().unwrap()], "empty");
}

#[test]
fn decode_mode_stops_on_a_wrong_decode() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "a.bin", 20_000);
    let path = file.to_str().unwrap();
    fails_verification(&["-i", "1", path], "adapt", 11);
    fails_verification(&["-i", "1", "--cold", path], "ref", 11);
}

#[test]
fn compress_mode_has_a_row_per_file_and_level() {
    let dir = TempDir::new().unwrap();
    write_sample(dir.path(), "a.bin", 20_000);
    write_sample(dir.path(), "b.bin", 30_000);
    let path = dir.path().to_str().unwrap();
    let args = ["--compress", "-L", "1,2", "-i", "1", "-B", "16K"];
    let out = stdout_of(&[&args[..], &["--format", "csv", path]].concat());
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split(',').collect()).collect();
    let head = &rows[0];
    for col in [
        "file",
        "level",
        "size",
        "ref_ratio",
        "lzkit_ratio",
        "bytes_over_ref",
        "ref_mbps",
        "lzkit_mbps",
        "speed_over_ref",
    ] {
        assert!(head.contains(&col), "{col} missing from {head:?}");
    }
    // Two files at two levels, then a geomean and a worst row per level.
    assert_eq!(rows.len(), 1 + 4 + 4, "{out}");
    let firsts: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(
        firsts,
        [
            ("a.bin", "1"),
            ("b.bin", "1"),
            ("a.bin", "2"),
            ("b.bin", "2"),
            ("geomean", "1"),
            ("worst", "1"),
            ("geomean", "2"),
            ("worst", "2"),
        ]
    );
    for row in &rows {
        assert_eq!(row.len(), head.len(), "ragged row {row:?}");
    }

    let json = Json::parse(&stdout_of(
        &[&args[..], &["--format", "json", path]].concat(),
    ))
    .expect("valid JSON");
    let settings = json.get("settings");
    assert_eq!(settings.get("mode").str(), "compress");
    assert!(matches!(settings.get("verified"), Json::Bool(true)));
    assert_eq!(json.get("files").arr().len(), 4);
    for f in json.get("files").arr() {
        for key in [
            "ref_ratio",
            "lzkit_ratio",
            "ref_mbps",
            "lzkit_mbps",
            "speed_over_ref",
        ] {
            positive(f, key);
        }
    }
    assert_eq!(json.get("summary").arr().len(), 4);

    let text = stdout_of(&[&args[..], &[path]].concat());
    assert!(text.contains("LZ4_compress_HC level 2"), "{text}");
    assert!(text.contains("verified"), "{text}");
    assert!(text.contains("worst speed_over_ref at level 2:"), "{text}");
}

#[test]
fn compress_mode_stops_on_output_that_does_not_decode() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "a.bin", 20_000);
    let args = ["--compress", "-L", "1,3", "-i", "1", file.to_str().unwrap()];
    fails_verification(&args, "lzkit level 3", 10);
    fails_verification(&args, "ref level 1", 10);
    // The C compressor with a state it keeps is verified the same way.
    let reuse = [&args[..], &["--reuse-state"]].concat();
    let text = stdout_of(&reuse);
    assert!(
        text.contains("--reuse-state: one state per contender"),
        "{text}"
    );
    fails_verification(&reuse, "ref level 3", 10);
}

#[test]
fn frame_mode_has_loops_frames_and_costs() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "a.bin", 40_000);
    let path = file.to_str().unwrap();
    let json = Json::parse(&stdout_of(&[
        "--frame", "-i", "1", "--format", "json", path,
    ]))
    .expect("valid JSON");
    assert_eq!(json.get("settings").get("mode").str(), "frame");
    let files = json.get("files").arr();
    assert_eq!(files.len(), 1);
    let f = &files[0];
    assert_eq!(f.get("file").str(), "a.bin");
    // 200 KB of data in 64 KiB blocks.
    assert_eq!(f.get("blocks").num(), 4.0);
    for op in ["lzkit_loop", "ref_loop"] {
        positive(f, op);
    }
    for checks in ["none", "content", "block"] {
        for prefix in ["lzkit_", "ref_", "lzkit_cost_", "ref_cost_", "boost_"] {
            positive(f, &format!("{prefix}{checks}"));
        }
    }
    let md = stdout_of(&["--frame", "-i", "1", "--format", "markdown", path]);
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert!(
        table[0].starts_with("| file | size | blocks | lzkit_loop |"),
        "{md}"
    );
    assert_eq!(
        table.len(),
        2 + 1 + 2,
        "head, rule, the file, geomean, worst"
    );

    fails_verification(&["--frame", "-i", "1", path], "ref_content", 11);
    fails_verification(&["--frame", "-i", "1", path], "lzkit_block", 11);
    fails_verification(&["--frame", "-i", "1", path], "lzkit_loop", 11);
}

#[test]
fn threads_mode_compares_n_threads_with_one() {
    let dir = TempDir::new().unwrap();
    write_sample(dir.path(), "a.bin", 30_000);
    write_sample(dir.path(), "b.bin", 30_000);
    let path = dir.path().to_str().unwrap();
    let args = ["-T", "2", "-i", "1", "-B", "64K", "--concat"];
    let json = Json::parse(&stdout_of(
        &[&args[..], &["--format", "json", path]].concat(),
    ))
    .expect("valid JSON");
    let settings = json.get("settings");
    assert_eq!(settings.get("mode").str(), "threads");
    assert_eq!(settings.get("threads").num(), 2.0);
    let files = json.get("files").arr();
    assert_eq!(files.len(), 1, "--concat: one input");
    assert_eq!(files[0].get("file").str(), "2 inputs concatenated");
    for work in ["compress", "decompress", "stream"] {
        for suffix in ["_1", "_n", "_speedup"] {
            positive(&files[0], &format!("{work}{suffix}"));
        }
    }
    let notes = json.get("notes").arr();
    assert!(
        notes.iter().any(|n| n.str().contains("under two jobs")),
        "{notes:?}"
    );

    let text = stdout_of(&["--mt", "-i", "1", "-L", "1,2", &format!("{path}/a.bin")]);
    assert!(text.contains("lzkit bench --threads 0:"), "{text}");
    assert!(
        text.lines().filter(|l| l.starts_with("a.bin")).count() == 2,
        "a row per level:\n{text}"
    );

    let one = format!("{path}/a.bin");
    let args = ["-T", "2", "-i", "1", "-B", "64K", one.as_str()];
    fails_verification(&args, "compress level 1 threads 2", 10);
    fails_verification(&args, "decompress level 1 threads 1", 11);
    fails_verification(&args, "stream level 1 threads 2", 11);
}

#[test]
fn zstd_codec_has_ref_adapt_and_every_variant_per_level() {
    let dir = TempDir::new().unwrap();
    let file = write_sample(dir.path(), "a.bin", 100_000);
    let path = file.to_str().unwrap();
    let args = ["--codec", "zstd", "-i", "1", "-L", "1,3", "-B", "256K"];
    let json = Json::parse(&stdout_of(
        &[&args[..], &["--format", "json", path]].concat(),
    ))
    .expect("valid JSON");
    let settings = json.get("settings");
    assert_eq!(settings.get("codec").str(), "zstd");
    assert!(matches!(settings.get("verified"), Json::Bool(true)));
    assert!(settings.get("reference").str().starts_with("libzstd 1."));
    let variants: Vec<&str> = settings
        .get("variants")
        .arr()
        .iter()
        .map(Json::str)
        .collect();
    assert!(!variants.is_empty());
    let files = json.get("files").arr();
    assert_eq!(files.len(), 2, "a row per level");
    for (row, level) in files.iter().zip([1.0, 3.0]) {
        assert_eq!(row.get("file").str(), "a.bin");
        assert_eq!(row.get("level").num(), level);
        // 650 KB in 256 KiB frames.
        assert_eq!(row.get("frames").num(), 3.0);
        for key in ["ratio", "ref", "adapt", "adapt_boost", "max_boost"] {
            positive(row, key);
        }
        for v in &variants {
            positive(row, v);
        }
        assert!(variants.contains(&row.get("best").str()));
    }

    // Whole-file frames: the streaming decoders too; CSV has the columns.
    let csv = stdout_of(&[
        "--codec", "zstd", "--whole", "-i", "1", "-L", "3", "--format", "csv", path,
    ]);
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for column in [
        "file",
        "level",
        "ref",
        "adapt",
        "stream",
        "ref_stream",
        "stream_boost",
    ] {
        assert!(head.contains(&column), "{column} missing: {csv}");
    }
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!((row[0], row[1], row[3]), ("a.bin", "3", "1"), "{csv}");

    // The default levels, in the text table.
    let text = stdout_of(&["--codec", "zstd", "-i", "1", path]);
    assert!(
        text.contains("lzkit bench --codec zstd:") && text.contains("levels 1,3,19"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("a.bin")).count(),
        3,
        "{text}"
    );

    let args = ["--codec", "zstd", "-i", "1", "-L", "3", path];
    fails_verification(&args, "ref level 3", 11);
    fails_verification(&args, "adapt level 3", 11);
    fails_verification(&args, &format!("{} level 3", variants[0]), 11);
    fail(&["--codec", "zstd", "--frame"], "LZ4 only");
    fail(&["--whole"], "--codec zstd");
}

#[test]
fn modes_reject_options_of_other_modes() {
    fail(&["--compress", "--frame"], "one at a time");
    fail(&["--frame", "--cold"], "--cold");
    fail(&["--threads", "2", "--compressor", "lzkit"], "--compressor");
    fail(&["-L", "1,9"], "apply to --compress");
    fail(&["--frame", "-B", "16K"], "frame block size");
}

#[test]
fn help_lists_the_options() {
    let out = stdout_of(&["-h"]);
    for opt in [
        "-B",
        "--compressor",
        "-i",
        "--stat",
        "--seed",
        "--format",
        "--corpus-scale",
        "--quick",
        "--cold",
        "--hot",
        "--compress",
        "--frame",
        "--threads",
        "--mt",
        "--levels",
        "--concat",
        "--reuse-state",
        "--codec zstd",
        "--whole",
        "docs/benchmarking.md",
    ] {
        assert!(out.contains(opt), "{opt} missing from help");
    }
}
