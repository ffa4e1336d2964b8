//! The data `lzkit bench` and `lzkit probe` generate, and the workspace's
//! one seeded PRNG, in a crate of their own so that the installed command
//! carries no test code: it depends on this crate, not on
//! `lzkit-testkit` (which re-exports both modules for the tests).
//!
//! * [`rng`]: the one seeded PRNG (SplitMix64);
//! * [`corpus`]: the column-like files of `lzkit bench`'s built-in corpus.
//!
//! It depends on nothing, not even on lzkit.

pub mod corpus;
pub mod rng;

pub use rng::Rng;
