//! Multithreaded frames: compression jobs run on a pool of threads, with
//! output byte-identical whatever the thread count; independent-block
//! frames decode on several threads too (one-shot or streaming).
//!
//! Run with `cargo run -p lzkit --example multithreaded_frames`.

use lzkit::lz4::frame::{
    self, BlockSize, DecodeOptions, FrameDecoder, FrameOptions, effective_threads,
};
use std::io::Read;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = sample(24 << 20);
    let threads = effective_threads(0);
    let opts = FrameOptions::new().level(3).block_size(BlockSize::Max1MB);

    let t = Instant::now();
    let serial = frame::compress(&data, &opts.clone().threads(1));
    let serial_time = t.elapsed();
    let t = Instant::now();
    let parallel = frame::compress(&data, &opts.clone().threads(0));
    let parallel_time = t.elapsed();
    assert_eq!(
        parallel, serial,
        "the thread count never changes the output"
    );
    println!(
        "compressed {} MiB to {} bytes: 1 thread {serial_time:?}, {threads} threads {parallel_time:?}",
        data.len() >> 20,
        serial.len()
    );

    // One-shot parallel decoding.
    let back = frame::decompress_with(&parallel, &DecodeOptions::new().threads(0))?;
    assert_eq!(back, data);

    // Streaming parallel decoding: reads ahead while workers decode.
    let mut back = Vec::new();
    FrameDecoder::with_threads(&parallel[..], 0).read_to_end(&mut back)?;
    assert_eq!(back, data);
    println!("round trips verified");
    Ok(())
}

/// Compressible data with some variety.
fn sample(len: usize) -> Vec<u8> {
    let mut x = 1u64;
    (0..len)
        .map(|i| {
            if i % 4096 == 0 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            }
            (((i as u64 / 16) ^ (x >> 40)) % 64) as u8 + b' '
        })
        .collect()
}
