//! Opening an encoder over a writer, for any [`Target`].

use std::io::{self, Write};

use super::Codec;
use crate::error::{Error, Result};
use crate::lz4::frame::{FrameEncoder, FrameOptions};
use crate::seekable::{SeekableWriter, WriteOptions};

/// A codec with its compression options: frames of one codec.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CodecOptions {
    /// LZ4 frames with these options.
    Lz4(FrameOptions),
    /// zstd frames (libzstd) with these options.
    #[cfg(feature = "zstd-compress")]
    Zstd(crate::zstd::FrameOptions),
}

impl CodecOptions {
    /// The codec.
    pub const fn codec(&self) -> Codec {
        match self {
            CodecOptions::Lz4(_) => Codec::Lz4,
            #[cfg(feature = "zstd-compress")]
            CodecOptions::Zstd(_) => Codec::Zstd,
        }
    }
}

/// What to write: a stream of frames, or a seekable file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Target {
    /// LZ4 frames with these options (level, block size and mode,
    /// checksums, threads).
    Lz4(FrameOptions),
    /// zstd frames with these options (level, workers, checksum, long mode).
    #[cfg(feature = "zstd-compress")]
    Zstd(crate::zstd::FrameOptions),
    /// A seekable LZ4 or zstd file: independent frames of one chunk each
    /// and a seek table ([`crate::seekable`]).
    Seekable(WriteOptions),
}

impl Target {
    /// The codec of the frames written.
    pub fn codec(&self) -> Codec {
        match self {
            Target::Lz4(_) => Codec::Lz4,
            #[cfg(feature = "zstd-compress")]
            Target::Zstd(_) => Codec::Zstd,
            Target::Seekable(opts) => opts.codec(),
        }
    }
}

impl From<CodecOptions> for Target {
    fn from(opts: CodecOptions) -> Target {
        match opts {
            CodecOptions::Lz4(frame) => Target::Lz4(frame),
            #[cfg(feature = "zstd-compress")]
            CodecOptions::Zstd(zstd) => Target::Zstd(zstd),
        }
    }
}

/// An encoder of a [`Target`] over a writer: write the content to it,
/// then [`Encoder::finish`] (dropping it unfinished leaves the output
/// incomplete).
///
/// ```
/// use lzkit::format::{Encoder, Target};
/// use std::io::Write;
/// let mut enc = Encoder::new(Vec::new(), &Target::Lz4(Default::default()))?;
/// enc.write_all(b"content, content, content")?;
/// let out = enc.finish()?;
/// assert_eq!(lzkit::lz4::frame::decompress(&out)?, b"content, content, content");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Encoder<W: Write>(Inner<W>);

/// The encoders (the LZ4 ones boxed: they are the larger by far).
enum Inner<W: Write> {
    Lz4(Box<FrameEncoder<W>>),
    #[cfg(feature = "zstd-compress")]
    Zstd(crate::zstd::FrameEncoder<W>),
    Seekable(Box<SeekableWriter<W>>),
}

impl<W: Write> Encoder<W> {
    /// An encoder of `target` writing to `writer`.
    ///
    /// # Errors
    /// Options the encoder refuses ([`Error::InvalidOptions`], libzstd's
    /// errors).
    pub fn new(writer: W, target: &Target) -> Result<Self> {
        Ok(Encoder(match target {
            Target::Lz4(frame) => Inner::Lz4(Box::new(FrameEncoder::try_new(writer, frame)?)),
            #[cfg(feature = "zstd-compress")]
            Target::Zstd(zstd) => Inner::Zstd(crate::zstd::FrameEncoder::new(writer, zstd)?),
            Target::Seekable(opts) => Inner::Seekable(Box::new(SeekableWriter::new(writer, opts)?)),
        }))
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        match &self.0 {
            Inner::Lz4(e) => e.get_ref(),
            #[cfg(feature = "zstd-compress")]
            Inner::Zstd(e) => e.get_ref(),
            Inner::Seekable(e) => e.get_ref(),
        }
    }

    /// End the output (the last frame, or the last chunk and the seek
    /// table) and return the writer.
    ///
    /// # Errors
    /// The writer's errors, and the encoder's.
    pub fn finish(self) -> Result<W> {
        match self.0 {
            Inner::Lz4(e) => e.finish().map_err(Error::from_io),
            #[cfg(feature = "zstd-compress")]
            Inner::Zstd(e) => e.finish().map_err(Error::from_io),
            Inner::Seekable(e) => e.finish().map(|(w, _)| w),
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Inner::Lz4(e) => e.write(buf),
            #[cfg(feature = "zstd-compress")]
            Inner::Zstd(e) => e.write(buf),
            Inner::Seekable(e) => e.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            Inner::Lz4(e) => e.flush(),
            #[cfg(feature = "zstd-compress")]
            Inner::Zstd(e) => e.flush(),
            Inner::Seekable(e) => e.flush(),
        }
    }
}
