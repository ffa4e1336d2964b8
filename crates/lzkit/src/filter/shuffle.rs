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
//!   from (or split into) its bytes with shifts. Best for width 2 with AVX2
//!   and AVX-512, and the choice for 128-bit vectors other than x86-64's.
//!
//! On x86-64, [`sse2`] does the transposes with SSE2 byte interleaves: the
//! choice of the baseline (where the compiler vectorized the two forms
//! above at 3 to 13 GB/s for widths 4 and 8), and for width 8 with AVX2.

/// Elements per block of the transposes.
const BLOCK: usize = 32;

/// Shuffle the whole elements of `src` into `dst` (planes of `n` bytes,
/// `n = src.len() / W`) and copy the `src.len() % W` tail bytes.
/// `dst.len() == src.len()`.
#[inline(always)]
pub(super) fn encode<const W: usize>(src: &[u8], dst: &mut [u8]) {
    encode_blocks::<W, BLOCK>(src, dst, |block, planes| {
        for (k, elem) in block.iter().enumerate() {
            for (plane, &byte) in planes.iter_mut().zip(elem) {
                plane[k] = byte;
            }
        }
    });
}

/// The inverse of [`encode`]: gather byte `i` of each of the `W` planes of
/// `src` into element `i` of `dst`, and copy the tail bytes.
/// `dst.len() == src.len()`.
#[inline(always)]
pub(super) fn decode<const W: usize>(src: &[u8], dst: &mut [u8]) {
    decode_blocks::<W, BLOCK>(src, dst, |planes, block| {
        for (k, elem) in block.iter_mut().enumerate() {
            for (byte, plane) in elem.iter_mut().zip(planes) {
                *byte = plane[k];
            }
        }
    });
}

/// The frame of every form of [`encode`]: the tail bytes copied, then
/// `split` of each block of `B` elements into its `W` plane pieces (held
/// in arrays, so that the compiler vectorizes it), and the elements past
/// the last whole block one byte at a time.
#[inline(always)]
fn encode_blocks<const W: usize, const B: usize>(
    src: &[u8],
    dst: &mut [u8],
    split: impl Fn(&[[u8; W]; B], &mut [[u8; B]; W]),
) {
    debug_assert_eq!(src.len(), dst.len());
    let (elems, tail) = src.as_chunks::<W>();
    let n = elems.len();
    let (body, dst_tail) = dst.split_at_mut(n * W);
    dst_tail.copy_from_slice(tail);
    if n == 0 {
        return;
    }
    let (blocks, rest) = elems.as_chunks::<B>();
    for (b, block) in blocks.iter().enumerate() {
        let start = b * B;
        let mut planes = [[0u8; B]; W];
        split(block, &mut planes);
        for (j, plane) in planes.iter().enumerate() {
            body[j * n + start..][..B].copy_from_slice(plane);
        }
    }
    let start = blocks.len() * B;
    for (k, elem) in rest.iter().enumerate() {
        for (j, &byte) in elem.iter().enumerate() {
            body[j * n + start + k] = byte;
        }
    }
}

/// The frame of both forms of [`decode`]: the tail bytes copied, then
/// `join` of each block's `W` plane pieces into its [`B`] elements,
/// and the elements past the last whole block one byte at a time.
#[inline(always)]
fn decode_blocks<const W: usize, const B: usize>(
    src: &[u8],
    dst: &mut [u8],
    join: impl Fn(&[[u8; B]; W], &mut [[u8; W]; B]),
) {
    debug_assert_eq!(src.len(), dst.len());
    let n = src.len() / W;
    let (body, tail) = src.split_at(n * W);
    let (elems, dst_tail) = dst.as_chunks_mut::<W>();
    dst_tail.copy_from_slice(tail);
    if n == 0 {
        return;
    }
    let (blocks, rest) = elems.as_chunks_mut::<B>();
    for (b, block) in blocks.iter_mut().enumerate() {
        let start = b * B;
        let mut planes = [[0u8; B]; W];
        for (j, plane) in planes.iter_mut().enumerate() {
            plane.copy_from_slice(&body[j * n + start..][..B]);
        }
        join(&planes, block);
    }
    let start = blocks.len() * B;
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
    use super::{BLOCK, decode_blocks, encode_blocks};

    /// `encode$w` and `decode$w`, the forms of [`super::encode`] and
    /// [`super::decode`] for elements of type `$t`.
    macro_rules! kernels {
        ($encode:ident, $decode:ident, $t:ty) => {
            /// [`super::encode`] for elements of this width, by shifts.
            #[inline(always)]
            pub(in super::super) fn $encode(src: &[u8], dst: &mut [u8]) {
                encode_blocks::<{ size_of::<$t>() }, BLOCK>(src, dst, |block, planes| {
                    for (k, elem) in block.iter().enumerate() {
                        let v = <$t>::from_le_bytes(*elem);
                        for (j, plane) in planes.iter_mut().enumerate() {
                            plane[k] = (v >> (8 * j)) as u8;
                        }
                    }
                });
            }

            /// [`super::decode`] for elements of this width, by shifts.
            #[inline(always)]
            pub(in super::super) fn $decode(src: &[u8], dst: &mut [u8]) {
                decode_blocks::<{ size_of::<$t>() }, BLOCK>(src, dst, |planes, block| {
                    for (k, elem) in block.iter_mut().enumerate() {
                        let mut v: $t = 0;
                        for (j, plane) in planes.iter().enumerate() {
                            v |= <$t>::from(plane[k]) << (8 * j);
                        }
                        *elem = v.to_le_bytes();
                    }
                });
            }
        };
    }

    kernels!(encode2, decode2, u16);
    kernels!(encode4, decode4, u32);
    kernels!(encode8, decode8, u64);
}

/// The transposes with SSE2 (part of the x86-64 baseline), 16 elements at
/// a time: one 16-byte vector per plane, `W` vectors of elements.
///
/// A byte's place in a block is a 7-bit (width 8), 6-bit (4) or 5-bit (2)
/// address, the vector's index above the byte's index in it. One
/// [`round`] (vectors `i` and `i + W/2` interleaved byte by byte) rotates
/// that address left by one bit. In the elements, the address is the
/// element's 4-bit index above the byte's index in the element; in the
/// planes, it is the other way round. So 4 rounds take elements to planes,
/// and `log2(W)` rounds take planes to elements.
#[cfg(target_arch = "x86_64")]
pub(super) mod sse2 {
    use core::arch::x86_64::*;

    /// Elements per block: one 16-byte vector per plane.
    const BLOCK: usize = 16;

    /// One round of the transposes: vectors `i` and `i + W/2` interleaved
    /// byte by byte into vectors `2i` and `2i + 1`.
    #[inline(always)]
    fn round<const W: usize>(v: [__m128i; W]) -> [__m128i; W] {
        let mut out = v;
        for i in 0..W / 2 {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe {
                out[2 * i] = _mm_unpacklo_epi8(v[i], v[i + W / 2]);
                out[2 * i + 1] = _mm_unpackhi_epi8(v[i], v[i + W / 2]);
            }
        }
        out
    }

    /// [`super::encode`] with SSE2.
    #[inline(always)]
    pub(in super::super) fn encode<const W: usize>(src: &[u8], dst: &mut [u8]) {
        super::encode_blocks::<W, BLOCK>(src, dst, |block, planes| {
            let bytes = block.as_flattened();
            let mut v: [__m128i; W] = core::array::from_fn(|k| {
                let chunk = &bytes[16 * k..][..16];
                // SAFETY: `chunk` is 16 readable bytes; no alignment needed.
                unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
            });
            for _ in 0..4 {
                v = round(v);
            }
            for (plane, x) in planes.iter_mut().zip(&v) {
                // SAFETY: `plane` is 16 writable bytes; no alignment needed.
                unsafe { _mm_storeu_si128(plane.as_mut_ptr().cast(), *x) };
            }
        });
    }

    /// [`super::decode`] with SSE2.
    #[inline(always)]
    pub(in super::super) fn decode<const W: usize>(src: &[u8], dst: &mut [u8]) {
        super::decode_blocks::<W, BLOCK>(src, dst, |planes, block| {
            let mut v: [__m128i; W] = core::array::from_fn(|j| {
                // SAFETY: `planes[j]` is 16 readable bytes; no alignment
                // needed.
                unsafe { _mm_loadu_si128(planes[j].as_ptr().cast()) }
            });
            for _ in 0..W.trailing_zeros() {
                v = round(v);
            }
            let bytes = block.as_flattened_mut();
            for (k, x) in v.iter().enumerate() {
                let chunk = &mut bytes[16 * k..][..16];
                // SAFETY: `chunk` is 16 writable bytes; no alignment needed.
                unsafe { _mm_storeu_si128(chunk.as_mut_ptr().cast(), *x) };
            }
        });
    }
}
