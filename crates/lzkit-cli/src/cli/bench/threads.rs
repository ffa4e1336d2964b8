//! `lzkit bench --threads N` (`--mt`: one thread per core): frame
//! compression and decoding on N threads against one, per file and level.
//!
//! Frames are the lz4 command's (independent blocks, 4 MiB unless `-B`,
//! content checksum). Contenders, per level: `frame::compress` with
//! `threads` 1 and N; `frame::decompress_with` of that frame with 1 and N
//! threads; and the streaming `FrameDecoder::with_threads`, read into the
//! output 1 MiB at a time. All of a file's contenders are interleaved in
//! the same rounds. Every sample is verified: a compressed frame must equal
//! the one-thread frame byte for byte (the encoder's output does not
//! depend on the thread count; that frame was checked to decode to the
//! input first), and decoded data must equal the input.
//!
//! The encoder cuts its input into jobs of `frame::MIN_JOB_SIZE` (4 MiB),
//! and parallel decoding works on blocks: a file under two jobs gives the
//! threads nothing to share, so small files are best measured with
//! `--concat`.

use std::io::Read;

use lzkit::lz4::frame::{self, BlockMode, DecodeOptions, FrameDecoder, FrameOptions, MIN_JOB_SIZE};

use super::measure::verify;
use super::modes::{
    Column, Contenders, ModeReport, Rows, Subject, Sum, col, levels_setting, measure_all,
    named_enum, poison,
};
use super::options::{Options, frame_block_size};
use super::render::{Cell, block_size_label, json_str};
use super::{Failure, source_label};
use crate::cli::bench::compress::level_list;

/// Bytes the streaming decoder is asked for per read.
const READ_SIZE: usize = 1 << 20;

named_enum! {
    /// What a contender does.
    enum Work {
        /// `frame::compress`.
        Compress => "compress",
        /// `frame::decompress_with`.
        Decompress => "decompress",
        /// `FrameDecoder::with_threads`, read to the end.
        Stream => "stream",
    }
}

/// One contender: work at a level on a number of threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Op {
    /// Index into the levels.
    level: usize,
    work: Work,
    threads: usize,
}

/// One file's frames (one per level) and output buffers.
struct Bench<'a> {
    data: &'a [u8],
    levels: &'a [i32],
    options: FrameOptions,
    /// The one-thread frame of each level.
    frames: Vec<Vec<u8>>,
    /// The last compressed frame (`frame::compress` allocates it).
    compressed: Vec<u8>,
    /// The last data `frame::decompress_with` decoded (it allocates it).
    decoded: Vec<u8>,
    /// Where the streaming decoder's reads go: the input's size and one
    /// read more, allocated once.
    streamed: Vec<u8>,
    /// Bytes the last streaming pass read.
    streamed_len: usize,
}

impl<'a> Bench<'a> {
    /// A bench of `data` whose one-thread frames at `levels`, written with
    /// `options`, are `frames`.
    fn new(
        data: &'a [u8],
        levels: &'a [i32],
        options: FrameOptions,
        frames: Vec<Vec<u8>>,
    ) -> Bench<'a> {
        Bench {
            data,
            levels,
            options,
            frames,
            compressed: Vec::new(),
            decoded: Vec::new(),
            streamed: vec![0; data.len() + READ_SIZE],
            streamed_len: 0,
        }
    }

    fn frame_options(&self, op: Op) -> FrameOptions {
        self.options
            .clone()
            .level(self.levels[op.level])
            .threads(op.threads)
    }
}

impl Contenders for Bench<'_> {
    type Op = Op;

    fn label(&self, op: Op) -> String {
        label(op, self.levels)
    }

    fn pass(&mut self, op: Op) -> Result<(), String> {
        let frame = &self.frames[op.level];
        match op.work {
            Work::Compress => self.compressed = frame::compress(self.data, &self.frame_options(op)),
            Work::Decompress => {
                let options = DecodeOptions::new().threads(op.threads);
                self.decoded =
                    frame::decompress_with(frame, &options).map_err(|e| e.to_string())?;
            }
            Work::Stream => {
                let mut reader = FrameDecoder::with_threads(&frame[..], op.threads);
                let out = &mut self.streamed;
                let mut at = 0;
                loop {
                    let end = (at + READ_SIZE).min(out.len());
                    match reader.read(&mut out[at..end]) {
                        Ok(0) => break,
                        Ok(n) => at += n,
                        Err(e) => return Err(e.to_string()),
                    }
                    if at == out.len() {
                        return Err("more data than the input".into());
                    }
                }
                self.streamed_len = at;
            }
        }
        Ok(())
    }

    fn reset(&mut self, op: Op) {
        // Outputs the library allocates are freed here, outside the clock.
        match op.work {
            Work::Compress => self.compressed = Vec::new(),
            Work::Decompress => self.decoded = Vec::new(),
            Work::Stream => poison(&mut self.streamed),
        }
    }

    fn check(&mut self, op: Op, fault: bool) -> Result<(), String> {
        let (out, want) = match op.work {
            Work::Compress => (&mut self.compressed[..], &self.frames[op.level][..]),
            Work::Decompress => (&mut self.decoded[..], self.data),
            Work::Stream => (&mut self.streamed[..self.streamed_len], self.data),
        };
        if fault && let Some(last) = out.last_mut() {
            *last ^= 0x5A;
        }
        if out.len() != want.len() {
            return Err(format!("{} bytes instead of {}", out.len(), want.len()));
        }
        verify(out, want).map_err(|e| match op.work {
            Work::Compress => "the frame differs from the one-thread frame".to_string(),
            _ => e,
        })
    }
}

/// The contender's name, for messages and the testing hook:
/// "compress level 1 threads 2".
fn label(op: Op, levels: &[i32]) -> String {
    format!(
        "{} level {} threads {}",
        op.work.name(),
        levels[op.level],
        op.threads
    )
}

fn columns() -> Vec<Column> {
    let mut columns = vec![
        col("file", Sum::Blank),
        col("level", Sum::Key),
        col("size", Sum::Total),
        col("ratio", Sum::Geomean),
    ];
    for work in Work::ALL {
        columns.push(col(format!("{}_1", work.name()), Sum::Geomean));
        columns.push(col(format!("{}_n", work.name()), Sum::Geomean));
        columns.push(col(format!("{}_speedup", work.name()), Sum::Low));
    }
    columns
}

fn measure_file(opts: &Options, threads: usize, subject: &mut Subject) -> Rows {
    let data = subject.data;
    let name = subject.name;
    let block_size = frame_block_size(opts.block_size)
        .ok_or_else(|| Failure::Input("--threads needs a frame block size".into()))?;
    let options = FrameOptions::new()
        .block_size(block_size)
        .block_mode(BlockMode::Independent)
        .threads(1);
    let mut frames = Vec::new();
    for &level in &opts.levels {
        let f = frame::compress(data, &options.clone().level(level));
        match frame::decompress(&f) {
            Ok(back) if back == data => frames.push(f),
            _ => {
                return Err(Failure::Compress(format!(
                    "{name}: the level {level} frame does not decode to the input"
                )));
            }
        }
    }
    let mut bench = Bench::new(data, &opts.levels, options, frames);
    let mut ops = Vec::new();
    for level in 0..opts.levels.len() {
        for work in Work::ALL {
            for t in [1, threads] {
                ops.push(Op {
                    level,
                    work,
                    threads: t,
                });
            }
        }
    }
    let seconds =
        measure_all(opts, &mut bench, &ops, subject).map_err(|(op, e)| match op.work {
            Work::Compress => Failure::Compress(format!("{name}: {e}")),
            _ => Failure::Decode(format!("{name}: {e}")),
        })?;
    let speed = |k: usize| {
        let unit = match ops[k].work {
            Work::Compress => 1e6,
            _ => 1e9,
        };
        data.len() as f64 / seconds[k] / unit
    };
    let rows = (0..opts.levels.len())
        .map(|l| {
            let mut row = vec![
                Cell::Text(name.to_string()),
                Cell::Int(i64::from(opts.levels[l])),
                Cell::Size(data.len() as u64),
                Cell::Compression(data.len() as f64 / bench.frames[l].len() as f64),
            ];
            for (w, _) in Work::ALL.iter().enumerate() {
                // Ops of level l: 3 works of 2 thread counts each.
                let one = l * 6 + w * 2;
                row.push(Cell::Speed(speed(one)));
                row.push(Cell::Speed(speed(one + 1)));
                row.push(Cell::Ratio(seconds[one] / seconds[one + 1]));
            }
            row
        })
        .collect();
    Ok(rows)
}

/// Run `lzkit bench --threads N`.
pub fn run(opts: &Options, threads: usize) -> Result<ModeReport, Failure> {
    let n = frame::effective_threads(threads);
    let mut small = 0;
    let job = MIN_JOB_SIZE.max(opts.block_size);
    let mut report = super::modes::run(opts, &columns(), |subject| {
        if subject.data.len() < 2 * job {
            small += 1;
        }
        measure_file(opts, n, subject)
    })?;
    let files = report.table.summary_from / opts.levels.len().max(1);
    if small > 0 {
        let advice = match opts.concat {
            true => "measure more data",
            false => "measure many files as one with --concat",
        };
        report.notes.push(format!(
            "{small} of {files} inputs are under two jobs of {} MiB: the threads have little \
             or no work to share on them ({advice})",
            job >> 20
        ));
    }
    let source = source_label(opts);
    report.header = vec![
        format!(
            "lzkit bench --threads {threads}: {n} threads against 1 ({} cores here); {source}; \
             frames of independent {} blocks with a content checksum, levels {}",
            frame::effective_threads(0),
            block_size_label(opts.block_size),
            level_list(&opts.levels)
        ),
        format!(
            "{} of {} rounds (wall clock); contenders interleaved in a random order each round \
             (seed {}), each sample at least 1 MiB of repeated passes; every frame compared \
             with the one-thread frame, every decode with the input",
            opts.stat.name(),
            opts.rounds,
            opts.seed
        ),
        format!(
            "compress_1, compress_n = frame::compress on 1 and {n} threads (MB/s of input); \
             decompress_* = frame::decompress_with, stream_* = FrameDecoder::with_threads read \
             1 MiB at a time (GB/s of output); *_speedup = time on 1 thread / time on {n}; \
             ratio = input / frame size"
        ),
        "on a machine others are using, threads wait for cores: speedups then say little"
            .to_string(),
    ];
    report.settings.extend([
        ("threads", n.to_string()),
        levels_setting(&opts.levels),
        (
            "unit",
            json_str("compress: MB/s of input; decompress, stream: GB/s of output"),
        ),
    ]);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_verifies_and_a_fault_is_caught() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i / 5).to_le_bytes())
            .collect();
        let options = FrameOptions::new().block_size(frame::BlockSize::Max64KB);
        let levels = [1, 3];
        let frames = levels
            .iter()
            .map(|&level| frame::compress(&data, &options.clone().level(level)))
            .collect();
        let mut bench = Bench::new(&data, &levels, options, frames);
        for level in 0..2 {
            for work in Work::ALL {
                for threads in [1, 2] {
                    let op = Op {
                        level,
                        work,
                        threads,
                    };
                    bench.pass(op).unwrap();
                    bench.check(op, false).unwrap();
                    bench.reset(op);
                    bench.pass(op).unwrap();
                    assert!(bench.check(op, true).is_err(), "{op:?}");
                }
            }
        }
        assert_eq!(
            label(
                Op {
                    level: 1,
                    work: Work::Stream,
                    threads: 2
                },
                &levels
            ),
            "stream level 3 threads 2"
        );
    }
}
