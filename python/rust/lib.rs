//! `lzkit._lzkit`: the native half of the `lzkit` Python package. The
//! Python modules (`lzkit.lz4.block`, `lzkit.lz4.frame`, `lzkit.zstd`) give
//! python-lz4's and zstandard's names and defaults; this module does the
//! work, with the GIL released around every codec call.
//!
//! Inputs are read through the buffer protocol without a copy (bytes,
//! bytearray, memoryview, NumPy arrays: anything C-contiguous). Outputs
//! of known size are decoded straight into the `bytes` object returned.

use std::io::{self, Read, Write};

use lzkit::lz4::Level;
use lzkit::lz4::block;
use lzkit::lz4::frame::{self, BlockMode, BlockSize, FrameOptions};
use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict};

mod root;
mod split;

create_exception!(
    _lzkit,
    LZ4BlockError,
    PyException,
    "A corrupt LZ4 block (python-lz4's lz4.block.LZ4BlockError)."
);
create_exception!(
    _lzkit,
    ZstdError,
    PyException,
    "Corrupt or truncated zstd data, or output over a limit."
);

/// A C-contiguous byte buffer of any Python object, held for the call.
struct Input {
    buf: PyBuffer<u8>,
}

/// `obj`'s memory as bytes, whatever its items (a NumPy array of uint32 or
/// float64: `itemsize * len` bytes), without a copy. Refused with
/// ValueError if not C-contiguous (as python-lz4 refuses it), or if
/// `writable` and the object is read-only; TypeError for an object without
/// the buffer protocol.
fn byte_buffer(obj: &Bound<'_, PyAny>, writable: bool, what: &str) -> PyResult<PyBuffer<u8>> {
    let buf = match PyBuffer::<u8>::get(obj) {
        Ok(buf) => buf,
        // Items of another type: its bytes, through a memoryview cast to
        // bytes (no copy; the cast keeps the exporter's memory held and
        // its writability), once it is known to be contiguous (a cast of
        // a strided view fails with a less helpful TypeError).
        Err(e) => {
            let view = pyo3::types::PyMemoryView::from(obj).map_err(|_| e)?;
            if !view.getattr("c_contiguous")?.is_truthy()? {
                return Err(refused_buffer(writable, what));
            }
            PyBuffer::<u8>::get(&view.call_method1("cast", ("B",))?)?
        }
    };
    if !buf.is_c_contiguous() {
        return Err(refused_buffer(writable, what));
    }
    if writable && buf.readonly() {
        return Err(refused_buffer(writable, what));
    }
    Ok(buf)
}

/// Why [`byte_buffer`] refused a buffer (strided, or read-only where it
/// must be written).
fn refused_buffer(writable: bool, what: &str) -> PyErr {
    if writable {
        PyValueError::new_err(format!(
            "{what} must be a writable, C-contiguous buffer (a bytearray, a writable memoryview, a contiguous array of any dtype)"
        ))
    } else {
        PyValueError::new_err(
            "the buffer is not C-contiguous: pass bytes, bytearray or a contiguous array",
        )
    }
}

impl Input {
    fn get(obj: &Bound<'_, PyAny>) -> PyResult<Input> {
        Ok(Input {
            buf: byte_buffer(obj, false, "the input")?,
        })
    }

    /// The bytes. Valid while `self` is held: the exporter cannot free or
    /// resize its memory while a buffer view of it exists.
    fn bytes(&self) -> &[u8] {
        let len = self.buf.len_bytes();
        if len == 0 {
            return &[];
        }
        // SAFETY: the buffer is C-contiguous, of `len` bytes, items of one
        // byte, and stays exported (so allocated and unmoved) while
        // `self.buf` lives.
        unsafe { std::slice::from_raw_parts(self.buf.buf_ptr() as *const u8, len) }
    }
}

/// A writable, C-contiguous byte buffer of a Python object (a bytearray,
/// a NumPy array of any dtype, a writable memoryview), held for the call.
struct OutBuf {
    buf: PyBuffer<u8>,
}

impl OutBuf {
    /// `obj`'s buffer, refused if read-only, not contiguous, or sharing
    /// memory with `src` (a decoder may not read what it writes).
    fn get(obj: &Bound<'_, PyAny>, what: &str, src: &[u8]) -> PyResult<OutBuf> {
        let out = OutBuf {
            buf: byte_buffer(obj, true, what)?,
        };
        let (start, end) = (
            out.buf.buf_ptr() as usize,
            out.buf.buf_ptr() as usize + out.len(),
        );
        let (s_start, s_end) = (src.as_ptr() as usize, src.as_ptr() as usize + src.len());
        if out.len() > 0 && !src.is_empty() && start < s_end && s_start < end {
            return Err(PyValueError::new_err(format!(
                "{what} shares memory with the input: decode into a separate buffer"
            )));
        }
        Ok(out)
    }

    fn len(&self) -> usize {
        self.buf.len_bytes()
    }

    /// The bytes, to be written. Valid while `self` is held.
    fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len();
        if len == 0 {
            return &mut [];
        }
        // SAFETY: a writable, C-contiguous export of `len` one-byte items,
        // held (so allocated and unmoved) while `self.buf` lives; `get`
        // checked that it does not overlap the input read beside it, and
        // `&mut self` makes this the only Rust view of it.
        unsafe { std::slice::from_raw_parts_mut(self.buf.buf_ptr() as *mut u8, len) }
    }
}

/// `data` as `bytes`, or as `bytearray` if asked.
fn output(py: Python<'_>, data: &[u8], bytearray: bool) -> PyObject {
    if bytearray {
        PyByteArray::new(py, data).into_any().unbind()
    } else {
        PyBytes::new(py, data).into_any().unbind()
    }
}

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

fn frame_block_size(code: i32) -> PyResult<BlockSize> {
    match code {
        0 | 4 => Ok(BlockSize::Max64KB),
        5 => Ok(BlockSize::Max256KB),
        6 => Ok(BlockSize::Max1MB),
        7 => Ok(BlockSize::Max4MB),
        other => Err(PyValueError::new_err(format!(
            "invalid block_size {other}: use BLOCKSIZE_DEFAULT, BLOCKSIZE_MAX64KB, BLOCKSIZE_MAX256KB, BLOCKSIZE_MAX1MB or BLOCKSIZE_MAX4MB"
        ))),
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

fn runtime(e: lzkit::Error) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// `lz4.block.compress`.
#[pyfunction]
#[pyo3(signature = (source, mode="default", acceleration=1, compression=9, store_size=true, return_bytearray=false, dict=None))]
#[allow(clippy::too_many_arguments)]
fn block_compress(
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
        "fast" => Level::fast(acceleration.max(1).unsigned_abs()),
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
    let dict = dict.map(Input::get).transpose()?;
    if src.bytes().len() > block::MAX_INPUT_SIZE {
        return Err(PyValueError::new_err(format!(
            "Input too large for LZ4 API: {} bytes (the block format's limit is {})",
            src.bytes().len(),
            block::MAX_INPUT_SIZE
        )));
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

thread_local! {
    /// This thread's compression output, kept between calls so that its
    /// pages stay mapped (a fresh buffer costs a page fault per 4 KiB,
    /// about what compressing into it costs); each result is copied out of
    /// it into the object returned, as python-lz4 copies out of its own.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The most memory a thread's [`SCRATCH`] keeps between calls.
const SCRATCH_KEEP: usize = 64 << 20;

/// Run `f` with this thread's scratch buffer (a fresh one if it is in use).
fn with_scratch<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut buf) => {
            let r = f(&mut buf);
            if buf.capacity() > SCRATCH_KEEP {
                *buf = Vec::new();
            }
            r
        }
        Err(_) => f(&mut Vec::new()),
    })
}

/// `lz4.block.decompress`: the size from the 4-byte prefix, or
/// `uncompressed_size` (then the most it may decode to; the result is what
/// it decodes to).
#[pyfunction]
#[pyo3(signature = (source, uncompressed_size=-1, return_bytearray=false, dict=None))]
fn block_decompress(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    uncompressed_size: i64,
    return_bytearray: bool,
    dict: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    let src = Input::get(source)?;
    let dict = dict.map(Input::get).transpose()?;
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
    let size = usize::try_from(size).map_err(|_| PyValueError::new_err("invalid size"))?;
    // Never more than the input can decode to (255 bytes per byte): a
    // size field cannot make us allocate what the data does not back.
    let bound = body.len().saturating_mul(255).saturating_add(64);
    if size > bound && uncompressed_size < 0 {
        return Err(LZ4BlockError::new_err(format!(
            "Decompression failed: corrupt input: {} bytes cannot decode to the {size} bytes the size prefix says",
            body.len()
        )));
    }
    let cap = size.min(bound);
    let decode = |dst: &mut [u8]| -> Result<usize, lzkit::Error> {
        match &dict {
            Some(d) => block::decompress_with_dict_into(body, dst, d.bytes()),
            None => block::decompress_into(body, dst),
        }
    };
    let failed = |e: lzkit::Error| LZ4BlockError::new_err(format!("Decompression failed: {e}"));
    // Straight into the object returned; only a block shorter than the
    // size given (a generous `uncompressed_size`) is copied out of it.
    let mut written = 0;
    let filled = |buf: &mut [u8]| -> PyResult<()> {
        written = py.allow_threads(|| decode(buf)).map_err(failed)?;
        Ok(())
    };
    let out: PyObject = if return_bytearray {
        PyByteArray::new_with(py, cap, filled)?.into_any().unbind()
    } else {
        PyBytes::new_with(py, cap, filled)?.into_any().unbind()
    };
    if uncompressed_size < 0 && written != size {
        return Err(LZ4BlockError::new_err(format!(
            "Decompression failed: decoded {written} bytes, the size prefix says {size}"
        )));
    }
    if written == cap {
        return Ok(out);
    }
    let view = Input::get(out.bind(py))?;
    Ok(output(py, &view.bytes()[..written], return_bytearray))
}

/// `lz4.frame.compress`, with `threads`.
#[pyfunction]
#[pyo3(signature = (data, compression_level=0, block_size=0, content_checksum=false, block_checksum=false, block_linked=true, store_size=true, return_bytearray=false, threads=1))]
#[allow(clippy::too_many_arguments)]
fn frame_compress(
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
fn frame_decompress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    return_bytearray: bool,
    return_bytes_read: bool,
    threads: usize,
) -> PyResult<PyObject> {
    let src = Input::get(data)?;
    let all = src.bytes();
    // A frame that says its size is decoded straight into the object
    // returned, if its blocks can produce that much (a size in a header
    // is a claim: a larger one is decoded as the blocks grow, to its
    // content-size error, never allocated).
    let exact = frame::read_header(all).ok().and_then(|h| {
        h.content_size
            .filter(|_| h.kind == frame::FrameKind::Standard && h.dict_id.is_none() && threads <= 1)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= lz4_blocks_bound(all, &h))
    });
    let (out, used) = match exact {
        Some(size) => {
            let mut used = 0;
            let filled = |buf: &mut [u8]| -> PyResult<()> {
                let (_, n) = py
                    .allow_threads(|| frame::decompress_into(all, buf))
                    .map_err(runtime)?;
                used = n;
                Ok(())
            };
            let out: PyObject = if return_bytearray {
                PyByteArray::new_with(py, size, filled)?.into_any().unbind()
            } else {
                PyBytes::new_with(py, size, filled)?.into_any().unbind()
            };
            (out, used)
        }
        None => {
            let (decoded, used) = py
                .allow_threads(|| frame::decompress_first(all, threads))
                .map_err(runtime)?;
            (output(py, &decoded, return_bytearray), used)
        }
    };
    if return_bytes_read {
        Ok((out, used).into_pyobject(py)?.into_any().unbind())
    } else {
        Ok(out)
    }
}

/// The most the blocks of the LZ4 frame at the start of `src` (header
/// `h`, from [`frame::read_header`]) can decode to, from their block
/// headers alone: a stored block its length, a compressed block at most
/// 255 bytes per byte, each at most the block maximum. Blocks cut short
/// count only the bytes there.
fn lz4_blocks_bound(src: &[u8], h: &frame::FrameInfo) -> usize {
    const STORED: u32 = 1 << 31;
    let block_max = h.block_size.unwrap_or(BlockSize::Max4MB).bytes();
    let trailer = if h.block_checksum { 4 } else { 0 };
    let mut pos = usize::try_from(h.compressed_size).unwrap_or(usize::MAX);
    let mut most = 0usize;
    while let Some(word) = src.get(pos..pos.saturating_add(4)) {
        let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let len = (word & !STORED) as usize;
        if word == 0 || len > block_max {
            break;
        }
        let there = len.min(src.len() - pos - 4);
        let produces = if word & STORED != 0 {
            there
        } else {
            there.saturating_mul(255).saturating_add(24)
        };
        most = most.saturating_add(produces.min(block_max));
        pos = pos.saturating_add(4 + len + trailer);
    }
    most
}

/// `lz4.frame.get_frame_info`: what the frame header says.
#[pyfunction]
fn get_frame_info<'py>(py: Python<'py>, frame: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let src = Input::get(frame)?;
    let h = frame::read_header(src.bytes())
        .map_err(|e| PyRuntimeError::new_err(format!("LZ4F_getFrameInfo failed: {e}")))?;
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
struct FrameCompressor {
    opts: FrameOptions,
    encoder: Option<frame::FrameEncoder<Vec<u8>>>,
}

impl FrameCompressor {
    fn take_output(&mut self) -> Vec<u8> {
        self.encoder
            .as_mut()
            .map(|e| std::mem::take(e.get_mut()))
            .unwrap_or_default()
    }
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
        enc.flush().map_err(|e| runtime(lzkit::Error::from_io(e)))?;
        self.encoder = Some(enc);
        Ok(PyBytes::new(py, &self.take_output()).unbind())
    }

    /// Compress `data`: returns the compressed bytes ready so far.
    fn compress(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyBytes>> {
        let src = Input::get(data)?;
        let Some(enc) = self.encoder.as_mut() else {
            return Err(PyRuntimeError::new_err(
                "LZ4FrameCompressor.compress() called before begin()",
            ));
        };
        py.allow_threads(|| enc.write_all(src.bytes()))
            .map_err(|e| runtime(lzkit::Error::from_io(e)))?;
        Ok(PyBytes::new(py, &self.take_output()).unbind())
    }

    /// End the block in progress without ending the frame (python-lz4's
    /// `auto_flush`, `compress_flush(end_frame=False)`): returns every
    /// compressed byte of the input so far.
    fn flush_blocks(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let Some(enc) = self.encoder.as_mut() else {
            return Err(PyRuntimeError::new_err(
                "LZ4FrameCompressor.flush() called before begin()",
            ));
        };
        py.allow_threads(|| enc.flush())
            .map_err(|e| runtime(lzkit::Error::from_io(e)))?;
        Ok(PyBytes::new(py, &self.take_output()).unbind())
    }

    /// End the frame: returns the rest of it.
    fn flush(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let Some(enc) = self.encoder.take() else {
            return Err(PyRuntimeError::new_err(
                "LZ4FrameCompressor.flush() called before begin()",
            ));
        };
        let out = py
            .allow_threads(|| enc.finish())
            .map_err(|e| runtime(lzkit::Error::from_io(e)))?;
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
struct FrameDecompressor {
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
            .map_err(runtime)?
        {
            self.eof = true;
        }
        let left = self.pending.len() - self.pending_at;
        let n = if max_length < 0 {
            left
        } else {
            left.min(max_length as usize)
        };
        let out = PyBytes::new(py, &self.pending[self.pending_at..self.pending_at + n]).unbind();
        self.pending_at += n;
        Ok(out)
    }

    /// A frame ended and all its bytes were returned.
    #[getter]
    fn eof(&self) -> bool {
        self.eof && self.pending_at == self.pending.len()
    }

    /// Bytes after the end of the frame.
    #[getter]
    fn unused_data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, if self.eof { self.decoder.unused() } else { &[] })
    }

    /// Whether more input is needed for more output.
    #[getter]
    fn needs_input(&self) -> bool {
        self.pending_at == self.pending.len() && !self.eof
    }

    /// Forget everything.
    fn reset(&mut self) {
        *self = FrameDecompressor::new(1);
    }
}

/// A Python file object as a `Read`: its `read(n)` (or `readinto`).
struct PyReader {
    file: PyObject,
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::with_gil(|py| {
            let got = self
                .file
                .call_method1(py, "read", (buf.len(),))
                .map_err(|e| io::Error::other(e.to_string()))?;
            let got = got.bind(py);
            let input = Input::get(got).map_err(|e| io::Error::other(e.to_string()))?;
            let bytes = input.bytes();
            if bytes.len() > buf.len() {
                return Err(io::Error::other("read() returned more bytes than asked"));
            }
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

/// Decoded bytes of an LZ4 or zstd stream read from a Python file object,
/// in bounded memory: `read(n)`.
#[pyclass(module = "lzkit._lzkit", unsendable)]
struct Reader {
    inner: Box<dyn Read>,
    zstd: bool,
}

#[pymethods]
impl Reader {
    /// `codec`: "lz4" or "zstd"; `window_log_max`: the largest zstd window.
    #[new]
    #[pyo3(signature = (fileobj, codec="lz4", threads=1, window_log_max=27))]
    fn new(fileobj: PyObject, codec: &str, threads: usize, window_log_max: u32) -> PyResult<Self> {
        let src = PyReader { file: fileobj };
        let (inner, zstd): (Box<dyn Read>, bool) = match codec {
            "lz4" => (
                Box::new(frame::FrameDecoder::with_options(
                    src,
                    &frame::DecodeOptions::new().threads(threads),
                )),
                false,
            ),
            "zstd" => {
                let opts = lzkit::zstd::DecodeOptions::new().window_log_max(window_log_max);
                let dec = lzkit::zstd::Decoder::new().options(opts);
                (
                    Box::new(lzkit::zstd::FrameDecoder::with_decoder(src, dec)),
                    true,
                )
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown codec {other:?}: \"lz4\" or \"zstd\""
                )));
            }
        };
        Ok(Reader { inner, zstd })
    }

    /// Up to `size` decoded bytes (all that is left if negative); `b""` at
    /// the end.
    #[pyo3(signature = (size=-1))]
    fn read(&mut self, py: Python<'_>, size: i64) -> PyResult<Py<PyBytes>> {
        let mut out = Vec::new();
        let result = if size < 0 {
            self.inner.read_to_end(&mut out).map(|_| ())
        } else {
            let want = size as usize;
            out.resize(want, 0);
            let mut filled = 0;
            let r = loop {
                match self.inner.read(&mut out[filled..]) {
                    Ok(0) => break Ok(()),
                    Ok(n) => {
                        filled += n;
                        if filled == want {
                            break Ok(());
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            out.truncate(filled);
            r
        };
        result.map_err(|e| {
            let msg = lzkit::Error::from_io(e).to_string();
            if self.zstd {
                ZstdError::new_err(msg)
            } else {
                PyRuntimeError::new_err(msg)
            }
        })?;
        Ok(PyBytes::new(py, &out).unbind())
    }
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
fn zstd_decompress(
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

/// A `bytes` object of at most `cap` bytes that `fill` writes (returning
/// how many): decoded in place, then shrunk to that length (no copy of
/// the content).
fn bytes_up_to(
    py: Python<'_>,
    cap: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<usize>,
) -> PyResult<Py<PyBytes>> {
    let mut written = 0;
    let out = PyBytes::new_with(py, cap, |buf| {
        written = fill(buf)?;
        Ok(())
    })?;
    if written == cap {
        return Ok(out.unbind());
    }
    let mut ptr = out.into_ptr();
    // SAFETY: `ptr` is a new `bytes` object this function alone refers
    // to (its only reference, taken from `out`; `fill` never saw the
    // object, and `cap` is not 0, as a fill of 0 bytes returned above:
    // not the shared empty `bytes`), as `_PyBytes_Resize` requires; on failure it releases the
    // object and sets `ptr` to NULL with an exception set. On success
    // `ptr` is an owned reference to a `bytes` object, so the unchecked
    // downcast holds.
    unsafe {
        if pyo3::ffi::_PyBytes_Resize(&mut ptr, written as pyo3::ffi::Py_ssize_t) != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, ptr)
            .downcast_into_unchecked::<PyBytes>()
            .unbind())
    }
}

/// `lzkit.zstd.compress` (libzstd): one frame, its size in the header.
#[pyfunction]
#[pyo3(signature = (data, level=3, checksum=true, threads=0))]
fn zstd_compress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    level: i32,
    checksum: bool,
    threads: u32,
) -> PyResult<Py<PyBytes>> {
    let src = Input::get(data)?;
    let opts = lzkit::zstd::EncodeOptions::new()
        .level(level)
        .checksum(checksum)
        .workers(threads);
    let out = py
        .allow_threads(|| lzkit::zstd::compress(src.bytes(), &opts))
        .map_err(|e| ZstdError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &out).unbind())
}

/// An LZ4 block decoder that keeps what it learns about the stream
/// (lzkit's adaptive decoder: it chooses the fastest copy strategy for
/// the data it sees).
#[pyclass(module = "lzkit._lzkit")]
struct BlockDecoder {
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
        let bound = src.bytes().len().saturating_mul(255).saturating_add(64);
        let mut out = vec![0u8; uncompressed_size.min(bound)];
        let inner = &mut self.inner;
        let n = py
            .allow_threads(|| inner.decompress_into(src.bytes(), &mut out))
            .map_err(|e| LZ4BlockError::new_err(format!("Decompression failed: {e}")))?;
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
            .map_err(|e| LZ4BlockError::new_err(format!("Decompression failed: {e}")))
    }
}

/// `lzkit.recompress_file`: decode `src` (LZ4, zstd, gzip, zlib, xz or
/// LZMA) and write its content to `dst` as `to` ("lz4" or "zstd") at
/// `level` (None: the format's default), `seekable` chunks if not 0, on
/// `threads` threads (0: all cores; 1: decoding and encoding on the
/// calling thread). The output is written under a random hidden name in
/// `dst`'s directory, created exclusively (never through a link planted
/// there), and renamed over `dst` when complete (and, with `verify`,
/// decoded again and compared); on failure it is removed. A `dst` that is
/// `src` (the same file, also through a link) is refused. Returns the
/// summary.
#[pyfunction]
#[pyo3(signature = (src, dst, to="zstd", level=None, threads=0, verify=true, seekable=0))]
#[allow(clippy::too_many_arguments)]
fn recompress_file<'py>(
    py: Python<'py>,
    src: std::path::PathBuf,
    dst: std::path::PathBuf,
    to: &str,
    level: Option<i32>,
    threads: usize,
    verify: bool,
    seekable: usize,
) -> PyResult<Bound<'py, PyDict>> {
    use lzkit::recompress::{RecompressError, RecompressOptions, Target};
    let lz4 = FrameOptions::new()
        .level(Level::new(level.unwrap_or(1)))
        .threads(threads);
    let zstd = lzkit::zstd::EncodeOptions::new()
        .level(level.unwrap_or(3))
        .workers(u32::try_from(threads).unwrap_or(u32::MAX));
    let target = match (to, seekable) {
        ("lz4", 0) => Target::Lz4(lz4),
        ("zstd" | "zst", 0) => Target::Zstd(zstd),
        // The options a split file's parts use too (`split::join_parts`
        // then gives these bytes).
        ("lz4" | "zstd" | "zst", n) => {
            Target::Seekable(split::write_options(to, level, n)?.threads(threads))
        }
        (other, _) => {
            return Err(PyValueError::new_err(format!(
                "unknown target format {other:?}: \"lz4\" or \"zstd\""
            )));
        }
    };
    // One thread: decoding too on the calling thread (a cluster's task
    // then takes one core).
    let opts = RecompressOptions::new(target)
        .verify(verify)
        .serial(threads == 1);
    let result = py.allow_threads(|| -> Result<lzkit::recompress::Summary, String> {
        let input = std::fs::File::open(&src).map_err(|e| format!("{}: {e}", src.display()))?;
        refuse_same_file(&src, &input, &dst)?;
        let tmp = temporary_for(&dst)?;
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
                    .map_err(|e| format!("{}: {}", dst.display(), e.error()))?;
                tmp.as_file()
                    .sync_all()
                    .map_err(|e| format!("{}: {e}", dst.display()))?;
                (tmp, summary)
            }
            Err(RecompressError::Input(e)) => return Err(format!("{}: {e}", src.display())),
            Err(RecompressError::Output(e)) => return Err(format!("{}: {e}", dst.display())),
        };
        persist(tmp, &dst)?;
        Ok(summary)
    });
    let summary = result.map_err(PyRuntimeError::new_err)?;
    summary_dict(py, &summary)
}

/// A new, empty temporary file in the directory of `dst` (so that the
/// final rename stays on one file system), as the command makes them: a
/// random hidden name (`.lzkit-XXXXXX.tmp`), created exclusively
/// (`O_CREAT | O_EXCL`: never through a link planted at its name), mode
/// 0666 less the umask; deleted when dropped unless [`persist`]ed.
pub(crate) fn temporary_for(dst: &std::path::Path) -> Result<tempfile::NamedTempFile, String> {
    let dir = match dst.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".lzkit-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(|e| {
        format!(
            "{}: cannot create a file in {}: {e}",
            dst.display(),
            dir.display()
        )
    })
}

/// Rename the complete temporary file `tmp` to `dst`, replacing what is
/// there (a link at `dst` is replaced, never followed); on failure `tmp`
/// is deleted.
pub(crate) fn persist(tmp: tempfile::NamedTempFile, dst: &std::path::Path) -> Result<(), String> {
    tmp.persist(dst)
        .map(drop)
        .map_err(|e| format!("{}: {}", dst.display(), e.error))
}

/// Refuse to write `dst` if it is the file `src` (opened as `input`):
/// the same device and inode, also through a symbolic or hard link (the
/// command refuses this too). A `dst` that does not exist is fine.
pub(crate) fn refuse_same_file(
    src: &std::path::Path,
    input: &std::fs::File,
    dst: &std::path::Path,
) -> Result<(), String> {
    let same = match (input.metadata(), std::fs::metadata(dst)) {
        (Ok(a), Ok(b)) => same_inode(&a, &b),
        _ => false,
    };
    if same {
        return Err(format!(
            "{}: the output is the same file as the input {}: choose another output name",
            dst.display(),
            src.display()
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// A recompression summary as Python gets it (`lzkit.recompress_file`,
/// and a split file's join).
fn summary_dict<'py>(
    py: Python<'py>,
    summary: &lzkit::recompress::Summary,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("source", summary.source.name())?;
    d.set_item("read", summary.read)?;
    d.set_item("content", summary.content)?;
    d.set_item("content_xxh64", summary.content_xxh64)?;
    d.set_item("written", summary.written)?;
    d.set_item("verified", summary.verified)?;
    Ok(d)
}

/// `lzkit.probe_files`: the codec probe of `lzkit probe` on `paths`: an
/// evenly spread sample of `sample_bytes` (the same every time), cut into
/// `block_size` blocks (None: whole files), compressed with each of
/// `settings` (`(codec, level, favor_dec_speed)`; None: the defaults).
/// `time_limit` (seconds; None: none) stops slow settings early, their
/// ratio then estimated. Returns the report as a dict.
#[pyfunction]
#[pyo3(signature = (paths, settings=None, sample_bytes=32 << 20, block_size=Some(64 << 10), threads=0, time_limit=Some(1.5)))]
fn probe_files<'py>(
    py: Python<'py>,
    paths: Vec<std::path::PathBuf>,
    settings: Option<Vec<(String, i32, bool)>>,
    sample_bytes: u64,
    block_size: Option<usize>,
    threads: usize,
    time_limit: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    use lzkit::probe::{self, ProbeOptions, SampleBuilder, Setting};
    let blocks = match block_size {
        Some(0) => {
            return Err(PyValueError::new_err(
                "block_size must be positive (None: whole files)",
            ));
        }
        Some(n) => probe::BlockSize::Bytes(n),
        None => probe::BlockSize::WholeFile,
    };
    let settings = match settings {
        None => Setting::defaults(),
        Some(list) => list
            .into_iter()
            .map(|(codec, level, favor)| match codec.as_str() {
                "lz4" if favor => Ok(Setting::lz4_favor_dec_speed(level)),
                "lz4" => Ok(Setting::lz4(level)),
                "zstd" => Ok(Setting::zstd(level)),
                other => Err(PyValueError::new_err(format!(
                    "unknown codec {other:?}: \"lz4\" or \"zstd\""
                ))),
            })
            .collect::<PyResult<Vec<_>>>()?,
    };
    let opts = ProbeOptions::new()
        .settings(settings)
        .threads(threads)
        .time_limit(time_limit.map(std::time::Duration::from_secs_f64));
    let report = py
        .allow_threads(|| {
            let mut builder = SampleBuilder::new(sample_bytes, blocks);
            for p in &paths {
                builder = builder.file(p.clone());
            }
            let sample = builder.build()?;
            probe::probe(&sample, &opts)
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("input_bytes", report.input_bytes)?;
    d.set_item("files", report.files)?;
    d.set_item("sample_bytes", report.sample_bytes)?;
    d.set_item("blocks", report.blocks)?;
    d.set_item("block_size", report.block_size.to_string())?;
    d.set_item("whole_input", report.whole_input)?;
    d.set_item("threads", report.threads)?;
    let list = pyo3::types::PyList::empty(py);
    for c in &report.candidates {
        let e = PyDict::new(py);
        e.set_item("codec", c.setting.codec_name())?;
        e.set_item("level", c.setting.level)?;
        e.set_item("favor_dec_speed", c.setting.favor_dec_speed)?;
        e.set_item("setting", c.setting.to_string())?;
        e.set_item("ratio", c.ratio)?;
        e.set_item("sample_bytes", c.sample_bytes)?;
        e.set_item("blocks", c.blocks)?;
        e.set_item("compressed_bytes", c.compressed_bytes)?;
        e.set_item("compress_mbps", c.compress_mbps)?;
        e.set_item("compress_mbps_threads", c.compress_mbps_threads)?;
        e.set_item("decompress_mbps", c.decompress_mbps)?;
        e.set_item("compress_memory", c.compress_memory)?;
        e.set_item("decompress_memory", c.decompress_memory)?;
        e.set_item("pareto", c.pareto)?;
        e.set_item("pareto_compress", c.pareto_compress)?;
        list.append(e)?;
    }
    d.set_item("candidates", list)?;
    Ok(d)
}

/// The native module.
#[pymodule(gil_used = false)]
fn _lzkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("LZ4BlockError", py.get_type::<LZ4BlockError>())?;
    m.add("ZstdError", py.get_type::<ZstdError>())?;
    m.add_function(wrap_pyfunction!(block_compress, m)?)?;
    m.add_function(wrap_pyfunction!(block_decompress, m)?)?;
    m.add_function(wrap_pyfunction!(frame_compress, m)?)?;
    m.add_function(wrap_pyfunction!(frame_decompress, m)?)?;
    m.add_function(wrap_pyfunction!(get_frame_info, m)?)?;
    m.add_function(wrap_pyfunction!(zstd_decompress, m)?)?;
    m.add_function(wrap_pyfunction!(zstd_compress, m)?)?;
    m.add_function(wrap_pyfunction!(recompress_file, m)?)?;
    m.add_function(wrap_pyfunction!(probe_files, m)?)?;
    m.add_function(wrap_pyfunction!(root::root_decompress_into, m)?)?;
    m.add_function(wrap_pyfunction!(split::seekable_content, m)?)?;
    m.add_function(wrap_pyfunction!(split::recompress_part, m)?)?;
    m.add_function(wrap_pyfunction!(split::join_parts, m)?)?;
    m.add_class::<FrameCompressor>()?;
    m.add_class::<FrameDecompressor>()?;
    m.add_class::<Reader>()?;
    m.add_class::<BlockDecoder>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
