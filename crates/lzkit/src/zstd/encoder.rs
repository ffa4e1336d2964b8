//! zstd compression through libzstd (the `zstd-compress` feature).
//!
//! lzkit writes its own LZ4 encoders and zstd *decoder*; zstd *compression*
//! is libzstd's, through the `zstd` crate, with options named as the `zstd`
//! command names them. Frames it writes are ordinary zstd frames: `zstd -d`
//! and lzkit's own decoder read them.
//!
//! ```
//! use lzkit::zstd::{FrameOptions, compress};
//! let data = b"columns of numbers, columns of numbers, columns of numbers".repeat(100);
//! let frame = compress(&data, &FrameOptions::new().level(19))?;
//! assert!(frame.len() < data.len() / 10);
//! assert_eq!(lzkit::zstd::decompress(&frame)?, data);
//! # Ok::<(), lzkit::Error>(())
//! ```

use std::io::{self, Write};
use std::sync::Arc;

use ::zstd::stream::raw::{CParameter, Encoder as RawEncoder};
use ::zstd::stream::zio;

use super::level::Level;
use crate::error::{Error, Result};

/// The window log of `--long` without a number, as `zstd --long`.
pub const DEFAULT_LONG_WINDOW_LOG: u32 = 27;

/// From this level up (libzstd's optimal parsers, `btopt` and above), a
/// multithreaded encoder cuts the input into [`PARALLEL_JOB_SIZE`] jobs
/// that each reload 1/16 of the window before them
/// ([`PARALLEL_OVERLAP_LOG`]), instead of libzstd's defaults (jobs of four
/// windows, 32 MiB at level 19, each reloading a whole window): at these
/// levels reloading a window costs about as much as compressing it, so the
/// defaults reach only 1.5 times one thread's speed on two (48 MB of
/// columns at level 19: 12.9 s on one thread, 8.8 s on two), for a ratio
/// 0.1% better.
pub const PARALLEL_TUNED_LEVEL: i32 = 16;
/// The job size of multithreaded compression from [`PARALLEL_TUNED_LEVEL`].
pub const PARALLEL_JOB_SIZE: u32 = 8 << 20;
/// The overlap of those jobs, as libzstd's `ZSTD_c_overlapLog` (9: the
/// whole window; each step down halves it).
pub const PARALLEL_OVERLAP_LOG: u32 = 5;

/// How to compress to zstd (the counterpart of
/// [`crate::lz4::frame::FrameOptions`]).
///
/// ```
/// use lzkit::zstd::FrameOptions;
/// let opts = FrameOptions::new().level(9).checksum(false).long(Some(27)).workers(2);
/// assert_eq!(opts.get_level(), 9);
/// ```
#[derive(Debug, Clone)]
pub struct FrameOptions {
    level: i32,
    checksum: bool,
    content_size: Option<u64>,
    long: Option<u32>,
    workers: u32,
    dictionary: Option<Arc<[u8]>>,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions::new()
    }
}

impl FrameOptions {
    /// Level 3 (zstd's default), a content checksum, the single-threaded
    /// mode (`workers(0)`), no long mode, no dictionary, no content size.
    pub const fn new() -> Self {
        FrameOptions {
            level: Level::DEFAULT.get(),
            checksum: true,
            content_size: None,
            long: None,
            workers: 0,
            dictionary: None,
        }
    }

    /// Compression level (a [`Level`] or a plain `i32`): 1 to 19 as `zstd
    /// -#`, 20 to 22 as `zstd --ultra -#`, negative for `zstd --fast=#`.
    /// Clamped to [`MIN_LEVEL`](super::MIN_LEVEL)..=[`ULTRA_MAX_LEVEL`](super::ULTRA_MAX_LEVEL).
    pub fn level(mut self, level: impl Into<Level>) -> Self {
        self.level = level.into().clamped().get();
        self
    }

    /// The level set.
    pub const fn get_level(&self) -> i32 {
        self.level
    }

    /// Whether frames end with a content checksum (XXH64's low 32 bits;
    /// default: yes, as `zstd`).
    pub const fn checksum(mut self, on: bool) -> Self {
        self.checksum = on;
        self
    }

    /// The size of the whole content, written in the frame header (as
    /// `zstd` does for files). The encoder fails if the data written
    /// differs from it.
    pub const fn content_size(mut self, size: Option<u64>) -> Self {
        self.content_size = size;
        self
    }

    /// The content size set.
    pub const fn get_content_size(&self) -> Option<u64> {
        self.content_size
    }

    /// Long-distance matching with a window of `2^log` bytes (`zstd
    /// --long=#`, 10 to 31); `None`: off (default). A decoder then needs
    /// that much window: `zstd -d --memory` or lzkit's `--memory`.
    pub const fn long(mut self, window_log: Option<u32>) -> Self {
        self.long = window_log;
        self
    }

    /// libzstd worker threads (`zstd -T#`). 1 or more: libzstd's
    /// multithreaded mode, whose output is the same for any number of
    /// workers (jobs are cut the same way; 1 compresses on one worker
    /// thread), as `zstd -T#` writes the same bytes for any `#`. 0
    /// (default): libzstd's single-threaded mode, on the calling thread
    /// (`zstd --single-thread`), whose output differs from the
    /// multithreaded mode's on inputs above 512 KiB or of unknown size.
    pub const fn workers(mut self, n: u32) -> Self {
        self.workers = n;
        self
    }

    /// A dictionary (`zstd -D`): zstd-format (from `zstd --train`) or raw
    /// content; frames then need it to decode.
    pub fn dictionary(mut self, dict: Option<Arc<[u8]>>) -> Self {
        self.dictionary = dict;
        self
    }

    /// Whether a dictionary is set.
    pub fn has_dictionary(&self) -> bool {
        self.dictionary.is_some()
    }
}

/// An I/O error from libzstd's parameter setting, as an lzkit error.
fn setting(what: &str, e: io::Error) -> Error {
    Error::Io(io::Error::new(
        e.kind(),
        format!("zstd compression: cannot set {what}: {e}"),
    ))
}

/// A streaming zstd compressor (the counterpart of
/// [`crate::lz4::frame::FrameEncoder`]): bytes written to it come out
/// compressed into `W`. Call [`FrameEncoder::finish`] to end the frame;
/// dropping it without does not (see [`FrameEncoder::auto_finish`]).
pub struct FrameEncoder<W: Write> {
    inner: zio::Writer<W, RawEncoder<'static>>,
}

impl<W: Write> FrameEncoder<W> {
    /// A compressor writing into `writer` with `opts`.
    ///
    /// # Errors
    /// [`Error::Io`] if libzstd refuses a setting (a window log out of
    /// range, a level it cannot take) or cannot allocate its context.
    pub fn new(writer: W, opts: &FrameOptions) -> Result<Self> {
        let dict: &[u8] = opts.dictionary.as_deref().unwrap_or(&[]);
        let mut raw = RawEncoder::with_dictionary(opts.level, dict)
            .map_err(|e| setting("up the compressor", e))?;
        raw.set_parameter(CParameter::ChecksumFlag(opts.checksum))
            .map_err(|e| setting("the checksum flag", e))?;
        if let Some(size) = opts.content_size {
            raw.set_pledged_src_size(Some(size))
                .map_err(|e| setting("the content size", e))?;
            raw.set_parameter(CParameter::ContentSizeFlag(true))
                .map_err(|e| setting("the content size flag", e))?;
        }
        if let Some(log) = opts.long {
            raw.set_parameter(CParameter::EnableLongDistanceMatching(true))
                .map_err(|e| setting("long-distance matching", e))?;
            raw.set_parameter(CParameter::WindowLog(log))
                .map_err(|e| setting(&format!("window log {log} (10 to 31)"), e))?;
        }
        // Every count of workers from 1 up writes the same bytes (also the
        // job tuning below): only the single-threaded mode (0) differs.
        if opts.workers >= 1 {
            raw.set_parameter(CParameter::NbWorkers(opts.workers))
                .map_err(|e| setting("the worker threads", e))?;
            if opts.level >= PARALLEL_TUNED_LEVEL {
                raw.set_parameter(CParameter::JobSize(PARALLEL_JOB_SIZE))
                    .map_err(|e| setting("the job size", e))?;
                raw.set_parameter(CParameter::OverlapSizeLog(PARALLEL_OVERLAP_LOG))
                    .map_err(|e| setting("the overlap", e))?;
            }
        }
        Ok(FrameEncoder {
            inner: zio::Writer::new(writer, raw),
        })
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        self.inner.writer()
    }

    /// The underlying writer, mutably (writing to it directly corrupts the
    /// frame).
    pub fn get_mut(&mut self) -> &mut W {
        self.inner.writer_mut()
    }

    /// End the frame and return the writer.
    ///
    /// # Errors
    /// The writer's errors, and an error if a content size was set and a
    /// different number of bytes was written.
    pub fn finish(mut self) -> io::Result<W> {
        self.inner.finish()?;
        Ok(self.into_inner())
    }

    /// The writer, without ending the frame: what was flushed is there,
    /// what libzstd still holds is lost, and the frame has no end.
    ///
    /// ```
    /// use lzkit::zstd::{FrameEncoder, FrameOptions};
    /// use std::io::Write;
    ///
    /// let mut enc = FrameEncoder::new(Vec::new(), &FrameOptions::new())?;
    /// enc.write_all(b"abandoned")?;
    /// enc.flush()?;
    /// let partial = enc.into_inner();
    /// assert!(lzkit::zstd::decompress(&partial).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_inner(self) -> W {
        self.inner.into_inner().0
    }

    /// Wrap the encoder so that dropping it finishes the frame (errors are
    /// then lost: call [`AutoFinishEncoder::finish`] to see them). Handy
    /// where the writer is passed around as a `Box<dyn Write>`.
    ///
    /// ```
    /// use lzkit::zstd::{FrameEncoder, FrameOptions};
    /// use std::io::Write;
    ///
    /// let mut packed = Vec::new();
    /// {
    ///     let mut w: Box<dyn Write + '_> =
    ///         Box::new(FrameEncoder::new(&mut packed, &FrameOptions::new())?.auto_finish());
    ///     w.write_all(b"finished when dropped")?;
    /// }
    /// assert_eq!(lzkit::zstd::decompress(&packed)?, b"finished when dropped");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn auto_finish(self) -> AutoFinishEncoder<W> {
        AutoFinishEncoder::new(self)
    }
}

impl<W: Write> Write for FrameEncoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A [`FrameEncoder`] that finishes its frame when dropped. Made by
/// [`FrameEncoder::auto_finish`].
pub type AutoFinishEncoder<W> = crate::encoder::AutoFinishEncoder<FrameEncoder<W>>;

crate::encoder::frame_write_by_inherent_methods!(FrameEncoder);

/// Compress `data` into one zstd frame (its size in the header).
///
/// # Errors
/// As [`FrameEncoder::new`].
pub fn compress(data: &[u8], opts: &FrameOptions) -> Result<Vec<u8>> {
    let opts = opts.clone().content_size(Some(data.len() as u64));
    let mut enc = FrameEncoder::new(Vec::with_capacity(data.len() / 2 + 64), &opts)?;
    enc.write_all(data).map_err(Error::Io)?;
    enc.finish().map_err(Error::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0u32..50_000)
            .flat_map(|i| (i % 1000).to_le_bytes())
            .collect()
    }

    #[test]
    fn frames_decode_with_lzkit_and_libzstd() {
        let data = sample();
        for level in [-5, 1, 3, 19, 22] {
            let frame = compress(&data, &FrameOptions::new().level(level)).unwrap();
            assert_eq!(
                crate::zstd::decompress(&frame).unwrap(),
                data,
                "level {level}"
            );
            assert_eq!(
                ::zstd::decode_all(&frame[..]).unwrap(),
                data,
                "level {level}"
            );
            let info = crate::zstd::list_frames(&frame[..]).unwrap();
            assert_eq!(info[0].content_size, Some(data.len() as u64));
            assert!(
                info[0].checksum.is_some(),
                "level {level}: checksum on by default"
            );
        }
    }

    #[test]
    fn options_reach_the_frame() {
        let data = sample();
        let frame = compress(&data, &FrameOptions::new().checksum(false)).unwrap();
        assert!(
            crate::zstd::list_frames(&frame[..]).unwrap()[0]
                .checksum
                .is_none()
        );
        let long = compress(&data, &FrameOptions::new().long(Some(24)).workers(2)).unwrap();
        assert_eq!(crate::zstd::decompress(&long).unwrap(), data);
        let bad = FrameEncoder::new(Vec::new(), &FrameOptions::new().long(Some(40)));
        assert!(bad.is_err(), "window log 40 refused");
    }

    #[test]
    fn dictionaries_are_needed_to_decode() {
        let dict: Arc<[u8]> = Arc::from(&sample()[..20_000]);
        let data = sample()[1000..30_000].to_vec();
        let frame = compress(&data, &FrameOptions::new().dictionary(Some(dict.clone()))).unwrap();
        let plain = compress(&data, &FrameOptions::new()).unwrap();
        assert!(frame.len() < plain.len());
        let d = crate::zstd::Dictionary::new(&dict).unwrap();
        let mut dec = crate::zstd::Decoder::new().with_dictionary(d);
        assert_eq!(dec.decompress(&frame).unwrap(), data);
        assert!(crate::zstd::decompress(&frame).is_err());
    }

    #[test]
    fn output_is_the_same_for_any_number_of_workers() {
        // Streamed in pieces, as the command writes, and larger than a
        // job (8 MiB at level 3), where one worker and several could cut
        // the input differently.
        let data: Vec<u8> = (0u32..2_500_000)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 22).to_le_bytes())
            .collect();
        let streamed = |opts: &FrameOptions| {
            let mut enc = FrameEncoder::new(Vec::new(), opts).unwrap();
            for piece in data.chunks(128 << 10) {
                enc.write_all(piece).unwrap();
            }
            enc.finish().unwrap()
        };
        for level in [3, 16] {
            let opts = FrameOptions::new().level(level);
            let one = streamed(&opts.clone().workers(1));
            for n in [2, 3] {
                let many = streamed(&opts.clone().workers(n));
                assert!(one == many, "level {level}: 1 and {n} workers differ");
            }
            assert_eq!(crate::zstd::decompress(&one).unwrap(), data);
        }
    }

    #[test]
    fn encoder_adapters() {
        let mut enc = FrameEncoder::new(Vec::new(), &FrameOptions::new()).unwrap();
        enc.write_all(b"abc").unwrap();
        enc.flush().unwrap();
        assert!(!enc.get_ref().is_empty());
        enc.get_mut().reserve(1);
        let unterminated = enc.into_inner();
        assert!(crate::zstd::decompress(&unterminated).is_err());

        let mut out = Vec::new();
        let mut auto = FrameEncoder::new(&mut out, &FrameOptions::new())
            .unwrap()
            .auto_finish();
        auto.write_all(b"abc").unwrap();
        drop(auto);
        assert_eq!(crate::zstd::decompress(&out).unwrap(), b"abc");
        let auto = FrameEncoder::new(
            Vec::new(),
            &FrameOptions::new().level(crate::zstd::Level::new(1)),
        )
        .unwrap()
        .auto_finish();
        assert_eq!(
            crate::zstd::decompress(&auto.finish().unwrap()).unwrap(),
            b""
        );
    }

    #[test]
    fn a_wrong_content_size_fails() {
        let opts = FrameOptions::new().content_size(Some(10));
        let mut enc = FrameEncoder::new(Vec::new(), &opts).unwrap();
        enc.write_all(b"more than ten bytes").ok();
        assert!(enc.finish().is_err());
    }
}
