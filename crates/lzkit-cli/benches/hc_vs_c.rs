//! lzkit's HC levels (2..=12) against the LZ4 C reference (lz4 1.10 through
//! `lz4-sys`), level by level, file by file, in one process.
//!
//! ```text
//! cargo bench --bench hc_vs_c -- [-l 2-12] [-B 64K] [-i 3] [-t SECS] [--cpu] [--c-reuse] [-v] [--csv] DIR_OR_FILES...
//! ```
//!
//! Every file is cut into independent blocks of `-B` bytes, and each block is
//! compressed at the level by `lzkit::lz4::block::compress_into` and by C's
//! `LZ4_compress_HC`: the one-shot calls a user makes. (lzkit's reuses a
//! per-thread engine, which needs no clearing per block; C's allocates and
//! zeroes a 256 KiB state per call. `--c-reuse` gives C one state for all
//! blocks too, through `LZ4_compress_HC_extStateHC_fastReset`: engine
//! against engine.)
//! Per level we report, over files, the geometric mean of the compressed size
//! ratio (lzkit / C: below 1 is smaller) and of the compression speed ratio
//! (lzkit / C: above 1 is faster), and the worst files for each (those
//! larger, and those slower, than C).
//!
//! How we measure (see `docs/benchmarking.md`: a noisy shared 2-core VM): the
//! two contenders are interleaved, each round running both once over the
//! whole file in a fresh random order (seeded, so runs are repeatable); we
//! keep the *minimum* time per contender over the rounds. With `--cpu` the
//! time is the thread's CPU time (Linux), which leaves out the time other
//! processes hold the core: on a loaded machine wall-clock minima still
//! carry preemptions. Every sample's output is decoded by both
//! `lzkit::lz4::block::decompress_into` and C's `LZ4_decompress_safe` and
//! compared with the input; any mismatch aborts.

use clap::Parser;
use lzkit::lz4::block;
use lzkit_testkit::{Rng, c_ref};
use std::hint::black_box;
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod common;
use common::{file_name, geomean, list_files, parse_size};

/// Fixed seed of the round order shuffle, so two runs interleave alike.
const DEFAULT_SEED: u64 = 0x0068_635F_7673_5F63; // "hc_vs_c"
/// One sample repeats a contender over the whole file until it lasts at
/// least this long: small files would otherwise be timed at the clock's
/// resolution.
const MIN_SAMPLE: Duration = Duration::from_millis(5);
/// Written over every output buffer before a sample, so that a contender
/// that skips writing cannot pass verification with older output.
const POISON: u8 = 0xA5;
/// Lowest and highest HC level.
const HC_LEVELS: (i32, i32) = (2, 12);

#[derive(Parser)]
#[command(about = "lzkit HC levels vs lz4 C (lz4-sys): block compression size and speed")]
struct Args {
    /// Levels: one (`9`), a range (`3-9`) or a list (`2,9,12`).
    #[arg(short = 'l', default_value = "2-12", value_parser = parse_levels)]
    levels: Levels,
    /// Block size (suffix K or M for KiB, MiB).
    #[arg(short = 'B', default_value = "64K", value_parser = parse_size)]
    block_size: usize,
    /// Rounds per file and level (each runs both contenders once).
    #[arg(short = 'i', default_value_t = 3)]
    rounds: u32,
    /// Time budget per file and level in seconds: stop after this even
    /// before `-i` rounds (at least one round always runs).
    #[arg(short = 't')]
    budget: Option<f64>,
    /// Time with the thread's CPU clock instead of the wall clock (Linux).
    #[arg(long)]
    cpu: bool,
    /// Give C one state for all blocks (`LZ4_compress_HC_extStateHC_fastReset`)
    /// instead of `LZ4_compress_HC`, which allocates and zeroes its 256 KiB
    /// state per call: engine against engine, as lzkit's one-shot functions
    /// reuse a per-thread engine.
    #[arg(long)]
    c_reuse: bool,
    /// Print a row per file (not only the summary per level).
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Print per-file rows as CSV on stdout (summaries go to stderr).
    #[arg(long)]
    csv: bool,
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

#[derive(Clone)]
struct Levels(Vec<i32>);

fn parse_levels(s: &str) -> Result<Levels, String> {
    let mut levels = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let parse = |x: &str| {
            x.trim()
                .parse::<i32>()
                .map_err(|e| format!("bad level {x:?}: {e}"))
        };
        let (a, b) = (parse(a)?, parse(b)?);
        if a > b || a < HC_LEVELS.0 || b > HC_LEVELS.1 {
            return Err(format!(
                "levels {part:?} not within {}..={}",
                HC_LEVELS.0, HC_LEVELS.1
            ));
        }
        levels.extend(a..=b);
    }
    Ok(Levels(levels))
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
    let mut inputs = Vec::new();
    for path in &files {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if data.is_empty() {
            eprintln!("{}: empty, skipped", file_name(path));
        } else {
            inputs.push((file_name(path), data));
        }
    }
    let total: usize = inputs.iter().map(|(_, d)| d.len()).sum();
    eprintln!(
        "lzkit vs lz4 C {} ({}): {} files, {:.1} MiB, {} KiB blocks; \
         min {} time over {} rounds{} (interleaved, seed {:#x}); every output decoded by both",
        c_ref::version(),
        if args.c_reuse {
            "one state, LZ4_compress_HC_extStateHC_fastReset"
        } else {
            "LZ4_compress_HC"
        },
        inputs.len(),
        total as f64 / (1 << 20) as f64,
        args.block_size >> 10,
        if args.cpu { "thread CPU" } else { "wall" },
        args.rounds,
        args.budget
            .map(|t| format!(" or {t} s per file"))
            .unwrap_or_default(),
        args.seed,
    );
    if args.csv {
        println!("level,file,size,c_bytes,lzkit_bytes,size_ratio,c_mbps,lzkit_mbps,speed_ratio");
    }
    let width = inputs
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut rng = Rng::new(args.seed);
    let mut summaries = Vec::new();
    for &level in &args.levels.0 {
        let mut rows = Vec::new();
        for (name, data) in &inputs {
            let row = bench_file(data, level, args, &mut rng)
                .map_err(|e| format!("level {level}, {name}: {e}"))?;
            if args.csv {
                println!(
                    "{level},{name},{},{},{},{:.5},{:.2},{:.2},{:.4}",
                    row.size,
                    row.c_bytes,
                    row.lzkit_bytes,
                    row.size_ratio(),
                    row.c_mbps(),
                    row.lzkit_mbps(),
                    row.speed_ratio()
                );
            } else if args.verbose {
                println!(
                    "  {level:>2} {name:<width$} {:>9} B  ratio C {:>7.3}  size x{:.4}  \
                     C {:>7.1} MB/s  lzkit {:>7.1} MB/s  speed x{:.3}",
                    row.size,
                    row.size as f64 / row.c_bytes as f64,
                    row.size_ratio(),
                    row.c_mbps(),
                    row.lzkit_mbps(),
                    row.speed_ratio()
                );
            }
            rows.push((name.clone(), row));
        }
        let summary = Summary::new(level, &rows);
        eprintln!("{}", summary.line());
        summaries.push(summary);
    }
    eprintln!();
    eprintln!(
        "summary (size: lzkit/C bytes, below 1 = smaller; speed: lzkit/C MB/s, above 1 = faster)"
    );
    for s in &summaries {
        eprintln!("{}", s.line());
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Clocks
// ---------------------------------------------------------------------------

/// Seconds on the chosen clock, from an arbitrary origin.
fn now(cpu: bool) -> f64 {
    if cpu && let Some(t) = thread_cpu_seconds() {
        return t;
    }
    static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn thread_cpu_seconds() -> Option<f64> {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    /// Linux's clock id for the calling thread's CPU time.
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable `struct timespec` (two 64-bit
    // fields on 64-bit Linux).
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts.sec as f64 + ts.nsec as f64 * 1e-9)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn thread_cpu_seconds() -> Option<f64> {
    None
}

// ---------------------------------------------------------------------------
// One file at one level
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Who {
    Lzkit,
    C,
}

/// Compressed blocks of one contender, each in its own fixed-size slot.
struct Slots {
    buf: Vec<u8>,
    sizes: Vec<usize>,
    slot: usize,
}

impl Slots {
    fn block(&self, i: usize) -> &[u8] {
        &self.buf[i * self.slot..i * self.slot + self.sizes[i]]
    }
}

struct FileBench<'a> {
    input: &'a [u8],
    block_size: usize,
    level: i32,
    out: [Slots; 2],
    /// With `--c-reuse`: the one state C compresses every block with.
    c_state: Option<c_ref::HcState>,
}

impl FileBench<'_> {
    fn blocks(&self) -> impl Iterator<Item = (usize, Range<usize>)> + use<> {
        let (n, bs) = (self.input.len(), self.block_size);
        (0..n.div_ceil(bs)).map(move |i| (i, i * bs..n.min((i + 1) * bs)))
    }

    fn run(&mut self, who: Who) {
        let input = black_box(self.input);
        let level = self.level;
        let blocks: Vec<_> = self.blocks().collect();
        let out = &mut self.out[who as usize];
        for (i, r) in blocks {
            let slot = &mut out.buf[i * out.slot..(i + 1) * out.slot];
            out.sizes[i] = match who {
                // An error would be a bug: the slot has max_compressed_size room.
                Who::Lzkit => block::compress_into(&input[r], slot, level).unwrap_or(0),
                Who::C => match &mut self.c_state {
                    Some(state) => state.compress_into(&input[r], slot, level),
                    None => c_ref::compress_into(&input[r], slot, level),
                }
                .unwrap_or(0),
            };
        }
        black_box(&mut out.sizes);
    }

    /// Decode every block of `who`'s last output with both decoders.
    fn verify(&self, who: Who) -> Result<(), String> {
        let out = &self.out[who as usize];
        let mut dec = vec![0u8; self.block_size];
        for (i, r) in self.blocks() {
            let want = &self.input[r];
            let comp = out.block(i);
            if comp.is_empty() {
                return Err(format!("{who:?}: block {i} failed to compress"));
            }
            dec.fill(POISON);
            match block::decompress_into(comp, &mut dec) {
                Ok(n) if dec[..n] == *want => {}
                other => {
                    return Err(format!(
                        "{who:?} block {i}: lzkit decoder gave {:?}, not the input",
                        other.map(|n| format!("{n} bytes"))
                    ));
                }
            }
            dec.fill(POISON);
            match c_ref::decompress_into(comp, &mut dec) {
                Some(n) if dec[..n] == *want => {}
                other => {
                    return Err(format!(
                        "{who:?} block {i}: LZ4_decompress_safe gave {other:?}, not the input"
                    ));
                }
            }
        }
        Ok(())
    }

    fn bytes(&self, who: Who) -> usize {
        self.out[who as usize].sizes.iter().sum()
    }
}

struct Row {
    size: usize,
    c_bytes: usize,
    lzkit_bytes: usize,
    c_secs: f64,
    lzkit_secs: f64,
}

impl Row {
    fn size_ratio(&self) -> f64 {
        self.lzkit_bytes as f64 / self.c_bytes as f64
    }
    fn speed_ratio(&self) -> f64 {
        self.c_secs / self.lzkit_secs
    }
    fn c_mbps(&self) -> f64 {
        self.size as f64 / self.c_secs / 1e6
    }
    fn lzkit_mbps(&self) -> f64 {
        self.size as f64 / self.lzkit_secs / 1e6
    }
}

fn bench_file(input: &[u8], level: i32, args: &Args, rng: &mut Rng) -> Result<Row, String> {
    let nblocks = input.len().div_ceil(args.block_size);
    let slot = c_ref::bound_for_either(args.block_size);
    let slots = || Slots {
        buf: vec![POISON; nblocks * slot],
        sizes: vec![0; nblocks],
        slot,
    };
    let mut b = FileBench {
        input,
        block_size: args.block_size,
        level,
        out: [slots(), slots()],
        c_state: match args.c_reuse {
            true => Some(c_ref::HcState::new().ok_or("LZ4_initStreamHC failed")?),
            false => None,
        },
    };
    let who = [Who::Lzkit, Who::C];

    // Warm-up pass (verified), which also sets the passes per sample.
    let mut reps = [1u32; 2];
    for &w in &who {
        let t = now(args.cpu);
        b.run(w);
        let once = (now(args.cpu) - t).max(1e-9);
        b.verify(w)?;
        reps[w as usize] = (MIN_SAMPLE.as_secs_f64() / once).ceil().max(1.0) as u32;
    }

    let budget = args.budget.map(Duration::from_secs_f64);
    let start = Instant::now();
    let mut best = [f64::INFINITY; 2];
    let mut order = who;
    for round in 0..args.rounds.max(1) {
        if round > 0 && budget.is_some_and(|d| start.elapsed() >= d) {
            break;
        }
        rng.shuffle(&mut order);
        for &w in &order {
            b.out[w as usize].buf.fill(POISON);
            let t = now(args.cpu);
            for _ in 0..reps[w as usize] {
                b.run(w);
            }
            let per_pass = (now(args.cpu) - t) / f64::from(reps[w as usize]);
            b.verify(w)?;
            best[w as usize] = best[w as usize].min(per_pass);
        }
    }
    Ok(Row {
        size: input.len(),
        c_bytes: b.bytes(Who::C),
        lzkit_bytes: b.bytes(Who::Lzkit),
        c_secs: best[Who::C as usize],
        lzkit_secs: best[Who::Lzkit as usize],
    })
}

// ---------------------------------------------------------------------------
// Summaries
// ---------------------------------------------------------------------------

/// How many worst files a summary names.
const WORST: usize = 3;

struct Summary {
    level: i32,
    files: usize,
    size_geomean: f64,
    speed_geomean: f64,
    c_total_ratio: f64,
    lzkit_total_ratio: f64,
    c_mbps: f64,
    lzkit_mbps: f64,
    worst_size: Vec<(String, f64)>,
    worst_speed: Vec<(String, f64)>,
}

impl Summary {
    fn new(level: i32, rows: &[(String, Row)]) -> Self {
        let size: usize = rows.iter().map(|(_, r)| r.size).sum();
        let c_bytes: usize = rows.iter().map(|(_, r)| r.c_bytes).sum();
        let lzkit_bytes: usize = rows.iter().map(|(_, r)| r.lzkit_bytes).sum();
        let c_secs: f64 = rows.iter().map(|(_, r)| r.c_secs).sum();
        let lzkit_secs: f64 = rows.iter().map(|(_, r)| r.lzkit_secs).sum();
        // The files furthest on the wrong side of 1 (none if all are on
        // the right side), worst first.
        let worst = |key: &dyn Fn(&Row) -> f64, larger_is_worse: bool| {
            let mut v: Vec<(String, f64)> = rows
                .iter()
                .map(|(n, r)| (n.clone(), key(r)))
                .filter(|&(_, x)| if larger_is_worse { x > 1.0 } else { x < 1.0 })
                .collect();
            v.sort_by(|a, b| a.1.total_cmp(&b.1));
            if larger_is_worse {
                v.reverse();
            }
            v.truncate(WORST);
            v
        };
        Summary {
            level,
            files: rows.len(),
            size_geomean: geomean(rows.iter().map(|(_, r)| r.size_ratio())),
            speed_geomean: geomean(rows.iter().map(|(_, r)| r.speed_ratio())),
            c_total_ratio: size as f64 / c_bytes as f64,
            lzkit_total_ratio: size as f64 / lzkit_bytes as f64,
            c_mbps: size as f64 / c_secs / 1e6,
            lzkit_mbps: size as f64 / lzkit_secs / 1e6,
            worst_size: worst(&Row::size_ratio, true),
            worst_speed: worst(&Row::speed_ratio, false),
        }
    }

    fn line(&self) -> String {
        let list = |v: &[(String, f64)], digits: usize| {
            if v.is_empty() {
                return "none".to_string();
            }
            v.iter()
                .map(|(n, x)| format!("{n} {x:.digits$}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "level {:>2}: {} files  size x{:.4} (geomean)  speed x{:.3} (geomean)  \
             [ratio C {:.3} lzkit {:.3}; total MB/s C {:.1} lzkit {:.1}]\n    \
             larger than C: {}\n    slower than C: {}",
            self.level,
            self.files,
            self.size_geomean,
            self.speed_geomean,
            self.c_total_ratio,
            self.lzkit_total_ratio,
            self.c_mbps,
            self.lzkit_mbps,
            list(&self.worst_size, 4),
            list(&self.worst_speed, 3),
        )
    }
}
