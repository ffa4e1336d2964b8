//! `lzkit bench`: the ClickHouse LZ4 study's per-file table for any data.
//!
//! For every input (files, the files of directories, or a built-in corpus),
//! the driver here cuts it into blocks and compresses them ([`codec`]), times
//! every decoder on them ([`measure()`]) and collects one row per file for the
//! report ([`report`], drawn by [`render`]). [`options`] parses the command
//! line (read by [`cmdline`], as `lzkit probe`'s), [`corpus`] generates the
//! built-in data (`lzkit-corpus`), [`rng`] supplies the seeded randomness.
//!
//! The other modes measure with the same method ([`measure::interleave`])
//! and report through [`modes`]: block compression per level against the C
//! library ([`compress`]), frame decoding against a loop of block decodes
//! ([`frame`]), multithreaded frame compression and decoding against
//! one thread ([`threads`]), and zstd decoding against libzstd
//! ([`zstd_decode`]). `docs/benchmarking.md` describes the method.
//!
//! Like the rest of the CLI it uses only the library's public API. The C
//! references it measures against (liblz4 and lz4_flex; libzstd is always
//! there) come with the `c-reference` feature only, through
//! [`reference`](mod@reference):
//! without it every mode measures lzkit alone, leaves their columns empty
//! and says in a line how to build them in.

// Also `lzkit probe`'s command line.
pub(super) mod cmdline;
mod codec;
mod compress;
mod corpus;
mod frame;
// `lzkit -b# -e#`: lz4's benchmark.
pub(super) mod levels;
mod measure;
mod modes;
mod options;
// Also `lzkit probe`'s C reference.
pub(super) mod reference;
// Also `lzkit probe`'s tables and JSON.
pub(super) mod render;
mod report;
mod rng;
mod threads;
mod zstd_decode;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::ProgressBar;
use lzkit::lz4::block::{self, Variant};

use super::report::{PROGRAM, eprint_line};
use cmdline::Parsed;
use codec::{Blocks, compress_blocks};
use measure::{Contender, FLUSH_BYTES, Flush, Measured, Plan, Sampling, measure};
use options::{Mode, Options};
use report::{FileResult, Report, Settings, Speeds};
use rng::{Rng, derive_seed};

/// Exit status when a compressor failed (lzbench's code for it).
const EXIT_COMPRESS_FAILED: u8 = 10;
/// Exit status when a decoder failed or decoded wrong bytes (lzbench's
/// code for a decompression mismatch).
const EXIT_DECODE_FAILED: u8 = 11;
/// Input arguments named in the report's header before "and N more".
const MAX_NAMED_SOURCES: usize = 3;
/// Environment variable of the testing hook [`Options::fault`].
const FAULT_VARIABLE: &str = "LZKIT_BENCH_FAULT";

/// Why a run stopped, which sets the exit status.
#[derive(Debug)]
enum Failure {
    /// A missing or unreadable input (status 1).
    Input(String),
    /// The compressor failed on a block.
    Compress(String),
    /// A decoder failed or decoded wrong bytes.
    Decode(String),
}

impl Failure {
    fn report(self) -> ExitCode {
        let (msg, code) = match self {
            Failure::Input(m) => (m, 1),
            Failure::Compress(m) => (m, EXIT_COMPRESS_FAILED),
            Failure::Decode(m) => (m, EXIT_DECODE_FAILED),
        };
        eprint_line(format_args!("{PROGRAM} bench: {msg}"));
        ExitCode::from(code)
    }
}

/// Run `lzkit bench` with the arguments after `bench`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let mut opts = match options::parse(args) {
        Ok(Parsed::Run(opts)) => opts,
        Ok(Parsed::Help) => return print(options::HELP),
        Err(msg) => {
            eprint_line(format_args!("{PROGRAM} bench: {msg}"));
            eprint_line(format_args!("Try '{PROGRAM} bench -h' for help."));
            return ExitCode::FAILURE;
        }
    };
    opts.fault = std::env::var(FAULT_VARIABLE).ok();
    let rendered = match opts.mode {
        Mode::Decode => run(&opts).map(|report| report.render(opts.format)),
        Mode::Compress => compress::run(&opts).map(|report| report.render(opts.format)),
        Mode::Frame => frame::run(&opts).map(|report| report.render(opts.format)),
        Mode::Threads(n) => threads::run(&opts, n).map(|report| report.render(opts.format)),
        Mode::Zstd => zstd_decode::run(&opts).map(|report| report.render(opts.format)),
    };
    match rendered {
        Ok(text) => print(&text),
        Err(failure) => failure.report(),
    }
}

/// Write to standard output; a closed or full one is a failure, not a
/// panic nor lost output.
fn print(text: &str) -> ExitCode {
    match super::output::stdout_writer() {
        Ok(mut out) => match out.write_all(text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprint_line(format_args!(
                    "{PROGRAM} bench: stdout: {}",
                    super::report::describe_io(&e)
                ));
                ExitCode::FAILURE
            }
        },
        Err(f) => {
            eprint_line(f);
            ExitCode::FAILURE
        }
    }
}

/// One input: a file, a file of the built-in corpus (by index), or several
/// inputs concatenated (`--concat`) or interleaved (`--interleave`: their
/// bytes concatenated, their blocks decoded in turn).
enum Input {
    File(PathBuf),
    BuiltIn(usize),
    Concat(Vec<Input>),
    Interleave(Vec<Input>),
}

impl Input {
    /// Name in the report: the file name without its directory.
    fn name(&self) -> String {
        match self {
            Input::File(path) => path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            Input::BuiltIn(i) => corpus::name(*i).to_string(),
            Input::Concat(all) => format!("{} inputs concatenated", all.len()),
            Input::Interleave(all) => {
                let first = all.first().map_or_else(String::new, Input::name);
                format!("{first} +{}", all.len().saturating_sub(1))
            }
        }
    }

    fn load(&self, scale: f64) -> Result<Vec<u8>, Failure> {
        self.load_parts(scale).map(|(data, _)| data)
    }

    /// The input's bytes, and the lengths of the parts whose blocks are
    /// interleaved: each member's for an interleaved group, else one part,
    /// the whole input.
    fn load_parts(&self, scale: f64) -> Result<(Vec<u8>, Vec<usize>), Failure> {
        let whole = |data: Vec<u8>| {
            let len = data.len();
            (data, vec![len])
        };
        let (all, interleaved) = match self {
            Input::File(path) => {
                return std::fs::read(path)
                    .map(whole)
                    .map_err(|e| Failure::Input(format!("{}: {e}", path.display())));
            }
            Input::BuiltIn(i) => return Ok(whole(corpus::generate(*i, scale))),
            Input::Concat(all) => (all, false),
            Input::Interleave(all) => (all, true),
        };
        let mut data = Vec::new();
        let mut parts = Vec::with_capacity(all.len());
        for input in all {
            let part = input.load(scale)?;
            parts.push(part.len());
            data.extend_from_slice(&part);
        }
        Ok(match interleaved {
            true => (data, parts),
            false => whole(data),
        })
    }
}

/// The inputs named (a directory: its regular files, sorted by name), or
/// the built-in corpus when none is; with `concat`, all of them as one.
fn list_inputs(
    paths: &[PathBuf],
    concat: bool,
    interleave: Option<usize>,
) -> Result<Vec<Input>, Failure> {
    let inputs = list_each(paths)?;
    if let Some(n) = interleave {
        let mut groups = Vec::new();
        let mut rest = inputs.into_iter().peekable();
        while rest.peek().is_some() {
            groups.push(Input::Interleave(rest.by_ref().take(n).collect()));
        }
        return Ok(groups);
    }
    Ok(match concat {
        true => vec![Input::Concat(inputs)],
        false => inputs,
    })
}

/// [`list_inputs`] one by one.
fn list_each(paths: &[PathBuf]) -> Result<Vec<Input>, Failure> {
    if paths.is_empty() {
        return Ok((0..corpus::len()).map(Input::BuiltIn).collect());
    }
    let mut inputs = Vec::new();
    for path in paths {
        if path.is_dir() {
            inputs.extend(files_in(path)?.into_iter().map(Input::File));
        } else if path.is_file() {
            inputs.push(Input::File(path.clone()));
        } else {
            return Err(Failure::Input(format!(
                "{}: no such file or directory",
                path.display()
            )));
        }
    }
    if inputs.is_empty() {
        return Err(Failure::Input("no files to benchmark".into()));
    }
    Ok(inputs)
}

/// Regular files directly in `dir`, sorted.
fn files_in(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let fail = |e: std::io::Error| Failure::Input(format!("{}: {e}", dir.display()));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let path = entry.map_err(fail)?.path();
        if path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// What the header says was measured.
fn source_label(opts: &Options) -> String {
    let interleaved = opts
        .interleave
        .map(|n| format!(", blocks of groups of {n} interleaved"));
    let concat = match (opts.concat, &interleaved) {
        (true, _) => ", concatenated",
        (false, Some(text)) => text.as_str(),
        (false, None) => "",
    };
    if opts.inputs.is_empty() {
        return format!("built-in corpus (scale {}){concat}", opts.corpus_scale);
    }
    let named: Vec<String> = opts
        .inputs
        .iter()
        .take(MAX_NAMED_SOURCES)
        .map(|p| p.display().to_string())
        .collect();
    match opts.inputs.len().saturating_sub(MAX_NAMED_SOURCES) {
        0 => format!("{}{concat}", named.join(", ")),
        more => format!("{} and {more} more{concat}", named.join(", ")),
    }
}

/// Load every input in turn and hand each non-empty one to `measure_one`
/// with its index, name and bytes, and the progress bar (which counts
/// rounds, the warm-up round included); an empty input is skipped with a
/// note. Fails if every input is empty.
fn for_each_input(
    opts: &Options,
    mut measure_one: impl FnMut(usize, String, &[u8], &[usize], &Progress) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let inputs = list_inputs(&opts.inputs, opts.concat, opts.interleave)?;
    let rounds_per_file = u64::from(opts.rounds) + 1; // plus the warm-up round
    let progress = Progress::new(!opts.quiet, inputs.len() as u64 * rounds_per_file);
    let mut measured = 0;
    for (i, input) in inputs.iter().enumerate() {
        let name = input.name();
        let (data, parts) = input.load_parts(opts.corpus_scale)?;
        if data.is_empty() {
            progress.note(&format!("{PROGRAM} bench: {name}: empty, skipped"));
            progress.advance(rounds_per_file);
            continue;
        }
        measure_one(i, name, &data, &parts, &progress)?;
        measured += 1;
    }
    progress.finish();
    match measured {
        0 => Err(Failure::Input(
            "no data to benchmark: every input is empty".into(),
        )),
        _ => Ok(()),
    }
}

/// Measure every input and gather the report.
fn run(opts: &Options) -> Result<Report, Failure> {
    let contenders = Contender::all();
    let mut order = Rng::new(opts.seed);
    let mut flush = match opts.sampling == Sampling::Cold {
        true => Some(Flush::new(corpus::other_data(FLUSH_BYTES)).map_err(Failure::Compress)?),
        false => None,
    };
    let mut files = Vec::new();
    for_each_input(opts, |i, name, data, parts, progress| {
        progress.stage(&name, "compressing");
        let blocks = interleaved_blocks(data, parts, |part| {
            compress_blocks(part, opts.block_size, opts.compressor, opts.level)
        })
        .map_err(|e| Failure::Compress(format!("{name}: {e}")))?;
        progress.stage(&name, "decoding");
        let plan = Plan {
            rounds: opts.rounds,
            stat: opts.stat,
            adapt_seed: derive_seed(opts.seed, i as u64),
            sampling: opts.sampling,
            fault: contenders
                .iter()
                .copied()
                .find(|c| opts.fault.as_deref() == Some(c.name())),
        };
        let measured = measure(
            data,
            &blocks,
            &contenders,
            plan,
            flush.as_mut(),
            &mut order,
            || progress.advance(1),
        )
        .map_err(|e| Failure::Decode(format!("{name}: {e}")))?;
        files.push(file_result(
            name,
            data.len(),
            &blocks,
            &contenders,
            measured,
        )?);
        Ok(())
    })?;
    Ok(Report {
        settings: settings(opts),
        files,
    })
}

/// The report's header facts.
fn settings(opts: &Options) -> Settings {
    Settings {
        source: source_label(opts),
        block_size: opts.block_size,
        compressor: opts.compressor.describe(opts.level),
        reference: match reference::BUILT_IN {
            true => format!("lz4 {} LZ4_decompress_safe", codec::ref_version()),
            false => "none (not built in)".into(),
        },
        rounds: opts.rounds,
        stat: opts.stat,
        sampling: opts.sampling,
        seed: opts.seed,
        variants: Variant::available().to_vec(),
        candidates: Variant::candidates().to_vec(),
        all_variants: opts.all_variants,
        interleave: opts.interleave,
    }
}

/// `data`, made of parts of the lengths `parts`, compressed part by part
/// in blocks by `compress`, and the blocks of the parts taken in turn
/// (round-robin: the first block of each part, then the second of each,
/// ...), as a reader of several columns decodes them. One part: its blocks
/// in order.
fn interleaved_blocks(
    data: &[u8],
    parts: &[usize],
    compress: impl Fn(&[u8]) -> Result<Blocks, String>,
) -> Result<Blocks, String> {
    if parts.len() < 2 {
        return compress(data);
    }
    let mut each = Vec::with_capacity(parts.len());
    let mut at = 0;
    for &len in parts {
        let part = data
            .get(at..at + len)
            .ok_or("an input changed while read")?;
        each.push((at, compress(part)?));
        at += len;
    }
    let mut merged = Blocks {
        data: Vec::with_capacity(each.iter().map(|(_, b)| b.data.len()).sum()),
        blocks: Vec::new(),
    };
    let most = each.iter().map(|(_, b)| b.blocks.len()).max().unwrap_or(0);
    for k in 0..most {
        for (offset, part) in &each {
            if let Some(b) = part.blocks.get(k) {
                let start = merged.data.len();
                merged
                    .data
                    .extend_from_slice(&part.data[b.compressed.clone()]);
                merged.blocks.push(codec::Block {
                    compressed: start..merged.data.len(),
                    original: offset + b.original.start..offset + b.original.end,
                });
            }
        }
    }
    Ok(merged)
}

/// The variant the free function uses for most of `blocks`.
fn free_majority(blocks: &Blocks) -> Variant {
    let mut counts: Vec<(Variant, usize)> = Vec::new();
    for b in &blocks.blocks {
        let v = block::free_variant(&blocks.data[b.compressed.clone()], b.original.len());
        match counts.iter_mut().find(|c| c.0 == v) {
            Some(c) => c.1 += 1,
            None => counts.push((v, 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|c| c.1)
        .map_or(Variant::default_for_cpu(), |c| c.0)
}

/// One file's row from its measurement (speeds in [`Contender::all`] order).
fn file_result(
    name: String,
    bytes: usize,
    blocks: &Blocks,
    contenders: &[Contender],
    measured: Measured,
) -> Result<FileResult, Failure> {
    let mut speeds = Speeds {
        reference: f64::NAN,
        lz4_flex: f64::NAN,
        variants: Vec::new(),
        adapt: f64::NAN,
        fresh: f64::NAN,
        free: f64::NAN,
        memcpy: f64::NAN,
    };
    for (&c, &gbps) in contenders.iter().zip(&measured.gbps) {
        match c {
            Contender::Ref => speeds.reference = gbps,
            Contender::Lz4Flex => speeds.lz4_flex = gbps,
            Contender::Fixed(_) => speeds.variants.push(gbps),
            Contender::Adapt => speeds.adapt = gbps,
            Contender::Fresh => speeds.fresh = gbps,
            Contender::Free => speeds.free = gbps,
            Contender::Memcpy => speeds.memcpy = gbps,
        }
    }
    let adapt = measured
        .adapt
        .ok_or_else(|| Failure::Decode(format!("{name}: the adaptive decoder was not measured")))?;
    Ok(FileResult {
        name,
        bytes,
        compressed: blocks.data.len(),
        blocks: blocks.blocks.len(),
        speeds,
        adapt,
        free_choice: free_majority(blocks),
    })
}

/// A progress bar on standard error: shown only when that is a terminal
/// (never control characters in a redirected log) and not `-q`. Counts
/// rounds over all files.
struct Progress(Option<ProgressBar>);

impl Progress {
    fn new(wanted: bool, total: u64) -> Progress {
        Progress(super::progress::step_bar(wanted, total, 40, "rounds"))
    }

    /// Show what is happening to which file.
    fn stage(&self, name: &str, what: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(format!("{name}: {what}"));
        }
    }

    fn advance(&self, rounds: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(rounds);
        }
    }

    /// A message on standard error that does not garble the bar.
    fn note(&self, msg: &str) {
        match &self.0 {
            Some(bar) => bar.suspend(|| eprint_line(msg)),
            None => eprint_line(msg),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::Compressor;

    #[test]
    fn interleaved_blocks_take_the_parts_in_turn_and_tile_the_input() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i / 1000 % 251) as u8).collect();
        let parts = [150_000, 20_000, 130_000];
        let bs = 64 << 10;
        let compress = |p: &[u8]| compress_blocks(p, bs, Compressor::Lzkit, 1);
        let merged = interleaved_blocks(&data, &parts, compress).unwrap();
        // 3 + 1 + 2 blocks: round 0 takes one of each part, round 1 the
        // second of the first and third, round 2 the first part's last.
        let starts: Vec<usize> = merged.blocks.iter().map(|b| b.original.start).collect();
        assert_eq!(starts, [0, 150_000, 170_000, bs, 170_000 + bs, 2 * bs]);
        // Every block decodes to its place, and the places tile the input.
        let mut covered = vec![false; data.len()];
        for b in &merged.blocks {
            let got =
                lzkit::lz4::block::decompress(&merged.data[b.compressed.clone()], b.original.len())
                    .unwrap();
            assert_eq!(got, &data[b.original.clone()]);
            covered[b.original.clone()]
                .iter_mut()
                .for_each(|c| *c = true);
        }
        assert!(covered.iter().all(|&c| c));
        // One part: the blocks in order, as without interleaving.
        let one = interleaved_blocks(&data, &[data.len()], compress).unwrap();
        assert_eq!(one.data, compress(&data).unwrap().data);
        // Parts longer than the data: an error, not a panic.
        assert!(interleaved_blocks(&data, &[200_000, 200_000], compress).is_err());
    }

    #[test]
    fn the_free_majority_is_the_free_functions_variant() {
        let data: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i / 4 % 60).to_le_bytes())
            .collect();
        let blocks = compress_blocks(&data, 64 << 10, Compressor::Lzkit, 1).unwrap();
        let first = &blocks.blocks[0];
        let v = free_majority(&blocks);
        assert!(blocks.blocks.iter().any(|b| {
            block::free_variant(&blocks.data[b.compressed.clone()], b.original.len()) == v
        }));
        assert!(Variant::available().contains(&v), "{v:?} {first:?}");
    }
}
