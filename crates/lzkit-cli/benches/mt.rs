//! Multithreaded compression and parallel decompression: N threads against
//! 1 thread, side by side in one process.
//!
//! ```text
//! cargo bench --bench mt -- [--mib 64] [--threads 2] [--rounds 3] [--fast-rounds 15]
//!                            [--no-hc] [--no-cli] [CORPUS_DIR]
//! ```
//!
//! Input: every file of `CORPUS_DIR` (default `/work/corpus`, built by
//! `shared/corpus/make_corpus.sh`) concatenated in name order, repeated or
//! cut to `--mib` MiB; without a corpus, a generated mix of the column
//! kinds of `lzkit bench`'s built-in corpus (integers, timestamps, floats,
//! strings, text, random bytes). We time:
//! * library compression, `frame::compress` at `-9` and `-1` (CLI defaults:
//!   4 MiB independent blocks, content checksum), `threads` = N vs 1;
//! * library decompression of the `-1` frame: one-shot `decompress_with`
//!   and the streaming `FrameDecoder` (into a sink), N threads vs 1;
//! * the CLI binary on a real file, file to file: `lzkit -9 -T#`, `-1 -T#`
//!   and `-d -T#`.
//!
//! How we measure (see `docs/benchmarking.md`: a noisy shared 2-core VM):
//! contenders are interleaved, each round running every contender of a
//! group once in a fresh random order (seeded; short work is repeated to
//! last at least half a second); we report the minimum time over the
//! rounds (the run least disturbed by neighbours) and the median. Every
//! output is checked: frames byte for byte across thread counts (the
//! encoder's output does not depend on them), decoded data against the
//! input.
//!
//! Columns: `cores` is CPU time over wall time in the fastest round. When
//! other work keeps the machine busy (the kernel shares the CPUs between
//! sessions, so N threads then get no more than one), it stays near 1 and
//! the measured speedup `xN` means little; the in-process rows then also
//! give an *estimate* for idle cores from the CPU time used: the work spread
//! over the threads, or the calling thread's own share (reading, checksum,
//! writing: the serial part), whichever is longer.

use clap::Parser;
use lzkit::lz4::frame::{self, DecodeOptions, FrameDecoder, FrameOptions};
use lzkit_testkit::Rng;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Fixed seed of the round-order shuffle, so two runs interleave alike.
const SEED: u64 = 0x6D74;
/// Where the development corpus is built by default.
const DEFAULT_CORPUS: &str = "/work/corpus";
/// Bytes per MiB.
const MIB: usize = 1 << 20;
/// Shortest timed sample, in seconds: shorter work is repeated.
const MIN_SAMPLE: f64 = 0.5;

#[derive(Parser, Debug)]
#[command(about = "lzkit multithreading: N threads vs 1")]
struct Args {
    /// Input size in MiB.
    #[arg(long, default_value_t = 64)]
    mib: usize,
    /// Thread count compared with 1.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Rounds of the slow groups (`-9`; each contender runs once per round).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Rounds of the fast groups (`-1`, decompression): short runs need
    /// more rounds to catch moments the neighbours leave the cores alone.
    #[arg(long, default_value_t = 15)]
    fast_rounds: usize,
    /// Skip the CLI timings.
    #[arg(long)]
    no_cli: bool,
    /// Skip compression at -9 (the slow part), to time the rest in a short
    /// quiet moment.
    #[arg(long)]
    no_hc: bool,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
    /// Corpus directory (every file in it, in name order).
    corpus: Option<PathBuf>,
}

/// One timed contender: a label and the work, which returns its output for
/// checking.
struct Contender<'a> {
    label: String,
    threads: usize,
    /// Runs in this process (so its calling thread's CPU time is known).
    in_process: bool,
    run: Box<dyn FnMut() -> Vec<u8> + 'a>,
}

/// Times of one contender over the rounds.
struct Timing {
    label: String,
    /// Wall-clock seconds per round.
    secs: Vec<f64>,
    /// CPU seconds (this process and its children) per round.
    cpu: Vec<f64>,
    /// CPU seconds of the calling thread per round (the serial part).
    main: Vec<f64>,
    /// Threads the contender asked for.
    threads: usize,
    in_process: bool,
}

impl Timing {
    fn min(&self) -> f64 {
        self.secs.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// Cores busy during the fastest round: CPU time over wall time (the
    /// CPU clock ticks at 100 Hz, so short runs read coarsely).
    fn cores(&self) -> f64 {
        let (i, _) = self
            .secs
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("at least one round");
        self.cpu[i] / self.secs[i]
    }

    fn median(&self) -> f64 {
        median(&self.secs)
    }

    /// The wall time this work would take on `threads` idle cores, from
    /// the CPU time it used (median over rounds): the work spread over the
    /// threads, or the calling thread's share, whichever is longer. A
    /// model, not a measurement: for when neighbours keep the cores busy.
    fn idle_estimate(&self) -> f64 {
        let cpu = median(&self.cpu);
        (cpu / self.threads as f64).max(median(&self.main))
    }
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// Run each contender once per round in a shuffled order (a run repeats
/// the work until it lasts [`MIN_SAMPLE`], so that short work is timed,
/// and its CPU time counted, precisely enough); `check` sees every output
/// (with the contender's index). Times are per repetition.
fn race(
    contenders: &mut [Contender<'_>],
    rounds: usize,
    rng: &mut Rng,
    check: &mut dyn FnMut(usize, &[u8]),
) -> Vec<Timing> {
    let reps: Vec<u32> = contenders
        .iter_mut()
        .enumerate()
        .map(|(i, c)| {
            let t = Instant::now();
            let out = (c.run)();
            let once = t.elapsed().as_secs_f64().max(1e-6);
            check(i, &out);
            (MIN_SAMPLE / once).ceil().max(1.0) as u32
        })
        .collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    let mut main: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    let mut order: Vec<usize> = (0..contenders.len()).collect();
    for _ in 0..rounds {
        rng.shuffle(&mut order);
        for &i in &order {
            let n = f64::from(reps[i]);
            let c0 = cpu_seconds("/proc/self/stat");
            let m0 = thread_cpu_seconds();
            let t = Instant::now();
            let mut out = Vec::new();
            for _ in 0..reps[i] {
                out = (contenders[i].run)();
            }
            times[i].push(t.elapsed().as_secs_f64() / n);
            cpu[i].push((cpu_seconds("/proc/self/stat") - c0) / n);
            main[i].push((thread_cpu_seconds() - m0) / n);
            check(i, &out);
        }
    }
    contenders
        .iter()
        .zip(times.into_iter().zip(cpu).zip(main))
        .map(|(c, ((secs, cpu), main))| Timing {
            label: c.label.clone(),
            secs,
            cpu,
            main,
            threads: c.threads,
            in_process: c.in_process,
        })
        .collect()
}

/// Print a group: MB/s of `bytes` per contender, and each contender's
/// speedup over the first (the 1-thread baseline), measured (minimum wall
/// times) and, for in-process contenders, estimated for idle cores from
/// the CPU time used (see [`Timing::idle_estimate`]).
fn report(title: &str, bytes: usize, t: &[Timing]) {
    println!("\n{title}");
    let base = &t[0];
    for x in t {
        let estimate = if x.in_process {
            format!(
                "  cpu {:.3} s (calling thread {:.3} s), idle-core estimate x{:.2}",
                median(&x.cpu),
                median(&x.main),
                base.idle_estimate() / x.idle_estimate()
            )
        } else {
            String::new()
        };
        println!(
            "  {:<34} min {:>7.3} s  median {:>7.3} s  {:>7.1} MB/s  {:.2} cores  x{:.2}{estimate}",
            x.label,
            x.min(),
            x.median(),
            bytes as f64 / x.min() / 1e6,
            x.cores(),
            base.min() / x.min(),
        );
    }
}

/// CPU seconds used so far, from a `/proc/.../stat` file: utime, stime,
/// cutime, cstime (waited-for children; zero for a thread), in 100 Hz
/// ticks. `/proc/self/stat` counts the whole process, threads that ended
/// included; `/proc/thread-self/stat` the calling thread.
fn cpu_seconds(path: &str) -> f64 {
    /// Clock ticks per second of `/proc` times on Linux.
    const TICKS: f64 = 100.0;
    let Ok(stat) = fs::read_to_string(path) else {
        return 0.0;
    };
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // utime is field 14 of the line, the 12th after the name.
    f.get(11..15).map_or(0.0, |t| t.iter().sum::<f64>() / TICKS)
}

/// CPU seconds used so far by the calling thread, to the nanosecond
/// (`/proc/thread-self/schedstat`: time on the CPU, in ns).
fn thread_cpu_seconds() -> f64 {
    fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// The benchmark input: the corpus concatenated, repeated or cut to `size`.
fn load_input(dir: &Path, size: usize) -> io::Result<(Vec<u8>, String)> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    let mut all = Vec::new();
    for p in &names {
        all.extend_from_slice(&fs::read(p)?);
    }
    if all.is_empty() {
        return Err(io::Error::other("empty corpus"));
    }
    let desc = format!(
        "{} files of {} ({:.1} MiB), concatenated{}",
        names.len(),
        dir.display(),
        all.len() as f64 / MIB as f64,
        if all.len() < size {
            ", repeated"
        } else {
            ", cut"
        }
    );
    let data: Vec<u8> = all.iter().copied().cycle().take(size).collect();
    Ok((data, desc))
}

fn opts(level: i32, threads: usize) -> FrameOptions {
    FrameOptions::new().level(level).threads(threads)
}

/// Library compression at `level`: 1 thread vs `n`; returns the frame.
fn bench_compress(data: &[u8], level: i32, n: usize, args: &Args, rng: &mut Rng) -> Vec<u8> {
    let mut contenders: Vec<Contender<'_>> = [1, n]
        .into_iter()
        .map(|t| Contender {
            label: format!("frame::compress -{level} threads={t}"),
            threads: t,
            in_process: true,
            run: Box::new(move || frame::compress(data, &opts(level, t))),
        })
        .collect();
    let rounds = if level >= 2 {
        args.rounds
    } else {
        args.fast_rounds
    };
    let mut reference: Option<Vec<u8>> = None;
    let t = race(
        &mut contenders,
        rounds,
        rng,
        &mut |i, out| match &reference {
            None => reference = Some(out.to_vec()),
            Some(r) => assert!(
                r == out,
                "contender {i}: output differs across thread counts"
            ),
        },
    );
    let f = reference.expect("at least one round");
    assert!(
        frame::decompress(&f).expect("decodes") == data,
        "round trip"
    );
    report(
        &format!(
            "compress -{level}: {} MiB -> {} bytes (ratio {:.3})",
            data.len() / MIB,
            f.len(),
            data.len() as f64 / f.len() as f64
        ),
        data.len(),
        &t,
    );
    f
}

/// Library decompression of `f` (independent blocks): 1 thread vs `n`,
/// one-shot and streaming.
fn bench_decompress(f: &[u8], data: &[u8], n: usize, args: &Args, rng: &mut Rng) {
    let dec = |t: usize| DecodeOptions::new().threads(t);
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    for t in [1, n] {
        contenders.push(Contender {
            label: format!("decompress_with threads={t}"),
            threads: t,
            in_process: true,
            run: Box::new(move || frame::decompress_with(f, &dec(t)).expect("decodes")),
        });
    }
    let rounds = args.fast_rounds;
    let t = race(&mut contenders, rounds, rng, &mut |i, out| {
        assert!(out == data, "contender {i}: wrong output");
    });
    report(
        &format!("decompress (one-shot), {} MiB", data.len() / MIB),
        data.len(),
        &t,
    );

    // Streaming into a sink: the output is checked through its length and
    // a checksum rather than kept.
    let expected = (data.len() as u64, xxhash_rust::xxh32::xxh32(data, 0));
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    for t in [1, n] {
        contenders.push(Contender {
            label: format!("FrameDecoder threads={t}"),
            threads: t,
            in_process: true,
            run: Box::new(move || {
                let mut r = FrameDecoder::with_threads(f, t);
                let mut h = xxhash_rust::xxh32::Xxh32::new(0);
                let mut buf = vec![0u8; 1 << 20];
                let mut len = 0u64;
                loop {
                    let k = r.read(&mut buf).expect("decodes");
                    if k == 0 {
                        break;
                    }
                    h.update(&buf[..k]);
                    len += k as u64;
                }
                let mut v = len.to_le_bytes().to_vec();
                v.extend_from_slice(&h.digest().to_le_bytes());
                v
            }),
        });
    }
    let t = race(&mut contenders, rounds, rng, &mut |i, out| {
        let len = u64::from_le_bytes(out[..8].try_into().expect("8 bytes"));
        let sum = u32::from_le_bytes(out[8..].try_into().expect("4 bytes"));
        assert!((len, sum) == expected, "contender {i}: wrong output");
    });
    report(
        &format!(
            "decompress (streaming, 1 MiB reads, hashed), {} MiB",
            data.len() / MIB
        ),
        data.len(),
        &t,
    );
}

/// The CLI on a real file: `lzkit ARGS -T1` vs `-T<n>`, file to file.
fn bench_cli(dir: &Path, data: &[u8], n: usize, args: &Args, rng: &mut Rng) {
    let bin = env!("CARGO_BIN_EXE_lzkit");
    let input = dir.join("input");
    fs::write(&input, data).expect("write input");
    let run = |a: &[&str]| {
        let out = Command::new(bin)
            .current_dir(dir)
            .args(a)
            .env_remove("LZ4_NBWORKERS")
            .output()
            .expect("run lzkit");
        assert!(
            out.status.success(),
            "lzkit {a:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let levels: &[&str] = if args.no_hc { &["-1"] } else { &["-9", "-1"] };
    for &level in levels {
        let mut contenders: Vec<Contender<'_>> = Vec::new();
        for t in [1, n] {
            let threads = format!("-T{t}");
            let out = format!("out{t}.lz4");
            let run = &run;
            let label = format!("lzkit {level} {threads} input {out}");
            contenders.push(Contender {
                label,
                threads: t,
                in_process: false,
                run: Box::new(move || {
                    run(&["-q", "-f", level, &threads, "input", &out]);
                    fs::read(dir.join(&out)).expect("read output")
                }),
            });
        }
        let rounds = if level == "-9" {
            args.rounds
        } else {
            args.fast_rounds
        };
        let mut reference: Option<Vec<u8>> = None;
        let t = race(
            &mut contenders,
            rounds,
            rng,
            &mut |i, out| match &reference {
                None => reference = Some(out.to_vec()),
                Some(r) => assert!(r == out, "contender {i}: CLI output differs"),
            },
        );
        report(&format!("CLI compress {level}"), data.len(), &t);
    }
    // Decompress the -1 output (4 MiB independent blocks, content checksum).
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    for t in [1, n] {
        let threads = format!("-T{t}");
        let out = format!("back{t}");
        let run = &run;
        contenders.push(Contender {
            label: format!("lzkit -d {threads} out1.lz4 {out}"),
            threads: t,
            in_process: false,
            run: Box::new(move || {
                run(&["-q", "-f", "-d", &threads, "out1.lz4", &out]);
                fs::read(dir.join(&out)).expect("read output")
            }),
        });
    }
    let t = race(&mut contenders, args.fast_rounds, rng, &mut |i, out| {
        assert!(out == data, "contender {i}: CLI decompression differs");
    });
    report("CLI decompress (-1 frame)", data.len(), &t);
}

/// The system's load average, to show how busy the machine was.
fn load() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn main() {
    let args = Args::parse();
    let size = args.mib * MIB;
    let dir = args
        .corpus
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_CORPUS));
    let (data, desc) = match load_input(&dir, size) {
        Ok(x) => x,
        Err(e) => {
            eprintln!(
                "note: no corpus at {} ({e}); using generated data",
                dir.display()
            );
            (
                lzkit_testkit::corpus::other_data(size),
                "generated mix".to_string(),
            )
        }
    };
    let n = args.threads;
    println!(
        "lzkit multithreading, {n} threads vs 1: {} MiB input ({desc}); {} cores available; \
         min and median over {} rounds at -9, {} otherwise (interleaved, seed {SEED:#x}); \
         every output verified",
        data.len() / MIB,
        frame::effective_threads(0),
        args.rounds,
        args.fast_rounds
    );
    println!("load average at the start: {}", load());
    let mut rng = Rng::new(SEED);
    if !args.no_hc {
        bench_compress(&data, 9, n, &args, &mut rng);
    }
    let f = bench_compress(&data, 1, n, &args, &mut rng);
    bench_decompress(&f, &data, n, &args, &mut rng);
    if !args.no_cli {
        let tmp = tempfile::tempdir().expect("temporary directory");
        bench_cli(tmp.path(), &data, n, &args, &mut rng);
    }
    println!("\nload average at the end: {}", load());
}
