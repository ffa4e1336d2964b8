//! `lzkit recompress`: decode LZ4, zstd, gzip, zlib, xz or LZMA input and
//! write LZ4 or zstd, in one pipeline ([`lzkit::recompress`]), with the
//! file handling of the lz4-style interface (atomic outputs, `-f`, `--rm`
//! after success only, `-r`, `-c`, `-o`, progress, summaries).

use std::ffi::OsString;
use std::process::ExitCode;

use lzkit::format::Codec;

use super::args::{self, Command, Mode};
use super::report::{PROGRAM, eprint_line};
use super::run;

/// Run `lzkit recompress ARGS`.
pub fn main(argv: Vec<OsString>) -> ExitCode {
    match parse(argv) {
        Ok(Some(opts)) => match run::run(opts) {
            run::Outcome::Success => ExitCode::SUCCESS,
            run::Outcome::Failure => ExitCode::FAILURE,
            run::Outcome::BrokenPipe => ExitCode::from(super::BROKEN_PIPE_STATUS),
        },
        Ok(None) => {
            let _ = std::io::Write::write_all(&mut std::io::stdout(), HELP.as_bytes());
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprint_line(format_args!("{PROGRAM} recompress: {msg}"));
            eprint_line(format_args!("Try '{PROGRAM} recompress -h' for help."));
            ExitCode::FAILURE
        }
    }
}

/// The options of `recompress ARGS`: `--to FORMAT` and `--verify` are its
/// own; everything else is the lz4-style interface's. `None`: print help.
fn parse(argv: Vec<OsString>) -> Result<Option<args::Options>, String> {
    let mut rest = Vec::with_capacity(argv.len());
    let mut to = None;
    let mut verify = false;
    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            rest.push(arg);
            rest.extend(it.by_ref());
            break;
        }
        match arg.to_str() {
            Some("--to") => {
                let v = it
                    .next()
                    .ok_or("--to needs a format: --to lz4 or --to zstd")?;
                to = Some(Codec::from_name(&v.to_string_lossy()).map_err(|e| e.to_string())?);
            }
            Some(a) if a.starts_with("--to=") => {
                to = Some(Codec::from_name(&a[5..]).map_err(|e| e.to_string())?)
            }
            Some("--verify") => verify = true,
            Some("-h" | "--help" | "-H") => return Ok(None),
            _ => rest.push(arg),
        }
    }
    let mut opts = match args::parse(rest, args::Options::default())? {
        Command::Run(opts) => *opts,
        Command::Help | Command::LongHelp => return Ok(None),
        Command::Version => return Err("-V is not an option of recompress".into()),
    };
    if opts.mode != Mode::Auto {
        return Err("-z, -d, -t and --list are not options of recompress".into());
    }
    if opts.dictionary.is_some() {
        return Err(
            "-D is not an option of recompress (dictionaries are not supported there)".into(),
        );
    }
    if opts.legacy {
        return Err(
            "-l is not an option of recompress (the legacy format is for the Linux kernel)".into(),
        );
    }
    // `--zstd` / `--format=zstd` say it too.
    opts.format = match to {
        Some(to) => to,
        None if opts.format == Codec::Zstd => Codec::Zstd,
        None => return Err("say what to write: --to lz4 or --to zstd".into()),
    };
    opts.mode = Mode::Recompress;
    opts.verify = verify;
    Ok(Some(opts))
}

/// `lzkit recompress -h`.
const HELP: &str = "\
Usage: lzkit recompress --to lz4|zstd [OPTIONS] INPUT... [-o OUTPUT]

Decode each INPUT (LZ4, zstd, gzip, zlib, xz or LZMA, told by its first
bytes) and compress its content to LZ4 or zstd in one pass: a thread
decodes while the encoder compresses on all threads and writes in order,
in bounded memory whatever the input's size. The content's XXH64 is
computed on the way; --verify decodes the output again as it is written
and fails unless it holds exactly the same bytes.

gzip input may hold several members, as gzip -d reads them; zero bytes
after the last one (tar's padding) are ignored with a warning, and
anything else after it is an error (trailing garbage).

When every input is a file of at most 8 MiB, several are recompressed at a
time, one thread each; otherwise one after another, each on all threads.
In directories (-r), files already in the target format are skipped.

Output names: INPUT without its .lz4/.zst/.gz/.tgz/.xz/.lzma/.zz suffix,
plus .lz4 or .zst (x.gz -> x.zst). The input itself is never replaced (an
output name equal to it is an error: name another with -o).

Options:
      --to FORMAT        lz4 or zstd (required)
      --verify           decode the output again and compare
  -#                     level (LZ4: 1-12, --fast=N; zstd: 1-19, --ultra
                         -20..-22, --fast=N; default 1 for LZ4, 3 for zstd)
  -T#                    threads (default: all cores): LZ4 encoding,
                         libzstd workers; small files several at a time
  -B4..-B7, -BD, -BX     LZ4 block size, linked blocks, block checksums
      --no-frame-crc     no content checksum (zstd: --no-check)
      --long[=#]         zstd long-distance matching, window 2^#
      --memory=SIZE      largest zstd window accepted from the input
      --seekable[=CHUNK] a seekable file: frames of CHUNK bytes (default
                         1M) and a seek table (lzkit -H: Seekable files)
  -o FILE, -c            output file; standard output
  -m, -r                 several inputs; directories (compressed files in
                         them)
  -f, --rm, -k           overwrite; remove each input after success; keep
  -q, -v, --[no-]progress  as in lzkit -h

Examples:
  lzkit recompress --to lz4 -9 -T2 data.zst        data.zst -> data.lz4
  lzkit recompress --to zstd -19 --verify tree.gz  tree.gz -> tree.zst
  lzkit recompress --to zstd -r --rm logs/         every compressed file
";

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Option<args::Options>, String> {
        parse(args.iter().map(OsString::from).collect())
    }

    #[test]
    fn options() {
        let o = parsed(&["--to", "zstd", "-19", "--verify", "x.gz"])
            .unwrap()
            .unwrap();
        assert_eq!(
            (o.format, o.mode, o.verify),
            (Codec::Zstd, Mode::Recompress, true)
        );
        assert_eq!(o.zstd_level, Some(19));
        assert_eq!(o.files, vec![OsString::from("x.gz")]);
        let o = parsed(&["--to=lz4", "-9T2", "-o", "y", "x"])
            .unwrap()
            .unwrap();
        assert_eq!(
            (o.format, o.threads, o.verify),
            (Codec::Lz4, Some(2), false)
        );
        assert!(parsed(&["-h"]).unwrap().is_none());
        let o = parsed(&["--zstd", "-9", "x.gz"]).unwrap().unwrap();
        assert_eq!(o.format, Codec::Zstd);
        let o = parsed(&["--to", "lz4", "--", "--verify"]).unwrap().unwrap();
        assert_eq!((o.verify, o.files.len()), (false, 1));
        for bad in [
            &["x"][..],
            &["--to", "gzip", "x"],
            &["--to"],
            &["--to", "lz4", "-d", "x"],
            &["--to", "lz4", "-D", "d", "x"],
            &["--to", "lz4", "-l", "x"],
        ] {
            assert!(parsed(bad).is_err(), "{bad:?}");
        }
    }
}
