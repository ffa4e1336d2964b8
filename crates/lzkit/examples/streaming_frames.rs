//! Streaming frames: a `FrameEncoder` wraps any `Write`, a `FrameDecoder`
//! any `Read`, with memory bounded by the block size. The output is a
//! standard LZ4 frame that the `lz4` command reads.
//!
//! Run with `cargo run -p lzkit --example streaming_frames`.

use lzkit::lz4::frame::{BlockMode, BlockSize, FrameDecoder, FrameEncoder, FrameOptions};
use std::io::{self, Read, Write};

fn main() -> io::Result<()> {
    let opts = FrameOptions::new()
        .level(9)
        .block_size(BlockSize::Max64KB)
        .block_mode(BlockMode::Linked)
        .block_checksum(true);

    // Write a log line by line; `finish` writes the end mark and checksum.
    let mut original = Vec::new();
    let mut enc = FrameEncoder::new(Vec::new(), &opts);
    for i in 0..50_000 {
        let line = format!("{i:>6} GET /item/{} 200 {}ms\n", i % 977, i % 31);
        original.extend_from_slice(line.as_bytes());
        enc.write_all(line.as_bytes())?;
    }
    let packed = enc.finish()?;
    println!("{} bytes of log -> {} bytes", original.len(), packed.len());

    // An encoder that finishes itself when dropped, behind a `dyn Write`.
    let mut packed_again = Vec::new();
    {
        let mut w: Box<dyn Write + '_> =
            Box::new(FrameEncoder::new(&mut packed_again, &opts).auto_finish());
        w.write_all(&original)?;
    }
    assert_eq!(packed_again, packed, "same options, same bytes");

    // Read back in small pieces, as from a socket.
    let mut dec = FrameDecoder::new(&packed[..]);
    let mut back = Vec::new();
    let mut buf = [0u8; 1000];
    loop {
        let n = dec.read(&mut buf)?;
        if n == 0 {
            break;
        }
        back.extend_from_slice(&buf[..n]);
    }
    assert_eq!(back, original);
    assert_eq!(dec.total_in(), packed.len() as u64);
    println!("round trip verified");
    Ok(())
}
