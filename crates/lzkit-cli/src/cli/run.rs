//! Carrying out the operation on each input.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io::{self, BufReader, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use lzkit::lz4::Level;
use lzkit::lz4::frame::{
    BlockMode, DecodeOptions, FrameDecoder, FrameEncoder, FrameOptions, LEGACY_BLOCK_SIZE,
    effective_threads, list_frames,
};

use super::args::{MAX_THREADS, Mode, Options, OutFormat};
use super::formats::{self, Format};
use super::list;
use super::output::{self, BUFFER_SIZE, Existing, Placement, Sink, Target};
use super::progress::{CountingReader, Progress, ProgressChoice};
use super::report::{Failure, PROGRAM, Reporter, eprint_text};
#[cfg(unix)]
use super::walk;

/// Suffix of compressed files.
const SUFFIX: &str = ".lz4";
/// The same, as a file-name extension.
const SUFFIX_EXT: &str = "lz4";
/// Extension of zstd files, also stripped when decompressing (zstd input is
/// told by its magic number, whatever its name).
const ZSTD_EXT: &str = "zst";
/// Suffix of files compressed with `--format=zstd`.
const ZSTD_SUFFIX: &str = ".zst";
/// Only this much of the end of a dictionary file matters (the LZ4 window).
const DICT_WINDOW: u64 = 64 * 1024;
/// `--content-size`: regular files up to this size are read into memory
/// first, so that the size stored is the size read (files in `/proc` and
/// `/sys` report sizes of 0 or 4096); larger files are trusted.
const CONTENT_SIZE_BUFFER: u64 = 16 << 20;
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
    reader: Box<dyn Read + Send>,
    meta: Option<Metadata>,
    /// The file itself, for positional reads through a seek table.
    file: Option<File>,
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
    /// One input and no `-m`: the summary line is shown at the default
    /// verbosity, as `lz4` shows it.
    single: bool,
    /// `--memory` as a zstd window log.
    window_log_max: u32,
    /// The whole `-D` file, read when the first zstd input needs it (LZ4
    /// reads only its last 64 KiB); an error is the message to report.
    zstd_dictionary: OnceLock<Result<Arc<[u8]>, String>>,
    /// zstd compression settings, with `--format=zstd` (the dictionary and
    /// content size are added per input).
    zstd: Option<lzkit::zstd::EncodeOptions>,
}

/// What one successful operation did, for the summary line.
struct Done {
    read: u64,
    written: u64,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every input succeeded.
    Success,
    /// At least one input failed (each failure was reported).
    Failure,
    /// Standard output was a pipe whose reader went away: the run stopped
    /// quietly, as `lz4` and `zstd` do.
    BrokenPipe,
}

/// Run `opts`.
pub fn run(opts: Options) -> Outcome {
    let rep = Reporter {
        level: opts.verbosity,
    };
    let files: Vec<OsString> = if opts.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        opts.files.clone()
    };

    // Which names are inputs, and whether the last one names the output.
    let all_inputs = matches!(opts.mode, Mode::Test | Mode::List)
        || opts.personality == super::args::Personality::Zstd
        || opts.multiple
        || opts.stdout
        || opts.output.is_some();
    let (named, explicit): (&[OsString], Option<Target>) = if all_inputs {
        (&files, opts.output.as_deref().map(Target::from_arg))
    } else {
        match files.len() {
            1 => (&files, None),
            2 => (&files[..1], Some(Target::from_arg(&files[1]))),
            n => {
                rep.error(format!(
                    "{n} file names given: use -m to process several files, or IN OUT for one"
                ));
                return Outcome::Failure;
            }
        }
    };
    if opts.output.is_some() && opts.stdout {
        rep.error("-c and -o both name the output: give one");
        return Outcome::Failure;
    }

    let mode = opts.mode;
    if mode == Mode::List {
        return outcome(list_all(named, &rep));
    }

    let (inputs, walk_ok) = collect_inputs(named, &opts, &rep);
    if opts.output.is_some() && inputs.len() > 1 {
        rep.error(format!(
            "-o names one output, but there are {} inputs (use -m or -r without -o)",
            inputs.len()
        ));
        return Outcome::Failure;
    }
    let mode = match resolve_auto_mode(mode, &inputs, opts.recursive) {
        Ok(mode) => mode,
        Err(msg) => {
            rep.error(msg);
            return Outcome::Failure;
        }
    };
    // `IN OUT` where OUT reads as a second input that -f would destroy.
    if !all_inputs
        && files.len() == 2
        && let Err(msg) = super::personality::check_operand_output(&opts, mode, &files[1])
    {
        rep.error(msg);
        return Outcome::Failure;
    }

    let single = !opts.multiple && inputs.len() == 1;
    let job = match Job::new(opts, rep, mode, single) {
        Ok(job) => job,
        Err(f) => {
            rep.failure(&f);
            return Outcome::Failure;
        }
    };

    if job.opts.remove_source
        && (mode == Mode::Test
            || job.opts.stdout
            || matches!(explicit, Some(Target::Stdout | Target::Null)))
    {
        rep.warn("--rm ignored: the source is only removed when the output is a file");
    }

    let mut ok = walk_ok;
    let mut skipped = 0;
    let workers = job.file_workers(&inputs, mode);
    if workers > 1 {
        // Small files several at a time, each on one thread, no progress
        // lines (they would interleave); summaries come as files finish.
        let mut opts = job.opts.clone();
        opts.threads = Some(1);
        opts.progress = Some(false);
        // The level as resolved (and warned about) already.
        opts.zstd_level = job.zstd.as_ref().map(|z| z.get_level());
        let small = match Job::new(opts, rep, mode, single) {
            Ok(small) => small,
            Err(f) => {
                rep.failure(&f);
                return Outcome::Failure;
            }
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<Step> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut steps = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(found) = inputs.get(i) else {
                                return steps;
                            };
                            steps.push(small.step(found, explicit.as_ref(), mode));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for step in results {
            match step {
                Step::Done => {}
                Step::Skipped => skipped += 1,
                Step::Failed => ok = false,
                Step::BrokenPipe => return Outcome::BrokenPipe,
            }
        }
    } else {
        for found in &inputs {
            match job.step(found, explicit.as_ref(), mode) {
                Step::Done => {}
                Step::Skipped => skipped += 1,
                Step::Failed => ok = false,
                Step::BrokenPipe => return Outcome::BrokenPipe,
            }
        }
    }
    if skipped > 0 && skipped == inputs.len() {
        rep.warn(format!(
            "nothing to do: all {skipped} files were skipped (-v lists them; -d decompresses .lz4 files)"
        ));
    }
    outcome(ok)
}

/// What became of one input.
enum Step {
    Done,
    /// Skipped, as [`Job::skip_reason`] says (reported).
    Skipped,
    /// Failed (reported).
    Failed,
    /// Standard output's reader went away: stop quietly.
    BrokenPipe,
}

/// Files up to this size are recompressed several at a time, each on one
/// thread, when there are several: one small file cannot keep many threads
/// busy (LZ4 and zstd encoders split their input into jobs of 4 to 8 MiB).
const SMALL_FILE: u64 = 8 << 20;

fn outcome(ok: bool) -> Outcome {
    if ok {
        Outcome::Success
    } else {
        Outcome::Failure
    }
}

/// An input to process: named on the command line, or found by `-r` in a
/// directory that was.
struct Found {
    input: Input,
    /// Found inside a directory (`-r`) rather than named: files of the
    /// other kind (compressed or not) are then skipped, not refused.
    in_directory: bool,
    /// The file the walk saw (device and inode): the one opened, and the
    /// one removed by `--rm`, must be that file, not one that a renamed
    /// directory or a symbolic link put at its path meanwhile.
    seen: Option<(u64, u64)>,
    /// Found by `-r`: its directory and its name there. The file is opened,
    /// written next to and removed relative to that directory's handle
    /// (see [`walk`](super::walk)), never through its path.
    #[cfg(unix)]
    at: Option<(Arc<walk::DirRef>, OsString)>,
}

impl Found {
    fn name(&self) -> String {
        self.input.name()
    }
}

/// The inputs named on the command line, with directories expanded when
/// `-r` was given (in name order; symbolic links are not followed, so a
/// link cannot make the walk loop or leave the tree, and each file found
/// is checked to be the same file when it is opened and removed). Returns
/// them, and whether the walk met no error.
fn collect_inputs(named: &[OsString], opts: &Options, rep: &Reporter) -> (Vec<Found>, bool) {
    let mut found = Vec::new();
    let mut ok = true;
    for arg in named {
        let input = Input::from_arg(arg);
        if opts.recursive
            && let Input::File(path) = &input
            && fs::metadata(path).is_ok_and(|m| m.is_dir())
        {
            ok &= walk(path, &mut found, rep);
            continue;
        }
        found.push(Found {
            input,
            in_directory: false,
            seen: None,
            #[cfg(unix)]
            at: None,
        });
    }
    (found, ok)
}

/// Add the regular files under `dir` to `found`, recursively, walking by
/// directory handles (see [`walk`](super::walk)). Returns whether every
/// directory could be read.
#[cfg(unix)]
fn walk(dir: &Path, found: &mut Vec<Found>, rep: &Reporter) -> bool {
    let mut ok = true;
    walk::walk(dir, &mut |event| match event {
        walk::Event::File(file) => found.push(Found {
            input: Input::File(file.path),
            in_directory: true,
            seen: Some(file.id),
            at: Some((file.dir, file.name)),
        }),
        walk::Event::Other(path) => rep.summary(format!(
            "{}: not a regular file (links are not followed with -r) -- ignored",
            path.display()
        )),
        walk::Event::Error(path, e) => {
            rep.failure(&Failure::io(path.display().to_string(), &e));
            ok = false;
        }
    });
    ok
}

/// Add the regular files under `dir` to `found`, recursively. Returns
/// whether every directory could be read.
#[cfg(not(unix))]
fn walk(dir: &Path, found: &mut Vec<Found>, rep: &Reporter) -> bool {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            rep.failure(&Failure::io(dir.display().to_string(), &e));
            return false;
        }
    };
    let mut ok = true;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            ok &= walk(&path, found, rep);
        } else if meta.is_file() {
            found.push(Found {
                input: Input::File(path),
                in_directory: true,
                seen: identity(&meta),
            });
        } else {
            rep.summary(format!(
                "{}: not a regular file (links are not followed with -r) -- ignored",
                path.display()
            ));
        }
    }
    ok
}

/// The directory of a file found by `-r`, opened again (see
/// [`walk::DirRef::open`]); `name` is the file's, for messages.
#[cfg(unix)]
fn held_directory(dir: &walk::DirRef, name: &str) -> Result<Arc<std::os::fd::OwnedFd>, Failure> {
    dir.open().map_err(|e| {
        let changed = e.kind() == io::ErrorKind::Other
            || matches!(
                e.raw_os_error(),
                Some(libc::ELOOP | libc::ENOTDIR | libc::ENOENT)
            );
        if changed {
            Failure::new(
                name,
                "its directory changed since it was read (renamed, or a link put in its place); skipped",
            )
        } else {
            Failure::io(dir.path().display().to_string(), &e)
        }
    })
}

/// Open the file `name` found by `-r` in the directory `dir`, never
/// through a link.
#[cfg(unix)]
fn open_found(dir: &std::os::fd::OwnedFd, name: &OsStr, shown: &str) -> Result<Opened, Failure> {
    let file = walk::open_file(dir, name).map_err(|e| {
        if e.kind() == io::ErrorKind::Other || e.raw_os_error() == Some(libc::ELOOP) {
            Failure::new(
                shown,
                "changed since the directory was read (no longer a regular file); skipped",
            )
        } else {
            Failure::io(shown, &e)
        }
    })?;
    let meta = file.metadata().map_err(|e| Failure::io(shown, &e))?;
    Ok(Opened {
        file: file.try_clone().ok(),
        reader: Box::new(file),
        meta: Some(meta),
    })
}

/// For an input found by `-r` whose output `out` is in the same directory
/// (the output name made from the input's): the directory's handle and
/// the output's name in it.
#[cfg(unix)]
fn same_directory<'a>(
    held: &'a Option<(Arc<std::os::fd::OwnedFd>, &OsStr)>,
    input: &Input,
    out: &'a Path,
) -> Option<(&'a Arc<std::os::fd::OwnedFd>, &'a OsStr)> {
    let (dir, _) = held.as_ref()?;
    let Input::File(src) = input else {
        return None;
    };
    let name = out.file_name()?;
    (out.parent() == src.parent()).then_some((dir, name))
}

/// Standard input's metadata when it is a regular file (`< FILE`).
fn stdin_file_metadata() -> Option<Metadata> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        let mut file = File::from(fd);
        // Only from its start: `(head -c 10; lzkit) < FILE` has less left.
        if file.stream_position().ok()? != 0 {
            return None;
        }
        file.metadata().ok().filter(Metadata::is_file)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A file's device and inode, where the platform has them.
fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The operation when none was given (`-z`/`-d`): decompress `.lz4`
/// inputs, compress the others, as `lz4` decides from the extension. The
/// named inputs must agree, so that one run never mixes plaintext and
/// frames in one stream (`-c a.lz4 b.txt`) or surprises with half its
/// files; files found by `-r` inside directories are compressed (their
/// `.lz4` files are then skipped).
fn resolve_auto_mode(mode: Mode, inputs: &[Found], recursive: bool) -> Result<Mode, String> {
    if mode != Mode::Auto {
        return Ok(mode);
    }
    let named: Vec<&Found> = inputs.iter().filter(|f| !f.in_directory).collect();
    let compressed: Vec<String> = named
        .iter()
        .filter(|f| matches!(&f.input, Input::File(p) if has_suffix(p.as_os_str())))
        .map(|f| f.name())
        .collect();
    if compressed.is_empty() || (recursive && named.len() < inputs.len()) {
        if !compressed.is_empty() {
            return Err(format!(
                "{} ends in {SUFFIX} but directories given with -r are compressed; use -d to decompress, -z to compress everything",
                compressed[0]
            ));
        }
        return Ok(Mode::Compress);
    }
    if compressed.len() == named.len() {
        return Ok(Mode::Decompress);
    }
    let plain = named
        .iter()
        .map(|f| f.name())
        .find(|n| !compressed.contains(n))
        .unwrap_or_default();
    Err(format!(
        "mixed inputs: {} ends in {SUFFIX} (decompress) but {plain} does not (compress); say which with -d or -z",
        compressed[0]
    ))
}

/// Suffixes `recompress` strips from an input's name before adding the
/// output's (`.tgz` and `.txz` keep a `.tar`).
const RECOMPRESSED_SUFFIXES: &[(&str, &str)] = &[
    ("lz4", ""),
    ("zst", ""),
    ("gz", ""),
    ("xz", ""),
    ("lzma", ""),
    ("zz", ""),
    ("tgz", ".tar"),
    ("txz", ".tar"),
    ("tzst", ".tar"),
];

/// `path` without its compressed suffix (see [`RECOMPRESSED_SUFFIXES`]),
/// or `None` if it has none.
fn recompressed_stem(path: &Path) -> Option<OsString> {
    let ext = path.extension()?.to_str()?;
    let (_, tail) = RECOMPRESSED_SUFFIXES
        .iter()
        .find(|(e, _)| e.eq_ignore_ascii_case(ext))?;
    let mut stem = path.with_extension("").into_os_string();
    stem.push(tail);
    Some(stem)
}

/// Whether a file name ends in `.lz4` (a file named just `.lz4` does not).
fn has_suffix(name: &OsStr) -> bool {
    Path::new(name).extension() == Some(OsStr::new(SUFFIX_EXT))
}

/// Whether a file name ends in `.lz4` or `.zst`: a name that decompressing
/// strips.
fn has_decoded_suffix(name: &OsStr) -> bool {
    has_suffix(name) || Path::new(name).extension() == Some(OsStr::new(ZSTD_EXT))
}

/// Extensions of files that are already compressed (archives, media,
/// office documents), which `--exclude-compressed` skips when compressing.
const COMPRESSED_EXTENSIONS: &[&str] = &[
    "lz4", "tlz4", "zst", "tzst", "gz", "tgz", "bz2", "tbz", "tbz2", "xz", "txz", "lzma", "lz",
    "tlz", "lzo", "sz", "br", "zip", "zipx", "7z", "rar", "cab", "jar", "war", "apk", "deb", "rpm",
    "dmg", "jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "jxl", "mp3", "mp4", "m4a", "m4v",
    "aac", "ogg", "oga", "ogv", "opus", "flac", "mkv", "webm", "mov", "avi", "wmv", "wma", "docx",
    "xlsx", "pptx", "odt", "ods", "odp", "epub", "woff", "woff2",
];

/// Whether `path`'s extension names a compressed format.
fn looks_compressed(path: &Path) -> bool {
    path.extension().and_then(OsStr::to_str).is_some_and(|ext| {
        COMPRESSED_EXTENSIONS
            .iter()
            .any(|c| c.eq_ignore_ascii_case(ext))
    })
}

impl Job {
    /// Resolve the level and load the dictionary.
    fn new(opts: Options, rep: Reporter, mode: Mode, single: bool) -> Result<Job, Failure> {
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
        let compressing = matches!(mode, Mode::Auto | Mode::Compress | Mode::Recompress);
        if compressing {
            check_format_options(&opts)?;
        }
        if opts.seekable.is_some() && !matches!(mode, Mode::Compress | Mode::Recompress) {
            return Err(Failure::new(
                "--seekable",
                "writes compressed files: use it when compressing (-z)",
            ));
        }
        if opts.range.is_some() && !matches!(mode, Mode::Decompress | Mode::Test) {
            return Err(Failure::new(
                "--range",
                "selects decoded bytes: use it with -d (lzkit -d -c --range=OFFSET:LENGTH FILE)",
            ));
        }
        let zstd = match opts.format {
            OutFormat::Zstd => Some(zstd_options(&opts, threads, &rep)?),
            OutFormat::Lz4 => None,
        };
        Ok(Job {
            // zstd -d --long=N allows windows of 2^N, as --memory does.
            window_log_max: match (opts.memory, opts.long) {
                (None, Some(log)) if !compressing => log.max(formats::window_log_max(None)),
                (memory, _) => formats::window_log_max(memory),
            },
            zstd,
            opts,
            rep,
            frame,
            dictionary,
            threads,
            single,
            zstd_dictionary: OnceLock::new(),
        })
    }

    /// The output name `recompress` gives `path`: without its compressed
    /// suffix, plus the target's.
    fn recompressed_name(&self, path: &Path) -> PathBuf {
        let mut out = recompressed_stem(path).unwrap_or_else(|| path.as_os_str().to_os_string());
        out.push(match self.opts.format {
            OutFormat::Lz4 => SUFFIX,
            OutFormat::Zstd => ZSTD_SUFFIX,
        });
        PathBuf::from(out)
    }

    /// Process one input, reporting what became of it.
    fn step(&self, found: &Found, explicit: Option<&Target>, mode: Mode) -> Step {
        if let Some(why) = self.skip_reason(found, mode) {
            self.rep
                .summary(format!("{}: {why} -- ignored", found.name()));
            return Step::Skipped;
        }
        match self.process(found, explicit, mode) {
            Ok(()) => Step::Done,
            Err(f) if f.broken_pipe => Step::BrokenPipe,
            Err(f) => {
                self.rep.failure(&f);
                Step::Failed
            }
        }
    }

    /// How many inputs to process at a time: with `recompress`, several
    /// regular files of at most [`SMALL_FILE`] bytes each, written to
    /// files, go one per thread; anything else one after another.
    fn file_workers(&self, inputs: &[Found], mode: Mode) -> usize {
        // Not with a terminal to ask questions on (overwrite prompts
        // would interleave), nor onto standard output.
        let may_ask = !self.opts.force && io::stdin().is_terminal();
        if mode != Mode::Recompress || inputs.len() < 2 || self.opts.stdout || may_ask {
            return 1;
        }
        let small = |f: &Found| match &f.input {
            Input::File(p) => fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= SMALL_FILE),
            Input::Stdin => false,
        };
        if !inputs.iter().all(small) {
            return 1;
        }
        effective_threads(self.threads).min(inputs.len())
    }

    /// Why `found` is skipped rather than processed, if it is: files of the
    /// wrong kind inside a directory walked by `-r`, and compressed formats
    /// with `--exclude-compressed`.
    fn skip_reason(&self, found: &Found, mode: Mode) -> Option<&'static str> {
        let Input::File(path) = &found.input else {
            return None;
        };
        let compressed = match self.opts.format {
            OutFormat::Lz4 => has_suffix(path.as_os_str()),
            OutFormat::Zstd => Path::new(path).extension() == Some(OsStr::new(ZSTD_EXT)),
        };
        match mode {
            Mode::Compress if found.in_directory && compressed => Some(match self.opts.format {
                OutFormat::Lz4 => "already has the .lz4 suffix",
                OutFormat::Zstd => "already has the .zst suffix",
            }),
            Mode::Compress if self.opts.exclude_compressed && looks_compressed(path) => {
                Some("already compressed (--exclude-compressed)")
            }
            Mode::Decompress | Mode::Test
                if found.in_directory && !has_decoded_suffix(path.as_os_str()) =>
            {
                Some("does not end in .lz4 or .zst")
            }
            Mode::Recompress if found.in_directory && recompressed_stem(path).is_none() => {
                Some("does not end in a compressed suffix (.lz4, .zst, .gz, .xz, ...)")
            }
            Mode::Recompress if found.in_directory && self.recompressed_name(path) == *path => {
                Some("already in the target format (its output would replace it; use -o)")
            }
            _ => None,
        }
    }

    /// Compress, decompress or test one input.
    fn process(&self, found: &Found, explicit: Option<&Target>, mode: Mode) -> Result<(), Failure> {
        let input = &found.input;
        let in_name = input.name();
        let target = self.target_for(input, explicit, mode)?;
        let out_name = target.display_name();

        if target == Target::Stdout && !self.opts.stdout && io::stdout().is_terminal() {
            return Err(Failure::new(
                "stdout",
                "refusing to write to a terminal; use -c to force",
            ));
        }

        // A file found by -r: its directory, opened again without
        // following links and checked to be the one the walk listed.
        #[cfg(unix)]
        let held = match &found.at {
            Some((dir, name)) => Some((held_directory(dir, &in_name)?, name.as_os_str())),
            None => None,
        };
        #[cfg(unix)]
        let opened = match &held {
            Some((dir, name)) => open_found(dir, name, &in_name)?,
            None => self.open_input(input)?,
        };
        #[cfg(not(unix))]
        let opened = self.open_input(input)?;
        if found.seen.is_some() && opened.meta.as_ref().and_then(identity) != found.seen {
            return Err(Failure::new(
                in_name,
                "changed since the directory was read (renamed, or a link put in its path); skipped",
            ));
        }
        let placement = match &target {
            #[cfg(unix)]
            Target::File(out) if let Some((dir, out_name)) = same_directory(&held, input, out) => {
                Some(self.check_output_in(dir, out_name, out, &opened)?)
            }
            Target::File(out) => Some(self.check_output(
                out,
                &opened,
                matches!(input, Input::Stdin),
                explicit.is_some(),
            )?),
            _ => None,
        };

        // Pipes and devices named as files have no meaningful size, mode
        // or times to carry over.
        let opened_identity = opened.meta.as_ref().and_then(identity);
        let regular = opened.meta.as_ref().filter(|m| m.is_file());
        let mut progress = Progress::new(
            self.progress_shown(),
            &in_name,
            regular.map(Metadata::len),
            matches!(mode, Mode::Compress | Mode::Recompress),
        );
        let sink = Sink::open(&target, placement.as_ref())?;
        // A terminal named as the output file (stdout is checked above,
        // and -c writes there as lz4 does).
        if matches!(mode, Mode::Compress | Mode::Recompress)
            && !self.opts.force
            && matches!(placement, Some(Placement::Stream(_)))
            && sink.is_terminal()
        {
            return Err(Failure::new(
                out_name,
                "is a terminal; refusing to write compressed data to it (use -f to force)",
            ));
        }
        // `lz4 --content-size < FILE`: standard input that is a regular
        // file has a size known up front (LZ4 only: zstd, like `zstd`,
        // stores none for standard input).
        let stdin_file = match input {
            Input::Stdin if self.zstd.is_none() && self.opts.content_size => stdin_file_metadata(),
            _ => None,
        };
        let result = match mode {
            Mode::Recompress => {
                self.recompress(opened.reader, sink, &in_name, &out_name, &mut progress)
            }
            Mode::Compress => self.compress(
                opened.reader,
                regular.or(stdin_file.as_ref()),
                sink,
                &in_name,
                &out_name,
                &mut progress,
            ),
            _ => match self.seek_plan(&opened, regular, &in_name)? {
                Some((file, table)) => {
                    self.decompress_indexed(file, table, sink, &in_name, &out_name, &mut progress)
                }
                None => self.decompress(
                    opened.reader,
                    sink,
                    &in_name,
                    &out_name,
                    &mut progress,
                    mode,
                ),
            },
        };
        progress.finish();
        let (sink, read) = result?;
        let done = Done {
            read,
            written: sink.written(),
        };
        let replace = placement.as_ref().is_some_and(Placement::replaces);
        // A compressed file is data: it never keeps set-ID bits.
        let set_id = !matches!(mode, Mode::Compress | Mode::Recompress);
        sink.finish(&out_name, regular, set_id, replace)?;

        self.print_summary(mode, &done, &in_name, &out_name, &target);
        // Test mode has no file target, so this covers -t as well.
        if self.opts.remove_source
            && let (Input::File(src), Target::File(_)) = (input, &target)
        {
            if matches!(placement, Some(Placement::Stream(_))) {
                self.rep.warn(format!(
                    "{in_name}: --rm ignored: the output {out_name} is a device or pipe, not a file"
                ));
                return Ok(());
            }
            // Relative to the directory the walk listed: the name there must
            // still be the file that was read.
            #[cfg(unix)]
            if let Some((dir, name)) = &held {
                let still = walk::identity_at(dir, name).ok().flatten();
                if still.is_none() || still != opened_identity {
                    return Err(Failure::new(
                        &in_name,
                        "not removed: the name no longer names the file that was compressed",
                    ));
                }
                return walk::remove_file(dir, name).map_err(|e| {
                    Failure::new(
                        &in_name,
                        format!("cannot remove source: {}", super::report::describe_io(&e)),
                    )
                });
            }
            // The path must still name the file that was read: a directory
            // renamed or replaced by a link meanwhile would make it another.
            let still = fs::symlink_metadata(src).ok();
            if still.as_ref().and_then(identity) != opened_identity {
                return Err(Failure::new(
                    &in_name,
                    "not removed: the path no longer names the file that was compressed",
                ));
            }
            fs::remove_file(src).map_err(|e| {
                Failure::new(
                    &in_name,
                    format!("cannot remove source: {}", super::report::describe_io(&e)),
                )
            })?;
        }
        Ok(())
    }

    /// Whether progress may be shown: `--progress` and `--no-progress`
    /// decide, else the display level (the terminal check is the
    /// progress line's own, except with `--progress`).
    fn progress_shown(&self) -> ProgressChoice {
        match self.opts.progress {
            Some(true) => ProgressChoice::Always,
            Some(false) => ProgressChoice::Never,
            None if self.rep.progress_allowed() => ProgressChoice::OnTerminal,
            None => ProgressChoice::Never,
        }
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
        if mode == Mode::Recompress {
            let out = self.recompressed_name(path);
            if out == *path {
                return Err(Failure::new(
                    input.name(),
                    "the output name is the input's; name another with -o (the input is never replaced)",
                ));
            }
            return Ok(Target::File(out));
        }
        if mode == Mode::Compress {
            let mut out = name.to_os_string();
            out.push(match self.opts.format {
                OutFormat::Lz4 => SUFFIX,
                OutFormat::Zstd => ZSTD_SUFFIX,
            });
            return Ok(Target::File(PathBuf::from(out)));
        }
        if has_decoded_suffix(name) {
            return Ok(Target::File(path.with_extension("")));
        }
        Err(Failure::new(
            input.name(),
            "unknown suffix (expected .lz4 or .zst), cannot choose an output name; use -c or give one",
        ))
    }

    /// Open an input, refusing a terminal (unless -f) and directories.
    fn open_input(&self, input: &Input) -> Result<Opened, Failure> {
        match input {
            Input::Stdin => {
                if let Some(closed) = output::stdin_closed() {
                    return Err(closed);
                }
                if self
                    .opts
                    .dictionary
                    .as_deref()
                    .is_some_and(is_stdin_dictionary)
                {
                    return Err(Failure::new(
                        "stdin",
                        "standard input holds the dictionary (-D stdin): name the input file",
                    ));
                }
                if io::stdin().is_terminal() && !self.opts.force {
                    return Err(Failure::new(
                        "stdin",
                        "refusing to read from a terminal; use -f to force",
                    ));
                }
                Ok(Opened {
                    // Not locked: the reader may be read on another thread
                    // (recompress decodes on one); reads are large.
                    reader: Box::new(io::stdin()),
                    meta: None,
                    file: None,
                })
            }
            Input::File(path) => {
                let name = input.name();
                let file = File::open(path).map_err(|e| Failure::io(&name, &e))?;
                let meta = file.metadata().map_err(|e| Failure::io(&name, &e))?;
                if meta.is_dir() {
                    return Err(Failure::new(
                        name,
                        "is a directory (use -r to process the files in it)",
                    ));
                }
                Ok(Opened {
                    file: file.try_clone().ok(),
                    reader: Box::new(file),
                    meta: Some(meta),
                })
            }
        }
    }

    /// [`Job::check_output`] for an output `out` named `name` in the
    /// directory `dir` held open (a file found by `-r` is written next to
    /// it): nothing there, or a regular file, is written relative to the
    /// directory's handle. Anything else there is refused: a symbolic link
    /// is not followed (it could lead out of the tree), and a directory,
    /// device or FIFO is not replaced.
    #[cfg(unix)]
    fn check_output_in(
        &self,
        dir: &Arc<std::os::fd::OwnedFd>,
        name: &OsStr,
        out: &Path,
        input: &Opened,
    ) -> Result<Placement, Failure> {
        let shown = out.display().to_string();
        let within = |replace| Placement::AtomicIn {
            dir: Arc::clone(dir),
            name: name.to_os_string(),
            replace,
        };
        match walk::file_type_at(dir, name).map_err(|e| Failure::io(&shown, &e))? {
            None => Ok(within(self.opts.force)),
            Some((rustix::fs::FileType::RegularFile, id)) => {
                if input.meta.as_ref().and_then(identity) == Some(id) {
                    return Err(Failure::new(shown, "is the input file itself"));
                }
                if self.opts.force || self.confirm_overwrite(&shown, false) {
                    return Ok(within(true));
                }
                Err(Failure::new(
                    shown,
                    "already exists; not overwritten (use -f to overwrite)",
                ))
            }
            Some((rustix::fs::FileType::Symlink, _)) => Err(Failure::new(
                shown,
                "is a symbolic link; with -r it is not followed (nothing outside the tree is written)",
            )),
            Some((rustix::fs::FileType::Directory, _)) => {
                Err(Failure::new(shown, "is a directory"))
            }
            Some(_) => Err(Failure::new(
                shown,
                "already exists and is not a regular file; not written (-r writes only regular files)",
            )),
        }
    }

    /// Decide how `out` is written (see [`output::examine`]): never the
    /// input itself, never a directory or other special file replaced;
    /// an existing regular file only with -f or a "y" at the prompt; a
    /// character device or FIFO written in place.
    fn check_output(
        &self,
        out: &Path,
        input: &Opened,
        from_stdin: bool,
        named: bool,
    ) -> Result<Placement, Failure> {
        let name = out.display().to_string();
        let is_input = |meta: &Metadata| input.meta.as_ref().is_some_and(|m| same_file(m, meta));
        match output::examine(out)? {
            Existing::Absent => Ok(Placement::Atomic {
                path: out.to_path_buf(),
                replace: self.opts.force,
            }),
            Existing::Stream { path, meta } => {
                if is_input(&meta) {
                    return Err(Failure::new(name, "is the input itself"));
                }
                // Written into when the user named it; an output name made
                // from the input's that is a device or FIFO needs -f.
                if !named && !self.opts.force {
                    return Err(Failure::new(
                        name,
                        "already exists (a device or FIFO); not written (name it as the output, or use -f)",
                    ));
                }
                Ok(Placement::Stream(path))
            }
            Existing::Regular { path, meta } => {
                if is_input(&meta) {
                    return Err(Failure::new(name, "is the input file itself"));
                }
                if self.opts.force || self.confirm_overwrite(&name, from_stdin) {
                    return Ok(Placement::Atomic {
                        path,
                        replace: true,
                    });
                }
                Err(Failure::new(
                    name,
                    "already exists; not overwritten (use -f to overwrite)",
                ))
            }
        }
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
        eprint_text(format_args!(
            "{PROGRAM}: {name} already exists; overwrite (y/N)? "
        ));
        let mut answer = String::new();
        io::stdin().read_line(&mut answer).is_ok()
            && matches!(answer.trim_start().chars().next(), Some('y' | 'Y'))
    }

    /// Compress `reader` into `sink`. Returns the sink and the bytes read.
    fn compress(
        &self,
        reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        if let Some(chunk) = self.opts.seekable {
            return self.compress_seekable(chunk, reader, sink, in_name, out_name, progress);
        }
        if let Some(zstd) = &self.zstd {
            return self.compress_zstd(zstd, reader, meta, sink, in_name, out_name, progress);
        }
        let mut frame = self.frame.clone();
        let mut reader = reader;
        if self.opts.content_size && !frame.legacy {
            let (size, rest) = self.content_size(reader, meta, in_name)?;
            frame.content_size = size;
            reader = rest;
        }
        // As lz4: the smallest block size that holds an input of known
        // size, never above the one asked for (-B is a maximum), so that
        // decoders allocate less.
        if !frame.legacy
            && let Some(size) = frame.content_size.or(meta.map(Metadata::len))
        {
            frame.block_size = fitted_block_size(frame.block_size, size);
        }
        self.rep.detail(describe_frame(in_name, &frame));

        // The encoder reports plain I/O errors for its writer (the output)
        // and lzkit errors for the data: a file that changed size under
        // --content-size, which is about the input.
        let encode_failure = |e: io::Error| match lzkit::Error::from_io(e) {
            lzkit::Error::Io(io) => sink_failure(out_name, &io),
            lzkit::Error::ContentSize { expected, actual } => Failure::new(
                in_name,
                format!(
                    "changed size while being compressed ({expected} bytes when opened, {actual} read); --content-size cannot be stored"
                ),
            ),
            other => Failure::lzkit(in_name, other),
        };
        let mut encoder = FrameEncoder::new(sink, &frame);
        let total = pump(
            &mut reader,
            &mut encoder,
            in_name,
            progress,
            encode_failure,
            |e| e.get_ref().written(),
        )?;
        let sink = encoder.finish().map_err(encode_failure)?;
        Ok((sink, total))
    }

    /// Compress `reader` into `sink` as one zstd frame with libzstd. The
    /// content size is stored when the input is a regular file (as `zstd`
    /// does; `--no-content-size` leaves it out); a file that changes size
    /// meanwhile fails rather than store a wrong one.
    #[allow(clippy::too_many_arguments)]
    fn compress_zstd(
        &self,
        zstd: &lzkit::zstd::EncodeOptions,
        mut reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        let mut opts = zstd.clone();
        if self.opts.zstd_content_size {
            let (size, rest) = self.content_size(reader, meta, in_name)?;
            opts = opts.content_size(size);
            reader = rest;
        }
        if self.opts.dictionary.is_some() {
            opts = opts.dictionary(Some(self.whole_dictionary()?));
        }
        self.rep.detail(format!(
            "{in_name}: zstd level {}, {}",
            opts.get_level(),
            describe_zstd(&self.opts, zstd_workers(self.threads))
        ));
        let encode_failure = |e: io::Error| {
            // libzstd's error when the bytes read differ from the content
            // size pledged: the only one the data can cause.
            if opts.get_content_size().is_some() && e.to_string().contains("Src size is incorrect")
            {
                Failure::new(
                    in_name,
                    "changed size while being compressed; its content size cannot be stored",
                )
            } else {
                sink_failure(out_name, &e)
            }
        };
        let mut encoder = lzkit::zstd::Encoder::new(sink, &opts)
            .map_err(|e| Failure::new(in_name, super::report::describe_lzkit(&e)))?;
        let total = pump(
            &mut reader,
            &mut encoder,
            in_name,
            progress,
            encode_failure,
            |e| e.get_ref().written(),
        )?;
        let sink = encoder.finish().map_err(|e| encode_failure(e.into_io()))?;
        Ok((sink, total))
    }

    /// The seekable output `--seekable` asks for: LZ4 or zstd as
    /// `--format` says, with the level and checksums set.
    fn seekable_options(&self) -> lzkit::seekable::WriteOptions {
        use lzkit::seekable::{DEFAULT_CHUNK_SIZE, WriteOptions};
        match &self.zstd {
            Some(zstd) => WriteOptions::zstd(zstd.clone()),
            None => WriteOptions::lz4(self.frame.clone()),
        }
        .chunk_size(self.opts.seekable.unwrap_or(DEFAULT_CHUNK_SIZE))
        // --no-check, --no-frame-crc and --no-crc: no checksums at all.
        .checksums(self.opts.content_checksum)
        .threads(self.threads)
    }

    /// `--seekable`: independent frames of `chunk` bytes each, compressed
    /// on all threads, then the seek table.
    fn compress_seekable(
        &self,
        chunk: usize,
        mut reader: Box<dyn Read>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        let opts = self.seekable_options();
        self.rep.detail(format!(
            "{in_name}: seekable {} in chunks of {chunk} bytes",
            opts.format().name()
        ));
        let mut writer = lzkit::seekable::SeekableWriter::new(sink, &opts).map_err(|e| {
            Failure::new(
                "--seekable",
                match e {
                    lzkit::Error::InvalidOptions(why) => why.to_string(),
                    other => other.to_string(),
                },
            )
        })?;
        let encode_failure = |e: io::Error| match lzkit::Error::from_io(e) {
            lzkit::Error::Io(io) => sink_failure(out_name, &io),
            other => Failure::lzkit(in_name, other),
        };
        let total = pump(
            &mut reader,
            &mut writer,
            in_name,
            progress,
            encode_failure,
            |w| w.get_ref().written(),
        )?;
        let (sink, table) = writer.finish().map_err(|e| encode_failure(e.into_io()))?;
        self.rep.detail(format!(
            "{in_name}: {} frames, seek table of {} bytes",
            table.len(),
            table.encoded_len()
        ));
        Ok((sink, total))
    }

    /// Whether to decode through a seek table, and with which: always for
    /// `--range` (a file without a table is scanned for its frames), and
    /// for `-d`/`-t` of a file whose table lists whole frames that follow
    /// each other (decoded on `-T` threads, checked against the table). A
    /// table that cannot be read is then ignored with a warning (the
    /// frames decode without it).
    fn seek_plan(
        &self,
        opened: &Opened,
        regular: Option<&Metadata>,
        in_name: &str,
    ) -> Result<Option<(File, lzkit::seekable::SeekTable)>, Failure> {
        use lzkit::seekable::{SeekTable, build_table};
        let file = opened.file.as_ref().filter(|_| regular.is_some());
        let len = regular.map_or(0, Metadata::len);
        if self.opts.range.is_some() {
            let Some(file) = file else {
                return Err(Failure::new(
                    in_name,
                    "--range needs a file: it reads the seek table at the end (not a pipe)",
                ));
            };
            let table = match SeekTable::read_from_with_limit(file, len, self.memory_limit()) {
                Ok(Some(t)) => t,
                Ok(None) => {
                    self.rep.detail(format!(
                        "{in_name}: no seek table; reading the whole file to find its frames (add a table with `{PROGRAM} index`)"
                    ));
                    build_table(file, len, false).map_err(|e| self.decode_failure(in_name, e))?
                }
                Err(e) => return Err(self.decode_failure(in_name, e)),
            };
            let own = file.try_clone().map_err(|e| Failure::io(in_name, &e))?;
            return Ok(Some((own, table)));
        }
        let Some(file) = file else {
            return Ok(None);
        };
        match SeekTable::read_from_with_limit(file, len, self.memory_limit()) {
            // Entries decoded in parallel are held whole: entries larger
            // than the memory limit allows decode as a stream instead.
            Ok(Some(t))
                if t.is_contiguous()
                    && u64::from(t.max_entry_size()).saturating_mul(2) <= self.memory_limit() =>
            {
                let own = file.try_clone().map_err(|e| Failure::io(in_name, &e))?;
                Ok(Some((own, t)))
            }
            Ok(_) => Ok(None),
            Err(e) => {
                self.rep.warn(format!(
                    "{in_name}: seek table ignored: {}",
                    super::report::describe_lzkit(&e)
                ));
                Ok(None)
            }
        }
    }

    /// The memory a seek table and the frames decoded through it may take:
    /// `--memory`, or the default zstd window limit (128 MiB).
    fn memory_limit(&self) -> u64 {
        self.opts
            .memory
            .unwrap_or(1 << lzkit::zstd::DEFAULT_WINDOW_LOG_MAX)
    }

    /// Decode through `table`: the `--range` asked for, or everything,
    /// frames in parallel. Returns the sink and the compressed bytes read.
    fn decompress_indexed(
        &self,
        file: File,
        table: lzkit::seekable::SeekTable,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        use lzkit::seekable::{ReaderOptions, SeekableReader};
        let reader = SeekableReader::with_table(
            file,
            table,
            false,
            ReaderOptions::new()
                .verify_checksums(self.opts.verify_checksums)
                .memory_limit(self.memory_limit()),
        );
        let table = reader.table();
        let total_in = table.compressed_end().max(1);
        let total_out = table.decompressed_size().max(1);
        let mut out = Watched {
            sink,
            failed: None,
            progress,
            scale: (total_in, total_out),
        };
        let result = match self.opts.range {
            Some((offset, length)) => {
                let length = length.unwrap_or(u64::MAX);
                reader.copy_range(offset, length, &mut out).map(|_| {
                    let end = offset.saturating_add(length).min(table.decompressed_size());
                    // The compressed bytes of the entries read.
                    table
                        .entries()
                        .iter()
                        .filter(|e| e.decompressed_end() > offset && e.decompressed_offset < end)
                        .map(|e| u64::from(e.compressed_size))
                        .sum()
                })
            }
            None => {
                self.rep.detail(format!(
                    "{in_name}: decoding {} frames through the seek table",
                    table.len()
                ));
                reader
                    .decode_all(&mut out, self.threads)
                    .map(|_| table.compressed_end())
            }
        };
        match result {
            Ok(read) => Ok((out.sink, read)),
            Err(lzkit::Error::Io(e)) if out.failed.is_some() => Err(sink_failure(out_name, &e)),
            Err(e) => Err(self.decode_failure(in_name, e)),
        }
    }

    /// Recompress `reader` (any format [`lzkit::recompress::SourceFormat`]
    /// knows) into `sink` as `--to` says. Returns the sink and the bytes read.
    fn recompress(
        &self,
        reader: Box<dyn Read + Send>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        use lzkit::recompress::{RecompressError, RecompressOptions, Target as To};
        let target = match (&self.zstd, self.opts.seekable) {
            (_, Some(_)) => To::Seekable(self.seekable_options()),
            (Some(zstd), None) => To::Zstd(zstd.clone()),
            (None, None) => To::Lz4(self.frame.clone()),
        };
        let opts = RecompressOptions::new(target)
            .decode_threads(1)
            .window_log_max(self.window_log_max)
            .verify(self.opts.verify);
        let result = lzkit::recompress::recompress_with_progress(reader, sink, &opts, |p| {
            progress.set(p.read, p.written)
        });
        match result {
            Ok((sink, summary)) => {
                if summary.trailing_zeros > 0 {
                    self.rep.warn(format!(
                        "{in_name}: {} zero bytes after the last gzip member ignored (padding, as gzip -d ignores it)",
                        summary.trailing_zeros
                    ));
                }
                self.rep.detail(format!(
                    "{in_name}: {} input, {} bytes of content (XXH64 {:016x}){}",
                    summary.source.name(),
                    summary.content,
                    summary.content_xxh64,
                    if summary.verified {
                        ", output verified"
                    } else {
                        ""
                    }
                ));
                Ok((sink, summary.read))
            }
            // No dictionary hints: recompress takes none.
            Err(RecompressError::Input(e)) => Err(
                match formats::mixed_codecs(&e).or_else(|| formats::window_too_large(&e)) {
                    Some(msg) => Failure::new(in_name, msg),
                    None => Failure::lzkit(in_name, e),
                },
            ),
            Err(RecompressError::Output(lzkit::Error::Io(e))) => Err(sink_failure(out_name, &e)),
            Err(RecompressError::Output(e)) => Err(Failure::lzkit(out_name, e)),
        }
    }

    /// The whole `-D` file (zstd dictionaries are used whole), read once.
    fn whole_dictionary(&self) -> Result<Arc<[u8]>, Failure> {
        let Some(path) = &self.opts.dictionary else {
            return Err(Failure::new("-D", "no dictionary given"));
        };
        if is_stdin_dictionary(path) {
            return stdin_dictionary();
        }
        let name = path.display().to_string();
        self.zstd_dictionary
            .get_or_init(|| {
                fs::read(path).map(Arc::from).map_err(|e| {
                    format!("cannot read dictionary: {}", super::report::describe_io(&e))
                })
            })
            .clone()
            .map_err(|msg| Failure::new(&name, msg))
    }

    /// The content size to store for `--content-size`, and the reader to
    /// compress from. A regular file's reported length is trusted only when
    /// large: small files are read into memory first and their real length
    /// stored, because files in `/proc` and `/sys` report a size of 0 or
    /// 4096 whatever they hold. Pipes and devices have no size: the field
    /// is left out, as `lz4` does.
    fn content_size(
        &self,
        mut reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        in_name: &str,
    ) -> Result<(Option<u64>, Box<dyn Read>), Failure> {
        let Some(len) = meta.map(Metadata::len) else {
            self.rep
                .detail(format!("{in_name}: size unknown, --content-size ignored"));
            return Ok((None, reader));
        };
        if len > CONTENT_SIZE_BUFFER {
            return Ok((Some(len), reader));
        }
        let mut head = Vec::new();
        (&mut reader)
            .take(CONTENT_SIZE_BUFFER + 1)
            .read_to_end(&mut head)
            .map_err(|e| Failure::io(in_name, &e))?;
        let size = if head.len() as u64 > CONTENT_SIZE_BUFFER {
            // It reported a small size and holds more: no size is known.
            self.rep.warn(format!(
                "{in_name}: reported {len} bytes but holds more; --content-size ignored"
            ));
            None
        } else {
            Some(head.len() as u64)
        };
        Ok((size, Box::new(io::Cursor::new(head).chain(reader))))
    }

    /// Decode `reader` into `sink`, LZ4 or zstd as its magic number says.
    /// Returns the sink and the compressed bytes read. With `-dcf`, input
    /// that is neither is copied through unchanged (as `lz4 -dcf` and
    /// `zcat -f` do).
    fn decompress(
        &self,
        reader: Box<dyn Read>,
        mut sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
        mode: Mode,
    ) -> Result<(Sink, u64), Failure> {
        let (counting, count) = CountingReader::new(reader);
        let mut buffered = BufReader::with_capacity(BUFFER_SIZE, counting);
        let pass_through = mode == Mode::Decompress
            && self.opts.stdout
            && (self.opts.force || self.opts.pass_through);
        let (format, head) = formats::sniff(&mut buffered).map_err(|e| Failure::io(in_name, &e))?;
        if pass_through && format == Format::Other {
            sink.write_all(&head)
                .map_err(|e| sink_failure(out_name, &e))?;
            copy_through(
                &mut buffered,
                &mut sink,
                in_name,
                out_name,
                progress,
                &count,
            )?;
            return Ok((sink, count.get()));
        }
        let input = io::Cursor::new(head).chain(buffered);
        let mut decoder: Box<dyn Read> = match format {
            Format::Zstd => Box::new(lzkit::zstd::FrameDecoder::with_decoder(
                input,
                self.zstd_decoder()?,
            )),
            Format::Lz4 | Format::Other => Box::new(FrameDecoder::with_options(
                input,
                &DecodeOptions::new()
                    .threads(self.threads)
                    .dictionary_opt(self.dictionary.clone())
                    .verify_checksums(self.opts.verify_checksums),
            )),
        };
        let mut buf = vec![0u8; BUFFER_SIZE];
        loop {
            let n = match decoder.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Decoder errors (corrupt data and read failures alike) are
                // about the input.
                Err(e) => return Err(self.decode_failure(in_name, lzkit::Error::from_io(e))),
            };
            sink.write_all(&buf[..n])
                .map_err(|e| sink_failure(out_name, &e))?;
            progress.set(count.get(), sink.written());
        }
        Ok((sink, count.get()))
    }

    /// A zstd decoder with `--memory`, `--no-crc` and the `-D` dictionary.
    fn zstd_decoder(&self) -> Result<lzkit::zstd::Decoder, Failure> {
        let options = lzkit::zstd::DecodeOptions::new()
            .window_log_max(self.window_log_max)
            .verify_checksums(self.opts.verify_checksums);
        let decoder = lzkit::zstd::Decoder::with_options(options);
        let Some(path) = &self.opts.dictionary else {
            return Ok(decoder);
        };
        let name = path.display().to_string();
        let bytes = self.whole_dictionary()?;
        let dictionary = lzkit::zstd::Dictionary::new(&bytes).map_err(|e| {
            Failure::new(
                &name,
                format!(
                    "not a zstd dictionary: {}",
                    super::report::describe_lzkit(&e)
                ),
            )
        })?;
        Ok(decoder.with_dictionary(dictionary))
    }

    /// A decoding error, with a hint when a dictionary is the likely cause:
    /// a frame that names a dictionary ID needs `-D` (the one hint without
    /// `-D`: a corrupt frame that names none gets no guess), and data that
    /// refers to bytes before its start, or a checksum that fails, while
    /// one is given may be the wrong one.
    /// Frames of both codecs in one file, and a zstd window above
    /// `--memory`, get a message of their own.
    fn decode_failure(&self, in_name: &str, e: lzkit::Error) -> Failure {
        if let Some(msg) = formats::mixed_codecs(&e).or_else(|| formats::window_too_large(&e)) {
            return Failure::new(in_name, msg);
        }
        // The input's length, to count the bytes after the last frame.
        let len = (in_name != "stdin")
            .then(|| fs::metadata(in_name).ok())
            .flatten()
            .filter(Metadata::is_file)
            .map(|m| m.len());
        if let Some(msg) = formats::undecodable_tail(&e, len) {
            return Failure::new(in_name, msg);
        }
        let inner = formats::innermost(&e);
        let before_start = matches!(
            inner,
            lzkit::Error::CorruptBlock {
                fault: lzkit::Fault::Lz4(lzkit::Lz4Fault::OffsetBeforeStart { .. })
                    | lzkit::Fault::Zstd(lzkit::ZstdFault::OffsetBeforeStart { .. }),
                ..
            } | lzkit::Error::ZstdFrame {
                fault: lzkit::ZstdFault::OffsetBeforeStart { .. },
                ..
            }
        );
        let checksum = matches!(
            inner,
            lzkit::Error::ContentChecksum { .. } | lzkit::Error::BlockChecksum { .. }
        );
        let needs_dictionary = matches!(inner, lzkit::Error::DictionaryRequired { .. });
        let mut f = Failure::lzkit(in_name, e);
        match (&self.opts.dictionary, before_start, checksum) {
            (None, _, _) if needs_dictionary => f.message.push_str(" (give it with -D FILE)"),
            (Some(d), _, _) if needs_dictionary => f.message.push_str(&format!(
                " (the dictionary {} is another one)",
                d.display()
            )),
            (Some(d), true, _) | (Some(d), _, true) => f.message.push_str(&format!(
                " (was it compressed with the dictionary {}? a different dictionary decodes to wrong data)",
                d.display()
            )),
            _ => {}
        }
        f
    }

    /// The summary line after a success: at the default verbosity for a
    /// single input written to a file (as `lz4` shows it), else with `-v`.
    fn print_summary(
        &self,
        mode: Mode,
        done: &Done,
        in_name: &str,
        out_name: &str,
        target: &Target,
    ) {
        let line = match mode {
            Mode::Recompress => format!(
                "Recompressed {} bytes into {} bytes ==> {:.2}% ({in_name} -> {out_name})",
                done.read,
                done.written,
                percent(done.written, done.read)
            ),
            Mode::Compress => format!(
                "Compressed {} bytes into {} bytes ==> {:.2}% ({in_name} -> {out_name})",
                done.read,
                done.written,
                percent(done.written, done.read)
            ),
            Mode::Test => format!(
                "{in_name}: OK, decoded {} bytes from {} bytes",
                done.written, done.read
            ),
            _ => format!(
                "{in_name}: decoded {} bytes from {} bytes -> {out_name}",
                done.written, done.read
            ),
        };
        if self.single && *target != Target::Stdout {
            self.rep.notice(line);
        } else {
            self.rep.summary(line);
        }
    }
}

/// The output of a decode through a seek table: progress shown as it
/// grows (input estimated in proportion), and its write errors told apart
/// from the input's.
struct Watched<'a> {
    sink: Sink,
    failed: Option<io::ErrorKind>,
    progress: &'a mut Progress,
    /// Compressed and decoded sizes of the whole file.
    scale: (u64, u64),
}

impl Write for Watched<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self
            .sink
            .write(buf)
            .inspect_err(|e| self.failed = Some(e.kind()))?;
        let out = self.sink.written();
        let read = (u128::from(out) * u128::from(self.scale.0) / u128::from(self.scale.1)) as u64;
        self.progress.set(read, out);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink
            .flush()
            .inspect_err(|e| self.failed = Some(e.kind()))
    }
}

/// A failure to write the output: a closed standard output pipe is marked
/// to end the run quietly.
fn sink_failure(out_name: &str, e: &io::Error) -> Failure {
    if out_name == "stdout" {
        Failure::stdout(e)
    } else {
        Failure::io(out_name, e)
    }
}

/// `-dcf` on input that is not LZ4: copy it to `sink` unchanged, read
/// errors named for the input and write errors for the output.
fn copy_through(
    input: &mut impl Read,
    sink: &mut Sink,
    in_name: &str,
    out_name: &str,
    progress: &mut Progress,
    count: &std::rc::Rc<std::cell::Cell<u64>>,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; BUFFER_SIZE];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::io(in_name, &e)),
        };
        sink.write_all(&buf[..n])
            .map_err(|e| sink_failure(out_name, &e))?;
        progress.set(count.get(), sink.written());
    }
}

/// Copy `reader` into `encoder` in [`BUFFER_SIZE`] pieces, showing
/// progress (`written` reads the compressed bytes so far); read errors are
/// the input's, write errors go through `encode_failure`. Returns the
/// bytes read.
fn pump<E: Write>(
    reader: &mut dyn Read,
    encoder: &mut E,
    in_name: &str,
    progress: &mut Progress,
    encode_failure: impl Fn(io::Error) -> Failure,
    written: impl Fn(&E) -> u64,
) -> Result<u64, Failure> {
    let mut buf = vec![0u8; BUFFER_SIZE];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::io(in_name, &e)),
        };
        encoder.write_all(&buf[..n]).map_err(&encode_failure)?;
        total += n as u64;
        progress.set(total, written(encoder));
    }
}

/// Options of the other format are refused rather than ignored: LZ4's
/// block options with `--zstd`, zstd's `--ultra` and `--long` without it.
fn check_format_options(opts: &Options) -> Result<(), Failure> {
    match opts.format {
        OutFormat::Zstd
            if opts.block_arg.is_some()
                || opts.block_mode == BlockMode::Linked
                || opts.block_checksum =>
        {
            Err(Failure::new(
                "-B",
                "LZ4's block options (-B#, -BD, -BX) do not apply to zstd output",
            ))
        }
        OutFormat::Lz4 if opts.ultra || opts.long.is_some() => Err(Failure::new(
            if opts.ultra { "--ultra" } else { "--long" },
            "is a zstd option: add --zstd (or recompress --to zstd) to write zstd",
        )),
        _ => Ok(()),
    }
}

/// The smallest LZ4 block size of at least `size` bytes, but not above
/// `requested` (what `lz4` writes for an input of known size).
fn fitted_block_size(
    requested: lzkit::lz4::frame::BlockSize,
    size: u64,
) -> lzkit::lz4::frame::BlockSize {
    use lzkit::lz4::frame::BlockSize;
    [
        BlockSize::Max64KB,
        BlockSize::Max256KB,
        BlockSize::Max1MB,
        BlockSize::Max4MB,
    ]
    .into_iter()
    .find(|bs| bs.bytes() as u64 >= size || *bs == requested)
    .unwrap_or(requested)
}

/// libzstd worker threads for `threads` (0: one per core), at least 1:
/// libzstd's multithreaded mode, whose bytes are the same for any count
/// (as `zstd -T#`), so the output does not depend on the machine.
fn zstd_workers(threads: usize) -> u32 {
    effective_threads(threads).min(MAX_THREADS) as u32
}

/// The zstd settings of `opts`: level (zstd's default 3; above 19 only
/// with `--ultra`, else 19 with a warning, as `zstd` does), checksum,
/// `--long`, workers. `-l` is refused; LZ4's block options do not apply.
fn zstd_options(
    opts: &Options,
    threads: usize,
    rep: &Reporter,
) -> Result<lzkit::zstd::EncodeOptions, Failure> {
    use lzkit::zstd::{EncodeOptions, MAX_LEVEL, ULTRA_MAX_LEVEL};
    if opts.legacy {
        return Err(Failure::new(
            "-l",
            "the legacy format is LZ4's; it cannot be used with --format=zstd",
        ));
    }
    let mut level = opts.zstd_level.unwrap_or(3);
    let max = if opts.ultra {
        ULTRA_MAX_LEVEL
    } else {
        MAX_LEVEL
    };
    if level > max {
        rep.warn(format!(
            "zstd level {level} is above {max}{}; using {max}",
            if opts.ultra {
                ""
            } else {
                " (20 to 22 need --ultra)"
            }
        ));
        level = max;
    }
    if level == 0 {
        level = 3;
    }
    Ok(EncodeOptions::new()
        .level(level)
        .checksum(opts.content_checksum)
        .long(opts.long)
        .workers(zstd_workers(threads)))
}

/// The `-vv` description of zstd settings.
fn describe_zstd(opts: &Options, workers: u32) -> String {
    format!(
        "{workers} worker(s), content checksum {}, long mode {}{}",
        if opts.content_checksum { "on" } else { "off" },
        opts.long
            .map_or_else(|| "off".to_string(), |l| format!("window 2^{l}")),
        if opts.dictionary.is_some() {
            ", with dictionary"
        } else {
            ""
        },
    )
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
/// A regular file is read from 64 KiB before its end; anything else (a
/// pipe, `/dev/stdin`, a file in `/proc`) is read to its end, keeping the
/// last 64 KiB.
fn load_dictionary(path: &Path) -> Result<Arc<[u8]>, Failure> {
    if is_stdin_dictionary(path) {
        let all = stdin_dictionary()?;
        return Ok(all[all.len().saturating_sub(DICT_WINDOW as usize)..].into());
    }
    let name = path.display().to_string();
    let fail = |e: io::Error| {
        Failure::new(
            &name,
            format!("cannot read dictionary: {}", super::report::describe_io(&e)),
        )
    };
    let mut file = File::open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        return Err(Failure::new(name, "cannot read dictionary: is a directory"));
    }
    let len = meta.len();
    if meta.is_file() && len > DICT_WINDOW && file.seek(SeekFrom::Start(len - DICT_WINDOW)).is_ok()
    {
        let mut dict = Vec::with_capacity(DICT_WINDOW as usize);
        (&mut file)
            .take(DICT_WINDOW)
            .read_to_end(&mut dict)
            .map_err(fail)?;
        // A file that shrank meanwhile: read again from the start below.
        if dict.len() as u64 == DICT_WINDOW {
            return Ok(dict.into());
        }
        file.seek(SeekFrom::Start(0)).map_err(fail)?;
    }
    Ok(last_bytes(file, DICT_WINDOW as usize).map_err(fail)?.into())
}

/// Whether `-D` names standard input: `-D stdin`, as in `lz4` (a file
/// named `stdin` is `-D ./stdin`). The data must then come from a file.
fn is_stdin_dictionary(path: &Path) -> bool {
    path == Path::new("stdin")
}

/// The dictionary of `-D stdin`: all of standard input, read once.
fn stdin_dictionary() -> Result<Arc<[u8]>, Failure> {
    static READ: OnceLock<Result<Arc<[u8]>, String>> = OnceLock::new();
    READ.get_or_init(|| {
        if let Some(closed) = output::stdin_closed() {
            return Err(closed.message);
        }
        if io::stdin().is_terminal() {
            return Err("refusing to read a dictionary from a terminal (-D stdin)".into());
        }
        let mut all = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut all)
            .map(|_| Arc::from(all))
            .map_err(|e| format!("cannot read dictionary: {}", super::report::describe_io(&e)))
    })
    .clone()
    .map_err(|msg| Failure::new("stdin", msg))
}

/// The last `keep` bytes of everything `reader` yields, in memory bounded
/// by twice `keep` plus one read.
fn last_bytes(mut reader: impl Read, keep: usize) -> io::Result<Vec<u8>> {
    let mut tail = Vec::with_capacity(2 * keep);
    let mut buf = vec![0u8; keep.max(1)];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > 2 * keep {
            tail.drain(..tail.len() - keep);
        }
    }
    if tail.len() > keep {
        tail.drain(..tail.len() - keep);
    }
    Ok(tail)
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

/// The frames of one input, by codec.
enum Listing {
    Lz4(Vec<lzkit::lz4::frame::FrameInfo>),
    Zstd(Vec<lzkit::zstd::FrameInfo>),
}

/// The frames of `reader`, LZ4 or zstd as its magic number says.
fn list_frames_of(reader: impl Read) -> lzkit::Result<Listing> {
    let mut buffered = BufReader::with_capacity(BUFFER_SIZE, reader);
    let (format, head) = formats::sniff(&mut buffered)?;
    let input = io::Cursor::new(head).chain(buffered);
    Ok(match format {
        Format::Zstd => Listing::Zstd(lzkit::zstd::list_frames(input)?),
        Format::Lz4 | Format::Other => Listing::Lz4(list_frames(input)?),
    })
}

/// The seek table at the end of `path`, and the file's length.
fn seek_table_of(path: &Path) -> lzkit::Result<Option<(lzkit::seekable::SeekTable, u64)>> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    Ok(lzkit::seekable::SeekTable::read_from(&file, len)?.map(|t| (t, len)))
}

/// `--list`: one line per file (or a table per file with `-v`); a header
/// line before the first file of each codec.
fn list_all(inputs: &[OsString], rep: &Reporter) -> bool {
    let mut ok = true;
    let mut header_done: Option<Format> = None;
    let mut stdout = match output::stdout_writer() {
        Ok(w) => w,
        Err(f) => {
            rep.failure(&f);
            return false;
        }
    };
    for arg in inputs {
        let input = Input::from_arg(arg);
        let name = input.name();
        let listing = match &input {
            Input::Stdin if io::stdin().is_terminal() => {
                let f = Failure::new(&name, "refusing to read from a terminal");
                rep.failure(&f);
                ok = false;
                continue;
            }
            Input::Stdin if let Some(f) = output::stdin_closed() => {
                rep.failure(&f);
                ok = false;
                continue;
            }
            Input::Stdin => list_frames_of(io::stdin().lock()),
            Input::File(path) => match File::open(path) {
                Ok(f) => list_frames_of(f),
                Err(e) => Err(lzkit::Error::Io(e)),
            },
        };
        let listing = match listing {
            Ok(listing) => listing,
            Err(e) => {
                let f = match formats::mixed_codecs(&e) {
                    Some(msg) => Failure::new(&name, msg),
                    None => Failure::lzkit(&name, e),
                };
                rep.failure(&f);
                ok = false;
                continue;
            }
        };
        let mut text = String::new();
        let (format, header, line, detailed) = match &listing {
            Listing::Lz4(frames) => (
                Format::Lz4,
                list::summary_header(),
                list::summary_line(&name, frames),
                list::detailed(&name, frames),
            ),
            Listing::Zstd(frames) => (
                Format::Zstd,
                list::zstd_summary_header(),
                list::zstd_summary_line(&name, frames),
                list::zstd_detailed(&name, frames),
            ),
        };
        if rep.level >= 3 {
            text.push_str(&detailed);
        } else {
            if header_done != Some(format) {
                text.push_str(&header);
                text.push('\n');
                header_done = Some(format);
            }
            text.push_str(&line);
            text.push('\n');
        }
        if let Input::File(path) = &input {
            match seek_table_of(path) {
                Ok(Some((table, len))) => {
                    text.push_str(&list::seek_table_line(&table, len));
                    text.push('\n');
                }
                Ok(None) => {}
                Err(e) => {
                    rep.failure(&Failure::lzkit(&name, e));
                    ok = false;
                }
            }
        }
        if let Err(e) = stdout.write_all(text.as_bytes()) {
            rep.failure(&Failure::stdout(&e));
            return false;
        }
    }
    ok
}
