//! Test support for the lzkit workspace (not published), shared by the
//! tests, benchmarks, fuzz targets, and the C columns of `lzkit bench` and
//! `lzkit probe` (the command's `c-reference` feature, off by default):
//!
//! * [`rng`]: the one seeded PRNG, and [`corpus`]: the column-like files of
//!   `lzkit bench`'s built-in corpus, both re-exported from `lzkit-corpus`
//!   (the command depends on that crate, not on this one);
//! * [`data`]: deterministic test data in named shapes;
//! * [`c_ref`]: safe wrappers of the C reference (liblz4 via `lz4-sys`);
//! * [`reference`](mod@reference): an independent reader of the block format (a slow
//!   reference decoder and rule checker) and hand-built blocks;
//! * [`frames`]: frame options, layouts and hand-edited frames;
//! * [`lz4cmd`]: the reference `lz4` command;
//! * [`adaptive`]: driving the adaptive block decoder over known work;
//! * [`compare`]: readable assertions on large buffers;
//! * [`zstd_ref`]: the zstd reference (libzstd through the `zstd` crate,
//!   and the `zstd` command);
//! * [`zstd_frames`]: hand-built zstd frames, field by field;
//! * [`zstd_check`]: decoding zstd input every way lzkit offers, checking
//!   that the ways agree.
//!
//! The items tests use most are re-exported at the root.

pub mod adaptive;
pub mod c_ref;
pub mod compare;
pub mod data;
pub mod frames;
pub mod lz4cmd;
pub mod reference;
pub mod zstd_check;
pub mod zstd_frames;
pub mod zstd_ref;

pub use lzkit_corpus::{corpus, rng};

pub use compare::*;
pub use data::*;
pub use frames::*;
pub use lz4cmd::*;
pub use reference::*;
pub use rng::Rng;

use lzkit::lz4::frame::BlockSize;

/// Levels every round-trip test covers: fast (acceleration), default, HC.
pub const LEVELS: [i32; 5] = [-5, 0, 1, 9, 12];

/// All frame block sizes.
pub const BLOCK_SIZES: [BlockSize; 4] = [
    BlockSize::Max64KB,
    BlockSize::Max256KB,
    BlockSize::Max1MB,
    BlockSize::Max4MB,
];
