//! Byte shuffle kernels: a transpose of the `n x W` byte matrix of `n`
//! elements of `W` bytes into `W` planes of `n` bytes, and back.
//!
//! Both directions work on blocks of [`BLOCK`] elements held in fixed-size
//! arrays, so that the compiler vectorizes each block; the elements past
//! the last whole block go through the per-byte rule one by one. There are
//! two forms of each block's work, and which the compiler vectorizes better
//! depends on the width and the vectors at hand (measured on Zen 4):
//!
//! * [`encode`], [`decode`]: a byte transpose. Best with AVX2 and AVX-512
//!   for widths 4 and 8 (it becomes byte shuffles).
//! * [`words::encode2`] and its kin: each element as an integer, built
//!   from (or split into) its bytes with shifts. Best for width 2 always,
//!   and for every width with the baseline's 128-bit vectors.

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

/// The integer forms of the transposes, one pair per element width: the
/// element is an unsigned integer whose little-endian byte `j` goes to (or
/// comes from) plane `j`.
pub(super) mod words {
    use super::BLOCK;

    /// `encode$w` and `decode$w`, the forms of [`super::encode`] and
    /// [`super::decode`] for elements of type `$t`.
    macro_rules! kernels {
        ($encode:ident, $decode:ident, $t:ty) => {
            /// [`super::encode`] for elements of this width, by shifts.
            #[inline(always)]
            pub(in super::super) fn $encode(src: &[u8], dst: &mut [u8]) {
                const W: usize = size_of::<$t>();
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
                        let v = <$t>::from_le_bytes(*elem);
                        for (j, plane) in planes.iter_mut().enumerate() {
                            plane[k] = (v >> (8 * j)) as u8;
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

            /// [`super::decode`] for elements of this width, by shifts.
            #[inline(always)]
            pub(in super::super) fn $decode(src: &[u8], dst: &mut [u8]) {
                const W: usize = size_of::<$t>();
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
                        let mut v: $t = 0;
                        for (j, plane) in planes.iter().enumerate() {
                            v |= <$t>::from(plane[k]) << (8 * j);
                        }
                        *elem = v.to_le_bytes();
                    }
                }
                let start = blocks.len() * BLOCK;
                for (k, elem) in rest.iter_mut().enumerate() {
                    for (j, byte) in elem.iter_mut().enumerate() {
                        *byte = body[j * n + start + k];
                    }
                }
            }
        };
    }

    kernels!(encode2, decode2, u16);
    kernels!(encode4, decode4, u32);
    kernels!(encode8, decode8, u64);
}
