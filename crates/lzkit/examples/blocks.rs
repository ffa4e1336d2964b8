//! The LZ4 block format: compress and decompress single blocks at a few
//! levels, into new vectors and into caller buffers, with and without a
//! dictionary. Blocks have no header: the caller keeps the decoded size.
//!
//! Run with `cargo run -p lzkit --example blocks`.

use lzkit::lz4::Level;
use lzkit::lz4::block;

fn main() -> Result<(), lzkit::Error> {
    let data = sample_text(200_000);

    for level in [Level::fast(4), Level::DEFAULT, Level::new(9), Level::BEST] {
        let packed = block::compress(&data, level);
        let back = block::decompress(&packed, data.len())?;
        assert_eq!(back, data, "level {level}");
        println!("level {level:>3}: {} -> {} bytes", data.len(), packed.len());
    }

    // Into caller buffers: size the output with max_compressed_size.
    let mut packed = vec![0u8; block::max_compressed_size(data.len())];
    let n = block::compress_into(&data, &mut packed, 1)?;
    let mut out = vec![0u8; data.len()];
    let m = block::decompress_into(&packed[..n], &mut out)?;
    assert_eq!(&out[..m], &data[..]);

    // A dictionary helps small blocks that resemble it.
    let dict = sample_text(32_768);
    let message = &data[100_000..100_400];
    let plain = block::compress(message, 1);
    let with_dict = block::compress_with_dict(message, &dict, 1);
    let mut out = vec![0u8; message.len()];
    let m = block::decompress_with_dict_into(&with_dict, &mut out, &dict)?;
    assert_eq!(&out[..m], message);
    println!(
        "400-byte message: {} bytes alone, {} bytes with a dictionary",
        plain.len(),
        with_dict.len()
    );

    // Corrupt input is an error, never a panic.
    assert!(block::decompress(&packed[..n / 2], data.len()).is_err());
    println!("round trips verified");
    Ok(())
}

/// Text-like data made of a few hundred words.
fn sample_text(len: usize) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "block", "frame", "match", "offset", "literal", "token", "window", "history", "level",
        "checksum", "stream", "decoder",
    ];
    let mut out = Vec::with_capacity(len + 16);
    let mut x = 0x2545_f491_u32;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out.extend_from_slice(WORDS[x as usize % WORDS.len()].as_bytes());
        out.push(if x.is_multiple_of(11) { b'\n' } else { b' ' });
    }
    out.truncate(len);
    out
}
