//! lzkit: fast, safe LZ-family compression.
//!
//! * [`lz4::block`]: the LZ4 block format: compress and decompress one block.
//! * [`lz4::frame`]: the LZ4 frame format (spec v1.6.4) and the legacy format,
//!   one-shot and streaming.
//! * [`zstd`]: Zstandard decoding (RFC 8878): frames, dictionaries,
//!   one-shot and streaming, with the same adaptive copy kernels; zstd
//!   compression through libzstd with the `zstd-compress` feature.
//! * [`format`](mod@format): every format lzkit reads or writes: names, magic numbers,
//!   the sniffer, and a decoder or encoder for each.
//! * `recompress` (the `recompress` feature): LZ4, zstd, gzip, zlib, xz and
//!   LZMA in, LZ4 or zstd out, in one parallel pipeline.
//! * [`filter`]: reversible pre-filters for columns of fixed-width numbers
//!   (byte shuffle, delta), to run before LZ4 or zstd.
//! * [`seekable`]: seekable LZ4 and zstd files (independent frames and a
//!   seek table that `lz4 -d` and `zstd -d` skip): writing, indexing
//!   existing files, random and parallel reads.
//!
//! Decoders are safe on any input: they never panic, never read or write
//! outside the given slices, and report every malformed input as an [`Error`].
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[doc(hidden)]
pub mod adaptive;
mod cpu;
mod encoder;
pub mod error;
pub mod filter;
pub mod format;
mod kernels;
pub mod lz4;
mod mem;
mod pool;
pub mod probe;
#[cfg(feature = "recompress")]
pub mod recompress;
pub mod seekable;
pub mod zstd;

pub use encoder::{AutoFinishEncoder, FrameWrite};
pub use error::{
    Codec, Error, Fault, FrameFault, Lz4Fault, Lz4FrameFault, Result, ZstdFault, ZstdFrameFault,
};
