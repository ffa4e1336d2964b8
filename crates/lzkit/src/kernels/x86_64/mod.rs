//! x86-64 kernels. Each is only called from a decode loop compiled with its
//! `#[target_feature]`s enabled, after runtime detection.

/// The [`Kernel::fill_short`](super::Kernel::fill_short) of the kernels
/// with SSSE3 (all x86-64 SIMD kernels): the pattern built with `pshufb`
/// from 8-byte loads of the caller's window ([`ssse3::fill_short`]). Used
/// inside their `impl Kernel` blocks.
macro_rules! fill_short_from_window {
    () => {
        const FILLS_FROM_WINDOW: bool = true;

        #[inline(always)]
        unsafe fn fill_short(dst: *mut u8, window_end: *const u8, offset: usize, len: usize) {
            // SAFETY: the trait's contract covers fill_short's (HISTORY
            // and OVERRUN are at least 16; offset below 16); the kernel's
            // instruction set includes SSSE3.
            unsafe { super::ssse3::fill_short(dst, window_end, offset, len) }
        }
    };
}

mod avx2;
mod avx512;
mod ssse3;

pub(crate) use avx2::Avx2;
pub(crate) use avx512::Avx512Vbmi;
pub(crate) use ssse3::Ssse3;
