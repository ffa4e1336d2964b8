//! Integration tests of `lzkit probe`: the JSON schema (keys and types), the
//! CSV header, the text table and recommendation, the SVG plot (its ratio
//! interval bars; a plot per file in a directory), errors (one line, status
//! 1), deterministic sampling, and figures consistent with compressing the
//! whole file (a whole-input sample's ratio is the ratio of `lzkit -1 -B4`
//! frames, less the frame's own bytes). Samples are small and timings short
//! (`--min-time 0`); no speed is asserted, only that speeds are positive
//! numbers.

mod common;
#[path = "common/json.rs"]
mod json;

use std::fs;
use std::process::{Command, Output, Stdio};

use common::{BIN, sample};
use json::Json;
use tempfile::TempDir;

/// Short timings for tests.
const QUICK: &[&str] = &["--min-time", "0", "--time-limit", "none", "-q"];

fn probe(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("probe")
        .args(QUICK)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run lzkit")
}

/// Standard output of a run that must succeed.
fn stdout_of(args: &[&str]) -> String {
    let out = probe(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A directory with a compressible file of `len` bytes, `data.bin`.
fn dir_with_file(len: usize) -> (TempDir, String) {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("data.bin");
    fs::write(&path, sample(len, 7)).unwrap();
    let name = path.to_str().unwrap().to_string();
    (dir, name)
}

#[test]
fn json_has_the_stable_schema() {
    let (_dir, file) = dir_with_file(300_000);
    let text = stdout_of(&[
        "--format",
        "json",
        "--codecs",
        "lz4:-2,1,12d,zstd:3",
        "--io",
        "100MB/s",
        &file,
    ]);
    let doc = Json::parse(&text).expect("valid JSON");
    assert_eq!(doc.get("tool").str(), "lzkit probe");
    assert_eq!(doc.get("input_bytes").num(), 300_000.0);
    assert_eq!(doc.get("block_size").num(), 65_536.0);
    assert!(matches!(doc.get("whole_input"), Json::Bool(true)));
    assert_eq!(doc.get("io_mbps").num(), 100.0);
    assert!(doc.get("speed_unit").str().contains("10^6"));
    let candidates = doc.get("candidates").arr();
    let names: Vec<(&str, f64)> = candidates
        .iter()
        .map(|c| (c.get("codec").str(), c.get("level").num()))
        .collect();
    assert_eq!(
        names,
        [("lz4", -2.0), ("lz4", 1.0), ("lz4", 12.0), ("zstd", 3.0)]
    );
    let mut on_front = 0;
    for c in candidates {
        let level = c.get("level").num();
        assert_eq!(level, level.trunc(), "an integer level");
        for key in [
            "ratio",
            "compress_mbps",
            "compress_mbps_threads",
            "decompress_mbps",
            "reference_decompress_mbps",
            "read_mbps",
            "write_mbps",
        ] {
            assert!(c.get(key).num() > 0.0, "{key}");
        }
        for key in [
            "compress_memory",
            "decompress_memory",
            "sample_bytes",
            "blocks",
        ] {
            assert!(c.get(key).num() >= 1.0, "{key}");
        }
        assert!(c.get("ratio").num() > 1.0, "the data compresses");
        // The whole input sampled: the interval is the ratio itself.
        assert_eq!(c.get("ratio_low").num(), c.get("ratio").num());
        assert_eq!(c.get("ratio_high").num(), c.get("ratio").num());
        assert_eq!(c.get("sample_bytes").num(), 300_000.0);
        match c.get("pareto") {
            Json::Bool(b) => on_front += usize::from(*b),
            other => panic!("pareto: {other:?}"),
        }
        assert!(matches!(c.get("pareto_compress"), Json::Bool(_)));
        assert!(matches!(c.get("favor_dec_speed"), Json::Bool(_)));
        assert!(!c.get("setting").str().is_empty());
    }
    assert!(on_front >= 1, "a front has at least one point");
    assert!(matches!(
        candidates[2].get("favor_dec_speed"),
        Json::Bool(true)
    ));
    let rec = doc.get("recommendation");
    assert_eq!(rec.get("io_mbps").num(), 100.0);
    for (what, key) in [
        ("read", "read_mbps"),
        ("write", "write_mbps"),
        ("size", "ratio"),
    ] {
        let pick = rec.get(what);
        let i = pick.get("index").num() as usize;
        assert!(i < candidates.len());
        assert_eq!(pick.get("codec").str(), candidates[i].get("codec").str());
        assert!(pick.get(key).num() > 0.0);
    }
    // Without --io: data in memory, and reading end to end is decoding.
    let doc = Json::parse(&stdout_of(&["--format=json", "--codecs", "lz4:1", &file])).unwrap();
    assert!(matches!(doc.get("io_mbps"), Json::Null));
    let c = &doc.get("candidates").arr()[0];
    assert_eq!(c.get("read_mbps").num(), c.get("decompress_mbps").num());
}

#[test]
fn a_sampled_input_gets_a_calibration_and_intervals() {
    let (_dir, file) = dir_with_file(3 << 20);
    let args = [
        "--format=json",
        "--codecs",
        "lz4:1,9",
        "--sample",
        "256K",
        "--min-time",
        "0",
        "--no-reference",
        &file,
    ];
    let doc = Json::parse(&stdout_of(&args)).unwrap();
    assert!(matches!(doc.get("whole_input"), Json::Bool(false)));
    let cal = doc.get("calibration");
    // 3 MiB in 64 KiB blocks: far more than the sample's 4 blocks.
    assert_eq!(cal.get("input_blocks").num(), 48.0);
    // Blocks under 1 MiB are calibrated whole, not in pieces.
    assert!(matches!(cal.get("piece_bytes"), Json::Null));
    assert!(cal.get("blocks").num() > 4.0);
    assert_eq!(
        cal.get("auxiliaries").arr()[0].get("setting").str(),
        "lz4 -1"
    );
    for c in doc.get("candidates").arr() {
        let (low, ratio, high) = (
            c.get("ratio_low").num(),
            c.get("ratio").num(),
            c.get("ratio_high").num(),
        );
        assert!(low <= ratio && ratio <= high, "{low} {ratio} {high}");
    }
    // Turned off: the sample's own ratios, no calibration.
    let mut off = args.to_vec();
    off.insert(0, "--calibrate=none");
    let doc = Json::parse(&stdout_of(&off)).unwrap();
    assert!(matches!(doc.get("calibration"), Json::Null));
    let text = stdout_of(&args[1..]);
    assert!(
        text.contains("±95%") && text.contains("ratios: lz4 -1"),
        "{text}"
    );
}

#[test]
fn per_file_advises_each_file() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.bin"), sample(200_000, 1)).unwrap();
    fs::write(dir.path().join("b.bin"), vec![0u8; 100_000]).unwrap();
    fs::write(dir.path().join("empty"), b"").unwrap();
    let d = dir.path().to_str().unwrap();
    let args = [
        "--format=json",
        "--per-file",
        "--codecs",
        "lz4:1,9",
        "--no-reference",
        d,
    ];
    let doc = Json::parse(&stdout_of(&args)).unwrap();
    let files = doc.get("per_file").arr();
    // The empty file has nothing to advise on.
    assert_eq!(files.len(), 2);
    for (f, (name, bytes)) in files
        .iter()
        .zip([("a.bin", 200_000.0), ("b.bin", 100_000.0)])
    {
        assert!(
            f.get("file").str().ends_with(name),
            "{}",
            f.get("file").str()
        );
        assert_eq!(f.get("input_bytes").num(), bytes);
        assert!(f.get("size").get("ratio").num() > 1.0);
        assert!(f.get("read").get("read_mbps").num() > 0.0);
        assert!(f.get("write").get("setting").str().starts_with("lz4"));
    }
    // Zeros compress far better than the sample data.
    assert!(files[1].get("size").get("ratio").num() > files[0].get("size").get("ratio").num());
    let text = stdout_of(&args[1..]);
    assert!(
        text.contains("Per file") && text.contains("b.bin"),
        "{text}"
    );
    // Without the option: no per-file advice.
    let doc = Json::parse(&stdout_of(&["--format=json", "--codecs", "lz4:1", d])).unwrap();
    assert!(doc.get("per_file").arr().is_empty());
}

#[test]
fn an_element_type_adds_filtered_candidates_with_their_clickhouse_codecs() {
    let dir = TempDir::new().unwrap();
    // A sorted 8-byte column: delta makes it small numbers.
    let column: Vec<u8> = (0u64..40_000)
        .flat_map(|i| (1_000_000 + i * 37).to_le_bytes())
        .collect();
    let path = dir.path().join("t.ts.Int64");
    fs::write(&path, &column).unwrap();
    let p = path.to_str().unwrap();
    let json = |args: &[&str]| Json::parse(&stdout_of(args)).unwrap();
    // Inferred from the name's type suffix.
    let doc = json(&["--format=json", "--codecs", "lz4:1,9", "--no-reference", p]);
    let c = doc.get("candidates").arr();
    let settings: Vec<&str> = c.iter().map(|c| c.get("setting").str()).collect();
    assert!(settings.contains(&"lz4 -1 --filter=delta8"), "{settings:?}");
    assert!(
        settings.contains(&"lz4 -1 --filter=shuffle8"),
        "{settings:?}"
    );
    let by = |name: &str| c.iter().find(|c| c.get("setting").str() == name).unwrap();
    assert_eq!(
        by("lz4 -9").get("clickhouse_codec").str(),
        "CODEC(LZ4HC(9))"
    );
    assert_eq!(
        by("lz4 -1 --filter=delta8").get("clickhouse_codec").str(),
        "CODEC(Delta(8), LZ4)"
    );
    assert!(matches!(
        by("lz4 -1 --filter=shuffle8").get("clickhouse_codec"),
        Json::Null
    ));
    assert_eq!(by("lz4 -1 --filter=delta8").get("filter").str(), "delta8");
    // Every round trip was checked, and delta pays on this column.
    assert!(
        by("lz4 -1 --filter=delta8").get("ratio").num() > 2.0 * by("lz4 -1").get("ratio").num()
    );
    // --type none: no filters; --type i32 on this name: width 4.
    let none = json(&[
        "--format=json",
        "--codecs",
        "lz4:1",
        "--type",
        "none",
        "--no-reference",
        p,
    ]);
    assert_eq!(none.get("candidates").arr().len(), 1);
    let i32s = json(&[
        "--format=json",
        "--codecs",
        "lz4:1",
        "--type=i32",
        "--no-reference",
        p,
    ]);
    let names: Vec<&str> = i32s
        .get("candidates")
        .arr()
        .iter()
        .map(|c| c.get("setting").str())
        .collect();
    assert!(names.contains(&"lz4 -1 --filter=delta4"), "{names:?}");
    fails_with(&["--type", "i128", p], "unknown --type 'i128'");
}

#[test]
fn csv_has_a_header_and_a_line_per_setting() {
    let (_dir, file) = dir_with_file(100_000);
    let text = stdout_of(&["--format", "csv", "--codecs", "lz4:1,9,zstd:1", &file]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "codec,level,favor_dec_speed,setting,clickhouse_codec,ratio,ratio_low,ratio_high,compress_mbps,\
         compress_mbps_threads,\
         decompress_mbps,reference_decompress_mbps,compress_memory,decompress_memory,\
         read_mbps,write_mbps,pareto,pareto_compress,sample_bytes,blocks,recommended"
    );
    assert_eq!(lines.len(), 4);
    assert!(lines[1].starts_with("lz4,1,false,lz4 -1,"));
    assert!(lines[3].starts_with("zstd,1,false,zstd -1,"));
    let recommended: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert!(recommended.concat().contains("read"));
    assert!(recommended.concat().contains("size"));
}

#[test]
fn text_shows_the_table_and_the_recommendation() {
    let (_dir, file) = dir_with_file(200_000);
    let text = stdout_of(&["--codecs", "lz4:1,9,zstd:3", "--io", "2GB/s", &file]);
    for needed in [
        "lzkit probe: ",
        "MB = 10^6 bytes",
        "lz4 -9",
        "zstd -3",
        "*: on the Pareto front",
        "Recommendation at 2000 MB/s I/O",
        "  reading  ",
        "  writing  ",
        "  size     ",
    ] {
        assert!(text.contains(needed), "{needed:?} in\n{text}");
    }
    for line in text.lines() {
        assert!(line.len() <= 120, "{line}");
    }
    let text = stdout_of(&["--codecs", "lz4:1", &file]);
    assert!(text.contains("no --io given"), "{text}");
}

#[test]
fn plot_writes_an_svg() {
    let (dir, file) = dir_with_file(100_000);
    let svg = dir.path().join("front.svg");
    stdout_of(&[
        "--codecs",
        "lz4:1,9,zstd:3",
        "--plot",
        svg.to_str().unwrap(),
        &file,
    ]);
    let text = fs::read_to_string(&svg).expect("the plot was written");
    assert!(text.starts_with("<svg"), "{}", &text[..40]);
    assert!(text.trim_end().ends_with("</svg>"));
    for needed in ["Pareto front", "lz4 -9", "zstd -3", "recommended at"] {
        assert!(text.contains(needed), "{needed} in the SVG");
    }
}

/// The ratio-interval bars in a plot: polylines of the bars' colour (one
/// per setting with an interval, and the legend's).
fn bars_in(svg: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with("<polyline") && l.contains(r##"stroke="#505050""##))
        .count()
}

#[test]
fn plot_shows_the_ratio_intervals_as_bars() {
    // 1 MiB sampled in 16 blocks of 16 KiB: every ratio has an interval.
    let (dir, file) = dir_with_file(1 << 20);
    let svg = dir.path().join("bars.svg");
    let doc = Json::parse(&stdout_of(&[
        "--format=json",
        "--codecs",
        "lz4:1,9,zstd:3",
        "-B16K",
        "--sample",
        "256K",
        "--calibrate=none",
        "--no-reference",
        "--plot",
        svg.to_str().unwrap(),
        &file,
    ]))
    .unwrap();
    let candidates = doc.get("candidates").arr();
    let with_interval = candidates
        .iter()
        .filter(|c| c.get("ratio_low").num() < c.get("ratio_high").num())
        .count();
    assert_eq!(with_interval, 3, "a sampled input's ratios have intervals");
    let text = fs::read_to_string(&svg).unwrap();
    assert_eq!(
        bars_in(&text),
        with_interval + 1,
        "a bar each, and the legend's"
    );
    assert!(text.contains("bars: 95% confidence interval of the ratio"));
    assert!(text.contains("recommended at"));

    // The whole input: exact ratios, no bars, no legend for them.
    let (dir, file) = dir_with_file(50_000);
    let svg = dir.path().join("exact.svg");
    stdout_of(&[
        "--codecs",
        "lz4:1,9",
        "--plot",
        svg.to_str().unwrap(),
        &file,
    ]);
    let text = fs::read_to_string(&svg).unwrap();
    assert_eq!(bars_in(&text), 0);
    assert!(!text.contains("bars:"));
}

/// The files in `dir`, sorted.
fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn plot_directory_has_a_plot_per_file_and_of_all() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("sub")).unwrap();
    fs::write(input.join("a.bin"), sample(200_000, 1)).unwrap();
    fs::write(input.join("sub/a.bin"), sample(100_000, 2)).unwrap();
    fs::write(input.join("all"), vec![0u8; 50_000]).unwrap();
    fs::write(input.join("we ird:name"), sample(50_000, 3)).unwrap();
    fs::write(input.join("empty"), b"").unwrap();
    let out = dir.path().join("plots/new");
    let out_arg = format!("{}/", out.display());
    let input = input.to_str().unwrap();
    let args = [
        "--format=json",
        "--codecs",
        "lz4:1,9",
        "--no-reference",
        "--plot",
        &out_arg,
        input,
    ];
    let doc = Json::parse(&stdout_of(&args)).unwrap();
    // Per-file advice is printed only with --per-file.
    assert!(doc.get("per_file").arr().is_empty());
    // Walked in path order: a.bin, all, empty, sub/a.bin, we ird:name. The
    // empty file has no plot; `all` does not take all.svg; names are safe.
    assert_eq!(
        listing(&out),
        [
            "a.bin-2.svg",
            "a.bin.svg",
            "all-2.svg",
            "all.svg",
            "we_ird_name.svg"
        ]
    );
    let read = |name: &str| fs::read_to_string(out.join(name)).unwrap();
    assert!(read("all.svg").contains("lzkit probe, all 4 files"));
    for (plot, file) in [
        ("a.bin.svg", "in/a.bin"),
        ("a.bin-2.svg", "sub/a.bin"),
        ("all-2.svg", "in/all"),
        ("we_ird_name.svg", "we ird:name"),
    ] {
        let text = read(plot);
        assert!(text.trim_end().ends_with("</svg>"), "{plot}");
        assert!(
            text.contains(&format!("{file} alone:")),
            "{plot} is {file}'s"
        );
        assert!(text.contains("lz4 -9") && text.contains("recommended at"));
    }

    // Plots already there are refused, before the probe, and kept.
    fails_with(
        &args,
        "all.svg and 4 more plots already exist; not overwritten (use -f",
    );
    for name in listing(&out) {
        fs::remove_file(out.join(name)).unwrap();
    }
    fs::write(out.join("a.bin-2.svg"), b"mine").unwrap();
    fails_with(
        &args,
        "a.bin-2.svg: already exists; not overwritten (use -f",
    );
    assert_eq!(listing(&out), ["a.bin-2.svg"]);
    assert_eq!(fs::read(out.join("a.bin-2.svg")).unwrap(), b"mine");
    // Overwritten with -f, an existing directory named without a slash.
    let mut forced = args.to_vec();
    let out_plain = out.to_str().unwrap();
    forced[5] = out_plain;
    forced.insert(0, "-f");
    stdout_of(&forced);
    assert!(read("a.bin-2.svg").contains("sub/a.bin alone:"));
    assert_eq!(listing(&out).len(), 5, "no temporary file left");

    // One file, --plot DIR/: its plot and all.svg.
    let one = dir.path().join("one/");
    let one_arg = format!("{}/", one.display());
    let file = dir.path().join("in/we ird:name");
    stdout_of(&[
        "--codecs",
        "lz4:1",
        "--plot",
        &one_arg,
        file.to_str().unwrap(),
    ]);
    assert_eq!(listing(&one), ["all.svg", "we_ird_name.svg"]);
}

#[test]
fn plot_directory_errors() {
    let dir = TempDir::new().unwrap();
    let empty = dir.path().join("empty");
    fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    // A directory created for the plots goes again if the probe fails.
    let out = dir.path().join("out");
    let out_arg = format!("{}/", out.display());
    fails_with(&["--plot", &out_arg, empty], "empty");
    assert!(!out.exists());
    // A file where the directory should be.
    let file = dir.path().join("file");
    fs::write(&file, b"x").unwrap();
    let file_arg = format!("{}/", file.display());
    fails_with(&["--plot", &file_arg, empty], "not a directory");
    fails_with(&["--plot", "out"], "directory ending in /");
}

/// Status 1 and exactly one line on standard error, naming the command.
fn fails_with(args: &[&str], needle: &str) {
    let out = probe(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("lzkit probe: "), "{err}");
    assert!(err.contains(needle), "{needle:?} in {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn errors_are_one_line_and_exit_1() {
    let dir = TempDir::new().unwrap();
    let empty = dir.path().join("empty");
    fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    let missing = dir.path().join("missing");
    fails_with(&[missing.to_str().unwrap()], "No such file or directory");
    fails_with(&[empty], "empty");
    fails_with(&["--nope"], "unknown option --nope");
    fails_with(&["--codecs", "lz4:99", empty], "LZ4 levels");
    fails_with(&["--codecs", "brotli:1", empty], "unknown codec");
    fails_with(&["--io", "fast", empty], "--io");
    fails_with(&["--plot", "x.png", empty], ".svg");
    fails_with(&["-B", "3"], "block size");
    fails_with(&["-"], "standard input");
    // A plot that cannot be written fails before the probe runs.
    let nowhere = dir.path().join("no/such/dir/x.svg");
    fails_with(
        &["--plot", nowhere.to_str().unwrap(), empty],
        "No such file",
    );
    // A failed probe leaves no plot file behind.
    let plot = dir.path().join("left.svg");
    fails_with(&["--plot", plot.to_str().unwrap(), empty], "empty");
    assert!(!plot.exists());
    // ... and an existing one stays as it was.
    fs::write(&plot, b"an older plot").unwrap();
    fails_with(&["--plot", plot.to_str().unwrap(), empty], "empty");
    assert_eq!(fs::read(&plot).unwrap(), b"an older plot");
    let leftovers = fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".lzkit-plot-")
        })
        .count();
    assert_eq!(leftovers, 0, "no temporary plot left");
    fails_with(&["--codecs", "zstd:0", empty], "level 0");
    fails_with(&["-B", "64M", empty], "larger than the default sample");
    fails_with(
        &["-B", "2M", "--sample", "1M", empty],
        "larger than --sample",
    );
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    fails_with(&[sub.to_str().unwrap()], "no files");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = dir.path().join("locked");
        fs::write(&locked, b"data").unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        // Root reads it anyway; everyone else gets the error.
        if fs::read(&locked).is_err() {
            fails_with(&[locked.to_str().unwrap()], "Permission denied");
        }
    }
}

#[test]
fn help_lists_the_options() {
    let out = Command::new(BIN)
        .args(["probe", "-h"])
        .output()
        .expect("run lzkit");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for opt in [
        "--block-size",
        "--sample",
        "--codecs",
        "--io",
        "--threads",
        "--format",
        "--plot FILE.svg",
        "--plot DIR/",
        "--force",
        "--min-time",
        "--time-limit",
        "--quiet",
    ] {
        assert!(text.contains(opt), "{opt}");
    }
}

/// The ratio the JSON report gives for `file` with `args`.
fn ratios(args: &[&str]) -> Vec<f64> {
    let doc = Json::parse(&stdout_of(&[&["--format", "json"], args].concat())).unwrap();
    doc.get("candidates")
        .arr()
        .iter()
        .map(|c| c.get("ratio").num())
        .collect()
}

#[test]
fn a_whole_input_sample_gives_the_whole_files_ratio() {
    // 1 MiB of compressible data: 16 blocks of 64 KiB, all compressed.
    let (dir, file) = dir_with_file(1 << 20);
    let probed = ratios(&["--codecs", "lz4:1", "--sample", "all", &file]);
    // The same file as an LZ4 frame of independent 64 KiB blocks: a 7-byte
    // header, a 4-byte size per block, a 4-byte end mark.
    let frame = dir.path().join("data.lz4");
    let out = common::lzkit(
        dir.path(),
        &[
            "-1",
            "-B4",
            "-BI",
            "--no-frame-crc",
            "-f",
            &file,
            frame.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let blocks = fs::metadata(&frame).unwrap().len() - 7 - 16 * 4 - 4;
    let whole = (1u64 << 20) as f64 / blocks as f64;
    assert!(
        (probed[0] - whole).abs() < 1e-4,
        "probe {} vs frame {whole}",
        probed[0]
    );
}

#[test]
fn sampling_is_deterministic_and_reads_directories() {
    let dir = TempDir::new().unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    for (path, len, seed) in [
        (dir.path().join("a"), 700_000, 1),
        (dir.path().join("b"), 300_000, 2),
        (sub.join("c"), 500_000, 3),
    ] {
        fs::write(path, sample(len, seed)).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let args = ["--codecs", "lz4:1,9", "--sample", "256K", d];
    let first = ratios(&args);
    assert_eq!(first, ratios(&args), "same input, same sample, same ratios");
    let doc = Json::parse(&stdout_of(&[&["--format", "json"], &args[..]].concat())).unwrap();
    assert_eq!(doc.get("files").num(), 3.0, "the file in sub/ too");
    assert_eq!(doc.get("input_bytes").num(), 1_500_000.0);
    // 24 blocks (11, 5 and 8), 4 taken: blocks 3 and 9 of a, the last
    // (short) block of b, block 2 of c.
    assert_eq!(doc.get("sample_bytes").num(), (3 * 65_536 + 37_856) as f64);
    assert!(matches!(doc.get("whole_input"), Json::Bool(false)));
    // Whole files as blocks.
    let doc = Json::parse(&stdout_of(&[
        "--format", "json", "-B", "file", "--codecs", "lz4:1", d,
    ]))
    .unwrap();
    assert_eq!(doc.get("block_size").str(), "file");
    assert_eq!(doc.get("candidates").arr()[0].get("blocks").num(), 3.0);
}

#[test]
fn the_built_in_corpus_is_probed_without_files() {
    let text = stdout_of(&["--codecs", "lz4:1", "--sample", "512K", "--no-reference"]);
    assert!(text.contains("built-in corpus"), "{text}");
    assert!(!text.contains("dec C"));
}
