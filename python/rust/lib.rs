//! `lzkit._lzkit`: the native half of the `lzkit` Python package. The
//! Python modules (`lzkit.lz4.block`, `lzkit.lz4.frame`, `lzkit.zstd`) give
//! python-lz4's and zstandard's names and defaults; this module does the
//! work, with the GIL released around every codec call.
//!
//! Inputs are read through the buffer protocol without a copy (bytes,
//! bytearray, memoryview, NumPy arrays: anything C-contiguous). Outputs
//! of known size are decoded straight into the `bytes` object returned.
//!
//! One file per codec, as the Python package is split: `lz4_block`
//! (`lzkit.lz4.block`), `lz4_frame` (`lzkit.lz4.frame`), `zstd`
//! (`lzkit.zstd`), `reader` (streams read from file objects), `recompress`,
//! `split` (a file recompressed in parts), `probe`, `root` (ROOT records
//! for uproot), `formats` (the library's format layer: codec names and
//! suffixes), `filter` (`lzkit.filter`: the pre-filters and the filter
//! frame); `buffers` and `files` hold what they share. This file only
//! registers them: each file adds its own functions and classes, so a new
//! function is written and registered in its codec's file alone.

use pyo3::prelude::*;

mod buffers;
mod files;
mod filter;
mod formats;
mod lz4_block;
mod lz4_frame;
mod probe;
mod reader;
mod recompress;
mod root;
mod split;
mod zstd;
mod zstd_push;

/// The native module: each file's functions and classes, and the version.
#[pymodule(gil_used = false)]
fn _lzkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    lz4_block::register(m)?;
    lz4_frame::register(m)?;
    zstd::register(m)?;
    zstd_push::register(m)?;
    reader::register(m)?;
    recompress::register(m)?;
    split::register(m)?;
    probe::register(m)?;
    root::register(m)?;
    formats::register(m)?;
    filter::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
