//! Decode a zstd file to standard output: `cargo run --example unzstd -- FILE [DICT]`.
//! Reads the file whole and decodes it one shot (`--stream`: through
//! `FrameDecoder`).

use std::io::{Read, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stream = args.iter().any(|a| a == "--stream");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let Some(path) = files.first() else {
        return Err("usage: unzstd [--stream] FILE [DICT]".into());
    };
    let mut decoder = lzkit::zstd::Decoder::new();
    if let Some(dict) = files.get(1) {
        decoder = decoder.with_dictionary(lzkit::zstd::Dictionary::new(&std::fs::read(dict)?)?);
    }
    let out = if stream {
        let mut out = Vec::new();
        lzkit::zstd::FrameDecoder::with_decoder(std::fs::File::open(path)?, decoder)
            .read_to_end(&mut out)?;
        out
    } else {
        decoder.decompress(&std::fs::read(path)?)?
    };
    std::io::stdout().lock().write_all(&out)?;
    Ok(())
}
