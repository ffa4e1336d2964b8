//! Measuring one setting on a sample: the passes described in the
//! [module documentation](super), the coders they run, and the working
//! memory of each.

use std::ops::Range;
use std::sync::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::calibrate::{self, Calibration};
use super::report::Candidate;
use super::{Codec, Filter, Hooks, ProbeError, Progress, Sample, Setting, Stage};
use crate::lz4::block;

/// The LZ4 fast compressor's hash table (16 KiB at every input size; see
/// `lz4/block/compress.rs`).
const LZ4_FAST_STATE: usize = 16 << 10;
/// Level 2: two tables of 2^14 four-byte positions (`hc/mid.rs`).
const LZ4_MID_STATE: usize = 2 * (1 << 14) * 4;
/// Levels 3 to 9: 2^15 four-byte hash heads and 2^16 two-byte chain links
/// (`hc/chain.rs`).
const LZ4_CHAIN_STATE: usize = (1 << 15) * 4 + (1 << 16) * 2;
/// Levels 10 to 12: the chains and the optimal parser's 4 Ki nodes of 16
/// bytes (`hc/optimal.rs`).
const LZ4_OPTIMAL_STATE: usize = LZ4_CHAIN_STATE + (1 << 12) * 16;
/// lzkit's zstd decoder besides its literal buffer: the Huffman table
/// (2^12 two-byte cells and 2^12 four-byte pair cells) and three FSE
/// sequence tables of 512 eight-byte cells (`zstd/huf.rs`,
/// `zstd/block.rs`).
const ZSTD_DECODER_TABLES: usize = (1 << 12) * 2 + (1 << 12) * 4 + 3 * 512 * 8;

/// How a probe measures.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    /// Threads of the "all threads" speed (at least 1).
    pub(super) threads: usize,
    /// Each timing's minimum duration.
    pub(super) min_time: Duration,
    /// The first compression pass's longest duration.
    pub(super) time_limit: Option<Duration>,
}

/// A codec's compressor for one setting.
enum Coder {
    Lz4 {
        level: i32,
        favor_dec_speed: bool,
    },
    #[cfg(feature = "zstd-compress")]
    Zstd(Box<::zstd::bulk::Compressor<'static>>),
}

impl Coder {
    fn new(setting: Setting) -> Result<Coder, String> {
        match setting.codec {
            Codec::Lz4 => Ok(Coder::Lz4 {
                level: setting.level,
                favor_dec_speed: setting.favor_dec_speed,
            }),
            // A reused context, as a system compressing block after block
            // keeps one; libzstd's one-shot defaults: the content size in
            // each frame, no checksum.
            #[cfg(feature = "zstd-compress")]
            Codec::Zstd => ::zstd::bulk::Compressor::new(setting.level)
                .map(|c| Coder::Zstd(Box::new(c)))
                .map_err(|e| e.to_string()),
            #[cfg(not(feature = "zstd-compress"))]
            Codec::Zstd => Err("zstd compression needs the zstd-compress feature".into()),
        }
    }

    /// Bytes the output of an input of `len` bytes may take.
    fn bound(codec: Codec, len: usize) -> usize {
        match codec {
            Codec::Lz4 => block::max_compressed_size(len),
            #[cfg(feature = "zstd-compress")]
            Codec::Zstd => ::zstd::zstd_safe::compress_bound(len),
            #[cfg(not(feature = "zstd-compress"))]
            Codec::Zstd => len,
        }
    }

    /// Compress `src` into `dst` (at least [`Engine::bound`] bytes).
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        match self {
            Coder::Lz4 {
                level,
                favor_dec_speed: false,
            } => block::compress_into(src, dst, *level),
            Coder::Lz4 { level, .. } => block::compress_favor_dec_speed_into(src, dst, *level),
            #[cfg(feature = "zstd-compress")]
            Coder::Zstd(c) => return c.compress_to_buffer(src, dst).map_err(|e| e.to_string()),
        }
        .map_err(|e| e.to_string())
    }

    /// The compressor's state, in bytes: measured for libzstd (its context
    /// as it is now, after compressing), known from the code for LZ4.
    fn state_bytes(&mut self) -> usize {
        match self {
            Coder::Lz4 { level, .. } => match *level {
                ..=1 => LZ4_FAST_STATE,
                2 => LZ4_MID_STATE,
                3..=9 => LZ4_CHAIN_STATE,
                _ => LZ4_OPTIMAL_STATE,
            },
            #[cfg(feature = "zstd-compress")]
            Coder::Zstd(c) => c.context_mut().sizeof(),
        }
    }
}

/// A compressor for one setting (one per thread): its pre-filter, if any,
/// into a buffer of its own, then the codec.
struct Engine {
    coder: Coder,
    filter: Option<Filter>,
    filtered: Vec<u8>,
}

impl Engine {
    fn new(setting: Setting) -> Result<Engine, String> {
        Ok(Engine {
            coder: Coder::new(setting)?,
            filter: setting.filter,
            filtered: Vec::new(),
        })
    }

    /// Bytes the output of an input of `len` bytes may take.
    fn bound(codec: Codec, len: usize) -> usize {
        Coder::bound(codec, len)
    }

    /// Compress `src` into `dst` (at least [`Engine::bound`] bytes).
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        let Some(filter) = self.filter else {
            return self.coder.compress(src, dst);
        };
        if self.filtered.len() < src.len() {
            self.filtered.resize(src.len(), 0);
        }
        let filtered = &mut self.filtered[..src.len()];
        filter
            .encode_into(src, filtered)
            .map_err(|e| e.to_string())?;
        self.coder.compress(filtered, dst)
    }

    /// The compressor's state and the filter's buffer, in bytes.
    fn state_bytes(&mut self) -> usize {
        self.coder.state_bytes() + self.filtered.len()
    }
}

/// Decode with `decode` and undo `filter`: decoded into `scratch` (at
/// least `dst.len()` bytes), then filtered back into `dst`.
fn unfiltered(
    filter: Option<Filter>,
    scratch: &mut [u8],
    dst: &mut [u8],
    decode: impl FnOnce(&mut [u8]) -> Result<usize, String>,
) -> Result<usize, String> {
    let Some(filter) = filter else {
        return decode(dst);
    };
    let scratch = &mut scratch[..dst.len()];
    let n = decode(scratch)?;
    filter
        .decode_into(&scratch[..n], &mut dst[..n])
        .map_err(|e| e.to_string())?;
    Ok(n)
}

/// lzkit's decoder for one stream.
enum Decoder {
    Lz4(Box<block::Decoder>),
    Zstd(Box<crate::zstd::Decoder>),
}

impl Decoder {
    fn new(codec: Codec) -> Decoder {
        match codec {
            Codec::Lz4 => Decoder::Lz4(Box::default()),
            Codec::Zstd => Decoder::Zstd(Box::default()),
        }
    }

    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        match self {
            Decoder::Lz4(d) => d.decompress_into(src, dst),
            Decoder::Zstd(d) => d.decompress_into(src, dst),
        }
        .map_err(|e| e.to_string())
    }

    /// Working memory besides the output, for blocks of up to `largest`
    /// bytes.
    fn state_bytes(codec: Codec, largest: usize) -> usize {
        match codec {
            Codec::Lz4 => 0,
            Codec::Zstd => largest.min(crate::zstd::BLOCK_SIZE_MAX) + ZSTD_DECODER_TABLES,
        }
    }
}

/// The sample compressed: each block's index in the sample and where its
/// compressed bytes lie in `data`.
struct Compressed {
    data: Vec<u8>,
    blocks: Vec<(usize, Range<usize>)>,
}

/// Measure `setting` on `sample`.
pub(super) fn candidate(
    sample: &Sample,
    setting: Setting,
    plan: &Plan,
    hooks: &mut dyn Hooks,
    step: &mut dyn FnMut(Stage) -> Progress,
) -> Result<Measured, ProbeError> {
    hooks.progress(step(Stage::Compress));
    let OneThread {
        mut compressed,
        bytes,
        rate: compress_rate,
        state: compress_state,
    } = compress_one_thread(sample, setting, plan)?;
    let done: Vec<usize> = compressed.blocks.iter().map(|(b, _)| *b).collect();
    let largest = sample.largest_block();

    hooks.progress(step(Stage::CompressThreads));
    let threads_rate = match plan.threads {
        0 | 1 => compress_rate,
        n => best_rate(plan.min_time, || {
            threaded_pass(sample, setting, &done, n, plan.min_time)
        })?,
    };

    // Decoders see the blocks in input order, as a reader does.
    compressed.blocks.sort_by_key(|(b, _)| *b);
    hooks.progress(step(Stage::Decompress));
    let decode_error = |decoder: &'static str| {
        move |(block, message)| ProbeError::Decode {
            setting,
            decoder,
            block,
            message,
        }
    };
    let mut lzkit = Decoder::new(setting.codec);
    // A filtered setting decodes into this, then undoes the filter.
    let mut scratch = match setting.filter {
        Some(_) => vec![0u8; largest],
        None => Vec::new(),
    };
    let decompress_rate = decode_rate(sample, &compressed, plan.min_time, |src, dst| {
        unfiltered(setting.filter, &mut scratch, dst, |d| {
            lzkit.decompress(src, d)
        })
    })
    .map_err(decode_error("lzkit"))?;
    hooks.progress(step(Stage::Reference));
    let reference_rate = match hooks.reference(setting.codec) {
        None => None,
        Some(r) => Some(
            decode_rate(sample, &compressed, plan.min_time, |src, dst| {
                unfiltered(setting.filter, &mut scratch, dst, |d| r.decompress(src, d))
            })
            .map_err(decode_error("reference"))?,
        ),
    };

    let sizes: Vec<(usize, usize)> = compressed
        .blocks
        .iter()
        .map(|(b, range)| (*b, range.len()))
        .collect();
    let ratio = weighted_ratio(sample, &sizes);
    let candidate = Candidate {
        setting,
        ratio,
        ratio_interval: ratio_interval(sample, &sizes, ratio),
        sample_bytes: bytes,
        blocks: compressed.blocks.len(),
        compressed_bytes: compressed.data.len() as u64,
        compress_mbps: compress_rate / 1e6,
        compress_mbps_threads: threads_rate / 1e6,
        decompress_mbps: decompress_rate / 1e6,
        reference_decompress_mbps: reference_rate.map(|r| r / 1e6),
        compress_memory: compress_state + Engine::bound(setting.codec, largest),
        decompress_memory: Decoder::state_bytes(setting.codec, largest) + largest + scratch.len(),
        pareto: false,
        pareto_compress: false,
    };
    Ok(Measured { candidate, sizes })
}

/// A setting's results, and the compressed size of each block it
/// compressed (sample block index, bytes), in input order.
pub(super) struct Measured {
    pub(super) candidate: Candidate,
    sizes: Vec<(usize, usize)>,
}

/// Input bytes over compressed bytes of the blocks in `sizes`, each block
/// weighted by [`Sample::weight`].
fn weighted_ratio(sample: &Sample, sizes: &[(usize, usize)]) -> f64 {
    let (mut input, mut output) = (0f64, 0f64);
    for &(b, size) in sizes {
        let w = sample.weight(b);
        input += w * sample.block(b).len() as f64;
        output += w * size as f64;
    }
    input / output.max(1.0)
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom
/// (`df` of 1 or more; from 31 on, within 0.3% of the exact value).
pub(super) fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// Pairs (x, y) of each sampled block: x its input bytes, y its compressed
/// bytes, both times its weight.
fn weighted_pairs(sample: &Sample, sizes: &[(usize, usize)]) -> Vec<(f64, f64)> {
    sizes
        .iter()
        .map(|&(b, size)| {
            let w = sample.weight(b);
            (w * sample.block(b).len() as f64, w * size as f64)
        })
        .collect()
}

/// The relative variance of the ratio estimator `sum(x) / sum(y)` over
/// `pairs`, a sample of a fraction `f` of the population's blocks, and its
/// degrees of freedom; `None` below two pairs. The linearised variance of
/// survey sampling with the finite-population correction `1 - f`, the
/// spread of the residuals `x - R y` taken from successive differences in
/// input order (`positions`, the pairs' places in the input, or the
/// pairs' own order when `None`): the sample is systematic, evenly spread,
/// and successive differences leave out the slow changes over the input
/// that such a sample averages out (where a random sample's formula would
/// count them), while still counting all the block-to-block variation.
pub(super) fn ratio_relvar(
    pairs: &[(f64, f64)],
    positions: Option<&[u64]>,
    f: f64,
) -> Option<(f64, usize)> {
    let n = pairs.len();
    if n < 2 {
        return None;
    }
    let (x, y) = pairs
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(a, b)| (sx + a, sy + b));
    let r = x / y.max(1.0);
    let mut order: Vec<usize> = (0..n).collect();
    if let Some(p) = positions {
        order.sort_by_key(|&i| p[i]);
    }
    let e = |i: usize| pairs[i].0 - r * pairs[i].1;
    let spread: f64 = order
        .windows(2)
        .map(|w| (e(w[1]) - e(w[0])).powi(2))
        .sum::<f64>()
        / (2 * (n - 1)) as f64;
    let mean_x = x / n as f64;
    let relvar = (1.0 - f).max(0.0) * spread / n as f64 / (mean_x * mean_x).max(f64::MIN_POSITIVE);
    Some((relvar, n - 1))
}

/// The 95% interval of a ratio `ratio` measured on every sampled block
/// (`sizes`): from how the blocks' ratios spread, treating the evenly
/// spread blocks as a random sample of the input's blocks (which
/// overstates the uncertainty where the data changes slowly, never
/// understates it on data without a period). Exact (no width) when the
/// sample is the whole input; `None` from a single block of a larger
/// input.
fn ratio_interval(sample: &Sample, sizes: &[(usize, usize)], ratio: f64) -> Option<(f64, f64)> {
    if sample.is_whole_input() && sizes.len() == sample.len() {
        return Some((ratio, ratio));
    }
    let f = sample.sampled_bytes() as f64 / sample.input_bytes().max(1) as f64;
    let (relvar, df) = ratio_relvar(&weighted_pairs(sample, sizes), None, f)?;
    Some(interval(ratio, relvar, df))
}

/// The sum of independent relative variances, each with its degrees of
/// freedom, and the sum's effective degrees of freedom (Welch and
/// Satterthwaite's `(sum v)^2 / sum(v^2 / df)`: a small part estimated
/// from few blocks widens the interval little, where the fewest degrees
/// of any part would set its t quantile); `None` if any part is.
fn combine<const N: usize>(parts: [Option<(f64, usize)>; N]) -> Option<(f64, usize)> {
    let mut total = 0.0;
    let mut spread = 0.0;
    for (v, df) in parts.into_iter().collect::<Option<Vec<_>>>()? {
        total += v;
        if v > 0.0 {
            spread += v * v / df.max(1) as f64;
        }
    }
    let df = match spread > 0.0 {
        true => ((total * total / spread).floor() as usize).max(1),
        false => usize::MAX,
    };
    Some((total, df))
}

/// `ratio` plus and minus t times its standard error (`relvar`: its
/// relative variance), never below zero.
fn interval(ratio: f64, relvar: f64, df: usize) -> (f64, f64) {
    let half = t95(df) * relvar.sqrt() * ratio;
    ((ratio - half).max(0.0), ratio + half)
}

/// The ratio of each setting that compressed only part of the sample (the
/// time limit), estimated for the whole sample by *ratio estimation*: its
/// compressed size on its blocks, scaled by how a setting that compressed
/// every block did on all blocks against those blocks. Blocks differ far
/// more in compressibility than settings differ on one block, so this
/// cancels most of the luck of which blocks a slow setting reached, and
/// settings compare on the same data. The auxiliary setting is the one of
/// the same codec with the highest ratio that did every block, else any
/// that did, else LZ4 level 1, run here (a fraction of a second).
pub(super) fn estimate_partial_ratios(
    sample: &Sample,
    measured: &mut [Measured],
    plan: &Plan,
) -> Result<(), ProbeError> {
    if let Some(calibration) = sample.calibration() {
        return calibrated_ratios(sample, calibration, measured, plan);
    }
    let n = sample.len();
    let complete = |m: &Measured| m.sizes.len() == n;
    if measured.iter().all(complete) {
        return Ok(());
    }
    let mut fallback: Option<Vec<usize>> = None;
    for i in 0..measured.len() {
        if complete(&measured[i]) {
            continue;
        }
        let codec = measured[i].candidate.setting.codec;
        let best_full = |same_codec: bool| {
            measured
                .iter()
                .filter(|m| complete(m) && (!same_codec || m.candidate.setting.codec == codec))
                .max_by(|a, b| a.candidate.ratio.total_cmp(&b.candidate.ratio))
        };
        let aux: Vec<usize> = match best_full(true).or_else(|| best_full(false)) {
            Some(m) => m.sizes.iter().map(|&(_, size)| size).collect(),
            None => match &fallback {
                Some(sizes) => sizes.clone(),
                None => {
                    let sizes = lz4_fast_sizes(sample)?;
                    fallback = Some(sizes.clone());
                    sizes
                }
            },
        };
        let weighted = |blocks: &mut dyn Iterator<Item = (usize, usize)>| {
            blocks
                .map(|(b, size)| sample.weight(b) * size as f64)
                .sum::<f64>()
        };
        let m = &mut measured[i];
        let part = weighted(&mut m.sizes.iter().copied());
        let aux_part = weighted(&mut m.sizes.iter().map(|&(b, _)| (b, aux[b])));
        let aux_all = weighted(&mut aux.iter().copied().enumerate());
        let input = weighted(&mut (0..n).map(|b| (b, sample.block(b).len())));
        let estimated = part * aux_all / aux_part.max(1.0);
        m.candidate.ratio = input / estimated.max(1.0);
        // Two sources of error: the sample against the input (as the
        // auxiliary setting's ratio varies over the sample), and the
        // blocks done against the sample (how this setting's sizes follow
        // the auxiliary's over the blocks it did).
        let f = sample.sampled_bytes() as f64 / sample.input_bytes().max(1) as f64;
        let aux_pairs: Vec<(f64, f64)> =
            weighted_pairs(sample, &aux.iter().copied().enumerate().collect::<Vec<_>>());
        let first = match sample.is_whole_input() {
            true => Some((0.0, usize::MAX)),
            false => ratio_relvar(&aux_pairs, None, f),
        };
        // Over the blocks done: y (this setting) against x (the
        // auxiliary's size), a fraction done/all of the sample.
        let done_pairs: Vec<(f64, f64)> = m
            .sizes
            .iter()
            .map(|&(b, size)| (aux_pairs[b].1, sample.weight(b) * size as f64))
            .collect();
        let second = ratio_relvar(&done_pairs, None, m.sizes.len() as f64 / n as f64);
        m.candidate.ratio_interval =
            combine([first, second]).map(|(v, d)| interval(m.candidate.ratio, v, d));
    }
    Ok(())
}

/// Every setting's ratio estimated from the calibration pass (see
/// [`Calibration`]): the ratio of the auxiliary setting of its codec
/// (else LZ4's) over the pass's blocks or pieces, divided by how much more
/// this setting's output weighs than the auxiliary's on the sample blocks
/// it compressed (the auxiliary's size there taken as the pass takes it:
/// the sum of the block's pieces', which corrects for pieces compressing a
/// little worse than whole blocks), or, for a setting that compressed the
/// whole sample when the pass kept pieces, on those pieces (compressed
/// here, spread order first, within the time limit; a [`regression`] of
/// its sizes on the auxiliary's), times how much larger its output is in
/// pieces than in whole blocks on the sample ([`piece_factor`]).
/// The interval adds the relative variances ([`combine`]): the pass's
/// units against the input, the setting's sample blocks (or pieces)
/// against the input (how closely it follows the auxiliary from one to
/// the next), and the piece factor's.
fn calibrated_ratios(
    sample: &Sample,
    calibration: &Calibration,
    measured: &mut [Measured],
    plan: &Plan,
) -> Result<(), ProbeError> {
    let aux_settings = calibration.settings();
    let aux_sizes: Vec<Option<Vec<usize>>> = aux_settings
        .iter()
        .map(|&s| calibrate::sizes(s, sample.blocks(), calibration.unit))
        .collect();
    let f1 = calibration.blocks() as f64 / calibration.input_blocks().max(1) as f64;
    let blocks_of_input =
        sample.input_bytes() as f64 / (sample.sampled_bytes() as f64 / sample.len() as f64);
    // Each setting's estimate's relative variance and degrees of freedom.
    let mut variances: Vec<Option<(f64, usize)>> = vec![None; measured.len()];
    for (k, m) in measured.iter_mut().enumerate() {
        let setting = m.candidate.setting;
        let pick = aux_settings
            .iter()
            .position(|s| s.codec == setting.codec)
            .filter(|&i| aux_sizes[i].is_some())
            .or_else(|| aux_sizes.iter().position(Option::is_some));
        let Some(i) = pick else { continue };
        let (aux, sizes) = (
            &calibration.auxiliaries[i],
            aux_sizes[i].as_ref().expect("picked"),
        );
        let first = match calibration.is_complete() {
            true => Some((0.0, usize::MAX)),
            false => ratio_relvar(&aux.pairs, Some(&calibration.positions), f1),
        };
        // The estimate, and the relative variances of its parts with their
        // degrees of freedom (`None`: too few units to tell).
        let (ratio, parts) = match setting.codec {
            // Settings that compressed the whole sample: how much better
            // they do on whole blocks than on pieces is measured there.
            _ if calibration.pieces.len() >= 2 && m.sizes.len() == sample.len() => {
                // The two passes side by side, one core each (they are
                // the probe's extra cost per setting: wall time at 4 MiB
                // blocks of 1 GB went from 26.8 to 31.7 s run one after
                // the other).
                let (pieces, done) = std::thread::scope(|scope| {
                    let cut = scope.spawn(|| compress_in_pieces(sample, setting, calibration.unit));
                    let done = compress_pieces(&calibration.pieces, setting, plan);
                    let cut = cut.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                    (cut, done)
                });
                let (pieces, done) = (pieces?, done?);
                let whole: Vec<usize> = m.sizes.iter().map(|&(_, size)| size).collect();
                let (factor, third) = piece_factor(sample, &pieces, &whole, blocks_of_input);
                let pieces = &calibration.pieces[..done.len()];
                let units: Vec<(f64, f64, f64)> = pieces
                    .iter()
                    .zip(&done)
                    .map(|(p, &size)| (p.data.len() as f64, p.aux[i] as f64, size as f64))
                    .collect();
                let positions: Vec<u64> = pieces.iter().map(|p| p.position).collect();
                let f2 = done.len() as f64 / calibration.input_blocks().max(1) as f64;
                let Some(r) = regression(&units, &positions, 1.0 / aux.ratio(), f2) else {
                    continue;
                };
                let first = first.map(|(v, d)| (v * r.gain * r.gain, d));
                (factor / r.per_byte, [first, Some((r.relvar, r.df)), third])
            }
            _ => {
                // (auxiliary size, its size) over the sample blocks this
                // setting did.
                let pairs: Vec<(f64, f64)> = m
                    .sizes
                    .iter()
                    .map(|&(b, size)| {
                        let w = sample.weight(b);
                        (w * sizes[b] as f64, w * size as f64)
                    })
                    .collect();
                let (aux_y, own_y) = pairs
                    .iter()
                    .fold((0.0, 0.0), |(a, o), &(x, y)| (a + x, o + y));
                if aux_y <= 0.0 || own_y <= 0.0 {
                    continue;
                }
                let f2 = pairs.len() as f64 / blocks_of_input.max(1.0);
                let second = ratio_relvar(&pairs, None, f2);
                (
                    aux.ratio() * aux_y / own_y,
                    [first, second, Some((0.0, usize::MAX))],
                )
            }
        };
        m.candidate.ratio = ratio;
        variances[k] = combine(parts);
        m.candidate.ratio_interval = variances[k]
            // One block of the setting: as sure as the pass, no more.
            .map(|(v, d)| interval(ratio, v, d));
    }
    chain_partial_ratios(sample, measured, &variances, blocks_of_input);
    Ok(())
}

/// A setting cut short by the time limit, estimated again through the
/// setting of its codec with the highest ratio that compressed the whole
/// sample (as estimated above): that ratio times how much less this
/// setting's output weighs than that setting's on the sample blocks it
/// did. Two settings of one codec differ far less from block to block
/// than either differs from the level-1 auxiliary (LZ4 -12 against -9 on
/// text and on columns alike), so the few blocks done tell this far
/// better. The relative variances add ([`combine`]).
fn chain_partial_ratios(
    sample: &Sample,
    measured: &mut [Measured],
    variances: &[Option<(f64, usize)>],
    blocks_of_input: f64,
) {
    let n = sample.len();
    for k in 0..measured.len() {
        if measured[k].sizes.len() == n || measured[k].sizes.is_empty() {
            continue;
        }
        let codec = measured[k].candidate.setting.codec;
        let best = (0..measured.len())
            .filter(|&j| {
                let m = &measured[j];
                m.sizes.len() == n && m.candidate.setting.codec == codec && variances[j].is_some()
            })
            .max_by(|&a, &b| {
                let (a, b) = (&measured[a].candidate, &measured[b].candidate);
                a.ratio.total_cmp(&b.ratio)
            });
        let Some(j) = best else { continue };
        let pairs: Vec<(f64, f64)> = measured[k]
            .sizes
            .iter()
            .map(|&(b, size)| {
                let w = sample.weight(b);
                (w * measured[j].sizes[b].1 as f64, w * size as f64)
            })
            .collect();
        let (full, own) = pairs
            .iter()
            .fold((0.0, 0.0), |(a, o), &(x, y)| (a + x, o + y));
        if full <= 0.0 || own <= 0.0 {
            continue;
        }
        let ratio = measured[j].candidate.ratio * full / own;
        let second = ratio_relvar(&pairs, None, pairs.len() as f64 / blocks_of_input.max(1.0));
        let m = &mut measured[k].candidate;
        m.ratio = ratio;
        m.ratio_interval = combine([variances[j], second]).map(|(v, d)| interval(ratio, v, d));
    }
}

/// How much larger a setting's output is in pieces than in whole blocks
/// on the sample (`pieces` and `whole`: each sample block's compressed
/// size both ways), and the relative variance of that factor (`None`
/// below two blocks), a sample of the input's `blocks_of_input`.
fn piece_factor(
    sample: &Sample,
    pieces: &[usize],
    whole: &[usize],
    blocks_of_input: f64,
) -> (f64, Option<(f64, usize)>) {
    let pairs: Vec<(f64, f64)> = (0..sample.len())
        .map(|b| {
            let w = sample.weight(b);
            (w * pieces[b] as f64, w * whole[b] as f64)
        })
        .collect();
    let (p, w) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, o), &(x, y)| (a + x, o + y));
    let relvar = ratio_relvar(&pairs, None, sample.len() as f64 / blocks_of_input.max(1.0));
    (p / w.max(1.0), relvar)
}

/// The error for `setting`'s compressor failing on sample block `block`,
/// as `map_err` takes it (the compressor's message).
fn compress_error(setting: Setting, block: usize) -> impl Fn(String) -> ProbeError + Copy {
    move |message| ProbeError::Compress {
        setting,
        block,
        message,
    }
}

/// Each sample block's compressed size with `setting`, cut into pieces of
/// `unit` bytes (the sum of theirs).
fn compress_in_pieces(
    sample: &Sample,
    setting: Setting,
    unit: u64,
) -> Result<Vec<usize>, ProbeError> {
    let unit = usize::try_from(unit).unwrap_or(usize::MAX).max(1);
    let mut engine = Engine::new(setting).map_err(compress_error(setting, 0))?;
    let mut dst = vec![0u8; Engine::bound(setting.codec, unit.min(sample.largest_block()))];
    (0..sample.len())
        .map(|b| {
            sample.block(b).chunks(unit).try_fold(0, |sum, piece| {
                let n = engine
                    .compress(piece, &mut dst)
                    .map_err(compress_error(setting, b))?;
                Ok(sum + n)
            })
        })
        .collect()
}

/// A regression estimate of a setting's compressed bytes per input byte
/// (see [`regression`]).
struct Regression {
    /// The estimate.
    per_byte: f64,
    /// Its relative variance from the units (the auxiliary's rate taken
    /// as known).
    relvar: f64,
    /// Its degrees of freedom.
    df: usize,
    /// The relative change of the estimate per relative change of the
    /// auxiliary's rate: the first phase's relative variance counts this
    /// squared.
    gain: f64,
}

/// The regression estimator of survey sampling over `units` (input bytes,
/// auxiliary's compressed bytes, setting's compressed bytes), a fraction
/// `f` of the input's units at `positions`, given the auxiliary's
/// compressed bytes per input byte over the input, `aux_rate`: the
/// setting's rate on the units, moved along the straight line fitted to
/// the units' (auxiliary rate, setting rate) by how far the units'
/// auxiliary rate is from the input's. Where incompressible and
/// compressible pieces mix, a setting's size is close to an affine
/// function of the auxiliary's (equal on incompressible bytes, smaller by
/// a share on the rest), which a ratio (a line through zero) fits far
/// worse. The variance is that of the residuals from the line, from
/// successive differences in input order as in [`ratio_relvar`]. `None`
/// below three units; the ratio estimator's line when the auxiliary rate
/// does not vary.
fn regression(
    units: &[(f64, f64, f64)],
    positions: &[u64],
    aux_rate: f64,
    f: f64,
) -> Option<Regression> {
    let n = units.len();
    if n < 3 {
        return None;
    }
    let (l, x, y) = units.iter().fold((0.0, 0.0, 0.0), |(a, b, c), &(l, x, y)| {
        (a + l, b + x, c + y)
    });
    if l <= 0.0 || x <= 0.0 || y <= 0.0 {
        return None;
    }
    let (u_mean, v_mean) = (x / l, y / l);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for &(li, xi, yi) in units {
        let (du, dv) = (xi / li.max(1.0) - u_mean, yi / li.max(1.0) - v_mean);
        sxy += li * du * dv;
        sxx += li * du * du;
    }
    let mut slope = if sxx > 0.0 {
        sxy / sxx
    } else {
        v_mean / u_mean
    };
    let mut per_byte = v_mean + slope * (aux_rate - u_mean);
    if per_byte.is_nan() || per_byte <= 0.0 || slope < 0.0 {
        // A line that says nothing sensible here: the ratio's.
        slope = v_mean / u_mean;
        per_byte = slope * aux_rate;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| positions[i]);
    let e = |i: usize| {
        let (li, xi, yi) = units[i];
        yi - li * v_mean - slope * (xi - li * u_mean)
    };
    let spread: f64 = order
        .windows(2)
        .map(|w| (e(w[1]) - e(w[0])).powi(2))
        .sum::<f64>()
        / (2 * (n - 1)) as f64;
    let mean_l = l / n as f64;
    let var = (1.0 - f).max(0.0) * spread / n as f64 / (mean_l * mean_l);
    Some(Regression {
        per_byte,
        relvar: var / (per_byte * per_byte),
        df: n - 2,
        gain: slope * aux_rate / per_byte,
    })
}

/// The compressed size of each of `pieces` with `setting`, in their
/// order (spread over the input) until the time limit has passed (at
/// least two).
fn compress_pieces(
    pieces: &[calibrate::Piece],
    setting: Setting,
    plan: &Plan,
) -> Result<Vec<usize>, ProbeError> {
    let error = compress_error(setting, 0);
    let mut engine = Engine::new(setting).map_err(error)?;
    let largest = pieces.iter().map(|p| p.data.len()).max().unwrap_or(0);
    let mut dst = vec![0u8; Engine::bound(setting.codec, largest)];
    let start = Instant::now();
    let mut sizes = Vec::with_capacity(pieces.len());
    for p in pieces {
        sizes.push(engine.compress(&p.data, &mut dst).map_err(error)?);
        if sizes.len() >= 2 && plan.time_limit.is_some_and(|l| start.elapsed() >= l) {
            break;
        }
    }
    Ok(sizes)
}

/// Every block's size compressed with LZ4 level 1.
fn lz4_fast_sizes(sample: &Sample) -> Result<Vec<usize>, ProbeError> {
    let mut dst = vec![0u8; block::max_compressed_size(sample.largest_block())];
    (0..sample.len())
        .map(|b| {
            block::compress_into(sample.block(b), &mut dst, 1)
                .map_err(|e| e.to_string())
                .map_err(compress_error(Setting::lz4(1), b))
        })
        .collect()
}

/// What the one-thread compression found.
struct OneThread {
    /// The blocks compressed, in spread order.
    compressed: Compressed,
    /// Their input bytes.
    bytes: u64,
    /// The best rate, bytes per second.
    rate: f64,
    /// The engine's state, in bytes, after compressing them.
    state: usize,
}

/// Compress the blocks of `sample` on this thread in spread order until
/// all are done or the time limit has passed, keeping their output; then,
/// if that took less than the minimum time, repeat the pass over them.
fn compress_one_thread(
    sample: &Sample,
    setting: Setting,
    plan: &Plan,
) -> Result<OneThread, ProbeError> {
    let order = spread_order(sample.len());
    let mut engine = Engine::new(setting).map_err(compress_error(setting, order[0]))?;
    let mut dst = vec![0u8; Engine::bound(setting.codec, sample.largest_block())];
    // Warm-up: the engine's tables allocated, the code and data cached.
    engine
        .compress(sample.block(order[0]), &mut dst)
        .map_err(compress_error(setting, order[0]))?;

    let start = Instant::now();
    let mut compressed = Compressed {
        data: Vec::new(),
        blocks: Vec::new(),
    };
    let (mut bytes, mut busy) = (0u64, Duration::ZERO);
    for &b in &order {
        let src = sample.block(b);
        let t = Instant::now();
        let n = engine
            .compress(src, &mut dst)
            .map_err(compress_error(setting, b))?;
        busy += t.elapsed();
        let at = compressed.data.len();
        compressed.data.extend_from_slice(&dst[..n]);
        compressed.blocks.push((b, at..at + n));
        bytes += src.len() as u64;
        if plan.time_limit.is_some_and(|l| start.elapsed() >= l) {
            break;
        }
    }
    let mut best = rate(bytes, busy);
    if let Some(rest) = plan.min_time.checked_sub(start.elapsed()) {
        let more = best_rate(rest, || {
            let mut busy = Duration::ZERO;
            for (b, _) in &compressed.blocks {
                let t = Instant::now();
                engine
                    .compress(sample.block(*b), &mut dst)
                    .map_err(compress_error(setting, *b))?;
                busy += t.elapsed();
            }
            Ok((bytes, busy))
        })?;
        best = best.max(more);
    }
    Ok(OneThread {
        state: engine.state_bytes(),
        compressed,
        bytes,
        rate: best,
    })
}

/// Bytes per second.
fn rate(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64().max(1e-9)
}

/// The best rate of `pass` (bytes done and the time they took), run until
/// `min_time` is spent, at least once.
fn best_rate<E>(
    min_time: Duration,
    mut pass: impl FnMut() -> Result<(u64, Duration), E>,
) -> Result<f64, E> {
    let start = Instant::now();
    let mut best = 0f64;
    loop {
        let (bytes, time) = pass()?;
        best = best.max(rate(bytes, time));
        if start.elapsed() >= min_time {
            return Ok(best);
        }
    }
}

/// `0..n` in an order whose every prefix is spread over the range: the
/// bit-reversal (van der Corput) sequence scaled to `n`, repeats skipped.
fn spread_order(n: usize) -> Vec<usize> {
    if n <= 1 {
        return (0..n).collect();
    }
    let bits = usize::BITS - (n - 1).leading_zeros();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for j in 0..1usize << bits {
        let k = j.reverse_bits() >> (usize::BITS - bits);
        // The middle of the k-th of 2^bits equal parts of 0..n.
        let i = (((2 * k as u128 + 1) * n as u128) >> (bits + 1)) as usize;
        if !seen[i] {
            seen[i] = true;
            order.push(i);
        }
    }
    order
}

/// Compress `blocks` of `sample` with `threads` threads sharing them, each
/// with its own engine, until all are done or `stop_after` has passed;
/// the bytes done and the wall-clock time from the first thread's start to
/// the last one's end. Each thread reads the clock itself: a coordinating
/// thread would wait for a core while the workers hold them all, and start
/// its clock late.
fn threaded_pass(
    sample: &Sample,
    setting: Setting,
    blocks: &[usize],
    threads: usize,
    stop_after: Duration,
) -> Result<(u64, Duration), ProbeError> {
    // No more threads than blocks: each holds an output buffer for the
    // largest block.
    let threads = threads.min(blocks.len()).max(1);
    let next = AtomicUsize::new(0);
    let ready = Barrier::new(threads);
    let bound = Engine::bound(setting.codec, sample.largest_block());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let engine = Engine::new(setting);
                    let mut dst = vec![0u8; bound];
                    ready.wait();
                    let start = Instant::now();
                    let deadline = start + stop_after;
                    let mut engine = engine.map_err(compress_error(setting, blocks[0]))?;
                    let mut bytes = 0u64;
                    // Each thread does at least one block.
                    while let Some(&b) = blocks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let src = sample.block(b);
                        engine
                            .compress(src, &mut dst)
                            .map_err(compress_error(setting, b))?;
                        bytes += src.len() as u64;
                        if Instant::now() >= deadline {
                            break;
                        }
                    }
                    Ok((bytes, start, Instant::now()))
                })
            })
            .collect();
        let mut bytes = 0;
        let mut span: Option<(Instant, Instant)> = None;
        let mut failure = None;
        for w in workers {
            match w.join() {
                Ok(Ok((n, start, end))) => {
                    bytes += n;
                    span = Some(span.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
                }
                Ok(Err(e)) => failure = Some(e),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        match (failure, span) {
            (Some(e), _) => Err(e),
            (None, Some((start, end))) => Ok((bytes, end - start)),
            (None, None) => Ok((0, Duration::ZERO)),
        }
    })
}

/// The best decoding rate of `decode` over the compressed blocks: a first
/// pass that checks every block (and warms up), then timed passes, each
/// block timed alone and checked against the input after its timing.
/// Fails with the block and the message.
fn decode_rate(
    sample: &Sample,
    compressed: &Compressed,
    min_time: Duration,
    mut decode: impl FnMut(&[u8], &mut [u8]) -> Result<usize, String>,
) -> Result<f64, (usize, String)> {
    let mut out = vec![0u8; sample.largest_block()];
    let mut one = |b: usize, range: &Range<usize>| -> Result<Duration, (usize, String)> {
        let expected = sample.block(b);
        let dst = &mut out[..expected.len()];
        let t = Instant::now();
        let n = decode(&compressed.data[range.clone()], dst).map_err(|m| (b, m))?;
        let time = t.elapsed();
        if dst[..n] != *expected {
            return Err((
                b,
                format!(
                    "decoded {n} bytes that differ from the {} of the input",
                    expected.len()
                ),
            ));
        }
        Ok(time)
    };
    for (b, range) in &compressed.blocks {
        one(*b, range)?;
    }
    let bytes: u64 = compressed
        .blocks
        .iter()
        .map(|(b, _)| sample.block(*b).len() as u64)
        .sum();
    best_rate(min_time, || {
        let mut busy = Duration::ZERO;
        for (b, range) in &compressed.blocks {
            busy += one(*b, range)?;
        }
        Ok((bytes, busy))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_orders_are_permutations_with_spread_prefixes() {
        for n in [0, 1, 2, 3, 7, 8, 100, 1000] {
            let mut o = spread_order(n);
            // The first m (a power of two) leave no gap wider than about
            // n / m: any prefix samples the whole range.
            let mut m = 1;
            while m <= n {
                let mut prefix = o[..m].to_vec();
                prefix.sort_unstable();
                let ends = [prefix[0] + 1, n - prefix[m - 1]];
                let gaps = prefix.windows(2).map(|w| w[1] - w[0]).chain(ends);
                let widest = gaps.max().unwrap();
                assert!(widest <= n.div_ceil(m) + 1, "n = {n}, m = {m}: {prefix:?}");
                m *= 2;
            }
            if n == 8 {
                assert_eq!(o, [0, 4, 2, 6, 1, 5, 3, 7]);
            }
            o.sort_unstable();
            assert_eq!(o, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn ratio_variances() {
        // Every block of the same ratio: no variance.
        let same = [(100.0, 25.0), (200.0, 50.0), (50.0, 12.5)];
        assert_eq!(ratio_relvar(&same, None, 0.1).unwrap(), (0.0, 2));
        // The whole population: none either; one block: unknown.
        let mixed = [(100.0, 10.0), (100.0, 90.0), (100.0, 40.0)];
        assert_eq!(ratio_relvar(&mixed, None, 1.0).unwrap().0, 0.0);
        assert!(ratio_relvar(&mixed[..1], None, 0.1).is_none());
        // Residuals x - R y with R = 300/140: successive differences of
        // (78.57, -92.86, 14.29), in the given order or by position.
        let r = 300.0 / 140.0;
        let e: Vec<f64> = mixed.iter().map(|&(x, y)| x - r * y).collect();
        let spread = ((e[1] - e[0]).powi(2) + (e[2] - e[1]).powi(2)) / 4.0;
        let expected = 0.5 * spread / 3.0 / (100.0f64 * 100.0);
        let (v, df) = ratio_relvar(&mixed, None, 0.5).unwrap();
        assert!(
            (v / expected - 1.0).abs() < 1e-12 && df == 2,
            "{v} vs {expected}"
        );
        let reordered = ratio_relvar(&mixed, Some(&[0, 2, 1]), 0.5).unwrap().0;
        let spread = ((e[2] - e[0]).powi(2) + (e[1] - e[2]).powi(2)) / 4.0;
        let expected = 0.5 * spread / 3.0 / (100.0f64 * 100.0);
        assert!((reordered / expected - 1.0).abs() < 1e-12);
        // Student's t: wide for few blocks, 1.96 in the limit.
        assert_eq!(t95(1), 12.706);
        assert!(t95(30) > t95(31) && t95(31) > t95(1000) && t95(1000) > 1.96);
    }

    /// Units of 256 KiB: `n` of them, alternately incompressible (the
    /// auxiliary and the setting both keep every byte) and compressible
    /// (the auxiliary to a share `s` drawn between 20% and 40%, the
    /// setting to `1.2 s - 0.2`), in input order.
    fn units(n: usize) -> (Vec<(f64, f64, f64)>, Vec<u64>) {
        let len = 262_144.0;
        let units = (0..n)
            .map(|i| match i % 2 {
                0 => (len, len, len),
                _ => {
                    let share = 0.2 + 0.2 * ((i * 7919) % 101) as f64 / 100.0;
                    (len, share * len, (1.2 * share - 0.2) * len)
                }
            })
            .collect();
        (units, (0..n as u64).collect())
    }

    #[test]
    fn regression_estimates_are_exact_on_a_line_and_sure_of_it() {
        // The setting's rate an affine function of the auxiliary's, which
        // no ratio (a line through zero) fits.
        let (units, positions) = units(40);
        let r = regression(&units, &positions, 0.5, 0.01).unwrap();
        // The input's auxiliary rate 0.5: the setting's 1.2 * 0.5 - 0.2.
        assert!((r.per_byte / 0.4 - 1.0).abs() < 1e-9, "{}", r.per_byte);
        assert!(r.relvar < 1e-12, "{}", r.relvar);
        assert_eq!(r.df, 38);
        // Relative change with the auxiliary's rate: 1.2 * 0.5 / 0.4.
        assert!((r.gain - 1.5).abs() < 1e-9, "{}", r.gain);
        assert!(regression(&units[..2], &positions[..2], 0.5, 0.0).is_none());
    }

    #[test]
    fn regression_intervals_shrink_with_more_units() {
        // Noise on the setting's sizes: the fit is no longer exact.
        let noisy = |n: usize| {
            let (mut units, positions) = units(n);
            for (i, u) in units.iter_mut().enumerate() {
                u.2 *= 1.0 + 0.05 * (((i as u64 * 2_654_435_761) % 1000) as f64 / 500.0 - 1.0);
            }
            regression(&units, &positions, 0.5, 0.0).unwrap()
        };
        let (few, many) = (noisy(16), noisy(256));
        assert!(few.relvar > 0.0);
        assert!(
            many.relvar < few.relvar / 4.0,
            "{} vs {}",
            many.relvar,
            few.relvar
        );
        assert!(
            (many.per_byte / 0.4 - 1.0).abs() < 0.02,
            "{}",
            many.per_byte
        );
    }

    #[test]
    fn combined_variances_have_effective_degrees_of_freedom() {
        // One part alone keeps its own; exact parts add nothing.
        assert_eq!(
            combine([Some((0.01, 7)), Some((0.0, usize::MAX))]),
            Some((0.01, 7))
        );
        // A small part from few blocks next to a large one from many: the
        // large one's degrees, nearly.
        let (v, df) = combine([Some((1e-4, 126)), Some((1e-6, 7))]).unwrap();
        assert!((v - 1.01e-4).abs() < 1e-12);
        assert!((120..=130).contains(&df), "{df}");
        // Two equal parts: more than either.
        assert_eq!(
            combine([Some((1e-4, 7)), Some((1e-4, 7))]),
            Some((2e-4, 14))
        );
        assert_eq!(combine([Some((1e-4, 7)), None]), None);
        assert_eq!(
            combine([Some((0.0, 1)), Some((0.0, 5))]),
            Some((0.0, usize::MAX))
        );
    }

    #[test]
    fn best_rate_runs_at_least_once_and_keeps_the_best() {
        let mut times = [4u64, 2, 8].into_iter().cycle();
        let mut calls = 0;
        let best = best_rate::<()>(Duration::ZERO, || {
            calls += 1;
            Ok((100, Duration::from_secs(times.next().unwrap())))
        })
        .unwrap();
        assert_eq!((calls, best), (1, 25.0));
        let best = best_rate::<()>(Duration::from_millis(2), || {
            Ok((100, Duration::from_secs(times.next().unwrap())))
        })
        .unwrap();
        assert_eq!(best, 50.0, "the 2-second pass of the cycle");
    }

    #[test]
    fn a_wrong_decode_is_reported() {
        let data = vec![5u8; 100_000];
        let sample =
            Sample::from_slices(&[&data], u64::MAX, super::super::BlockSize::Bytes(1 << 16))
                .unwrap();
        let packed = block::compress(sample.block(1), 1);
        let compressed = Compressed {
            blocks: vec![(1, 0..packed.len())],
            data: packed,
        };
        let good = decode_rate(&sample, &compressed, Duration::ZERO, |s, d| {
            block::decompress_into(s, d).map_err(|e| e.to_string())
        });
        assert!(good.unwrap() > 0.0);
        let bad = decode_rate(&sample, &compressed, Duration::ZERO, |s, d| {
            let n = block::decompress_into(s, d).map_err(|e| e.to_string())?;
            d[n / 2] ^= 1;
            Ok(n)
        });
        assert_eq!(bad.unwrap_err().0, 1);
    }
}
