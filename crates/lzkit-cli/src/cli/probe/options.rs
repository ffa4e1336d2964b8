//! `lzkit probe` argument parsing, hand-written like the rest of the CLI.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use lzkit::format::Codec;
use lzkit::probe::{
    BlockSize, DEFAULT_CALIBRATION, DEFAULT_LZ4_LEVELS, DEFAULT_MIN_TIME, DEFAULT_TIME_LIMIT,
    DEFAULT_ZSTD_LEVELS, IoRate, Setting,
};

use crate::cli::bench::cmdline::{Arg, Walk};
use crate::cli::values::{self, SizeSyntax};

/// Default `--sample`: 32 MiB, which the default settings probe in about
/// 15 s on a 2-core machine (so a 4 GB file takes well under 30 s).
pub const DEFAULT_SAMPLE: u64 = 32 << 20;
/// Default block size: ClickHouse's and many column stores' 64 KiB pages.
pub const DEFAULT_BLOCK_SIZE: usize = 64 << 10;
/// Largest `-B`: far beyond any page or basket, and within LZ4's largest
/// block (2,113,929,216 bytes).
const MAX_BLOCK_SIZE: u64 = 1 << 30;
/// Largest `--threads` (a typo guard).
const MAX_THREADS: usize = 1024;
/// Longest `--min-time` and `--time-limit` (a typo guard): a minute.
const MAX_SECONDS: f64 = 60.0;

/// Output format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A table and the recommendation, for people.
    Text,
    /// One object: input, sample, settings, `candidates`, recommendation.
    Json,
    /// One line per candidate.
    Csv,
}

/// What `lzkit probe` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The candidates (`--codecs`).
    pub settings: Vec<Setting>,
    /// `-B`.
    pub block_size: BlockSize,
    /// `--sample` in bytes (`u64::MAX`: the whole input).
    pub sample: u64,
    /// `--io`.
    pub io: IoRate,
    /// `-T` (0: one per core).
    pub threads: usize,
    /// `--format`.
    pub format: Format,
    /// `--plot FILE.svg` or `--plot DIR/`.
    pub plot: Option<Plot>,
    /// `-f`: `--plot DIR/` overwrites plots already there.
    pub force: bool,
    /// `--min-time`.
    pub min_time: Duration,
    /// `--time-limit` (`None`: none).
    pub time_limit: Option<Duration>,
    /// `--calibrate` (zero: off).
    pub calibrate: Duration,
    /// `--no-reference`: time lzkit's decoders only.
    pub no_reference: bool,
    /// `--per-file`: advice for each file too.
    pub per_file: bool,
    /// `--type`: the element width in bytes (`Some(None)`: `--type none`,
    /// no filters; `None`: inferred from the file names).
    pub element: Option<Option<usize>>,
    /// `-q`.
    pub quiet: bool,
    /// Files and directories; empty means the built-in corpus.
    pub inputs: Vec<PathBuf>,
}

/// Where `--plot` draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plot {
    /// One SVG file, of all the inputs together.
    File(PathBuf),
    /// A directory (named with a trailing `/`, or one that exists): an SVG
    /// per input file and one of them all.
    Dir(PathBuf),
}

/// Parse result: probe with these options, or show help.
pub type Parsed = crate::cli::bench::cmdline::Parsed<Box<Options>>;

/// `lzkit probe -h`.
pub const HELP: &str = "\
Usage: lzkit probe [OPTIONS] [FILE|DIR]...

Which codec and level for this data? Compresses an evenly spread sample of the
input, cut into the blocks your system compresses, with each candidate setting,
and reports per setting: compression ratio, compression speed on one thread and
on all threads, decompression speed with lzkit's decoders and the C libraries
(lz4, libzstd), working memory, and end-to-end read and write speed under an
I/O rate; marks the Pareto front and recommends a setting for reading, for
writing and for size. Every block's round trip is checked.

With no FILE, a built-in corpus of column-like data. A DIR stands for every
regular file under it (recursively; symbolic links are not followed).

Options:
  -B, --block-size SIZE  what your system compresses as one unit: 64K (default;
                         pages), 1M (baskets), any size from 1K to 1G (K, M, G:
                         binary units), or 'file' (each file one block)
      --sample SIZE      bytes sampled, in evenly spread blocks of the input
                         (default 32M; the whole input if smaller; 'all': the
                         whole input always); the same input gives the same
                         sample
      --codecs LIST      candidates: lz4 or zstd for a codec's default levels,
                         or levels after lz4: or zstd:, as in
                         lz4:-8,1,9,12d,zstd:3,19 (a negative level N is
                         --fast=-N; 'd' after an LZ4 level 10-12 adds
                         --favor-decSpeed). Default:
                         lz4:-8,-2,1,4,9,12,12d,zstd:-5,1,3,9,19
      --io RATE          the I/O rate of the compressed bytes, for end-to-end
                         speeds: 100MB/s (a network file system), 2GB/s (NVMe);
                         KB, MB, GB are 10^3, 10^6, 10^9 bytes, KiB, MiB, GiB
                         binary, /s optional; a plain number is MB/s.
                         Default: none (data in memory)
  -T, --threads N        threads of the all-threads compression speed
                         (default: one per core)
      --format FORMAT    text (default), json or csv
      --plot FILE.svg    also draw ratio against decompression speed: a point
                         per setting with its ratio's 95% interval as a
                         vertical bar (speeds have none: each is a best pass),
                         the Pareto front, the recommended settings ringed
                         (SVG only; an existing FILE is replaced)
      --plot DIR/        a plot per file probed, DIR/NAME.svg, from a quick
                         probe of each file alone (as --per-file's), and
                         DIR/all.svg of all files together. NAME: the file's
                         name, any character but letters, digits and . - _ +
                         made _, then -2, -3... if already used (all.svg
                         included). DIR (a name ending in /, or an existing
                         directory) is created if missing; plots already
                         there are not overwritten without -f
  -f, --force            --plot DIR/: overwrite plots already there
      --min-time SECS    each timing repeats until this long and keeps the best
                         pass (default 0.2)
      --time-limit SECS  a setting compresses the sample on one thread for at
                         most this long (default 1.5); slow settings measure
                         speeds on the (spread) blocks done by then, and their
                         ratio is estimated for the whole sample from a setting
                         that did all of it, so it depends a little on the
                         machine's speed. 'none': always the whole sample
                         (ratios then the same on every run)
      --calibrate SECS   after reading the sample, compress as many more blocks
                         as this allows (default 1.5 s; evenly spread, on all
                         cores, until LZ4's and zstd's level-1 ratios are known
                         to ±1%) with LZ4 and zstd level 1; every setting's
                         ratio is then estimated from how it compares with
                         those on the sample. 'none': ratios of the sample alone
      --no-reference     time lzkit's decoders only, not the C libraries'
      --type TYPE        the input's element type: i8, i16, i32, i64 (u8...u64),
                         f32, f64: adds candidates with a pre-filter of that
                         width before LZ4 -1, zstd -1 and zstd -3 (delta, and
                         byte shuffle from 2 bytes up); default: inferred from
                         a type suffix all files share (name.Int64,
                         name.Float32...); 'none': no filters
      --per-file         also advise each file alone (each column of a table
                         kept as a file, each branch, each chunk): a quick
                         probe per file (its share of --sample, at least 1
                         MiB; one thread; 5 ms timings; lzkit's decoders)
                         and one line per file with its best setting for
                         reading, writing and size
  -q, --quiet            no progress bar (shown on a terminal only anyway)
  -h, --help             this help

Speeds are MB/s of uncompressed data (MB = 10^6 bytes). Reading end to end is
moving the compressed bytes at --io, then decoding on one thread; writing is
compressing on all threads, then moving the compressed bytes. A setting is on
the Pareto front (*) when no other has both a higher ratio and a faster decoder
(the mark after 'dec'), or compressor (after 'comp'). Ratios are those of
independent blocks (lz4 block format; one zstd frame per block, as libzstd's
one-shot API writes it); for an input smaller than --sample they are exactly
the whole input's.

Exit status: 0 on success, 1 on a usage or input error or a failed round trip.
";

/// Options as they are read.
#[derive(Default)]
struct Raw {
    settings: Option<Vec<Setting>>,
    block_size: Option<BlockSize>,
    sample: Option<u64>,
    io: Option<IoRate>,
    threads: Option<usize>,
    format: Option<Format>,
    plot: Option<Plot>,
    force: bool,
    min_time: Option<Duration>,
    time_limit: Option<Option<Duration>>,
    calibrate: Option<Duration>,
    no_reference: bool,
    per_file: bool,
    element: Option<Option<usize>>,
    quiet: bool,
    inputs: Vec<PathBuf>,
}

/// Parse the arguments after `probe`. Errors are one-line messages.
pub fn parse(args: Vec<OsString>) -> Result<Parsed, String> {
    let mut raw = Raw::default();
    let mut walk = Walk::new(args, true);
    while let Some(arg) = walk.next_arg()? {
        let text = match arg {
            Arg::Input(path) => {
                raw.inputs.push(path);
                continue;
            }
            Arg::Help => return Ok(Parsed::Help),
            Arg::Option(text) => text,
        };
        let (name, attached) = split_option(&text);
        let mut value = || match attached {
            Some(v) => Ok(v.to_string()),
            None => walk
                .rest
                .next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or_else(|| format!("option {name} needs a value")),
        };
        let flag = |raw_flag: &mut bool| match attached {
            Some(_) => Err(format!("option {name} takes no value")),
            None => {
                *raw_flag = true;
                Ok(())
            }
        };
        match name {
            "-B" | "--block-size" => raw.block_size = Some(parse_block_size(&value()?)?),
            "--sample" => raw.sample = Some(parse_sample(&value()?)?),
            "--codecs" => raw.settings = Some(parse_codecs(&value()?)?),
            "--io" => raw.io = Some(parse_io(&value()?)?),
            "-T" | "--threads" => raw.threads = Some(parse_threads(&value()?)?),
            "--format" => raw.format = Some(parse_format(&value()?)?),
            "--plot" => raw.plot = Some(parse_plot(&value()?)?),
            "--min-time" => raw.min_time = Some(parse_seconds(&value()?, "--min-time")?),
            "--time-limit" => raw.time_limit = Some(parse_time_limit(&value()?)?),
            "--calibrate" => {
                raw.calibrate = Some(match value()?.as_str() {
                    "none" => Duration::ZERO,
                    v => parse_seconds(v, "--calibrate")?,
                })
            }
            "--no-reference" => flag(&mut raw.no_reference)?,
            "--per-file" => flag(&mut raw.per_file)?,
            "--type" => raw.element = Some(parse_type(&value()?)?),
            "-q" | "--quiet" => flag(&mut raw.quiet)?,
            "-f" | "--force" => flag(&mut raw.force)?,
            _ => return Err(format!("unknown option {name}")),
        }
    }
    if let (Some(BlockSize::Bytes(b)), Some(sample)) = (raw.block_size, raw.sample)
        && b as u64 > sample
    {
        return Err(format!(
            "the block size ({b} bytes) is larger than --sample ({sample} bytes): a sample holds whole blocks; raise --sample or lower -B"
        ));
    }
    if let Some(BlockSize::Bytes(b)) = raw.block_size
        && raw.sample.is_none()
        && b as u64 > DEFAULT_SAMPLE
    {
        return Err(format!(
            "the block size ({b} bytes) is larger than the default sample (32 MiB): give --sample"
        ));
    }
    Ok(Parsed::Run(Box::new(Options {
        settings: raw.settings.unwrap_or_else(Setting::defaults),
        block_size: raw
            .block_size
            .unwrap_or(BlockSize::Bytes(DEFAULT_BLOCK_SIZE)),
        sample: raw.sample.unwrap_or(DEFAULT_SAMPLE),
        io: raw.io.unwrap_or(IoRate::MEMORY),
        threads: raw.threads.unwrap_or(0),
        format: raw.format.unwrap_or(Format::Text),
        plot: raw.plot,
        force: raw.force,
        min_time: raw.min_time.unwrap_or(DEFAULT_MIN_TIME),
        time_limit: raw.time_limit.unwrap_or(Some(DEFAULT_TIME_LIMIT)),
        calibrate: raw.calibrate.unwrap_or(DEFAULT_CALIBRATION),
        no_reference: raw.no_reference,
        per_file: raw.per_file,
        element: raw.element,
        quiet: raw.quiet,
        inputs: raw.inputs,
    })))
}

/// `--name=value` → (`--name`, `value`); `-Bvalue` / `-T4` → (`-B`,
/// `value`); anything else has no attached value.
fn split_option(text: &str) -> (&str, Option<&str>) {
    if text.starts_with("--") {
        return match text.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (text, None),
        };
    }
    match text.get(..2) {
        Some(short @ ("-B" | "-T")) if text.len() > 2 => (short, Some(&text[2..])),
        _ => (text, None),
    }
}

/// A size of at least one byte: digits, an optional fraction, and an
/// optional unit: none or B (bytes), K/KB/KiB, M/MB/MiB, G/GB/GiB (binary,
/// as the `lz4` command's sizes and `lzkit bench -B`; the command's one
/// reading of sizes, [`values::parse_size_with`]).
fn parse_bytes(text: &str) -> Result<u64, String> {
    match values::parse_size_with(text, SizeSyntax::FRACTIONAL) {
        Ok(bytes) if bytes >= 1 => Ok(bytes),
        _ => Err(format!(
            "invalid size '{text}': use a number with K, M or G (64K, 1M, 4G)"
        )),
    }
}

fn parse_block_size(text: &str) -> Result<BlockSize, String> {
    if matches!(text, "file" | "files" | "whole") {
        return Ok(BlockSize::WholeFile);
    }
    let n = parse_bytes(text)?;
    if !(1 << 10..=MAX_BLOCK_SIZE).contains(&n) {
        return Err(format!(
            "block size {text} out of range: 1K to 1G, or 'file'"
        ));
    }
    Ok(BlockSize::Bytes(n as usize))
}

fn parse_sample(text: &str) -> Result<u64, String> {
    match text {
        "all" | "whole" => Ok(u64::MAX),
        _ => parse_bytes(text),
    }
}

/// An I/O rate: a number, then KB, MB, GB, TB (10^3 ...) or KiB, MiB, GiB
/// (2^10 ...), then an optional `/s`; a plain number is MB/s. `mem` or
/// `memory`: no I/O.
pub fn parse_io(text: &str) -> Result<IoRate, String> {
    if matches!(text, "mem" | "memory" | "none") {
        return Ok(IoRate::MEMORY);
    }
    let bad = || format!("invalid --io rate '{text}': use a rate as 100MB/s or 2GB/s");
    let body = text.strip_suffix("/s").unwrap_or(text);
    let split = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    let (number, unit) = body.split_at(split);
    let bytes_per_unit: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "mb" | "m" => 1e6,
        "b" => 1.0,
        "kb" | "k" => 1e3,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let n: f64 = number.parse().map_err(|_| bad())?;
    let mbps = n * bytes_per_unit / 1e6;
    if !(mbps.is_finite() && mbps > 0.0) {
        return Err(bad());
    }
    Ok(IoRate::from_mbps(mbps))
}

/// `--codecs`: `lz4`, `zstd`, or `codec:level,level,...` groups.
pub fn parse_codecs(text: &str) -> Result<Vec<Setting>, String> {
    let mut out: Vec<Setting> = Vec::new();
    let mut codec: Option<Codec> = None;
    let push = |s: Setting, out: &mut Vec<Setting>| {
        s.check().map_err(|e| e.to_string())?;
        if !out.contains(&s) {
            out.push(s);
        }
        Ok::<(), String>(())
    };
    for item in text.split(',').map(str::trim) {
        let (family, level) = match item.split_once(':') {
            Some((f, l)) => (Some(f), Some(l)),
            None if codec_named(item).is_some() => (Some(item), None),
            None => (None, Some(item)),
        };
        if let Some(f) = family {
            codec = Some(
                codec_named(f)
                    .ok_or_else(|| format!("unknown codec '{f}' in --codecs: use lz4 or zstd"))?,
            );
        }
        let Some(c) = codec else {
            return Err(format!(
                "--codecs: level '{item}' before a codec: write lz4:{item} or zstd:{item}"
            ));
        };
        match level {
            None if c == Codec::Lz4 => {
                for &(l, favor) in DEFAULT_LZ4_LEVELS {
                    let s = if favor {
                        Setting::lz4_favor_dec_speed(l)
                    } else {
                        Setting::lz4(l)
                    };
                    push(s, &mut out)?;
                }
            }
            None => {
                for &l in DEFAULT_ZSTD_LEVELS {
                    push(Setting::zstd(l), &mut out)?;
                }
            }
            Some(l) => push(parse_level(c, l)?, &mut out)?,
        }
    }
    if out.is_empty() {
        return Err("--codecs names no setting".into());
    }
    Ok(out)
}

/// The codec of that name on the command line: `lz4` or `zstd`.
fn codec_named(name: &str) -> Option<Codec> {
    Codec::ALL.iter().copied().find(|c| c.name() == name)
}

/// One level of `codec`: an integer, for LZ4 with an optional `d`
/// (`--favor-decSpeed`).
fn parse_level(codec: Codec, text: &str) -> Result<Setting, String> {
    let lz4 = codec == Codec::Lz4;
    let (number, favor) = match text.strip_suffix('d') {
        Some(n) if lz4 => (n, true),
        _ => (text, false),
    };
    let codec = codec.name();
    let level: i32 = number
        .parse()
        .map_err(|_| format!("invalid {codec} level '{text}' in --codecs"))?;
    if level == 0 {
        // lz4 and zstd read level 0 as their default (1 and 3): say which.
        return Err(format!(
            "{codec} level 0 in --codecs: give the level itself ({codec}:{}), or a negative one for --fast",
            if lz4 { 1 } else { 3 }
        ));
    }
    Ok(match (lz4, favor) {
        (true, true) => Setting::lz4_favor_dec_speed(level),
        (true, false) => Setting::lz4(level),
        (false, _) => Setting::zstd(level),
    })
}

fn parse_threads(text: &str) -> Result<usize, String> {
    values::parse_count(text, MAX_THREADS)
        .map_err(|_| format!("invalid --threads '{text}': 0 (one per core) to {MAX_THREADS}"))
}

/// `--type`: the element width of a column type.
fn parse_type(text: &str) -> Result<Option<usize>, String> {
    match text {
        "none" => Ok(None),
        "i8" | "u8" => Ok(Some(1)),
        "i16" | "u16" => Ok(Some(2)),
        "i32" | "u32" | "f32" => Ok(Some(4)),
        "i64" | "u64" | "f64" => Ok(Some(8)),
        _ => Err(format!(
            "unknown --type '{text}': i8, i16, i32, i64 (or u8...u64), f32, f64, or none"
        )),
    }
}

/// The element width a file name's type suffix says, as ClickHouse and
/// the development corpus name column files (`flights.dep_time.Int32`,
/// `weather.temp.Float64`); `None` for any other name.
pub fn element_width_of(name: &str) -> Option<usize> {
    let suffix = name.rsplit('.').next()?;
    match suffix {
        "Int8" | "UInt8" => Some(1),
        "Int16" | "UInt16" | "Date" => Some(2),
        "Int32" | "UInt32" | "Float32" | "DateTime" | "Date32" => Some(4),
        "Int64" | "UInt64" | "Float64" | "DateTime64" => Some(8),
        _ => None,
    }
}

fn parse_format(text: &str) -> Result<Format, String> {
    match text {
        "text" => Ok(Format::Text),
        "json" => Ok(Format::Json),
        "csv" => Ok(Format::Csv),
        _ => Err(format!("unknown format '{text}': use text, json or csv")),
    }
}

/// `--plot`: a directory (a name ending in `/`, or an existing
/// directory), else an `.svg` file. PNG would need a font renderer and a
/// font file on the machine for its text; SVG leaves the text to the viewer.
fn parse_plot(text: &str) -> Result<Plot, String> {
    let path = PathBuf::from(text);
    if text.ends_with(std::path::is_separator) || path.is_dir() {
        return Ok(Plot::Dir(path));
    }
    let lower = text.to_ascii_lowercase();
    if lower.ends_with(".svg") {
        Ok(Plot::File(path))
    } else if lower.ends_with(".png") {
        Err(format!(
            "--plot {text}: PNG is not supported (its text would need a font file on this \
             machine); write FILE.svg, which any browser shows (rsvg-convert makes a PNG of it)"
        ))
    } else {
        Err(format!(
            "--plot {text}: name an .svg file, or a directory ending in / for a plot per file"
        ))
    }
}

fn parse_seconds(text: &str, option: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=MAX_SECONDS).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "invalid {option} '{text}': seconds from 0 to {MAX_SECONDS}"
        )),
    }
}

fn parse_time_limit(text: &str) -> Result<Option<Duration>, String> {
    match text {
        "none" => Ok(None),
        _ => parse_seconds(text, "--time-limit").map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cli::bench::cmdline::testing;

    fn run(args: &[&str]) -> Options {
        *testing::run(parse, args)
    }

    fn fails(args: &[&str]) -> String {
        testing::fails(parse, args)
    }

    #[test]
    fn defaults() {
        let o = run(&[]);
        assert_eq!(o.block_size, BlockSize::Bytes(64 << 10));
        assert_eq!((o.sample, o.threads), (32 << 20, 0));
        assert_eq!((o.io, o.format), (IoRate::MEMORY, Format::Text));
        assert_eq!(o.settings, Setting::defaults());
        assert_eq!(o.time_limit, Some(DEFAULT_TIME_LIMIT));
        assert!(o.inputs.is_empty() && o.plot.is_none() && !o.quiet && !o.no_reference);
    }

    #[test]
    fn values() {
        let o = run(&[
            "-B1M",
            "--sample=8M",
            "--io",
            "100MB/s",
            "-T",
            "3",
            "--format",
            "json",
            "--plot",
            "x.svg",
            "--min-time",
            "0.05",
            "--time-limit",
            "none",
            "-q",
            "a",
            "--",
            "-b",
        ]);
        assert_eq!(o.block_size, BlockSize::Bytes(1 << 20));
        assert_eq!(o.sample, 8 << 20);
        assert_eq!(o.io.mbps(), Some(100.0));
        assert_eq!((o.threads, o.format), (3, Format::Json));
        assert_eq!(o.plot, Some(Plot::File(PathBuf::from("x.svg"))));
        assert!(!o.force);
        assert_eq!(o.min_time, Duration::from_millis(50));
        assert_eq!(o.time_limit, None);
        assert!(o.quiet);
        assert_eq!(o.inputs, [PathBuf::from("a"), PathBuf::from("-b")]);
        assert_eq!(run(&["-B", "file"]).block_size, BlockSize::WholeFile);
        assert_eq!(run(&["--sample", "all"]).sample, u64::MAX);
        assert_eq!(run(&["--block-size=4K"]).block_size, BlockSize::Bytes(4096));
    }

    #[test]
    fn sizes_and_rates() {
        assert_eq!(parse_bytes("64K"), Ok(65_536));
        assert_eq!(parse_bytes("1.5M"), Ok(3 << 19));
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("100"), Ok(100));
        assert!(
            parse_bytes("1X").is_err() && parse_bytes("").is_err() && parse_bytes("0").is_err()
        );
        let mbps = |t: &str| parse_io(t).unwrap().mbps();
        assert_eq!(mbps("100MB/s"), Some(100.0));
        assert_eq!(mbps("2GB/s"), Some(2000.0));
        assert_eq!(mbps("1.5gb"), Some(1500.0));
        assert_eq!(mbps("250"), Some(250.0));
        assert_eq!(mbps("1MiB/s"), Some(1.048576));
        assert_eq!(mbps("500KB/s"), Some(0.5));
        assert_eq!(mbps("mem"), None);
        assert!(parse_io("fast").is_err() && parse_io("0MB/s").is_err());
        assert!(fails(&["-B", "12"]).contains("out of range"));
    }

    #[test]
    fn codecs() {
        assert_eq!(
            parse_codecs("lz4:-8,1,12d,zstd:3,19"),
            Ok(vec![
                Setting::lz4(-8),
                Setting::lz4(1),
                Setting::lz4_favor_dec_speed(12),
                Setting::zstd(3),
                Setting::zstd(19),
            ])
        );
        assert_eq!(
            parse_codecs("zstd").unwrap().len(),
            DEFAULT_ZSTD_LEVELS.len()
        );
        assert_eq!(parse_codecs("lz4").unwrap().len(), DEFAULT_LZ4_LEVELS.len());
        assert_eq!(parse_codecs("lz4,zstd"), Ok(Setting::defaults()));
        assert_eq!(parse_codecs("lz4:1,1,lz4:1"), Ok(vec![Setting::lz4(1)]));
        assert!(parse_codecs("9").unwrap_err().contains("before a codec"));
        assert!(
            parse_codecs("gzip:9")
                .unwrap_err()
                .contains("unknown codec")
        );
        assert!(
            parse_codecs("lz4:x")
                .unwrap_err()
                .contains("invalid lz4 level")
        );
        assert!(parse_codecs("lz4:9d").unwrap_err().contains("10 to 12"));
        assert!(
            parse_codecs("zstd:3d")
                .unwrap_err()
                .contains("invalid zstd level")
        );
        assert!(parse_codecs("lz4:13").unwrap_err().contains("LZ4 levels"));
    }

    #[test]
    fn plot_directories() {
        let o = run(&["--plot", "out/", "-f"]);
        assert_eq!(o.plot, Some(Plot::Dir(PathBuf::from("out/"))));
        assert!(o.force);
        assert!(run(&["--force"]).force);
        // An existing directory needs no slash, whatever its name.
        let dir = tempfile::Builder::new().suffix(".svg").tempdir().unwrap();
        let name = dir.path().to_str().unwrap();
        assert_eq!(
            run(&["--plot", name]).plot,
            Some(Plot::Dir(dir.path().to_path_buf()))
        );
    }

    #[test]
    fn errors() {
        assert!(fails(&["--io"]).contains("needs a value"));
        assert!(fails(&["--format", "xml"]).contains("text, json or csv"));
        assert!(fails(&["--plot", "x.png"]).contains(".svg"));
        assert!(fails(&["--plot", "x.pdf"]).contains(".svg"));
        assert!(fails(&["--plot", "x"]).contains("directory ending in /"));
        assert!(fails(&["--force=1"]).contains("takes no value"));
        assert!(fails(&["--min-time", "-1"]).contains("seconds"));
        assert!(fails(&["-T", "x"]).contains("--threads"));
        assert!(fails(&["-q=1"]).contains("unknown option"));
        assert!(fails(&["--quiet=1"]).contains("takes no value"));
        assert!(fails(&["--nope"]).contains("unknown option --nope"));
        assert!(matches!(parse(vec!["-h".into()]), Ok(Parsed::Help)));
    }
}
