//! lzkit against the LZ4 C reference (lz4 1.10 through `lz4-sys`), side by
//! side in one process, file by file.
//!
//! ```text
//! cargo bench --bench lz4_vs_c -- [-B 64K] [-i 10] [-t SECS] [--csv] [--frame] DIR_OR_FILES...
//! ```
//!
//! Every file is cut into independent blocks of `-B` bytes. Per file we time:
//! * compression at level 1: `block::compress_into(.., 1)` vs `LZ4_compress_default`;
//! * decompression of the C-compressed blocks (the project's target is stated
//!   on C-compressed data): `block::decompress_into` vs `LZ4_decompress_safe`,
//!   with memcpy of the same bytes as a ceiling;
//! * with `--variants`: each decode variant of this CPU, fixed, on the same
//!   blocks (is the decode loop slow, or the adaptive choice among variants?);
//! * with `--frame`: frames of those same blocks (no checksum, content
//!   checksum, block checksum) decoded by `frame::decompress` and by C's
//!   `LZ4F_decompress`, against a plain loop of block decodes.
//!
//! How we measure (see `docs/benchmarking.md`: a noisy shared 2-core VM):
//! contenders are interleaved, each round running every contender once over
//! the whole file in a fresh random order (seeded, so runs are repeatable);
//! we keep the *minimum* time per contender over the rounds, the run least
//! disturbed by the neighbours. Every sample's output is checked byte for
//! byte; any mismatch aborts the run.

use clap::Parser;
use lzkit::lz4::block::{Decoder, Variant};
use lzkit::lz4::{block, frame};
use lzkit_testkit::{Rng, c_ref};
use std::hint::black_box;
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod common;
use common::{file_name, geomean, list_files, parse_size};

/// lzkit level compared with `LZ4_compress_default` (both: the fast compressor
/// with acceleration 1).
const LEVEL: i32 = 1;
/// Fixed seed of the round order shuffle, so two runs interleave alike.
const DEFAULT_SEED: u64 = 0x006C_7A6B_6974; // "lzkit"
/// One sample repeats a contender over the whole file until it lasts at least
/// this long: the corpus has files of a few KiB, which one pass would time at
/// the resolution of the clock.
const MIN_SAMPLE: Duration = Duration::from_millis(2);
/// Written over every output buffer before a sample, so that a contender that
/// skips writing cannot pass verification with an earlier contender's output.
const POISON: u8 = 0xA5;
/// LZ4 frame format: magic number, little-endian.
const FRAME_MAGIC: u32 = 0x184D_2204;
/// LZ4 frame format: the block size field's high bit marks a stored
/// (uncompressed) block.
const STORED_BLOCK_FLAG: u32 = 1 << 31;
/// LZ4 frame format: the largest block size (BD code 7).
const MAX_FRAME_BLOCK: usize = 4 << 20;

#[derive(Parser)]
#[command(about = "lzkit vs lz4 C (lz4-sys): block compress/decompress speed and size, per file")]
struct Args {
    /// Block size (suffix K or M for KiB, MiB).
    #[arg(short = 'B', default_value = "64K", value_parser = parse_size)]
    block_size: usize,
    /// Rounds per file (each round runs every contender once, in random order).
    #[arg(short = 'i', default_value_t = 10)]
    rounds: u32,
    /// Time budget per file in seconds: stop after this even before `-i` rounds.
    #[arg(short = 't')]
    budget: Option<f64>,
    /// Print CSV on stdout instead of the aligned tables (summary on stderr).
    #[arg(long)]
    csv: bool,
    /// Also measure frame decoding (checksums, copies) against a block loop.
    #[arg(long)]
    frame: bool,
    /// Also time every decoder variant this CPU runs, each fixed
    /// (`block::Decoder::with_variant`), beside the adaptive `decompress_into`.
    #[arg(long)]
    variants: bool,
    /// Seed of the round order shuffle.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
    /// Corpus directories (every file in them) or files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let files = list_files(&args.inputs)?;
    let mut rng = Rng::new(args.seed);
    let block_table = Table::new(&BLOCK_COLUMNS, name_width(&files), args.csv);
    block_table.note(&format!(
        "lzkit vs lz4 C {}: {} files, {} blocks, level {LEVEL}; \
         min time over {} rounds{} (interleaved, seed {:#x}); every output verified\n\
         lz/C: speed ratios above 1 mean lzkit is faster, size ratios above 1 that it is larger; \
         decoders read C's blocks",
        c_ref::version(),
        files.len(),
        size_label(args.block_size),
        args.rounds,
        args.budget
            .map(|t| format!(" or {t} s per file"))
            .unwrap_or_default(),
        args.seed,
    ));
    let mut block_rows = Vec::new();
    let mut frame_rows = Vec::new();
    block_table.header();
    for path in &files {
        let name = file_name(path);
        let input = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if input.is_empty() {
            eprintln!("{name}: empty, skipped");
            continue;
        }
        let row = bench_blocks(&input, args, &mut rng).map_err(|e| format!("{name}: {e}"))?;
        block_table.row(&name, &row.cells());
        block_rows.push((name, row));
    }
    block_table.rule();
    block_summary(&block_table, &block_rows);
    if args.variants {
        variant_table(&block_rows, name_width(&files), args.csv);
    }

    if args.frame {
        let frame_table = Table::new(&FRAME_COLUMNS, name_width(&files), args.csv);
        frame_table.note(
            "\nframes of the same C blocks (independent, no content size): loop = block decoder \
             over the blocks; %X = frame decode time over the same library's loop, minus 1, \
             with checksum X; lz/C = frame decode speed lzkit/C",
        );
        frame_table.header();
        for path in &files {
            let name = file_name(path);
            let input = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            if input.is_empty() {
                continue;
            }
            let row = bench_frames(&input, args, &mut rng).map_err(|e| format!("{name}: {e}"))?;
            frame_table.row(&name, &row.cells());
            frame_rows.push((name, row));
        }
        frame_table.rule();
        frame_summary(&frame_table, &frame_rows);
    }
    Ok(())
}

/// "64 KiB", "4 MiB" or a byte count.
fn size_label(n: usize) -> String {
    match n {
        _ if n.is_multiple_of(1 << 20) => format!("{} MiB", n >> 20),
        _ if n.is_multiple_of(1 << 10) => format!("{} KiB", n >> 10),
        _ => format!("{n} B"),
    }
}

fn name_width(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|p| file_name(p).len())
        .chain(["geomean".len()])
        .max()
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------
// Interleaved measurement
// ---------------------------------------------------------------------------

/// A set of contenders measured together on one input.
trait Contenders {
    type Id: Copy;
    /// Untimed setup before each sample (poison the outputs).
    fn prepare(&mut self, id: Self::Id);
    /// One timed pass over the whole input.
    fn run(&mut self, id: Self::Id);
    /// Check the output of the last pass against the input.
    fn verify(&mut self, id: Self::Id) -> Result<(), String>;
}

/// Minimum seconds per pass of each contender, over interleaved rounds.
fn measure<B: Contenders>(
    bench: &mut B,
    ids: &[B::Id],
    args: &Args,
    rng: &mut Rng,
) -> Result<Vec<f64>, String> {
    // Warm-up pass (verified too), which also sets how many passes make one
    // sample of at least MIN_SAMPLE.
    let mut reps = Vec::with_capacity(ids.len());
    for &id in ids {
        bench.prepare(id);
        let t = Instant::now();
        bench.run(id);
        let once = t.elapsed().as_secs_f64().max(1e-9);
        bench.verify(id)?;
        reps.push((MIN_SAMPLE.as_secs_f64() / once).ceil().max(1.0) as u32);
    }

    let budget = args.budget.map(Duration::from_secs_f64);
    let start = Instant::now();
    let mut best = vec![f64::INFINITY; ids.len()];
    let mut order: Vec<usize> = (0..ids.len()).collect();
    for round in 0..args.rounds.max(1) {
        if round > 0 && budget.is_some_and(|b| start.elapsed() >= b) {
            break;
        }
        rng.shuffle(&mut order);
        for &k in &order {
            bench.prepare(ids[k]);
            let t = Instant::now();
            for _ in 0..reps[k] {
                bench.run(ids[k]);
            }
            let per_pass = t.elapsed().as_secs_f64() / f64::from(reps[k]);
            bench.verify(ids[k])?;
            best[k] = best[k].min(per_pass);
        }
    }
    Ok(best)
}

/// Byte-for-byte check; on a mismatch, the error names the first wrong offset.
fn compare(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got == want {
        return Ok(()); // memcmp: the common case, fast
    }
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} bytes instead of {}",
            got.len(),
            want.len()
        ));
    }
    let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
    Err(format!("{what}: wrong byte at offset {i}"))
}

/// `LZ4_compress_default` (level [`LEVEL`]); 0 means failure.
fn c_compress(src: &[u8], dst: &mut [u8]) -> usize {
    c_ref::compress_into(src, dst, LEVEL).unwrap_or(0)
}

// ---------------------------------------------------------------------------
// Block compression and decompression
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockOp {
    LzkitCompress,
    CCompress,
    LzkitDecompress,
    CDecompress,
    Memcpy,
    /// `Decoder::with_variant(Variant::available()[k])`.
    LzkitVariant(usize),
}

/// The contenders of every file (`--variants` adds one per variant).
const BLOCK_OPS: [BlockOp; 5] = [
    BlockOp::LzkitCompress,
    BlockOp::CCompress,
    BlockOp::LzkitDecompress,
    BlockOp::CDecompress,
    BlockOp::Memcpy,
];

/// Compressed blocks, each in its own fixed-size slot of one buffer.
struct Compressed {
    buf: Vec<u8>,
    sizes: Vec<usize>,
    slot: usize,
}

impl Compressed {
    fn new(blocks: usize, slot: usize) -> Self {
        Compressed {
            buf: vec![POISON; blocks * slot],
            sizes: vec![0; blocks],
            slot,
        }
    }
    fn block(&self, i: usize) -> &[u8] {
        &self.buf[i * self.slot..i * self.slot + self.sizes[i]]
    }
    fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        &mut self.buf[i * self.slot..(i + 1) * self.slot]
    }
    fn total(&self) -> usize {
        self.sizes.iter().sum()
    }
}

struct BlockBench<'a> {
    input: &'a [u8],
    block_size: usize,
    lzkit: Compressed,
    c: Compressed,
    /// Output of the decoders and of memcpy.
    out: Vec<u8>,
    /// First decode error of the last pass (kept out of the timed loop's way).
    fault: Option<String>,
    /// One fixed-variant decoder per `Variant::available()` (`--variants`).
    decoders: Vec<Decoder>,
}

impl BlockBench<'_> {
    fn blocks(&self) -> impl Iterator<Item = (usize, Range<usize>)> + use<> {
        let (n, bs) = (self.input.len(), self.block_size);
        (0..n.div_ceil(bs)).map(move |i| (i, i * bs..n.min((i + 1) * bs)))
    }

    /// Decode every block of `comp` with `decode` into a fresh buffer and
    /// compare it with the input.
    fn check_decode(
        &self,
        what: &str,
        comp: &Compressed,
        decode: impl Fn(&[u8], &mut [u8]) -> Result<usize, String>,
    ) -> Result<(), String> {
        let mut out = vec![POISON; self.input.len()];
        for (i, r) in self.blocks() {
            let want = r.len();
            match decode(comp.block(i), &mut out[r]) {
                Ok(n) if n == want => {}
                Ok(n) => {
                    return Err(format!(
                        "{what}: block {i} decoded to {n} bytes, not {want}"
                    ));
                }
                Err(e) => return Err(format!("{what}: block {i}: {e}")),
            }
        }
        compare(what, &out, self.input)
    }
}

/// Decode C's blocks of `comp` into `out` with `decode`; the first failure
/// goes to `fault` (checked after the timed pass).
fn decode_blocks(
    blocks: impl Iterator<Item = (usize, Range<usize>)>,
    comp: &Compressed,
    out: &mut [u8],
    fault: &mut Option<String>,
    mut decode: impl FnMut(&[u8], &mut [u8]) -> Result<usize, String>,
) {
    for (i, r) in blocks {
        let want = r.len();
        match decode(comp.block(i), &mut out[r]) {
            Ok(n) if n == want => {}
            Ok(n) => _ = fault.get_or_insert(format!("block {i}: {n} bytes, not {want}")),
            Err(e) => _ = fault.get_or_insert(format!("block {i}: {e}")),
        }
    }
}

fn lzkit_decode(src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
    block::decompress_into(src, dst).map_err(|e| e.to_string())
}

fn c_decode(src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
    c_ref::decompress_into(src, dst).ok_or_else(|| "LZ4_decompress_safe rejected it".into())
}

impl Contenders for BlockBench<'_> {
    type Id = BlockOp;

    fn prepare(&mut self, op: BlockOp) {
        self.fault = None;
        match op {
            BlockOp::LzkitCompress => self.lzkit.buf.fill(POISON),
            BlockOp::CCompress => self.c.buf.fill(POISON),
            _ => self.out.fill(POISON),
        }
    }

    fn run(&mut self, op: BlockOp) {
        let input = black_box(self.input);
        match op {
            BlockOp::LzkitCompress => {
                for (i, r) in self.blocks() {
                    let n = block::compress_into(&input[r], self.lzkit.slot_mut(i), LEVEL);
                    // An error would be a bug: the slot has max_compressed_size room.
                    self.lzkit.sizes[i] = n.unwrap_or(0);
                }
            }
            BlockOp::CCompress => {
                for (i, r) in self.blocks() {
                    self.c.sizes[i] = c_compress(&input[r], self.c.slot_mut(i));
                }
            }
            BlockOp::LzkitDecompress => {
                let blocks = self.blocks();
                decode_blocks(
                    blocks,
                    &self.c,
                    &mut self.out,
                    &mut self.fault,
                    lzkit_decode,
                );
            }
            BlockOp::CDecompress => {
                let blocks = self.blocks();
                decode_blocks(blocks, &self.c, &mut self.out, &mut self.fault, c_decode);
            }
            BlockOp::LzkitVariant(k) => {
                let (blocks, decoder) = (self.blocks(), &mut self.decoders[k]);
                decode_blocks(blocks, &self.c, &mut self.out, &mut self.fault, |s, d| {
                    decoder.decompress_into(s, d).map_err(|e| e.to_string())
                });
            }
            BlockOp::Memcpy => self.out.copy_from_slice(input),
        }
        black_box(&mut self.out);
        black_box(&mut self.lzkit.sizes);
        black_box(&mut self.c.sizes);
    }

    fn verify(&mut self, op: BlockOp) -> Result<(), String> {
        match op {
            // lzkit's blocks must decode to the input with both decoders.
            BlockOp::LzkitCompress => {
                self.check_decode("lzkit-compressed, decoded by C", &self.lzkit, c_decode)?;
                self.check_decode(
                    "lzkit-compressed, decoded by lzkit",
                    &self.lzkit,
                    lzkit_decode,
                )
            }
            BlockOp::CCompress => {
                self.check_decode("C-compressed, decoded by C", &self.c, c_decode)
            }
            _ => {
                let what = match op {
                    BlockOp::LzkitDecompress => "C-compressed, decoded by lzkit".into(),
                    BlockOp::CDecompress => "C-compressed, decoded by C".into(),
                    BlockOp::LzkitVariant(k) => {
                        format!("C-compressed, decoded by lzkit {}", Variant::available()[k])
                    }
                    _ => "memcpy".into(),
                };
                if let Some(f) = &self.fault {
                    return Err(format!("{what}: {f}"));
                }
                compare(&what, &self.out, self.input)
            }
        }
    }
}

/// One file's block results: sizes, and the min seconds per pass.
struct BlockRow {
    size: usize,
    c_size: usize,
    lzkit_size: usize,
    /// Min seconds per pass, one per `ops`.
    ops: Vec<BlockOp>,
    secs: Vec<f64>,
}

impl BlockRow {
    fn secs(&self, op: BlockOp) -> f64 {
        self.secs[self.ops.iter().position(|&o| o == op).expect("measured")]
    }
    fn speed(&self, op: BlockOp) -> f64 {
        self.size as f64 / self.secs(op)
    }
    fn c_ratio(&self) -> f64 {
        self.size as f64 / self.c_size as f64
    }
    /// Compressed size, lzkit / C (above 1: lzkit compresses worse).
    fn size_ratio(&self) -> f64 {
        self.lzkit_size as f64 / self.c_size as f64
    }
    /// Compression speed, lzkit / C (above 1: lzkit is faster).
    fn compress_ratio(&self) -> f64 {
        self.secs(BlockOp::CCompress) / self.secs(BlockOp::LzkitCompress)
    }
    /// Decompression speed, lzkit / C (above 1: lzkit is faster).
    fn decode_ratio(&self) -> f64 {
        self.secs(BlockOp::CDecompress) / self.secs(BlockOp::LzkitDecompress)
    }
    /// Decompression speed of a fixed variant, lzkit / C.
    fn variant_ratio(&self, k: usize) -> f64 {
        self.secs(BlockOp::CDecompress) / self.secs(BlockOp::LzkitVariant(k))
    }
    /// Values of the columns after `size`, as in BLOCK_COLUMNS.
    fn values(&self) -> [f64; 9] {
        [
            self.c_ratio(),
            self.size_ratio(),
            self.speed(BlockOp::CCompress) / 1e6,
            self.speed(BlockOp::LzkitCompress) / 1e6,
            self.compress_ratio(),
            self.speed(BlockOp::CDecompress) / 1e9,
            self.speed(BlockOp::LzkitDecompress) / 1e9,
            self.decode_ratio(),
            self.speed(BlockOp::Memcpy) / 1e9,
        ]
    }
    fn cells(&self) -> Vec<String> {
        let v = self.values();
        let mut cells = vec![self.size.to_string()];
        cells.extend(
            BLOCK_COLUMNS[1..]
                .iter()
                .zip(v)
                .map(|(c, x)| format!("{x:.*}", c.decimals)),
        );
        cells
    }
}

fn bench_blocks(input: &[u8], args: &Args, rng: &mut Rng) -> Result<BlockRow, String> {
    let blocks = input.len().div_ceil(args.block_size);
    let slot = c_ref::bound_for_either(args.block_size);
    let mut bench = BlockBench {
        input,
        block_size: args.block_size,
        lzkit: Compressed::new(blocks, slot),
        c: Compressed::new(blocks, slot),
        out: vec![POISON; input.len()],
        fault: None,
        decoders: Vec::new(),
    };
    let mut ops = BLOCK_OPS.to_vec();
    if args.variants {
        for (k, &v) in Variant::available().iter().enumerate() {
            bench
                .decoders
                .push(Decoder::with_variant(v).map_err(|e| e.to_string())?);
            ops.push(BlockOp::LzkitVariant(k));
        }
    }
    // The decoders read C's blocks: make them before the first decode.
    bench.run(BlockOp::CCompress);
    let secs = measure(&mut bench, &ops, args, rng)?;
    Ok(BlockRow {
        size: input.len(),
        c_size: bench.c.total(),
        lzkit_size: bench.lzkit.total(),
        ops,
        secs,
    })
}

// ---------------------------------------------------------------------------
// Frame decoding
// ---------------------------------------------------------------------------

/// Which checksums a frame carries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Checks {
    None,
    Content,
    Block,
}

const CHECKS: [Checks; 3] = [Checks::None, Checks::Content, Checks::Block];

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameOp {
    /// `block::decompress_into` over the frame's blocks (stored ones copied):
    /// the work a frame decoder cannot avoid.
    LzkitBlockLoop,
    /// The same loop with `LZ4_decompress_safe`.
    CBlockLoop,
    LzkitFrame(Checks),
    CFrame(Checks),
}

const FRAME_OPS: [FrameOp; 8] = [
    FrameOp::LzkitBlockLoop,
    FrameOp::CBlockLoop,
    FrameOp::LzkitFrame(Checks::None),
    FrameOp::LzkitFrame(Checks::Content),
    FrameOp::LzkitFrame(Checks::Block),
    FrameOp::CFrame(Checks::None),
    FrameOp::CFrame(Checks::Content),
    FrameOp::CFrame(Checks::Block),
];

/// One block of a frame: its payload in the frame and its place in the output.
struct FrameBlock {
    payload: Range<usize>,
    out: Range<usize>,
    stored: bool,
}

/// Write an LZ4 frame (spec v1.6.4) around C's compressed blocks: independent
/// blocks, no content size, the given checksum. Written here rather than by
/// either library's encoder so that both frame decoders and the block loops
/// work on the very same blocks.
fn build_frame(input: &[u8], block_size: usize, checks: Checks) -> (Vec<u8>, Vec<FrameBlock>) {
    use xxhash_rust::xxh32::xxh32;
    // BD byte: the smallest block size code (4..=7: 64 KiB << 2 * (code - 4)) that holds a block.
    let code = (4u8..=7)
        .find(|c| block_size <= 1 << (8 + 2 * c))
        .expect("checked by caller");
    // FLG byte: version 01, independent blocks, then the checksum flags.
    let mut flg = 0b0110_0000u8;
    match checks {
        Checks::None => {}
        Checks::Content => flg |= 1 << 2,
        Checks::Block => flg |= 1 << 4,
    }
    let descriptor = [flg, code << 4];
    let mut frame = FRAME_MAGIC.to_le_bytes().to_vec();
    frame.extend_from_slice(&descriptor);
    frame.push((xxh32(&descriptor, 0) >> 8) as u8); // header checksum

    let mut blocks = Vec::new();
    let mut scratch = vec![0u8; c_ref::bound_for_either(block_size)];
    for (i, chunk) in input.chunks(block_size).enumerate() {
        let n = c_compress(chunk, &mut scratch);
        // As LZ4F does: a block that does not shrink is stored.
        let stored = n == 0 || n >= chunk.len();
        let payload: &[u8] = if stored { chunk } else { &scratch[..n] };
        let flag = if stored { STORED_BLOCK_FLAG } else { 0 };
        frame.extend_from_slice(&(payload.len() as u32 | flag).to_le_bytes());
        let start = frame.len();
        frame.extend_from_slice(payload);
        let out = i * block_size..i * block_size + chunk.len();
        blocks.push(FrameBlock {
            payload: start..frame.len(),
            out,
            stored,
        });
        if checks == Checks::Block {
            frame.extend_from_slice(&xxh32(payload, 0).to_le_bytes());
        }
    }
    frame.extend_from_slice(&0u32.to_le_bytes()); // end mark
    if checks == Checks::Content {
        frame.extend_from_slice(&xxh32(input, 0).to_le_bytes());
    }
    (frame, blocks)
}

struct FrameBench<'a> {
    input: &'a [u8],
    /// The same blocks in frames with each kind of checksum, as in CHECKS.
    frames: Vec<Vec<u8>>,
    /// Block layout of the frame without checksums.
    blocks: Vec<FrameBlock>,
    /// Output of the block loops and C's frame decoder; one block of slack so
    /// LZ4F can decode its last block in place rather than through its buffer.
    out: Vec<u8>,
    /// Output of `frame::decompress`, which allocates its own.
    lzkit_out: Option<Result<Vec<u8>, String>>,
    c_decoder: c_ref::FrameDecoder,
    fault: Option<String>,
}

fn check_index(checks: Checks) -> usize {
    CHECKS.iter().position(|&c| c == checks).expect("listed")
}

impl Contenders for FrameBench<'_> {
    type Id = FrameOp;

    fn prepare(&mut self, _: FrameOp) {
        self.fault = None;
        self.out.fill(POISON);
        self.lzkit_out = None; // freed outside the timed pass
    }

    fn run(&mut self, op: FrameOp) {
        match op {
            FrameOp::LzkitBlockLoop | FrameOp::CBlockLoop => {
                let frame = black_box(&self.frames[check_index(Checks::None)]);
                for (i, b) in self.blocks.iter().enumerate() {
                    let (src, dst) = (&frame[b.payload.clone()], &mut self.out[b.out.clone()]);
                    let n = if b.stored {
                        dst.copy_from_slice(src);
                        Some(src.len())
                    } else if op == FrameOp::LzkitBlockLoop {
                        block::decompress_into(src, dst).ok()
                    } else {
                        c_ref::decompress_into(src, dst)
                    };
                    if n != Some(b.out.len()) {
                        self.fault.get_or_insert(format!("block {i} failed"));
                    }
                }
            }
            FrameOp::LzkitFrame(checks) => {
                let frame = black_box(&self.frames[check_index(checks)]);
                self.lzkit_out = Some(frame::decompress(frame).map_err(|e| e.to_string()));
            }
            FrameOp::CFrame(checks) => {
                let frame = black_box(&self.frames[check_index(checks)]);
                if let Err(e) = self.c_decoder.decode_into(frame, &mut self.out) {
                    self.fault.get_or_insert(e);
                }
            }
        }
        black_box(&mut self.out);
        black_box(&mut self.lzkit_out);
    }

    fn verify(&mut self, op: FrameOp) -> Result<(), String> {
        if let Some(f) = &self.fault {
            return Err(format!("frame decode: {f}"));
        }
        let n = self.input.len();
        match op {
            FrameOp::LzkitFrame(_) => match self.lzkit_out.as_ref().expect("ran") {
                Ok(out) => compare("lzkit frame::decompress", out, self.input),
                Err(e) => Err(format!("lzkit frame::decompress: {e}")),
            },
            _ => compare("frame block loop / LZ4F", &self.out[..n], self.input),
        }
    }
}

/// One file's frame results: min seconds per pass, as in FRAME_OPS.
struct FrameRow {
    size: usize,
    secs: [f64; FRAME_OPS.len()],
}

impl FrameRow {
    fn secs(&self, op: FrameOp) -> f64 {
        self.secs[FRAME_OPS.iter().position(|&o| o == op).expect("listed")]
    }
    fn gbps(&self, op: FrameOp) -> f64 {
        self.size as f64 / self.secs(op) / 1e9
    }
    /// Time of lzkit's frame decode over lzkit's block loop (1.10 = 10% overhead).
    fn lzkit_overhead(&self, c: Checks) -> f64 {
        self.secs(FrameOp::LzkitFrame(c)) / self.secs(FrameOp::LzkitBlockLoop)
    }
    /// Time of C's frame decode over C's block loop.
    fn c_overhead(&self, c: Checks) -> f64 {
        self.secs(FrameOp::CFrame(c)) / self.secs(FrameOp::CBlockLoop)
    }
    /// Frame decode speed, lzkit / C (above 1: lzkit is faster).
    fn lzkit_vs_c(&self, c: Checks) -> f64 {
        self.secs(FrameOp::CFrame(c)) / self.secs(FrameOp::LzkitFrame(c))
    }
    fn cells(&self) -> Vec<String> {
        let mut cells = vec![
            self.size.to_string(),
            format!("{:.2}", self.gbps(FrameOp::LzkitBlockLoop)),
            format!("{:.2}", self.gbps(FrameOp::CBlockLoop)),
        ];
        for c in CHECKS {
            cells.push(format!("{:+.1}", (self.lzkit_overhead(c) - 1.0) * 100.0));
        }
        for c in CHECKS {
            cells.push(format!("{:+.1}", (self.c_overhead(c) - 1.0) * 100.0));
        }
        for c in CHECKS {
            cells.push(format!("{:.3}", self.lzkit_vs_c(c)));
        }
        cells
    }
}

fn bench_frames(input: &[u8], args: &Args, rng: &mut Rng) -> Result<FrameRow, String> {
    if args.block_size > MAX_FRAME_BLOCK {
        return Err(format!("frames need -B <= {}M", MAX_FRAME_BLOCK >> 20));
    }
    let mut frames = Vec::new();
    let mut blocks = Vec::new();
    for c in CHECKS {
        let (frame, layout) = build_frame(input, args.block_size, c);
        if c == Checks::None {
            blocks = layout;
        }
        frames.push(frame);
    }
    let mut bench = FrameBench {
        input,
        frames,
        blocks,
        out: vec![POISON; input.len() + args.block_size],
        lzkit_out: None,
        c_decoder: c_ref::FrameDecoder::new()?,
        fault: None,
    };
    let secs = measure(&mut bench, &FRAME_OPS, args, rng)?;
    Ok(FrameRow {
        size: input.len(),
        secs: secs.try_into().expect("one per op"),
    })
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

struct Column {
    /// Header in the text table.
    title: &'static str,
    /// Header in CSV.
    csv: &'static str,
    width: usize,
    decimals: usize,
}

const fn col(title: &'static str, csv: &'static str, width: usize, decimals: usize) -> Column {
    Column {
        title,
        csv,
        width,
        decimals,
    }
}

const BLOCK_COLUMNS: [Column; 10] = [
    col("size", "size", 9, 0),
    col("C ratio", "c_ratio", 8, 2),
    col("size lz/C", "size_lzkit_over_c", 9, 4),
    col("C comp MB/s", "c_compress_mbps", 11, 0),
    col("lz comp MB/s", "lzkit_compress_mbps", 12, 0),
    col("comp lz/C", "compress_speed_lzkit_over_c", 9, 3),
    col("C dec GB/s", "c_decode_gbps", 10, 2),
    col("lz dec GB/s", "lzkit_decode_gbps", 11, 2),
    col("dec lz/C", "decode_speed_lzkit_over_c", 8, 3),
    col("memcpy GB/s", "memcpy_gbps", 11, 2),
];

const FRAME_COLUMNS: [Column; 12] = [
    col("size", "size", 9, 0),
    col("lz loop GB/s", "lzkit_block_loop_gbps", 12, 2),
    col("C loop GB/s", "c_block_loop_gbps", 11, 2),
    col("lz %none", "lzkit_frame_overhead_pct_none", 8, 1),
    col("lz %content", "lzkit_frame_overhead_pct_content", 11, 1),
    col("lz %block", "lzkit_frame_overhead_pct_block", 9, 1),
    col("C %none", "c_frame_overhead_pct_none", 7, 1),
    col("C %content", "c_frame_overhead_pct_content", 10, 1),
    col("C %block", "c_frame_overhead_pct_block", 8, 1),
    col("lz/C none", "frame_speed_lzkit_over_c_none", 9, 3),
    col("lz/C content", "frame_speed_lzkit_over_c_content", 12, 3),
    col("lz/C block", "frame_speed_lzkit_over_c_block", 10, 3),
];

/// An aligned text table, or CSV.
struct Table<'a> {
    columns: &'a [Column],
    name_width: usize,
    csv: bool,
}

impl<'a> Table<'a> {
    fn new(columns: &'a [Column], name_width: usize, csv: bool) -> Self {
        Table {
            columns,
            name_width,
            csv,
        }
    }
    fn header(&self) {
        if self.csv {
            let titles: Vec<_> = self.columns.iter().map(|c| c.csv).collect();
            println!("file,{}", titles.join(","));
        } else {
            let titles: Vec<_> = self.columns.iter().map(|c| c.title.to_string()).collect();
            self.row("file", &titles);
            self.rule();
        }
    }
    fn row(&self, name: &str, cells: &[String]) {
        if self.csv {
            println!("{name},{}", cells.join(","));
            return;
        }
        let mut line = format!("{name:<w$}", w = self.name_width);
        for (c, cell) in self.columns.iter().zip(cells) {
            line += &format!("  {cell:>w$}", w = c.width);
        }
        println!("{line}");
    }
    fn rule(&self) {
        if !self.csv {
            let width = self.name_width + self.columns.iter().map(|c| c.width + 2).sum::<usize>();
            println!("{}", "-".repeat(width));
        }
    }
    /// Summary text: in the table's flow, or on stderr beside CSV.
    fn note(&self, text: &str) {
        if self.csv {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
    }
}

/// The file with the smallest value of `f` (the largest if `highest`).
fn worst<R>(rows: &[(String, R)], f: impl Fn(&R) -> f64, highest: bool) -> (&str, f64) {
    let mut all = rows.iter().map(|(n, r)| (n.as_str(), f(r)));
    let first = all.next().expect("at least one file");
    all.fold(first, |w, x| {
        if (x.1 > w.1) == highest && x.1 != w.1 {
            x
        } else {
            w
        }
    })
}

fn block_summary(table: &Table, rows: &[(String, BlockRow)]) {
    if rows.is_empty() {
        return;
    }
    let total: usize = rows.iter().map(|(_, r)| r.size).sum();
    let mut cells = vec![total.to_string()];
    for (k, c) in BLOCK_COLUMNS[1..].iter().enumerate() {
        let g = geomean(rows.iter().map(|(_, r)| r.values()[k]));
        cells.push(format!("{g:.*}", c.decimals));
    }
    table.row("geomean", &cells);
    table.note(&format!(
        "\nover {} files (geomean; worst file):",
        rows.len()
    ));
    let line = |what: &str, f: fn(&BlockRow) -> f64, highest: bool| {
        let g = geomean(rows.iter().map(|(_, r)| f(r)));
        let (name, w) = worst(rows, f, highest);
        table.note(&format!("  {what:<44} {g:.3}   worst {w:.3} on {name}"));
    };
    line(
        "compress speed lzkit/C (>1: lzkit faster)",
        BlockRow::compress_ratio,
        false,
    );
    line(
        "compressed size lzkit/C (>1: lzkit larger)",
        BlockRow::size_ratio,
        true,
    );
    line(
        "decode speed lzkit/C (>1: lzkit faster)",
        BlockRow::decode_ratio,
        false,
    );
}

/// Decode speed lzkit/C per fixed variant, and of the adaptive
/// `decompress_into`, per file; then geomean and worst file per column.
fn variant_table(rows: &[(String, BlockRow)], name_width: usize, csv: bool) {
    let variants = Variant::available();
    let mut columns = vec![col("adaptive", "adaptive", 8, 3)];
    for v in variants {
        columns.push(col(v.name(), v.name(), v.name().len().max(6), 3));
    }
    let ratios = |r: &BlockRow| -> Vec<f64> {
        let fixed = (0..variants.len()).map(|k| r.variant_ratio(k));
        std::iter::once(r.decode_ratio()).chain(fixed).collect()
    };
    let table = Table::new(&columns, name_width, csv);
    table.note(
        "\ndecode speed lzkit/C: adaptive = block::decompress_into (the thread's bandit), \
         then each variant fixed with Decoder::with_variant",
    );
    table.header();
    let all: Vec<Vec<f64>> = rows.iter().map(|(_, r)| ratios(r)).collect();
    for ((name, _), values) in rows.iter().zip(&all) {
        table.row(
            name,
            &values.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>(),
        );
    }
    table.rule();
    let (mut means, mut worst) = (Vec::new(), Vec::new());
    for k in 0..columns.len() {
        means.push(format!("{:.3}", geomean(all.iter().map(|v| v[k]))));
        worst.push(format!(
            "{:.3}",
            all.iter().map(|v| v[k]).fold(f64::INFINITY, f64::min)
        ));
    }
    table.row("geomean", &means);
    table.row("worst", &worst);
}

fn frame_summary(table: &Table, rows: &[(String, FrameRow)]) {
    if rows.is_empty() {
        return;
    }
    table.note(&format!(
        "\nframe decode over {} files: time vs the same library's block loop \
         (geomean; worst file), and frame speed lzkit/C:",
        rows.len()
    ));
    for c in CHECKS {
        let label = match c {
            Checks::None => "no checksum",
            Checks::Content => "content checksum",
            Checks::Block => "block checksum",
        };
        let pct = |x: f64| (x - 1.0) * 100.0;
        let lz = geomean(rows.iter().map(|(_, r)| r.lzkit_overhead(c)));
        let (lz_name, lz_worst) = worst(rows, |r| r.lzkit_overhead(c), true);
        let cc = geomean(rows.iter().map(|(_, r)| r.c_overhead(c)));
        let vs = geomean(rows.iter().map(|(_, r)| r.lzkit_vs_c(c)));
        let (vs_name, vs_worst) = worst(rows, |r| r.lzkit_vs_c(c), false);
        table.note(&format!(
            "  {label:<17} lzkit {:+6.1}% (worst {:+.1}% on {lz_name})   C {:+6.1}%   \
             lzkit/C {vs:.3} (worst {vs_worst:.3} on {vs_name})",
            pct(lz),
            pct(lz_worst),
            pct(cc),
        ));
    }
}
