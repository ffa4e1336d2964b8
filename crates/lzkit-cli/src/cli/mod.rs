//! The `lzkit` command line: an `lz4`-compatible front end to the library.
//!
//! * [`args`]: lz4-style argument parsing.
//! * [`run`]: per-file compression, decompression, testing and listing.
//! * [`output`]: destinations, with atomic file creation.
//! * [`list`]: the `--list` tables.
//! * [`progress`], [`report`]: what goes to standard error.
//!
//! `lzkit NAME ...` where NAME is in [`SUBCOMMANDS`] hands the remaining
//! arguments to that subcommand; anything else is the lz4-style interface.

mod args;
mod bench;
mod list;
mod output;
mod progress;
mod report;
mod run;

use std::ffi::OsString;
use std::process::ExitCode;

use args::Command;
use report::PROGRAM;

/// A subcommand: receives the arguments after its name.
type Subcommand = fn(Vec<OsString>) -> ExitCode;

/// Subcommands dispatched on the first argument (planned: `bench`, `probe`,
/// `recompress`). The lz4-style interface keeps every other first argument,
/// so a file with a subcommand's name must then be written `./NAME`.
const SUBCOMMANDS: &[(&str, Subcommand)] = &[("bench", bench::main)];

/// Run the command with the process's arguments.
pub fn main() -> ExitCode {
    let mut argv = std::env::args_os();
    let argv0 = argv.next();
    let rest: Vec<OsString> = argv.collect();
    output::remove_on_interrupt();

    if let Some(first) = rest.first()
        && let Some((_, sub)) = SUBCOMMANDS.iter().find(|(name, _)| first == *name)
    {
        return sub(rest[1..].to_vec());
    }

    let defaults = args::defaults_for_program(argv0.as_deref());
    match args::parse(rest, defaults) {
        Ok(Command::Run(opts)) => {
            if run::run(opts) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Ok(Command::Help) => print_stdout(&short_help()),
        Ok(Command::LongHelp) => print_stdout(&format!("{}{}", short_help(), LONG_HELP)),
        Ok(Command::Version) => print_stdout(&format!("{PROGRAM} {}\n", env!("CARGO_PKG_VERSION"))),
        Err(msg) => {
            eprintln!("{PROGRAM}: {msg}");
            eprintln!("Try '{PROGRAM} -h' for help.");
            ExitCode::FAILURE
        }
    }
}

/// Print help or version text; a closed stdout is an error, not a panic.
fn print_stdout(text: &str) -> ExitCode {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// `-h`.
fn short_help() -> String {
    format!(
        "\
{PROGRAM} {version}: LZ4 compression, compatible with the lz4 command

Usage: {PROGRAM} [OPTIONS] [INPUT [OUTPUT]]
       {PROGRAM} -m [OPTIONS] FILE...

With no INPUT, or when INPUT is - or stdin, read standard input (and write
standard output). OUTPUT may be - or stdout (standard output) or null
(discard). Without OUTPUT, FILE is compressed to FILE.lz4 and FILE.lz4 is
decompressed to FILE.

Operations:
  -z, --compress         compress (default, but without -m *.lz4 inputs are
                         decompressed, as lz4 does)
  -d, --decompress       decompress (also --uncompress)
  -t, --test             decode and check integrity, write nothing
      --list             show the frames of .lz4 files (-v: one line per frame)

Input and output:
  -c, --stdout           write to standard output (also --to-stdout)
  -m, --multiple         every name is an input, each with its own output
  -f, --force            overwrite existing files; read from a terminal
  -k, --keep             keep the source files (default)
      --rm               remove each source after success
  -q, --quiet            no warnings or progress; twice: no errors either
  -v, --verbose          summary per file; twice: settings too
  -h, --help             this help; -H: more details
  -V, --version          version

Compression:
  -1 ... -12             level (default 1, or LZ4_CLEVEL); 2 and up: high
                         compression (slower), as in lz4
      --fast[=N]         faster, larger output (level -N, default N=1)
      --best             level 12
      --favor-decSpeed   levels 10-12: faster decoding, slightly larger output
  -B4 -B5 -B6 -B7        block size 64 KiB, 256 KiB, 1 MiB, 4 MiB (default -B7)
  -BD                    linked blocks (better ratio)
  -BI                    independent blocks (default)
  -BX                    block checksums
      --no-frame-crc     no content checksum (--frame-crc: on, the default)
      --content-size     store the original size (files only)
      --no-content-size  do not store it (default)
  -l                     legacy format (Linux kernel)
  -D FILE                dictionary (compression and decompression)
  -T#, --threads=#       worker threads (default: LZ4_NBWORKERS, else all
                         cores; also for -d/-t of independent-block frames)
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// The rest of `-H`.
const LONG_HELP: &str = "
Details:
  Short options combine: -9fc is -9 -f -c, -B4DX is -B4 -BD -BX, -vd is -v -d.
  -B also takes a size in bytes of 32 or more, rounded up to 64 KiB..4 MiB.
  -Dfile and -D file are the same. Options after -- are file names.
  --sparse and --no-sparse are accepted and ignored.
  Invoked as unlz4 it decompresses; as lz4cat it decompresses to stdout.

Safety:
  Output files are written under a temporary name in the same directory and
  renamed only when complete: on any error, Ctrl-C, SIGTERM or SIGHUP no
  partial output is left (an interrupt exits with status 130). They get
  the permissions and times of their source. An existing file is never
  replaced without -f (a terminal is asked first). Compressed data is never
  written to a terminal without -c, nor read from one without -f.

Differences from lz4:
  lz4 writes to stdout when stdout is not a terminal and no output is named;
  lzkit writes FILE.lz4 (use -c for stdout). With -c, or with -t, every name is
  an input. Errors exit with status 1, as one line: lzkit: FILE: problem.

Examples:
  lzkit file                     compress to file.lz4
  lzkit -d file.lz4              decompress to file
  lzkit -9 -BD -c file > out     compress to stdout
  generator | lzkit | consumer   pipe mode
  lzkit -m -d *.lz4              decompress several files
";
