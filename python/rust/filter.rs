//! The pre-filters (`lzkit.filter`): `lzkit::filter`'s byte shuffle and
//! delta on any buffer, and the filter frame that records a filter before
//! the frames of a compressed stream (read by `lzkit.lz4.frame` and
//! `lzkit.zstd` to undo it).

use lzkit::filter::{Filter, FilterError};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, output_with};

create_exception!(
    _lzkit,
    FilterFrameError,
    PyValueError,
    "A filter frame that cannot be used: written by a newer lzkit (another version), or damaged. The data is not decoded: it would come out filtered."
);

/// The filter named `name`, or ValueError naming the filters.
fn filter(name: &str) -> PyResult<Filter> {
    Filter::parse(name).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `data` through the filter `name`, one way or the other, as `bytes` of
/// the same length.
fn apply(py: Python<'_>, data: &Bound<'_, PyAny>, name: &str, decode: bool) -> PyResult<PyObject> {
    let f = filter(name)?;
    let src = Input::get(data)?;
    let src = src.bytes();
    let (out, ()) = output_with(py, src.len(), false, |dst| {
        py.allow_threads(|| match decode {
            false => f.encode_into(src, dst),
            true => f.decode_into(src, dst),
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))
    })?;
    Ok(out)
}

/// `lzkit.filter.encode`: `data` filtered, as `bytes` of the same length.
#[pyfunction]
pub(crate) fn filter_encode(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<PyObject> {
    apply(py, data, name, false)
}

/// `lzkit.filter.decode`: `data` unfiltered, as `bytes` of the same length.
#[pyfunction]
pub(crate) fn filter_decode(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<PyObject> {
    apply(py, data, name, true)
}

/// `lzkit.filter.frame`: the filter frame that records the filter `name`.
#[pyfunction]
pub(crate) fn filter_frame(py: Python<'_>, name: &str) -> PyResult<Py<PyBytes>> {
    Ok(PyBytes::new(py, &filter(name)?.frame()).unbind())
}

/// `lzkit.filter.read_frame`: `(name, length)` of the filter frame that
/// starts `data`, or `None` if it starts with none; `FilterFrameError` for
/// one that cannot be used.
#[pyfunction]
pub(crate) fn filter_read_frame(data: &Bound<'_, PyAny>) -> PyResult<Option<(String, usize)>> {
    let src = Input::get(data)?;
    match lzkit::filter::read_frame(src.bytes()) {
        Ok(found) => Ok(found.map(|(f, len)| (f.to_string(), len))),
        Err(e @ (FilterError::UnsupportedVersion { .. } | FilterError::CorruptFrame { .. })) => {
            Err(FilterFrameError::new_err(e.to_string()))
        }
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FilterFrameError", m.py().get_type::<FilterFrameError>())?;
    m.add(
        "FILTERS",
        Filter::ALL
            .iter()
            .map(Filter::to_string)
            .collect::<Vec<_>>(),
    )?;
    m.add_function(wrap_pyfunction!(filter_encode, m)?)?;
    m.add_function(wrap_pyfunction!(filter_decode, m)?)?;
    m.add_function(wrap_pyfunction!(filter_frame, m)?)?;
    m.add_function(wrap_pyfunction!(filter_read_frame, m)?)?;
    Ok(())
}
