//! Frame decoding under test: every way lzkit reads frames (one-shot,
//! parallel one-shot, streaming, parallel streaming), over readers that
//! hand out the input in uneven pieces, checked against each other and
//! against C's `LZ4F_decompress`.

use crate::known::{innermost, is_offset_zero};
use lzkit::Error;
use lzkit::lz4::frame::{self, DecodeOptions, FrameDecoder};
use std::cell::RefCell;
use std::io::{ErrorKind, Read};
use std::sync::Arc;

/// Worker threads of the parallel decoders: more than one, so that the
/// pool, the batching and the in-order hand-back all run.
pub const PARALLEL_THREADS: usize = 2;

/// Read sizes the [`Jitter`] reader and the output reads cycle through:
/// single bytes (every field split across reads) up to large reads (a
/// whole block per call), so that the cost stays linear in the input.
const JITTER: [usize; 12] = [1, 7, 2, 64, 3, 4099, 5, 65_536, 13, 1 << 20, 255, 31];

/// A reader that hands out its data in the [`JITTER`] sizes, starting at
/// a given point of the cycle.
pub struct Jitter<'a> {
    data: &'a [u8],
    step: usize,
}

impl<'a> Jitter<'a> {
    /// A reader over `data`, starting at step `start` of the cycle.
    pub fn new(data: &'a [u8], start: usize) -> Self {
        Jitter { data, step: start }
    }
}

impl Read for Jitter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = JITTER[self.step % JITTER.len()];
        self.step += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

thread_local! {
    /// The buffer [`read_all`] reads into (allocated once: a fresh
    /// megabyte per call would cost more than decoding a small input).
    static READ_BUF: RefCell<Vec<u8>> = RefCell::new(vec![0u8; JITTER.iter().copied().max().unwrap_or(1)]);
}

/// Read `d` to its end in [`JITTER`]-sized reads starting at step `start`.
fn read_all<R: Read>(mut d: FrameDecoder<R>, start: usize) -> lzkit::Result<Vec<u8>> {
    READ_BUF.with(|buf| {
        let mut buf = buf.borrow_mut();
        let mut out = Vec::new();
        let mut step = start;
        loop {
            let want = JITTER[step % JITTER.len()];
            step += 1;
            match d.read(&mut buf[..want]) {
                Ok(0) => return Ok(out),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(e)),
            }
        }
    })
}

/// Decode options with `threads` and `dict` (empty: none).
fn options(threads: usize, dict: &[u8]) -> DecodeOptions {
    DecodeOptions::new()
        .threads(threads)
        .dictionary_opt((!dict.is_empty()).then(|| Arc::<[u8]>::from(dict)))
}

/// A frame decoder: `(src, dict) -> content`. An empty `dict` means none.
pub type FrameDecodeFn = fn(&[u8], &[u8]) -> lzkit::Result<Vec<u8>>;

/// A named frame decoder under test.
pub struct FrameDecoderVariant {
    pub name: &'static str,
    pub decode: FrameDecodeFn,
}

fn one_shot(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    if dict.is_empty() {
        frame::decompress(src)
    } else {
        frame::decompress_with_dict(src, dict)
    }
}

fn one_shot_parallel(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    frame::decompress_with(src, &options(PARALLEL_THREADS, dict))
}

fn stream(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    read_all(
        FrameDecoder::with_options(Jitter::new(src, 0), &options(1, dict)),
        5,
    )
}

fn stream_parallel(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    let opts = options(PARALLEL_THREADS, dict);
    read_all(FrameDecoder::with_options(Jitter::new(src, 3), &opts), 8)
}

/// Every frame decoder under test, the one-shot serial decoder first (the
/// others are compared with it).
pub const FRAME_DECODERS: &[FrameDecoderVariant] = &[
    FrameDecoderVariant {
        name: "decompress",
        decode: one_shot,
    },
    FrameDecoderVariant {
        name: "decompress_with(2 threads)",
        decode: one_shot_parallel,
    },
    FrameDecoderVariant {
        name: "FrameDecoder (uneven reads)",
        decode: stream,
    },
    FrameDecoderVariant {
        name: "FrameDecoder 2 threads (uneven reads)",
        decode: stream_parallel,
    },
];

/// Decode `src` (with `dict`, empty: none) with every frame decoder, check
/// that they agree (the same content, or the same error), and return the
/// first one's result.
pub fn decode_all_agree(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    let mut results = FRAME_DECODERS
        .iter()
        .map(|v| (v.name, (v.decode)(src, dict)));
    let (n0, r0) = results.next().expect("a decoder");
    for (n, r) in results {
        match (&r0, &r) {
            (Ok(a), Ok(b)) => {
                if a != b {
                    panic!(
                        "{n0} and {n} decode to different content ({} and {} bytes, first difference at {})",
                        a.len(),
                        b.len(),
                        a.iter()
                            .zip(b)
                            .position(|(x, y)| x != y)
                            .unwrap_or(a.len().min(b.len()))
                    );
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(
                    a.to_string(),
                    b.to_string(),
                    "{n0} and {n} fail differently"
                )
            }
            _ => panic!(
                "{n0}: {:?}; {n}: {:?}",
                r0.as_ref().map(Vec::len),
                r.as_ref().map(Vec::len)
            ),
        }
    }
    r0
}

/// What C's frame decoder made of an input.
#[derive(Debug)]
pub enum CFrame {
    /// Decoded completely.
    Ok(Vec<u8>),
    /// An error, or the input ends inside a frame.
    Rejected(String),
    /// Not decoded to the end (output too large to be a useful test).
    Skipped,
}

/// C frame decoding of a stream of frames, with `dict` (empty: none).
pub fn c_frame_decode(src: &[u8], dict: &[u8]) -> CFrame {
    use lzkit_testkit::c_ref::{FrameError, decompress_frames};
    match decompress_frames(src, (!dict.is_empty()).then_some(dict), 64 << 20) {
        Ok(out) => CFrame::Ok(out),
        Err(FrameError::Rejected(why)) => CFrame::Rejected(why),
        Err(FrameError::TooLarge) => CFrame::Skipped,
    }
}

/// Whether `data` contains the legacy magic number anywhere (C's frame API
/// does not read the legacy format, so C-vs-ours comparisons skip it).
pub fn mentions_legacy(data: &[u8]) -> bool {
    let m = frame::LEGACY_MAGIC.to_le_bytes();
    data.windows(4).any(|w| w == m)
}

/// Why lzkit may fail where C succeeds, if it may: a frame with a
/// dictionary ID and no dictionary given (C ignores the ID; lzkit asks for
/// the dictionary), or a block that lzkit rejects for one of the reasons in
/// [`crate::known`].
fn explained(e: &Error) -> bool {
    matches!(innermost(e), Error::DictionaryRequired { .. }) || is_offset_zero(e)
}

/// Check lzkit's result `ours` for `src` (with `dict`) against C's.
pub fn check_against_c(src: &[u8], dict: &[u8], ours: &lzkit::Result<Vec<u8>>) {
    if mentions_legacy(src) {
        return;
    }
    match (c_frame_decode(src, dict), ours) {
        (CFrame::Rejected(why), Ok(v)) => {
            panic!(
                "C rejects the stream ({why}), we accept it ({} bytes)",
                v.len()
            )
        }
        (CFrame::Ok(c), Ok(v)) if c != *v => panic!(
            "C and lzkit decode to different content ({} and {} bytes)",
            c.len(),
            v.len()
        ),
        (CFrame::Ok(c), Err(e)) if !explained(e) => {
            panic!(
                "C decodes the stream ({} bytes), we reject it: {e}",
                c.len()
            )
        }
        _ => {}
    }
}

/// The first frame of `src` through [`frame::PushDecoder`], fed in the
/// [`JITTER`] sizes, agrees with [`frame::decompress_first`] (see
/// [`lzkit_testkit::frames::assert_push_agrees`]). Legacy frames, which
/// the push decoder refuses, are skipped.
pub fn push_agrees(src: &[u8]) {
    if !src.starts_with(&frame::LEGACY_MAGIC.to_le_bytes()) {
        lzkit_testkit::frames::assert_push_agrees(src, &JITTER, "fuzz input");
    }
}
