//! Latency of random reads from a seekable file, each checked against the
//! original: with a fresh reader per read (the file opened, the table
//! loaded, the frame decoded), and with one reader kept open.
//!
//! ```text
//! cargo run --release -p lzkit --example seekable_latency -- FILE.lz4 ORIGINAL [READS] [SIZE] [--no-verify]
//! ```
//!
//! READS (default 2000) reads of SIZE bytes (default 4096) at offsets from a
//! fixed-seed generator. Prints the median, 90th and 99th percentile and
//! mean of each case in microseconds. `--no-verify`: entries' checksums
//! are not checked (their sizes still are). The page cache should be warm (read
//! both files once before: `cat FILE ORIGINAL > /dev/null`).

use lzkit::seekable::{ReaderOptions, SeekableReader};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: seekable_latency FILE ORIGINAL [READS] [SIZE]");
        std::process::exit(2);
    }
    let numbers: Vec<&String> = args[3..].iter().filter(|a| !a.starts_with("--")).collect();
    let reads: usize = numbers.first().map_or(Ok(2000), |s| s.parse())?;
    let size: usize = numbers.get(1).map_or(Ok(4096), |s| s.parse())?;
    let original = File::open(&args[2])?;
    let total = original.metadata()?.len();
    let verify = !args.iter().any(|a| a == "--no-verify");
    let no_scan = ReaderOptions::new().scan(false).verify_checksums(verify);
    let kept = SeekableReader::with_options(File::open(&args[1])?, no_scan)?;
    if kept.len() != total {
        return Err(format!(
            "the file decodes to {} bytes, the original has {total}",
            kept.len()
        )
        .into());
    }
    println!(
        "{}: {} entries, {} bytes of content; {reads} reads of {size} bytes{}",
        args[1],
        kept.table().len(),
        total,
        if verify {
            ""
        } else {
            ", checksums not verified"
        }
    );
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut offsets = Vec::with_capacity(reads);
    for _ in 0..reads {
        // xorshift64*
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let r = seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
        offsets.push(r % total.saturating_sub(size as u64).max(1));
    }
    let mut got = vec![0u8; size];
    let mut want = vec![0u8; size];
    let mut check = |offset: u64, got: &[u8], n: usize| -> Result<(), Box<dyn std::error::Error>> {
        original.read_exact_at(&mut want[..n], offset)?;
        if got[..n] != want[..n] || n != size.min((total - offset) as usize) {
            return Err(format!("wrong bytes at offset {offset}").into());
        }
        Ok(())
    };

    let mut fresh = Vec::with_capacity(reads);
    for &offset in &offsets {
        let t = Instant::now();
        let reader = SeekableReader::with_options(File::open(&args[1])?, no_scan)?;
        let n = reader.read_at(offset, &mut got)?;
        fresh.push(t.elapsed().as_secs_f64() * 1e6);
        check(offset, &got, n)?;
    }
    let mut open = Vec::with_capacity(reads);
    for &offset in offsets.iter().rev() {
        let t = Instant::now();
        let n = kept.read_at(offset, &mut got)?;
        open.push(t.elapsed().as_secs_f64() * 1e6);
        check(offset, &got, n)?;
    }
    for (name, mut times) in [("fresh reader per read", fresh), ("reader open", open)] {
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "{name:>22}: median {:7.1} us, p90 {:7.1} us, p99 {:7.1} us, mean {:7.1} us",
            at(0.5),
            at(0.9),
            at(0.99),
            mean
        );
    }
    Ok(())
}
