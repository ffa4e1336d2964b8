//! [`Calibration`]: a fast codec's ratio on many more blocks of the input
//! than the sample holds, so that every setting's ratio can be estimated
//! from how it compares with that codec on the sample.
//!
//! A probe's sample is small (32 MiB by default): 8 blocks of 4 MiB, or 32
//! of 1 MiB, of an input whose content may change every few MB. The ratios
//! of such blocks spread so widely on mixed data (a table column next to an
//! executable next to text) that 8 of them cannot tell the whole input's
//! ratio to better than ±30%. How one setting compares with another on the
//! same block varies far less. So the builder also streams through many
//! more blocks, evenly spread over the input, within a time budget, and
//! compresses each with LZ4 level 1 (about 800 MB/s) and zstd level 1 (500
//! MB/s; with the `zstd-compress` feature): the *auxiliary* settings. A
//! setting's ratio is then the auxiliary ratio over all those blocks,
//! divided by how much larger the setting's output is than the auxiliary's
//! on the sample (survey sampling's two-phase ratio estimation).
//!
//! Blocks of 1 MiB or more are calibrated in *pieces* of [`PIECE`] bytes
//! (each block cut from its start): the pass compresses pieces evenly spread
//! over the whole input, many more places than as many whole blocks would
//! visit, so it knows the auxiliary ratios far better in the same time. A
//! piece compresses a little worse than its block (its first bytes have no
//! history), which the estimate corrects on the sample (see
//! [`super::measure`]). The pass also keeps the first [`KEPT_PIECES`]
//! pieces it sends (evenly spread over the input): a setting that
//! compressed the whole sample is compared with the auxiliary on those,
//! far more places than the sample's few large blocks, and corrected by
//! how much better it does on the sample's whole blocks than on their
//! pieces (each setting its own: on a mixed 1 GB file, 256 KiB pieces lose
//! 0.6% against 4 MiB blocks with LZ4 -1, 2% with LZ4 -9).

use std::io::{Read, Seek, SeekFrom};
use std::time::{Duration, Instant};

use super::Setting;

/// How long a probe's calibration pass may run by default: about 1 GB of
/// 64 KiB to 4 MiB blocks on one core of a 2020s machine.
pub const DEFAULT_CALIBRATION: Duration = Duration::from_millis(1500);

/// One auxiliary setting's results over the calibration blocks.
#[derive(Debug, Clone)]
pub(super) struct Auxiliary {
    pub(super) setting: Setting,
    /// Per block, in the order compressed: (input bytes, compressed
    /// bytes).
    pub(super) pairs: Vec<(f64, f64)>,
}

impl Auxiliary {
    /// Input over compressed bytes of all its blocks.
    pub(super) fn ratio(&self) -> f64 {
        let (x, y) = self
            .pairs
            .iter()
            .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
        x / y.max(1.0)
    }
}

/// Blocks of at least 4 pieces of this size (and a multiple of it) are
/// calibrated in pieces.
pub(super) const PIECE: u64 = 256 << 10;

/// The pieces a pass over pieces keeps (8 MiB... 32 MiB of them), at least
/// as many as it compresses.
pub(super) const KEPT_PIECES: usize = 128;

/// The unit a pass over blocks of `block` bytes compresses: [`PIECE`] or
/// the block.
pub(super) fn unit(block: u64) -> u64 {
    if block >= 4 * PIECE && block.is_multiple_of(PIECE) {
        PIECE
    } else {
        block
    }
}

/// A piece the pass kept: its bytes, its place in the input (in pieces),
/// and its compressed size with each auxiliary setting.
#[derive(Debug, Clone)]
pub(super) struct Piece {
    pub(super) data: Vec<u8>,
    pub(super) position: u64,
    pub(super) aux: Vec<usize>,
}

/// What the calibration pass found: a fast codec's ratio on many more
/// blocks of the input than the sample holds, so that every setting's
/// ratio can be estimated from how it compares with that codec on the
/// sample (see [How sure the ratios are](super#how-sure-the-ratios-are)).
#[derive(Debug, Clone)]
pub struct Calibration {
    pub(super) auxiliaries: Vec<Auxiliary>,
    /// The input-order position of each block of the auxiliaries' pairs.
    pub(super) positions: Vec<u64>,
    input_blocks: usize,
    bytes: u64,
    elapsed: Duration,
    /// The unit compressed: a [`PIECE`] of each block, or the block.
    pub(super) unit: u64,
    /// The pieces kept (none when the unit is the block), in the order
    /// sent: every prefix spread over the input.
    pub(super) pieces: Vec<Piece>,
}

impl Calibration {
    /// The size of the pieces the pass compressed, if it cut the blocks
    /// into pieces (blocks of 1 MiB or more); [`Calibration::blocks`] and
    /// [`Calibration::input_blocks`] then count pieces.
    pub fn piece_size(&self) -> Option<u64> {
        (!self.pieces.is_empty() || self.unit == PIECE).then_some(self.unit)
    }

    /// Blocks (or pieces) the pass compressed.
    pub fn blocks(&self) -> usize {
        self.auxiliaries.first().map_or(0, |a| a.pairs.len())
    }

    /// Blocks (or pieces) of the whole input.
    pub fn input_blocks(&self) -> usize {
        self.input_blocks
    }

    /// Whether the pass compressed every block of the input (its
    /// auxiliary ratios are then exact).
    pub fn is_complete(&self) -> bool {
        self.blocks() == self.input_blocks
    }

    /// Bytes the pass compressed (with each auxiliary setting).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// How long the pass took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The auxiliary settings, in the order they ran.
    pub fn settings(&self) -> Vec<Setting> {
        self.auxiliaries.iter().map(|a| a.setting).collect()
    }

    /// The widest 95% interval of the auxiliary ratios, as a share of
    /// the ratio (0 once every block is in; `None` below two blocks).
    pub fn precision(&self) -> Option<f64> {
        if self.is_complete() {
            return Some(0.0);
        }
        let f = self.blocks() as f64 / self.input_blocks.max(1) as f64;
        self.auxiliaries
            .iter()
            .map(|a| {
                super::measure::ratio_relvar(&a.pairs, Some(&self.positions), f)
                    .map(|(v, df)| super::measure::t95(df) * v.sqrt())
            })
            .try_fold(0f64, |worst, p| p.map(|p| worst.max(p)))
    }

    /// The ratio of the auxiliary `setting` over the pass's blocks, if it
    /// is one.
    pub fn ratio(&self, setting: Setting) -> Option<f64> {
        self.auxiliaries
            .iter()
            .find(|a| a.setting == setting)
            .map(Auxiliary::ratio)
    }
}

/// A compressor of an auxiliary setting.
enum AuxEngine {
    Lz4(Vec<u8>),
    #[cfg(feature = "zstd-compress")]
    Zstd(Box<::zstd::bulk::Compressor<'static>>, Vec<u8>),
}

impl AuxEngine {
    fn all() -> Vec<(Setting, AuxEngine)> {
        #[allow(unused_mut)]
        let mut engines = vec![(Setting::lz4(1), AuxEngine::Lz4(Vec::new()))];
        #[cfg(feature = "zstd-compress")]
        if let Ok(c) = ::zstd::bulk::Compressor::new(1) {
            engines.push((Setting::zstd(1), AuxEngine::Zstd(Box::new(c), Vec::new())));
        }
        engines
    }

    /// The compressed size of `src`, or `None` if the coder failed (the
    /// block is then left out of the calibration).
    fn size(&mut self, src: &[u8]) -> Option<usize> {
        match self {
            AuxEngine::Lz4(dst) => {
                dst.resize(crate::lz4::block::max_compressed_size(src.len()), 0);
                crate::lz4::block::compress_into(src, dst, 1).ok()
            }
            #[cfg(feature = "zstd-compress")]
            AuxEngine::Zstd(c, dst) => {
                dst.resize(::zstd::zstd_safe::compress_bound(src.len()), 0);
                c.compress_to_buffer(src, dst.as_mut_slice()).ok()
            }
        }
    }
}

/// The compressed size of each of `blocks` with the auxiliary `setting`,
/// compressed as the pass did: the sum of its `unit`-byte pieces' sizes
/// (`None` if it is not one this build has, or a block fails).
pub(super) fn sizes<'b>(
    setting: Setting,
    blocks: impl Iterator<Item = &'b [u8]>,
    unit: u64,
) -> Option<Vec<usize>> {
    let (_, mut engine) = AuxEngine::all().into_iter().find(|(s, _)| *s == setting)?;
    let unit = usize::try_from(unit).unwrap_or(usize::MAX).max(1);
    blocks
        .map(|b| match b.is_empty() {
            true => engine.size(b),
            false => b.chunks(unit).map(|p| engine.size(p)).sum(),
        })
        .collect()
}

/// The blocks `0..n` in an order whose every prefix is spread over them
/// (the bit-reversal order of [`super::measure`]'s passes), lazily: an
/// input of a terabyte in 64 KiB blocks needs no list of its blocks.
fn spread_blocks(n: u64) -> impl Iterator<Item = u64> {
    let bits = if n <= 1 {
        0
    } else {
        u64::BITS - (n - 1).leading_zeros()
    };
    let mut seen = vec![0u64; n.div_ceil(64) as usize];
    (0..1u64 << bits).filter_map(move |j| {
        let k = if bits == 0 {
            0
        } else {
            j.reverse_bits() >> (u64::BITS - bits)
        };
        let i = (((2 * u128::from(k) + 1) * u128::from(n)) >> (bits + 1)) as u64;
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        let new = seen.get(word).is_some_and(|w| w & bit == 0);
        if new {
            seen[word] |= bit;
        }
        new.then_some(i)
    })
}

/// Something the pass reads blocks from.
pub(super) trait BlockSource {
    /// Read `len` bytes at `offset` of input `source` into `buf` (cleared
    /// first); an error names the input.
    fn read_block(
        &mut self,
        source: usize,
        offset: u64,
        len: usize,
        buf: &mut Vec<u8>,
    ) -> Result<(), (String, std::io::Error)>;
}

/// Blocks larger than this are not calibrated: the pass holds a few per
/// thread (being read, queued, compressed, and their compressed output).
pub(super) const MAX_BLOCK: usize = 64 << 20;

/// The pass stops early once every auxiliary ratio is known to within
/// this share (95% interval; see [`Calibration`]): the setting's own
/// comparison on the sample adds its share to each interval.
pub const CALIBRATION_PRECISION: f64 = 0.01;

/// Run the pass over inputs of `lengths` bytes cut into blocks of `block`
/// bytes, for at most `budget` (at least 2 blocks, or all if fewer), until
/// every auxiliary ratio is within [`CALIBRATION_PRECISION`]. The caller's
/// thread reads; `threads` threads compress. Blocks of 1 MiB or more are
/// compressed in pieces ([`unit()`]), and then at least [`KEPT_PIECES`] of
/// them (if the budget allows) are compressed and kept.
pub(super) fn calibrate(
    lengths: &[u64],
    block: u64,
    budget: Duration,
    threads: usize,
    source: &mut dyn BlockSource,
) -> Result<Calibration, (String, std::io::Error)> {
    let start = Instant::now();
    let unit = unit(block);
    let keep_pieces = if unit < block { KEPT_PIECES } else { 0 };
    let block = unit;
    let first_check = FIRST_CHECK.max(keep_pieces.next_power_of_two());
    let counts: Vec<u64> = lengths.iter().map(|l| l.div_ceil(block)).collect();
    let n: u64 = counts.iter().sum();
    let mut firsts = Vec::with_capacity(counts.len());
    let mut first = 0u64;
    for &c in &counts {
        firsts.push(first);
        first += c;
    }
    let settings: Vec<Setting> = AuxEngine::all().into_iter().map(|(s, _)| s).collect();
    let threads = threads.max(1);
    // Blocks out to the workers (numbered in the order sent), results back
    // with the buffer, for reuse.
    let (to_work, work) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(threads);
    let work = std::sync::Mutex::new(work);
    let (to_main, results) = std::sync::mpsc::channel::<(usize, Vec<u8>, Option<Vec<usize>>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (work, to_main) = (&work, to_main.clone());
            scope.spawn(move || {
                let mut engines = AuxEngine::all();
                loop {
                    let next = work.lock().map(|w| w.recv());
                    let Ok(Ok((seq, buf))) = next else { return };
                    let sizes = engines.iter_mut().map(|(_, e)| e.size(&buf)).collect();
                    if to_main.send((seq, buf, sizes)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(to_main);
        // Per block sent: its place in the input, and once back, its size
        // and compressed sizes.
        let mut slots: Vec<(u64, Option<Done>)> = Vec::new();
        let mut spare: Vec<Vec<u8>> = Vec::new();
        // The bytes of the first pieces sent, by their number.
        let mut kept: Vec<Option<Vec<u8>>> = vec![None; keep_pieces];
        let mut record =
            |slots: &mut Vec<(u64, Option<Done>)>,
             (seq, buf, sizes): (usize, Vec<u8>, Option<Vec<usize>>)| {
                if seq < keep_pieces {
                    kept[seq] = Some(buf.clone());
                }
                slots[seq].1 = Some((buf.len(), sizes));
                buf
            };
        let (mut prefix, mut next_check) = (0usize, first_check);
        let mut failure = None;
        for j in spread_blocks(n) {
            while let Ok(r) = results.try_recv() {
                spare.push(record(&mut slots, r));
            }
            while prefix < slots.len() && slots[prefix].1.is_some() {
                prefix += 1;
            }
            if slots.len() >= 2 && start.elapsed() >= budget {
                break;
            }
            // Precise enough on the first 8, 16, 32... blocks sent: stop
            // (which of them to keep is decided below).
            if prefix >= next_check {
                if build(&settings, &slots[..next_check], n).precise_to(CALIBRATION_PRECISION) {
                    break;
                }
                next_check *= 2;
            }
            let s = firsts.partition_point(|&f| f <= j) - 1;
            let offset = (j - firsts[s]) * block;
            let len = block.min(lengths[s] - offset) as usize;
            let mut buf = spare.pop().unwrap_or_default();
            if let Err(e) = source.read_block(s, offset, len, &mut buf) {
                failure = Some(e);
                break;
            }
            if to_work.send((slots.len(), buf)).is_err() {
                break;
            }
            slots.push((j, None));
        }
        drop(to_work);
        for r in results.iter() {
            record(&mut slots, r);
        }
        if let Some(e) = failure {
            return Err(e);
        }
        // The first 8, 16, 32... blocks that are precise enough, or all:
        // the same blocks on every run whenever the budget was not what
        // stopped the pass. Results come back in any order, so the loop
        // above may have checked later than it could have, or not at all
        // before every block was sent: the rule holds even then.
        let keep = std::iter::successors(Some(first_check), |k| k.checked_mul(2))
            .take_while(|&k| k < slots.len())
            .find(|&k| build(&settings, &slots[..k], n).precise_to(CALIBRATION_PRECISION))
            .unwrap_or(slots.len());
        let mut calibration = build(&settings, &slots[..keep], n);
        calibration.elapsed = start.elapsed();
        calibration.unit = unit;
        calibration.pieces = slots[..keep.min(keep_pieces)]
            .iter()
            .zip(kept)
            .filter_map(|((j, done), data)| match (done, data) {
                (Some((_, Some(aux))), Some(data)) => Some(Piece {
                    data,
                    position: *j,
                    aux: aux.clone(),
                }),
                _ => None,
            })
            .collect();
        Ok(calibration)
    })
}

/// The fewest blocks whose precision the pass checks (then twice as many,
/// and so on).
const FIRST_CHECK: usize = 8;

/// One block's result: its size, and its compressed size with each
/// auxiliary setting (`None` if a coder failed on it).
type Done = (usize, Option<Vec<usize>>);

/// The calibration of the blocks in `slots` (their places in the input
/// and results), of an input of `n` blocks; blocks a coder failed on are
/// left out.
fn build(settings: &[Setting], slots: &[(u64, Option<Done>)], n: u64) -> Calibration {
    let mut calibration = Calibration {
        auxiliaries: settings
            .iter()
            .map(|&setting| Auxiliary {
                setting,
                pairs: Vec::new(),
            })
            .collect(),
        positions: Vec::new(),
        input_blocks: n as usize,
        bytes: 0,
        elapsed: Duration::ZERO,
        unit: 0,
        pieces: Vec::new(),
    };
    for (j, done) in slots {
        let Some((len, Some(sizes))) = done else {
            continue;
        };
        for (aux, &size) in calibration.auxiliaries.iter_mut().zip(sizes) {
            aux.pairs.push((*len as f64, size as f64));
        }
        calibration.positions.push(*j);
        calibration.bytes += *len as u64;
    }
    calibration
}

impl Calibration {
    /// Whether every auxiliary ratio's 95% interval is within `share` of
    /// it (always, once every block is in).
    fn precise_to(&self, share: f64) -> bool {
        self.precision().is_some_and(|p| p <= share)
    }
}

/// Read exactly `len` bytes at `offset` of `reader` into `buf` (cleared
/// first).
pub(super) fn read_at(
    reader: &mut (impl Read + Seek + ?Sized),
    offset: u64,
    len: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<()> {
    buf.clear();
    append_at(reader, offset, len as u64, buf)
}

/// Append exactly `len` bytes at `offset` of `reader` to `data`; an input
/// shorter than its size said is an error.
pub(super) fn append_at(
    reader: &mut (impl Read + Seek + ?Sized),
    offset: u64,
    len: u64,
    data: &mut Vec<u8>,
) -> std::io::Result<()> {
    reader.seek(SeekFrom::Start(offset))?;
    let want = usize::try_from(len).map_err(|_| std::io::ErrorKind::OutOfMemory)?;
    let got = reader.take(len).read_to_end(data)?;
    if got < want {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the input shrank while it was read",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_blocks_visit_each_block_once_spread_first() {
        for n in [0u64, 1, 2, 3, 7, 8, 100, 1000] {
            let order: Vec<u64> = spread_blocks(n).collect();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "n = {n}");
            if n >= 8 {
                // The first 4 fall in the four quarters.
                let mut quarters: Vec<u64> = order[..4].iter().map(|&i| i * 4 / n).collect();
                quarters.sort_unstable();
                assert_eq!(quarters, [0, 1, 2, 3], "n = {n}: {:?}", &order[..4]);
            }
        }
    }

    struct Memory(Vec<Vec<u8>>, usize);

    impl BlockSource for Memory {
        fn read_block(
            &mut self,
            source: usize,
            offset: u64,
            len: usize,
            buf: &mut Vec<u8>,
        ) -> Result<(), (String, std::io::Error)> {
            self.1 += 1;
            read_at(&mut std::io::Cursor::new(&self.0[source]), offset, len, buf)
                .map_err(|e| (format!("input {source}"), e))
        }
    }

    #[test]
    fn a_pass_without_a_time_limit_covers_every_block_exactly() {
        let a: Vec<u8> = (0..300_000u32).map(|i| (i / 7 % 251) as u8).collect();
        let b: Vec<u8> = (0..70_000u32)
            .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let inputs = vec![a, Vec::new(), b];
        let lengths: Vec<u64> = inputs.iter().map(|v| v.len() as u64).collect();
        let block = 64 << 10;
        let mut src = Memory(inputs.clone(), 0);
        let cal = calibrate(&lengths, block, Duration::MAX, 2, &mut src).unwrap();
        let n = 5 + 2; // 300,000 and 70,000 bytes in 64 KiB blocks
        assert_eq!((cal.blocks(), cal.input_blocks(), src.1), (n, n, n));
        assert!(cal.is_complete());
        assert_eq!(cal.bytes(), 370_000);
        let compressed: usize = inputs
            .iter()
            .flat_map(|v| v.chunks(block as usize))
            .map(|c| crate::lz4::block::compress(c, 1).len())
            .sum();
        let truth = 370_000.0 / compressed as f64;
        assert_eq!(cal.ratio(Setting::lz4(1)), Some(truth));
    }

    #[test]
    fn large_blocks_are_calibrated_in_pieces_and_the_first_are_kept() {
        // 40 MiB in 4 MiB blocks: 160 pieces of 256 KiB; a column-like
        // input, within 1% long before all are in, but the first 128 are
        // always compressed and kept.
        let data: Vec<u8> = (0..10u32 << 20)
            .flat_map(|i| (i / 5 + (i >> 16) * 13).to_le_bytes())
            .collect();
        assert_eq!(unit(4 << 20), PIECE);
        assert_eq!((unit(64 << 10), unit(3 << 20 | 1)), (64 << 10, 3 << 20 | 1));
        let mut src = Memory(vec![data.clone()], 0);
        let cal = calibrate(&[data.len() as u64], 4 << 20, Duration::MAX, 2, &mut src).unwrap();
        assert_eq!((cal.piece_size(), cal.input_blocks()), (Some(PIECE), 160));
        assert!(cal.blocks() >= KEPT_PIECES);
        assert_eq!(cal.pieces.len(), KEPT_PIECES);
        let mut positions: Vec<u64> = cal.pieces.iter().map(|p| p.position).collect();
        // The first four in the four quarters of the input.
        assert!(positions[..4].iter().all(|&p| p < 160));
        positions.sort_unstable();
        positions.dedup();
        assert_eq!(positions.len(), KEPT_PIECES);
        for p in &cal.pieces {
            let at = (p.position * PIECE) as usize;
            assert_eq!(p.data, data[at..at + PIECE as usize]);
            assert_eq!(p.aux[0], crate::lz4::block::compress(&p.data, 1).len());
        }
        // Blocks of 64 KiB are calibrated whole, and none kept.
        let cal = calibrate(&[1 << 20], 64 << 10, Duration::MAX, 1, &mut src).unwrap();
        assert_eq!((cal.piece_size(), cal.pieces.len()), (None, 0));
    }

    #[test]
    fn a_spent_budget_still_takes_two_blocks() {
        let data = vec![3u8; 1 << 20];
        let mut src = Memory(vec![data], 0);
        let cal = calibrate(&[1 << 20], 4096, Duration::ZERO, 1, &mut src).unwrap();
        assert_eq!((cal.blocks(), cal.input_blocks()), (2, 256));
        assert!(!cal.is_complete());
    }
}
