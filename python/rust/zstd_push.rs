//! Compressed data pushed piecewise (`decompressobj`, a decompressor's
//! `stream_writer`), decoded by lzkit's [`PushDecoder`] as it arrives:
//! each block's content is handed back once the block is whole, as
//! python-zstandard's decompressor does.

use lzkit::zstd::{DecodeOptions, Decoder, Dictionary, MAGIC, PushDecoder, Variant};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::Input;
use crate::zstd::ZstdError;

/// The output buffer kept between calls is given back past this size (a
/// call that decoded a large input once need not hold its memory).
const KEEP_MAX: usize = 16 << 20;

/// A streaming zstd decoder fed piecewise: `feed(data, across)` returns
/// what the data given so far decodes to, and where in `data` a frame
/// ended if decoding stopped there; `finish()` says the input has ended
/// (an error if it ended inside a frame).
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct ZstdPushDecoder {
    dec: PushDecoder,
    /// Frames have no magic number (python-zstandard's
    /// FORMAT_ZSTD1_MAGICLESS): it is pushed before each one.
    magicless: bool,
    out: Vec<u8>,
}

#[pymethods]
impl ZstdPushDecoder {
    /// `window_log_max`: the largest window a frame may use; `dict`: a
    /// dictionary (zstd-format or raw content) for frames that need one;
    /// `magicless`: frames come without their magic number.
    #[new]
    #[pyo3(signature = (window_log_max=27, dict=None, magicless=false))]
    fn new(
        window_log_max: u32,
        dict: Option<&Bound<'_, PyAny>>,
        magicless: bool,
    ) -> PyResult<Self> {
        // The CPU's default variant, fixed: an adaptive decoder's
        // exploring (after 32 MiB) cost a stream of 116 MB 2-4% here.
        let opts = DecodeOptions::new().window_log_max(window_log_max);
        let mut decoder = Decoder::with_variant(Variant::default_for_cpu())
            .unwrap_or_else(|_| Decoder::new())
            .options(opts);
        if let Some(d) = dict {
            let d = Dictionary::new(Input::get(d)?.bytes())
                .map_err(|e| ZstdError::new_err(format!("invalid dictionary: {e}")))?;
            decoder = decoder.with_dictionary(d);
        }
        Ok(ZstdPushDecoder {
            dec: PushDecoder::with_decoder(decoder),
            magicless,
            out: Vec::new(),
        })
    }

    /// Give `data`; returns `(output, end)`: all that the input so far
    /// decodes to, and, unless `across` (decode the frames that follow
    /// too), the index in `data` just past the end of the frame, where
    /// decoding stopped (None if the frame goes on).
    #[pyo3(signature = (data, across=true))]
    fn feed(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        across: bool,
    ) -> PyResult<(Py<PyBytes>, Option<usize>)> {
        let input = Input::get(data)?;
        let src = input.bytes();
        let ZstdPushDecoder {
            dec,
            magicless,
            out,
        } = self;
        let magicless = *magicless;
        out.clear();
        let r = py.allow_threads(|| -> lzkit::Result<Option<usize>> {
            let mut at = 0;
            while at < src.len() {
                if magicless && !dec.in_frame() {
                    dec.push(&MAGIC.to_le_bytes(), out)?;
                }
                let pushed = dec.push(&src[at..], out)?;
                at += pushed.consumed;
                if pushed.frame_ended && !across {
                    return Ok(Some(at));
                }
            }
            Ok(None)
        });
        let end = r.map_err(|e| ZstdError::new_err(e.to_string()))?;
        let bytes = PyBytes::new(py, out).unbind();
        if out.capacity() > KEEP_MAX {
            *out = Vec::new();
        }
        Ok((bytes, end))
    }

    /// End the input: raises ZstdError if it ended inside a frame.
    fn finish(&mut self) -> PyResult<()> {
        self.dec
            .finish()
            .map_err(|e| ZstdError::new_err(e.to_string()))
    }

    /// Whether the input so far ends inside a frame.
    #[getter]
    fn in_frame(&self) -> bool {
        self.dec.in_frame()
    }
}

/// Add this module's classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ZstdPushDecoder>()?;
    Ok(())
}
