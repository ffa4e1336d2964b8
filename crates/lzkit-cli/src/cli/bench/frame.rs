//! `lzkit bench --frame`: what the frame format costs when decoding. Every
//! file becomes three frames of the same independent blocks (written by
//! `frame::compress`): no checksum, a content checksum, a block checksum.
//! lzkit's `frame::decompress` and the C library's `LZ4F_decompress` decode
//! each, against the least a frame decoder must do: a loop of block
//! decodes (`block::decompress_into`, `LZ4_decompress_safe`) over the same
//! blocks, stored ones copied. All eight contenders of a file are
//! interleaved in the same rounds, and every sample's output is compared
//! with the input.

use std::ops::Range;

use lzkit::lz4::block;
use lzkit::lz4::frame::{self, BlockMode, FrameOptions};

use super::codec::{ref_decompress, ref_version};
use super::measure::verify;
use super::modes::{
    Column, Contenders, ModeReport, Rows, Subject, Sum, col, decode_method, measure_all,
    named_enum, poison,
};
use super::options::{Options, frame_block_size};
use super::reference as c_ref;
use super::render::{Cell, block_size_label, json_str};
use super::report::DECODE_UNIT;
use super::{Failure, source_label};

named_enum! {
    /// Which checksums a frame carries.
    enum Checks {
        None => "none",
        Content => "content",
        Block => "block",
    }
}

/// A contender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `block::decompress_into` over the frame's blocks.
    LzkitLoop,
    /// `LZ4_decompress_safe` over the frame's blocks.
    RefLoop,
    /// `frame::decompress`.
    LzkitFrame(Checks),
    /// `LZ4F_decompress`, one context reused.
    RefFrame(Checks),
}

impl Op {
    /// Every contender, in the table's order.
    fn all() -> Vec<Op> {
        let mut ops = vec![Op::LzkitLoop, Op::RefLoop];
        ops.extend(Checks::ALL.map(Op::LzkitFrame));
        ops.extend(Checks::ALL.map(Op::RefFrame));
        ops
    }

    /// The contenders this build measures: all of them, or lzkit's alone
    /// when the C library is not built in.
    fn measured() -> Vec<Op> {
        let mut ops = Op::all();
        ops.retain(|op| c_ref::BUILT_IN || matches!(op, Op::LzkitLoop | Op::LzkitFrame(_)));
        ops
    }

    /// Column name, and name for messages and the testing hook.
    fn name(self) -> String {
        match self {
            Op::LzkitLoop => "lzkit_loop".into(),
            Op::RefLoop => "ref_loop".into(),
            Op::LzkitFrame(c) => format!("lzkit_{}", c.name()),
            Op::RefFrame(c) => format!("ref_{}", c.name()),
        }
    }
}

/// One block of a frame: its payload in the frame and its place in the
/// decoded data.
struct FrameBlock {
    payload: Range<usize>,
    out: Range<usize>,
    stored: bool,
}

/// The blocks of `frame`, one frame of independent blocks of `block_size`
/// bytes (the last one shorter) decoding to `len` bytes.
fn frame_blocks(frame: &[u8], len: usize, block_size: usize) -> Result<Vec<FrameBlock>, String> {
    let bad = || "unexpected frame layout".to_string();
    let byte = |i: usize| frame.get(i).copied().ok_or_else(bad);
    let flg = byte(4)?;
    // Magic, FLG, BD, the optional content size and dictionary ID, HC.
    let mut at = 6 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 } + 1;
    let block_checksum = flg & 0x10 != 0;
    let mut blocks = Vec::new();
    loop {
        let word = frame.get(at..at + 4).ok_or_else(bad)?;
        let word = u32::from_le_bytes(word.try_into().map_err(|_| bad())?);
        at += 4;
        if word == 0 {
            break;
        }
        let size = (word & 0x7FFF_FFFF) as usize;
        let start = blocks.len() * block_size;
        blocks.push(FrameBlock {
            payload: at..at + size,
            out: start..len.min(start + block_size),
            stored: word >> 31 == 1,
        });
        at += size + if block_checksum { 4 } else { 0 };
    }
    if blocks.len() != len.div_ceil(block_size) || at > frame.len() {
        return Err(bad());
    }
    Ok(blocks)
}

/// One file's frames and the buffers the contenders decode into.
struct Bench<'a> {
    data: &'a [u8],
    /// The frames, as in [`Checks::ALL`].
    frames: Vec<Vec<u8>>,
    /// The blocks of the frame without checksums.
    blocks: Vec<FrameBlock>,
    /// Output of the loops and of LZ4F.
    out: Vec<u8>,
    /// Output of `frame::decompress`, which allocates its own.
    lzkit_out: Vec<u8>,
    /// C's frame decoder, when the C library is built in.
    decoder: Option<c_ref::FrameDecoder>,
}

impl Contenders for Bench<'_> {
    type Op = Op;

    fn label(&self, op: Op) -> String {
        op.name()
    }

    fn pass(&mut self, op: Op) -> Result<(), String> {
        match op {
            Op::LzkitLoop | Op::RefLoop => {
                let frame = &self.frames[0];
                for (i, b) in self.blocks.iter().enumerate() {
                    let (src, dst) = (&frame[b.payload.clone()], &mut self.out[b.out.clone()]);
                    let n = if b.stored {
                        dst.copy_from_slice(src);
                        Some(src.len())
                    } else if op == Op::LzkitLoop {
                        block::decompress_into(src, dst).ok()
                    } else {
                        ref_decompress(src, dst)
                    };
                    if n != Some(b.out.len()) {
                        return Err(format!("block {i} failed to decode"));
                    }
                }
                Ok(())
            }
            Op::LzkitFrame(c) => {
                self.lzkit_out =
                    frame::decompress(&self.frames[c as usize]).map_err(|e| e.to_string())?;
                Ok(())
            }
            Op::RefFrame(c) => {
                let frame = std::mem::take(&mut self.frames[c as usize]);
                let n = match &mut self.decoder {
                    Some(decoder) => decoder.decode_into(&frame, &mut self.out),
                    None => Err(c_ref::MISSING.to_string()),
                };
                self.frames[c as usize] = frame;
                match n? {
                    n if n == self.data.len() => Ok(()),
                    n => Err(format!("decoded {n} bytes instead of {}", self.data.len())),
                }
            }
        }
    }

    fn reset(&mut self, op: Op) {
        match op {
            Op::LzkitFrame(_) => self.lzkit_out = Vec::new(),
            _ => poison(&mut self.out),
        }
    }

    fn check(&mut self, op: Op, fault: bool) -> Result<(), String> {
        let data = self.data;
        let out = match op {
            Op::LzkitFrame(_) => &mut self.lzkit_out[..],
            _ => &mut self.out[..data.len()],
        };
        if fault && let Some(first) = out.first_mut() {
            *first ^= 0x5A;
        }
        if out.len() != data.len() {
            return Err(format!(
                "decoded {} bytes instead of {}",
                out.len(),
                data.len()
            ));
        }
        verify(out, data)
    }
}

fn columns() -> Vec<Column> {
    let mut columns = vec![
        col("file", Sum::Blank),
        col("size", Sum::Total),
        col("blocks", Sum::Total),
    ];
    columns.extend(Op::all().into_iter().map(|op| col(op.name(), Sum::Geomean)));
    for c in Checks::ALL {
        columns.push(col(format!("lzkit_cost_{}", c.name()), Sum::High));
    }
    for c in Checks::ALL {
        columns.push(col(format!("ref_cost_{}", c.name()), Sum::Geomean));
    }
    for c in Checks::ALL {
        columns.push(col(format!("boost_{}", c.name()), Sum::Low));
    }
    columns
}

fn measure_file(opts: &Options, subject: &mut Subject) -> Rows {
    let data = subject.data;
    let name = subject.name;
    let fail = |e: String| Failure::Decode(format!("{name}: {e}"));
    let block_size = frame_block_size(opts.block_size).ok_or_else(|| fail("block size".into()))?;
    let frames: Vec<Vec<u8>> = Checks::ALL
        .iter()
        .map(|&c| {
            let options = FrameOptions::new()
                .level(opts.level)
                .block_size(block_size)
                .block_mode(BlockMode::Independent)
                .block_checksum(c == Checks::Block)
                .content_checksum(c == Checks::Content)
                .threads(1);
            frame::compress(data, &options)
        })
        .collect();
    let blocks = frame_blocks(&frames[0], data.len(), opts.block_size).map_err(fail)?;
    let count = blocks.len();
    let mut bench = Bench {
        data,
        frames,
        blocks,
        // One block of room after the data, so that LZ4F can decode its
        // last block in place rather than through its own buffer.
        out: vec![0; data.len() + opts.block_size],
        lzkit_out: Vec::new(),
        decoder: match c_ref::BUILT_IN {
            true => Some(c_ref::FrameDecoder::new().map_err(fail)?),
            false => None,
        },
    };
    let ops = Op::measured();
    let seconds = measure_all(opts, &mut bench, &ops, subject).map_err(|(_, e)| fail(e))?;
    // Seconds per pass; NaN for a contender not measured (C, not built in).
    let secs = |op: Op| {
        ops.iter()
            .position(|&o| o == op)
            .map_or(f64::NAN, |k| seconds[k])
    };
    let mut row = vec![
        Cell::Text(subject.name.to_string()),
        Cell::Size(data.len() as u64),
        Cell::Count(count as u64),
    ];
    row.extend(
        Op::all()
            .into_iter()
            .map(|op| Cell::Speed(data.len() as f64 / secs(op) / 1e9)),
    );
    for c in Checks::ALL {
        row.push(Cell::Ratio(secs(Op::LzkitFrame(c)) / secs(Op::LzkitLoop)));
    }
    for c in Checks::ALL {
        row.push(Cell::Ratio(secs(Op::RefFrame(c)) / secs(Op::RefLoop)));
    }
    for c in Checks::ALL {
        row.push(Cell::Ratio(secs(Op::RefFrame(c)) / secs(Op::LzkitFrame(c))));
    }
    Ok(vec![row])
}

/// Run `lzkit bench --frame`.
pub fn run(opts: &Options) -> Result<ModeReport, Failure> {
    let mut report = super::modes::run(opts, &columns(), |s| measure_file(opts, s))?;
    let source = source_label(opts);
    report.header = vec![
        format!(
            "lzkit bench --frame: {source}, frames of independent {} blocks written by lzkit \
             frame::compress at level {}",
            block_size_label(opts.block_size),
            opts.level
        ),
        decode_method(opts),
        format!(
            "lzkit_loop, ref_loop = block::decompress_into, LZ4_decompress_safe (lz4 {}) over \
             the frame's blocks; lzkit_X = frame::decompress (allocates its output), ref_X = \
             LZ4F_decompress, of the frame with checksum X (none, content, block)",
            ref_version()
        ),
        "lzkit_cost_X = lzkit_X time / lzkit_loop time (1.05: the frame costs 5% over its \
         blocks), ref_cost_X likewise for C; boost_X = lzkit_X / ref_X speed (above 1: lzkit's \
         frame decoder is faster)"
            .to_string(),
    ];
    if !c_ref::BUILT_IN {
        report.header.push(c_ref::MISSING.to_string());
    }
    report.settings.extend([
        ("level", opts.level.to_string()),
        ("reference", json_str(&format!("lz4 {}", ref_version()))),
        ("unit", json_str(DECODE_UNIT)),
    ]);
    Ok(report)
}

// The C library is one of the contenders.
#[cfg(all(test, feature = "c-reference"))]
mod tests {
    use super::*;

    #[test]
    fn every_contender_decodes_and_a_fault_is_caught() {
        let data: Vec<u8> = (0..90_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let bs = 64 << 10;
        let frames: Vec<Vec<u8>> = Checks::ALL
            .iter()
            .map(|&c| {
                let options = FrameOptions::new()
                    .block_size(frame::BlockSize::Max64KB)
                    .block_checksum(c == Checks::Block)
                    .content_checksum(c == Checks::Content);
                frame::compress(&data, &options)
            })
            .collect();
        let blocks = frame_blocks(&frames[2], data.len(), bs).unwrap();
        assert_eq!(blocks.len(), data.len().div_ceil(bs));
        let mut bench = Bench {
            data: &data,
            blocks: frame_blocks(&frames[0], data.len(), bs).unwrap(),
            frames,
            out: vec![0; data.len() + bs],
            lzkit_out: Vec::new(),
            decoder: Some(c_ref::FrameDecoder::new().unwrap()),
        };
        for op in Op::all() {
            bench.reset(op);
            bench.pass(op).unwrap();
            bench.check(op, false).unwrap();
            bench.pass(op).unwrap();
            let err = bench.check(op, true).unwrap_err();
            assert!(err.contains("offset 0"), "{op:?}: {err}");
        }
        // A frame C rejects is an error, and the context is usable after it.
        let mut broken = bench.frames[1].clone();
        let last = broken.len() - 1;
        broken[last] ^= 1;
        let decoder = bench.decoder.as_mut().unwrap();
        assert!(decoder.decode_into(&broken, &mut bench.out).is_err());
        bench.pass(Op::RefFrame(Checks::Content)).unwrap();
    }
}
