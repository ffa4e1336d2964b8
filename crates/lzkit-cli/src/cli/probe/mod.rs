//! `lzkit probe`: which codec and level for this data? A front end to
//! [`lzkit::probe`]: it lists the inputs, reads their sample, runs the probe
//! with the C libraries as reference decoders and a progress bar, and
//! writes the report ([`render`]) and the optional chart ([`plot`]).
//! [`options`] parses the command line.

mod options;
mod plot;
mod render;

use std::ffi::OsString;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::ProgressBar;
use lzkit::format::Codec;
use lzkit::probe::{
    self, Hooks, ProbeError, ProbeOptions, Progress, ReferenceDecoder, Sample, SampleBuilder,
};
use lzkit_corpus::corpus;

use super::bench::reference::{self as c_ref, BUILT_IN, MISSING};

use super::report::{PROGRAM, describe_io, eprint_line};
use options::{Options, Parsed, Plot};

/// Inputs named in the report before "and N more".
const MAX_NAMED_SOURCES: usize = 3;

/// Run `lzkit probe` with the arguments after `probe`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let opts = match options::parse(args) {
        Ok(Parsed::Run(opts)) => opts,
        Ok(Parsed::Help) => {
            return match print(options::HELP) {
                Ok(()) => ExitCode::SUCCESS,
                Err(msg) => fail(&msg),
            };
        }
        Err(msg) => return fail(&format!("{msg} ({PROGRAM} probe -h: help)")),
    };
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => fail(&msg),
    }
}

/// One line on standard error, status 1.
fn fail(msg: &str) -> ExitCode {
    eprint_line(format_args!("{PROGRAM} probe: {msg}"));
    ExitCode::FAILURE
}

/// Write to standard output.
fn print(text: &str) -> Result<(), String> {
    let mut out = super::output::stdout_writer().map_err(|f| f.message)?;
    out.write_all(text.as_bytes())
        .map_err(|e| format!("stdout: {}", describe_io(&e)))
}

/// Probe, print, plot.
fn run(opts: &Options) -> Result<(), String> {
    let files = list_files(&opts.inputs)?;
    // A plot that cannot be written fails now, not after the probe.
    let plots = match &opts.plot {
        None => None,
        Some(Plot::File(path)) => Some(Plots::File(PlotFile::create(path)?)),
        Some(Plot::Dir(dir)) => Some(Plots::Dir(PlotDir::prepare(dir, &files, opts.force)?)),
    };
    let mut hooks = CliHooks::new(!opts.quiet, !opts.no_reference);
    hooks.stage("reading the sample");
    let built_in: Vec<Vec<u8>> = match files.is_empty() {
        true => (0..corpus::len())
            .map(|i| corpus::generate(i, 1.0))
            .collect(),
        false => Vec::new(),
    };
    let mut builder = SampleBuilder::new(opts.sample, opts.block_size).calibration(opts.calibrate);
    for path in &files {
        builder = builder.file(path);
    }
    for (i, data) in built_in.iter().enumerate() {
        builder = builder.reader(corpus::name(i), Cursor::new(&data[..]));
    }
    let sample: Sample = builder.build().map_err(describe)?;
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let probe_opts = ProbeOptions::new()
        .settings(with_filters(&opts.settings, element_width(opts, &names)))
        .threads(opts.threads)
        .min_time(opts.min_time)
        .time_limit(opts.time_limit);
    let report = probe::probe_with(&sample, &probe_opts, &mut hooks).map_err(describe)?;
    let per_file = match opts.per_file || matches!(plots, Some(Plots::Dir(_))) {
        true => per_file(opts, &files, &built_in, &hooks)?,
        false => Vec::new(),
    };
    drop(built_in);
    hooks.finish();
    let mut references = Vec::new();
    if !opts.no_reference {
        let has = |codec| opts.settings.iter().any(|s| s.codec == codec);
        if has(Codec::Lz4) && BUILT_IN {
            references.push(format!("lz4 {} LZ4_decompress_safe", c_ref::version()));
        }
        if has(Codec::Zstd) {
            references.push(format!(
                "libzstd {} ZSTD_decompressDCtx",
                zstd::zstd_safe::version_string()
            ));
        }
    }
    let ctx = render::Context {
        source: source_label(&opts.inputs),
        io: opts.io,
        min_time: opts.min_time.as_secs_f64(),
        references,
        missing: (!opts.no_reference && !BUILT_IN).then_some(MISSING),
        per_file: match opts.per_file {
            true => per_file
                .iter()
                .map(|f| (f.name.clone(), f.report.clone()))
                .collect(),
            false => Vec::new(),
        },
    };
    print(&render::render(&report, &ctx, opts.format))?;
    let block = sample.block_size().to_string();
    match plots {
        None => Ok(()),
        Some(Plots::File(file)) => {
            let title = plot::Title {
                what: "lzkit probe",
                block: &block,
            };
            file.draw(&report, opts.io, &title, true)
        }
        Some(Plots::Dir(dir)) => dir.draw(&report, &per_file, opts.io, &block),
    }
}

/// One input's `--per-file` probe.
struct PerFile {
    /// The input's index in the files listed (or the built-in corpus).
    index: usize,
    /// Its name as listed.
    name: String,
    report: probe::Report,
}

/// `--per-file` (and `--plot DIR/`'s plots): a quick probe of each input
/// alone (its share of the sample, at least [`PER_FILE_MIN_SAMPLE`]; one
/// thread; short timings; lzkit's decoders only), named as listed; empty
/// inputs left out.
fn per_file(
    opts: &Options,
    files: &[PathBuf],
    built_in: &[Vec<u8>],
    hooks: &CliHooks,
) -> Result<Vec<PerFile>, String> {
    let n = (files.len() + built_in.len()).max(1) as u64;
    let budget = (opts.sample / n).max(PER_FILE_MIN_SAMPLE).min(opts.sample);
    let quick = ProbeOptions::new()
        .threads(1)
        .min_time(PER_FILE_MIN_TIME)
        .time_limit(Some(
            opts.time_limit
                .map_or(PER_FILE_TIME_LIMIT, |t| t.min(PER_FILE_TIME_LIMIT)),
        ));
    // Files named, or the built-in corpus: (name, its builder).
    let inputs: Vec<(String, SampleBuilder)> = match files.is_empty() {
        false => files
            .iter()
            .map(|path| {
                (
                    path.display().to_string(),
                    SampleBuilder::new(budget, opts.block_size).file(path),
                )
            })
            .collect(),
        true => built_in
            .iter()
            .enumerate()
            .map(|(i, data)| {
                let builder = SampleBuilder::new(budget, opts.block_size)
                    .reader(corpus::name(i), Cursor::new(&data[..]));
                (corpus::name(i).to_string(), builder)
            })
            .collect(),
    };
    let count = inputs.len();
    let mut out = Vec::new();
    for (i, (name, builder)) in inputs.into_iter().enumerate() {
        hooks.stage(&format!("per file: {} of {count}", i + 1));
        let sample = match builder.calibration(PER_FILE_CALIBRATION).build() {
            // An empty file has nothing to advise on.
            Err(ProbeError::Empty) => continue,
            other => other.map_err(describe)?,
        };
        let settings = with_filters(
            &opts.settings,
            element_width(opts, std::slice::from_ref(&name)),
        );
        let report = probe::probe(&sample, &quick.clone().settings(settings)).map_err(describe)?;
        out.push(PerFile {
            index: i,
            name,
            report,
        });
    }
    Ok(out)
}

/// The element width of the inputs named `names`: `--type`'s, else the
/// type suffix they all share (none for the built-in corpus).
fn element_width(opts: &Options, names: &[String]) -> Option<usize> {
    if let Some(given) = opts.element {
        return given;
    }
    let mut widths = names.iter().map(|n| options::element_width_of(n));
    let first = widths.next()??;
    widths.all(|w| w == Some(first)).then_some(first)
}

/// The settings to probe: `settings`, and for an element width, each
/// filter of that width before LZ4 -1, zstd -1 and zstd -3 (zstd where
/// this build compresses it).
fn with_filters(settings: &[probe::Setting], width: Option<usize>) -> Vec<probe::Setting> {
    use lzkit::filter::{Filter, FilterKind};
    let mut out = settings.to_vec();
    let Some(width) = width else { return out };
    let filters = [FilterKind::Delta, FilterKind::Shuffle]
        .into_iter()
        .filter_map(|kind| Filter::new(kind, width).ok());
    for filter in filters {
        for base in [
            probe::Setting::lz4(1),
            probe::Setting::zstd(1),
            probe::Setting::zstd(3),
        ] {
            let s = base.with_filter(filter);
            if s.check().is_ok() && !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// `--per-file`: the least sample of one file.
const PER_FILE_MIN_SAMPLE: u64 = 1 << 20;
/// `--per-file`: each timing's minimum (a pass or two of a file's sample).
const PER_FILE_MIN_TIME: std::time::Duration = std::time::Duration::from_millis(5);
/// `--per-file`: a slow setting's longest first pass.
const PER_FILE_TIME_LIMIT: std::time::Duration = std::time::Duration::from_millis(100);
/// `--per-file`: the calibration pass of a file larger than its sample.
const PER_FILE_CALIBRATION: std::time::Duration = std::time::Duration::from_millis(100);

/// The `--plot` file: a temporary file next to it, created before the
/// probe so that a directory it cannot be written in fails at once, drawn
/// into, and renamed to the name given only when drawn. An existing file
/// of that name is left alone if the probe fails.
struct PlotFile {
    /// Where the plot is drawn.
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
}

impl PlotFile {
    fn create(target: &Path) -> Result<PlotFile, String> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".lzkit-plot-")
            .suffix(".svg")
            .tempfile_in(dir)
            .map_err(|e| format!("{}: {}", target.display(), describe_io(&e)))?;
        Ok(PlotFile {
            path: tmp.path().to_path_buf(),
            tmp,
            target: target.to_path_buf(),
        })
    }

    /// Draw `report` and [`keep`](Self::keep) it.
    fn draw(
        self,
        report: &probe::Report,
        io: lzkit::probe::IoRate,
        title: &plot::Title,
        overwrite: bool,
    ) -> Result<(), String> {
        plot::draw(&self.path, report, io, title)
            .map_err(|e| format!("{}: {e}", self.target.display()))?;
        self.keep(overwrite)
    }

    /// Move the drawn plot to its name, readable as a file the user
    /// writes (temporary files are created private); a file of that name
    /// is replaced if `overwrite`, else left alone and an error.
    fn keep(self, overwrite: bool) -> Result<(), String> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = self
                .tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644));
        }
        let kept = match overwrite {
            true => self.tmp.persist(&self.target),
            false => self.tmp.persist_noclobber(&self.target),
        };
        kept.map(drop).map_err(|e| match e.error.kind() {
            std::io::ErrorKind::AlreadyExists => exists(&self.target),
            _ => format!("{}: {}", self.target.display(), describe_io(&e.error)),
        })
    }
}

/// The error for a plot already there, without `-f`.
fn exists(target: &Path) -> String {
    format!(
        "{}: already exists; not overwritten (use -f to overwrite)",
        target.display()
    )
}

/// Where `--plot` draws, made ready before the probe.
enum Plots {
    /// `--plot FILE.svg`: all inputs together.
    File(PlotFile),
    /// `--plot DIR/`: one per file and one of all.
    Dir(PlotDir),
}

/// `--plot DIR/`: the directory (created if missing), the plot of all
/// files (its temporary file created at once, as `--plot FILE.svg`'s), and
/// each input's plot name ([`plot::file_names`]), none of which may exist
/// yet without `-f`.
struct PlotDir {
    /// The plot of all the files.
    all: PlotFile,
    /// Each input's plot, by its index in the files listed (or the
    /// built-in corpus).
    targets: Vec<PathBuf>,
    /// `-f`.
    force: bool,
    /// Dropped after `all`'s temporary file: removes a directory this run
    /// created if nothing was drawn in it.
    created: CreatedDir,
}

impl PlotDir {
    fn prepare(dir: &Path, files: &[PathBuf], force: bool) -> Result<PlotDir, String> {
        let not_a_dir = || {
            format!(
                "{}: not a directory (--plot DIR/ writes a plot per file into a directory; \
                 --plot FILE.svg writes one plot)",
                dir.display()
            )
        };
        let created = match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => CreatedDir(None),
            Ok(_) => return Err(not_a_dir()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("{}: {}", dir.display(), describe_io(&e)))?;
                CreatedDir(Some(dir.to_path_buf()))
            }
            // "file/": a file where the directory should be.
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return Err(not_a_dir()),
            Err(e) => return Err(format!("{}: {}", dir.display(), describe_io(&e))),
        };
        let names: Vec<String> = match files.is_empty() {
            false => files
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            true => (0..corpus::len())
                .map(|i| corpus::name(i).to_string())
                .collect(),
        };
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let targets: Vec<PathBuf> = plot::file_names(&names)
            .into_iter()
            .map(|name| dir.join(name))
            .collect();
        let all = dir.join(plot::ALL);
        if !force {
            let taken: Vec<&PathBuf> = std::iter::once(&all)
                .chain(&targets)
                .filter(|t| std::fs::symlink_metadata(t).is_ok())
                .collect();
            match taken[..] {
                [] => {}
                [one] => return Err(exists(one)),
                [first, ..] => {
                    return Err(format!(
                        "{} and {} more plots already exist; not overwritten (use -f to overwrite)",
                        first.display(),
                        taken.len() - 1
                    ));
                }
            }
        }
        Ok(PlotDir {
            all: PlotFile::create(&all)?,
            targets,
            force,
            created,
        })
    }

    /// Draw the plot of all files (`report`), then each file's.
    fn draw(
        mut self,
        report: &probe::Report,
        per_file: &[PerFile],
        io: lzkit::probe::IoRate,
        block: &str,
    ) -> Result<(), String> {
        // Something is drawn: the directory stays.
        self.created.0 = None;
        let what = format!("lzkit probe, all {} files", report.files);
        let title = plot::Title { what: &what, block };
        self.all.draw(report, io, &title, self.force)?;
        for file in per_file {
            let what = format!("lzkit probe, {} alone", short(&file.name));
            let block = file.report.block_size.to_string();
            let title = plot::Title {
                what: &what,
                block: &block,
            };
            PlotFile::create(&self.targets[file.index])?.draw(
                &file.report,
                io,
                &title,
                self.force,
            )?;
        }
        Ok(())
    }
}

/// A directory `--plot DIR/` created, removed again when dropped if it is
/// still empty (the probe failed); `None` once kept or if it was there.
struct CreatedDir(Option<PathBuf>);

impl Drop for CreatedDir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// A file name for a caption: its last [`CAPTION_NAME`] characters.
fn short(name: &str) -> String {
    let count = name.chars().count();
    match count > CAPTION_NAME {
        true => format!(
            "...{}",
            name.chars().skip(count - CAPTION_NAME).collect::<String>()
        ),
        false => name.to_string(),
    }
}

/// The longest file name in a caption, in characters.
const CAPTION_NAME: usize = 60;

/// A probe error as one line.
fn describe(e: ProbeError) -> String {
    match e {
        ProbeError::Io { name, source } => format!("{name}: {}", describe_io(&source)),
        other => other.to_string(),
    }
}

/// The files named, directories walked (sorted; symbolic links inside
/// them not followed). Empty: the built-in corpus.
fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            return Err("-: standard input cannot be sampled (a probe seeks); name a file".into());
        }
        let meta = std::fs::metadata(path)
            .map_err(|e| format!("{}: {}", path.display(), describe_io(&e)))?;
        if meta.is_dir() {
            walk(path, &mut files)?;
        } else if meta.is_file() {
            files.push(path.clone());
        } else {
            return Err(format!(
                "{}: not a regular file or directory",
                path.display()
            ));
        }
    }
    if !paths.is_empty() && files.is_empty() {
        return Err("nothing to probe: no files in the directories named".into());
    }
    Ok(files)
}

/// Append the regular files under `dir`, sorted by path.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {}", dir.display(), describe_io(&e));
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        entries.push((entry.path(), entry.file_type().map_err(fail)?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in entries {
        if kind.is_dir() {
            walk(&path, files)?;
        } else if kind.is_file() {
            files.push(path);
        }
    }
    Ok(())
}

/// What the header says was probed.
fn source_label(inputs: &[PathBuf]) -> String {
    if inputs.is_empty() {
        return "built-in corpus".into();
    }
    let named: Vec<String> = inputs
        .iter()
        .take(MAX_NAMED_SOURCES)
        .map(|p| p.display().to_string())
        .collect();
    match inputs.len().saturating_sub(MAX_NAMED_SOURCES) {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// lz4's `LZ4_decompress_safe`.
struct Lz4Reference;

impl ReferenceDecoder for Lz4Reference {
    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        c_ref::decompress_into(src, dst).ok_or_else(|| "LZ4_decompress_safe failed".into())
    }
}

/// libzstd with one reused context (`ZSTD_decompressDCtx`).
struct ZstdReference(zstd::bulk::Decompressor<'static>);

impl ReferenceDecoder for ZstdReference {
    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        self.0
            .decompress_to_buffer(src, dst)
            .map_err(|e| e.to_string())
    }
}

/// The progress bar (on a terminal, without `-q`) and the C references.
struct CliHooks {
    bar: Option<ProgressBar>,
    lz4: Option<Lz4Reference>,
    zstd: Option<ZstdReference>,
}

impl CliHooks {
    fn new(progress: bool, references: bool) -> CliHooks {
        CliHooks {
            bar: super::progress::step_bar(progress, 1, 45, "steps"),
            lz4: (references && BUILT_IN).then_some(Lz4Reference),
            zstd: references
                .then(|| zstd::bulk::Decompressor::new().ok().map(ZstdReference))
                .flatten(),
        }
    }

    fn stage(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(what.to_string());
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for CliHooks {
    /// No bar left behind an error message.
    fn drop(&mut self) {
        self.finish();
    }
}

impl Hooks for CliHooks {
    fn progress(&mut self, p: Progress) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{}: {}", p.setting, p.stage.describe()));
            bar.set_length(p.total);
            bar.set_position(p.done);
        }
    }

    fn reference(&mut self, codec: Codec) -> Option<&mut dyn ReferenceDecoder> {
        match codec {
            Codec::Lz4 => self.lz4.as_mut().map(|r| r as &mut dyn ReferenceDecoder),
            Codec::Zstd => self.zstd.as_mut().map(|r| r as &mut dyn ReferenceDecoder),
            _ => None,
        }
    }
}
