//! What every codec's functions share: Python buffers read and written
//! without a copy (the buffer protocol), the outputs returned (`bytes` or
//! `bytearray`, filled in place), the per-thread compression scratch, and
//! the mapping of a library error to a Python exception.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

/// A C-contiguous byte buffer of any Python object, held for the call.
pub(crate) struct Input {
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
    pub(crate) fn get(obj: &Bound<'_, PyAny>) -> PyResult<Input> {
        Ok(Input {
            buf: byte_buffer(obj, false, "the input")?,
        })
    }

    /// The bytes. Valid while `self` is held: the exporter cannot free or
    /// resize its memory while a buffer view of it exists.
    pub(crate) fn bytes(&self) -> &[u8] {
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
pub(crate) struct OutBuf {
    buf: PyBuffer<u8>,
}

impl OutBuf {
    /// `obj`'s buffer, refused if read-only, not contiguous, or sharing
    /// memory with `src` (a decoder may not read what it writes).
    pub(crate) fn get(obj: &Bound<'_, PyAny>, what: &str, src: &[u8]) -> PyResult<OutBuf> {
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

    pub(crate) fn len(&self) -> usize {
        self.buf.len_bytes()
    }

    /// The bytes, to be written. Valid while `self` is held.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
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
pub(crate) fn output(py: Python<'_>, data: &[u8], bytearray: bool) -> PyObject {
    if bytearray {
        PyByteArray::new(py, data).into_any().unbind()
    } else {
        PyBytes::new(py, data).into_any().unbind()
    }
}

/// Outputs of at least this many bytes are asked to be backed by huge
/// pages while they are written ([`HugePages`]). Under glibc an object
/// this large usually gets a mapping of its own (on 64-bit systems 32 MiB
/// is the most its adaptive mmap threshold grows to), so each of its 4 KiB
/// pages is a page fault when first written: about a fifth of a 116 MB
/// zstd decode's time.
const HUGE_FROM: usize = 32 << 20;

/// Transparent huge pages asked for (Linux's `madvise(MADV_HUGEPAGE)`)
/// over the whole 2 MiB pages of a new output while it is first written:
/// one page fault, not 512, for each 2 MiB. Only where the kernel's mode
/// is `madvise` (under `always` they need no asking, under `never` they
/// are not given). The advice is withdrawn when this is dropped (once the
/// output is written), so that memory the allocator reuses after the
/// object is freed is not left eligible for huge pages; the pages already
/// given stay, holding the object. A hint: its results are not checked.
/// Elsewhere than on Linux, never made.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct HugePages {
    start: usize,
    len: usize,
}

impl HugePages {
    /// The advice for the `len` bytes at `data` (one allocation, not yet
    /// touched), or `None` where none is given.
    #[cfg(target_os = "linux")]
    fn advise(data: *mut u8, len: usize) -> Option<HugePages> {
        const HUGE: usize = 2 << 20;
        static MADVISE_MODE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if len < HUGE_FROM {
            return None;
        }
        // The mode in use is the bracketed one: "always [madvise] never".
        let mode = MADVISE_MODE.get_or_init(|| {
            std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                .is_ok_and(|m| m.contains("[madvise]"))
        });
        let start = (data as usize).checked_next_multiple_of(HUGE)?;
        let end = (data as usize).saturating_add(len) & !(HUGE - 1);
        if !*mode || end <= start {
            return None;
        }
        let advice = HugePages {
            start,
            len: end - start,
        };
        advice.set(libc::MADV_HUGEPAGE);
        Some(advice)
    }

    #[cfg(not(target_os = "linux"))]
    fn advise(_data: *mut u8, _len: usize) -> Option<HugePages> {
        None
    }

    #[cfg(target_os = "linux")]
    fn set(&self, advice: libc::c_int) {
        // SAFETY: the range is page-aligned and within one allocation that
        // outlives this value (the object being written); the advice
        // changes no byte, only how its pages are backed.
        unsafe {
            libc::madvise(self.start as *mut libc::c_void, self.len, advice);
        }
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        self.set(libc::MADV_NOHUGEPAGE);
    }
}

/// A new `bytes` object (a `bytearray` if asked) of `len` zero bytes that
/// `fill` then writes in place (no copy of the content); returns the
/// object and what `fill` returned. A large one is backed by huge pages
/// where the system allows ([`HUGE_FROM`]), and is zero-filled (where its
/// page faults happen) with the GIL released.
fn filled<'py, R>(
    py: Python<'py>,
    len: usize,
    bytearray: bool,
    fill: impl FnOnce(&mut [u8]) -> PyResult<R>,
) -> PyResult<(Bound<'py, PyAny>, R)> {
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {len} bytes")))?;
    // SAFETY: a null pointer asks for a new object with room for `size`
    // bytes, not yet written (documented for `bytes`, and supported by
    // CPython for `bytearray` too, as pyo3 relies on); a null result has
    // an exception set, which `from_owned_ptr_or_err` returns.
    let obj = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            if bytearray {
                ffi::PyByteArray_FromStringAndSize(std::ptr::null(), size)
            } else {
                ffi::PyBytes_FromStringAndSize(std::ptr::null(), size)
            },
        )?
    };
    // SAFETY: reading the content pointer of a `bytes` or `bytearray`
    // object, which is never null (an empty `bytearray` gives a static
    // empty string).
    let data = unsafe {
        if bytearray {
            ffi::PyByteArray_AsString(obj.as_ptr())
        } else {
            ffi::PyBytes_AsString(obj.as_ptr())
        }
    }
    .cast::<u8>();
    if data.is_null() {
        return Err(
            PyErr::take(py).unwrap_or_else(|| PyMemoryError::new_err("no memory for the output"))
        );
    }
    let huge = HugePages::advise(data, len);
    let zero = |at: usize| {
        // SAFETY: `at` is `data`, the new object's content of `len`
        // bytes, which only this function refers to (Python has not seen
        // the object).
        unsafe { std::ptr::write_bytes(at as *mut u8, 0, len) }
    };
    let at = data as usize;
    if len >= HUGE_FROM {
        py.allow_threads(|| zero(at));
    } else {
        zero(at);
    }
    // SAFETY: the object's content, zero-filled above: writable in place
    // while the slice lives (this call); the object outlives it. An empty
    // object (the shared empty `bytes`, or an empty `bytearray`) gives an
    // empty slice, never written.
    let buf = unsafe { std::slice::from_raw_parts_mut(data, len) };
    let r = fill(buf);
    drop(huge);
    Ok((obj, r?))
}

/// A `bytes` object (or a `bytearray`, if asked) of `len` bytes that
/// `fill` writes in place (no copy of the content), and what `fill`
/// returned.
pub(crate) fn output_with<R>(
    py: Python<'_>,
    len: usize,
    bytearray: bool,
    fill: impl FnOnce(&mut [u8]) -> PyResult<R>,
) -> PyResult<(PyObject, R)> {
    let (out, r) = filled(py, len, bytearray, fill)?;
    Ok((out.unbind(), r))
}

/// [`filled`] as a `bytes` object: `fill` returns how many bytes it wrote.
fn filled_bytes<'py>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<usize>,
) -> PyResult<(Bound<'py, PyBytes>, usize)> {
    let (out, written) = filled(py, len, false, fill)?;
    // SAFETY: `filled` made a `bytes` object (`bytearray` false).
    Ok((unsafe { out.downcast_into_unchecked::<PyBytes>() }, written))
}

/// A `bytes` object of exactly `len` bytes that `fill` writes in place
/// (returning how many); `short(n)` is the error if that is `n != len`.
pub(crate) fn bytes_exactly(
    py: Python<'_>,
    len: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<usize>,
    short: impl FnOnce(usize) -> PyErr,
) -> PyResult<Py<PyBytes>> {
    let (out, written) = filled_bytes(py, len, fill)?;
    if written != len {
        return Err(short(written));
    }
    Ok(out.unbind())
}

/// A `bytes` object of at most `cap` bytes that `fill` writes (returning
/// how many): decoded in place, then shrunk to that length (no copy of
/// the content).
#[cfg(not(feature = "abi3"))]
pub(crate) fn bytes_up_to(
    py: Python<'_>,
    cap: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<usize>,
) -> PyResult<Py<PyBytes>> {
    let (out, written) = filled_bytes(py, cap, fill)?;
    // A count over `cap` (a fill's bug) keeps the whole object: the resize
    // below only shrinks, never exposing bytes `fill` was not given.
    if written >= cap {
        return Ok(out.unbind());
    }
    let mut ptr = out.into_ptr();
    // SAFETY: `ptr` is a new `bytes` object this function alone refers
    // to (its only reference, taken from `out`; `fill` never saw the
    // object, and `cap` is not 0, as `written < cap` here: not the
    // shared empty `bytes`), as `_PyBytes_Resize` requires; on failure it
    // releases the object and sets `ptr` to NULL with an exception set.
    // On success `ptr` is an owned reference to a `bytes` object, so the
    // unchecked downcast holds.
    unsafe {
        if ffi::_PyBytes_Resize(&mut ptr, written as ffi::Py_ssize_t) != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, ptr)
            .downcast_into_unchecked::<PyBytes>()
            .unbind())
    }
}

/// [`bytes_up_to`] on the stable ABI (the `abi3` feature), which cannot
/// shrink a `bytes` object: decoded into a buffer of `cap` bytes, then the
/// bytes written copied into the object returned.
#[cfg(feature = "abi3")]
pub(crate) fn bytes_up_to(
    py: Python<'_>,
    cap: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<usize>,
) -> PyResult<Py<PyBytes>> {
    let mut buf = vec![0u8; cap];
    let written = fill(&mut buf)?.min(cap);
    Ok(PyBytes::new(py, &buf[..written]).unbind())
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
pub(crate) fn with_scratch<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
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

/// `err` with lzkit's account of what went wrong as its `detail`
/// attribute, where the message is another package's, word for word (its
/// users and tests match it whole, notes included, so the detail cannot
/// be in the message or in `__notes__`).
pub(crate) fn with_detail(py: Python<'_>, err: PyErr, detail: String) -> PyErr {
    let _ = err.value(py).setattr("detail", detail);
    err
}

pub(crate) fn runtime(e: lzkit::Error) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// Set `dict[name] = value.name` for each field `name` of `value`: a
/// library report's fields under their own names.
macro_rules! set_fields {
    ($dict:expr, $value:expr, $($field:ident),+ $(,)?) => {
        $($dict.set_item(stringify!($field), $value.$field)?;)+
    };
}
pub(crate) use set_fields;
