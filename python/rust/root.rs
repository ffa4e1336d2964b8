//! ROOT's compressed records (uproot's TTree baskets and RNTuple pages):
//! a run of blocks, each behind a 9-byte header (two letters for the
//! codec, a method byte, the compressed and the decoded size as 24-bit
//! little-endian numbers; LZ4 blocks then carry a big-endian XXH64 of
//! their compressed bytes). `root_decompress_into` decodes the LZ4 and
//! zstd blocks of one record straight into the caller's buffer, on
//! several threads when the record has several blocks.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use lzkit::format::Codec;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::buffers::{Input, OutBuf};

/// A block header's length.
const HEADER: usize = 9;

/// Decoded bytes below which a record is decoded on the calling thread
/// alone: handing work to the pool costs more than it saves.
const PARALLEL_MIN: usize = 128 << 10;

/// One block: its codec, compressed bytes, LZ4 checksum and decoded size.
struct Block<'a> {
    codec: Codec,
    data: &'a [u8],
    checksum: Option<u64>,
    len: usize,
}

/// What a record holds: blocks lzkit decodes, or one it leaves to uproot
/// (zlib, LZMA, the old "CS" codec).
enum Record<'a> {
    Blocks(Vec<Block<'a>>),
    Foreign,
}

fn u24(b: &[u8]) -> usize {
    usize::from(b[0]) | usize::from(b[1]) << 8 | usize::from(b[2]) << 16
}

/// The record's blocks, read as uproot reads them: block after block
/// until the record's bytes are used up, or just the first if it alone
/// decodes to the record's size (uproot ignores what follows it). Any
/// record that does not add up (a cut header or block, blocks that decode
/// to more or less than the record) is [`Record::Foreign`] too: uproot's
/// own code then reads it, with its own result or error.
fn scan(src: &[u8], total: usize) -> Record<'_> {
    let mut blocks = Vec::new();
    let (mut pos, mut filled) = (0usize, 0usize);
    while pos < src.len() {
        let Some(head) = src.get(pos..pos + HEADER) else {
            return Record::Foreign;
        };
        let codec = match &head[..2] {
            b"L4" => Codec::Lz4,
            b"ZS" => Codec::Zstd,
            _ => return Record::Foreign,
        };
        let (mut size, len) = (u24(&head[3..6]), u24(&head[6..9]));
        pos += HEADER;
        // LZ4 blocks carry an XXH64 of their compressed bytes.
        let checksum = if codec == Codec::Lz4 {
            let Some(sum) = src.get(pos..pos + 8).filter(|_| size >= 8) else {
                return Record::Foreign;
            };
            pos += 8;
            size -= 8;
            Some(u64::from_be_bytes(sum.try_into().expect("8 bytes")))
        } else {
            None
        };
        let Some(data) = src.get(pos..pos + size) else {
            return Record::Foreign;
        };
        pos += size;
        let first_is_all = blocks.is_empty() && len == total;
        filled += len;
        if filled > total {
            return Record::Foreign;
        }
        blocks.push(Block {
            codec,
            data,
            checksum,
            len,
        });
        if first_is_all {
            break;
        }
    }
    if filled != total {
        return Record::Foreign;
    }
    Record::Blocks(blocks)
}

/// Check an LZ4 block's XXH64 (other blocks have none).
fn check(block: &Block<'_>) -> Result<(), String> {
    match block.checksum {
        Some(expected) => mismatch(xxhash_rust::xxh64::xxh64(block.data, 0), expected),
        None => Ok(()),
    }
}

/// An error if the checksum computed is not the one expected.
fn mismatch(computed: u64, expected: u64) -> Result<(), String> {
    if computed == expected {
        Ok(())
    } else {
        Err(format!(
            "computed checksum {computed} didn't match expected checksum {expected}"
        ))
    }
}

/// Decode one block into `dst`, which it must fill exactly.
fn decode(block: &Block<'_>, dst: &mut [u8]) -> Result<(), String> {
    let n = match block.codec {
        Codec::Lz4 => lzkit::lz4::block::decompress_into(block.data, dst),
        Codec::Zstd => lzkit::zstd::decompress_into(block.data, dst),
        other => return Err(format!("ROOT has no {other} blocks")),
    }
    .map_err(|e| e.to_string())?;
    if n != dst.len() {
        return Err(format!(
            "a block of compressed size {} decompressed to {n} bytes, but the block header expects {} bytes",
            block.data.len(),
            dst.len()
        ));
    }
    Ok(())
}

/// One worker pool per thread count asked for, started on first use and
/// kept (a basket is too small to pay for starting threads); `None` if
/// the system would not start one.
fn pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(Arc::clone(p));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("lzkit-root-{i}"))
        .build()
        .ok()
        .map(Arc::new)?;
    pools.push((threads, Arc::clone(&p)));
    Some(p)
}

/// Decode every block into its place in `out`: on the calling thread, or
/// on a pool of `threads` where the record is large enough to gain, the
/// blocks at once and each LZ4 block's checksum beside its decoding. The
/// error of the first bad block is returned.
fn decode_all(blocks: &[Block<'_>], out: &mut [u8], threads: usize) -> Result<(), String> {
    let mut jobs = Vec::with_capacity(blocks.len());
    let mut rest = out;
    for block in blocks {
        let (dst, tail) = rest.split_at_mut(block.len);
        jobs.push((block, dst));
        rest = tail;
    }
    let total: usize = blocks.iter().map(|b| b.len).sum();
    let pool = if threads > 1 && total >= PARALLEL_MIN {
        pool(threads)
    } else {
        None
    };
    let Some(pool) = pool else {
        return jobs
            .into_iter()
            .try_for_each(|(b, dst)| check(b).and_then(|()| decode(b, dst)));
    };
    if let [(b, dst)] = &mut jobs[..] {
        // One block: the pool checks its sum while this thread decodes.
        let Some(expected) = b.checksum else {
            return decode(b, dst);
        };
        let (computed, data) = xxh64_beside(&pool, b.data, || decode(b, dst));
        return mismatch(computed, expected).and(data);
    }
    // Several: the pool decodes (and checks) all but the first, which this
    // thread does; the error of the first bad block is returned.
    let results: Vec<Mutex<Result<(), String>>> = jobs.iter().map(|_| Mutex::new(Ok(()))).collect();
    let put = |i: usize, r: Result<(), String>| {
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = r;
    };
    let whole = |b: &Block<'_>, dst: &mut [u8]| check(b).and_then(|()| decode(b, dst));
    let mut jobs = jobs.into_iter().enumerate();
    let first = jobs.next();
    pool.in_place_scope(|s| {
        for (i, (b, dst)) in jobs {
            s.spawn(move |_| put(i, whole(b, dst)));
        }
        if let Some((i, (b, dst))) = first {
            put(i, whole(b, dst));
        }
    });
    results
        .into_iter()
        .try_for_each(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The XXH64 of `data`, computed on the pool while this thread runs
/// `main`, and `main`'s result; without waiting for the pool to wake where
/// it is slow to: a worker that has not started the sum when `main` ends
/// finds it taken, and this thread computes it. (A scope would wait for a
/// worker to wake, which can cost as much as a small block's checksum.)
fn xxh64_beside<B>(pool: &rayon::ThreadPool, data: &[u8], main: impl FnOnce() -> B) -> (u64, B) {
    /// The sum's state: not started, taken by one side, or done (by the
    /// worker, `sum` then holding it).
    const FREE: u8 = 0;
    const TAKEN: u8 = 1;
    const DONE: u8 = 2;
    struct Shared {
        state: AtomicU8,
        sum: AtomicU64,
    }
    /// Keeps `data` borrowed until the worker cannot read it any more:
    /// on drop (a panic in `main` included) it takes the job if the worker
    /// has not, or waits for the worker to finish it.
    struct Release<'a>(&'a Shared);
    impl Release<'_> {
        /// Whether this thread took the job (the worker never will).
        fn finish(&self) -> bool {
            let taken = self
                .0
                .state
                .compare_exchange(FREE, DONE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
            if !taken {
                while self.0.state.load(Ordering::Acquire) != DONE {
                    std::thread::yield_now();
                }
            }
            taken
        }
    }
    impl Drop for Release<'_> {
        fn drop(&mut self) {
            self.finish();
        }
    }
    let shared = Arc::new(Shared {
        state: AtomicU8::new(FREE),
        sum: AtomicU64::new(0),
    });
    let release = Release(&shared);
    let job = Arc::clone(&shared);
    let (ptr, len) = (data.as_ptr() as usize, data.len());
    pool.spawn(move || {
        if job
            .state
            .compare_exchange(FREE, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            // SAFETY: `data` (`len` bytes at `ptr`) stays borrowed by the
            // caller until `Release` sees DONE, stored only after this
            // read; taking the job (FREE to TAKEN) means the caller had not
            // finished, and every way out of it (return or unwind) goes
            // through `Release::finish`, which waits for DONE.
            let data = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
            job.sum
                .store(xxhash_rust::xxh64::xxh64(data, 0), Ordering::Relaxed);
            job.state.store(DONE, Ordering::Release);
        }
    });
    let b = main();
    let sum = if release.finish() {
        xxhash_rust::xxh64::xxh64(data, 0)
    } else {
        shared.sum.load(Ordering::Relaxed)
    };
    (sum, b)
}

/// The number of cores, asked once: the question reads files (cgroup
/// limits) on Linux, too slow to ask for every basket.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `lzkit._lzkit.root_decompress_into(source, dest, threads=1,
/// block_info=None)`: decode the ROOT record `source` (its blocks with
/// their 9-byte headers) into the writable buffer `dest`, which it must
/// fill exactly. Returns False, having written nothing, if a block uses a
/// codec other than LZ4 and zstd or the record does not add up (see
/// [`scan`]: uproot's code reads those); raises ValueError for a block
/// whose checksum or data is damaged. `threads`: 0 for every core (more
/// than the cores count as every core). `block_info`: a list to which, as
/// uproot does, a `(codec, compressed bytes, decoded bytes)` tuple is
/// appended for each block.
#[pyfunction]
#[pyo3(signature = (source, dest, threads=1, block_info=None))]
pub(crate) fn root_decompress_into(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    dest: &Bound<'_, PyAny>,
    threads: usize,
    block_info: Option<&Bound<'_, PyList>>,
) -> PyResult<bool> {
    let src = Input::get(source)?;
    let mut dst = OutBuf::get(dest, "dest", src.bytes())?;
    // More threads than cores never decode faster, and each count asked
    // for keeps a pool: so at most one per core count.
    let threads = match threads {
        0 => cores(),
        n => n.min(cores()),
    };
    let blocks = match scan(src.bytes(), dst.len()) {
        Record::Foreign => return Ok(false),
        Record::Blocks(blocks) => blocks,
    };
    py.allow_threads(|| decode_all(&blocks, dst.bytes_mut(), threads))
        .map_err(PyValueError::new_err)?;
    if let Some(info) = block_info {
        for b in &blocks {
            // uproot's names: "LZ4", "ZSTD".
            let name = b.codec.name().to_ascii_uppercase();
            info.append((name, b.data.len(), b.len))?;
        }
    }
    Ok(true)
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(root_decompress_into, m)?)?;
    Ok(())
}
