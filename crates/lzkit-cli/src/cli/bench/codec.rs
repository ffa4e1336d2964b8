//! Cutting an input into independent LZ4 blocks and compressing them, with
//! the reference library (lz4 1.10 through `lz4-sys`) or lzkit; and the
//! reference library's safe decoder, the baseline every speed is compared to.
//!
//! The `unsafe` blocks here are the only ones of the bench: calls into C.

use std::ffi::{c_char, c_int};
use std::ops::Range;

use lz4_sys::{
    LZ4_compress_HC, LZ4_compress_default, LZ4_compress_fast, LZ4_compressBound,
    LZ4_decompress_safe, LZ4_versionNumber,
};
use lzkit::lz4::block;

/// Highest compression level of both libraries (`LZ4HC_CLEVEL_MAX`).
pub const MAX_LEVEL: i32 = 12;

/// Who compresses the blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compressor {
    /// lz4 1.10 through `lz4-sys`: what most LZ4 data was written by.
    Ref,
    /// lzkit's own compressor.
    Lzkit,
}

impl Compressor {
    /// Name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Compressor::Ref => "ref",
            Compressor::Lzkit => "lzkit",
        }
    }

    /// Which library and entry point compress at `level`, for the report.
    pub fn describe(self, level: i32) -> String {
        match self {
            Compressor::Ref => format!("lz4 {} {}", ref_version(), ref_entry_point(level)),
            Compressor::Lzkit => format!(
                "lzkit {} block::compress_into level {level}",
                env!("CARGO_PKG_VERSION")
            ),
        }
    }
}

/// One block: where its compressed bytes lie in [`Blocks::data`], and where
/// its decoded bytes lie in the original input.
#[derive(Debug, Clone)]
pub struct Block {
    /// Range in [`Blocks::data`].
    pub compressed: Range<usize>,
    /// Range in the original input.
    pub original: Range<usize>,
}

/// An input compressed as independent blocks, stored back to back as in a
/// column file, so decoders read them in order from one buffer.
#[derive(Debug, Clone)]
pub struct Blocks {
    /// The compressed blocks, concatenated.
    pub data: Vec<u8>,
    /// Each block's place.
    pub blocks: Vec<Block>,
}

/// Compress `input` in blocks of `block_size` bytes (the last one shorter).
/// Blocks are always LZ4, never stored raw even when they do not shrink, as
/// ClickHouse's LZ4 codec writes them: incompressible data then measures a
/// decoder's long-literal copy.
pub fn compress_blocks(
    input: &[u8],
    block_size: usize,
    compressor: Compressor,
    level: i32,
) -> Result<Blocks, String> {
    let mut scratch = vec![0u8; compress_bound(block_size)];
    let mut data = Vec::with_capacity(input.len() / 2);
    let mut blocks = Vec::with_capacity(input.len().div_ceil(block_size));
    for (i, chunk) in input.chunks(block_size).enumerate() {
        let n = match compressor {
            Compressor::Ref => ref_compress(chunk, &mut scratch, level),
            Compressor::Lzkit => block::compress_into(chunk, &mut scratch, level).ok(),
        }
        .ok_or_else(|| format!("{} compressor failed on block {i}", compressor.name()))?;
        let start = data.len();
        data.extend_from_slice(&scratch[..n]);
        let offset = i * block_size;
        blocks.push(Block {
            compressed: start..data.len(),
            original: offset..offset + chunk.len(),
        });
    }
    Ok(Blocks { data, blocks })
}

/// Room for one compressed block of `len` bytes from either compressor.
fn compress_bound(len: usize) -> usize {
    // SAFETY: LZ4_compressBound is a pure function of its integer argument;
    // `len` is at most the largest block size, far below c_int::MAX.
    let c_bound = unsafe { LZ4_compressBound(len as c_int) };
    usize::try_from(c_bound)
        .unwrap_or(0)
        .max(block::max_compressed_size(len))
}

/// The reference compressor at `level`, with lz4's meaning of levels:
/// `<= 0` is the fast compressor with acceleration `1 - level`, 1 is
/// `LZ4_compress_default`, 2 and up go through `LZ4_compress_HC` (2 is lz4
/// 1.10's middle level, 3..=12 hash-chain and optimal parsing). Returns the
/// compressed size, or `None` if C reported failure.
fn ref_compress(src: &[u8], dst: &mut [u8], level: i32) -> Option<usize> {
    let (s, d) = (
        src.as_ptr().cast::<c_char>(),
        dst.as_mut_ptr().cast::<c_char>(),
    );
    let (slen, dlen) = (
        c_int::try_from(src.len()).ok()?,
        c_int::try_from(dst.len()).ok()?,
    );
    // SAFETY: `s` and `d` point into live slices of `slen` and `dlen`
    // bytes, which do not overlap; each of these C functions reads at most
    // `slen` bytes from `s` and writes at most `dlen` bytes to `d`.
    let n = unsafe {
        match level {
            ..=0 => LZ4_compress_fast(s, d, slen, dlen, 1 - level),
            1 => LZ4_compress_default(s, d, slen, dlen),
            _ => LZ4_compress_HC(s, d, slen, dlen, level.min(MAX_LEVEL)),
        }
    };
    usize::try_from(n).ok().filter(|&n| n > 0)
}

/// The C function that [`ref_compress`] calls at `level`.
fn ref_entry_point(level: i32) -> String {
    match level {
        ..=0 => format!("LZ4_compress_fast (acceleration {})", 1 - level),
        1 => "LZ4_compress_default".into(),
        _ => format!("LZ4_compress_HC level {}", level.min(MAX_LEVEL)),
    }
}

/// `LZ4_decompress_safe`: decode `src` into `dst` (capacity `dst.len()`).
/// Returns the decoded size, or `None` for a malformed block.
#[inline]
pub fn ref_decompress(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let slen = c_int::try_from(src.len()).ok()?;
    let dlen = c_int::try_from(dst.len()).ok()?;
    // SAFETY: both pointers come from live, non-overlapping slices of the
    // lengths passed with them; the safe decoder reads at most `slen` bytes
    // and writes at most `dlen` bytes, whatever the input.
    let n = unsafe {
        LZ4_decompress_safe(
            src.as_ptr().cast::<c_char>(),
            dst.as_mut_ptr().cast::<c_char>(),
            slen,
            dlen,
        )
    };
    usize::try_from(n).ok()
}

/// Version of the linked lz4 library, as "1.10.0".
pub fn ref_version() -> String {
    // SAFETY: takes no arguments and returns a constant.
    let v = unsafe { LZ4_versionNumber() };
    format!("{}.{}.{}", v / 10_000, v / 100 % 100, v % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..200_000u32)
            .flat_map(|i| (i / 7).to_le_bytes())
            .collect()
    }

    #[test]
    fn blocks_tile_the_input_and_decode() {
        let input = sample();
        for (compressor, level) in [
            (Compressor::Ref, 1),
            (Compressor::Ref, -3),
            (Compressor::Ref, 9),
            (Compressor::Lzkit, 1),
        ] {
            let b = compress_blocks(&input, 65_536, compressor, level).unwrap();
            assert_eq!(b.blocks.len(), input.len().div_ceil(65_536));
            let mut out = vec![0u8; input.len()];
            let mut end = 0;
            for blk in &b.blocks {
                assert_eq!(blk.original.start, end);
                end = blk.original.end;
                let n = ref_decompress(
                    &b.data[blk.compressed.clone()],
                    &mut out[blk.original.clone()],
                );
                assert_eq!(n, Some(blk.original.len()));
            }
            assert_eq!(end, input.len());
            assert_eq!(out, input, "{compressor:?} level {level}");
        }
    }

    #[test]
    fn version_and_labels() {
        assert!(ref_version().starts_with("1."));
        assert!(
            Compressor::Ref
                .describe(9)
                .contains("LZ4_compress_HC level 9")
        );
        assert!(Compressor::Ref.describe(1).contains("LZ4_compress_default"));
        assert!(Compressor::Ref.describe(-2).contains("acceleration 3"));
    }

    #[test]
    fn malformed_block_is_rejected() {
        let mut out = [0u8; 64];
        // A token promising 15+ literals with nothing after it.
        assert_eq!(ref_decompress(&[0xF0], &mut out), None);
    }
}
