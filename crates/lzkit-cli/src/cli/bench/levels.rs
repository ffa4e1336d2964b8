//! `lzkit -b# [-e#] [-i#] [-B#] [FILE...]`: lz4's compression benchmark,
//! in lz4's shape.
//!
//! As `lz4 -b` (1.9.4), every file is one block (or blocks of `-B` bytes,
//! `-B4`..`-B7` or a size), all files are measured together, and each
//! level prints one line: the name (the file's, or "N files"), input and
//! compressed sizes, the ratio, and compression and decompression speeds
//! in MB/s (10^6 bytes per second, one core; the fastest of the rounds).
//! lzkit's own block compressor and decoder are measured; after every
//! round the decoded bytes are compared with the input. `-i#` counts
//! rounds (lz4: seconds). The built-in corpus stands in for no file.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use lzkit::lz4::block;

use super::super::args::Options;
use super::super::report::{PROGRAM, eprint_line};
use super::corpus;

/// Rounds without `-i#`.
const DEFAULT_ROUNDS: u64 = 3;
/// Each round repeats its passes until this much time has gone by, so that
/// small inputs are timed over many passes.
const MIN_ROUND_TIME: Duration = Duration::from_millis(250);
/// Bytes of the built-in corpus measured without a file.
const CORPUS_BYTES: usize = 10 << 20;

/// What to measure: blocks of the inputs, all in one buffer.
struct Subject {
    name: String,
    data: Vec<u8>,
    /// Lengths of the blocks, in order (each file cut on its own).
    blocks: Vec<usize>,
}

/// The sizes and speeds of one level.
#[derive(Debug, Clone, Copy)]
struct LevelResult {
    compressed: usize,
    compress_mbps: f64,
    decompress_mbps: f64,
}

/// Run the benchmark `opts` asks for (`opts.bench` is active).
pub fn main(opts: &Options) -> ExitCode {
    let req = opts.bench.clone().unwrap_or_default();
    let clamp = |n: u64| lzkit::lz4::Level::saturating(n).get();
    let set = opts.level.map(|l| l.get()).filter(|&l| l > 0);
    let begin = clamp(req.begin.or(set.map(|l| l as u64)).unwrap_or(1).max(1));
    let end = clamp(req.end.unwrap_or(0)).max(begin);
    let rounds = req.rounds.unwrap_or(DEFAULT_ROUNDS).max(1);
    let block = opts.block_arg.map(|n| match n {
        4..=7 => 1usize << (8 + 2 * n),
        n => usize::try_from(n).unwrap_or(usize::MAX),
    });
    let subject = match load(&opts.files, block) {
        Ok(s) => s,
        Err(msg) => {
            eprint_line(format_args!("{PROGRAM}: {msg}"));
            return ExitCode::FAILURE;
        }
    };
    let quiet = opts.verbosity < 2;
    if !quiet {
        let blocks = match block {
            None => "each file one block".to_string(),
            Some(b) => format!("blocks of {} KiB", b.div_ceil(1024)),
        };
        println!("Benchmarking levels from {begin} to {end} ({blocks})");
        println!(
            "speeds: MB/s on one core, best of {rounds} round{}; round trips verified",
            if rounds == 1 { "" } else { "s" }
        );
    }
    for level in begin..=end {
        match measure(&subject, level, rounds) {
            Ok(r) => println!("{}", result_line(level, &subject, &r)),
            Err(msg) => {
                eprint_line(format_args!(
                    "{PROGRAM}: {}: level {level}: {msg}",
                    subject.name
                ));
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// The inputs, each cut into blocks of `block` bytes (default: one block
/// per file, up to LZ4's block limit); the built-in corpus without any.
fn load(files: &[OsString], block: Option<usize>) -> Result<Subject, String> {
    let cut = block
        .unwrap_or(block::MAX_INPUT_SIZE)
        .clamp(1, block::MAX_INPUT_SIZE);
    let mut data = Vec::new();
    let mut blocks = Vec::new();
    let mut push = |bytes: &[u8], data: &mut Vec<u8>| {
        data.extend_from_slice(bytes);
        blocks.extend(bytes.chunks(cut).map(<[u8]>::len));
    };
    let name = match files {
        [] => {
            push(&corpus::other_data(CORPUS_BYTES), &mut data);
            "built-in corpus".to_string()
        }
        _ => {
            for f in files {
                let bytes = std::fs::read(f).map_err(|e| {
                    format!(
                        "{}: cannot read: {}",
                        Path::new(f).display(),
                        super::super::report::describe_io(&e)
                    )
                })?;
                push(&bytes, &mut data);
            }
            match files {
                [one] => Path::new(one).file_name().map_or_else(
                    || Path::new(one).display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                many => format!("{} files", many.len()),
            }
        }
    };
    Ok(Subject { name, data, blocks })
}

/// Time `rounds` rounds of compressing and decoding every block at
/// `level`, keeping the fastest of each; every round's output is decoded
/// and compared with the input.
fn measure(s: &Subject, level: i32, rounds: u64) -> Result<LevelResult, String> {
    let slots: Vec<usize> = s
        .blocks
        .iter()
        .map(|&n| block::max_compressed_size(n))
        .collect();
    let mut packed: Vec<Vec<u8>> = slots.iter().map(|&n| vec![0u8; n]).collect();
    let mut sizes = vec![0usize; s.blocks.len()];
    let mut out = vec![0u8; s.data.len()];
    let (mut best_c, mut best_d) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        best_c = best_c.min(timed(|| {
            let mut at = 0;
            for (i, &n) in s.blocks.iter().enumerate() {
                sizes[i] = block::compress_into(&s.data[at..at + n], &mut packed[i], level)
                    .map_err(|e| format!("compression failed: {e}"))?;
                at += n;
            }
            Ok(())
        })?);
        // Stale bytes from the last round must not pass for decoded ones.
        out.fill(0xA5);
        best_d = best_d.min(timed(|| {
            let mut at = 0;
            for (i, &n) in s.blocks.iter().enumerate() {
                let got = block::decompress_into(&packed[i][..sizes[i]], &mut out[at..at + n])
                    .map_err(|e| format!("decoding failed: {e}"))?;
                if got != n {
                    return Err(format!("block {i} decoded to {got} bytes, not {n}"));
                }
                at += n;
            }
            Ok(())
        })?);
        if out != s.data {
            let first = out.iter().zip(&s.data).position(|(a, b)| a != b);
            return Err(format!(
                "decoded data differs from the input (first at byte {})",
                first.unwrap_or(0)
            ));
        }
    }
    let mbps = |secs: f64| s.data.len() as f64 / secs.max(1e-9) / 1e6;
    Ok(LevelResult {
        compressed: sizes.iter().sum(),
        compress_mbps: mbps(best_c),
        decompress_mbps: mbps(best_d),
    })
}

/// Seconds per pass of `pass`, repeated until [`MIN_ROUND_TIME`] has gone
/// by (at least once).
fn timed(mut pass: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let start = Instant::now();
    let mut passes = 0u32;
    loop {
        pass()?;
        passes += 1;
        let spent = start.elapsed();
        if spent >= MIN_ROUND_TIME {
            return Ok(spent.as_secs_f64() / f64::from(passes));
        }
    }
}

/// A speed in 6 columns: one decimal below 10,000 MB/s, none above.
fn speed(mbps: f64) -> String {
    if mbps < 9_999.95 {
        format!("{mbps:6.1}")
    } else {
        format!("{mbps:6.0}")
    }
}

/// One level's line, as `lz4 -b` prints it (78 columns; wider only for
/// sizes above 10^10 bytes or speeds of 10^6 MB/s):
/// ` 1#name              :   2000000 ->   1249149 (1.601), 601.8 MB/s ,3014.0 MB/s`.
fn result_line(level: i32, s: &Subject, r: &LevelResult) -> String {
    let ratio = s.data.len() as f64 / r.compressed.max(1) as f64;
    format!(
        "{level:>2}#{:<17.17} :{:>10} ->{:>10} ({ratio:5.3}),{} MB/s ,{} MB/s",
        s.name,
        s.data.len(),
        r.compressed,
        speed(r.compress_mbps),
        speed(r.decompress_mbps)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_fit_80_columns_and_blocks_follow_b() {
        let s = Subject {
            name: "a-rather-long-file-name.bin".into(),
            data: vec![0; 10],
            blocks: vec![10],
        };
        let r = LevelResult {
            compressed: 3,
            compress_mbps: 12_345.6,
            decompress_mbps: 45_678.9,
        };
        let line = result_line(12, &s, &r);
        assert!(line.len() < 80, "{line}");
        assert!(line.starts_with("12#a-rather-long-fil :"), "{line}");
        assert!(line.ends_with(" 12346 MB/s , 45679 MB/s"), "{line}");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let s = Subject {
            name: "x".into(),
            blocks: data.chunks(65_536).map(<[u8]>::len).collect(),
            data,
        };
        let r = measure(&s, 1, 1).unwrap();
        assert!(r.compressed < s.data.len() / 10);
    }
}
