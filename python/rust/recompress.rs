//! Recompression (`lzkit.recompress_file`): one file decoded and encoded
//! again as LZ4 or zstd, written under a temporary name and renamed to
//! the destination when complete (over an existing one only when asked).

use std::io;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::buffers::set_fields;
use crate::files::{os_error, persist, refuse_existing, refuse_same_file, temporary_for};
use crate::formats;

/// `lzkit.recompress_file`: decode `src` (LZ4, zstd, gzip, zlib, xz or
/// LZMA) and write its content to `dst` as `to` ("lz4" or "zstd") at
/// `level` (None: the format's default), `seekable` chunks if not 0, on
/// `threads` threads (0: all cores; 1: decoding and encoding on the
/// calling thread). The output is written under a random hidden name in
/// `dst`'s directory, created exclusively (never through a link planted
/// there), and renamed to `dst` when complete (and, with `verify`,
/// decoded again and compared); on failure it is removed. An existing
/// `dst` (a file, a link, anything) raises `FileExistsError` unless
/// `overwrite`, as the command refuses one without `-f`: checked before
/// the work and again, atomically, by the rename. A `dst` that is `src`
/// (the same file, also through a link) is refused, even with
/// `overwrite`. Returns the summary.
#[pyfunction]
#[pyo3(signature = (src, dst, to="zstd", level=None, threads=0, verify=true, seekable=0, *, overwrite=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn recompress_file<'py>(
    py: Python<'py>,
    src: std::path::PathBuf,
    dst: std::path::PathBuf,
    to: &str,
    level: Option<i32>,
    threads: usize,
    verify: bool,
    seekable: usize,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use lzkit::format::Target;
    use lzkit::recompress::{RecompressError, RecompressOptions};
    let target = match seekable {
        0 => Target::from(formats::codec_options(to, level, Some(threads))?),
        // The options a split file's parts use too (`split::join_parts`
        // then gives these bytes).
        n => Target::Seekable(formats::write_options(to, level, n)?.threads(threads)),
    };
    // One thread: decoding too on the calling thread (a cluster's task
    // then takes one core).
    let opts = RecompressOptions::new(target)
        .verify(verify)
        .serial(threads == 1);
    // A missing or unreadable source: Python's own exception for it.
    let input = std::fs::File::open(&src).map_err(|e| os_error(&src, e))?;
    let summary = py.allow_threads(|| -> PyResult<lzkit::recompress::Summary> {
        let failed = |e: String| PyRuntimeError::new_err(e);
        refuse_same_file(&src, &input, &dst).map_err(failed)?;
        refuse_existing(&dst, overwrite)?;
        let tmp = temporary_for(&dst).map_err(failed)?;
        let output = std::io::BufWriter::with_capacity(1 << 20, tmp);
        let done = lzkit::recompress::recompress(
            io::BufReader::with_capacity(1 << 20, input),
            output,
            &opts,
        );
        // On any error `tmp` is dropped, which deletes it.
        let (tmp, summary) = match done {
            Ok((w, summary)) => {
                let tmp = w
                    .into_inner()
                    .map_err(|e| failed(format!("{}: {}", dst.display(), e.error())))?;
                tmp.as_file()
                    .sync_all()
                    .map_err(|e| failed(format!("{}: {e}", dst.display())))?;
                (tmp, summary)
            }
            Err(RecompressError::Input(e)) => {
                return Err(failed(format!("{}: {e}", src.display())));
            }
            Err(RecompressError::Output(e)) => {
                return Err(failed(format!("{}: {e}", dst.display())));
            }
        };
        persist(tmp, &dst, overwrite)?;
        Ok(summary)
    })?;
    summary_dict(py, &summary)
}

/// A recompression summary as Python gets it (`lzkit.recompress_file`,
/// and a split file's join).
pub(crate) fn summary_dict<'py>(
    py: Python<'py>,
    summary: &lzkit::recompress::Summary,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("source", summary.source.name())?;
    set_fields!(d, summary, read, content, content_xxh64, written, verified);
    Ok(d)
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(recompress_file, m)?)?;
    Ok(())
}
