//! The seeded random number generator of the built-in corpus and of the
//! order of contenders: the workspace's one PRNG, `lzkit_corpus::rng`.

pub use lzkit_corpus::rng::{Rng, derive_seed};
