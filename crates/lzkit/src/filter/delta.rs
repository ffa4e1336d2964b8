//! Delta kernels: element-wise wrapping differences of little-endian
//! unsigned integers, and their wrapping prefix sum.
//!
//! Encoding is independent per element and vectorizes as written. Decoding
//! is a prefix sum, a chain of one addition per element: for 4- and 8-byte
//! elements that chain already moves 4 to 8 bytes a cycle, so it stays
//! scalar; 1- and 2-byte elements are summed in blocks of [`LANES_BYTES`]
//! bytes instead (a prefix sum inside the block in log steps, then one
//! vector addition of the running total per block).

/// Bytes per block of the blocked prefix sum.
const LANES_BYTES: usize = 32;

/// The kernels of one element type: `encode` and `decode` (scalar prefix
/// sum) and, where `$lanes` is given, `decode_blocked`.
macro_rules! kernels {
    ($name:ident, $t:ty) => {
        /// Kernels of elements of this width.
        pub(super) mod $name {
            /// Element width in bytes.
            const W: usize = size_of::<$t>();

            /// Differences of the whole elements of `src` into `dst`, the tail
            /// bytes copied. `dst.len() == src.len()`.
            #[inline(always)]
            pub(in super::super) fn encode(src: &[u8], dst: &mut [u8]) {
                debug_assert_eq!(src.len(), dst.len());
                let (elems, tail) = src.as_chunks::<W>();
                let (out, dst_tail) = dst.as_chunks_mut::<W>();
                dst_tail.copy_from_slice(tail);
                let mut prev: $t = 0;
                for (o, e) in out.iter_mut().zip(elems) {
                    let v = <$t>::from_le_bytes(*e);
                    *o = v.wrapping_sub(prev).to_le_bytes();
                    prev = v;
                }
            }

            /// The wrapping prefix sum of the whole elements of `src` into
            /// `dst`, one element at a time, the tail bytes copied.
            /// `dst.len() == src.len()`.
            #[inline(always)]
            #[allow(dead_code)]
            pub(in super::super) fn decode(src: &[u8], dst: &mut [u8]) {
                debug_assert_eq!(src.len(), dst.len());
                let (elems, tail) = src.as_chunks::<W>();
                let (out, dst_tail) = dst.as_chunks_mut::<W>();
                dst_tail.copy_from_slice(tail);
                let mut acc: $t = 0;
                for (o, e) in out.iter_mut().zip(elems) {
                    acc = acc.wrapping_add(<$t>::from_le_bytes(*e));
                    *o = acc.to_le_bytes();
                }
            }

            /// Elements per block of [`decode_blocked`].
            const L: usize = super::LANES_BYTES / W;

            /// What [`decode`] computes, a block of `L` elements at a time.
            #[inline(always)]
            #[allow(dead_code)]
            pub(in super::super) fn decode_blocked(src: &[u8], dst: &mut [u8]) {
                debug_assert_eq!(src.len(), dst.len());
                let (elems, tail) = src.as_chunks::<W>();
                let (out, dst_tail) = dst.as_chunks_mut::<W>();
                dst_tail.copy_from_slice(tail);
                let (blocks, rest) = elems.as_chunks::<L>();
                let (out_blocks, out_rest) = out.as_chunks_mut::<L>();
                // The sum of every element before the block, in every lane.
                let mut carry: [$t; L] = [0; L];
                for (ob, b) in out_blocks.iter_mut().zip(blocks) {
                    let mut v: [$t; L] = [0; L];
                    for (x, e) in v.iter_mut().zip(b) {
                        *x = <$t>::from_le_bytes(*e);
                    }
                    // Inclusive prefix sum inside the block: after the step of
                    // `s`, lane k holds the sum of lanes k + 1 - 2s ..= k.
                    let mut s = 1;
                    while s < L {
                        let mut shifted: [$t; L] = [0; L];
                        shifted[s..].copy_from_slice(&v[..L - s]);
                        for (x, y) in v.iter_mut().zip(shifted) {
                            *x = x.wrapping_add(y);
                        }
                        s *= 2;
                    }
                    let total = v[L - 1];
                    for ((o, x), c) in ob.iter_mut().zip(v).zip(carry) {
                        *o = x.wrapping_add(c).to_le_bytes();
                    }
                    for c in carry.iter_mut() {
                        *c = c.wrapping_add(total);
                    }
                }
                let mut acc = carry[0];
                for (o, e) in out_rest.iter_mut().zip(rest) {
                    acc = acc.wrapping_add(<$t>::from_le_bytes(*e));
                    *o = acc.to_le_bytes();
                }
            }
        }
    };
}

kernels!(d1, u8);
kernels!(d2, u16);
kernels!(d4, u32);
kernels!(d8, u64);
