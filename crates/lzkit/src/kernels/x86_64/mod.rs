//! x86-64 kernels. Each is only called from a decode loop compiled with its
//! `#[target_feature]`s enabled, after runtime detection.

mod avx2;
mod avx512;
mod ssse3;

pub(crate) use avx2::Avx2;
pub(crate) use avx512::Avx512Vbmi;
pub(crate) use ssse3::Ssse3;
