//! Cutting an input into independent LZ4 blocks and compressing them, with
//! the reference library (lz4 1.10 through `lz4-sys`) or lzkit; and the
//! reference library's safe decoder, the baseline every speed is compared to.
//!
//! The calls into C go through [`super::reference`] (the `c-reference`
//! feature).

use std::ops::Range;

use super::reference as c_ref;
use lzkit::lz4::block;

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

    /// The default: the C library when it is built in, else lzkit (whose
    /// level 1 writes the blocks `LZ4_compress_default` writes on 64-bit
    /// targets).
    pub fn default_for_build() -> Compressor {
        match c_ref::BUILT_IN {
            true => Compressor::Ref,
            false => Compressor::Lzkit,
        }
    }

    /// Which library and entry point compress at `level`, for the report.
    pub fn describe(self, level: i32) -> String {
        match self {
            Compressor::Ref => format!("lz4 {} {}", ref_version(), c_ref::entry_point(level)),
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
    let mut scratch = vec![0u8; c_ref::bound_for_either(block_size)];
    let mut data = Vec::with_capacity(input.len() / 2);
    let mut blocks = Vec::with_capacity(input.len().div_ceil(block_size));
    for (i, chunk) in input.chunks(block_size).enumerate() {
        let n = match compressor {
            Compressor::Ref => c_ref::compress_into(chunk, &mut scratch, level),
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

/// `LZ4_decompress_safe`: decode `src` into `dst` (capacity `dst.len()`).
/// Returns the decoded size, or `None` for a malformed block.
#[inline]
pub fn ref_decompress(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    c_ref::decompress_into(src, dst)
}

/// Version of the linked lz4 library, as "1.10.0".
pub fn ref_version() -> String {
    c_ref::version()
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
