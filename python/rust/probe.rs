//! The codec probe (`lzkit.probe_files`): `lzkit probe` on a list of
//! files, its report as a dict.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::buffers::set_fields;

/// `lzkit.probe_files`: the codec probe of `lzkit probe` on `paths`: an
/// evenly spread sample of `sample_bytes` (the same every time), cut into
/// `block_size` blocks (None: whole files), compressed with each of
/// `settings` (`(codec, level, favor_dec_speed)`; None: the defaults).
/// `time_limit` (seconds; None: none) stops slow settings early, their
/// ratio then estimated. `calibrate` (seconds; 0: off) is the calibration
/// pass's budget (`lzkit probe --calibrate`). Returns the report as a
/// dict.
#[pyfunction]
#[pyo3(signature = (paths, settings=None, sample_bytes=32 << 20, block_size=Some(64 << 10), threads=0, time_limit=Some(1.5), calibrate=1.5))]
// One argument per keyword of the Python function it serves.
#[allow(clippy::too_many_arguments)]
pub(crate) fn probe_files<'py>(
    py: Python<'py>,
    paths: Vec<std::path::PathBuf>,
    settings: Option<Vec<(String, i32, bool)>>,
    sample_bytes: u64,
    block_size: Option<usize>,
    threads: usize,
    time_limit: Option<f64>,
    calibrate: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let calibrate = std::time::Duration::try_from_secs_f64(calibrate)
        .map_err(|_| PyValueError::new_err("calibrate must be a number of seconds, 0 or more"))?;
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
    // A missing or unreadable file: Python's own exception for it.
    for p in &paths {
        std::fs::metadata(p).map_err(|e| crate::files::os_error(p, e))?;
    }
    let report = py
        .allow_threads(|| {
            let mut builder = SampleBuilder::new(sample_bytes, blocks).calibration(calibrate);
            for p in &paths {
                builder = builder.file(p.clone());
            }
            let sample = builder.build()?;
            probe::probe(&sample, &opts)
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    set_fields!(d, report, input_bytes, files, sample_bytes, blocks);
    d.set_item("block_size", report.block_size.to_string())?;
    set_fields!(d, report, whole_input, threads);
    let list = pyo3::types::PyList::empty(py);
    for c in &report.candidates {
        let e = PyDict::new(py);
        e.set_item("codec", c.setting.codec_name())?;
        set_fields!(e, c.setting, level, favor_dec_speed);
        e.set_item("setting", c.setting.to_string())?;
        // The ratio's 95% interval (None when one block cannot tell).
        e.set_item("ratio_low", c.ratio_interval.map(|i| i.0))?;
        e.set_item("ratio_high", c.ratio_interval.map(|i| i.1))?;
        set_fields!(
            e,
            c,
            ratio,
            sample_bytes,
            blocks,
            compressed_bytes,
            compress_mbps,
            compress_mbps_threads,
            decompress_mbps,
            compress_memory,
            decompress_memory,
            pareto,
            pareto_compress
        );
        list.append(e)?;
    }
    d.set_item("candidates", list)?;
    Ok(d)
}

/// `lzkit._lzkit.probe_defaults()`: the probe's default settings, the
/// library's (`Setting::defaults`), as `(codec, level, favor_dec_speed)`
/// tuples (`lzkit.DEFAULT_SETTINGS`).
#[pyfunction]
pub(crate) fn probe_defaults() -> Vec<(&'static str, i32, bool)> {
    lzkit::probe::Setting::defaults()
        .iter()
        .map(|s| (s.codec_name(), s.level, s.favor_dec_speed))
        .collect()
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(probe_files, m)?)?;
    m.add_function(wrap_pyfunction!(probe_defaults, m)?)?;
    Ok(())
}
