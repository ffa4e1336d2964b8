//! zstd frames (`lzkit.zstd`): `compress` (libzstd) and `decompress`
//! (lzkit's decoder), sized from what the frame headers say.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, bytes_exactly, bytes_up_to};

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
#[pyo3(signature = (data, max_output_size=0, dict=None))]
pub(crate) fn zstd_decompress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    max_output_size: usize,
    dict: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyBytes>> {
    let src = Input::get(data)?;
    let all = src.bytes();
    let zstd_err = |e: lzkit::Error| ZstdError::new_err(e.to_string());
    // A dictionary (zstd-format or raw content) for frames that need one.
    let dict = match dict {
        Some(d) => Some(
            lzkit::zstd::Dictionary::new(Input::get(d)?.bytes())
                .map_err(|e| ZstdError::new_err(format!("invalid dictionary: {e}")))?,
        ),
        None => None,
    };
    let with_dict =
        |d: &lzkit::zstd::Dictionary| lzkit::zstd::Decoder::new().with_dictionary(d.clone());
    let decode_into = |buf: &mut [u8]| -> PyResult<usize> {
        py.allow_threads(|| match &dict {
            Some(d) => with_dict(d).decompress_into(all, buf),
            None => lzkit::zstd::decompress_into(all, buf),
        })
        .map_err(zstd_err)
    };
    // Decoded as the data grows (memory follows the data, not a claim).
    let decode_growing = || {
        py.allow_threads(|| match &dict {
            Some(d) => with_dict(d).decompress(all),
            None => lzkit::zstd::decompress(all),
        })
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
                    bytes_exactly(py, size, decode_into, |written| {
                        ZstdError::new_err(format!(
                            "decompression error: decoded {written} bytes; the frames say {size}"
                        ))
                    })
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
    m.add_function(wrap_pyfunction!(zstd_train_dictionary, m)?)?;
    m.add_function(wrap_pyfunction!(zstd_level_params, m)?)?;
    m.add_function(wrap_pyfunction!(zstd_estimate_cctx_size, m)?)?;
    m.add_class::<ZstdCCtx>()?;
    Ok(())
}

use pyo3::exceptions::{PyMemoryError, PyValueError};
use zstd::zstd_safe::{self, CCtx, CParameter, InBuffer, OutBuffer, ResetDirective, zstd_sys};

/// A libzstd error code as `ZstdError`: `what` failed, and libzstd's name
/// for why (e.g. "Src size is incorrect").
fn libzstd_error(what: &str, code: usize) -> PyErr {
    ZstdError::new_err(format!("{what}: {}", zstd_safe::get_error_name(code)))
}

/// A compression parameter's value, refused with ValueError if it cannot
/// be one.
fn param_u32(name: &str, value: i64) -> PyResult<u32> {
    u32::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{name} must be 0 or more, not {value}")))
}

/// libzstd's compression strategy `n` (1, fast, to 9, btultra2).
fn strategy(n: i64) -> PyResult<zstd_safe::Strategy> {
    use zstd_sys::ZSTD_strategy::*;
    Ok(match n {
        1 => ZSTD_fast,
        2 => ZSTD_dfast,
        3 => ZSTD_greedy,
        4 => ZSTD_lazy,
        5 => ZSTD_lazy2,
        6 => ZSTD_btlazy2,
        7 => ZSTD_btopt,
        8 => ZSTD_btultra,
        9 => ZSTD_btultra2,
        _ => {
            return Err(PyValueError::new_err(format!(
                "strategy must be 1 (fast) to 9 (btultra2), not {n}"
            )));
        }
    })
}

/// A libzstd compression context (the compressor of python-zstandard's
/// API in `lzkit.zstd`): parameters set by name, a dictionary, one-shot
/// frames and streaming (continue, flush a block, end the frame). Usable
/// from any thread (one at a time: each call borrows it mutably), as a
/// python-zstandard compressor is.
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct ZstdCCtx {
    /// A mutex only to be `Sync`: calls reach it through `&mut self`.
    cctx: std::sync::Mutex<CCtx<'static>>,
}

impl ZstdCCtx {
    fn ctx(&mut self) -> &mut CCtx<'static> {
        self.cctx.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    fn shared(&self) -> std::sync::MutexGuard<'_, CCtx<'static>> {
        self.cctx.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How `ZstdCCtx.stream` ends: 0 continue, 1 flush a block, 2 end the frame.
fn directive(mode: u8) -> PyResult<zstd_sys::ZSTD_EndDirective> {
    use zstd_sys::ZSTD_EndDirective::*;
    Ok(match mode {
        0 => ZSTD_e_continue,
        1 => ZSTD_e_flush,
        2 => ZSTD_e_end,
        _ => {
            return Err(PyValueError::new_err(format!(
                "stream mode must be 0 (continue), 1 (flush) or 2 (end), not {mode}"
            )));
        }
    })
}

#[pymethods]
impl ZstdCCtx {
    #[new]
    fn new() -> PyResult<Self> {
        let cctx = CCtx::try_create()
            .ok_or_else(|| PyMemoryError::new_err("cannot allocate a zstd compression context"))?;
        Ok(ZstdCCtx {
            cctx: std::sync::Mutex::new(cctx),
        })
    }

    /// Set libzstd parameter `name` (python-zstandard's names: "level",
    /// "window_log", "checksum", "threads", ...) to `value`.
    fn set(&mut self, name: &str, value: i64) -> PyResult<()> {
        let p = match name {
            "level" => CParameter::CompressionLevel(
                i32::try_from(value)
                    .map_err(|_| PyValueError::new_err(format!("level {value} out of range")))?,
            ),
            "window_log" => CParameter::WindowLog(param_u32(name, value)?),
            "hash_log" => CParameter::HashLog(param_u32(name, value)?),
            "chain_log" => CParameter::ChainLog(param_u32(name, value)?),
            "search_log" => CParameter::SearchLog(param_u32(name, value)?),
            "min_match" => CParameter::MinMatch(param_u32(name, value)?),
            "target_length" => CParameter::TargetLength(param_u32(name, value)?),
            "strategy" => CParameter::Strategy(strategy(value)?),
            "enable_ldm" => CParameter::EnableLongDistanceMatching(value != 0),
            "ldm_hash_log" => CParameter::LdmHashLog(param_u32(name, value)?),
            "ldm_min_match" => CParameter::LdmMinMatch(param_u32(name, value)?),
            "ldm_bucket_size_log" => CParameter::LdmBucketSizeLog(param_u32(name, value)?),
            "ldm_hash_rate_log" => CParameter::LdmHashRateLog(param_u32(name, value)?),
            "write_content_size" => CParameter::ContentSizeFlag(value != 0),
            "write_checksum" => CParameter::ChecksumFlag(value != 0),
            "write_dict_id" => CParameter::DictIdFlag(value != 0),
            "threads" => CParameter::NbWorkers(param_u32(name, value)?),
            "job_size" => CParameter::JobSize(param_u32(name, value)?),
            "overlap_log" => CParameter::OverlapSizeLog(param_u32(name, value)?),
            "force_max_window" => CParameter::ForceMaxWindow(value != 0),
            "format" => CParameter::Format(match value {
                0 => zstd_safe::FrameFormat::One,
                1 => zstd_safe::FrameFormat::Magicless,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "format must be FORMAT_ZSTD1 (0) or FORMAT_ZSTD1_MAGICLESS (1), not {value}"
                    )));
                }
            }),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown zstd compression parameter {name:?}"
                )));
            }
        };
        self.ctx()
            .set_parameter(p)
            .map_err(|c| libzstd_error(&format!("cannot set {name}={value}"), c))?;
        Ok(())
    }

    /// Use `dict` (zstd-format or raw content) for every frame from now.
    fn load_dict(&mut self, dict: &Bound<'_, PyAny>) -> PyResult<()> {
        let dict = Input::get(dict)?;
        self.ctx()
            .load_dictionary(dict.bytes())
            .map_err(|c| libzstd_error("cannot load the compression dictionary", c))?;
        Ok(())
    }

    /// Start a new frame (whatever the one in progress was), of `size`
    /// bytes if given (written in its header when the content size flag
    /// is on; a different amount of input is then an error).
    #[pyo3(signature = (size=None))]
    fn begin(&mut self, size: Option<u64>) -> PyResult<()> {
        self.ctx()
            .reset(ResetDirective::SessionOnly)
            .map_err(|c| libzstd_error("cannot reset the compressor", c))?;
        self.ctx()
            .set_pledged_src_size(size)
            .map_err(|c| libzstd_error("cannot set the content size", c))?;
        Ok(())
    }

    /// `data` as one whole frame, its size pledged.
    fn compress(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyBytes>> {
        let src = Input::get(data)?;
        let src = src.bytes();
        self.begin(Some(src.len() as u64))?;
        let cctx = self.ctx();
        let out = py.allow_threads(|| {
            let mut out = Vec::new();
            out.try_reserve_exact(zstd_safe::compress_bound(src.len()))
                .map_err(|_| None)?;
            cctx.compress2(&mut out, src).map_err(Some)?;
            Ok(out)
        });
        let out = out.map_err(|e: Option<usize>| match e {
            Some(code) => libzstd_error("zstd compress error", code),
            None => PyMemoryError::new_err("cannot allocate the compressed output"),
        })?;
        Ok(PyBytes::new(py, &out).unbind())
    }

    /// Feed `data` to the frame in progress; `mode`: 0 continue, 1 flush
    /// a block (everything given so far comes out), 2 end the frame.
    /// Returns the compressed bytes produced.
    #[pyo3(signature = (data, mode=0))]
    fn stream(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        mode: u8,
    ) -> PyResult<Py<PyBytes>> {
        let op = directive(mode)?;
        let src = Input::get(data)?;
        let src = src.bytes();
        // Nothing to give libzstd: a frame is not started by an empty
        // write (an empty frame ended later then has the smallest window,
        // as python-zstandard writes it).
        if src.is_empty() && mode == 0 {
            return Ok(PyBytes::new(py, b"").unbind());
        }
        let cctx = self.ctx();
        let result = py.allow_threads(|| {
            let mut out: Vec<u8> = Vec::new();
            let mut input = InBuffer::around(src);
            loop {
                out.reserve(CCtx::out_size());
                let pos = out.len();
                let mut buf = OutBuffer::around_pos(&mut out, pos);
                let left = cctx.compress_stream2(&mut buf, &mut input, op)?;
                let done_input = input.pos() == src.len();
                let finished = match mode {
                    0 => done_input,
                    _ => done_input && left == 0,
                };
                if finished {
                    return Ok(out);
                }
            }
        });
        let out = result.map_err(|code| libzstd_error("zstd compress error", code))?;
        Ok(PyBytes::new(py, &out).unbind())
    }

    /// The context's memory, in bytes.
    fn memory_size(&self) -> usize {
        self.shared().sizeof()
    }

    /// The frame in progress: (bytes given, bytes compressed, bytes
    /// produced).
    fn progression(&self) -> (u64, u64, u64) {
        let p = self.shared().get_frame_progression();
        (p.ingested, p.consumed, p.produced)
    }
}

/// What libzstd's level `level` means for a source of `source_size` bytes
/// (0: unknown) and a dictionary of `dict_size`: (window_log, chain_log,
/// hash_log, search_log, min_match, target_length, strategy).
#[pyfunction]
#[pyo3(signature = (level, source_size=0, dict_size=0))]
pub(crate) fn zstd_level_params(
    level: i32,
    source_size: u64,
    dict_size: usize,
) -> (u32, u32, u32, u32, u32, u32, u32) {
    // SAFETY: a pure function of its integer arguments (libzstd clamps
    // the level and treats 0 as an unknown size).
    let p = unsafe { zstd_sys::ZSTD_getCParams(level, source_size, dict_size) };
    (
        p.windowLog,
        p.chainLog,
        p.hashLog,
        p.searchLog,
        p.minMatch,
        p.targetLength,
        p.strategy as u32,
    )
}

/// libzstd's estimate of a compression context's memory for these
/// parameters (as `zstd_level_params` returns them), in bytes.
#[pyfunction]
pub(crate) fn zstd_estimate_cctx_size(
    params: (u32, u32, u32, u32, u32, u32, u32),
) -> PyResult<usize> {
    let (window_log, chain_log, hash_log, search_log, min_match, target_length, strat) = params;
    let p = zstd_sys::ZSTD_compressionParameters {
        windowLog: window_log,
        chainLog: chain_log,
        hashLog: hash_log,
        searchLog: search_log,
        minMatch: min_match,
        targetLength: target_length,
        strategy: strategy(i64::from(strat))?,
    };
    // SAFETY: a pure function of a parameters struct passed by value.
    Ok(unsafe { zstd_sys::ZSTD_estimateCCtxSize_usingCParams(p) })
}

/// How `zstd_train_dictionary` trains: python-zstandard's arguments of
/// `train_dictionary`, as libzstd's fastCover trainer takes them (0: its
/// default, or a search over the values it tries); a dict of them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct TrainParams {
    k: u32,
    d: u32,
    f: u32,
    split_point: f64,
    accel: u32,
    notifications: u32,
    dict_id: u32,
    level: i32,
    steps: u32,
    threads: u32,
}

/// A zstd dictionary of at most `size` bytes trained on `samples` by
/// libzstd's fastCover trainer with its parameter search
/// (`ZDICT_optimizeTrainFromBuffer_fastCover`, as python-zstandard's
/// `train_dictionary`): the dictionary, and the `k` and `d` it chose.
#[pyfunction]
pub(crate) fn zstd_train_dictionary(
    py: Python<'_>,
    size: usize,
    samples: Vec<Vec<u8>>,
    params: TrainParams,
) -> PyResult<(Py<PyBytes>, u32, u32)> {
    let TrainParams {
        k,
        mut d,
        f,
        split_point,
        accel,
        notifications,
        dict_id,
        mut level,
        mut steps,
        threads,
    } = params;
    if steps == 0 && threads == 0 {
        // ZDICT_trainFromBuffer's defaults, as python-zstandard sets them.
        d = if d == 0 { 8 } else { d };
        steps = 4;
        level = if level == 0 { 3 } else { level };
    }
    let mut p = zstd_sys::ZDICT_fastCover_params_t {
        k,
        d,
        f,
        steps,
        nbThreads: threads,
        splitPoint: split_point,
        accel,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: zstd_sys::ZDICT_params_t {
            compressionLevel: level,
            notificationLevel: notifications,
            dictID: dict_id,
        },
    };
    let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
    let flat = samples.concat();
    let count =
        u32::try_from(samples.len()).map_err(|_| PyValueError::new_err("too many samples"))?;
    let mut dict = vec![0u8; size];
    let written = py.allow_threads(|| {
        // SAFETY: `dict` has `size` writable bytes; `flat` holds the
        // samples whose lengths `sizes` gives (`count` of them); `p` is a
        // valid parameters struct libzstd fills in.
        unsafe {
            zstd_sys::ZDICT_optimizeTrainFromBuffer_fastCover(
                dict.as_mut_ptr().cast(),
                dict.len(),
                flat.as_ptr().cast(),
                sizes.as_ptr(),
                count,
                &mut p,
            )
        }
    });
    // SAFETY: a pure function of an error code.
    if unsafe { zstd_sys::ZDICT_isError(written) } != 0 {
        // SAFETY: libzstd's static, NUL-terminated name for the code.
        let name = unsafe { std::ffi::CStr::from_ptr(zstd_sys::ZDICT_getErrorName(written)) };
        return Err(ZstdError::new_err(format!(
            "cannot train dict: {}",
            name.to_string_lossy()
        )));
    }
    dict.truncate(written);
    Ok((PyBytes::new(py, &dict).unbind(), p.k, p.d))
}
