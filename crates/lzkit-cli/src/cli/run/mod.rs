//! Carrying out the operation on each input, by operation:
//!
//! * [`job`]: the `Job` resolved once, and what happens to one input;
//! * `inputs`: the inputs, named or found by `-r`, and how they are opened;
//! * `names`: output names and suffix rules, which files are skipped;
//! * `settings`: levels, threads and codec settings from the options;
//! * `compress`, `decompress`: the operations (test is decompression to
//!   nowhere; `--list` is [`super::list::list_all`]);
//! * `dictionary`: `-D`.

mod compress;
mod decompress;
mod dictionary;
mod inputs;
mod job;
mod names;
mod settings;

use std::ffi::OsString;
use std::io;

use super::args::{Mode, Options};
use super::output::Target;
use super::report::{Failure, Reporter};

use inputs::collect_inputs;
use job::Job;
use names::resolve_auto_mode;

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
        return outcome(super::list::list_all(named, &rep));
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

/// A failure to write the output: a closed standard output pipe is marked
/// to end the run quietly.
fn sink_failure(out_name: &str, e: &io::Error) -> Failure {
    if out_name == "stdout" {
        Failure::stdout(e)
    } else {
        Failure::io(out_name, e)
    }
}
