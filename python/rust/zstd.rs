//! zstd frames (`lzkit.zstd`): `compress` (libzstd) and `decompress`
//! (lzkit's decoder), sized from what the frame headers say.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, bytes_up_to};

create_exception!(
    _lzkit,
    ZstdError,
    PyException,
    "Corrupt or truncated zstd data, or output over a limit."
);

/// `lzkit.zstd.compress` (libzstd): one frame, its size in the header.
#[pyfunction]
#[pyo3(signature = (data, level=3, checksum=true, threads=0))]
pub(crate) fn zstd_compress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    level: i32,
    checksum: bool,
    threads: u32,
) -> PyResult<Py<PyBytes>> {
    let src = Input::get(data)?;
    let opts = lzkit::zstd::FrameOptions::new()
        .level(level)
        .checksum(checksum)
        .workers(threads);
    let out = py
        .allow_threads(|| lzkit::zstd::compress(src.bytes(), &opts))
        .map_err(|e| ZstdError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &out).unbind())
}

/// `lzkit.zstd.decompress` and `ZstdDecompressor.decompress`: every frame
/// of `data`, as python-zstandard's `decompress` decides the size: frames
/// that state their content sizes are decoded straight into the `bytes`
/// returned, of that size (a claim the frames' blocks could not produce is
/// never allocated: such data is decoded as it grows, to its error); if a
/// frame states none, `max_output_size` (> 0) is required ("could not
/// determine content size in frame header" otherwise) and is the most it
/// may decode to. With `max_output_size`, more output than that is always
/// an error.
#[pyfunction]
#[pyo3(signature = (data, max_output_size=0))]
pub(crate) fn zstd_decompress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    max_output_size: usize,
) -> PyResult<Py<PyBytes>> {
    let src = Input::get(data)?;
    let all = src.bytes();
    let zstd_err = |e: lzkit::Error| ZstdError::new_err(e.to_string());
    let decode_into = |buf: &mut [u8]| -> PyResult<usize> {
        py.allow_threads(|| lzkit::zstd::decompress_into(all, buf))
            .map_err(zstd_err)
    };
    // Decoded as the data grows (memory follows the data, not a claim).
    let decode_growing = || {
        py.allow_threads(|| lzkit::zstd::decompress(all))
            .map_err(zstd_err)
    };
    let declared = py.allow_threads(|| Declared::of(all));
    match declared {
        Some(Declared {
            content: Some(size),
            most,
        }) => {
            if max_output_size > 0 && size > max_output_size as u64 {
                return Err(ZstdError::new_err(format!(
                    "decompression error: the frames' content size is {size} bytes, over max_output_size ({max_output_size})"
                )));
            }
            match usize::try_from(size) {
                // Exactly that size, decoded in place.
                Ok(size) if size as u64 <= most => {
                    let mut written = 0;
                    let out = PyBytes::new_with(py, size, |buf| {
                        written = decode_into(buf)?;
                        Ok(())
                    })?;
                    if written != size {
                        return Err(ZstdError::new_err(format!(
                            "decompression error: decoded {written} bytes; the frames say {size}"
                        )));
                    }
                    Ok(out.unbind())
                }
                // More than the blocks can produce: decoded as the data
                // grows (memory follows the data, not the claim), which
                // ends in the decoder's verdict (a content-size mismatch).
                _ => Ok(PyBytes::new(py, &decode_growing()?).unbind()),
            }
        }
        Some(Declared {
            content: None,
            most,
        }) => {
            if max_output_size == 0 {
                return Err(ZstdError::new_err(
                    "could not determine content size in frame header: pass max_output_size (the most bytes it may decode to), or read it with stream_reader()",
                ));
            }
            // At most the limit, and never more than the blocks can
            // produce; shrunk to what was decoded.
            let cap = usize::try_from(most).map_or(max_output_size, |m| m.min(max_output_size));
            bytes_up_to(py, cap, decode_into)
        }
        // Not well-formed frames: the decoder's verdict, its output
        // growing with the data.
        None => {
            let out = decode_growing()?;
            if max_output_size > 0 && out.len() > max_output_size {
                return Err(ZstdError::new_err(format!(
                    "decompression error: more than max_output_size ({max_output_size}) bytes"
                )));
            }
            Ok(PyBytes::new(py, &out).unbind())
        }
    }
}

/// What the headers of a buffer's zstd frames say, read without decoding.
struct Declared {
    /// The sum of the frames' content sizes, if every frame states one.
    content: Option<u64>,
    /// The most the frames' blocks can decode to (each block at most the
    /// frame's block maximum).
    most: u64,
}

impl Declared {
    /// None if the frames are not well-formed (the decoder says why).
    fn of(src: &[u8]) -> Option<Declared> {
        let frames = lzkit::zstd::list_frames(src).ok()?;
        let mut content = Some(0u64);
        let mut most = 0u64;
        for f in frames
            .iter()
            .filter(|f| f.kind == lzkit::zstd::FrameKind::Zstd)
        {
            content = content
                .zip(f.content_size)
                .map(|(a, b)| a.saturating_add(b));
            let block_max = f.window_size.min(lzkit::zstd::BLOCK_SIZE_MAX as u64);
            most = most.saturating_add(f.blocks.saturating_mul(block_max));
        }
        Some(Declared { content, most })
    }
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ZstdError", m.py().get_type::<ZstdError>())?;
    m.add_function(wrap_pyfunction!(zstd_compress, m)?)?;
    m.add_function(wrap_pyfunction!(zstd_decompress, m)?)?;
    Ok(())
}
