//! The `lzkit` command line: an `lz4`-compatible front end to the library.
//!
//! * [`args`]: lz4-style argument parsing.
//! * [`values`]: the one reading of sizes, levels and thread counts, for
//!   every subcommand.
//! * [`run`]: per-file work, by operation (the job, inputs, output names,
//!   settings, compression, decompression and testing, dictionaries).
//! * [`output`]: destinations, with atomic file creation (and the
//!   standard streams, interrupts).
//! * `walk`: `-r` by directory handles (Unix), never leaving its tree.
//! * [`formats`]: LZ4 or zstd, by magic number (the library's format
//!   layer), and the messages about frames of another codec.
//! * [`list`]: `--list` and its tables.
//! * [`progress`], [`report`]: what goes to standard error.
//!
//! `lzkit NAME ...` where NAME is in [`SUBCOMMANDS`] hands the remaining
//! arguments to that subcommand; anything else is the lz4-style interface.

mod args;
mod bench;
mod formats;
mod index;
mod list;
mod output;
mod personality;
mod probe;
mod progress;
mod recompress;
mod report;
mod run;
mod values;
#[cfg(unix)]
mod walk;

use std::ffi::OsString;
use std::process::ExitCode;

use args::Command;
use report::{PROGRAM, eprint_line};

/// A subcommand: receives the arguments after its name.
type Subcommand = fn(Vec<OsString>) -> ExitCode;

/// Subcommands dispatched on the first argument: `bench`, `index`,
/// `probe`, `recompress`. The lz4-style interface keeps every other first argument,
/// so a file with a subcommand's name is written `./NAME` or after `--`
/// (`lzkit -- bench`).
const SUBCOMMANDS: &[(&str, Subcommand)] = &[
    ("bench", bench::main),
    ("index", index::main),
    ("probe", probe::main),
    ("recompress", recompress::main),
];

/// Run the command with the process's arguments.
pub fn main() -> ExitCode {
    // Before anything opens a file (the interrupt handler opens a pipe).
    output::guard_standard_streams();
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
        Ok(Command::Run(opts)) if opts.bench.as_ref().is_some_and(|b| b.active) => {
            bench::levels::main(&opts)
        }
        Ok(Command::Run(opts)) => match run::run(*opts) {
            run::Outcome::Success => ExitCode::SUCCESS,
            run::Outcome::Failure => ExitCode::FAILURE,
            run::Outcome::BrokenPipe => ExitCode::from(BROKEN_PIPE_STATUS),
        },
        Ok(Command::Help) => print_stdout(&short_help()),
        Ok(Command::LongHelp) => print_stdout(&format!("{}{}", short_help(), LONG_HELP)),
        Ok(Command::Version) => print_stdout(&format!("{PROGRAM} {}\n", env!("CARGO_PKG_VERSION"))),
        Err(msg) => {
            eprint_line(format_args!("{PROGRAM}: {msg}"));
            eprint_line(format_args!("Try '{PROGRAM} -h' for help."));
            ExitCode::FAILURE
        }
    }
}

/// Exit status when standard output's reader went away: what a shell
/// reports for `lz4` or `zstd` killed by `SIGPIPE` (128 + 13).
pub(crate) const BROKEN_PIPE_STATUS: u8 = 141;

/// Print help or version text; a closed stdout is an error, not a panic.
fn print_stdout(text: &str) -> ExitCode {
    use std::io::Write;
    let written = output::stdout_writer()
        .ok()
        .is_some_and(|mut out| out.write_all(text.as_bytes()).is_ok());
    if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `-h`.
fn short_help() -> String {
    format!(
        "\
{PROGRAM} {version}: LZ4 compression, compatible with the lz4 command;
zstd too (--zstd)

Usage: {PROGRAM} [OPTIONS] [INPUT [OUTPUT]]
       {PROGRAM} -m [OPTIONS] FILE...
       {PROGRAM} -b# [-e#] [-i#] [FILE...]   compression benchmark, as lz4
       {PROGRAM} bench [OPTIONS] [FILE...]   decoder benchmark ({PROGRAM} bench -h)
       {PROGRAM} probe [OPTIONS] [FILE|DIR...]   which codec and level for this
                                           data and I/O ({PROGRAM} probe -h)
       {PROGRAM} recompress --to lz4|zstd FILE...  convert .gz .xz .zst .lz4
                                           ({PROGRAM} recompress -h)
       {PROGRAM} index FILE...   add a seek table to .lz4 and .zst files
                                           ({PROGRAM} index -h)

With no INPUT, or when INPUT is - or stdin, read standard input (and write
standard output). OUTPUT may be - or stdout (standard output) or null
(discard). Without OUTPUT, FILE is compressed to FILE.lz4 and FILE.lz4 is
decompressed to FILE (FILE.zst too). A file named bench, index, probe or
recompress is written ./NAME or -- NAME. Decoding tells LZ4 from zstd by
the magic number, not the name.

Operations:
  -z, --compress         compress (default; inputs all named *.lz4 are
                         decompressed, as lz4 does)
  -d, --decompress       decompress LZ4 or zstd (also --uncompress)
  -t, --test             decode and check integrity, write nothing
      --list             show the frames of .lz4 and .zst files (-v: one line
                         per frame) and their seek tables
      --range=OFF:LEN    with -d: only the decoded bytes OFF to OFF+LEN (K, M,
                         G suffixes; OFF: alone to the end; cut at the end),
                         read through the seek table, decoding only the
                         frames it touches (a file without one is scanned)

Input and output:
  -c, --stdout           write to standard output (also --to-stdout)
  -o FILE                write the output to FILE (also --output=FILE)
  -m, --multiple         every name is an input, each with its own output
  -r, --recursive        process the files in directories (implies -m)
      --exclude-compressed  skip files already compressed (.gz, .zst, .jpg...)
  -f, --force            overwrite existing files; read from a terminal;
                         with -dc, pass data that is not LZ4 through
  -k, --keep             keep the source files (default)
      --rm               remove each source after success
  -q, --quiet            no warnings, summary or progress; twice: no errors
  -v, --verbose          summary per file; twice: settings too
      --[no-]progress    progress line even when stderr is not a terminal
  -h                     this help; -H, --help: more details
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
      --no-crc           no checksums written; none verified when decoding
      --content-size     store the original size (files, and standard input
                         that is a file: < FILE)
      --no-content-size  do not store it (default)
  -l                     legacy format (Linux kernel)
      --seekable[=CHUNK]
                         independent frames of CHUNK bytes (default 1M; K,
                         M, G suffixes) and a seek table at the end, for
                         random access and parallel decoding; lz4 -d and
                         zstd -d read it (--zstd: zstd's seekable format)
      --filter=NAME      filter the input first, for columns of fixed-width
                         numbers: shuffle2, shuffle4, shuffle8 (byte
                         planes) or delta1, delta2, delta4, delta8
                         (differences); recorded in the output, undone by -d
  -D FILE                dictionary (compression and decompression; for zstd
                         frames, a zstd dictionary or raw content); -D stdin
                         reads it from standard input (the data then comes
                         from a named file), as lz4 does
      --memory=SIZE      largest zstd window to decode (default 128MiB; K, M,
                         G suffixes, binary: --memory=2GB)
  -T#, --threads=#       worker threads (default: LZ4_NBWORKERS, else all
                         cores; also for -d/-t of independent-block frames)

zstd compression (libzstd; decoding is lzkit's own):
      --format=FORMAT    lz4 (default) or zstd, written to FILE.zst
      --zstd             --format=zstd
  -#                     level 1 ... 19 (default 3); --fast=N: level -N
      --ultra            levels 20 ... 22
      --long[=#]         long-distance matching, window 2^# (default 27);
                         with -d, allow windows up to 2^# (as zstd -d)
      --no-check         no content checksum (also --no-frame-crc)
  The content size of files is stored (--no-content-size: not); -D takes a
  zstd dictionary or raw content; -T# sets libzstd's workers.

Benchmark (lz4's): -b# first level (default 1), -e# last level, -i# timed
rounds, -B# block size (4-7 or bytes; default: each file one block, as lz4);
one line per level: sizes, ratio, compression and decompression MB/s.
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// The rest of `-H`.
const LONG_HELP: &str = "
Details:
  Short options combine: -9fc is -9 -f -c, -B4DX is -B4 -BD -BX, -vd is -v -d.
  -B also takes a size in bytes of 32 or more, rounded up to 64 KiB..4 MiB;
  -B alone changes nothing, as in lz4.
  -Dfile and -D file are the same; so are -ofile and -o file. Options after
  -- are file names. --threads N is --threads=N.
  --sparse and --no-sparse are accepted and ignored.
  Invoked as unlz4 it decompresses; as lz4cat it is lzkit -dcfm.
  Invoked as zstd (a link named so) it takes zstd's meanings: every name is
  an input (-o names the output), -l lists, output is zstd (level 3) to
  FILE.zst; unzstd is zstd -d, zstdcat zstd -dcf, zstdmt zstd -T0. zstd's
  -B# (job size) and -b (its benchmark) are refused there.
  As lz4, the second name is the output: with -f, one that holds compressed
  data of another format, is named .lz4 or .zst for another format, or gets
  --zstd output under a name without .zst is refused (zstd's two inputs).
  Input of known size gets the smallest block size that holds it (-B is a
  maximum), as lz4 does.
  Without -z or -d, inputs named *.lz4 are decompressed and others
  compressed; inputs of both kinds in one run are an error (say -d or -z).
  With -r, directories are walked (symbolic links are not followed): files
  in them ending in .lz4 are skipped when compressing, others when
  decompressing.
  A single file prints a summary line, as lz4 does (not with -q, nor when
  writing to stdout); -v prints it for every file.
  -dcf copies input that does not start with an LZ4 or zstd magic number to
  stdout unchanged (lz4cat, zcat -f); garbage after frames is still an error.
  zstd input is decoded (-d, -t, -c, --list) by lzkit's own decoder and
  written with --zstd through libzstd; a file whose frames switch between
  LZ4 and zstd is an error. zstd levels above 19 without --ultra are 19,
  with a warning, as zstd does. -l (legacy) with --zstd is an error, and
  so are LZ4's block options (-B#, -BD, -BX) with --zstd and zstd's --ultra
  and --long without it. -d -r decompresses
  the files ending in .lz4 or .zst.
  --content-size reads files up to 16 MiB before compressing them, so that
  files in /proc and /sys, which report wrong sizes, store their real size.

Seekable files:
  --seekable writes each CHUNK of the input as a frame of its own (its size
  in the header) and ends the file with a seek table in a skippable frame:
  for --zstd, zstd's seekable format (contrib/seekable_format); for LZ4,
  lzkit's own; both hold a checksum of each chunk (XXH64's low 32 bits)
  unless --no-check (--no-frame-crc, --no-crc).
  Output is the same for any -T. lzkit index FILE adds a table to files
  made by lz4 or zstd. With a table, -d and -t decode the frames on all
  threads (-T1: one after another) and --range decodes only the frames it
  needs; a table that does not match the data is an error.

Filters:
  --filter=NAME writes a skippable frame (magic 0x184D2A54, content LZKF,
  version, filter name, checksum) before the first frame, and compresses
  the filtered input. lzkit -d reads the frame and undoes the filter; lz4 -d
  and zstd -d skip it and write the filtered bytes. A filter frame of an
  unknown version or with a damaged content is an error. Delta filters as
  the input comes; shuffle holds the whole input (and, with -d, the whole
  output) in memory. Not with --seekable, -l or recompress.

Safety:
  Output files are written under a temporary name in the same directory and
  renamed only when complete: on any error, Ctrl-C, SIGTERM or SIGHUP no
  partial output is left (an interrupt exits with status 130; a signal
  ignored when lzkit started, as under nohup, stays ignored); until then
  the file is readable by its owner only. Outputs get the permissions,
  times and, where permitted, the owner of their source; set-user-ID and
  set-group-ID bits only on decompressed files whose owner and group could
  be given, never on compressed files, and never the sticky bit. An
  existing file is never replaced without -f (a terminal is asked first).
  A character device or FIFO named as the output (/dev/null, a named pipe,
  /dev/stdout) is written into, never replaced (one that an output name
  made from the input's happens to be needs -f); a symbolic link is
  followed and its target replaced, never the link; a directory, block
  device or socket is refused. With -r, directories are opened without
  following links and each file is read, written next to and removed
  relative to its directory's handle, never through its path: a file
  whose directory changed since it was read (renamed, or swapped for a
  link) is skipped, and nothing outside the tree is read, written or
  removed. Compressed data is never written to
  a terminal without -c (or -f, for a terminal named as the output), nor
  read from one without -f.
  When stdout's reader goes away (lzkit -dc f | head), lzkit stops quietly
  with status 141, as lz4 and zstd killed by SIGPIPE; a closed stdout (also
  named as /dev/stdout) is an error, and so is a closed stdin.

Differences from lz4:
  lz4 1.9 writes to stdout when stdout is not a terminal and no output is
  named; lz4 1.10 and lzkit write FILE.lz4 (use -c for stdout), and use
  stdout implicitly only for stdin input. With -c, -t or -o, every name is
  an input. Errors exit with status 1, as one line: lzkit: FILE: problem.
  -i# counts timed rounds (lz4: seconds). lzkit decodes every block that
  lz4's decoder accepts but one: a match offset of 0, which the LZ4 block
  format declares invalid, is an error (lz4 writes zero bytes for it).

Examples:
  lzkit file                     compress to file.lz4
  lzkit -d file.lz4              decompress to file
  lzkit -9 -BD -c file > out     compress to stdout
  generator | lzkit | consumer   pipe mode
  lzkit -m -d *.lz4              decompress several files
  lzkit -r logs/                 compress every file under logs/
  lzkit -b1 -e9 file             compression benchmark of levels 1 to 9
";
