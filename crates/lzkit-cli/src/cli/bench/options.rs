//! `lzkit bench` argument parsing, hand-written like the rest of the CLI:
//! lz4-style level options (`-9`, `-12`) do not fit a declarative parser.

use std::ffi::OsString;
use std::path::PathBuf;

use super::codec::Compressor;
use super::measure::Stat;
use super::report::Format;
use lzkit::lz4::Level;

/// Default block size: ClickHouse's minimum compress block, and the size
/// the ClickHouse study measured (it fits, with its compressed form, in L2).
pub const DEFAULT_BLOCK_SIZE: usize = 64 << 10;
/// Smallest block size: below this a benchmark times call overhead rather
/// than decoding, and the adaptive decoder times no block at all.
pub const MIN_BLOCK_SIZE: usize = 1 << 10;
/// Largest block size: the LZ4 frame format's largest blocks are 4 MiB;
/// 64 MiB leaves room for experiments and keeps sizes far inside C's `int`.
pub const MAX_BLOCK_SIZE: usize = 64 << 20;
/// Default timed rounds: enough for the minimum to settle on a shared
/// machine, while the built-in corpus still runs in seconds (7 s on a
/// loaded 2-core VM) and an 80 MiB directory in well under a minute.
pub const DEFAULT_ROUNDS: u32 = 20;
/// Most rounds accepted (a typo guard: a million rounds would run for days).
const MAX_ROUNDS: u32 = 100_000;
/// Default seed of the round order and adaptive decoders ("lzkit").
pub const DEFAULT_SEED: u64 = 0x006C_7A6B_6974;
/// `--quick`: rounds, few but past the noisiest first ones.
const QUICK_ROUNDS: u32 = 5;
/// `--quick`: the built-in corpus at 1/16 of its size (2.75 MiB in all),
/// so that the whole run is a smoke test of a few seconds.
const QUICK_SCALE: f64 = 1.0 / 16.0;
/// Largest `--corpus-scale`: 16 times the built-in corpus is 700 MiB.
const MAX_SCALE: f64 = 16.0;

/// What `lzkit bench` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// Block size in bytes (`-B`).
    pub block_size: usize,
    /// Who compresses (`--compressor`).
    pub compressor: Compressor,
    /// Compression level (`-#`, `--fast`, `--best`).
    pub level: i32,
    /// Timed rounds (`-i`).
    pub rounds: u32,
    /// Statistic over the rounds (`--stat`).
    pub stat: Stat,
    /// Seed (`--seed`).
    pub seed: u64,
    /// Output format (`--format`).
    pub format: Format,
    /// Size factor of the built-in corpus (`--corpus-scale`).
    pub corpus_scale: f64,
    /// Every sample a first visit (`--cold`).
    pub cold: bool,
    /// No progress bar (`-q`).
    pub quiet: bool,
    /// Files and directories; empty means the built-in corpus.
    pub inputs: Vec<PathBuf>,
}

/// Parse result: run, or show help.
#[derive(Debug)]
pub enum Parsed {
    /// Run the benchmark.
    Run(Options),
    /// `-h` / `--help`.
    Help,
}

/// `lzkit bench -h`.
pub const HELP: &str = "\
Usage: lzkit bench [OPTIONS] [FILE|DIR]...

Decompression speed per file, as in ClickHouse's LZ4 study: the LZ4 C library
(ref), lz4_flex, every lzkit decoder variant this CPU runs, and lzkit's
adaptive decoder, with max/best/adapt_boost/max_boost/adapt_over_max, a
memcpy ceiling, geometric means, the worst files, and the variants the
adaptive decoder chose. Inputs are cut into independent blocks, compressed,
and every decode is checked against the original bytes.

With no FILE, a built-in corpus of column-like data is generated in memory.
A DIR stands for the regular files directly in it.

Options:
  -B, --block-size SIZE  block size (default 64K; K and M suffixes, binary)
      --compressor NAME  ref (lz4 C library, default) or lzkit
  -1 ... -12             compression level (default 1; 2 and up: lz4's HC
                         levels, as in lz4)
      --fast[=N]         fast compression with acceleration N (level -N)
      --best             level 12
  -i, --rounds N         timed rounds (default 20), after one warm-up round
      --stat min|median  statistic over the rounds (default min)
      --cold             first visits: each sample decodes the input once,
                         after 1 MiB of other data, as a scan reads a column
                         (default: repeated passes, which branch predictors
                         can learn by heart on inputs under a few MiB);
                         inputs under 64K then vary most: use more rounds
      --seed N           seed of the round order and adaptive decoders
      --format FORMAT    text (default), markdown, csv or json
      --corpus-scale F   size factor of the built-in corpus (default 1: 44 MiB)
      --quick            smoke test: 5 rounds, built-in corpus at 1/16
  -q, --quiet            no progress bar (shown only on a terminal anyway)
  -h, --help             this help

Exit status: 0 on success, 1 on a usage or input error, 10 if compression
failed, 11 if a decoder failed or decoded wrong bytes.
";

/// Options as they are read, before defaults that depend on each other.
#[derive(Default)]
struct Raw {
    block_size: Option<usize>,
    compressor: Option<Compressor>,
    level: Option<i32>,
    rounds: Option<u32>,
    stat: Option<Stat>,
    seed: Option<u64>,
    format: Option<Format>,
    corpus_scale: Option<f64>,
    quick: bool,
    cold: bool,
    quiet: bool,
    inputs: Vec<PathBuf>,
}

/// Parse the arguments after `bench`. Errors are one-line messages.
pub fn parse(args: Vec<OsString>) -> Result<Parsed, String> {
    let mut raw = Raw::default();
    let mut args = args.into_iter();
    let mut only_inputs = false;
    while let Some(arg) = args.next() {
        if only_inputs || !arg.as_encoded_bytes().starts_with(b"-") {
            raw.inputs.push(PathBuf::from(arg));
            continue;
        }
        let text = arg
            .to_str()
            .ok_or_else(|| format!("invalid option: {}", arg.to_string_lossy()))?;
        if text == "--" {
            only_inputs = true;
        } else if text == "-h" || text == "--help" {
            return Ok(Parsed::Help);
        } else if let Some(long) = text.strip_prefix("--") {
            parse_long(long, &mut args, &mut raw)?;
        } else {
            parse_short(&text[1..], &mut args, &mut raw)?;
        }
    }
    resolve(raw).map(Parsed::Run)
}

/// The value of an option: attached (`--name=v`, `-Bv`) or the next argument.
fn value_of(
    name: &str,
    attached: Option<&str>,
    rest: &mut impl Iterator<Item = OsString>,
) -> Result<String, String> {
    match attached {
        Some(v) => Ok(v.to_string()),
        None => rest
            .next()
            .map(|v| v.to_string_lossy().into_owned())
            .ok_or_else(|| format!("option {name} needs a value")),
    }
}

/// One `--name[=value]` option.
fn parse_long(
    long: &str,
    rest: &mut impl Iterator<Item = OsString>,
    raw: &mut Raw,
) -> Result<(), String> {
    let (name, attached) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    let no_value = || match attached {
        Some(_) => Err(format!("option --{name} takes no value")),
        None => Ok(()),
    };
    let mut value = || value_of(&format!("--{name}"), attached, rest);
    match name {
        "block-size" => raw.block_size = Some(parse_size(&value()?)?),
        "compressor" => raw.compressor = Some(parse_compressor(&value()?)?),
        "rounds" => raw.rounds = Some(parse_rounds(&value()?)?),
        "stat" => raw.stat = Some(parse_stat(&value()?)?),
        "seed" => raw.seed = Some(parse_number(&value()?, "--seed")?),
        "format" => raw.format = Some(parse_format(&value()?)?),
        "corpus-scale" => raw.corpus_scale = Some(parse_scale(&value()?)?),
        "fast" => {
            let n = match attached {
                None => 1,
                Some(v) => match v.parse::<u32>() {
                    Ok(n) if n >= 1 => n,
                    _ => {
                        return Err(format!(
                            "invalid --fast value '{v}': expected an integer >= 1"
                        ));
                    }
                },
            };
            raw.level = Some(Level::fast(n).get());
        }
        "best" => {
            no_value()?;
            raw.level = Some(Level::BEST.get());
        }
        "quick" => {
            no_value()?;
            raw.quick = true;
        }
        "quiet" => {
            no_value()?;
            raw.quiet = true;
        }
        "cold" => {
            no_value()?;
            raw.cold = true;
        }
        _ => return Err(format!("unknown option --{name}")),
    }
    Ok(())
}

/// One short option (`-9`, `-B64K`, `-B 64K`, `-i5`, `-q`).
fn parse_short(
    cluster: &str,
    rest: &mut impl Iterator<Item = OsString>,
    raw: &mut Raw,
) -> Result<(), String> {
    let attached = |skip: usize| Some(&cluster[skip..]).filter(|v| !v.is_empty());
    match cluster.as_bytes().first() {
        Some(b'0'..=b'9') => {
            let n: u32 = cluster
                .parse()
                .map_err(|_| format!("invalid option -{cluster}: a level is -1 ... -12"))?;
            // As lz4 does, levels above the highest compress at the highest.
            raw.level = Some(Level::saturating(u64::from(n)).get());
        }
        Some(b'B') => raw.block_size = Some(parse_size(&value_of("-B", attached(1), rest)?)?),
        Some(b'i') => raw.rounds = Some(parse_rounds(&value_of("-i", attached(1), rest)?)?),
        Some(b'q') if cluster == "q" => raw.quiet = true,
        _ => return Err(format!("unknown option -{cluster}")),
    }
    Ok(())
}

/// Apply `--quick` and the defaults, and check that options fit together.
fn resolve(raw: Raw) -> Result<Options, String> {
    if raw.corpus_scale.is_some() && !raw.inputs.is_empty() {
        return Err(
            "--corpus-scale applies to the built-in corpus, used only without FILEs".into(),
        );
    }
    let quick_scale = if raw.quick { QUICK_SCALE } else { 1.0 };
    Ok(Options {
        block_size: raw.block_size.unwrap_or(DEFAULT_BLOCK_SIZE),
        compressor: raw.compressor.unwrap_or(Compressor::Ref),
        level: raw.level.unwrap_or(1),
        rounds: raw.rounds.unwrap_or(if raw.quick {
            QUICK_ROUNDS
        } else {
            DEFAULT_ROUNDS
        }),
        stat: raw.stat.unwrap_or(Stat::Min),
        seed: raw.seed.unwrap_or(DEFAULT_SEED),
        format: raw.format.unwrap_or(Format::Text),
        corpus_scale: raw.corpus_scale.unwrap_or(quick_scale),
        cold: raw.cold,
        quiet: raw.quiet,
        inputs: raw.inputs,
    })
}

/// A size: digits with an optional binary suffix K, KB, KiB, M, MB or MiB
/// (any case), within [`MIN_BLOCK_SIZE`]..=[`MAX_BLOCK_SIZE`].
pub fn parse_size(text: &str) -> Result<usize, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, suffix) = text.split_at(split);
    let unit: usize = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        _ => {
            return Err(format!(
                "invalid size '{text}': use digits with K or M (64K, 1M)"
            ));
        }
    };
    let n = digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| format!("invalid size '{text}'"))?;
    if !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&n) {
        return Err(format!(
            "block size {text} out of range: {}K to {}M",
            MIN_BLOCK_SIZE >> 10,
            MAX_BLOCK_SIZE >> 20
        ));
    }
    Ok(n)
}

fn parse_number<T: std::str::FromStr>(text: &str, option: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("invalid {option} value '{text}': expected a number"))
}

fn parse_rounds(text: &str) -> Result<u32, String> {
    match parse_number::<u32>(text, "rounds")? {
        n @ 1..=MAX_ROUNDS => Ok(n),
        _ => Err(format!("rounds must be 1 to {MAX_ROUNDS}, not {text}")),
    }
}

fn parse_scale(text: &str) -> Result<f64, String> {
    match parse_number::<f64>(text, "--corpus-scale")? {
        f if f > 0.0 && f <= MAX_SCALE => Ok(f),
        _ => Err(format!(
            "--corpus-scale must be above 0 and at most {MAX_SCALE}, not {text}"
        )),
    }
}

fn parse_compressor(text: &str) -> Result<Compressor, String> {
    [Compressor::Ref, Compressor::Lzkit]
        .into_iter()
        .find(|c| c.name() == text)
        .ok_or_else(|| format!("unknown compressor '{text}': use ref or lzkit"))
}

fn parse_stat(text: &str) -> Result<Stat, String> {
    [Stat::Min, Stat::Median]
        .into_iter()
        .find(|s| s.name() == text)
        .ok_or_else(|| format!("unknown statistic '{text}': use min or median"))
}

fn parse_format(text: &str) -> Result<Format, String> {
    Format::ALL
        .iter()
        .find(|(name, _)| *name == text)
        .map(|&(_, f)| f)
        .ok_or_else(|| format!("unknown format '{text}': use text, markdown, csv or json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Options {
        match parse(args.iter().map(OsString::from).collect()) {
            Ok(Parsed::Run(o)) => o,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn fails(args: &[&str]) -> String {
        parse(args.iter().map(OsString::from).collect()).unwrap_err()
    }

    #[test]
    fn defaults() {
        let o = run(&[]);
        assert_eq!(o.block_size, 64 << 10);
        assert_eq!(
            (o.compressor, o.level, o.rounds),
            (Compressor::Ref, 1, DEFAULT_ROUNDS)
        );
        assert_eq!(
            (o.stat, o.format, o.corpus_scale),
            (Stat::Min, Format::Text, 1.0)
        );
        assert!(o.inputs.is_empty());
        assert!(!o.cold);
        assert!(run(&["--cold"]).cold);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64K"), Ok(65_536));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("256kib"), Ok(256 << 10));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("12").is_err());
        assert!(parse_size("1G").is_err());
        assert!(parse_size("K").is_err());
        assert_eq!(run(&["-B", "1M"]).block_size, 1 << 20);
        assert_eq!(run(&["-B128K"]).block_size, 128 << 10);
        assert_eq!(run(&["--block-size=4K"]).block_size, 4 << 10);
    }

    #[test]
    fn levels_and_values() {
        assert_eq!(run(&["-9"]).level, 9);
        assert_eq!(run(&["-15"]).level, 12);
        assert_eq!(run(&["--fast=3"]).level, -3);
        assert_eq!(run(&["--best"]).level, 12);
        let o = run(&[
            "-i", "3", "--stat", "median", "--seed=9", "--format", "json", "d",
        ]);
        assert_eq!(
            (o.rounds, o.stat, o.seed, o.format),
            (3, Stat::Median, 9, Format::Json)
        );
        assert_eq!(o.inputs, vec![PathBuf::from("d")]);
        assert_eq!(
            run(&["-i7", "--compressor", "lzkit"]).compressor,
            Compressor::Lzkit
        );
        assert_eq!(run(&["--", "-9"]).inputs, vec![PathBuf::from("-9")]);
    }

    #[test]
    fn quick_and_scale() {
        let o = run(&["--quick"]);
        assert_eq!((o.rounds, o.corpus_scale), (QUICK_ROUNDS, QUICK_SCALE));
        let o = run(&["-i", "2", "--quick", "--corpus-scale", "0.01"]);
        assert_eq!((o.rounds, o.corpus_scale), (2, 0.01));
    }

    #[test]
    fn errors() {
        assert!(fails(&["-i", "0"]).contains("rounds"));
        assert!(fails(&["-i"]).contains("needs a value"));
        assert!(fails(&["--stat", "mean"]).contains("min or median"));
        assert!(fails(&["--format=xml"]).contains("json"));
        assert!(fails(&["--compressor", "zstd"]).contains("lzkit"));
        assert!(fails(&["--corpus-scale", "0.5", "file"]).contains("built-in"));
        assert!(fails(&["--corpus-scale", "0"]).contains("above 0"));
        assert!(fails(&["--quick=1"]).contains("no value"));
        assert!(fails(&["--cold=yes"]).contains("no value"));
        assert!(fails(&["-x"]).contains("unknown option -x"));
        assert!(fails(&["--nope"]).contains("unknown option --nope"));
        assert!(matches!(parse(vec!["-h".into()]), Ok(Parsed::Help)));
    }
}
