//! Recompression between codecs in one pass (the `recompress` feature):
//! LZ4, zstd, gzip, zlib, xz and LZMA in; LZ4 or zstd out.
//!
//! One pipeline: a thread decodes the input (LZ4 frames of independent
//! blocks on more threads if asked: [`RecompressOptions::decode_threads`];
//! zstd with lzkit's own decoder;
//! gzip and zlib through `flate2`'s `zlib-rs` backend; xz and LZMA through
//! liblzma) and hands the content on in [`CHUNK`]-byte pieces, at most
//! [`DEPTH`] of them in flight; the calling thread feeds them to the
//! encoder, which compresses on its own threads (LZ4: lzkit's frame encoder
//! with [`crate::lz4::frame::FrameOptions::threads`]; zstd: libzstd's
//! workers) and writes in order. Memory is bounded by those pieces plus the
//! encoder's jobs, whatever the input's size. Decoding and encoding overlap.
//!
//! The content's XXH64 and length are computed on the way
//! ([`Summary::content_xxh64`]). With [`RecompressOptions::verify`], the
//! output is decoded again as it is written, on a thread of its own, and
//! its XXH64 and length must match the input's: the output then decodes to
//! exactly what the input held, checked end to end.
//!
//! ```
//! use lzkit::format::Target;
//! use lzkit::recompress::{RecompressOptions, recompress};
//! let data = b"baskets of events, baskets of events, baskets of events ".repeat(1000);
//! let lz4 = lzkit::lz4::frame::compress(&data, &Default::default());
//! let opts = RecompressOptions::new(Target::Zstd(lzkit::zstd::FrameOptions::new().level(9)))
//!     .verify(true);
//! let (zst, summary) = recompress(&lz4[..], Vec::new(), &opts)?;
//! assert_eq!(lzkit::zstd::decompress(&zst).unwrap(), data);
//! assert_eq!(summary.content, data.len() as u64);
//! # Ok::<(), lzkit::recompress::RecompressError>(())
//! ```

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use xxhash_rust::xxh64::Xxh64;

use crate::error::Error;
use crate::filter::FRAME_MAGIC;
use crate::format::{self, Encoder, Format, Found, Target};

/// The size of the pieces of decoded content handed from the decoding
/// thread to the encoder (and of the output handed to the verifier).
pub const CHUNK: usize = 1 << 20;
/// How many pieces may wait between two stages: enough to keep both
/// busy, few enough that memory stays bounded.
pub const DEPTH: usize = 4;

/// How to recompress.
#[derive(Debug, Clone)]
pub struct RecompressOptions {
    target: Target,
    decode: format::DecodeOptions,
    verify: bool,
    serial: bool,
}

impl RecompressOptions {
    /// Recompress to `target`, decoding on one thread, zstd windows up to
    /// 2^27 bytes ([`crate::zstd::DEFAULT_WINDOW_LOG_MAX`]), no
    /// verification pass.
    pub fn new(target: Target) -> Self {
        RecompressOptions {
            target,
            decode: format::DecodeOptions::new(),
            verify: false,
            serial: false,
        }
    }

    /// Threads decoding LZ4 frames of independent blocks (0: one per
    /// core; other formats decode on one thread). Default 1: LZ4 decodes
    /// at gigabytes per second on one thread, faster than any encoder but
    /// LZ4's fastest levels on many cores, and decoding on more threads
    /// holds more blocks in memory (128 MB of columns to zstd -3 on two
    /// threads: 0.22 s and 69 MB peak with one decoding thread, 0.23 s and
    /// 93 MB with two).
    pub fn decode_threads(mut self, threads: usize) -> Self {
        self.decode = self.decode.threads(threads);
        self
    }

    /// The largest zstd window accepted from the input, as a log.
    pub fn window_log_max(mut self, log: u32) -> Self {
        self.decode = self.decode.window_log_max(log);
        self
    }

    /// Decode the output again as it is written, and fail unless it holds
    /// exactly the input's content (XXH64 and length).
    pub fn verify(mut self, on: bool) -> Self {
        self.verify = on;
        self
    }

    /// Decode on the calling thread, between the encoder's writes, instead
    /// of on a thread of its own (default: no). Slower for one file; the
    /// choice when each file has one thread, files side by side (a
    /// cluster's tasks), so that a task takes one core. The output is the
    /// same either way.
    pub fn serial(mut self, on: bool) -> Self {
        self.serial = on;
        self
    }

    /// The target.
    pub fn target(&self) -> &Target {
        &self.target
    }
}

/// What a recompression did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// The input's format.
    pub source: Format,
    /// Compressed bytes read.
    pub read: u64,
    /// Bytes of content (decoded input).
    pub content: u64,
    /// XXH64 (seed 0) of the content.
    pub content_xxh64: u64,
    /// Compressed bytes written.
    pub written: u64,
    /// Whether the output was decoded again and matched.
    pub verified: bool,
    /// Zero bytes after the last gzip member (the padding `tar` and some
    /// tape tools add), ignored as `gzip -d` ignores them: worth a
    /// warning. 0 for other formats.
    pub trailing_zeros: u64,
}

/// Why a recompression failed: the input (unreadable, corrupt, in no
/// format known) or the output (a write failed, the encoder refused its
/// settings, or the verification pass found a difference).
#[derive(Debug, thiserror::Error)]
pub enum RecompressError {
    /// The input could not be read or decoded.
    #[error("{0}")]
    Input(Error),
    /// The output could not be written, or failed verification.
    #[error("{0}")]
    Output(Error),
}

/// Progress so far: compressed bytes read, content bytes, bytes written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Compressed bytes read from the input.
    pub read: u64,
    /// Content bytes encoded.
    pub content: u64,
    /// Compressed bytes written.
    pub written: u64,
}

/// Recompress everything `input` holds into `output`. Returns the output
/// writer and a [`Summary`].
///
/// # Errors
/// [`RecompressError::Input`] for input that cannot be read or decoded
/// (in no format [`format::detect`] knows, corrupt, truncated);
/// [`RecompressError::Output`] for write errors and a failed verification.
/// What was written before the error is incomplete: a caller writing a
/// file removes it (the `lzkit recompress` command writes a temporary file
/// and renames it only on success).
pub fn recompress<R: Read + Send, W: Write>(
    input: R,
    output: W,
    opts: &RecompressOptions,
) -> Result<(W, Summary), RecompressError> {
    recompress_with_progress(input, output, opts, |_| {})
}

/// [`recompress`], calling `progress` after each piece of content.
///
/// # Errors
/// As [`recompress`].
pub fn recompress_with_progress<R: Read + Send, W: Write>(
    input: R,
    output: W,
    opts: &RecompressOptions,
    mut progress: impl FnMut(Progress),
) -> Result<(W, Summary), RecompressError> {
    let read = Arc::new(AtomicU64::new(0));
    let mut input = Counting {
        inner: input,
        count: read.clone(),
    };
    let (source, head) = sniff(&mut input).map_err(RecompressError::Input)?;
    // A filtered stream's filter frame (the head starts with it, read and
    // checked by `sniff`) goes on unchanged before the output's frames:
    // the content, filtered bytes, is recompressed as it is, and the
    // output is a filtered stream of the target codec.
    let filter_frame = match crate::filter::read_frame(&head) {
        Ok(Some((_, len))) => head[..len].to_vec(),
        _ => Vec::new(),
    };
    if !filter_frame.is_empty() && matches!(opts.target, Target::Seekable(_)) {
        return Err(RecompressError::Input(Error::InvalidOptions(
            "a filtered input (lzkit --filter) cannot become a seekable file: a filter frame is undone over one frame, and a seekable file's frames are decoded on their own",
        )));
    }
    let trailing_zeros = Arc::new(AtomicU64::new(0));
    let decoder = format::decoder(
        source,
        io::Cursor::new(head).chain(input),
        &opts
            .decode
            .clone()
            .trailing_zeros(trailing_zeros.clone())
            .filtered_streams(true),
    )
    .map_err(RecompressError::Input)?;

    std::thread::scope(|scope| {
        let pieces: Box<dyn Iterator<Item = io::Result<Vec<u8>>>> = if opts.serial {
            Box::new(Pieces(Some(decoder)))
        } else {
            let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(DEPTH);
            scope.spawn(move || produce(decoder, &tx));
            Box::new(rx.into_iter())
        };
        let (vtx, verifier) = if opts.verify {
            let (vtx, vrx) = sync_channel::<Vec<u8>>(DEPTH);
            // The output is ours: its window is whatever the encoder chose
            // (--long=31 too), not the input's limit.
            let vopts = opts.clone().window_log_max(crate::zstd::WINDOW_LOG_MAX);
            let handle = scope.spawn(move || digest_of(ChannelReader::new(vrx), &vopts));
            (Some(vtx), Some(handle))
        } else {
            (None, None)
        };
        let verifier_gone = Arc::new(AtomicBool::new(false));
        let tee = Tee {
            inner: output,
            written: 0,
            copy: vtx,
            pending: Vec::new(),
            verifier_gone: verifier_gone.clone(),
        };
        // The encoding, in a closure: on any error its encoder (and the
        // verifier's sender in it) is dropped, so the verifier ends.
        let encoded = (|| {
            let mut tee = tee;
            tee.write_all(&filter_frame).map_err(output_error)?;
            let mut encoder = Encoder::new(tee, &opts.target).map_err(RecompressError::Output)?;
            let mut sum = Digest {
                hash: Xxh64::new(0),
                len: 0,
            };
            for piece in pieces {
                let piece = piece.map_err(|e| RecompressError::Input(Error::from_io(e)))?;
                sum.write_all(&piece).map_err(output_error)?;
                encoder.write_all(&piece).map_err(output_error)?;
                progress(Progress {
                    read: read.load(Ordering::Relaxed),
                    content: sum.len,
                    written: encoder.get_ref().written,
                });
            }
            let mut tee = encoder.finish().map_err(RecompressError::Output)?;
            tee.flush().map_err(output_error)?;
            Ok((tee, sum.len, sum.hash.digest()))
        })();
        let verdict = |handle: std::thread::ScopedJoinHandle<'_, Result<(u64, u64), Error>>| {
            handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))
        };
        let (mut tee, content, content_xxh64) = match encoded {
            Ok(done) => done,
            // A write to the verifier failed: say why it stopped. Any other
            // output error (a full disk) is the error: the verifier then
            // only saw the output end early.
            Err(RecompressError::Output(e)) if verifier_gone.load(Ordering::Relaxed) => {
                return Err(match verifier.map(verdict) {
                    Some(Err(why)) => {
                        verification_failed(format!("the output does not decode: {why}"))
                    }
                    _ => RecompressError::Output(e),
                });
            }
            Err(e) => return Err(e),
        };
        let written = tee.written;
        drop(tee.copy.take());
        let verified = match verifier {
            None => false,
            Some(handle) => {
                let (len, digest) = verdict(handle).map_err(|why| {
                    verification_failed(format!("the output does not decode: {why}"))
                })?;
                if (len, digest) != (content, content_xxh64) {
                    return Err(verification_failed(format!(
                        "the output decodes to {len} bytes (XXH64 {digest:016x}), the input held {content} (XXH64 {content_xxh64:016x})"
                    )));
                }
                true
            }
        };
        Ok((
            tee.inner,
            Summary {
                source,
                read: read.load(Ordering::Relaxed),
                content,
                content_xxh64,
                written,
                verified,
                trailing_zeros: trailing_zeros.load(Ordering::Relaxed),
            },
        ))
    })
}

/// A failed `--verify`, as an output error.
fn verification_failed(why: String) -> RecompressError {
    RecompressError::Output(Error::Io(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("verification failed: {why}"),
    )))
}

/// Skippable frames (shared by LZ4 and zstd) at the start of `input` are
/// read and dropped, so that the format of the first real frame decides
/// (a zstd file that starts with a skippable index is zstd). Returns the
/// format and the bytes read after the skippable frames, to be decoded
/// first.
fn sniff(input: &mut impl Read) -> Result<(Format, Vec<u8>), Error> {
    let mut skipped = false;
    let mut filter_frame: Option<Vec<u8>> = None;
    loop {
        // A limit of 0: each skippable frame's content is dropped as it
        // streams by, never held, whatever its size.
        let sniffed = format::sniff(input, 0)?;
        let head = sniffed.rest();
        match sniffed.found {
            Found::Format(format) => {
                // A filter frame goes on before the frames: the decoder
                // then refuses frames joined to the filtered one, and the
                // output starts with it (see `recompress`).
                let mut start = filter_frame.unwrap_or_default();
                start.extend_from_slice(head);
                return Ok((format, start));
            }
            Found::OverLimit { remaining } => {
                // lzkit's filter frame (a few dozen bytes) is read whole
                // and checked; other skippable frames are dropped.
                let header = sniffed.head.get(sniffed.head.len().saturating_sub(8)..);
                if let Some(header) = header.filter(|h| {
                    h.len() == 8 && u32::from_le_bytes([h[0], h[1], h[2], h[3]]) == FRAME_MAGIC
                }) && remaining <= 64
                {
                    let mut frame = header.to_vec();
                    let mut content = Vec::new();
                    input.by_ref().take(remaining).read_to_end(&mut content)?;
                    frame.extend_from_slice(&content);
                    let found = crate::filter::read_frame(&frame)
                        .map_err(|e| Error::Io(io::Error::new(io::ErrorKind::InvalidData, e)))?;
                    if found.is_some() {
                        if filter_frame.is_some() {
                            return Err(Error::Io(io::Error::new(
                                io::ErrorKind::InvalidData,
                                "two filter frames: a stream records one filter",
                            )));
                        }
                        filter_frame = Some(frame);
                    } else if (content.len() as u64) < remaining {
                        return Err(Error::Io(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "truncated: the input ends inside a skippable frame",
                        )));
                    }
                    skipped = true;
                    continue;
                }
                let dropped = io::copy(&mut input.by_ref().take(remaining), &mut io::sink())?;
                if dropped < remaining {
                    return Err(Error::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "truncated: the input ends inside a skippable frame",
                    )));
                }
                skipped = true;
            }
            Found::End | Found::TruncatedSkippable | Found::Unknown => {
                return Err(Error::Io(io::Error::new(
                    io::ErrorKind::InvalidData,
                    if head.is_empty() && !skipped {
                        "empty input: no compressed data to recompress".to_string()
                    } else if head.is_empty() {
                        "only skippable frames: no compressed data to recompress".to_string()
                    } else {
                        format!("not a compressed format lzkit reads ({})", Format::list())
                    },
                )));
            }
        }
    }
}

/// The length and XXH64 of what the compressed stream `input` decodes to
/// (any [`Format`]): what `--verify` compares, and a check of a
/// recompressed file against its source.
///
/// # Errors
/// As [`recompress`]'s input errors.
pub fn content_digest<R: Read + Send>(
    input: R,
    opts: &RecompressOptions,
) -> Result<(u64, u64), RecompressError> {
    digest_of(input, opts).map_err(RecompressError::Input)
}

/// [`content_digest`] with plain errors (the verifier thread's body).
fn digest_of<R: Read + Send>(mut input: R, opts: &RecompressOptions) -> Result<(u64, u64), Error> {
    let (source, head) = sniff(&mut input)?;
    let mut decoder = format::decoder(
        source,
        io::Cursor::new(head).chain(input),
        &opts.decode.clone().filtered_streams(true),
    )?;
    let mut sum = Digest {
        hash: Xxh64::new(0),
        len: 0,
    };
    io::copy(&mut decoder, &mut sum).map_err(Error::from_io)?;
    Ok((sum.len, sum.hash.digest()))
}

/// A writer that keeps only the length and XXH64 of what it is given.
struct Digest {
    hash: Xxh64,
    len: u64,
}

impl Write for Digest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.hash.update(buf);
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The decoding thread: read `decoder` in [`CHUNK`]-byte pieces and send
/// them; an error is sent and ends it, and so does a receiver gone away
/// (the encoder failed).
fn produce(decoder: Box<dyn Read + Send + '_>, tx: &SyncSender<io::Result<Vec<u8>>>) {
    for piece in Pieces(Some(decoder)) {
        if tx.send(piece).is_err() {
            return;
        }
    }
}

/// The decoded content in [`CHUNK`]-byte pieces; after an error, nothing.
struct Pieces<'a>(Option<Box<dyn Read + Send + 'a>>);

impl Iterator for Pieces<'_> {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let decoder = self.0.as_mut()?;
        let mut piece = Vec::with_capacity(CHUNK);
        match decoder.take(CHUNK as u64).read_to_end(&mut piece) {
            Ok(0) => {
                self.0 = None;
                None
            }
            Ok(_) => Some(Ok(piece)),
            Err(e) => {
                self.0 = None;
                Some(Err(e))
            }
        }
    }
}

/// An output error as a [`RecompressError`].
fn output_error(e: io::Error) -> RecompressError {
    RecompressError::Output(Error::from_io(e))
}

/// The output writer: counts the bytes written and, when verifying, sends
/// a copy of them in [`CHUNK`]-byte pieces to the verifier.
struct Tee<W: Write> {
    inner: W,
    written: u64,
    copy: Option<SyncSender<Vec<u8>>>,
    pending: Vec<u8>,
    /// Set when the verifier stopped reading (it found the output wrong):
    /// the write error that follows is its verdict, not the output's.
    verifier_gone: Arc<AtomicBool>,
}

impl<W: Write> Tee<W> {
    fn send_pending(&mut self) -> io::Result<()> {
        if let Some(tx) = &self.copy
            && !self.pending.is_empty()
        {
            let piece = std::mem::replace(&mut self.pending, Vec::with_capacity(CHUNK));
            tx.send(piece).map_err(|_| {
                self.verifier_gone.store(true, Ordering::Relaxed);
                io::Error::other("verification stopped: the output does not decode")
            })?;
        }
        Ok(())
    }
}

impl<W: Write> Write for Tee<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        if self.copy.is_some() {
            self.pending.extend_from_slice(&buf[..n]);
            if self.pending.len() >= CHUNK {
                self.send_pending()?;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send_pending()?;
        self.inner.flush()
    }
}

/// A reader over pieces received from a channel: the verifier's input.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    piece: Vec<u8>,
    at: usize,
}

impl ChannelReader {
    fn new(rx: Receiver<Vec<u8>>) -> Self {
        ChannelReader {
            rx,
            piece: Vec::new(),
            at: 0,
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.piece.len() {
            match self.rx.recv() {
                Ok(piece) => {
                    self.piece = piece;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A reader that counts the bytes read from it.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lz4::frame::{BlockMode, FrameOptions};

    fn data() -> Vec<u8> {
        (0u32..400_000)
            .flat_map(|i| ((i / 7) % 5000).to_le_bytes())
            .collect()
    }

    fn inputs(data: &[u8]) -> Vec<(Format, Vec<u8>)> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        gz.write_all(data).unwrap();
        let mut zl = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        zl.write_all(data).unwrap();
        let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 3);
        xz.write_all(data).unwrap();
        let lzma_opts = liblzma::stream::LzmaOptions::new_preset(3).unwrap();
        let stream = liblzma::stream::Stream::new_lzma_encoder(&lzma_opts).unwrap();
        let mut lzma = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
        lzma.write_all(data).unwrap();
        vec![
            (
                Format::Lz4Frame,
                crate::lz4::frame::compress(data, &FrameOptions::new().level(9)),
            ),
            (
                Format::Zstd,
                crate::zstd::compress(data, &crate::zstd::FrameOptions::new()).unwrap(),
            ),
            (Format::Gzip, gz.finish().unwrap()),
            (Format::Zlib, zl.finish().unwrap()),
            (Format::Xz, xz.finish().unwrap()),
            (Format::Lzma, lzma.finish().unwrap()),
        ]
    }

    fn targets() -> Vec<Target> {
        vec![
            Target::Lz4(FrameOptions::new().level(1).threads(2)),
            Target::Lz4(
                FrameOptions::new()
                    .level(9)
                    .block_mode(BlockMode::Linked)
                    .block_checksum(true),
            ),
            Target::Zstd(crate::zstd::FrameOptions::new().level(3)),
            Target::Zstd(crate::zstd::FrameOptions::new().level(19).workers(2)),
            Target::Seekable(
                crate::seekable::WriteOptions::lz4(FrameOptions::new())
                    .chunk_size(100_000)
                    .threads(2),
            ),
            Target::Seekable(
                crate::seekable::WriteOptions::zstd(crate::zstd::FrameOptions::new())
                    .chunk_size(70_000),
            ),
        ]
    }

    #[test]
    fn decoding_on_the_calling_thread_gives_the_same_output() {
        let data = data();
        for (format, input) in inputs(&data) {
            for target in targets() {
                let opts = RecompressOptions::new(target).verify(true);
                let (a, sa) = recompress(&input[..], Vec::new(), &opts).unwrap();
                let (b, sb) =
                    recompress(&input[..], Vec::new(), &opts.clone().serial(true)).unwrap();
                assert!(a == b, "{format:?}");
                assert_eq!(
                    (sa.content_xxh64, sa.written),
                    (sb.content_xxh64, sb.written)
                );
            }
            // A corrupt input is the same error.
            let mut bad = input.clone();
            let mid = bad.len() / 2;
            bad[mid] ^= 0x55;
            let opts = RecompressOptions::new(Target::Lz4(FrameOptions::new()));
            let a = recompress(&bad[..], Vec::new(), &opts)
                .map(|_| ())
                .unwrap_err();
            let b = recompress(&bad[..], Vec::new(), &opts.clone().serial(true))
                .map(|_| ())
                .unwrap_err();
            assert_eq!(a.to_string(), b.to_string(), "{format:?}");
        }
    }

    #[test]
    fn every_format_to_every_target() {
        let data = data();
        let digest = xxhash_rust::xxh64::xxh64(&data, 0);
        for (format, input) in inputs(&data) {
            assert_eq!(format::detect(&input), Some(format));
            for target in targets() {
                let opts = RecompressOptions::new(target.clone()).verify(true);
                let (out, s) = recompress(&input[..], Vec::new(), &opts).unwrap();
                let what = format!("{format:?} -> {target:?}");
                assert_eq!(s.source, format, "{what}");
                assert_eq!((s.content, s.content_xxh64), (data.len() as u64, digest));
                assert_eq!((s.read, s.written), (input.len() as u64, out.len() as u64));
                assert!(s.verified, "{what}");
                let back = match target {
                    Target::Lz4(_) => crate::lz4::frame::decompress(&out).unwrap(),
                    Target::Zstd(_) => crate::zstd::decompress(&out).unwrap(),
                    Target::Seekable(_) => {
                        let r = crate::seekable::SeekableReader::open(&out[..]).unwrap();
                        assert!(!r.scanned(), "{what}");
                        let mut back = Vec::new();
                        r.decode_all(&mut back, 2).unwrap();
                        back
                    }
                };
                assert!(back == data, "{what}");
                let (len, d) = content_digest(&out[..], &opts).unwrap();
                assert_eq!((len, d), (data.len() as u64, digest), "{what}");
            }
        }
    }

    #[test]
    fn bad_input_is_an_input_error() {
        let data = data();
        let opts = RecompressOptions::new(Target::Lz4(FrameOptions::new()));
        for (format, mut input) in inputs(&data) {
            let mid = input.len() / 2;
            input[mid] ^= 0x55;
            input[mid + 1] ^= 0xAA;
            input.truncate(input.len() - 3);
            let r = recompress(&input[..], Vec::new(), &opts);
            assert!(
                matches!(r, Err(RecompressError::Input(_))),
                "{format:?}: {r:?}"
            );
        }
        for bad in [&b""[..], b"hello, world"] {
            let r = recompress(bad, Vec::new(), &opts);
            assert!(matches!(r, Err(RecompressError::Input(_))), "{r:?}");
        }
    }

    #[test]
    fn a_failing_output_is_an_output_error() {
        #[derive(Debug)]
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let data = data();
        let input = crate::lz4::frame::compress(&data, &FrameOptions::new());
        for target in targets() {
            let r = recompress(&input[..], Full, &RecompressOptions::new(target));
            assert!(matches!(r, Err(RecompressError::Output(_))), "{r:?}");
        }
    }

    #[test]
    fn a_full_disk_while_verifying_is_the_disk_error_not_a_verdict() {
        /// Takes 4 KiB, then fails as a full disk does.
        #[derive(Debug)]
        struct FillsUp(usize);
        impl Write for FillsUp {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::from_raw_os_error(28));
                }
                let n = buf.len().min(self.0);
                self.0 -= n;
                Ok(n)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let data = data();
        let input = crate::lz4::frame::compress(&data, &FrameOptions::new());
        for target in targets() {
            let opts = RecompressOptions::new(target).verify(true);
            match recompress(&input[..], FillsUp(4 << 10), &opts) {
                Err(RecompressError::Output(Error::Io(e))) => {
                    assert_eq!(e.raw_os_error(), Some(28), "{e}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn gzip_zero_padding_is_counted_and_garbage_is_called_garbage() {
        let data = data();
        let gz = inputs(&data)
            .into_iter()
            .find(|(f, _)| *f == Format::Gzip)
            .unwrap()
            .1;
        let opts = RecompressOptions::new(Target::Lz4(FrameOptions::new())).verify(true);
        // Two members, then 10 KiB of zeros (tar's padding).
        let mut padded = [&gz[..], &gz[..]].concat();
        padded.resize(padded.len() + 10_240, 0);
        let (out, s) = recompress(&padded[..], Vec::new(), &opts).unwrap();
        assert_eq!(s.trailing_zeros, 10_240);
        assert_eq!(s.content, 2 * data.len() as u64);
        assert_eq!(
            crate::lz4::frame::decompress(&out).unwrap(),
            [&data[..], &data[..]].concat()
        );
        let (_, plain) = recompress(&gz[..], Vec::new(), &opts).unwrap();
        assert_eq!(plain.trailing_zeros, 0);
        for garbage in [
            &b"x"[..],
            b"\0\0junk",
            b"not gzip at all, and longer than a header",
        ] {
            let bad = [&gz[..], garbage].concat();
            match recompress(&bad[..], Vec::new(), &opts) {
                Err(RecompressError::Input(e)) => {
                    let text = e.to_string();
                    assert!(text.contains("trailing garbage"), "{garbage:?}: {text}");
                }
                other => panic!("{garbage:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn read_errors_are_not_called_corrupt_data() {
        /// The first `n` bytes of a slice, then EIO.
        struct Failing<'a>(&'a [u8]);
        impl Read for Failing<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::from_raw_os_error(5));
                }
                let n = buf.len().min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let data = data();
        let opts = RecompressOptions::new(Target::Lz4(FrameOptions::new()));
        for (format, input) in inputs(&data) {
            let r = recompress(Failing(&input[..input.len() / 2]), Vec::new(), &opts);
            match r {
                Err(RecompressError::Input(e)) => {
                    let text = e.to_string();
                    assert!(!text.contains("corrupt"), "{format:?}: {text}");
                }
                other => panic!("{format:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn single_stream_formats_refuse_trailing_data() {
        let data = data();
        for (format, input) in inputs(&data) {
            if !matches!(format, Format::Zlib | Format::Lzma) {
                continue;
            }
            let mut twice = input.clone();
            twice.extend_from_slice(&input);
            let opts = RecompressOptions::new(Target::Lz4(FrameOptions::new())).verify(true);
            let r = recompress(&twice[..], Vec::new(), &opts);
            assert!(
                matches!(&r, Err(RecompressError::Input(e)) if e.to_string().contains("after the end")),
                "{format:?}: {r:?}"
            );
        }
    }

    #[test]
    fn filtered_inputs_keep_their_filter_frame() {
        let data = data();
        let filter: crate::filter::Filter = "delta4".parse().unwrap();
        let filtered = filter.encode(&data);
        let plain = crate::lz4::frame::compress(b"another file", &FrameOptions::new());
        let mut foreign = FRAME_MAGIC.to_le_bytes().to_vec();
        foreign.extend([4, 0, 0, 0]);
        foreign.extend(b"ABCD");
        for (format, frames) in inputs(&filtered).into_iter().take(2) {
            // Someone else's skippable frame of the same magic number is
            // dropped, as before; the filter frame is kept.
            let input = [&foreign[..], &filter.frame(), &frames].concat();
            for target in targets() {
                let opts = RecompressOptions::new(target.clone()).verify(true);
                let r = recompress(&input[..], Vec::new(), &opts);
                if matches!(target, Target::Seekable(_)) {
                    assert!(matches!(r, Err(RecompressError::Input(_))), "{r:?}");
                    continue;
                }
                let (out, s) = r.unwrap();
                assert_eq!((s.source, s.verified), (format, true));
                assert_eq!(crate::filter::read_frame(&out).unwrap().unwrap().0, filter);
                let mut back = Vec::new();
                let dopts = format::DecodeOptions::new().filtered_streams(true);
                let codec = target.codec();
                let f = if codec == crate::format::Codec::Zstd {
                    Format::Zstd
                } else {
                    Format::Lz4Frame
                };
                format::decoder(f, &out[..], &dopts)
                    .unwrap()
                    .read_to_end(&mut back)
                    .unwrap();
                assert!(back == filtered, "{format:?} to {target:?}");
            }
            // Joined with other frames: refused, not recompressed.
            let joined = [&input[..], &plain].concat();
            let opts = RecompressOptions::new(targets().remove(0));
            let r = recompress(&joined[..], Vec::new(), &opts);
            assert!(matches!(r, Err(RecompressError::Input(_))), "{r:?}");
            // A damaged filter frame is an input error.
            let mut bad = input.clone();
            bad[foreign.len() + 14] ^= 1;
            let r = recompress(&bad[..], Vec::new(), &opts);
            assert!(matches!(r, Err(RecompressError::Input(_))), "{r:?}");
        }
    }

    #[test]
    fn skippable_frames_before_zstd_and_verify_of_a_long_window() {
        let data = data();
        let mut input = vec![0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3];
        input.extend(crate::zstd::compress(&data, &crate::zstd::FrameOptions::new()).unwrap());
        // Verifying a window of 2^28, over the input's default limit.
        let target = Target::Zstd(crate::zstd::FrameOptions::new().long(Some(28)));
        let opts = RecompressOptions::new(target).verify(true);
        let (out, s) = recompress(&input[..], Vec::new(), &opts).unwrap();
        assert_eq!(
            (s.source, s.read, s.verified),
            (Format::Zstd, input.len() as u64, true)
        );
        let frames = crate::zstd::list_frames(&out[..]).unwrap();
        assert!(frames[0].window_size > 1 << 27, "{:?}", frames[0]);
        let only = &input[..11];
        let r = recompress(only, Vec::new(), &opts);
        assert!(matches!(r, Err(RecompressError::Input(_))), "{r:?}");
        let cut = &input[..9];
        let r = recompress(cut, Vec::new(), &opts);
        assert!(matches!(r, Err(RecompressError::Input(_))), "{r:?}");
    }
}
