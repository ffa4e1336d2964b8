//! LZ4 blocks (`lzkit.lz4.block`): python-lz4's `compress` and
//! `decompress` (a 4-byte size prefix, or a size given), and lzkit's
//! adaptive `BlockDecoder`.

use lzkit::lz4::Level;
use lzkit::lz4::block;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, OutBuf, output, output_with, runtime, with_detail, with_scratch};

create_exception!(
    _lzkit,
    LZ4BlockError,
    PyException,
    "A corrupt LZ4 block (python-lz4's lz4.block.LZ4BlockError)."
);

/// `lz4.block.compress`.
#[pyfunction]
#[pyo3(signature = (source, mode="default", acceleration=1, compression=9, store_size=true, return_bytearray=false, dict=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn block_compress(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    mode: &str,
    acceleration: i32,
    compression: i32,
    store_size: bool,
    return_bytearray: bool,
    dict: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    let level = match mode {
        "default" => Level::new(1),
        // python-lz4's acceleration is the C API's: N runs the fast
        // compressor with acceleration N, which is lzkit's `--fast=N-1`
        // (the frame API's numbering); 1 (and below) the default.
        "fast" if acceleration <= 1 => Level::new(1),
        "fast" => Level::fast(acceleration.unsigned_abs() - 1),
        "high_compression" => match compression {
            i32::MIN..=0 => Level::new(9),
            1 => Level::new(2),
            n => Level::new(n.min(12)),
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "Invalid mode argument: {other}. Must be one of: default, fast, high_compression"
            )));
        }
    };
    let src = Input::get(source)?;
    let dict = dictionary(dict)?;
    api_limits(&src, dict.as_ref())?;
    if src.bytes().len() > block::MAX_INPUT_SIZE {
        return Err(with_detail(
            py,
            LZ4BlockError::new_err("Compression failed"),
            format!(
                "{} bytes: the LZ4 block format's limit is {}",
                src.bytes().len(),
                block::MAX_INPUT_SIZE
            ),
        ));
    }
    with_scratch(|buf| {
        let data = src.bytes();
        let need = 4 + block::max_compressed_size(data.len());
        if buf.len() < need {
            buf.resize(need, 0);
        }
        let n = py
            .allow_threads(|| match &dict {
                Some(d) => {
                    block::compress_with_dict_into(data, d.bytes(), &mut buf[4..need], level)
                }
                None => block::compress_into(data, &mut buf[4..need], level),
            })
            .map_err(runtime)?;
        buf[..4].copy_from_slice(&(data.len() as u32).to_le_bytes());
        let from = if store_size { 0 } else { 4 };
        Ok(output(py, &buf[from..4 + n], return_bytearray))
    })
}

/// `lz4.block.decompress`: the size from the 4-byte prefix, or
/// `uncompressed_size` (then the most it may decode to; the result is what
/// it decodes to).
#[pyfunction]
#[pyo3(signature = (source, uncompressed_size=-1, return_bytearray=false, dict=None))]
pub(crate) fn block_decompress(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    uncompressed_size: i64,
    return_bytearray: bool,
    dict: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    if uncompressed_size > i64::from(i32::MAX) {
        // python-lz4 takes the size as a C int.
        return Err(PyOverflowError::new_err(
            "signed integer is greater than maximum",
        ));
    }
    let src = Input::get(source)?;
    let dict = dictionary(dict)?;
    api_limits(&src, dict.as_ref())?;
    let all = src.bytes();
    let (body, size) = if uncompressed_size < 0 {
        if all.len() < 4 {
            return Err(PyValueError::new_err("Input source data size too small"));
        }
        let size = u32::from_le_bytes([all[0], all[1], all[2], all[3]]);
        (&all[4..], i64::from(size))
    } else {
        (all, uncompressed_size)
    };
    if size > i64::from(i32::MAX) {
        // python-lz4's words (its "0x" before a decimal number included).
        return Err(PyValueError::new_err(format!("Invalid size: 0x{size}")));
    }
    let size = usize::try_from(size).map_err(|_| PyValueError::new_err("invalid size"))?;
    // Never more than the input can decode to: a size field cannot make
    // us allocate what the data does not back (a larger one then fails as
    // a block that decodes to less than its prefix says).
    let bound = block::max_decoded_size(body.len());
    let cap = size.min(bound);
    let decode = |dst: &mut [u8]| -> Result<usize, lzkit::Error> {
        match &dict {
            Some(d) => block::decompress_with_dict_into(body, dst, d.bytes()),
            None => block::decompress_into(body, dst),
        }
    };
    // Straight into the object returned; only a block shorter than the
    // size given (a generous `uncompressed_size`) is copied out of it.
    let (out, written) = output_with(py, cap, return_bytearray, |buf| {
        py.allow_threads(|| decode(buf)).map_err(|e| corrupt(py, e))
    })?;
    if uncompressed_size < 0 && written != size {
        return Err(LZ4BlockError::new_err(format!(
            "Decompressor wrote {written} bytes, but {size} bytes expected from header"
        )));
    }
    if written == cap {
        return Ok(out);
    }
    let view = Input::get(out.bind(py))?;
    Ok(output(py, &view.bytes()[..written], return_bytearray))
}

/// python-lz4's error for a block that does not decode, in its words
/// (code: the input byte where decoding stopped), with lzkit's account of
/// what is wrong as its `detail`.
fn corrupt(py: Python<'_>, e: lzkit::Error) -> PyErr {
    let at = match &e {
        lzkit::Error::CorruptBlock { at, .. } => *at + 1,
        _ => 1,
    };
    with_detail(
        py,
        LZ4BlockError::new_err(format!(
            "Decompression failed: corrupt input or insufficient space in destination buffer. Error code: {at}"
        )),
        e.to_string(),
    )
}

/// The `dict` argument as python-lz4 takes it: any buffer, or a `str`
/// (its UTF-8 bytes); `None` for none.
fn dictionary(dict: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Input>> {
    match dict {
        None => Ok(None),
        Some(d) if d.is_none() => Ok(None),
        Some(d) => match d.downcast::<pyo3::types::PyString>() {
            Ok(text) => {
                let encoded = PyBytes::new(d.py(), text.to_str()?.as_bytes());
                Input::get(encoded.as_any()).map(Some)
            }
            Err(_) => Input::get(d).map(Some),
        },
    }
}

/// python-lz4's limits (a C int): inputs and dictionaries over it raise
/// `OverflowError`.
fn api_limits(src: &Input, dict: Option<&Input>) -> PyResult<()> {
    const INT_MAX: usize = i32::MAX as usize;
    if src.bytes().len() > INT_MAX {
        return Err(PyOverflowError::new_err("Input too large for LZ4 API"));
    }
    if dict.is_some_and(|d| d.bytes().len() > INT_MAX) {
        return Err(PyOverflowError::new_err("Dictionary too large for LZ4 API"));
    }
    Ok(())
}

/// An LZ4 block decoder that keeps what it learns about the stream
/// (lzkit's adaptive decoder: it chooses the fastest copy strategy for
/// the data it sees).
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct BlockDecoder {
    inner: block::Decoder,
}

#[pymethods]
impl BlockDecoder {
    #[new]
    fn new() -> Self {
        BlockDecoder {
            inner: block::Decoder::new(),
        }
    }

    /// Decode the block `source` (no size prefix) of at most
    /// `uncompressed_size` bytes.
    fn decompress(
        &mut self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        uncompressed_size: usize,
    ) -> PyResult<Py<PyBytes>> {
        let src = Input::get(source)?;
        let mut out = vec![0u8; uncompressed_size.min(block::max_decoded_size(src.bytes().len()))];
        let inner = &mut self.inner;
        let n = py
            .allow_threads(|| inner.decompress_into(src.bytes(), &mut out))
            .map_err(|e| corrupt(py, e))?;
        Ok(PyBytes::new(py, &out[..n]).unbind())
    }

    /// Decode the block `source` into the writable buffer `dest`: returns
    /// the bytes written.
    fn decompress_into(
        &mut self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        dest: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let src = Input::get(source)?;
        let mut dst = OutBuf::get(dest, "dest", src.bytes())?;
        let inner = &mut self.inner;
        py.allow_threads(|| inner.decompress_into(src.bytes(), dst.bytes_mut()))
            .map_err(|e| corrupt(py, e))
    }
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LZ4BlockError", m.py().get_type::<LZ4BlockError>())?;
    m.add_function(wrap_pyfunction!(block_compress, m)?)?;
    m.add_function(wrap_pyfunction!(block_decompress, m)?)?;
    m.add_class::<BlockDecoder>()?;
    Ok(())
}
