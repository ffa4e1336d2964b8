//! The library's format layer as Python sees it: the codecs named in
//! Python (`to="zstd"`, `codec="lz4"`) resolved by `lzkit::format`, their
//! frames' options, and what the Python modules list (`_lzkit.formats()`,
//! output names): a format the library learns to read needs no edit here
//! or in `lzkit.dask`; a codec it learns to write, one arm in
//! [`codec_options`].

use std::path::PathBuf;

use lzkit::format::{Codec, CodecOptions, Format};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The codec named `name` (its name or suffix: `lz4`, `zstd`, `zst`), or
/// the library's ValueError naming those it writes.
pub(crate) fn codec(name: &str) -> PyResult<Codec> {
    Codec::from_name(name).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The format of `codec`'s frames, which its decoder reads (with the
/// codec's other formats, such as LZ4's legacy frames): the first of the
/// library's formats that is `codec`'s.
pub(crate) fn frames_of(codec: Codec) -> PyResult<Format> {
    Format::ALL
        .iter()
        .copied()
        .find(|f| f.codec() == Some(codec))
        .ok_or_else(|| PyValueError::new_err(format!("lzkit reads no {codec} format")))
}

/// Frames of the codec named `to` at `level` and on `threads` threads
/// (None: the codec's defaults, as `lzkit recompress` has them; the
/// threads are LZ4's threads or zstd's workers).
pub(crate) fn codec_options(
    to: &str,
    level: Option<i32>,
    threads: Option<usize>,
) -> PyResult<CodecOptions> {
    Ok(match codec(to)? {
        Codec::Lz4 => {
            let mut opts = lzkit::lz4::frame::FrameOptions::new();
            if let Some(level) = level {
                opts = opts.level(level);
            }
            if let Some(n) = threads {
                opts = opts.threads(n);
            }
            CodecOptions::Lz4(opts)
        }
        Codec::Zstd => {
            let mut opts = lzkit::zstd::FrameOptions::new();
            if let Some(level) = level {
                opts = opts.level(level);
            }
            if let Some(n) = threads {
                opts = opts.workers(u32::try_from(n).unwrap_or(u32::MAX));
            }
            CodecOptions::Zstd(opts)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "lzkit writes {other}, but this Python package does not yet"
            )));
        }
    })
}

/// The options of `lzkit.recompress_file`'s seekable target, on one thread
/// (the bytes do not depend on the thread count).
pub(crate) fn write_options(
    to: &str,
    level: Option<i32>,
    chunk: usize,
) -> PyResult<lzkit::seekable::WriteOptions> {
    let codec = codec_options(to, level, None)?;
    Ok(lzkit::seekable::WriteOptions::new(codec)
        .chunk_size(chunk)
        .threads(1))
}

/// `lzkit._lzkit.formats()`: what lzkit writes and reads, from the
/// library's format layer: `{"codecs": {name: suffix}, "reads": [name]}`
/// (`{"lz4": ".lz4", "zstd": ".zst"}`; `["lz4", "zstd", "gzip", ...]`).
#[pyfunction]
pub(crate) fn formats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let codecs = PyDict::new(py);
    for codec in Codec::ALL {
        codecs.set_item(codec.name(), codec.suffix())?;
    }
    // Each name once (both LZ4 formats are "lz4").
    let mut reads: Vec<&str> = Vec::new();
    for format in Format::ALL {
        if !reads.contains(&format.name()) {
            reads.push(format.name());
        }
    }
    let d = PyDict::new(py);
    d.set_item("codecs", codecs)?;
    d.set_item("reads", reads)?;
    Ok(d)
}

/// `lzkit._lzkit.recompressed_name(path, to)`: the name `lzkit recompress`
/// gives `path` recompressed to the codec named `to`: `path` without the
/// extension of a format lzkit reads (`.tgz`, `.txz` and `.tzst` keep a
/// `.tar`; any case), plus the codec's suffix.
#[pyfunction]
pub(crate) fn recompressed_name(path: PathBuf, to: &str) -> PyResult<PathBuf> {
    let suffix = codec(to)?.suffix();
    let tail = path
        .extension()
        .and_then(|e| e.to_str())
        .and_then(Format::by_extension)
        .map(|(_, tail)| tail);
    let mut name = match tail {
        Some(tail) => {
            let mut stem = path.with_extension("").into_os_string();
            stem.push(tail);
            stem
        }
        None => path.into_os_string(),
    };
    name.push(suffix);
    Ok(name.into())
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(recompressed_name, m)?)?;
    Ok(())
}
