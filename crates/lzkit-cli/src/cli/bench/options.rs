//! `lzkit bench` argument parsing, hand-written like the rest of the CLI:
//! lz4-style level options (`-9`, `-12`) do not fit a declarative parser.

use std::ffi::OsString;
use std::path::PathBuf;

use lzkit::format::Codec;
use lzkit::lz4::frame::BlockSize;

use super::cmdline::{Arg, Parsed, Walk};
use super::codec::Compressor;
use super::measure::{Sampling, Stat};
use super::reference::{self, MISSING};
use super::report::Format;
use crate::cli::values::{self, CountError, SizeError, SizeSyntax};
use lzkit::lz4::{Level, MAX_LEVEL};

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
/// Default timed rounds of `--compress` and `--threads`: a high level
/// compresses at tens of MB/s, so each round is far longer than a decode
/// round, and the minimum settles sooner.
pub const DEFAULT_SLOW_ROUNDS: u32 = 5;
/// `--compress` levels when none are given: `--fast`, the default, lz4
/// 1.10's middle level, HC's default and the highest.
pub const DEFAULT_COMPRESS_LEVELS: &[i32] = &[-1, 1, 2, 9, MAX_LEVEL];
/// Block size of `--threads` unless `-B` says otherwise: the lz4 command's
/// default frame blocks.
pub const DEFAULT_THREADS_BLOCK_SIZE: usize = 4 << 20;
/// Most levels one `-L` list may name (a typo guard).
const MAX_LEVELS: usize = 64;
/// `--codec zstd` levels when none are given: zstd's fast, default and
/// high levels (ClickHouse's `ZSTD(1)`, the `zstd` command's default, and
/// what archives use).
pub const DEFAULT_ZSTD_LEVELS: &[i32] = &[1, 3, 19];
/// `--codec zstd` frame size unless `-B` says otherwise: the largest
/// blocks ClickHouse compresses (64 KiB to 1 MiB).
pub const DEFAULT_ZSTD_FRAME_SIZE: usize = 1 << 20;
/// The highest zstd level (`ZSTD_maxCLevel`).
const ZSTD_MAX_LEVEL: i32 = 22;
/// The lowest zstd level (`ZSTD_minCLevel`: -ZSTD_TARGETLENGTH_MAX).
const ZSTD_MIN_LEVEL: i32 = -131_072;

/// What `lzkit bench` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Block decoding: every decoder against lz4 C (the default).
    Decode,
    /// Block compression, lzkit against lz4 C, per level (`--compress`).
    Compress,
    /// Frame decoding against a loop of block decodes (`--frame`).
    Frame,
    /// Frame compression and decoding on N threads against one
    /// (`--threads N`; 0 = one per core, `--mt`).
    Threads(usize),
    /// zstd decoding: every lzkit variant and the adaptive decoder against
    /// libzstd, per level (`--codec zstd`).
    Zstd,
}

impl Mode {
    /// The option that selects the mode, for messages.
    pub fn flag(self) -> &'static str {
        match self {
            Mode::Decode => "(decode)",
            Mode::Compress => "--compress",
            Mode::Frame => "--frame",
            Mode::Threads(_) => "--threads",
            Mode::Zstd => "--codec zstd",
        }
    }
}

/// What `lzkit bench` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// What is measured (`--compress`, `--frame`, `--threads`).
    pub mode: Mode,
    /// Compression levels of `--compress` and `--threads` (`-L`, `-b`/`-e`,
    /// or the one `-#`); in the other modes, the one level.
    pub levels: Vec<i32>,
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
    /// How a sample decodes: repeated passes into fresh output (the
    /// default), passes back to back in cache (`--hot`), or a first visit
    /// (`--cold`).
    pub sampling: Sampling,
    /// No progress bar (`-q`).
    pub quiet: bool,
    /// Measure all inputs as one, concatenated (`--concat`).
    pub concat: bool,
    /// Decode the blocks of this many inputs in turn, round-robin, as one
    /// measurement (`--interleave N`).
    pub interleave: Option<usize>,
    /// Text and markdown: a column per variant (`--variants`).
    pub all_variants: bool,
    /// `--compress`: the C compressor reuses one state (`--reuse-state`).
    pub reuse_state: bool,
    /// `--codec zstd --whole`: each file one frame, decoded one-shot and
    /// streaming.
    pub whole: bool,
    /// Testing hook: the contender whose output is corrupted after every
    /// sample, so that a test sees verification fail. Set from the
    /// `LZKIT_BENCH_FAULT` environment variable, never by an option.
    pub fault: Option<String>,
    /// Files and directories; empty means the built-in corpus.
    pub inputs: Vec<PathBuf>,
}

/// `lzkit bench -h`.
pub const HELP: &str = "\
Usage: lzkit bench [MODE] [OPTIONS] [FILE|DIR]...

Modes (one at a time; the method of all of them: docs/benchmarking.md):
  (none)                 block decompression, below
      --compress         block compression per level: lzkit against the LZ4 C
                         library, speed and ratio; every output decoded by both
      --frame            frame decoding: lzkit's and the C library's (LZ4F)
                         with no checksum, a content and a block checksum,
                         against a loop of block decodes of the same blocks
  -T, --threads N        frame compression (frame::compress) and decoding
                         (decompress_with, FrameDecoder) on N threads against
                         one; 0 = one per core; 4M blocks unless -B
      --mt               --threads 0
      --codec zstd       zstd decompression per level: libzstd (ref, one reused
                         DCtx), lzkit's adaptive zstd::Decoder (adapt, one per
                         file) and every lzkit variant, on frames of -B bytes
                         (default 1M) written by libzstd; --whole: one frame
                         per file, and the streaming decoders too (--codec lz4:
                         the default, the other modes)

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
      --compressor NAME  ref (lz4 C library, default) or lzkit (the default
                         when built without the c-reference feature)
  -1 ... -12             compression level (default 1; 2 and up: lz4's HC
                         levels, as in lz4)
      --fast[=N]         fast compression with acceleration N (level -N)
      --best             level 12
  -L, --levels LIST      --compress, --threads, --codec zstd: levels, as 1,9,12
                         or 3-9 or -1,1 (default for --compress: -1,1,2,9,12;
                         for --codec zstd: 1,3,19, up to 22; for --threads:
                         the level above)
  -b N, -e M             --compress, --threads: levels N to M (as lz4 -b -e)
      --reuse-state      --compress: the C library compresses with one state it
                         keeps, as lzkit keeps a per-thread engine (default:
                         lz4's one-shot calls; HC sets up 256 KiB per block)
  -i, --rounds N         timed rounds (default 20; 5 for --compress and
                         --threads), after one warm-up round
      --stat min|median  statistic over the rounds (default min)
      --hot              hot cache: each contender's sample is a pass over the
                         input, then passes back to back into the same output
                         (32 MiB, at least 3), the best counting: the blocks
                         and output in cache where they fit, the branches
                         learnt, as a reader that decompresses a block into a
                         buffer and reads it at once
      --cold             first visits: each sample decodes the input once,
                         after 1 MiB of other data, as a scan reads a column
                         (default: repeated passes into fresh copies of the
                         output, at least 1 MiB, which branch predictors can
                         learn by heart on inputs under a few MiB); inputs
                         under 64K then vary most: use more rounds
      --seed N           seed of the round order and adaptive decoders
      --format FORMAT    text (default), markdown, csv or json
      --corpus-scale F   size factor of the built-in corpus (default 1: 45 MiB)
      --concat           measure all inputs as one, concatenated in order
                         (--threads: files under 8 MiB give threads no work)
      --interleave N     groups of N inputs, each measured as one: their
                         blocks decoded in turn, round-robin, on one thread
                         (a column reader; the case for the free function)
      --variants         text and markdown: a column for every variant
                         (default: a compact table of 120 columns)
      --quick            smoke test: 5 rounds, built-in corpus at 1/16
  -q, --quiet            no progress bar (shown only on a terminal anyway)
  -h, --help             this help

Contenders: ref, lz4_flex, each variant, adapt (one Decoder per input,
learning over all rounds), fresh (a new Decoder for every pass: each read by
a fresh decoder), free (block::decompress_into, no state), memcpy.

--hot, --cold, --compressor and --interleave apply to block decompression only. In every mode,
every round trip is verified, each round, and a mismatch stops the run.

Exit status: 0 on success, 1 on a usage or input error, 10 if compression
failed or its output did not decode to the input, 11 if a decoder failed or
decoded wrong bytes.
";

/// Options as they are read, before defaults that depend on each other.
#[derive(Default)]
struct Raw {
    compress: bool,
    frame: bool,
    threads: Option<usize>,
    /// `-L` as given: its levels are read once the codec is known.
    levels: Option<String>,
    begin: Option<i32>,
    end: Option<i32>,
    block_size: Option<usize>,
    compressor: Option<Compressor>,
    level: Option<i32>,
    rounds: Option<u32>,
    stat: Option<Stat>,
    seed: Option<u64>,
    format: Option<Format>,
    corpus_scale: Option<f64>,
    quick: bool,
    hot: bool,
    cold: bool,
    concat: bool,
    interleave: Option<usize>,
    all_variants: bool,
    reuse_state: bool,
    quiet: bool,
    /// `--codec`.
    codec: Option<Codec>,
    whole: bool,
    /// The number of the last `-#` as given (zstd levels go above 12).
    plain_level: Option<u64>,
    inputs: Vec<PathBuf>,
}

/// Parse the arguments after `bench`. Errors are one-line messages.
pub fn parse(args: Vec<OsString>) -> Result<Parsed<Options>, String> {
    let mut raw = Raw::default();
    let mut walk = Walk::new(args, false);
    while let Some(arg) = walk.next_arg()? {
        match arg {
            Arg::Input(path) => raw.inputs.push(path),
            Arg::Help => return Ok(Parsed::Help),
            Arg::Option(text) => match text.strip_prefix("--") {
                Some(long) => parse_long(long, &mut walk.rest, &mut raw)?,
                None => parse_short(&text[1..], &mut walk.rest, &mut raw)?,
            },
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
        "block-size" => raw.block_size = Some(parse_block_size(&value()?)?),
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
        "hot" => {
            no_value()?;
            raw.hot = true;
        }
        "cold" => {
            no_value()?;
            raw.cold = true;
        }
        "concat" => {
            no_value()?;
            raw.concat = true;
        }
        "interleave" => {
            let n: usize = parse_number(&value()?, "--interleave")?;
            if n < 2 {
                return Err("--interleave needs at least 2 inputs per group".into());
            }
            raw.interleave = Some(n);
        }
        "variants" => {
            no_value()?;
            raw.all_variants = true;
        }
        "reuse-state" => {
            no_value()?;
            raw.reuse_state = true;
        }
        "compress" => {
            no_value()?;
            raw.compress = true;
        }
        "frame" => {
            no_value()?;
            raw.frame = true;
        }
        "mt" => {
            no_value()?;
            raw.threads = Some(0);
        }
        "threads" => raw.threads = Some(parse_threads(&value()?)?),
        "levels" => raw.levels = Some(value()?),
        "codec" => {
            let text = value()?;
            raw.codec = Some(
                Codec::ALL
                    .iter()
                    .copied()
                    .find(|c| c.name() == text)
                    .ok_or_else(|| format!("unknown codec '{text}': use lz4 or zstd"))?,
            )
        }
        "whole" => {
            no_value()?;
            raw.whole = true;
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
            raw.plain_level = Some(u64::from(n));
        }
        Some(b'B') => raw.block_size = Some(parse_block_size(&value_of("-B", attached(1), rest)?)?),
        Some(b'i') => raw.rounds = Some(parse_rounds(&value_of("-i", attached(1), rest)?)?),
        Some(b'q') if cluster == "q" => raw.quiet = true,
        Some(b'T') => raw.threads = Some(parse_threads(&value_of("-T", attached(1), rest)?)?),
        Some(b'L') => raw.levels = Some(value_of("-L", attached(1), rest)?),
        Some(b'b') => raw.begin = Some(parse_level(&value_of("-b", attached(1), rest)?)?),
        Some(b'e') => raw.end = Some(parse_level(&value_of("-e", attached(1), rest)?)?),
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
    let mode = resolve_mode(&raw)?;
    let levels = resolve_levels(&raw, mode)?;
    let block_size = match (mode, raw.block_size) {
        (Mode::Threads(_), None) => DEFAULT_THREADS_BLOCK_SIZE,
        (Mode::Zstd, None) => DEFAULT_ZSTD_FRAME_SIZE,
        (_, size) => size.unwrap_or(DEFAULT_BLOCK_SIZE),
    };
    if matches!(mode, Mode::Frame | Mode::Threads(_)) && frame_block_size(block_size).is_none() {
        return Err(format!(
            "{} needs a frame block size: -B 64K, 256K, 1M or 4M",
            mode.flag()
        ));
    }
    let default_rounds = match mode {
        _ if raw.quick => QUICK_ROUNDS,
        Mode::Compress | Mode::Threads(_) => DEFAULT_SLOW_ROUNDS,
        Mode::Decode | Mode::Frame | Mode::Zstd => DEFAULT_ROUNDS,
    };
    let quick_scale = if raw.quick { QUICK_SCALE } else { 1.0 };
    Ok(Options {
        mode,
        level: levels[0],
        levels,
        block_size,
        compressor: raw.compressor.unwrap_or(Compressor::default_for_build()),
        rounds: raw.rounds.unwrap_or(default_rounds),
        stat: raw.stat.unwrap_or(Stat::Min),
        seed: raw.seed.unwrap_or(DEFAULT_SEED),
        format: raw.format.unwrap_or(Format::Text),
        corpus_scale: raw.corpus_scale.unwrap_or(quick_scale),
        sampling: match (raw.hot, raw.cold) {
            (true, _) => Sampling::Hot,
            (false, true) => Sampling::Cold,
            (false, false) => Sampling::Passes,
        },
        quiet: raw.quiet,
        concat: raw.concat,
        interleave: raw.interleave,
        all_variants: raw.all_variants,
        reuse_state: raw.reuse_state,
        whole: raw.whole,
        fault: None,
        inputs: raw.inputs,
    })
}

/// The mode asked for; at most one, with only the options that apply to it.
fn resolve_mode(raw: &Raw) -> Result<Mode, String> {
    let mut modes = Vec::new();
    if raw.compress {
        modes.push(Mode::Compress);
    }
    if raw.frame {
        modes.push(Mode::Frame);
    }
    if let Some(n) = raw.threads {
        modes.push(Mode::Threads(n));
    }
    let zstd = raw.codec == Some(Codec::Zstd);
    if zstd && let Some(&other) = modes.first() {
        return Err(format!(
            "--codec zstd measures decoding; {} is for LZ4 only",
            other.flag()
        ));
    }
    if raw.whole && !zstd {
        return Err("--whole applies to --codec zstd only".into());
    }
    let mode = match modes[..] {
        [] if zstd => Mode::Zstd,
        [] => Mode::Decode,
        [one] => one,
        [a, b, ..] => {
            return Err(format!(
                "{} and {} are different modes: one at a time",
                a.flag(),
                b.flag()
            ));
        }
    };
    if raw.reuse_state && mode != Mode::Compress {
        return Err("--reuse-state applies to --compress only".into());
    }
    if raw.hot && raw.cold {
        return Err("--hot and --cold: one at a time".into());
    }
    if raw.concat && raw.interleave.is_some() {
        return Err("--concat and --interleave: one at a time".into());
    }
    if mode != Mode::Decode {
        if raw.interleave.is_some() {
            return Err("--interleave applies to block decompression only".into());
        }
        if raw.cold {
            return Err("--cold applies to block decompression only".into());
        }
        if raw.hot {
            return Err("--hot applies to block decompression only".into());
        }
        if raw.compressor.is_some() {
            return Err(
                "--compressor applies to block decompression only (--compress runs both)".into(),
            );
        }
    }
    Ok(mode)
}

/// The levels: `-L`, else `-b`..=`-e`, else the one level (`-#`, `--fast`,
/// `--best`), else the mode's default.
fn resolve_levels(raw: &Raw, mode: Mode) -> Result<Vec<i32>, String> {
    if mode == Mode::Zstd {
        if raw.begin.is_some() || raw.end.is_some() {
            return Err(
                "-b and -e apply to --compress and --threads; give zstd levels with -L".into(),
            );
        }
        if let Some(text) = &raw.levels {
            return parse_levels(text, parse_zstd_level);
        }
        return Ok(match (raw.plain_level, raw.level) {
            (Some(n), _) => vec![n.min(ZSTD_MAX_LEVEL as u64) as i32],
            (None, Some(level)) => vec![level],
            (None, None) => DEFAULT_ZSTD_LEVELS.to_vec(),
        });
    }
    let listed = raw.levels.is_some() || raw.begin.is_some() || raw.end.is_some();
    if listed && !matches!(mode, Mode::Compress | Mode::Threads(_)) {
        return Err("-L, -b and -e apply to --compress and --threads".into());
    }
    if raw.levels.is_some() && (raw.begin.is_some() || raw.end.is_some()) {
        return Err("give levels with -L or with -b/-e, not both".into());
    }
    let one = raw.level.unwrap_or(1);
    if let Some(text) = &raw.levels {
        return parse_levels(text, parse_level);
    }
    if raw.begin.is_some() || raw.end.is_some() {
        let begin = raw.begin.unwrap_or(one);
        // As lz4 does, an end below the beginning measures the beginning.
        let end = raw.end.unwrap_or(begin).max(begin);
        return Ok((begin..=end).collect());
    }
    Ok(match (mode, raw.level) {
        (Mode::Compress, None) => DEFAULT_COMPRESS_LEVELS.to_vec(),
        _ => vec![one],
    })
}

/// The frame block size of `bytes`, if it is one (64K, 256K, 1M, 4M).
pub fn frame_block_size(bytes: usize) -> Option<BlockSize> {
    (4..=7)
        .filter_map(BlockSize::from_code)
        .find(|b| b.bytes() == bytes)
}

/// Largest `--fast=N` (as a level: `-N`).
const MAX_FAST: i32 = Level::MAX_ACCELERATION as i32;

/// One level: as `-#` (above 12 is 12) for 0 and up, `--fast=N` below.
fn parse_level(text: &str) -> Result<i32, String> {
    values::parse_level(text, -MAX_FAST..=MAX_LEVEL).ok_or_else(|| {
        format!("invalid level '{text}': 0 to {MAX_LEVEL}, or -1 to -{MAX_FAST} for --fast=N")
    })
}

/// One zstd level: -131072 to 22 (above 22 is 22, as for lz4's levels).
fn parse_zstd_level(text: &str) -> Result<i32, String> {
    values::parse_level(text, ZSTD_MIN_LEVEL..=ZSTD_MAX_LEVEL).ok_or_else(|| {
        format!("invalid level '{text}': zstd levels are {ZSTD_MIN_LEVEL} to {ZSTD_MAX_LEVEL}")
    })
}

/// A list of levels, each read by `parse_one`: `9`, `3-9`, `-1,1,9,12` (a
/// leading minus is a fast level, a minus after a number a range).
fn parse_levels(
    text: &str,
    parse_one: fn(&str) -> Result<i32, String>,
) -> Result<Vec<i32>, String> {
    let mut levels = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let split = item
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '-')
            .map(|(i, _)| i);
        let (first, last) = match split {
            Some(i) => (parse_one(&item[..i])?, parse_one(&item[i + 1..])?),
            None => (parse_one(item)?, parse_one(item)?),
        };
        if first > last {
            return Err(format!("invalid level range '{item}': {first} > {last}"));
        }
        for level in first..=last {
            if !levels.contains(&level) {
                levels.push(level);
            }
            if levels.len() > MAX_LEVELS {
                return Err(format!("at most {MAX_LEVELS} levels"));
            }
        }
    }
    Ok(levels)
}

fn parse_threads(text: &str) -> Result<usize, String> {
    values::parse_count(text, 1024).map_err(|e| match e {
        CountError::NotANumber => {
            format!("invalid --threads value '{text}': expected a number")
        }
        CountError::TooLarge(n) => format!("--threads must be 0 (one per core) to 1024, not {n}"),
    })
}

/// A block size (`-B`): digits with an optional binary suffix K, KB, KiB,
/// M, MB or MiB (any case; the command's one reading of sizes,
/// [`values::parse_size_with`]), within
/// [`MIN_BLOCK_SIZE`]..=[`MAX_BLOCK_SIZE`].
fn parse_block_size(text: &str) -> Result<usize, String> {
    // Block sizes: K and M only.
    let n = match values::parse_size_with(text, SizeSyntax::WHOLE_TO_M) {
        Ok(n) => usize::try_from(n).unwrap_or(usize::MAX),
        Err(SizeError::Unit) => {
            return Err(format!(
                "invalid size '{text}': use digits with K or M (64K, 1M)"
            ));
        }
        Err(SizeError::Number) => return Err(format!("invalid size '{text}'")),
    };
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
        .and_then(|c| match c == Compressor::Ref && !reference::BUILT_IN {
            true => Err(format!("--compressor ref: {MISSING}")),
            false => Ok(c),
        })
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

    use super::super::cmdline::testing;

    fn run(args: &[&str]) -> Options {
        testing::run(parse, args)
    }

    fn fails(args: &[&str]) -> String {
        testing::fails(parse, args)
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
        assert_eq!(o.sampling, Sampling::Passes);
        assert_eq!(run(&["--cold"]).sampling, Sampling::Cold);
        assert_eq!(run(&["--hot"]).sampling, Sampling::Hot);
        assert!(fails(&["--hot", "--cold"]).contains("one at a time"));
        assert!(fails(&["--hot", "--frame"]).contains("block decompression"));
        assert_eq!(run(&["--interleave", "4"]).interleave, Some(4));
        assert_eq!(run(&["--interleave=2"]).interleave, Some(2));
        assert_eq!(o.interleave, None);
        assert!(fails(&["--interleave", "1"]).contains("at least 2"));
        assert!(fails(&["--interleave", "4", "--concat"]).contains("one at a time"));
        assert!(fails(&["--interleave", "4", "--compress"]).contains("block decompression"));
        assert!(run(&["--variants"]).all_variants);
        assert!(!o.all_variants);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_block_size("64K"), Ok(65_536));
        assert_eq!(parse_block_size("1M"), Ok(1 << 20));
        assert_eq!(parse_block_size("256kib"), Ok(256 << 10));
        assert_eq!(parse_block_size("4096"), Ok(4096));
        assert!(parse_block_size("12").is_err());
        assert!(parse_block_size("1G").is_err());
        assert!(parse_block_size("K").is_err());
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
    fn modes_and_levels() {
        assert_eq!(run(&[]).mode, Mode::Decode);
        let o = run(&["--compress"]);
        assert_eq!(o.mode, Mode::Compress);
        assert_eq!(o.levels, DEFAULT_COMPRESS_LEVELS);
        assert_eq!(o.rounds, DEFAULT_SLOW_ROUNDS);
        assert_eq!(run(&["--compress", "-9"]).levels, [9]);
        assert_eq!(
            run(&["--compress", "-L", "1,3-5,15"]).levels,
            [1, 3, 4, 5, 12]
        );
        assert_eq!(run(&["--compress", "--levels=-2,1"]).levels, [-2, 1]);
        assert_eq!(run(&["--compress", "-L", "-2,1"]).levels, [-2, 1]);
        assert_eq!(run(&["--compress", "--levels", "-3--2"]).levels, [-3, -2]);
        assert_eq!(run(&["--compress", "-b3", "-e", "5"]).levels, [3, 4, 5]);
        assert_eq!(run(&["--compress", "-b", "9"]).levels, [9]);
        assert_eq!(run(&["--compress", "-b9", "-e2"]).levels, [9]);
        let o = run(&["--frame"]);
        assert_eq!(
            (o.mode, o.rounds, o.block_size),
            (Mode::Frame, 20, 64 << 10)
        );
        let o = run(&["-T", "4"]);
        assert_eq!((o.mode, o.levels.clone()), (Mode::Threads(4), vec![1]));
        assert_eq!(o.block_size, DEFAULT_THREADS_BLOCK_SIZE);
        assert_eq!(run(&["--mt", "-L", "1,9"]).mode, Mode::Threads(0));
        assert_eq!(run(&["--threads=2", "-B", "1M"]).block_size, 1 << 20);
        assert_eq!(frame_block_size(256 << 10), Some(BlockSize::Max256KB));
        assert_eq!(frame_block_size(128 << 10), None);
    }

    #[test]
    fn zstd_codec() {
        let o = run(&["--codec", "zstd"]);
        assert_eq!(o.mode, Mode::Zstd);
        assert_eq!(o.levels, DEFAULT_ZSTD_LEVELS);
        assert_eq!((o.block_size, o.whole), (DEFAULT_ZSTD_FRAME_SIZE, false));
        assert_eq!(run(&["--codec=zstd", "-L", "1,19,25"]).levels, [1, 19, 22]);
        assert_eq!(run(&["--codec=zstd", "-L", "-5,3-4"]).levels, [-5, 3, 4]);
        assert_eq!(run(&["--codec=zstd", "-19"]).levels, [19]);
        assert_eq!(run(&["--codec=zstd", "--fast=4"]).levels, [-4]);
        let o = run(&["--codec", "zstd", "--whole", "-B", "64K"]);
        assert_eq!((o.block_size, o.whole), (64 << 10, true));
        assert_eq!(run(&["--codec", "lz4"]).mode, Mode::Decode);
        assert!(fails(&["--codec", "gzip"]).contains("unknown codec"));
        assert!(fails(&["--codec", "zstd", "--compress"]).contains("LZ4 only"));
        assert!(fails(&["--codec", "zstd", "-b", "3"]).contains("-L"));
        assert!(fails(&["--whole"]).contains("--codec zstd"));
        assert!(fails(&["--codec", "zstd", "--cold"]).contains("--cold"));
        assert!(fails(&["--codec", "zstd", "-L", "x"]).contains("zstd levels"));
    }

    #[test]
    fn mode_errors() {
        assert!(fails(&["--compress", "--frame"]).contains("one at a time"));
        assert!(fails(&["--frame", "--cold"]).contains("--cold"));
        assert!(fails(&["--compress", "--compressor", "lzkit"]).contains("--compressor"));
        assert!(fails(&["-L", "1"]).contains("apply to --compress"));
        assert!(fails(&["--frame", "-b", "1"]).contains("apply to --compress"));
        assert!(fails(&["--compress", "-L", "1", "-e", "3"]).contains("not both"));
        assert!(fails(&["--compress", "-L", "9-3"]).contains("range"));
        assert!(fails(&["--compress", "-L", "x"]).contains("invalid level"));
        assert!(fails(&["--frame", "-B", "128K"]).contains("frame block size"));
        assert!(fails(&["-T", "x"]).contains("--threads"));
        assert!(fails(&["--mt=2"]).contains("no value"));
        assert!(fails(&["--frame", "--reuse-state"]).contains("--compress only"));
        assert!(run(&["--compress", "--reuse-state"]).reuse_state);
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
