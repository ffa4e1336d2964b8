//! The built-in corpus: column files generated in memory, so that
//! `lzkit bench` runs on a fresh machine with no data at hand. The
//! generators live in `lzkit_corpus::corpus`, shared with the tests and
//! benchmark programs; the bytes are fixed by their seeds.

pub use lzkit_corpus::corpus::{generate, len, name, other_data};
