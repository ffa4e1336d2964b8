//! Driving the adaptive block decoder over known work: the decoder-variant
//! test inputs cut into blocks, and a loop that decodes them (checking
//! every block) until a condition on the decoder holds.

use crate::data::decoder_shapes;
use lzkit::lz4::block::{self, Decoder};

/// Blocks and their compressed forms (level 1), in the same order.
pub type Work = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// [`decoder_shapes`], concatenated and cut into blocks of `size` bytes,
/// with their compressed forms.
pub fn shape_blocks(size: usize) -> Work {
    let data: Vec<u8> = decoder_shapes().concat();
    let blocks: Vec<Vec<u8>> = data.chunks(size).map(<[u8]>::to_vec).collect();
    let compressed = blocks.iter().map(|b| block::compress(b, 1)).collect();
    (blocks, compressed)
}

/// 64 KiB blocks of [`decoder_shapes`] and their compressed forms.
pub fn big_blocks() -> Work {
    shape_blocks(64 << 10)
}

/// Decode the blocks of `work` over and over with `d`, checking each, until
/// `done` says so after a block (or `limit` bytes are out); returns the
/// bytes decoded.
pub fn decode_until(
    d: &mut Decoder,
    (blocks, compressed): &Work,
    limit: usize,
    mut done: impl FnMut(&Decoder, usize) -> bool,
) -> usize {
    let mut out = vec![0u8; blocks.iter().map(Vec::len).max().unwrap_or(0)];
    let mut total = 0;
    while total < limit {
        for (b, c) in blocks.iter().zip(compressed) {
            let n = d.decompress_into(c, &mut out).unwrap();
            assert_eq!(&out[..n], &b[..]);
            total += n;
            if done(d, total) {
                return total;
            }
        }
    }
    total
}
