//! Compressed data pushed piecewise (`decompressobj`, a decompressor's
//! `stream_writer`), decoded by lzkit's streaming decoder as it arrives:
//! each block's content is handed back once the block is whole, as
//! python-zstandard's decompressor does.
//!
//! lzkit's [`FrameDecoder`] pulls its input through `Read`; here it runs
//! on a thread of its own whose reader takes the pieces given to
//! [`ZstdPushDecoder::feed`] from a channel. When the reader has used all
//! it was given and needs more it says so ([`Msg::Starved`]), which ends a
//! `feed`: every byte the input so far can produce has come back by then.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, Sender, channel};

use lzkit::zstd::{DecodeOptions, Decoder, Dictionary, FrameDecoder};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::Input;
use crate::zstd::ZstdError;

/// From the decoding thread.
enum Msg {
    /// Decoded bytes.
    Out(Vec<u8>),
    /// All input given so far is used; the decoder waits for more.
    Starved,
    /// The input ended and everything was decoded.
    End,
    /// The decoder's verdict on the data.
    Failed(String),
}

/// The decoding thread's input: the pieces sent to it, in order; `None`
/// (or the sender gone) ends it.
struct Pieces {
    rx: Receiver<Option<Vec<u8>>>,
    tx: Sender<Msg>,
    piece: Vec<u8>,
    at: usize,
    ended: bool,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.piece.len() {
            if self.ended {
                return Ok(0);
            }
            // Nobody listening means nobody will send more either.
            let _ = self.tx.send(Msg::Starved);
            match self.rx.recv() {
                Ok(Some(piece)) => {
                    self.piece = piece;
                    self.at = 0;
                }
                Ok(None) | Err(_) => {
                    self.ended = true;
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A streaming zstd decoder fed piecewise: `feed(data)` returns what the
/// data given so far decodes to; `finish()` ends the input and returns the
/// rest (an error if the input ended inside a frame).
#[pyclass(module = "lzkit._lzkit")]
pub(crate) struct ZstdPushDecoder {
    tx: Option<Sender<Option<Vec<u8>>>>,
    /// Taken while a call waits on it (without the GIL); a mutex only to
    /// be `Sync` (calls reach it through `&mut self`).
    rx: std::sync::Mutex<Option<Receiver<Msg>>>,
    ended: bool,
    error: Option<String>,
    /// The process whose thread decodes (a forked child has no such
    /// thread: it would wait for it forever).
    pid: u32,
}

#[pymethods]
impl ZstdPushDecoder {
    /// `window_log_max`: the largest window a frame may use; `dict`: a
    /// dictionary (zstd-format or raw content) for frames that need one.
    #[new]
    #[pyo3(signature = (window_log_max=27, dict=None))]
    fn new(py: Python<'_>, window_log_max: u32, dict: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let mut decoder =
            Decoder::with_options(DecodeOptions::new().window_log_max(window_log_max));
        if let Some(d) = dict {
            let d = Dictionary::new(Input::get(d)?.bytes())
                .map_err(|e| ZstdError::new_err(format!("invalid dictionary: {e}")))?;
            decoder = decoder.with_dictionary(d);
        }
        let (in_tx, in_rx) = channel();
        let (out_tx, out_rx) = channel();
        let pieces = Pieces {
            rx: in_rx,
            tx: out_tx.clone(),
            piece: Vec::new(),
            at: 0,
            ended: false,
        };
        std::thread::Builder::new()
            .name("lzkit-zstd-push".into())
            .spawn(move || {
                let mut frames = FrameDecoder::with_decoder(pieces, decoder);
                let mut buf = vec![0u8; 128 << 10];
                loop {
                    let msg = match frames.read(&mut buf) {
                        Ok(0) => Msg::End,
                        Ok(n) => Msg::Out(buf[..n].to_vec()),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => Msg::Failed(lzkit::Error::from_io(e).to_string()),
                    };
                    let last = matches!(msg, Msg::End | Msg::Failed(_));
                    if out_tx.send(msg).is_err() || last {
                        return;
                    }
                }
            })
            .map_err(|e| ZstdError::new_err(format!("cannot start the decoding thread: {e}")))?;
        let mut me = ZstdPushDecoder {
            tx: Some(in_tx),
            rx: std::sync::Mutex::new(Some(out_rx)),
            ended: false,
            error: None,
            pid: std::process::id(),
        };
        // The thread's first read asks for input.
        me.collect(py, false)?;
        Ok(me)
    }

    /// Give `data`; returns all that the input so far decodes to.
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyBytes>> {
        self.check()?;
        let input = Input::get(data)?;
        if input.bytes().is_empty() {
            return Ok(PyBytes::new(py, b"").unbind());
        }
        let piece = input.bytes().to_vec();
        match &self.tx {
            Some(tx) if tx.send(Some(piece)).is_ok() => {}
            _ => return Err(ZstdError::new_err("the decoder has stopped")),
        }
        let out = self.collect(py, false)?;
        Ok(PyBytes::new(py, &out).unbind())
    }

    /// End the input; returns the rest of the output. An input that ends
    /// inside a frame raises ZstdError.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        self.check()?;
        self.tx = None;
        let out = self.collect(py, true)?;
        Ok(PyBytes::new(py, &out).unbind())
    }
}

impl ZstdPushDecoder {
    fn check(&self) -> PyResult<()> {
        if self.pid != std::process::id() {
            return Err(ZstdError::new_err(
                "this decompressor was made before a fork(): its decoding thread is in the parent; make a new one in this process",
            ));
        }
        if let Some(e) = &self.error {
            return Err(ZstdError::new_err(e.clone()));
        }
        if self.ended {
            return Err(ZstdError::new_err("the input has ended"));
        }
        Ok(())
    }

    /// The output until the decoder waits for input (or, `finishing`,
    /// until it ends).
    fn collect(&mut self, py: Python<'_>, finishing: bool) -> PyResult<Vec<u8>> {
        let slot = self.rx.get_mut().unwrap_or_else(|e| e.into_inner());
        let Some(rx) = slot.take() else {
            return Err(ZstdError::new_err("the decoder is in use"));
        };
        let (rx, out, end) = py.allow_threads(move || {
            let mut out = Vec::new();
            loop {
                let end = match rx.recv() {
                    Ok(Msg::Out(v)) => {
                        out.extend_from_slice(&v);
                        continue;
                    }
                    Ok(Msg::Starved) if finishing => continue,
                    Ok(Msg::Starved) => None,
                    Ok(Msg::End) => Some(Ok(())),
                    Ok(Msg::Failed(e)) => Some(Err(e)),
                    Err(_) => Some(Err("the decoding thread stopped".to_string())),
                };
                return (rx, out, end);
            }
        });
        *self.rx.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(rx);
        match end {
            None => Ok(out),
            Some(Ok(())) => {
                self.ended = true;
                Ok(out)
            }
            Some(Err(e)) => {
                self.error = Some(e.clone());
                Err(ZstdError::new_err(e))
            }
        }
    }
}

/// Add this module's classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ZstdPushDecoder>()?;
    Ok(())
}
