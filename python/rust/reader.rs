//! Decoded bytes of a compressed stream read from a Python file object
//! (`LZ4FrameFile` and zstd's `stream_reader`), in bounded memory; and
//! random access through the seek table of a file written with
//! `--seekable` (`LZ4FrameFile.seek`).

use std::io::{self, Read, Seek, SeekFrom};

use lzkit::format::{self, Codec, DecodeOptions};
use lzkit::seekable::{Locked, ReaderOptions, SeekableReader, TableFormat};
use pyo3::exceptions::{PyEOFError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, with_detail};
use crate::formats;
use crate::lz4_frame::lz4f;
use crate::zstd::ZstdError;

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

/// A seekable Python file object as a `Seek`: its `seek(offset, whence)`.
impl Seek for PyReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (offset, whence) = match to {
            SeekFrom::Start(p) => (i128::from(p), 0),
            SeekFrom::Current(d) => (i128::from(d), 1),
            SeekFrom::End(d) => (i128::from(d), 2),
        };
        Python::with_gil(|py| {
            self.file
                .call_method1(py, "seek", (offset, whence))
                .and_then(|p| p.extract::<u64>(py))
                .map_err(|e| io::Error::other(e.to_string()))
        })
    }
}

/// Decoded bytes of an LZ4 or zstd stream read from a Python file object,
/// in bounded memory: `read(n)`. Any thread may read it (a file opened in
/// one thread is often read in another); the decoder is behind a mutex,
/// which makes it `Sync` as a class of a free-threaded build must be
/// (reads take `&mut self` and so reach it without locking: Python's
/// borrow flag already keeps them one at a time).
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct Reader {
    inner: std::sync::Mutex<Box<dyn Read + Send>>,
    codec: Codec,
}

#[pymethods]
impl Reader {
    /// `codec`: "lz4" or "zstd"; `window_log_max`: the largest zstd window.
    #[new]
    #[pyo3(signature = (fileobj, codec="lz4", threads=1, window_log_max=27))]
    fn new(fileobj: PyObject, codec: &str, threads: usize, window_log_max: u32) -> PyResult<Self> {
        let codec = formats::codec(codec)?;
        let opts = DecodeOptions::new()
            .threads(threads)
            .window_log_max(window_log_max);
        let src = PyReader { file: fileobj };
        let inner = format::decoder(formats::frames_of(codec)?, src, &opts)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Reader {
            inner: std::sync::Mutex::new(inner),
            codec,
        })
    }

    /// Up to `size` decoded bytes (all that is left if negative); `b""` at
    /// the end.
    #[pyo3(signature = (size=-1))]
    fn read(&mut self, py: Python<'_>, size: i64) -> PyResult<Py<PyBytes>> {
        let mut out = Vec::new();
        // No guard is ever taken (so it is never poisoned).
        let inner = self
            .inner
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let result = if size < 0 {
            inner.read_to_end(&mut out).map(|_| ())
        } else {
            let want = size as usize;
            out.resize(want, 0);
            let mut filled = 0;
            let r = loop {
                match inner.read(&mut out[filled..]) {
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
        result.map_err(|e| self.error(py, e))?;
        Ok(PyBytes::new(py, &out).unbind())
    }

    /// Up to `size` decoded bytes from one read of the decoder (`b""` at
    /// the end): what it has decoded already, else what it decodes from
    /// the input it reads first, as little as the next block gives (the
    /// `read1()` of a zstd stream reader).
    fn read1(&mut self, py: Python<'_>, size: usize) -> PyResult<Py<PyBytes>> {
        let mut out = vec![0u8; size];
        // No guard is ever taken (so it is never poisoned).
        let inner = self
            .inner
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = loop {
            match inner.read(&mut out) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.error(py, e)),
            }
        };
        out.truncate(n);
        Ok(PyBytes::new(py, &out).unbind())
    }
}

impl Reader {
    /// A decoding error as the codec's Python exception.
    fn error(&self, py: Python<'_>, e: io::Error) -> PyErr {
        let e = lzkit::Error::from_io(e);
        // zstandard's exception for zstd, python-lz4's for LZ4 (its
        // file raises EOFError for a file cut short).
        if self.codec == Codec::Zstd {
            ZstdError::new_err(e.to_string())
        } else if truncated(&e) {
            with_detail(
                py,
                PyEOFError::new_err(
                    "Compressed file ended before the end-of-stream marker was reached",
                ),
                e.to_string(),
            )
        } else {
            lz4f(py, e)
        }
    }
}

/// The decoded content of an LZ4 file written with a seek table
/// (`lzkit compress --seekable`, `recompress_file(..., seekable=N)`),
/// read at any offset through the table: only the frames a read touches
/// are decoded.
///
/// The table is a claim about the file, never trusted: opening checks it
/// against the file (its entries lie before the table and in order, and
/// the bytes they leave out hold no data), and a read checks the frame
/// headers of the entries that place it (their stated content sizes) and
/// the decoded size and checksum of what it decodes. Any disagreement is an
/// error; `LZ4FrameFile` then reads by decoding from the start instead.
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct TableReader {
    inner: SeekableReader<Locked<PyReader>>,
}

#[pymethods]
impl TableReader {
    /// The reader of `fileobj` (a seekable binary file, positioned
    /// anywhere) if it ends in an LZ4 seek table that checks out against
    /// it, else None (no table, a zstd one, or one the file refutes).
    #[staticmethod]
    fn open(py: Python<'_>, fileobj: PyObject) -> Option<Self> {
        let src = Locked::new(PyReader { file: fileobj });
        // No table: None (never a scan, which reads the whole file).
        let opts = ReaderOptions::new().scan(false);
        let inner = py
            .allow_threads(|| SeekableReader::with_options(src, opts))
            .ok()?;
        (inner.table().format() == TableFormat::Lz4).then_some(TableReader { inner })
    }

    /// Up to `size` decoded bytes from `offset` (fewer only at the end).
    fn read_at(&self, py: Python<'_>, offset: u64, size: usize) -> PyResult<Py<PyBytes>> {
        // No more room than the content has left (at least a byte: a read
        // at the end checks every entry's header before it reports it).
        let left = self.inner.len().saturating_sub(offset).max(1);
        let mut out = vec![0u8; usize::try_from(left).map_or(size, |l| l.min(size))];
        let n = py
            .allow_threads(|| self.inner.read_at(offset, &mut out))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &out[..n]).unbind())
    }

    /// The decoded content's length, as the table states it, once every
    /// entry was checked against its frame's header (each places the
    /// content after it).
    fn size(&self, py: Python<'_>) -> PyResult<u64> {
        let len = self.inner.len();
        // A read at the end checks every entry's header before it reports
        // the end.
        py.allow_threads(|| self.inner.read_at(len, &mut [0u8; 1]))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(len)
    }
}

/// Whether `e` is a stream cut short (in whatever frame or block).
fn truncated(e: &lzkit::Error) -> bool {
    match e {
        lzkit::Error::Frame { source, .. } | lzkit::Error::Block { source, .. } => {
            truncated(source)
        }
        lzkit::Error::Truncated { .. } => true,
        _ => false,
    }
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Reader>()?;
    m.add_class::<TableReader>()?;
    Ok(())
}
