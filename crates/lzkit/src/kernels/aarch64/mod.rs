//! AArch64 kernels (NEON is part of the AArch64 baseline).

mod neon;

pub(crate) use neon::Neon;
