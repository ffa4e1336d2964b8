//! Byte shuffle kernels: a transpose of the `n x W` byte matrix of `n`
//! elements of `W` bytes into `W` planes of `n` bytes, and back.
//!
//! Both directions work on blocks of [`BLOCK`] elements held in fixed-size
//! arrays, so that the compiler turns each block's transpose into vector
//! shuffles; the elements past the last whole block go through the same
//! per-byte rule one by one.

/// Elements per block of the transposes.
const BLOCK: usize = 32;

/// Shuffle the whole elements of `src` into `dst` (planes of `n` bytes,
/// `n = src.len() / W`) and copy the `src.len() % W` tail bytes.
/// `dst.len() == src.len()`.
#[inline(always)]
pub(super) fn encode<const W: usize>(src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let (elems, tail) = src.as_chunks::<W>();
    let n = elems.len();
    let (body, dst_tail) = dst.split_at_mut(n * W);
    dst_tail.copy_from_slice(tail);
    if n == 0 {
        return;
    }
    let (blocks, rest) = elems.as_chunks::<BLOCK>();
    for (b, block) in blocks.iter().enumerate() {
        let start = b * BLOCK;
        let mut planes = [[0u8; BLOCK]; W];
        for (k, elem) in block.iter().enumerate() {
            for (plane, &byte) in planes.iter_mut().zip(elem) {
                plane[k] = byte;
            }
        }
        for (j, plane) in planes.iter().enumerate() {
            body[j * n + start..][..BLOCK].copy_from_slice(plane);
        }
    }
    let start = blocks.len() * BLOCK;
    for (k, elem) in rest.iter().enumerate() {
        for (j, &byte) in elem.iter().enumerate() {
            body[j * n + start + k] = byte;
        }
    }
}

/// The inverse of [`encode`]: gather byte `i` of each of the `W` planes of
/// `src` into element `i` of `dst`, and copy the tail bytes.
/// `dst.len() == src.len()`.
#[inline(always)]
pub(super) fn decode<const W: usize>(src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let n = src.len() / W;
    let (body, tail) = src.split_at(n * W);
    let (elems, dst_tail) = dst.as_chunks_mut::<W>();
    dst_tail.copy_from_slice(tail);
    if n == 0 {
        return;
    }
    let (blocks, rest) = elems.as_chunks_mut::<BLOCK>();
    for (b, block) in blocks.iter_mut().enumerate() {
        let start = b * BLOCK;
        let mut planes = [[0u8; BLOCK]; W];
        for (j, plane) in planes.iter_mut().enumerate() {
            plane.copy_from_slice(&body[j * n + start..][..BLOCK]);
        }
        for (k, elem) in block.iter_mut().enumerate() {
            for (byte, plane) in elem.iter_mut().zip(&planes) {
                *byte = plane[k];
            }
        }
    }
    let start = blocks.len() * BLOCK;
    for (k, elem) in rest.iter_mut().enumerate() {
        for (j, byte) in elem.iter_mut().enumerate() {
            *byte = body[j * n + start + k];
        }
    }
}
