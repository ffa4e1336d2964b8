//! A reused adaptive block decoder per stream: a `block::Decoder` times the
//! decode variants on the blocks it sees and settles on the fastest for
//! that stream's data. Keep one per stream (not one per block, and not one
//! shared by streams of different kinds of data).
//!
//! Run with `cargo run -p lzkit --example adaptive_decoder`.

use lzkit::lz4::block::{self, Decoder};

/// A stream of independently compressed blocks, and what they decode to.
struct Stream {
    name: &'static str,
    blocks: Vec<Vec<u8>>,
    original: Vec<Vec<u8>>,
}

fn main() -> Result<(), lzkit::Error> {
    let streams = [
        stream("long runs", 1, |i| (i / 300 % 7) as u8),
        stream("short matches", 9, |i| {
            (i.wrapping_mul(2_654_435_761) >> 7) as u8 % 5 + (i / 5 % 3) as u8
        }),
    ];
    for s in &streams {
        // One decoder for the whole stream, reused for every block.
        let mut decoder = Decoder::new();
        let mut out = vec![0u8; 64 << 10];
        for _pass in 0..20 {
            for (packed, original) in s.blocks.iter().zip(&s.original) {
                let n = decoder.decompress_into(packed, &mut out)?;
                assert_eq!(&out[..n], &original[..], "{}", s.name);
            }
        }
        println!(
            "{}: {} blocks decoded 20 times, preferred variant {:?}",
            s.name,
            s.blocks.len(),
            decoder.preferred()
        );
    }
    println!("round trips verified");
    Ok(())
}

/// 64 blocks of 64 KiB from `byte(i)`, compressed at `level`.
fn stream(name: &'static str, level: i32, byte: impl Fn(usize) -> u8) -> Stream {
    let original: Vec<Vec<u8>> = (0..64)
        .map(|b| (0..64 << 10).map(|i| byte(b * (64 << 10) + i)).collect())
        .collect();
    let blocks = original.iter().map(|o| block::compress(o, level)).collect();
    Stream {
        name,
        blocks,
        original,
    }
}
