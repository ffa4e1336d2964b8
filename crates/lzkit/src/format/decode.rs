//! Opening a decoder over a reader, for any [`Format`].

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::Format;
#[cfg(test)]
use crate::error::Error;
use crate::error::Result;

/// How to decode a stream: the settings of every format's decoder, each
/// used by the formats it concerns.
#[derive(Debug, Clone)]
pub struct DecodeOptions {
    pub(super) threads: usize,
    pub(super) window_log_max: u32,
    pub(super) trailing_zeros: Option<Arc<AtomicU64>>,
    pub(super) verify_checksums: bool,
    pub(super) filtered_streams: bool,
    pub(super) lz4_dictionary: Option<Arc<[u8]>>,
    pub(super) zstd_dictionary: Option<crate::zstd::Dictionary>,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions::new()
    }
}

impl DecodeOptions {
    /// One thread, zstd (and xz, LZMA) windows up to 2^27 bytes
    /// ([`crate::zstd::DEFAULT_WINDOW_LOG_MAX`]).
    pub fn new() -> Self {
        DecodeOptions {
            threads: 1,
            window_log_max: crate::zstd::DEFAULT_WINDOW_LOG_MAX,
            trailing_zeros: None,
            verify_checksums: true,
            filtered_streams: false,
            lz4_dictionary: None,
            zstd_dictionary: None,
        }
    }

    /// Threads decoding LZ4 frames of independent blocks (0: one per
    /// core; the other formats decode on one thread).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The largest window accepted, as a log: zstd's window; for xz and
    /// LZMA, the dictionary (their decoders may use 16 MiB more).
    pub fn window_log_max(mut self, log: u32) -> Self {
        self.window_log_max = log;
        self
    }

    /// Whether LZ4 and zstd checksums (content, block) are verified
    /// (default: yes; `--no-crc`).
    pub fn verify_checksums(mut self, on: bool) -> Self {
        self.verify_checksums = on;
        self
    }

    /// Whether LZ4 and zstd decoders refuse a filtered stream joined with
    /// other frames (default: no; see
    /// [`crate::lz4::frame::DecodeOptions::filtered_streams`]). The
    /// command's `-d` turns it on.
    pub fn filtered_streams(mut self, on: bool) -> Self {
        self.filtered_streams = on;
        self
    }

    /// The dictionary LZ4 frames were compressed with, or none.
    pub fn lz4_dictionary(mut self, dict: Option<Arc<[u8]>>) -> Self {
        self.lz4_dictionary = dict;
        self
    }

    /// The dictionary zstd frames may name, or none.
    pub fn zstd_dictionary(mut self, dict: Option<crate::zstd::Dictionary>) -> Self {
        self.zstd_dictionary = dict;
        self
    }

    /// Where a gzip decoder stores the count of zero bytes it ignored
    /// after the last member (`tar`'s padding), once it reaches the end.
    pub fn trailing_zeros(mut self, count: Arc<AtomicU64>) -> Self {
        self.trailing_zeros = Some(count);
        self
    }
}

/// A reader of the content of `input`, a stream in `format` (skippable
/// frames included, for LZ4 and zstd). Its read errors are lzkit
/// [`crate::Error`]s carried in [`std::io::Error`]s ([`crate::Error::from_io`] recovers
/// them); those of gzip, zlib, xz and LZMA name the format ("corrupt gzip
/// data: ...").
///
/// ```
/// use lzkit::format::{DecodeOptions, Format, decoder};
/// use std::io::Read;
/// let frame = lzkit::lz4::frame::compress(b"hello hello hello", &Default::default());
/// let mut content = Vec::new();
/// decoder(Format::Lz4Frame, &frame[..], &DecodeOptions::new())?.read_to_end(&mut content)?;
/// assert_eq!(content, b"hello hello hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Gzip, zlib, xz and LZMA without the `recompress` feature; a decoder
/// that cannot be set up (liblzma's).
pub fn decoder<'a, R: Read + Send + 'a>(
    format: Format,
    input: R,
    opts: &DecodeOptions,
) -> Result<Box<dyn Read + Send + 'a>> {
    Ok(match format {
        Format::Lz4Frame | Format::Lz4Legacy => {
            Box::new(crate::lz4::frame::FrameDecoder::with_options(
                input,
                &crate::lz4::frame::DecodeOptions::new()
                    .threads(opts.threads)
                    .dictionary_opt(opts.lz4_dictionary.clone())
                    .verify_checksums(opts.verify_checksums)
                    .filtered_streams(opts.filtered_streams),
            ))
        }
        Format::Zstd => {
            let decoder = crate::zstd::Decoder::with_options(
                crate::zstd::DecodeOptions::new()
                    .window_log_max(opts.window_log_max)
                    .verify_checksums(opts.verify_checksums)
                    .filtered_streams(opts.filtered_streams),
            );
            let decoder = match &opts.zstd_dictionary {
                Some(dict) => decoder.with_dictionary(dict.clone()),
                None => decoder,
            };
            Box::new(crate::zstd::FrameDecoder::with_decoder(input, decoder))
        }
        // The formats read through other libraries.
        _ => foreign(format, input, opts)?,
    })
}

/// A decoder of a format read through another library (`foreign.rs`).
#[cfg(feature = "recompress")]
fn foreign<'a, R: Read + Send + 'a>(
    format: Format,
    input: R,
    opts: &DecodeOptions,
) -> Result<Box<dyn Read + Send + 'a>> {
    super::foreign::decoder(format, input, opts)
}

/// Without the `recompress` feature, no other library is there to read it.
#[cfg(not(feature = "recompress"))]
fn foreign<'a, R: Read + Send + 'a>(
    format: Format,
    _: R,
    _: &DecodeOptions,
) -> Result<Box<dyn Read + Send + 'a>> {
    Err(crate::error::Error::Io(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!(
            "reading {} data needs lzkit's recompress feature",
            format.name()
        ),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lz4_and_zstd_open_without_other_libraries() {
        let data = b"one format layer, one format layer, one format layer".repeat(50);
        let lz4 = crate::lz4::frame::compress(&data, &Default::default());
        let mut back = Vec::new();
        decoder(Format::Lz4Frame, &lz4[..], &DecodeOptions::new().threads(2))
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == data);
        let r = decoder(Format::Zstd, &lz4[..], &DecodeOptions::new())
            .unwrap()
            .read_to_end(&mut Vec::new());
        let e = Error::from_io(r.unwrap_err());
        assert!(e.to_string().contains("zstd"), "{e:?}");
        #[cfg(not(feature = "recompress"))]
        assert!(decoder(Format::Gzip, &lz4[..], &DecodeOptions::new()).is_err());
    }
}
