//! `lzkit bench --codec zstd`: zstd decoding speed per file and level,
//! lzkit against libzstd.
//!
//! Every file is cut into frames of `-B` bytes (1 MiB by default: the
//! largest blocks ClickHouse compresses), or kept whole with `--whole`,
//! and each is compressed by libzstd at every level asked for (one reused
//! `CCtx`). The contenders decode every frame of the file into its place:
//! libzstd with one reused `DCtx` (`ref`), one reused adaptive lzkit
//! `zstd::Decoder` (`adapt`), and an lzkit decoder forced to each variant
//! this CPU runs; with `--whole` also the streaming decoders of both
//! (`stream`: `zstd::FrameDecoder`, `ref_stream`: libzstd's `Decoder`).
//! All levels' contenders of a file are interleaved in the same rounds, and
//! every sample's output is compared with the input.

use std::io::Read;
use std::ops::Range;

use lzkit::zstd::{Decoder, FrameDecoder, Variant};

use super::measure::verify;
use super::modes::{
    Column, Contenders, ModeReport, Rows, Subject, Sum, col, decode_method, levels_setting,
    measure_all, poison,
};
use super::options::Options;
use super::render::{Cell, block_size_label, json_array, json_str};
use super::report::DECODE_UNIT;
use super::{Failure, source_label};

/// Who decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    /// libzstd, `ZSTD_decompressDCtx` with one context.
    Ref,
    /// lzkit's adaptive decoder.
    Adapt,
    /// lzkit forced to a variant.
    Fixed(Variant),
    /// `zstd::FrameDecoder` over the frames (`--whole`).
    Stream,
    /// libzstd's streaming decoder (`--whole`).
    RefStream,
}

impl Who {
    /// Every contender, in the table's order.
    fn all(whole: bool) -> Vec<Who> {
        let mut all = vec![Who::Ref, Who::Adapt];
        if whole {
            all.extend([Who::Stream, Who::RefStream]);
        }
        all.extend(Variant::available().iter().map(|&v| Who::Fixed(v)));
        all
    }

    /// Column name.
    fn name(self) -> &'static str {
        match self {
            Who::Ref => "ref",
            Who::Adapt => "adapt",
            Who::Fixed(v) => v.name(),
            Who::Stream => "stream",
            Who::RefStream => "ref_stream",
        }
    }
}

/// A contender: who, at which level (index into the levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Op {
    level: usize,
    who: Who,
}

/// A decoder with the state it keeps across rounds (lzkit's boxed: it is
/// ten times the size of a libzstd handle; one pointer per frame of 1 MiB
/// costs nothing).
enum Engine {
    Ref(zstd::bulk::Decompressor<'static>),
    Lzkit(Box<Decoder>),
    Stream,
    RefStream,
}

/// Where one frame lies in [`Level::data`], and where it decodes to.
struct Frame {
    packed: Range<usize>,
    original: Range<usize>,
}

/// One level's frames of a file.
struct Level {
    level: i32,
    /// The frames, back to back.
    data: Vec<u8>,
    frames: Vec<Frame>,
    /// One engine per contender, as in [`Who::all`].
    engines: Vec<Engine>,
}

/// One file's frames at every level, and the buffer every contender
/// decodes into.
struct Bench<'a> {
    data: &'a [u8],
    levels: Vec<Level>,
    who: Vec<Who>,
    out: Vec<u8>,
}

impl Bench<'_> {
    fn label(&self, op: Op) -> String {
        format!("{} level {}", op.who.name(), self.levels[op.level].level)
    }
}

/// Compress `data` in frames of `frame_size` bytes (one frame if
/// `frame_size` is 0) with libzstd at `level`, one context for all.
fn compress_frames(
    data: &[u8],
    frame_size: usize,
    level: i32,
) -> Result<(Vec<u8>, Vec<Frame>), String> {
    let mut compressor = zstd::bulk::Compressor::new(level)
        .map_err(|e| format!("libzstd could not set up level {level}: {e}"))?;
    let size = if frame_size == 0 {
        data.len().max(1)
    } else {
        frame_size
    };
    let mut out = Vec::with_capacity(data.len() / 2);
    let mut frames = Vec::with_capacity(data.len().div_ceil(size));
    for (i, chunk) in data.chunks(size).enumerate() {
        let frame = compressor
            .compress(chunk)
            .map_err(|e| format!("libzstd failed on frame {i} at level {level}: {e}"))?;
        let start = out.len();
        out.extend_from_slice(&frame);
        frames.push(Frame {
            packed: start..out.len(),
            original: i * size..i * size + chunk.len(),
        });
    }
    Ok((out, frames))
}

impl Level {
    fn new(data: &[u8], frame_size: usize, level: i32, who: &[Who]) -> Result<Level, String> {
        let (compressed, frames) = compress_frames(data, frame_size, level)?;
        let engines = who
            .iter()
            .map(|&w| {
                Ok(match w {
                    Who::Ref => Engine::Ref(
                        zstd::bulk::Decompressor::new()
                            .map_err(|e| format!("libzstd could not set up a DCtx: {e}"))?,
                    ),
                    Who::Adapt => Engine::Lzkit(Box::new(Decoder::new())),
                    Who::Fixed(v) => Engine::Lzkit(Box::new(
                        Decoder::with_variant(v).map_err(|e| e.to_string())?,
                    )),
                    Who::Stream => Engine::Stream,
                    Who::RefStream => Engine::RefStream,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Level {
            level,
            data: compressed,
            frames,
            engines,
        })
    }

    /// Decode every frame into its place in `out` with engine `k`.
    fn pass(&mut self, k: usize, out: &mut [u8]) -> Result<(), String> {
        let src = &self.data;
        for (i, f) in self.frames.iter().enumerate() {
            let (frame, dst) = (&src[f.packed.clone()], &mut out[f.original.clone()]);
            let n = match &mut self.engines[k] {
                Engine::Ref(dctx) => dctx
                    .decompress_to_buffer(frame, dst)
                    .map_err(|e| e.to_string()),
                Engine::Lzkit(decoder) => decoder
                    .decompress_into(frame, dst)
                    .map_err(|e| e.to_string()),
                Engine::Stream => read_all(FrameDecoder::new(frame), dst),
                Engine::RefStream => zstd::stream::read::Decoder::with_buffer(frame)
                    .map_err(|e| e.to_string())
                    .and_then(|r| read_all(r, dst)),
            }
            .map_err(|e| format!("frame {i}: {e}"))?;
            if n != dst.len() {
                return Err(format!(
                    "frame {i}: decoded {n} bytes instead of {}",
                    dst.len()
                ));
            }
        }
        Ok(())
    }
}

/// Fill `dst` from `reader`, then check that it has nothing more. Returns
/// the bytes read (one past `dst`'s length if there was more).
fn read_all(mut reader: impl Read, dst: &mut [u8]) -> Result<usize, String> {
    reader.read_exact(dst).map_err(|e| e.to_string())?;
    let mut more = [0u8; 1];
    match reader.read(&mut more).map_err(|e| e.to_string())? {
        0 => Ok(dst.len()),
        _ => Ok(dst.len() + 1),
    }
}

impl Contenders for Bench<'_> {
    type Op = Op;

    fn label(&self, op: Op) -> String {
        Bench::label(self, op)
    }

    fn reset(&mut self, _op: Op) {
        poison(&mut self.out);
    }

    fn pass(&mut self, op: Op) -> Result<(), String> {
        let k = self.who.iter().position(|&w| w == op.who).unwrap_or(0);
        self.levels[op.level].pass(k, &mut self.out)
    }

    fn check(&mut self, _op: Op, fault: bool) -> Result<(), String> {
        if fault && let Some(last) = self.out.last_mut() {
            *last ^= 0x5A;
        }
        verify(&self.out, self.data)
    }
}

/// The table's columns for contenders `who`.
fn columns(who: &[Who]) -> Vec<Column> {
    let mut columns = vec![
        col("file", Sum::Blank),
        col("level", Sum::Key),
        col("size", Sum::Total),
        col("frames", Sum::Total),
        col("ratio", Sum::Geomean),
    ];
    columns.extend(who.iter().map(|w| col(w.name(), Sum::Geomean)));
    columns.push(col("adapt_boost", Sum::Low));
    columns.push(col("max_boost", Sum::Low));
    if who.contains(&Who::Stream) {
        columns.push(col("stream_boost", Sum::Low));
    }
    columns.push(col("best", Sum::Blank));
    columns.push(col("adapt_last", Sum::Blank));
    columns
}

fn measure_file(opts: &Options, subject: &mut Subject) -> Rows {
    let data = subject.data;
    let who = Who::all(opts.whole);
    let frame_size = if opts.whole { 0 } else { opts.block_size };
    let levels = opts
        .levels
        .iter()
        .map(|&level| Level::new(data, frame_size, level, &who))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Failure::Compress(format!("{}: {e}", subject.name)))?;
    let mut bench = Bench {
        data,
        levels,
        who: who.clone(),
        out: vec![0; data.len()],
    };
    let ops: Vec<Op> = (0..opts.levels.len())
        .flat_map(|level| who.iter().map(move |&who| Op { level, who }))
        .collect();
    let seconds = measure_all(opts, &mut bench, &ops, subject)
        .map_err(|(_, e)| Failure::Decode(format!("{}: {e}", subject.name)))?;
    let gbps = |op: Op| {
        let s = seconds[ops.iter().position(|&o| o == op).unwrap_or(0)];
        data.len() as f64 / s / 1e9
    };
    let rows = (0..opts.levels.len())
        .map(|l| {
            let at = |who| gbps(Op { level: l, who });
            let level = &bench.levels[l];
            let mut row = vec![
                Cell::Text(subject.name.to_string()),
                Cell::Int(i64::from(level.level)),
                Cell::Size(data.len() as u64),
                Cell::Count(level.frames.len() as u64),
                Cell::Compression(data.len() as f64 / level.data.len().max(1) as f64),
            ];
            row.extend(who.iter().map(|&w| Cell::Speed(at(w))));
            let (best, max) = Variant::available()
                .iter()
                .map(|&v| (v, at(Who::Fixed(v))))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(("-", f64::NAN), |(v, g)| (v.name(), g));
            let reference = at(Who::Ref);
            row.push(Cell::Ratio(at(Who::Adapt) / reference));
            row.push(Cell::Ratio(max / reference));
            if opts.whole {
                row.push(Cell::Ratio(at(Who::Stream) / at(Who::RefStream)));
            }
            row.push(Cell::Text(best.to_string()));
            let adapt = who.iter().position(|&w| w == Who::Adapt).unwrap_or(0);
            row.push(Cell::Text(match &level.engines[adapt] {
                Engine::Lzkit(d) => d.last_variant().name().to_string(),
                _ => "-".into(),
            }));
            row
        })
        .collect();
    Ok(rows)
}

/// libzstd's version, as "1.5.7".
fn ref_version() -> String {
    zstd::zstd_safe::version_string().to_string()
}

/// Run `lzkit bench --codec zstd`.
pub fn run(opts: &Options) -> Result<ModeReport, Failure> {
    let who = Who::all(opts.whole);
    let mut report = super::modes::run(opts, &columns(&who), |s| measure_file(opts, s))?;
    let source = source_label(opts);
    let levels = opts
        .levels
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let frames = if opts.whole {
        "one frame per file".to_string()
    } else {
        format!("frames of {}", block_size_label(opts.block_size))
    };
    let mut header = vec![
        format!(
            "lzkit bench --codec zstd: {source}, {frames} written by libzstd {} \
             (ZSTD_compressCCtx) at levels {levels}",
            ref_version()
        ),
        decode_method(opts),
        format!(
            "ref = libzstd {} ZSTD_decompressDCtx, one DCtx per file and level; adapt = one \
             lzkit zstd::Decoder per file and level (adapt_last: the variant of its last \
             block); the other speed columns: lzkit forced to that variant",
            ref_version()
        ),
        "adapt_boost = adapt / ref, max_boost = the fastest variant (best) / ref: above 1, \
         lzkit is faster"
            .to_string(),
    ];
    if opts.whole {
        header.push(
            "stream = zstd::FrameDecoder (Read), ref_stream = libzstd's streaming decoder \
             (ZSTD_decompressStream), each new per pass; stream_boost = stream / ref_stream"
                .to_string(),
        );
    }
    report.header = header;
    report.settings.extend([
        ("codec", json_str("zstd")),
        levels_setting(&opts.levels),
        ("whole", opts.whole.to_string()),
        ("reference", json_str(&format!("libzstd {}", ref_version()))),
        (
            "variants",
            json_array(Variant::available().iter().map(|v| json_str(v.name()))),
        ),
        ("unit", json_str(DECODE_UNIT)),
    ]);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_tile_the_input_and_every_contender_decodes() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i / 7).to_le_bytes())
            .collect();
        for (frame_size, whole) in [(256 << 10, false), (0, true)] {
            let who = Who::all(whole);
            let level = Level::new(&data, frame_size, 3, &who).unwrap();
            let expected = if whole {
                1
            } else {
                data.len().div_ceil(frame_size)
            };
            assert_eq!(level.frames.len(), expected);
            let mut bench = Bench {
                data: &data,
                levels: vec![level],
                who: who.clone(),
                out: vec![0; data.len()],
            };
            for &w in &who {
                let op = Op { level: 0, who: w };
                bench.reset(op);
                bench.pass(op).unwrap();
                bench.check(op, false).unwrap();
                let err = bench.check(op, true).unwrap_err();
                assert!(err.contains("differ"), "{w:?}: {err}");
            }
            assert_eq!(
                bench.label(Op {
                    level: 0,
                    who: Who::Ref
                }),
                "ref level 3"
            );
        }
    }
}
