//! Memory for decoding is bounded by what the input can produce, not by
//! the sizes it claims (issue 11), and an allocation the system refuses is
//! [`Error::OutOfMemory`], not an abort.
//!
//! A test binary of its own: its global allocator counts every byte this
//! process holds, so each test measures the peak its decodes reach (one
//! test at a time, under a lock), and can refuse large allocations past a
//! limit, as a memory-limited process would see them refused.

use lzkit::Error;
use lzkit::lz4::block;
use lzkit::lz4::frame::{self, BlockSize, DecodeOptions, FrameDecoder};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// Bytes allocated now, and the most since the last [`measure`] began.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Allocations of at least [`BIG`] bytes that would take [`CURRENT`] past
/// this fail (`usize::MAX`: none do).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Smaller allocations are never refused (the test harness, error values).
const BIG: usize = 1 << 20;

/// The system allocator, counted.
struct Counting;

impl Counting {
    fn refuses(&self, size: usize) -> bool {
        size >= BIG && CURRENT.load(SeqCst).saturating_add(size) > LIMIT.load(SeqCst)
    }

    fn add(&self, n: usize) {
        let now = CURRENT.fetch_add(n, SeqCst) + n;
        PEAK.fetch_max(now, SeqCst);
    }
}

// SAFETY: every method forwards to the system allocator with the caller's
// arguments (or returns null, a refusal the contract allows); the counters
// do not affect what is allocated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if self.refuses(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if self.refuses(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && self.refuses(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as the change in size: a large block grows in place
            // (mremap), not as a copy beside the old one.
            if new_size >= old {
                self.add(new_size - old);
            } else {
                CURRENT.fetch_sub(old - new_size, SeqCst);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time: the counters are the process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Run `f` and return its result and the most bytes allocated beyond what
/// was allocated when it started.
fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(SeqCst);
    PEAK.store(base, SeqCst);
    let r = f();
    (r, PEAK.load(SeqCst).saturating_sub(base))
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A named way to decode a frame.
type Decode<'a> = (&'static str, Box<dyn Fn() -> lzkit::Result<Vec<u8>> + 'a>);

/// Every one-shot and streaming frame decode, on one thread and on four.
fn frame_decodes(f: &[u8]) -> Vec<Decode<'_>> {
    let stream = move |threads: usize| {
        move || {
            let mut out = Vec::new();
            FrameDecoder::with_threads(f, threads)
                .read_to_end(&mut out)
                .map(|_| out)
                .map_err(Error::from_io)
        }
    };
    vec![
        ("decompress", Box::new(move || frame::decompress(f))),
        (
            "decompress_with (4 threads)",
            Box::new(move || frame::decompress_with(f, &DecodeOptions::new().threads(4))),
        ),
        ("FrameDecoder", Box::new(stream(1))),
        ("FrameDecoder (4 threads)", Box::new(stream(4))),
    ]
}

#[test]
fn a_content_size_of_2_63_is_not_reserved() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Content size 2^63, 4 MiB blocks, one stored block "hello": 28 bytes.
    let f = hex("04224d18687000000000000000800b0500008068656c6c6f00000000");
    for (how, decode) in frame_decodes(&f) {
        let (r, peak) = measure(decode);
        match r {
            Err(Error::ContentSize {
                expected: 0x8000_0000_0000_0000,
                actual: 5,
            }) => {}
            other => panic!("{how}: {other:?}"),
        }
        assert!(peak < 1 << 20, "{how}: {peak} bytes allocated at the peak");
    }
}

/// A frame of 4 MiB independent blocks, `count` of them, each the block of
/// 20 KB of data (compressing to about 16 KB): each claims 4 MiB of room.
/// Returns the frame and its content.
fn small_blocks_frame(count: usize) -> (Vec<u8>, Vec<u8>) {
    let pieces: Vec<Vec<u8>> = (0..count as u64)
        .map(|i| {
            [
                lzkit_testkit::text(4_000, i),
                lzkit_testkit::random(16_000, i),
            ]
            .concat()
        })
        .collect();
    let f = lzkit_testkit::frame_of_pieces(&pieces, BlockSize::Max4MB, false, true);
    (f, pieces.concat())
}

#[test]
fn small_blocks_in_a_frame_of_4_mib_blocks_allocate_what_they_decode() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // 366 blocks, 6 MB: the room they claim adds up to 1.4 GiB.
    let (f, content) = small_blocks_frame(366);
    assert!(f.len() > 6_000_000, "{}", f.len());
    for (how, decode) in frame_decodes(&f) {
        let (r, peak) = measure(decode);
        let out = r.unwrap_or_else(|e| panic!("{how}: {e}"));
        assert!(out == content, "{how}: wrong output");
        drop(out);
        eprintln!(
            "{how}: peak {} KiB for {} KiB decoded",
            peak >> 10,
            content.len() >> 10
        );
        assert!(
            peak < 64 << 20,
            "{how}: {peak} bytes allocated at the peak, decoding {} bytes",
            content.len()
        );
    }
}

#[test]
fn block_buffers_are_sized_by_what_the_block_can_produce() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let data = lzkit_testkit::text(10_000, 1);
    let packed = block::compress(&data, 1);
    let dict = b"a dictionary".as_slice();
    let (r, peak) = measure(|| block::decompress(&packed, 1 << 30));
    assert!(r.expect("decodes") == data);
    assert!(
        peak < 4 << 20,
        "block::decompress: {peak} bytes at the peak"
    );
    let mut d = block::Decoder::new();
    let (r, peak) = measure(|| d.decompress_with_dict(&packed, dict, 1 << 30));
    assert!(r.expect("decodes") == data);
    assert!(
        peak < 4 << 20,
        "decompress_with_dict: {peak} bytes at the peak"
    );
}

#[test]
fn refused_allocations_are_errors() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // 48 MiB of zeros: a frame of a few hundred KiB, a block of 200 KiB.
    let data = vec![0u8; 48 << 20];
    let f = frame::compress(&data, &frame::FrameOptions::new());
    let packed = block::compress(&data, 1);
    drop(data);
    LIMIT.store(CURRENT.load(SeqCst) + (16 << 20), SeqCst);
    let mut results = Vec::new();
    for (how, decode) in frame_decodes(&f) {
        results.push((how, decode().map(|v| v.len())));
    }
    results.push((
        "block::decompress",
        block::decompress(&packed, 64 << 20).map(|v| v.len()),
    ));
    LIMIT.store(usize::MAX, SeqCst);
    for (how, r) in results {
        match r {
            Err(Error::OutOfMemory { bytes }) => assert!(bytes >= BIG, "{how}: {bytes}"),
            // The streaming decoders hand their output to the caller's
            // `read_to_end`, whose vector fails to grow (std's error).
            Err(Error::Io(e)) if how.starts_with("FrameDecoder") => {
                assert_eq!(e.kind(), std::io::ErrorKind::OutOfMemory, "{how}")
            }
            other => panic!("{how}: {other:?}"),
        }
    }
}

/// A legacy stream of 70,000 two-byte blocks (one literal each): every
/// legacy block may hold 8 MiB, and zero-filling that room per block made
/// decoding such a 420 KB input take seconds (found by the fuzzers). Each
/// block now gets the room its size allows, so memory stays near the
/// 70,000 bytes decoded.
#[test]
fn tiny_legacy_blocks_get_the_room_they_can_fill() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut f = frame::LEGACY_MAGIC.to_le_bytes().to_vec();
    for _ in 0..70_000 {
        f.extend_from_slice(&[2, 0, 0, 0, 0x10, b'x']);
    }
    for (how, decode) in frame_decodes(&f) {
        // Once unmeasured: the first parallel decode of the process builds
        // the thread pool, whose own allocations are not the decoder's.
        drop(decode());
        let (r, peak) = measure(decode);
        let out = r.unwrap_or_else(|e| panic!("{how}: {e}"));
        assert!(
            out.len() == 70_000 && out.iter().all(|&b| b == b'x'),
            "{how}"
        );
        drop(out);
        assert!(peak < 4 << 20, "{how}: {peak} bytes allocated at the peak");
    }
}
