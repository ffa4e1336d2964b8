//! The [`Job`]: everything resolved once before the inputs are processed,
//! and what happens to one input (open, choose the output, run the
//! operation, finish, report).

use std::ffi::OsStr;
use std::fs::{self, Metadata};
use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use lzkit::format::Codec;
use lzkit::lz4::frame::{FrameOptions, effective_threads};

use super::super::args::{Input, Mode, Options};
use super::super::formats;
use super::super::output::{self, Existing, Placement, Sink, Target};
use super::super::progress::{Progress, ProgressChoice};
use super::super::report::{Failure, PROGRAM, Reporter, eprint_text};
#[cfg(unix)]
use super::super::walk;
use super::dictionary::load_dictionary;
use super::inputs::{Found, Opened};
#[cfg(unix)]
use super::inputs::{held_directory, open_found, same_directory};
use super::inputs::{identity, same_file, stdin_file_metadata};
use super::settings::{
    check_format_options, level_from_env, lz4_options, threads_from_env, zstd_options,
};
use super::*;

/// Everything resolved once before the files are processed.
pub(super) struct Job {
    pub(super) opts: Options,
    pub(super) rep: Reporter,
    pub(super) frame: FrameOptions,
    pub(super) dictionary: Option<Arc<[u8]>>,
    /// Worker threads (0 = one per core), for compression and for
    /// decoding independent-block frames.
    pub(super) threads: usize,
    /// One input and no `-m`: the summary line is shown at the default
    /// verbosity, as `lz4` shows it.
    pub(super) single: bool,
    /// `--memory` as a zstd window log.
    pub(super) window_log_max: u32,
    /// The whole `-D` file, read when the first zstd input needs it (LZ4
    /// reads only its last 64 KiB); an error is the message to report.
    pub(super) zstd_dictionary: OnceLock<Result<Arc<[u8]>, String>>,
    /// zstd compression settings, with `--format=zstd` (the dictionary and
    /// content size are added per input).
    pub(super) zstd: Option<lzkit::zstd::FrameOptions>,
}

/// What one successful operation did, for the summary line.
pub(super) struct Done {
    pub(super) read: u64,
    pub(super) written: u64,
}

impl Job {
    /// Resolve the level and load the dictionary.
    pub(super) fn new(
        opts: Options,
        rep: Reporter,
        mode: Mode,
        single: bool,
    ) -> Result<Job, Failure> {
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
        let frame = lz4_options(&opts, level, threads, dictionary.clone());
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
        if let Some(filter) = opts.filter {
            let why = match mode {
                Mode::Compress if opts.seekable.is_some() => Some(
                    "cannot be combined with --seekable (a seekable file's frames are decoded on their own; the filter runs over the whole input)",
                ),
                Mode::Compress if opts.legacy => Some(
                    "cannot be combined with -l (the legacy format has no skippable frames to record the filter in)",
                ),
                Mode::Compress => None,
                Mode::Recompress => {
                    Some("is not applied by recompress: decompress, then compress with --filter")
                }
                _ => Some(
                    "applies when compressing (-z); -d reads the filter from the compressed file",
                ),
            };
            if let Some(why) = why {
                return Err(Failure::new(format!("--filter={filter}"), why));
            }
        }
        if opts.range.is_some() && !matches!(mode, Mode::Decompress | Mode::Test) {
            return Err(Failure::new(
                "--range",
                "selects decoded bytes: use it with -d (lzkit -d -c --range=OFFSET:LENGTH FILE)",
            ));
        }
        let zstd = if opts.format == Codec::Zstd {
            Some(zstd_options(&opts, threads, &rep)?)
        } else {
            None
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

    /// Process one input, reporting what became of it.
    pub(super) fn step(&self, found: &Found, explicit: Option<&Target>, mode: Mode) -> Step {
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
    pub(super) fn file_workers(&self, inputs: &[Found], mode: Mode) -> usize {
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

    /// Compress, decompress or test one input.
    pub(super) fn process(
        &self,
        found: &Found,
        explicit: Option<&Target>,
        mode: Mode,
    ) -> Result<(), Failure> {
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
                        format!(
                            "cannot remove source: {}",
                            super::super::report::describe_io(&e)
                        ),
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
                    format!(
                        "cannot remove source: {}",
                        super::super::report::describe_io(&e)
                    ),
                )
            })?;
        }
        Ok(())
    }

    /// Whether progress may be shown: `--progress` and `--no-progress`
    /// decide, else the display level (the terminal check is the
    /// progress line's own, except with `--progress`).
    pub(super) fn progress_shown(&self) -> ProgressChoice {
        match self.opts.progress {
            Some(true) => ProgressChoice::Always,
            Some(false) => ProgressChoice::Never,
            None if self.rep.progress_allowed() => ProgressChoice::OnTerminal,
            None => ProgressChoice::Never,
        }
    }

    /// [`Job::check_output`] for an output `out` named `name` in the
    /// directory `dir` held open (a file found by `-r` is written next to
    /// it): nothing there, or a regular file, is written relative to the
    /// directory's handle. Anything else there is refused: a symbolic link
    /// is not followed (it could lead out of the tree), and a directory,
    /// device or FIFO is not replaced.
    #[cfg(unix)]
    pub(super) fn check_output_in(
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
    pub(super) fn check_output(
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
    pub(super) fn confirm_overwrite(&self, name: &str, from_stdin: bool) -> bool {
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

    /// The summary line after a success: at the default verbosity for a
    /// single input written to a file (as `lz4` shows it), else with `-v`.
    pub(super) fn print_summary(
        &self,
        mode: Mode,
        done: &Done,
        in_name: &str,
        out_name: &str,
        target: &Target,
    ) {
        let line = match mode {
            Mode::Recompress | Mode::Compress => format!(
                "{} {} bytes into {} bytes ==> {:.2}% ({in_name} -> {out_name})",
                if mode == Mode::Compress {
                    "Compressed"
                } else {
                    "Recompressed"
                },
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

/// `part` as a percentage of `whole` (of 1 when `whole` is 0, as lz4 does,
/// so an empty input does not divide by zero).
pub(super) fn percent(part: u64, whole: u64) -> f64 {
    part as f64 * 100.0 / whole.max(1) as f64
}
