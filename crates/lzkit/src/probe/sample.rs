//! [`Sample`]: the part of the input a probe compresses, chosen from the
//! inputs' sizes alone, so the same input always gives the same sample.
//!
//! With a block size B (`BlockSize::Bytes`), the input is what the user's
//! system would compress: every file cut into blocks of B bytes from its
//! start (its last block shorter). When the input is larger than the
//! budget, k of those N blocks are taken, as many as the budget holds at
//! their mean size, evenly spread over all of them: block number
//! `(2i + 1) * N / (2k)`, for i < k. Every sampled block is a real block of
//! the input, short last blocks included.
//!
//! With whole files as blocks (`BlockSize::WholeFile`), a sample of a
//! larger input takes evenly spread files, as many as can each give at
//! least [`MIN_FILE_SHARE`] bytes, and shares the budget among them by
//! water-filling (small files whole, the others cut to one common size).
//! A cut file is represented by evenly spread slices of it, concatenated
//! into one block, and weighted by how much of it (and of the files not
//! taken) the block stands for.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

use super::ProbeError;
use super::calibrate::{self, BlockSource, Calibration, DEFAULT_CALIBRATION};

/// A file larger than its share of a whole-file sample is cut into slices of
/// at most this many bytes, evenly spread over it: big enough to hold
/// matches at zstd's usual distances, small enough that a share of a few
/// MiB still visits several parts of the file.
const MAX_SLICE: u64 = 1 << 20;
/// A whole-file sample takes only as many files as can each give at least
/// this many bytes (or be whole), so that a cut file is still compressed
/// as a sizeable block, not as a few KiB of it.
pub const MIN_FILE_SHARE: u64 = 1 << 20;

/// What the user's system compresses as one unit.
///
/// ```
/// use lzkit::probe::BlockSize;
/// assert_eq!(BlockSize::Bytes(65_536).to_string(), "64 KiB");
/// assert_eq!(BlockSize::WholeFile.to_string(), "whole files");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockSize {
    /// Blocks of this many bytes (64 KiB pages, 1 MiB baskets); the last
    /// block of each file is shorter.
    Bytes(usize),
    /// Each file is one block.
    WholeFile,
}

impl std::fmt::Display for BlockSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            BlockSize::WholeFile => f.write_str("whole files"),
            BlockSize::Bytes(n) if n >= 1 << 20 && n.is_multiple_of(1 << 20) => {
                write!(f, "{} MiB", n >> 20)
            }
            BlockSize::Bytes(n) if n >= 1 << 10 && n.is_multiple_of(1 << 10) => {
                write!(f, "{} KiB", n >> 10)
            }
            BlockSize::Bytes(n) => write!(f, "{n} B"),
        }
    }
}

/// One block of a sample: where its bytes lie in [`Sample`]'s buffer, and
/// how many bytes of the input each of its bytes stands for.
#[derive(Debug, Clone)]
struct SampleBlock {
    range: Range<usize>,
    weight: f64,
}

/// The blocks a probe compresses: real blocks of the input, evenly spread
/// over it (see the [module documentation](crate::probe)), read into memory.
///
/// ```
/// use lzkit::probe::{BlockSize, Sample};
///
/// let data = vec![7u8; 1 << 20];
/// // A budget of 256 KiB of 64 KiB blocks: 4 of the 16 blocks.
/// let sample = Sample::from_slices(&[&data[..]], 256 << 10, BlockSize::Bytes(64 << 10))?;
/// assert_eq!((sample.len(), sample.sampled_bytes()), (4, 256 << 10));
/// assert!(!sample.is_whole_input());
/// // The same input always gives the same sample.
/// let again = Sample::from_slices(&[&data[..]], 256 << 10, BlockSize::Bytes(64 << 10))?;
/// assert_eq!(sample.offsets(), again.offsets());
/// # Ok::<(), lzkit::probe::ProbeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Sample {
    data: Vec<u8>,
    blocks: Vec<SampleBlock>,
    /// Where each block starts in the input: (source index, offset of its
    /// first byte in that source).
    offsets: Vec<(usize, u64)>,
    input_bytes: u64,
    files: usize,
    block_size: BlockSize,
    whole: bool,
    calibration: Option<Calibration>,
}

impl Sample {
    /// A sample of in-memory inputs (each one a file), as
    /// [`SampleBuilder`] takes it from files.
    ///
    /// # Errors
    /// [`ProbeError::Empty`] if the inputs hold no byte.
    pub fn from_slices(
        inputs: &[&[u8]],
        budget: u64,
        block_size: BlockSize,
    ) -> Result<Sample, ProbeError> {
        let mut builder = SampleBuilder::new(budget, block_size);
        for (i, input) in inputs.iter().enumerate() {
            builder = builder.reader(format!("input {i}"), io::Cursor::new(*input));
        }
        builder.build()
    }

    /// The sampled blocks, in input order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.blocks.iter().map(|b| &self.data[b.range.clone()])
    }

    /// Block `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn block(&self, i: usize) -> &[u8] {
        &self.data[self.blocks[i].range.clone()]
    }

    /// How many bytes of the input each byte of block `i` stands for: 1
    /// when blocks are sampled uniformly (the ratio over the sample is then
    /// plain total over total), more for the cut files of a whole-file
    /// sample.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn weight(&self, i: usize) -> f64 {
        self.blocks[i].weight
    }

    /// Where each block starts in the input: (index of the input, byte
    /// offset in it). For whole-file samples, the offset of the block's
    /// first slice.
    pub fn offsets(&self) -> &[(usize, u64)] {
        &self.offsets
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether the sample has no block (never, for a built sample).
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Bytes sampled (all blocks).
    pub fn sampled_bytes(&self) -> u64 {
        self.data.len() as u64
    }

    /// Bytes of the whole input.
    pub fn input_bytes(&self) -> u64 {
        self.input_bytes
    }

    /// Number of inputs (files) with at least one byte.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The block size.
    pub fn block_size(&self) -> BlockSize {
        self.block_size
    }

    /// Whether the sample is the whole input, cut into its blocks: then a
    /// probe's ratio is exactly the ratio of compressing the whole input
    /// in those blocks.
    pub fn is_whole_input(&self) -> bool {
        self.whole
    }

    /// The calibration pass's results (see [`SampleBuilder::calibration`]):
    /// `None` when the sample is the whole input, for whole-file blocks, or
    /// when turned off.
    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    /// The largest block, in bytes.
    pub fn largest_block(&self) -> usize {
        self.blocks.iter().map(|b| b.range.len()).max().unwrap_or(0)
    }
}

/// A readable, seekable input.
trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

/// One input of a [`SampleBuilder`].
enum Source<'a> {
    /// A file, opened only if a block of it is sampled.
    Path(PathBuf),
    /// Anything readable and seekable, with a name for messages.
    Reader {
        name: String,
        reader: Box<dyn ReadSeek + 'a>,
    },
}

impl Source<'_> {
    fn name(&self) -> String {
        match self {
            Source::Path(p) => p.display().to_string(),
            Source::Reader { name, .. } => name.clone(),
        }
    }
}

/// Collects inputs, then reads a [`Sample`] of them: sizes first, then
/// only the sampled bytes (a 4 GB file is never read whole).
///
/// ```no_run
/// use lzkit::probe::{BlockSize, SampleBuilder};
///
/// let sample = SampleBuilder::new(32 << 20, BlockSize::Bytes(64 << 10))
///     .file("column.bin")
///     .file("other.bin")
///     .build()?;
/// println!("{} blocks", sample.len());
/// # Ok::<(), lzkit::probe::ProbeError>(())
/// ```
pub struct SampleBuilder<'a> {
    budget: u64,
    block_size: BlockSize,
    sources: Vec<Source<'a>>,
    calibration: Duration,
}

impl<'a> SampleBuilder<'a> {
    /// A sample of at most about `budget` bytes (at least one block; use
    /// `u64::MAX` for the whole input) of blocks of `block_size`.
    /// A block size of 0 bytes means 1.
    pub fn new(budget: u64, block_size: BlockSize) -> SampleBuilder<'a> {
        let block_size = match block_size {
            BlockSize::Bytes(0) => BlockSize::Bytes(1),
            b => b,
        };
        SampleBuilder {
            budget: budget.max(1),
            block_size,
            sources: Vec::new(),
            calibration: DEFAULT_CALIBRATION,
        }
    }

    /// How long the calibration pass may run (default
    /// [`DEFAULT_CALIBRATION`]): after the sample is read, a sample of
    /// fixed-size blocks smaller than the input streams through many more
    /// blocks, evenly spread, compressing each with LZ4 and zstd level 1;
    /// a probe then estimates each setting's ratio from how it compares
    /// with these on the sample (see [`Calibration`]). It reads at least 2
    /// blocks; `Duration::ZERO` turns it off, and blocks larger than 64
    /// MiB skip it (each thread would hold several).
    pub fn calibration(mut self, budget: Duration) -> Self {
        self.calibration = budget;
        self
    }

    /// Add a file (a regular file; directories are the caller's to list).
    pub fn file(mut self, path: impl Into<PathBuf>) -> Self {
        self.sources.push(Source::Path(path.into()));
        self
    }

    /// Add an open input; `name` appears in error messages.
    pub fn reader(mut self, name: impl Into<String>, reader: impl Read + Seek + 'a) -> Self {
        self.sources.push(Source::Reader {
            name: name.into(),
            reader: Box::new(reader),
        });
        self
    }

    /// Read the sample.
    ///
    /// # Errors
    /// [`ProbeError::Io`] naming the input that cannot be read (or that
    /// shrank while read), [`ProbeError::Empty`] if the inputs hold no byte.
    pub fn build(mut self) -> Result<Sample, ProbeError> {
        let mut lengths = Vec::with_capacity(self.sources.len());
        for source in &mut self.sources {
            let name = source.name();
            let io_error = |e| ProbeError::io(&name, e);
            let len = match source {
                Source::Path(path) => std::fs::metadata(&*path).map_err(io_error)?.len(),
                Source::Reader { reader, .. } => reader.seek(SeekFrom::End(0)).map_err(io_error)?,
            };
            lengths.push(len);
        }
        let input_bytes: u64 = lengths.iter().sum();
        if input_bytes == 0 {
            return Err(ProbeError::Empty);
        }
        let planned = plan(&lengths, self.budget, self.block_size);
        let whole = planned.len() == total_blocks(&lengths, self.block_size)
            && planned.iter().all(|b| b.weight == 1.0);
        let size: u64 = planned.iter().flat_map(|b| &b.slices).map(|s| s.len).sum();
        let mut data = Vec::new();
        // The planned bytes, or an error rather than an abort when this
        // machine cannot hold them (`--sample all` of a huge input, or more
        // than a 32-bit address space).
        usize::try_from(size)
            .ok()
            .and_then(|n| data.try_reserve_exact(n).ok())
            .ok_or_else(|| ProbeError::Io {
                name: "the sample".to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::OutOfMemory,
                    format!("cannot hold {size} bytes in memory; sample less (--sample)"),
                ),
            })?;
        let mut blocks = Vec::with_capacity(planned.len());
        let mut offsets = Vec::with_capacity(planned.len());
        let mut open: Option<(usize, Box<dyn ReadSeek + 'a>)> = None;
        for block in &planned {
            let start = data.len();
            for slice in &block.slices {
                let source = &mut self.sources[slice.source];
                let name = source.name();
                let reader: &mut dyn ReadSeek = match source {
                    Source::Reader { reader, .. } => reader.as_mut(),
                    Source::Path(path) => {
                        if open.as_ref().is_none_or(|(i, _)| *i != slice.source) {
                            let file = File::open(&*path).map_err(|e| ProbeError::io(&name, e))?;
                            open = Some((slice.source, Box::new(file)));
                        }
                        open.as_mut().expect("opened above").1.as_mut()
                    }
                };
                calibrate::append_at(reader, slice.start, slice.len, &mut data)
                    .map_err(|e| ProbeError::io(&name, e))?;
            }
            offsets.push((block.slices[0].source, block.slices[0].start));
            blocks.push(SampleBlock {
                range: start..data.len(),
                weight: block.weight,
            });
        }
        let calibration = match self.block_size {
            BlockSize::Bytes(b)
                if !whole && !self.calibration.is_zero() && b <= calibrate::MAX_BLOCK =>
            {
                let mut reader = Sources {
                    sources: &mut self.sources,
                    open: None,
                };
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                let done = calibrate::calibrate(
                    &lengths,
                    b as u64,
                    self.calibration,
                    threads,
                    &mut reader,
                );
                Some(done.map_err(|(name, e)| ProbeError::io(&name, e))?)
            }
            _ => None,
        };
        Ok(Sample {
            data,
            blocks,
            offsets,
            input_bytes,
            files: lengths.iter().filter(|&&l| l > 0).count(),
            block_size: self.block_size,
            whole,
            calibration,
        })
    }
}

/// The builder's inputs as a [`BlockSource`], keeping the last file open.
struct Sources<'s, 'a> {
    sources: &'s mut [Source<'a>],
    open: Option<(usize, File)>,
}

impl BlockSource for Sources<'_, '_> {
    fn read_block(
        &mut self,
        source: usize,
        offset: u64,
        len: usize,
        buf: &mut Vec<u8>,
    ) -> Result<(), (String, io::Error)> {
        let name = self.sources[source].name();
        let result = match &mut self.sources[source] {
            Source::Reader { reader, .. } => calibrate::read_at(reader.as_mut(), offset, len, buf),
            Source::Path(path) => {
                if self.open.as_ref().is_none_or(|(i, _)| *i != source) {
                    self.open = None;
                    match File::open(&*path) {
                        Ok(file) => self.open = Some((source, file)),
                        Err(e) => return Err((name, e)),
                    }
                }
                let file = &mut self.open.as_mut().expect("opened above").1;
                calibrate::read_at(file, offset, len, buf)
            }
        };
        result.map_err(|e| (name, e))
    }
}

/// A range of one input.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slice {
    source: usize,
    start: u64,
    len: u64,
}

/// A block the sample will hold: its slices (one, but for cut files of a
/// whole-file sample) and its weight.
#[derive(Debug, Clone, PartialEq)]
struct Planned {
    slices: Vec<Slice>,
    weight: f64,
}

/// How many blocks the whole input has.
fn total_blocks(lengths: &[u64], block_size: BlockSize) -> usize {
    match block_size {
        BlockSize::WholeFile => lengths.iter().filter(|&&l| l > 0).count(),
        BlockSize::Bytes(b) => lengths.iter().map(|&l| l.div_ceil(b as u64) as usize).sum(),
    }
}

/// Index `i` of `k` evenly spread over `0..n` (`k <= n`): the middle of the
/// i-th of k equal parts.
fn spread(i: u64, k: u64, n: u64) -> u64 {
    ((2 * u128::from(i) + 1) * u128::from(n) / (2 * u128::from(k))) as u64
}

/// The sample's blocks, from the inputs' lengths alone.
fn plan(lengths: &[u64], budget: u64, block_size: BlockSize) -> Vec<Planned> {
    match block_size {
        BlockSize::Bytes(b) => plan_blocks(lengths, budget, b as u64),
        BlockSize::WholeFile => plan_files(lengths, budget),
    }
}

/// Fixed-size blocks: all of them, or k evenly spread.
fn plan_blocks(lengths: &[u64], budget: u64, b: u64) -> Vec<Planned> {
    let counts: Vec<u64> = lengths.iter().map(|l| l.div_ceil(b)).collect();
    let n: u64 = counts.iter().sum();
    let total: u64 = lengths.iter().sum();
    // As many blocks as the budget holds at the input's mean block size
    // (files' short last blocks make it less than b).
    let k = if total <= budget {
        n
    } else {
        ((u128::from(budget) * u128::from(n) / u128::from(total)) as u64).clamp(1, n)
    };
    let mut out = Vec::with_capacity(k as usize);
    // Walk the sources once: the chosen indices increase.
    let (mut source, mut first) = (0usize, 0u64);
    for i in 0..k {
        let j = if k == n { i } else { spread(i, k, n) };
        while j >= first + counts[source] {
            first += counts[source];
            source += 1;
        }
        let start = (j - first) * b;
        out.push(Planned {
            slices: vec![Slice {
                source,
                start,
                len: b.min(lengths[source] - start),
            }],
            weight: 1.0,
        });
    }
    out
}

/// Whole files: all of them, or evenly spread ones with the budget shared
/// by water-filling (see the module documentation).
fn plan_files(lengths: &[u64], budget: u64) -> Vec<Planned> {
    let files: Vec<usize> = (0..lengths.len()).filter(|&i| lengths[i] > 0).collect();
    let n = files.len() as u64;
    let total: u64 = lengths.iter().sum();
    let whole = |i: usize| Planned {
        slices: vec![Slice {
            source: i,
            start: 0,
            len: lengths[i],
        }],
        weight: 1.0,
    };
    if total <= budget {
        return files.into_iter().map(whole).collect();
    }
    let chosen = |k: u64| -> Vec<usize> {
        (0..k)
            .map(|i| files[spread(i, k, n) as usize])
            .collect::<Vec<_>>()
    };
    // The largest k whose files all get MIN_FILE_SHARE or are whole.
    let fits = |k: u64| {
        let picked: Vec<u64> = chosen(k).iter().map(|&i| lengths[i]).collect();
        water_level(&picked, budget).is_none_or(|c| c >= MIN_FILE_SHARE)
    };
    let (mut lo, mut hi) = (1u64, n);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    let picked = chosen(lo);
    let sizes: Vec<u64> = picked.iter().map(|&i| lengths[i]).collect();
    let level = water_level(&sizes, budget);
    let scale = n as f64 / lo as f64;
    picked
        .into_iter()
        .map(|i| {
            let len = lengths[i];
            match level {
                Some(c) if len > c => Planned {
                    slices: spread_slices(i, len, c),
                    weight: scale * len as f64 / c as f64,
                },
                _ => Planned {
                    weight: scale,
                    ..whole(i)
                },
            }
        })
        .collect()
}

/// The size c with `sum(min(len, c)) == budget` (to within rounding down),
/// or `None` if all of `lengths` fit in the budget whole.
fn water_level(lengths: &[u64], budget: u64) -> Option<u64> {
    let mut sorted = lengths.to_vec();
    sorted.sort_unstable();
    let mut left = budget;
    for (i, &len) in sorted.iter().enumerate() {
        let rest = (sorted.len() - i) as u64;
        if len.saturating_mul(rest) > left {
            return Some((left / rest).max(1));
        }
        left -= len;
    }
    None
}

/// `share` bytes of source `source` (of `len` bytes) as evenly spread
/// slices of at most [`MAX_SLICE`] bytes.
fn spread_slices(source: usize, len: u64, share: u64) -> Vec<Slice> {
    let m = share.div_ceil(MAX_SLICE);
    (0..m)
        .map(|i| {
            let size = share / m + u64::from(i < share % m);
            let middle = spread(i, m, len);
            let start = middle.saturating_sub(size / 2).min(len - size);
            Slice {
                source,
                start,
                len: size,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: u64 = 64 << 10;

    fn starts(p: &[Planned]) -> Vec<(usize, u64)> {
        p.iter()
            .map(|b| (b.slices[0].source, b.slices[0].start))
            .collect()
    }

    #[test]
    fn a_small_input_is_sampled_whole_in_its_blocks() {
        // Two files, the first with a short last block.
        let p = plan_blocks(&[150_000, 70_000], 1 << 30, B);
        assert_eq!(
            starts(&p),
            [(0, 0), (0, B), (0, 2 * B), (1, 0), (1, B)],
            "every block of every file"
        );
        let lens: Vec<u64> = p.iter().map(|b| b.slices[0].len).collect();
        assert_eq!(lens, [B, B, 150_000 - 2 * B, B, 70_000 - B]);
        assert!(p.iter().all(|b| b.weight == 1.0));
        // Budget exactly the input: still whole.
        assert_eq!(plan_blocks(&[150_000, 70_000], 220_000, B).len(), 5);
    }

    #[test]
    fn blocks_are_evenly_spread_and_real_blocks() {
        // 1000 blocks, 10 wanted: one in the middle of each tenth.
        let len = 1000 * B;
        let p = plan_blocks(&[len], 10 * B, B);
        let s = starts(&p);
        assert_eq!(s.len(), 10);
        for (i, &(src, start)) in s.iter().enumerate() {
            assert_eq!(src, 0);
            assert_eq!(start % B, 0, "aligned to the input's block grid");
            assert_eq!(start / B, 100 * i as u64 + 50, "the middle of part {i}");
        }
        // Over several files, the picks follow the concatenated block list,
        // and a file's short last block can be one of them.
        let p = plan_blocks(&[3 * B + 5, 2 * B, 4 * B], 5 * B, B);
        assert_eq!(starts(&p), [(0, B), (0, 3 * B), (1, B), (2, B), (2, 3 * B)]);
        assert_eq!(p[1].slices[0].len, 5, "file 0's last block");
        // A budget below one block still gives one block.
        assert_eq!(plan_blocks(&[len], 10, B).len(), 1);
    }

    #[test]
    fn sampling_is_deterministic() {
        // The plan is a function of the lengths alone: these blocks, every
        // time (written down once from the rule, so a change shows).
        let lengths = [10 * 4096, 0, 10_000];
        let starts: Vec<(usize, u64, u64)> = plan(&lengths, 3 * 4096, BlockSize::Bytes(4096))
            .iter()
            .flat_map(|p| p.slices.iter().map(|s| (s.source, s.start, s.len)))
            .collect();
        // 13 blocks, 3 fit: the 3rd, 7th and 11th (the first of the
        // third source; the second is empty).
        assert_eq!(starts, [(0, 8192, 4096), (0, 24576, 4096), (2, 0, 4096)]);
    }

    #[test]
    fn whole_files_share_the_budget() {
        // All fit: each file whole, empty files skipped.
        let p = plan_files(&[10, 0, 20], 100);
        assert_eq!(p.len(), 2);
        assert!(p.iter().all(|b| b.weight == 1.0 && b.slices.len() == 1));
        // Budget 8 MiB over a 1 MiB file and two of 20 MiB: the small one
        // whole, the others 3.5 MiB each, in spread slices.
        let m = 1u64 << 20;
        let p = plan_files(&[m, 20 * m, 20 * m], 8 * m);
        assert_eq!(p.len(), 3);
        assert_eq!(
            p[0].slices,
            [Slice {
                source: 0,
                start: 0,
                len: m
            }]
        );
        for b in &p[1..] {
            let total: u64 = b.slices.iter().map(|s| s.len).sum();
            assert_eq!(total, 7 * m / 2);
            assert_eq!(b.slices.len(), 4);
            assert!(
                b.slices
                    .windows(2)
                    .all(|w| w[0].start + w[0].len <= w[1].start)
            );
            assert!((b.weight - 20.0 / 3.5).abs() < 1e-9);
        }
        // Many files: only as many as can give MIN_FILE_SHARE each.
        let lengths = vec![10 * m; 100];
        let p = plan_files(&lengths, 8 * m);
        assert_eq!(p.len(), 8);
        let sources: Vec<usize> = p.iter().map(|b| b.slices[0].source).collect();
        assert_eq!(sources, [6, 18, 31, 43, 56, 68, 81, 93], "evenly spread");
        assert!(
            p.iter()
                .all(|b| (b.weight - 100.0 / 8.0 * 10.0).abs() < 1e-9)
        );
    }

    #[test]
    fn water_levels() {
        assert_eq!(water_level(&[1, 2, 3], 6), None);
        assert_eq!(water_level(&[1, 10, 10], 9), Some(4));
        assert_eq!(water_level(&[5, 5], 4), Some(2));
    }

    #[test]
    fn samples_read_the_planned_bytes() {
        let a: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let b: Vec<u8> = (0..100_000u32).map(|i| (i % 13) as u8).collect();
        let bs = BlockSize::Bytes(64 << 10);
        let s = Sample::from_slices(&[&a, &b], 128 << 10, bs).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s.input_bytes(), 400_000);
        assert_eq!(s.files(), 2);
        for (i, &(src, at)) in s.offsets().iter().enumerate() {
            let input = [&a, &b][src];
            let at = at as usize;
            assert_eq!(s.block(i), &input[at..(at + (64 << 10)).min(input.len())]);
        }
        assert!(!s.is_whole_input());
        let whole = Sample::from_slices(&[&a, &b], u64::MAX, bs).unwrap();
        assert!(whole.is_whole_input());
        assert_eq!(whole.sampled_bytes(), 400_000);
        assert_eq!(whole.blocks().map(<[u8]>::len).max(), Some(64 << 10));
        assert!(matches!(
            Sample::from_slices(&[&[], &[]], 100, bs),
            Err(ProbeError::Empty)
        ));
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let e = SampleBuilder::new(100, BlockSize::WholeFile)
            .file("/nonexistent/lzkit-probe")
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/lzkit-probe"), "{e}");
    }
}
