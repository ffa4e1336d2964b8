//! LZ4 frames (`lzkit.lz4.frame`): one-shot `compress` and `decompress`
//! (with threads), `get_frame_info`, and the streaming
//! `FrameCompressor` and `FrameDecompressor` behind python-lz4's
//! `LZ4FrameCompressor` and `LZ4FrameDecompressor`.

use std::io::Write;

use lzkit::lz4::Level;
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameOptions};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::buffers::{Input, output, output_with, runtime, with_detail, with_scratch};

/// A level as python-lz4's frame functions number them: below 0 fast with
/// that acceleration, 0 to 2 fast, 3 to 16 high compression (12 at most,
/// as LZ4's high compression has).
fn frame_level(level: i32) -> Level {
    match level {
        i32::MIN..=-1 => Level::fast(level.unsigned_abs()),
        0..=2 => Level::new(1),
        n => Level::new(n.min(12)),
    }
}

/// python-lz4's `block_size`: the frame format's block-size code (4 to 7,
/// `BLOCKSIZE_MAX64KB` to `BLOCKSIZE_MAX4MB`), or 0 for the default (64 KiB).
fn frame_block_size(code: i32) -> PyResult<BlockSize> {
    match code {
        0 => Ok(BlockSize::Max64KB),
        _ => u8::try_from(code)
            .ok()
            .and_then(BlockSize::from_code)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "invalid block_size {code}: use BLOCKSIZE_DEFAULT, BLOCKSIZE_MAX64KB, BLOCKSIZE_MAX256KB, BLOCKSIZE_MAX1MB or BLOCKSIZE_MAX4MB"
                ))
            }),
    }
}

/// The frame options of python-lz4's keyword arguments.
#[allow(clippy::too_many_arguments)]
fn frame_options(
    compression_level: i32,
    block_size: i32,
    content_checksum: bool,
    block_checksum: bool,
    block_linked: bool,
    content_size: Option<u64>,
    threads: usize,
) -> PyResult<FrameOptions> {
    Ok(FrameOptions::new()
        .level(frame_level(compression_level))
        .block_size(frame_block_size(block_size)?)
        .block_mode(if block_linked {
            BlockMode::Linked
        } else {
            BlockMode::Independent
        })
        .content_checksum(content_checksum)
        .block_checksum(block_checksum)
        .content_size(content_size)
        .threads(threads))
}

/// `lz4.frame.compress`, with `threads`.
#[pyfunction]
#[pyo3(signature = (data, compression_level=0, block_size=0, content_checksum=false, block_checksum=false, block_linked=true, store_size=true, return_bytearray=false, threads=1))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn frame_compress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    compression_level: i32,
    block_size: i32,
    content_checksum: bool,
    block_checksum: bool,
    block_linked: bool,
    store_size: bool,
    return_bytearray: bool,
    threads: usize,
) -> PyResult<PyObject> {
    let src = Input::get(data)?;
    let len = src.bytes().len() as u64;
    let opts = frame_options(
        compression_level,
        block_size,
        content_checksum,
        block_checksum,
        block_linked,
        store_size.then_some(len),
        threads,
    )?;
    with_scratch(|buf| {
        py.allow_threads(|| frame::try_compress_to(src.bytes(), &opts, buf))
            .map_err(runtime)?;
        Ok(output(py, buf, return_bytearray))
    })
}

/// `lz4.frame.decompress`: the first frame of `data` (and, with
/// `return_bytes_read`, how many bytes it took); `threads` decode the
/// blocks of an independent-block frame in parallel.
#[pyfunction]
#[pyo3(signature = (data, return_bytearray=false, return_bytes_read=false, threads=1))]
pub(crate) fn frame_decompress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    return_bytearray: bool,
    return_bytes_read: bool,
    threads: usize,
) -> PyResult<PyObject> {
    let src = Input::get(data)?;
    let all = src.bytes();
    // Threads decode independent blocks only: for a frame of linked
    // blocks they would only add their cost (and lose the direct path).
    let header = frame::read_header(all).ok();
    let threads = match &header {
        Some(h) if h.block_mode == Some(BlockMode::Linked) => 1,
        _ => threads,
    };
    // A frame that says its size is decoded straight into the object
    // returned, if its blocks can produce that much (a size in a header
    // is a claim: a larger one is decoded as the blocks grow, to its
    // content-size error, never allocated).
    let exact = header.and_then(|h| {
        h.content_size
            .filter(|_| h.kind == frame::FrameKind::Standard && h.dict_id.is_none() && threads <= 1)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| frame::max_decoded_len(all).is_some_and(|most| n <= most))
    });
    let (out, used) = match exact {
        Some(size) => output_with(py, size, return_bytearray, |buf| {
            let (_, used) = py
                .allow_threads(|| frame::decompress_into(all, buf))
                .map_err(|e| lz4f(py, e))?;
            Ok(used)
        })?,
        None => {
            let (decoded, used) = py
                .allow_threads(|| frame::decompress_first(all, threads))
                .map_err(|e| lz4f(py, e))?;
            (output(py, &decoded, return_bytearray), used)
        }
    };
    if return_bytes_read {
        Ok((out, used).into_pyobject(py)?.into_any().unbind())
    } else {
        Ok(out)
    }
}

/// `lz4.frame.get_frame_info`: what the frame header says.
#[pyfunction]
pub(crate) fn get_frame_info<'py>(
    py: Python<'py>,
    frame: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let src = Input::get(frame)?;
    let h = frame::read_header(src.bytes()).map_err(|e| lz4f(py, e))?;
    let d = PyDict::new(py);
    let size = h.block_size.unwrap_or(BlockSize::Max64KB);
    d.set_item("block_size", size.bytes())?;
    d.set_item("block_size_id", size as u8)?;
    d.set_item("block_linked", h.block_mode == Some(BlockMode::Linked))?;
    d.set_item("content_checksum", h.content_checksum)?;
    d.set_item("block_checksum", h.block_checksum)?;
    d.set_item("skippable", h.kind == frame::FrameKind::Skippable)?;
    d.set_item("content_size", h.content_size.unwrap_or(0))?;
    Ok(d)
}

/// A streaming frame compressor: `begin`, `compress`, `flush`.
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct FrameCompressor {
    opts: FrameOptions,
    encoder: Option<frame::FrameEncoder<Vec<u8>>>,
}

impl FrameCompressor {
    /// The compressed bytes ready so far, as a `bytes` object.
    fn take_output(&mut self, py: Python<'_>) -> Py<PyBytes> {
        let out = self
            .encoder
            .as_mut()
            .map(|e| std::mem::take(e.get_mut()))
            .unwrap_or_default();
        PyBytes::new(py, &out).unbind()
    }

    /// The frame in progress, or python-lz4's error for `method` called
    /// before `begin()`.
    fn started_frame(&mut self, method: &str) -> PyResult<&mut frame::FrameEncoder<Vec<u8>>> {
        self.encoder.as_mut().ok_or_else(|| not_begun(method))
    }
}

/// The error of a `LZ4FrameCompressor` method called before `begin()`.
fn not_begun(method: &str) -> PyErr {
    PyRuntimeError::new_err(format!(
        "LZ4FrameCompressor.{method}() called before begin()"
    ))
}

/// A frame encoder's I/O error as the one-shot functions report it.
fn io_runtime(e: std::io::Error) -> PyErr {
    runtime(lzkit::Error::from_io(e))
}

#[pymethods]
impl FrameCompressor {
    #[new]
    #[pyo3(signature = (compression_level=0, block_size=0, content_checksum=false, block_checksum=false, block_linked=true, threads=1))]
    fn new(
        compression_level: i32,
        block_size: i32,
        content_checksum: bool,
        block_checksum: bool,
        block_linked: bool,
        threads: usize,
    ) -> PyResult<Self> {
        Ok(FrameCompressor {
            opts: frame_options(
                compression_level,
                block_size,
                content_checksum,
                block_checksum,
                block_linked,
                None,
                threads,
            )?,
            encoder: None,
        })
    }

    /// Start a frame (of `source_size` bytes if not 0): returns what is
    /// ready of it.
    #[pyo3(signature = (source_size=0))]
    fn begin(&mut self, py: Python<'_>, source_size: u64) -> PyResult<Py<PyBytes>> {
        if self.encoder.is_some() {
            return Err(PyRuntimeError::new_err(
                "LZ4FrameCompressor.begin() called twice without flush() or reset()",
            ));
        }
        let opts = self
            .opts
            .clone()
            .content_size((source_size > 0).then_some(source_size));
        let mut enc = frame::FrameEncoder::try_new(Vec::new(), &opts).map_err(runtime)?;
        // The header now, as python-lz4's begin() returns it (a flush with
        // no input writes the header and no block).
        enc.flush().map_err(io_runtime)?;
        self.encoder = Some(enc);
        Ok(self.take_output(py))
    }

    /// Compress `data`: returns the compressed bytes ready so far.
    fn compress(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyBytes>> {
        let src = Input::get(data)?;
        let enc = self.started_frame("compress")?;
        py.allow_threads(|| enc.write_all(src.bytes()))
            .map_err(io_runtime)?;
        Ok(self.take_output(py))
    }

    /// End the block in progress without ending the frame (python-lz4's
    /// `auto_flush`, `compress_flush(end_frame=False)`): returns every
    /// compressed byte of the input so far.
    fn flush_blocks(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let enc = self.started_frame("flush")?;
        py.allow_threads(|| enc.flush()).map_err(io_runtime)?;
        Ok(self.take_output(py))
    }

    /// End the frame: returns the rest of it.
    fn flush(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let enc = self.encoder.take().ok_or_else(|| not_begun("flush"))?;
        let out = py.allow_threads(|| enc.finish()).map_err(io_runtime)?;
        Ok(PyBytes::new(py, &out).unbind())
    }

    /// Drop any frame in progress.
    fn reset(&mut self) {
        self.encoder = None;
    }

    /// Whether a frame is in progress.
    #[getter]
    fn started(&self) -> bool {
        self.encoder.is_some()
    }
}

/// A frame decompressor fed in pieces (python-lz4's LZ4FrameDecompressor):
/// each call decodes the blocks that have arrived whole (lzkit's
/// `PushDecoder`). Memory: one block of input, 64 KiB of history, and the
/// decoded bytes a `max_length` held back.
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct FrameDecompressor {
    decoder: frame::PushDecoder,
    /// Decoded bytes, returned up to `pending_at`.
    pending: Vec<u8>,
    pending_at: usize,
    /// The frame ended.
    eof: bool,
}

#[pymethods]
impl FrameDecompressor {
    /// `threads` is accepted for the API's sake: decoding as input arrives
    /// is serial (`lzkit.lz4.frame.decompress` decodes in parallel).
    #[new]
    #[pyo3(signature = (threads=1))]
    fn new(threads: usize) -> Self {
        let _ = threads;
        FrameDecompressor {
            decoder: frame::PushDecoder::new(),
            pending: Vec::new(),
            pending_at: 0,
            eof: false,
        }
    }

    /// Feed `data`; returns up to `max_length` decoded bytes (all if
    /// negative).
    #[pyo3(signature = (data, max_length=-1))]
    fn decompress(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        max_length: i64,
    ) -> PyResult<Py<PyBytes>> {
        let src = Input::get(data)?;
        if self.eof && self.pending_at == self.pending.len() {
            // A new frame after the end of the last: start over.
            self.decoder.reset();
            self.eof = false;
        }
        self.pending.drain(..self.pending_at);
        self.pending_at = 0;
        let (decoder, pending) = (&mut self.decoder, &mut self.pending);
        if py
            .allow_threads(|| decoder.feed(src.bytes(), pending))
            .map_err(|e| lz4f(py, e))?
        {
            self.eof = true;
        }
        let left = self.pending.len() - self.pending_at;
        // Negative: all; a length over the address space (32-bit): all too.
        let n = usize::try_from(max_length).map_or(left, |m| left.min(m));
        let out = PyBytes::new(py, &self.pending[self.pending_at..self.pending_at + n]).unbind();
        self.pending_at += n;
        Ok(out)
    }

    /// A frame ended and all its bytes were returned.
    #[getter]
    fn eof(&self) -> bool {
        self.eof && self.pending_at == self.pending.len()
    }

    /// Bytes after the end of the frame; `None` before its end or with
    /// none after it (python-lz4's).
    #[getter]
    fn unused_data<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        let unused = self.decoder.unused();
        (self.eof && !unused.is_empty()).then(|| PyBytes::new(py, unused))
    }

    /// Whether more input is needed for more output: every decoded byte
    /// was returned (also after a frame's end, as python-lz4's).
    #[getter]
    fn needs_input(&self) -> bool {
        self.pending_at == self.pending.len()
    }

    /// Forget everything.
    fn reset(&mut self) {
        *self = FrameDecompressor::new(1);
    }
}

/// A frame that does not decode, as python-lz4 reports it (a
/// `RuntimeError` naming the LZ4F function and error, which its users
/// match), with lzkit's account of what is wrong as its `detail`.
pub(crate) fn lz4f(py: Python<'_>, e: lzkit::Error) -> PyErr {
    use lzkit::Error as E;
    use lzkit::error::{FrameFault, Lz4FrameFault};
    let mut inner = &e;
    while let E::Frame { source, .. } | E::Block { source, .. } = inner {
        inner = source;
    }
    let failed = |code: &str| format!("LZ4F_decompress failed with code: ERROR_{code}");
    let message = match inner {
        E::Truncated { what, .. } if *what == "frame header" => {
            "LZ4F_getFrameInfo failed with code: ERROR_frameHeader_incomplete".to_string()
        }
        E::Truncated { .. } => "Frame incomplete. LZ4F_decompress returned: 1".to_string(),
        E::CorruptFrame {
            fault: FrameFault::Lz4(f),
            ..
        } => match f {
            Lz4FrameFault::UnknownMagic { .. } => {
                "LZ4F_getFrameInfo failed with code: ERROR_frameType_unknown".to_string()
            }
            Lz4FrameFault::HeaderChecksum { .. } => {
                "LZ4F_getFrameInfo failed with code: ERROR_headerChecksum_invalid".to_string()
            }
            _ => "LZ4F_getFrameInfo failed with code: ERROR_frameHeader_incomplete".to_string(),
        },
        E::BlockChecksum { .. } => failed("blockChecksum_invalid"),
        E::ContentChecksum { .. } => failed("contentChecksum_invalid"),
        E::ContentSize { .. } => failed("frameSize_wrong"),
        E::BlockTooLarge { .. } => failed("maxBlockSize_invalid"),
        E::CorruptBlock { .. } => failed("decompressionFailed"),
        E::DictionaryRequired { .. } => failed("dictionary_wrong"),
        _ => return runtime(e),
    };
    with_detail(py, PyRuntimeError::new_err(message), e.to_string())
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frame_compress, m)?)?;
    m.add_function(wrap_pyfunction!(frame_decompress, m)?)?;
    m.add_function(wrap_pyfunction!(get_frame_info, m)?)?;
    m.add_class::<FrameCompressor>()?;
    m.add_class::<FrameDecompressor>()?;
    Ok(())
}
