//! The LZ4 block format's limits, named once with the reason for each value
//! (LZ4 block format description, "End of block restrictions" and "Maximum
//! input size"), and the compressed-size bound every buffer is sized from.

/// LZ4 block format: the shortest match is 4 bytes (the token's match
/// nibble stores the length minus this).
pub const MIN_MATCH: usize = 4;
/// LZ4 block format: the last 5 bytes of a block are always literals.
pub const LAST_LITERALS: usize = 5;
/// LZ4 block format: the last match must start at least 12 bytes before the
/// end of the block (a match needs 4 bytes, then 8 more, so that a decoder's
/// wild copies of the last match stay inside the block's own last literals).
pub const MF_LIMIT: usize = 12;
/// Largest match offset: offsets are 16-bit, so the window is 64 KiB - 1.
pub const MAX_DISTANCE: usize = 65_535;
/// Largest input the block format accepts (`LZ4_MAX_INPUT_SIZE`).
pub const MAX_INPUT_SIZE: usize = 0x7E00_0000;

/// Upper bound of the compressed size of `n` input bytes (incompressible data
/// grows by one length byte per 255 literals, plus the token and slack).
/// Returns 0 when `n` exceeds [`MAX_INPUT_SIZE`].
///
/// ```
/// use lzkit::lz4::block::{compress, max_compressed_size};
///
/// let data = b"no repetition here";
/// assert!(compress(data, 1).len() <= max_compressed_size(data.len()));
/// ```
pub const fn max_compressed_size(n: usize) -> usize {
    if n > MAX_INPUT_SIZE {
        0
    } else {
        n + n / 255 + 16
    }
}

/// More than a block of `len` compressed bytes can decode to: each input
/// byte adds at most 255 bytes of output (a 255-run length byte; a token
/// and an offset decode to at most 19), plus 64 bytes of slack. A decode
/// buffer at least this large accepts and rejects exactly what any larger
/// one does (the end conditions compare output positions, at most 255
/// times the input read, with the capacity minus at most 32), so a larger
/// capacity can be cut down to this without changing any result.
///
/// ```
/// assert_eq!(lzkit::lz4::block::max_decoded_size(10), 10 * 255 + 64);
/// ```
pub const fn max_decoded_size(len: usize) -> usize {
    len.saturating_mul(255).saturating_add(64)
}
