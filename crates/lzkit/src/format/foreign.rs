//! Decoders of the formats read through other libraries (the `recompress`
//! feature): gzip and zlib through `flate2`, xz and LZMA through liblzma,
//! each with the end-of-input checks their command-line tools make.

use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{DecodeOptions, Format, GZIP_MAGIC};
use crate::error::{Error, Result};

/// A decoder of `input` in `format` (gzip, zlib, xz or LZMA).
pub(super) fn decoder<'a, R: Read + Send + 'a>(
    format: Format,
    input: R,
    opts: &DecodeOptions,
) -> Result<Box<dyn Read + Send + 'a>> {
    Ok(match format {
        Format::Gzip => Box::new(GzipMembers::new(
            io::BufReader::new(input),
            opts.trailing_zeros.clone().unwrap_or_default(),
        )),
        Format::Zlib => Box::new(Labeled(
            format,
            EndChecked::new(flate2::bufread::ZlibDecoder::new(io::BufReader::new(input))),
        )),
        Format::Xz => {
            // Several streams in a row, as `xz -d` reads them; anything
            // else after them is an error of liblzma's.
            let stream = liblzma::stream::Stream::new_stream_decoder(
                lzma_memory_limit(opts),
                liblzma::stream::CONCATENATED,
            )
            .map_err(lzma_setup)?;
            Box::new(Labeled(
                format,
                liblzma::read::XzDecoder::new_stream(input, stream),
            ))
        }
        Format::Lzma => {
            let stream = liblzma::stream::Stream::new_lzma_decoder(lzma_memory_limit(opts))
                .map_err(lzma_setup)?;
            Box::new(Labeled(
                format,
                EndChecked::new(liblzma::bufread::XzDecoder::new_stream(
                    io::BufReader::new(input),
                    stream,
                )),
            ))
        }
        Format::Lz4Frame | Format::Lz4Legacy | Format::Zstd => {
            unreachable!("lzkit's own decoders read {}", format.name())
        }
    })
}

/// The memory liblzma may use to decode xz or LZMA input: the window limit
/// (`--memory`; 128 MiB by default) plus 16 MiB for its other state. An
/// LZMA dictionary is the window, and `.lzma` headers may claim up to 4 GiB.
/// A log of 64 or more (the option is not clamped) means no limit.
fn lzma_memory_limit(opts: &DecodeOptions) -> u64 {
    1u64.checked_shl(opts.window_log_max)
        .unwrap_or(u64::MAX)
        .saturating_add(16 << 20)
}

/// liblzma refused to set up a decoder.
fn lzma_setup(e: liblzma::stream::Error) -> Error {
    Error::Io(io::Error::other(format!(
        "cannot set up the xz/LZMA decoder: {e}"
    )))
}

/// A single-stream decoder over a buffered reader (zlib, LZMA-alone):
/// at the end of the stream, the input must end too. Those formats have
/// no concatenation, and data after the stream would otherwise be dropped
/// unread.
struct EndChecked<D> {
    decoder: D,
    checked: bool,
}

impl<D> EndChecked<D> {
    fn new(decoder: D) -> Self {
        EndChecked {
            decoder,
            checked: false,
        }
    }
}

/// Decoders whose buffered input can be looked at after their stream.
trait BufferedInput {
    fn input(&mut self) -> &mut dyn BufRead;
}

impl<R: BufRead> BufferedInput for flate2::bufread::ZlibDecoder<R> {
    fn input(&mut self) -> &mut dyn BufRead {
        self.get_mut()
    }
}

impl<R: BufRead> BufferedInput for liblzma::bufread::XzDecoder<R> {
    fn input(&mut self) -> &mut dyn BufRead {
        self.get_mut()
    }
}

impl<D: Read + BufferedInput> Read for EndChecked<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.decoder.read(buf)?;
        if n == 0 && !buf.is_empty() && !self.checked {
            self.checked = true;
            if !self.decoder.input().fill_buf()?.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "data after the end of the stream (this format holds one stream)",
                ));
            }
        }
        Ok(n)
    }
}

/// gzip members one after another, as `gzip -d` reads them. After the
/// last one, the input must end; a run of zero bytes to the end (`tar`'s
/// padding) is accepted and counted, as `gzip -d` accepts it; anything
/// else is trailing garbage, an error (and called that, not truncation).
struct GzipMembers<R: BufRead> {
    /// The member being decoded.
    member: Option<flate2::bufread::GzDecoder<R>>,
    /// The input between members.
    between: Option<R>,
    /// Zero bytes found after the last member.
    zeros: Arc<AtomicU64>,
}

impl<R: BufRead> GzipMembers<R> {
    fn new(input: R, zeros: Arc<AtomicU64>) -> Self {
        GzipMembers {
            member: Some(flate2::bufread::GzDecoder::new(input)),
            between: None,
            zeros,
        }
    }

    /// After the last member: nothing, or zeros to the end.
    fn check_end(input: &mut R, zeros: &AtomicU64) -> io::Result<()> {
        let mut count = 0u64;
        loop {
            let rest = input.fill_buf()?;
            if rest.is_empty() {
                zeros.store(count, Ordering::Relaxed);
                return Ok(());
            }
            if let Some(at) = rest.iter().position(|&b| b != 0) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    if count + at as u64 == 0 {
                        "trailing garbage after the last gzip member (the data after it is not gzip)"
                            .to_string()
                    } else {
                        format!(
                            "trailing garbage after the last gzip member ({} zero bytes, then data that is not gzip)",
                            count + at as u64
                        )
                    },
                ));
            }
            let n = rest.len();
            count += n as u64;
            input.consume(n);
        }
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(member) = &mut self.member {
                let n = member.read(buf).map_err(|e| label(Format::Gzip, e))?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                // The member ended: what follows is looked at below.
                let member = self.member.take().expect("a member");
                self.between = Some(member.into_inner());
            }
            let Some(input) = &mut self.between else {
                return Ok(0);
            };
            let next = input.fill_buf()?;
            // A member starts with 1f 8b (one byte of it may be all the
            // buffer holds: the member's header check then decides).
            if next.starts_with(&GZIP_MAGIC) || next == &GZIP_MAGIC[..1] {
                let input = self.between.take().expect("input");
                self.member = Some(flate2::bufread::GzDecoder::new(input));
                continue;
            }
            let result = Self::check_end(input, &self.zeros);
            self.between = None;
            return result.map(|()| 0);
        }
    }
}

/// A decoder of another library whose errors are said to be about the
/// input's format: "corrupt gzip data: ...", "truncated xz data".
struct Labeled<R>(Format, R);

impl<R: Read> Read for Labeled<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.1.read(buf).map_err(|e| label(self.0, e))
    }
}

/// An error of another library's decoder for `format`, said to be about
/// the input's format.
fn label(format: Format, e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::Interrupted => e,
        // A read error of the system (EIO on a failing disk, a lost
        // NFS server) is not about the data: passed on as it is.
        _ if e.raw_os_error().is_some() => e,
        io::ErrorKind::UnexpectedEof => io::Error::new(
            e.kind(),
            format!("truncated {} data: it ends inside a stream", format.name()),
        ),
        _ if e.to_string() == "memory limit reached" => io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!(
                "the {} data needs more memory than allowed: its dictionary is over the window limit (--memory, 128 MiB by default)",
                format.name()
            ),
        ),
        kind => io::Error::new(kind, format!("corrupt {} data: {e}", format.name())),
    }
}
