//! Command-line parsing, in the style of the `lz4` command.
//!
//! The parser is hand-rolled rather than built on clap because lz4's syntax
//! does not fit a declarative parser: levels are options made of digits
//! (`-12`), short options aggregate with values inside them (`-9fc`, `-B4DX`),
//! `-D` takes its value either attached (`-Ddict`) or as the next argument,
//! and `--fast` has an optional `=N`.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use lzkit::format::Codec;
use lzkit::lz4::Level;
use lzkit::lz4::frame::{BlockMode, BlockSize};

use super::values::{leading_number, parse_fast, parse_size, thread_count};

/// What to do with each input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No `-z`/`-d`/`-t`/`--list`: decompress a single input named `*.lz4`,
    /// compress anything else (as lz4 does).
    Auto,
    /// `-z`: compress.
    Compress,
    /// `-d`: decompress.
    Decompress,
    /// `-t`: decode and discard, to check integrity.
    Test,
    /// `--list`: print frame information.
    List,
    /// `lzkit recompress`: decode any format lzkit reads, write `format`.
    Recompress,
}

/// Whose meanings the operands and options have, chosen by the name the
/// command was called by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Personality {
    /// `lzkit`, `lz4`, `unlz4`, `lz4cat`: lz4's (`IN OUT`, `-l` legacy).
    Lz4,
    /// `zstd`, `unzstd`, `zstdcat`, `zstdmt`: zstd's (every operand an
    /// input, `-l` lists, zstd output by default).
    Zstd,
}

/// Everything the command line asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// Whose meanings apply (by the program's name).
    pub personality: Personality,
    /// Operation.
    pub mode: Mode,
    /// Compression level from `-#`, `--fast`, `--best`; `None` means the
    /// `LZ4_CLEVEL` environment variable, else 1.
    pub level: Option<Level>,
    /// `--format=zstd` / `--zstd`: what compression writes (LZ4 frames by
    /// default; zstd frames through libzstd).
    pub format: Codec,
    /// The level as given, for zstd: `-#` as typed (not clamped to LZ4's
    /// 12), `--fast=N` as -N, `--best` as 19; `None`: zstd's default, 3.
    pub zstd_level: Option<i32>,
    /// `--ultra`: zstd levels 20 to 22.
    pub ultra: bool,
    /// `--long[=#]`: zstd long-distance matching with a window of 2^#.
    pub long: Option<u32>,
    /// `recompress --verify`: decode the output again and compare.
    pub verify: bool,
    /// zstd output stores the content size of regular files unless
    /// `--no-content-size` (as `zstd`; LZ4's default is the opposite).
    pub zstd_content_size: bool,
    /// `-B4`..`-B7`.
    pub block_size: BlockSize,
    /// `-BD` / `-BI`.
    pub block_mode: BlockMode,
    /// `-BX`.
    pub block_checksum: bool,
    /// `--[no-]frame-crc`.
    pub content_checksum: bool,
    /// `--[no-]content-size`.
    pub content_size: bool,
    /// `-l`: legacy format.
    pub legacy: bool,
    /// `--favor-decSpeed`: levels 10 to 12 avoid matches slow to decode.
    pub favor_dec_speed: bool,
    /// `-D FILE`.
    pub dictionary: Option<PathBuf>,
    /// Worker threads from `-T#` / `--threads=#` (0 = one per core); `None`
    /// means the `LZ4_NBWORKERS` environment variable, else 0.
    pub threads: Option<usize>,
    /// `-c`: write to standard output.
    pub stdout: bool,
    /// `-f`: overwrite without asking; read from a terminal.
    pub force: bool,
    /// `--rm`: remove the source after success (`-k` turns it back off).
    pub remove_source: bool,
    /// `-m`: every file name is an input.
    pub multiple: bool,
    /// Display level as in lz4: 0 silent, 1 errors, 2 warnings and progress
    /// (default), 3 summaries (`-v`), 4 details (`-vv`).
    pub verbosity: i32,
    /// `-r`: inputs that are directories are walked (implies `-m`).
    pub recursive: bool,
    /// `-o FILE`: the output of the one input (zstd's option).
    pub output: Option<OsString>,
    /// `--exclude-compressed`: skip inputs in compressed formats when
    /// compressing (zstd's option).
    pub exclude_compressed: bool,
    /// `--progress` / `--no-progress`; `None` means the display level
    /// decides, and only on a terminal.
    pub progress: Option<bool>,
    /// `--no-crc`: write no checksums and verify none when decoding.
    pub verify_checksums: bool,
    /// `--memory=SIZE`: the largest zstd window accepted when decoding, in
    /// bytes (zstd's option); `None` means zstd's default, 128 MiB.
    pub memory: Option<u64>,
    /// `-b#`, `-e#`, `-i#`: lz4's benchmark mode (entered by `-b` only).
    pub bench: Option<BenchRequest>,
    /// Decoding to stdout, input that is not LZ4 is copied through
    /// (`-dcf`, and `lz4cat`, which does not read a terminal as `-f` would).
    pub pass_through: bool,
    /// The number of the last `-B#` as given (a code 4-7 or bytes), for the
    /// benchmark mode, which cuts files into blocks of any size.
    pub block_arg: Option<u64>,
    /// `--seekable[=CHUNK]`: write independent frames of CHUNK bytes of
    /// content each and a seek table.
    pub seekable: Option<usize>,
    /// `--range=OFFSET:LENGTH` with `-d`: decode only these bytes of the
    /// content (through the seek table); `None` length: to the end.
    pub range: Option<(u64, Option<u64>)>,
    /// `--filter=NAME`: filter the input before compressing it, and record
    /// the filter in the output (a filter frame) for `-d` to undo.
    pub filter: Option<lzkit::filter::Filter>,
    /// File names in order, `-` meaning standard input or output.
    pub files: Vec<OsString>,
}

/// lz4's benchmark options: compression levels `begin..=end` over the
/// files (or the built-in corpus), `rounds` timed rounds each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BenchRequest {
    /// `-b` was given: the benchmark runs.
    pub active: bool,
    /// `-b#`: first level (default: the level set by `-#`, else 1).
    pub begin: Option<u64>,
    /// `-e#`: last level (default: the first).
    pub end: Option<u64>,
    /// `-i#`: timed rounds.
    pub rounds: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            personality: Personality::Lz4,
            mode: Mode::Auto,
            level: None,
            format: Codec::Lz4,
            zstd_level: None,
            ultra: false,
            long: None,
            verify: false,
            zstd_content_size: true,
            block_size: BlockSize::Max4MB,
            block_mode: BlockMode::Independent,
            block_checksum: false,
            content_checksum: true,
            content_size: false,
            legacy: false,
            favor_dec_speed: false,
            dictionary: None,
            threads: None,
            stdout: false,
            force: false,
            remove_source: false,
            multiple: false,
            verbosity: 2,
            recursive: false,
            output: None,
            exclude_compressed: false,
            progress: None,
            verify_checksums: true,
            memory: None,
            bench: None,
            pass_through: false,
            block_arg: None,
            seekable: None,
            range: None,
            filter: None,
            files: Vec::new(),
        }
    }
}

/// The result of parsing: run, or print something and exit.
#[derive(Debug)]
pub enum Command {
    /// Process files with these options (boxed: they are large, the other
    /// variants empty).
    Run(Box<Options>),
    /// `-h`.
    Help,
    /// `-H` / `--help`: help with examples and details (as lz4).
    LongHelp,
    /// `-V` / `--version`.
    Version,
}

/// Options as set by the program name: `unlz4` decompresses, `lz4cat`
/// decompresses every file to standard output; `zstd`, `unzstd`,
/// `zstdcat` and `zstdmt` take zstd's meanings ([`Personality::Zstd`]):
/// every operand is an input, `-l` lists, compression writes zstd (level
/// 3); `unzstd` is `zstd -d`, `zstdcat` `zstd -dcf`, `zstdmt` `zstd -T0`.
pub fn defaults_for_program(argv0: Option<&OsStr>) -> Options {
    let mut opts = Options::default();
    let stem = argv0
        .map(PathBuf::from)
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()));
    match stem.as_deref() {
        Some("unlz4") => opts.mode = Mode::Decompress,
        // lz4cat is lz4 -dcfm: input that is not LZ4 passes through
        // unchanged (without -f's reading from a terminal).
        Some("lz4cat") => {
            opts.mode = Mode::Decompress;
            opts.stdout = true;
            opts.multiple = true;
            opts.pass_through = true;
        }
        Some(name @ ("zstd" | "unzstd" | "zstdcat" | "zstdmt")) => {
            opts.personality = Personality::Zstd;
            opts.format = Codec::Zstd;
            opts.mode = Mode::Compress;
            match name {
                "unzstd" => opts.mode = Mode::Decompress,
                "zstdcat" => {
                    opts.mode = Mode::Decompress;
                    opts.stdout = true;
                    opts.pass_through = true;
                }
                "zstdmt" => opts.threads = Some(0),
                _ => {}
            }
        }
        _ => {}
    }
    opts
}

/// Parse the arguments after the program name, starting from `opts`.
/// Errors are one-line usage messages.
pub fn parse<I>(args: I, mut opts: Options) -> Result<Command, String>
where
    I: IntoIterator<Item = OsString>,
{
    let mut args = args.into_iter();
    let mut only_files = false;
    while let Some(arg) = args.next() {
        if only_files || arg == "-" || !arg.as_encoded_bytes().starts_with(b"-") {
            opts.files.push(arg);
            continue;
        }
        let Some(text) = arg.to_str() else {
            return Err(format!("invalid option: {}", arg.to_string_lossy()));
        };
        if text == "--" {
            only_files = true;
        } else if let Some(long) = text.strip_prefix("--") {
            if let Some(cmd) = parse_long(long, &mut args, &mut opts)? {
                return Ok(cmd);
            }
        } else if let Some(cmd) = parse_short(&text[1..], &mut args, &mut opts)? {
            return Ok(cmd);
        }
    }
    Ok(Command::Run(Box::new(opts)))
}

/// Long options that take a value (`--threads=N` or `--threads N`;
/// `--fast` takes one only attached).
const VALUED: &[&str] = &[
    "fast", "threads", "output", "memory", "format", "long", "seekable", "range", "filter",
];

/// One `--name[=value]` option; `--threads`, `--output` and `--memory` may
/// take their value from the next argument (`--threads N`, `--output FILE`).
/// Returns a command when it ends parsing.
fn parse_long<I>(long: &str, rest: &mut I, opts: &mut Options) -> Result<Option<Command>, String>
where
    I: Iterator<Item = OsString>,
{
    let (name, value) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (long, None),
    };
    // Catch `--force=1` rather than ignore it (checked after the name, so
    // that `--foo=1` is an unknown option).
    let stray_value = value.is_some() && !VALUED.contains(&name);
    let no_value = || format!("option --{name} takes no value");
    let value = match name {
        "threads" | "output" | "memory" | "format" | "filter" if value.is_none() => {
            match rest.next() {
                // `--output -c`: an option where the file name should be.
                Some(v) if name == "output" => Some(
                    not_an_option(v, "--output needs a file name")?
                        .to_string_lossy()
                        .into_owned(),
                ),
                v => v.map(|v| v.to_string_lossy().into_owned()),
            }
        }
        _ => value,
    };
    let value = value.as_deref();
    match name {
        "compress" => opts.mode = Mode::Compress,
        "decompress" | "uncompress" => opts.mode = Mode::Decompress,
        "test" => opts.mode = Mode::Test,
        "list" => opts.mode = Mode::List,
        "stdout" | "to-stdout" => opts.stdout = true,
        "force" => opts.force = true,
        "no-force" => opts.force = false,
        "keep" => opts.remove_source = false,
        "rm" => opts.remove_source = true,
        "multiple" => opts.multiple = true,
        "verbose" => opts.verbosity += 1,
        "quiet" => opts.verbosity -= 1,
        "content-size" => {
            opts.content_size = true;
            opts.zstd_content_size = true;
        }
        "no-content-size" => {
            opts.content_size = false;
            opts.zstd_content_size = false;
        }
        "frame-crc" => opts.content_checksum = true,
        "no-frame-crc" => opts.content_checksum = false,
        "best" => {
            opts.level = Some(Level::BEST);
            opts.zstd_level = Some(19);
        }
        "format" => {
            opts.format = Codec::from_name(value.unwrap_or(""))
                .map_err(|e| format!("{e} (--format=lz4 or --format=zstd)"))?;
        }
        "zstd" => opts.format = Codec::Zstd,
        "filter" => {
            opts.filter = Some(
                lzkit::filter::Filter::parse(value.unwrap_or(""))
                    .map_err(|e| format!("invalid --filter: {e}"))?,
            );
        }
        "ultra" => opts.ultra = true,
        "long" => {
            let log = match value {
                None => 27,
                Some(v) => match v.parse::<u32>() {
                    Ok(n @ 10..=31) => n,
                    _ => {
                        return Err(format!(
                            "invalid --long value '{v}': a window log from 10 to 31 (--long=27: 128 MiB)"
                        ));
                    }
                },
            };
            opts.long = Some(log);
        }
        "check" => opts.content_checksum = true,
        "no-check" => opts.content_checksum = false,
        "fast" => {
            let n = parse_fast(value)?;
            opts.level = Some(Level::fast(n));
            opts.zstd_level = Some(-(n.min(1 << 17) as i32));
        }
        "threads" => {
            let n = value
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    "option --threads needs a number of threads (--threads N, 0 = all cores)"
                        .to_string()
                })?;
            opts.threads = Some(thread_count(leading_number(n.as_bytes()).0));
        }
        "output" => {
            let v = value.filter(|v| !v.is_empty()).ok_or_else(|| {
                "option --output needs a file name (--output=FILE, or -o FILE)".to_string()
            })?;
            opts.output = Some(OsString::from(v));
        }
        "memory" => opts.memory = Some(parse_memory(value.unwrap_or(""))?),
        "seekable" => {
            let chunk = match value {
                None => lzkit::seekable::DEFAULT_CHUNK_SIZE as u64,
                Some(v) => parse_size(v)
                    .ok()
                    .filter(|&n| (1..=lzkit::seekable::MAX_ENTRY_SIZE).contains(&n))
                    .ok_or_else(|| {
                        format!(
                            "invalid --seekable chunk size '{v}': a size from 1 byte to 1GiB, such as 256K or 4M"
                        )
                    })?,
            };
            opts.seekable = Some(chunk as usize);
        }
        "range" => opts.range = Some(parse_range(value.unwrap_or(""))?),
        "no-crc" => {
            opts.content_checksum = false;
            opts.block_checksum = false;
            opts.verify_checksums = false;
        }
        "recursive" => {
            opts.recursive = true;
            opts.multiple = true;
        }
        "exclude-compressed" => opts.exclude_compressed = true,
        "progress" => opts.progress = Some(true),
        "no-progress" => opts.progress = Some(false),
        "favor-decSpeed" => opts.favor_dec_speed = true,
        // Accepted for compatibility with lz4 scripts. Sparse output only
        // changes how data is written, never what decodes, so ignoring it
        // is safe.
        "sparse" | "no-sparse" => {}
        "help" | "version" if stray_value => return Err(no_value()),
        "help" => return Ok(Some(Command::LongHelp)),
        "version" => return Ok(Some(Command::Version)),
        _ => return Err(format!("unknown option --{name}")),
    }
    if stray_value {
        return Err(no_value());
    }
    Ok(None)
}

/// One cluster of short options (the text after `-`). It may continue
/// with the next argument (`-D FILE`). Returns a command when it ends parsing.
fn parse_short<I>(
    cluster: &str,
    rest: &mut I,
    opts: &mut Options,
) -> Result<Option<Command>, String>
where
    I: Iterator<Item = OsString>,
{
    let bytes = cluster.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        match c {
            b'0'..=b'9' => {
                let (n, used) = leading_number(&bytes[i - 1..]);
                i += used - 1;
                opts.level = Some(Level::saturating(n));
                opts.zstd_level = Some(n.min(i32::MAX as u64) as i32);
            }
            b'B' | b'b' | b'e' | b'i' if opts.personality == Personality::Zstd => {
                return Err(zstd_unsupported(c));
            }
            b'B' => {
                let start = i;
                // lz4 reads D/I/X and numbers after B until anything else,
                // which is then an ordinary short option again (`-BDc`).
                while i < bytes.len() {
                    match bytes[i] {
                        b'D' => opts.block_mode = BlockMode::Linked,
                        b'I' => opts.block_mode = BlockMode::Independent,
                        b'X' => opts.block_checksum = true,
                        b'0'..=b'9' => {
                            let (n, used) = leading_number(&bytes[i..]);
                            opts.block_size = block_size_from_number(n)?;
                            i += used;
                            continue;
                        }
                        _ => break,
                    }
                    i += 1;
                }
                // `-B` alone changes nothing, as in lz4.
                if let Some(n) = last_block_number(&bytes[start..i]) {
                    opts.block_arg = Some(n);
                }
            }
            b'D' => {
                let path = file_value(&cluster[i..], rest, "-D needs a dictionary file name")?;
                opts.dictionary = Some(PathBuf::from(path));
                return Ok(None);
            }
            b'z' => opts.mode = Mode::Compress,
            b'd' => opts.mode = Mode::Decompress,
            b't' => opts.mode = Mode::Test,
            b'c' => opts.stdout = true,
            b'f' => opts.force = true,
            b'k' => opts.remove_source = false,
            b'm' => opts.multiple = true,
            b'l' if opts.personality == Personality::Zstd => opts.mode = Mode::List,
            b'l' => opts.legacy = true,
            b'q' => opts.verbosity -= 1,
            b'v' => opts.verbosity += 1,
            b'h' => return Ok(Some(Command::Help)),
            b'H' => return Ok(Some(Command::LongHelp)),
            b'V' => return Ok(Some(Command::Version)),
            b'r' => {
                opts.recursive = true;
                opts.multiple = true;
            }
            b'o' => {
                opts.output = Some(file_value(
                    &cluster[i..],
                    rest,
                    "-o needs an output file name",
                )?);
                return Ok(None);
            }
            b'T' => {
                // `-T#`; lz4 reads a missing number as 0 (all cores).
                let (n, used) = leading_number(&bytes[i..]);
                i += used;
                opts.threads = Some(thread_count(n));
            }
            b'b' | b'e' | b'i' => {
                // lz4's benchmark mode: -b# first level (-b alone: the
                // level set, else 1), -e# last level, -i# rounds.
                let (n, used) = leading_number(&bytes[i..]);
                let n = if used == 0 { 1 } else { n };
                i += used;
                // Only -b enters the benchmark mode, as in lz4: -e# and -i#
                // alone change nothing.
                let bench = opts.bench.get_or_insert_with(BenchRequest::default);
                match c {
                    b'b' => {
                        bench.active = true;
                        bench.begin = (used > 0).then_some(n);
                    }
                    b'e' => bench.end = Some(n),
                    _ => bench.rounds = Some(n),
                }
            }
            _ => {
                let shown = cluster[i - 1..].chars().next().unwrap_or('?');
                return Err(format!("unknown option -{shown}"));
            }
        }
    }
    Ok(None)
}

/// Why a zstd option with no lzkit counterpart is refused under the zstd
/// personality (rather than read with lz4's meaning).
fn zstd_unsupported(c: u8) -> String {
    match c {
        b'B' => "option -B# (zstd's job size) is not supported when called as zstd: lzkit chooses the job size (its output is the same for any -T)".to_string(),
        _ => format!(
            "option -{} (zstd's benchmark) is not supported when called as zstd: use lzkit bench --codec zstd",
            c as char
        ),
    }
}

/// The file name of `-D` or `-o`: the rest of the cluster (`-Dfile`), or
/// else the next argument; `missing` is the error without one.
fn file_value<I>(attached: &str, rest: &mut I, missing: &str) -> Result<OsString, String>
where
    I: Iterator<Item = OsString>,
{
    if attached.is_empty() {
        let next = rest.next().ok_or_else(|| format!("option {missing}"))?;
        not_an_option(next, missing)
    } else {
        Ok(OsString::from(attached))
    }
}

/// `value`, the argument after an option that takes a file name, unless
/// it is itself an option (`-o -c`): then an error, with how to name a
/// file that starts with `-`. `-` alone (standard input or output) is a
/// name.
fn not_an_option(value: OsString, missing: &str) -> Result<OsString, String> {
    let bytes = value.as_encoded_bytes();
    if bytes.len() > 1 && bytes[0] == b'-' {
        let shown = value.to_string_lossy();
        return Err(format!(
            "option {missing}, not an option ({shown}); write a file named so as ./{shown}"
        ));
    }
    Ok(value)
}

/// The last number in a `-B` cluster (`-B4D` gives 4, `-B65536` 65536):
/// what the benchmark front passes on as its block size.
fn last_block_number(cluster: &[u8]) -> Option<u64> {
    let mut last = None;
    let mut i = 0;
    while i < cluster.len() {
        if cluster[i].is_ascii_digit() {
            let (n, used) = leading_number(&cluster[i..]);
            last = Some(n);
            i += used;
        } else {
            i += 1;
        }
    }
    last
}

/// `--range=OFFSET:LENGTH` (sizes with K, M, G suffixes; no LENGTH: to
/// the end).
fn parse_range(text: &str) -> Result<(u64, Option<u64>), String> {
    let bad = || {
        format!(
            "invalid --range value '{text}': use OFFSET:LENGTH, such as --range=1G:4K (K, M, G: binary; OFFSET: alone reads to the end)"
        )
    };
    let (offset, length) = text.split_once(':').ok_or_else(bad)?;
    let offset = parse_size(offset).map_err(|_| bad())?;
    let length = match length {
        "" => None,
        l => Some(parse_size(l).map_err(|_| bad())?),
    };
    Ok((offset, length))
}

/// `--memory=SIZE`: digits with an optional suffix K, KB, KiB, M, MB, MiB,
/// G, GB or GiB (any case; all binary, as zstd reads them).
fn parse_memory(text: &str) -> Result<u64, String> {
    parse_size(text).map_err(|_| {
        format!(
            "invalid --memory value '{text}': use a size such as 256MiB or 2GB (K, M, G: binary)"
        )
    })
}

/// `-B#`: 4..=7 is a block-size code; 32 or more is a size in bytes, rounded
/// up to the next size the frame format has (lz4 accepts both forms).
fn block_size_from_number(n: u64) -> Result<BlockSize, String> {
    if let Some(bs) = u8::try_from(n).ok().and_then(BlockSize::from_code) {
        return Ok(bs);
    }
    if n >= 32 {
        let sizes = [
            BlockSize::Max64KB,
            BlockSize::Max256KB,
            BlockSize::Max1MB,
            BlockSize::Max4MB,
        ];
        return Ok(sizes
            .into_iter()
            .find(|bs| bs.bytes() as u64 >= n)
            .unwrap_or(BlockSize::Max4MB));
    }
    Err(format!(
        "invalid block size -B{n}: use 4-7 or a size in bytes of 32 or more"
    ))
}

/// An input named on the command line.
pub(crate) enum Input {
    /// Standard input (`-`, `stdin`, or no file name).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The input an operand names: `-` and `stdin` name standard input.
    pub(crate) fn from_arg(arg: &OsStr) -> Input {
        if arg == "-" || arg == "stdin" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
        }
    }

    /// The input's name in messages.
    pub(crate) fn name(&self) -> String {
        match self {
            Input::Stdin => "stdin".into(),
            Input::File(p) => p.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::values::MAX_THREADS;

    fn run(args: &[&str]) -> Options {
        match parse(args.iter().map(OsString::from), Options::default()) {
            Ok(Command::Run(o)) => *o,
            other => panic!("unexpected parse result {other:?}"),
        }
    }

    #[test]
    fn levels_and_aggregates() {
        let o = run(&["-12"]);
        assert_eq!(o.level, Some(Level::new(12)));
        let o = run(&["-9fc", "x"]);
        assert_eq!(
            (o.level, o.force, o.stdout),
            (Some(Level::new(9)), true, true)
        );
        assert_eq!(o.files, vec![OsString::from("x")]);
        assert_eq!(run(&["-99"]).level, Some(Level::BEST));
        assert_eq!(run(&["--fast"]).level, Some(Level::new(-1)));
        assert_eq!(run(&["--fast=3"]).level, Some(Level::new(-3)));
        assert_eq!(run(&["--fast=99999999"]).level, Some(Level::new(-65_537)));
        assert_eq!(run(&["--best"]).level, Some(Level::new(12)));
        let o = run(&["-vd"]);
        assert_eq!((o.verbosity, o.mode), (3, Mode::Decompress));
    }

    #[test]
    fn zstd_options() {
        let o = run(&["--zstd", "-19", "x"]);
        assert_eq!((o.format, o.zstd_level), (Codec::Zstd, Some(19)));
        assert_eq!(o.level, Some(Level::BEST));
        let o = run(&["--format=zstd", "--ultra", "-22", "--long"]);
        assert_eq!((o.zstd_level, o.ultra, o.long), (Some(22), true, Some(27)));
        assert_eq!(run(&["--format", "lz4"]).format, Codec::Lz4);
        assert_eq!(run(&["--long=31"]).long, Some(31));
        assert_eq!(run(&["--fast=5"]).zstd_level, Some(-5));
        assert_eq!(run(&["--best"]).zstd_level, Some(19));
        assert!(!run(&["--no-check"]).content_checksum);
        for bad in [
            "--format=gzip",
            "--format",
            "--long=9",
            "--long=32",
            "--long=x",
        ] {
            assert!(
                parse([bad].map(OsString::from), Options::default()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn block_options() {
        let o = run(&["-B4DXc"]);
        assert_eq!(o.block_size, BlockSize::Max64KB);
        assert_eq!(o.block_mode, BlockMode::Linked);
        assert!(o.block_checksum && o.stdout);
        let o = run(&["-B5", "-BD", "-BI"]);
        assert_eq!(o.block_size, BlockSize::Max256KB);
        assert_eq!(o.block_mode, BlockMode::Independent);
        assert_eq!(run(&["-B100000"]).block_size, BlockSize::Max256KB);
        assert_eq!(run(&["-B"]).block_size, BlockSize::Max4MB);
        assert!(parse(["-B9"].map(OsString::from), Options::default()).is_err());
    }

    #[test]
    fn thread_options() {
        assert_eq!(run(&["x"]).threads, None);
        assert_eq!(run(&["-T2", "x"]).threads, Some(2));
        assert_eq!(run(&["-T0"]).threads, Some(0));
        assert_eq!(run(&["-T"]).threads, Some(0));
        let o = run(&["-9T4c"]);
        assert_eq!(
            (o.level, o.threads, o.stdout),
            (Some(Level::new(9)), Some(4), true)
        );
        assert_eq!(run(&["-T100000"]).threads, Some(MAX_THREADS));
        assert_eq!(run(&["--threads=3"]).threads, Some(3));
        assert_eq!(run(&["--threads", "3", "x"]).threads, Some(3));
        assert_eq!(
            run(&["--threads", "3", "x"]).files,
            vec![OsString::from("x")]
        );
        for bad in ["--threads", "--threads=", "--threads=x", "--threads=-1"] {
            assert!(
                parse([bad].map(OsString::from), Options::default()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn dictionary_forms() {
        assert_eq!(
            run(&["-Dd.bin", "x"]).dictionary,
            Some(PathBuf::from("d.bin"))
        );
        let o = run(&["-D", "d.bin", "x"]);
        assert_eq!(o.dictionary, Some(PathBuf::from("d.bin")));
        assert_eq!(o.files, vec![OsString::from("x")]);
        assert!(parse(["-D"].map(OsString::from), Options::default()).is_err());
    }

    #[test]
    fn seekable_and_range() {
        assert_eq!(run(&["--seekable"]).seekable, Some(1 << 20));
        assert_eq!(run(&["--seekable=256K"]).seekable, Some(256 << 10));
        assert_eq!(run(&["--seekable=4MiB"]).seekable, Some(4 << 20));
        assert_eq!(run(&["--range=1G:4K"]).range, Some((1 << 30, Some(4096))));
        assert_eq!(run(&["--range=10:"]).range, Some((10, None)));
        assert_eq!(run(&["--range=0:0"]).range, Some((0, Some(0))));
        for bad in [
            "--seekable=0",
            "--seekable=2G",
            "--seekable=x",
            "--range",
            "--range=5",
            "--range=a:b",
            "--range=1:2:3",
        ] {
            assert!(
                parse([bad].map(OsString::from), Options::default()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn filters() {
        use lzkit::filter::Filter;
        assert_eq!(run(&["x"]).filter, None);
        assert_eq!(
            run(&["--filter=shuffle4", "x"]).filter,
            Some(Filter::parse("shuffle4").unwrap())
        );
        assert_eq!(
            run(&["--filter", "delta8", "x"]).filter,
            Some(Filter::parse("delta8").unwrap())
        );
        for bad in ["--filter", "--filter=", "--filter=delta3", "--filter=lz4"] {
            let e = parse([bad].map(OsString::from), Options::default()).unwrap_err();
            assert!(e.starts_with("invalid --filter: "), "{bad}: {e}");
        }
    }

    #[test]
    fn memory_sizes() {
        assert_eq!(run(&["x"]).memory, None);
        assert_eq!(run(&["--memory=2GB"]).memory, Some(2 << 30));
        assert_eq!(run(&["--memory=256MiB"]).memory, Some(256 << 20));
        assert_eq!(run(&["--memory", "64k", "x"]).memory, Some(64 << 10));
        assert_eq!(run(&["--memory=1000"]).memory, Some(1000));
        for bad in [
            "--memory",
            "--memory=",
            "--memory=2TB",
            "--memory=x",
            "--memory=-1",
        ] {
            assert!(
                parse([bad].map(OsString::from), Options::default()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn files_and_end_of_options() {
        let o = run(&["-", "--", "-d"]);
        assert_eq!(o.files, vec![OsString::from("-"), OsString::from("-d")]);
        assert_eq!(o.mode, Mode::Auto);
        assert!(parse(["--nope"].map(OsString::from), Options::default()).is_err());
        assert!(parse(["--force=1"].map(OsString::from), Options::default()).is_err());
    }

    #[test]
    fn program_names() {
        let o = defaults_for_program(Some(OsStr::new("/usr/bin/lz4cat")));
        assert!(o.stdout && o.multiple && o.mode == Mode::Decompress);
        assert_eq!(
            defaults_for_program(Some(OsStr::new("unlz4"))).mode,
            Mode::Decompress
        );
        assert_eq!(
            defaults_for_program(Some(OsStr::new("lzkit"))).mode,
            Mode::Auto
        );
        let z = defaults_for_program(Some(OsStr::new("/usr/local/bin/zstd")));
        assert_eq!(
            (z.personality, z.format, z.mode),
            (Personality::Zstd, Codec::Zstd, Mode::Compress)
        );
        let cat = defaults_for_program(Some(OsStr::new("zstdcat")));
        assert!(cat.stdout && cat.pass_through && cat.mode == Mode::Decompress);
        assert_eq!(
            defaults_for_program(Some(OsStr::new("unzstd"))).mode,
            Mode::Decompress
        );
        assert_eq!(
            defaults_for_program(Some(OsStr::new("zstdmt"))).threads,
            Some(0)
        );
    }

    #[test]
    fn zstd_meanings_of_short_options() {
        let zstd = || defaults_for_program(Some(OsStr::new("zstd")));
        let parsed = |args: &[&str]| parse(args.iter().map(OsString::from), zstd());
        match parsed(&["-l", "a.zst"]) {
            Ok(Command::Run(o)) => assert!(o.mode == Mode::List && !o.legacy),
            other => panic!("{other:?}"),
        }
        assert!(parsed(&["-B1000000", "a"]).is_err());
        assert!(parsed(&["-b1", "a"]).is_err());
        // Under lz4's meanings, -l is the legacy format.
        assert!(run(&["-l", "a"]).legacy);
    }

    #[test]
    fn an_option_where_a_file_name_belongs() {
        for args in [&["-o", "-c"][..], &["--output", "-c"], &["-D", "-9"]] {
            let e = parse(args.iter().map(OsString::from), Options::default()).unwrap_err();
            assert!(e.contains("not an option"), "{args:?}: {e}");
        }
        assert_eq!(run(&["-o", "-"]).output, Some(OsString::from("-")));
        assert_eq!(run(&["-o", "./-c"]).output, Some(OsString::from("./-c")));
        let e = parse(["--foo=1"].map(OsString::from), Options::default()).unwrap_err();
        assert_eq!(e, "unknown option --foo");
        let e = parse(["--help=1"].map(OsString::from), Options::default()).unwrap_err();
        assert_eq!(e, "option --help takes no value");
    }
}
