//! `lzkit bench --compress`: block compression, lzkit against the LZ4 C
//! library, per file and level: speed (MB/s of input) and compressed size.
//!
//! Every file is cut into independent blocks of `-B` bytes, as the decode
//! mode does. Each level has two contenders, `block::compress_into` and the
//! C function lz4 uses at that level, each compressing every block into a
//! slot of its own; all levels' contenders of a file are interleaved in
//! the same rounds. After every sample, each block of its output is decoded
//! by both lzkit and `LZ4_decompress_safe` and compared with the input.

use lzkit::lz4::block;

use super::codec::{Compressor, ref_decompress};
use super::modes::{
    Column, Contenders, ModeReport, Rows, Subject, Sum, col, levels_setting, measure_all, poison,
};
use super::options::Options;
use super::reference as c_ref;
use super::render::{Cell, block_size_label, json_array, json_str};
use super::{Failure, source_label};

/// Who compresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Ref,
    Lzkit,
}

/// One contender: a compressor at a level, with its output.
struct Contender {
    who: Who,
    level: i32,
    /// With `--reuse-state`, the C compressor's state, kept across blocks.
    state: Option<c_ref::State>,
    /// Name in messages and for the testing hook: "ref level 9".
    label: String,
    /// Its compressed blocks, each in a slot of `slot` bytes.
    buf: Vec<u8>,
    sizes: Vec<usize>,
    slot: usize,
}

impl Contender {
    fn new(
        who: Who,
        level: i32,
        blocks: usize,
        block_size: usize,
        reuse: bool,
    ) -> Result<Contender, Failure> {
        let slot = block::max_compressed_size(block_size);
        let name = match who {
            Who::Ref => "ref",
            Who::Lzkit => "lzkit",
        };
        let state = if reuse && who == Who::Ref {
            Some(c_ref::State::new(level).ok_or_else(|| {
                Failure::Compress(format!(
                    "liblz4 could not allocate a state for level {level}"
                ))
            })?)
        } else {
            None
        };
        Ok(Contender {
            who,
            level,
            state,
            label: format!("{name} level {level}"),
            buf: vec![0; blocks * slot],
            sizes: vec![0; blocks],
            slot,
        })
    }

    /// Compress every block of `data`.
    fn pass(&mut self, data: &[u8], block_size: usize) -> Result<(), String> {
        for (i, chunk) in data.chunks(block_size).enumerate() {
            let slot = &mut self.buf[i * self.slot..(i + 1) * self.slot];
            let n = match (self.who, &mut self.state) {
                (Who::Ref, Some(state)) => state.compress_into(chunk, slot, self.level),
                (Who::Ref, None) => c_ref::compress_into(chunk, slot, self.level),
                (Who::Lzkit, _) => block::compress_into(chunk, slot, self.level).ok(),
            };
            self.sizes[i] = n.ok_or_else(|| format!("block {i}: compression failed"))?;
        }
        Ok(())
    }

    fn block(&self, i: usize) -> &[u8] {
        &self.buf[i * self.slot..i * self.slot + self.sizes[i]]
    }

    /// Decode every block with both decoders (lzkit's alone when the C
    /// library is not built in) and compare it with the input.
    fn verify(&self, data: &[u8], block_size: usize, out: &mut [u8]) -> Result<(), String> {
        for (i, chunk) in data.chunks(block_size).enumerate() {
            let dst = &mut out[..chunk.len()];
            if c_ref::BUILT_IN {
                poison(dst);
                let by_ref = ref_decompress(self.block(i), dst);
                if by_ref != Some(chunk.len()) || dst != chunk {
                    return Err(format!(
                        "block {i} does not decode to the input with LZ4_decompress_safe"
                    ));
                }
            }
            poison(dst);
            let by_lzkit = block::decompress_into(self.block(i), dst).ok();
            if by_lzkit != Some(chunk.len()) || dst != chunk {
                return Err(format!("block {i} does not decode to the input with lzkit"));
            }
        }
        Ok(())
    }

    /// Testing hook: change the last byte of the first block (always a
    /// literal in LZ4), so that it decodes to other bytes.
    fn corrupt(&mut self) {
        if self.sizes[0] > 0 {
            self.buf[self.sizes[0] - 1] ^= 0x5A;
        }
    }

    fn compressed(&self) -> usize {
        self.sizes.iter().sum()
    }
}

/// Every contender of one file, named by index.
struct Compressors<'a> {
    data: &'a [u8],
    block_size: usize,
    contenders: Vec<Contender>,
    /// Where verification decodes a block.
    out: Vec<u8>,
}

impl Contenders for Compressors<'_> {
    type Op = usize;

    fn label(&self, k: usize) -> String {
        self.contenders[k].label.clone()
    }

    fn reset(&mut self, k: usize) {
        poison(&mut self.contenders[k].buf);
    }

    fn pass(&mut self, k: usize) -> Result<(), String> {
        self.contenders[k].pass(self.data, self.block_size)
    }

    fn check(&mut self, k: usize, fault: bool) -> Result<(), String> {
        let c = &mut self.contenders[k];
        if fault {
            c.corrupt();
        }
        c.verify(self.data, self.block_size, &mut self.out)
    }
}

/// The table's columns.
fn columns() -> Vec<Column> {
    vec![
        col("file", Sum::Blank),
        col("level", Sum::Key),
        col("size", Sum::Total),
        col("ref_ratio", Sum::Geomean),
        col("lzkit_ratio", Sum::Geomean),
        col("bytes_over_ref", Sum::High),
        col("ref_mbps", Sum::Geomean),
        col("lzkit_mbps", Sum::Geomean),
        col("speed_over_ref", Sum::Low),
    ]
}

/// Measure one file: a row per level.
fn measure_file(opts: &Options, subject: &mut Subject) -> Rows {
    let (data, bs) = (subject.data, opts.block_size);
    let blocks = data.len().div_ceil(bs);
    // Both compressors at every level; lzkit's alone when the C library is
    // not built in.
    let whos: &[Who] = match c_ref::BUILT_IN {
        true => &[Who::Ref, Who::Lzkit],
        false => &[Who::Lzkit],
    };
    let contenders: Vec<Contender> = opts
        .levels
        .iter()
        .flat_map(|&level| {
            whos.iter()
                .map(move |&who| Contender::new(who, level, blocks, bs, opts.reuse_state))
        })
        .collect::<Result<_, _>>()?;
    let ops: Vec<usize> = (0..contenders.len()).collect();
    let mut bench = Compressors {
        data,
        block_size: bs,
        contenders,
        out: vec![0; bs],
    };
    let seconds = measure_all(opts, &mut bench, &ops, subject)
        .map_err(|(_, e)| Failure::Compress(format!("{}: {e}", subject.name)))?;
    let contenders = &bench.contenders;
    let mbps = |k: usize| data.len() as f64 / seconds[k] / 1e6;
    let ratio = |k: usize| data.len() as f64 / contenders[k].compressed() as f64;
    let size = |k: usize| contenders[k].compressed() as f64;
    let per = whos.len();
    let rows = (0..opts.levels.len())
        .map(|l| {
            // lzkit's contender at level l, and a value of C's (NaN when it
            // is not built in).
            let z = per * l + per - 1;
            let of_ref = |f: &dyn Fn(usize) -> f64| match per {
                2 => f(2 * l),
                _ => f64::NAN,
            };
            vec![
                Cell::Text(subject.name.to_string()),
                Cell::Int(i64::from(contenders[z].level)),
                Cell::Size(data.len() as u64),
                Cell::Compression(of_ref(&ratio)),
                Cell::Compression(ratio(z)),
                Cell::Ratio(size(z) / of_ref(&size)),
                Cell::Speed(of_ref(&mbps)),
                Cell::Speed(mbps(z)),
                Cell::Ratio(mbps(z) / of_ref(&mbps)),
            ]
        })
        .collect();
    Ok(rows)
}

/// Run `lzkit bench --compress`.
pub fn run(opts: &Options) -> Result<ModeReport, Failure> {
    let mut report = super::modes::run(opts, &columns(), |s| measure_file(opts, s))?;
    let entry_points: Vec<String> = match c_ref::BUILT_IN {
        true => opts
            .levels
            .iter()
            .map(|&l| Compressor::Ref.describe(l))
            .collect(),
        false => vec!["none (not built in)".into()],
    };
    let source = source_label(opts);
    report.header = vec![
        format!(
            "lzkit bench --compress: {source}, blocks of {}, levels {}",
            block_size_label(opts.block_size),
            level_list(&opts.levels)
        ),
        format!(
            "speeds in MB/s of input (10^6 bytes/s, one core), {} of {} rounds; contenders \
             (both compressors at every level) interleaved in a random order each round \
             (seed {}), each sample at least 1 MiB of repeated passes; every sample's blocks \
             decoded by lzkit and LZ4_decompress_safe and verified",
            opts.stat.name(),
            opts.rounds,
            opts.seed
        ),
        format!(
            "ref = {}{}; lzkit = lzkit {} block::compress_into (a per-thread engine)",
            entry_points.join(", "),
            match opts.reuse_state {
                true =>
                    " (--reuse-state: one state per contender, through \
                         LZ4_compress_fast_extState_fastReset or \
                         LZ4_compress_HC_extStateHC_fastReset)",
                false => " (one-shot calls: HC allocates and clears its state per block)",
            },
            env!("CARGO_PKG_VERSION")
        ),
        "ratio = input size / compressed size; bytes_over_ref = lzkit's compressed size / \
         ref's (above 1: lzkit's output is larger); speed_over_ref = lzkit_mbps / ref_mbps \
         (above 1: lzkit is faster)"
            .to_string(),
    ];
    if !c_ref::BUILT_IN {
        report.header.push(c_ref::MISSING.to_string());
    }
    report.settings.extend([
        levels_setting(&opts.levels),
        (
            "reference",
            json_array(entry_points.iter().map(|e| json_str(e))),
        ),
        ("reuse_state", opts.reuse_state.to_string()),
        ("unit", json_str("MB/s (10^6 input bytes per second)")),
    ]);
    Ok(report)
}

/// "1, 9, 12".
pub fn level_list(levels: &[i32]) -> String {
    levels
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_compressors_round_trip_and_a_fault_is_caught() {
        let data: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i / 13).to_le_bytes())
            .collect();
        let bs = 64 << 10;
        let blocks = data.len().div_ceil(bs);
        let mut out = vec![0u8; bs];
        for level in [-2, 1, 2, 9] {
            for (who, reuse) in [(Who::Ref, false), (Who::Ref, true), (Who::Lzkit, false)] {
                let mut c = Contender::new(who, level, blocks, bs, reuse).unwrap();
                c.pass(&data, bs).unwrap();
                c.verify(&data, bs, &mut out).unwrap();
                if reuse {
                    // The same output as the one-shot call.
                    let mut one_shot = Contender::new(who, level, blocks, bs, false).unwrap();
                    one_shot.pass(&data, bs).unwrap();
                    assert_eq!(one_shot.sizes, c.sizes, "level {level}");
                    c.pass(&data, bs).unwrap();
                    assert_eq!(one_shot.sizes, c.sizes, "level {level}, state reused");
                }
                assert!(c.compressed() < data.len() / 2, "{}", c.label);
                c.corrupt();
                assert!(c.verify(&data, bs, &mut out).is_err(), "{}", c.label);
            }
        }
    }
}
