//! Carrying out the operation on each input.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io::{self, BufReader, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lzkit::lz4::Level;
use lzkit::lz4::frame::{
    BlockMode, DecodeOptions, FrameDecoder, FrameEncoder, FrameOptions, LEGACY_BLOCK_SIZE,
    effective_threads, list_frames,
};

use super::args::{MAX_THREADS, Mode, Options};
use super::list;
use super::output::{BUFFER_SIZE, Sink, Target};
use super::progress::{CountingReader, Progress};
use super::report::{Failure, PROGRAM, Reporter};

/// Suffix of compressed files.
const SUFFIX: &str = ".lz4";
/// The same, as a file-name extension.
const SUFFIX_EXT: &str = "lz4";
/// Only this much of the end of a dictionary file matters (the LZ4 window).
const DICT_WINDOW: u64 = 64 * 1024;
/// Environment variable with the default compression level.
const LEVEL_ENV: &str = "LZ4_CLEVEL";
/// Environment variable with the default number of worker threads.
const THREADS_ENV: &str = "LZ4_NBWORKERS";
/// Worker threads when neither `-T` nor the environment says: one per
/// core, as in lz4 1.10.
const DEFAULT_THREADS: usize = 0;

/// An input named on the command line.
enum Input {
    /// Standard input (`-`, `stdin`, or no file name).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    fn from_arg(arg: &OsStr) -> Input {
        if arg == "-" || arg == "stdin" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
        }
    }

    fn name(&self) -> String {
        match self {
            Input::Stdin => "stdin".into(),
            Input::File(p) => p.display().to_string(),
        }
    }
}

/// An opened input: the reader and, for files, their metadata.
struct Opened {
    reader: Box<dyn Read>,
    meta: Option<Metadata>,
}

/// Everything resolved once before the files are processed.
struct Job {
    opts: Options,
    rep: Reporter,
    frame: FrameOptions,
    dictionary: Option<Arc<[u8]>>,
    /// Worker threads (0 = one per core), for compression and for
    /// decoding independent-block frames.
    threads: usize,
}

/// What one successful operation did, for the summary line.
struct Done {
    read: u64,
    written: u64,
}

/// Run `opts`; returns whether every input succeeded.
pub fn run(opts: Options) -> bool {
    let rep = Reporter {
        level: opts.verbosity,
    };
    let files: Vec<OsString> = if opts.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        opts.files.clone()
    };

    // Which names are inputs, and whether the last one names the output.
    let all_inputs = matches!(opts.mode, Mode::Test | Mode::List) || opts.multiple || opts.stdout;
    let (inputs, explicit): (&[OsString], Option<Target>) = if all_inputs {
        (&files, None)
    } else {
        match files.len() {
            1 => (&files, None),
            2 => (&files[..1], Some(Target::from_arg(&files[1]))),
            n => {
                rep.error(format!(
                    "{n} file names given: use -m to process several files, or IN OUT for one"
                ));
                return false;
            }
        }
    };

    let mode = opts.mode;
    if mode == Mode::List {
        return list_all(inputs, &rep);
    }

    let job = match Job::new(opts, rep, mode) {
        Ok(job) => job,
        Err(f) => {
            rep.failure(&f);
            return false;
        }
    };

    if job.opts.remove_source
        && (mode == Mode::Test
            || job.opts.stdout
            || matches!(explicit, Some(Target::Stdout | Target::Null)))
    {
        rep.warn("--rm ignored: the source is only removed when the output is a file");
    }

    let mut ok = true;
    for arg in inputs {
        let input = Input::from_arg(arg);
        // lz4: "-d: decompression (default for .lz4 extension)". With -m,
        // lz4 always compresses unless told otherwise.
        let mode = match mode {
            Mode::Auto if !job.opts.multiple && has_suffix(arg) => Mode::Decompress,
            Mode::Auto => Mode::Compress,
            m => m,
        };
        if let Err(f) = job.process(&input, explicit.as_ref(), mode) {
            rep.failure(&f);
            ok = false;
        }
    }
    ok
}

/// Whether a file name ends in `.lz4` (a file named just `.lz4` does not).
fn has_suffix(name: &OsStr) -> bool {
    Path::new(name).extension() == Some(OsStr::new(SUFFIX_EXT))
}

impl Job {
    /// Resolve the level and load the dictionary.
    fn new(opts: Options, rep: Reporter, mode: Mode) -> Result<Job, Failure> {
        let level = opts.level.unwrap_or_else(|| level_from_env(&rep));
        let threads = opts.threads.unwrap_or_else(|| threads_from_env(&rep));
        let dictionary = match &opts.dictionary {
            Some(path) => Some(load_dictionary(path)?),
            None => None,
        };
        if opts.legacy && dictionary.is_some() && matches!(mode, Mode::Auto | Mode::Compress) {
            return Err(Failure::new(
                "-l",
                "the legacy format cannot be used with a dictionary (-D)",
            ));
        }
        // The rest from the defaults, so that options the library adds
        // later keep their default values here.
        let frame = FrameOptions::new()
            .level(level)
            .block_size(opts.block_size)
            // The legacy format has only independent blocks and no block
            // checksums: with -l, lz4 ignores -BD and -BX.
            .block_mode(if opts.legacy {
                BlockMode::Independent
            } else {
                opts.block_mode
            })
            .block_checksum(opts.block_checksum && !opts.legacy)
            .content_checksum(opts.content_checksum)
            .dictionary_opt(dictionary.clone())
            .legacy(opts.legacy)
            .favor_dec_speed(opts.favor_dec_speed)
            .threads(threads);
        Ok(Job {
            opts,
            rep,
            frame,
            dictionary,
            threads,
        })
    }

    /// Compress, decompress or test one input.
    fn process(&self, input: &Input, explicit: Option<&Target>, mode: Mode) -> Result<(), Failure> {
        let in_name = input.name();
        let target = self.target_for(input, explicit, mode)?;
        let out_name = target.display_name();

        if target == Target::Stdout && !self.opts.stdout && io::stdout().is_terminal() {
            return Err(Failure::new(
                "stdout",
                "refusing to write to a terminal; use -c to force",
            ));
        }

        let opened = self.open_input(input)?;
        let mut overwrite = self.opts.force;
        if let Target::File(out) = &target {
            overwrite = self.check_output(out, &opened, matches!(input, Input::Stdin))?;
        }

        // Pipes and devices named as files have no meaningful size, mode
        // or times to carry over.
        let regular = opened.meta.as_ref().filter(|m| m.is_file());
        let mut progress = Progress::new(
            self.rep.progress_allowed(),
            &in_name,
            regular.map(Metadata::len),
        );
        let sink = Sink::open(&target)?;
        let result = match mode {
            Mode::Compress => self.compress(
                opened.reader,
                regular,
                sink,
                &in_name,
                &out_name,
                &mut progress,
            ),
            _ => self.decompress(opened.reader, sink, &in_name, &out_name, &mut progress),
        };
        progress.finish();
        let (sink, read) = result?;
        let done = Done {
            read,
            written: sink.written(),
        };
        sink.finish(regular, overwrite)?;

        self.print_summary(mode, &done, &in_name, &out_name);
        // Test mode has no file target, so this covers -t as well.
        if self.opts.remove_source
            && let (Input::File(src), Target::File(_)) = (input, &target)
        {
            fs::remove_file(src).map_err(|e| {
                Failure::new(
                    &in_name,
                    format!("cannot remove source: {}", super::report::describe_io(&e)),
                )
            })?;
        }
        Ok(())
    }

    /// Where the output of `input` goes.
    fn target_for(
        &self,
        input: &Input,
        explicit: Option<&Target>,
        mode: Mode,
    ) -> Result<Target, Failure> {
        if mode == Mode::Test {
            return Ok(Target::Null);
        }
        if self.opts.stdout {
            return Ok(Target::Stdout);
        }
        if let Some(t) = explicit {
            return Ok(t.clone());
        }
        let Input::File(path) = input else {
            return Ok(Target::Stdout);
        };
        let name = path.as_os_str();
        if mode == Mode::Compress {
            let mut out = name.to_os_string();
            out.push(SUFFIX);
            return Ok(Target::File(PathBuf::from(out)));
        }
        if has_suffix(name) {
            return Ok(Target::File(path.with_extension("")));
        }
        Err(Failure::new(
            input.name(),
            "unknown suffix (expected .lz4), cannot choose an output name; use -c or give one",
        ))
    }

    /// Open an input, refusing a terminal (unless -f) and directories.
    fn open_input(&self, input: &Input) -> Result<Opened, Failure> {
        match input {
            Input::Stdin => {
                if io::stdin().is_terminal() && !self.opts.force {
                    return Err(Failure::new(
                        "stdin",
                        "refusing to read from a terminal; use -f to force",
                    ));
                }
                Ok(Opened {
                    reader: Box::new(io::stdin().lock()),
                    meta: None,
                })
            }
            Input::File(path) => {
                let name = input.name();
                let file = File::open(path).map_err(|e| Failure::io(&name, &e))?;
                let meta = file.metadata().map_err(|e| Failure::io(&name, &e))?;
                if meta.is_dir() {
                    return Err(Failure::new(name, "is a directory (-r is not supported)"));
                }
                Ok(Opened {
                    reader: Box::new(file),
                    meta: Some(meta),
                })
            }
        }
    }

    /// Check that `out` may be written: not the input itself, not a
    /// directory, and either absent or allowed to be replaced (-f, or a
    /// "y" at the prompt). Returns whether replacing is allowed.
    fn check_output(&self, out: &Path, input: &Opened, from_stdin: bool) -> Result<bool, Failure> {
        let name = out.display().to_string();
        let Ok(existing) = fs::metadata(out) else {
            return Ok(self.opts.force);
        };
        if existing.is_dir() {
            return Err(Failure::new(name, "is a directory"));
        }
        if input.meta.as_ref().is_some_and(|m| same_file(m, &existing)) {
            return Err(Failure::new(name, "is the input file itself"));
        }
        if self.opts.force || self.confirm_overwrite(&name, from_stdin) {
            return Ok(true);
        }
        Err(Failure::new(
            name,
            "already exists; not overwritten (use -f to overwrite)",
        ))
    }

    /// Ask on the terminal whether to overwrite. Only when both stdin and
    /// stderr are terminals and stdin is not the data: otherwise the answer
    /// is "no", so scripts never hang on a prompt.
    fn confirm_overwrite(&self, name: &str, from_stdin: bool) -> bool {
        if from_stdin
            || self.rep.level < 1
            || !io::stdin().is_terminal()
            || !io::stderr().is_terminal()
        {
            return false;
        }
        eprint!("{PROGRAM}: {name} already exists; overwrite (y/N)? ");
        let _ = io::stderr().flush();
        let mut answer = String::new();
        io::stdin().read_line(&mut answer).is_ok()
            && matches!(answer.trim_start().chars().next(), Some('y' | 'Y'))
    }

    /// Compress `reader` into `sink`. Returns the sink and the bytes read.
    fn compress(
        &self,
        mut reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        let mut frame = self.frame.clone();
        if self.opts.content_size && !frame.legacy {
            // Only a regular file's length is known in advance (lz4 also
            // ignores --content-size for pipes).
            frame.content_size = meta.map(Metadata::len);
            if frame.content_size.is_none() {
                self.rep
                    .detail(format!("{in_name}: size unknown, --content-size ignored"));
            }
        }
        self.rep.detail(describe_frame(in_name, &frame));

        // The encoder reports plain I/O errors for its writer (the output)
        // and lzkit errors for the data (for example a file that changed
        // size under --content-size, which is about the input).
        let encode_failure = |e: io::Error| match lzkit::Error::from_io(e) {
            lzkit::Error::Io(io) => Failure::io(out_name, &io),
            other => Failure::lzkit(in_name, other),
        };
        let mut encoder = FrameEncoder::new(sink, &frame);
        let mut buf = vec![0u8; BUFFER_SIZE];
        let mut total = 0u64;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::io(in_name, &e)),
            };
            encoder.write_all(&buf[..n]).map_err(encode_failure)?;
            total += n as u64;
            progress.set(total);
        }
        let sink = encoder.finish().map_err(encode_failure)?;
        Ok((sink, total))
    }

    /// Decode `reader` into `sink`. Returns the sink and the compressed bytes read.
    fn decompress(
        &self,
        reader: Box<dyn Read>,
        mut sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        let (counting, count) = CountingReader::new(reader);
        let buffered = BufReader::with_capacity(BUFFER_SIZE, counting);
        let mut decoder = FrameDecoder::with_options(
            buffered,
            &DecodeOptions::new()
                .threads(self.threads)
                .dictionary_opt(self.dictionary.clone()),
        );
        let mut buf = vec![0u8; BUFFER_SIZE];
        loop {
            let n = match decoder.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Decoder errors (corrupt data and read failures alike) are
                // about the input.
                Err(e) => return Err(Failure::lzkit(in_name, lzkit::Error::from_io(e))),
            };
            sink.write_all(&buf[..n])
                .map_err(|e| Failure::io(out_name, &e))?;
            progress.set(count.get());
        }
        Ok((sink, count.get()))
    }

    /// The `-v` line after a success.
    fn print_summary(&self, mode: Mode, done: &Done, in_name: &str, out_name: &str) {
        match mode {
            Mode::Compress => self.rep.summary(format!(
                "Compressed {} bytes into {} bytes ==> {:.2}% ({in_name} -> {out_name})",
                done.read,
                done.written,
                percent(done.written, done.read)
            )),
            Mode::Test => self.rep.summary(format!(
                "{in_name}: OK, decoded {} bytes from {} bytes",
                done.written, done.read
            )),
            _ => self.rep.summary(format!(
                "Decompressed {} bytes into {} bytes ({in_name} -> {out_name})",
                done.read, done.written
            )),
        }
    }
}

/// `part` as a percentage of `whole` (of 1 when `whole` is 0, as lz4 does,
/// so an empty input does not divide by zero).
fn percent(part: u64, whole: u64) -> f64 {
    part as f64 * 100.0 / whole.max(1) as f64
}

/// The `-vv` line describing the frame settings.
fn describe_frame(name: &str, f: &FrameOptions) -> String {
    let threads = effective_threads(f.threads);
    if f.legacy {
        return format!(
            "{name}: level {}, legacy format ({} MiB blocks), {threads} thread(s)",
            f.level,
            LEGACY_BLOCK_SIZE >> 20
        );
    }
    format!(
        "{name}: level {}, {threads} thread(s), {} KiB {} blocks, content checksum {}, block checksum {}, content size {}{}",
        f.level,
        f.block_size.bytes() >> 10,
        if f.block_mode == BlockMode::Linked {
            "linked"
        } else {
            "independent"
        },
        if f.content_checksum { "on" } else { "off" },
        if f.block_checksum { "on" } else { "off" },
        f.content_size
            .map_or_else(|| "not stored".to_string(), |s| s.to_string()),
        if f.dictionary.is_some() {
            ", with dictionary"
        } else {
            ""
        },
    )
}

/// The default level: `LZ4_CLEVEL` if it holds a valid level, else 1.
fn level_from_env(rep: &Reporter) -> Level {
    let Some(value) = std::env::var_os(LEVEL_ENV) else {
        return Level::DEFAULT;
    };
    match value.to_str().and_then(|v| v.trim().parse::<u32>().ok()) {
        Some(n) => Level::saturating(u64::from(n)),
        None => {
            rep.warn(format!(
                "ignoring {LEVEL_ENV}={}: not a valid level",
                value.to_string_lossy()
            ));
            Level::DEFAULT
        }
    }
}

/// The default thread count: `LZ4_NBWORKERS` if it holds a valid number
/// (clamped to the maximum, as lz4 does), else one per core.
fn threads_from_env(rep: &Reporter) -> usize {
    let Some(value) = std::env::var_os(THREADS_ENV) else {
        return DEFAULT_THREADS;
    };
    match value.to_str().and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(n) => usize::try_from(n).map_or(MAX_THREADS, |n| n.min(MAX_THREADS)),
        None => {
            rep.warn(format!(
                "ignoring {THREADS_ENV}={}: not a valid number of threads",
                value.to_string_lossy()
            ));
            DEFAULT_THREADS
        }
    }
}

/// Read the last 64 KiB of a dictionary file (all an LZ4 match can reach).
fn load_dictionary(path: &Path) -> Result<Arc<[u8]>, Failure> {
    let name = path.display().to_string();
    let fail = |e: io::Error| {
        Failure::new(
            &name,
            format!("cannot read dictionary: {}", super::report::describe_io(&e)),
        )
    };
    let mut file = File::open(path).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    if len > DICT_WINDOW {
        file.seek(SeekFrom::Start(len - DICT_WINDOW))
            .map_err(fail)?;
    }
    let mut dict = Vec::with_capacity(len.min(DICT_WINDOW) as usize);
    file.take(DICT_WINDOW)
        .read_to_end(&mut dict)
        .map_err(fail)?;
    Ok(dict.into())
}

/// Whether two metadata describe the same file.
#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether two metadata describe the same file (no inode numbers here:
/// never claim so rather than refuse valid work).
#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}

/// `--list`: one line per file (or a table per file with `-v`).
fn list_all(inputs: &[OsString], rep: &Reporter) -> bool {
    let mut ok = true;
    let mut header_done = false;
    let stdout = io::stdout();
    for arg in inputs {
        let input = Input::from_arg(arg);
        let name = input.name();
        let frames = match &input {
            Input::Stdin if io::stdin().is_terminal() => {
                let f = Failure::new(&name, "refusing to read from a terminal");
                rep.failure(&f);
                ok = false;
                continue;
            }
            Input::Stdin => list_frames(BufReader::with_capacity(BUFFER_SIZE, io::stdin().lock())),
            Input::File(path) => match File::open(path) {
                Ok(f) => list_frames(BufReader::with_capacity(BUFFER_SIZE, f)),
                Err(e) => Err(lzkit::Error::Io(e)),
            },
        };
        let frames = match frames {
            Ok(frames) => frames,
            Err(e) => {
                rep.failure(&Failure::lzkit(&name, e));
                ok = false;
                continue;
            }
        };
        let mut text = String::new();
        if rep.level >= 3 {
            text.push_str(&list::detailed(&name, &frames));
        } else {
            if !header_done {
                text.push_str(&list::summary_header());
                text.push('\n');
                header_done = true;
            }
            text.push_str(&list::summary_line(&name, &frames));
            text.push('\n');
        }
        if let Err(e) = stdout.lock().write_all(text.as_bytes()) {
            rep.failure(&Failure::io("stdout", &e));
            return false;
        }
    }
    ok
}
