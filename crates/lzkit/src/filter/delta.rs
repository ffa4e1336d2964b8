//! Delta kernels: element-wise wrapping differences of little-endian
//! unsigned integers, and their wrapping prefix sum.
//!
//! Encoding is independent per element and vectorizes as written. Decoding
//! is a prefix sum, a chain of one addition per element: for 4- and 8-byte
//! elements that chain already moves 4 to 8 bytes a cycle, so it stays
//! scalar. On x86-64, 1- and 2-byte elements are summed in blocks of 16
//! bytes instead ([`sse2`]). (The same blocked sum written in plain Rust
//! was vectorized well or badly depending on the width and the target
//! features, from 0.6 to 11 GB/s on Zen 4, so it is written with SSE2
//! intrinsics, which x86-64 always has.)

/// The kernels of one element type: `encode` and `decode` (scalar prefix
/// sum).
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
            // On x86-64, 1- and 2-byte elements decode with SSE2 and this is
            // the tests' reference for it.
            #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
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
        }
    };
}

kernels!(d1, u8);
kernels!(d2, u16);
kernels!(d4, u32);
kernels!(d8, u64);

/// Delta decoding of 1- and 2-byte elements with SSE2 (part of the x86-64
/// baseline): prefix sums of 16-byte blocks in shift-and-add steps, plus
/// the running total of the blocks before.
#[cfg(target_arch = "x86_64")]
pub(super) mod sse2 {
    use core::arch::x86_64::*;

    /// The decoder of elements of `$t`: `$add` adds lanes, `$prefix` is the
    /// inclusive prefix sum of a block `$v` (a lane plus every lane below
    /// it), `$last` puts the last lane of `$l` in every lane.
    macro_rules! decoder {
        ($name:ident, $t:ty, $add:ident, |$v:ident| $prefix:expr, |$l:ident| $last:expr) => {
            /// The wrapping prefix sum of the elements of `src` into `dst`,
            /// the tail bytes copied. `dst.len() == src.len()`.
            #[inline(always)]
            pub(in super::super) fn $name(src: &[u8], dst: &mut [u8]) {
                const W: usize = size_of::<$t>();
                debug_assert_eq!(src.len(), dst.len());
                let (blocks, rest) = src.as_chunks::<16>();
                let (out_blocks, out_rest) = dst.as_chunks_mut::<16>();
                // SAFETY: SSE2 is part of the x86-64 baseline.
                let mut carry = unsafe { _mm_setzero_si128() };
                for (o, b) in out_blocks.iter_mut().zip(blocks) {
                    // SAFETY: SSE2 is part of the x86-64 baseline; `loadu`
                    // and `storeu` read and write the 16 bytes of a
                    // `[u8; 16]`, with no alignment requirement.
                    unsafe {
                        let mut $v = _mm_loadu_si128(b.as_ptr().cast());
                        $v = $prefix;
                        _mm_storeu_si128(o.as_mut_ptr().cast(), $add($v, carry));
                        // Off the chain of blocks: the block's own total.
                        let $l = $v;
                        carry = $add(carry, $last);
                    }
                }
                // SAFETY: SSE2 is part of the x86-64 baseline.
                let mut acc = unsafe { _mm_cvtsi128_si32(carry) } as $t;
                let (elems, tail) = rest.as_chunks::<W>();
                let (out, out_tail) = out_rest.as_chunks_mut::<W>();
                out_tail.copy_from_slice(tail);
                for (o, e) in out.iter_mut().zip(elems) {
                    acc = acc.wrapping_add(<$t>::from_le_bytes(*e));
                    *o = acc.to_le_bytes();
                }
            }
        };
    }

    decoder!(
        decode1,
        u8,
        _mm_add_epi8,
        |v| {
            let v = _mm_add_epi8(v, _mm_slli_si128::<1>(v));
            let v = _mm_add_epi8(v, _mm_slli_si128::<2>(v));
            let v = _mm_add_epi8(v, _mm_slli_si128::<4>(v));
            _mm_add_epi8(v, _mm_slli_si128::<8>(v))
        },
        |v| {
            let w = _mm_unpackhi_epi8(v, v);
            let w = _mm_shufflehi_epi16::<0xFF>(w);
            _mm_unpackhi_epi64(w, w)
        }
    );

    decoder!(
        decode2,
        u16,
        _mm_add_epi16,
        |v| {
            let v = _mm_add_epi16(v, _mm_slli_si128::<2>(v));
            let v = _mm_add_epi16(v, _mm_slli_si128::<4>(v));
            _mm_add_epi16(v, _mm_slli_si128::<8>(v))
        },
        |v| {
            let w = _mm_shufflehi_epi16::<0xFF>(v);
            _mm_unpackhi_epi64(w, w)
        }
    );
}
