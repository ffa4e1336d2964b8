//! What the codecs' encoders share, so that `lz4::frame` and `zstd` offer
//! the same shapes: a compression level newtype over `i32`
//! ([`crate::lz4::Level`], [`crate::zstd::Level`]) and an encoder that
//! finishes its frame when dropped ([`AutoFinishEncoder`]).

use std::io::{self, Write};

/// A streaming frame encoder ([`crate::lz4::frame::FrameEncoder`],
/// `zstd::FrameEncoder`): a [`Write`] that ends its frame when finished.
pub trait FrameWrite: Write {
    /// The writer the frame goes to.
    type Writer;

    /// End the frame and return the writer.
    fn finish(self) -> io::Result<Self::Writer>;

    /// The underlying writer.
    fn get_ref(&self) -> &Self::Writer;

    /// The underlying writer, mutably (writing to it directly corrupts the
    /// frame).
    fn get_mut(&mut self) -> &mut Self::Writer;
}

/// [`FrameWrite`] for a codec's `FrameEncoder<W>`, through its own
/// (inherent) `finish`, `get_ref` and `get_mut`.
macro_rules! frame_write_by_inherent_methods {
    ($encoder:ident) => {
        impl<W: std::io::Write> $crate::encoder::FrameWrite for $encoder<W> {
            type Writer = W;

            fn finish(self) -> std::io::Result<W> {
                $encoder::finish(self)
            }

            fn get_ref(&self) -> &W {
                $encoder::get_ref(self)
            }

            fn get_mut(&mut self) -> &mut W {
                $encoder::get_mut(self)
            }
        }
    };
}
pub(crate) use frame_write_by_inherent_methods;

/// A frame encoder that finishes its frame when dropped (except while a
/// panic unwinds, so that an interrupted stream is not made to look
/// complete). Made by each codec's `FrameEncoder::auto_finish`.
pub struct AutoFinishEncoder<E: FrameWrite> {
    /// `None` only after `finish` or drop.
    encoder: Option<E>,
}

impl<E: FrameWrite> AutoFinishEncoder<E> {
    /// Wrap `encoder`.
    pub(crate) fn new(encoder: E) -> Self {
        AutoFinishEncoder {
            encoder: Some(encoder),
        }
    }

    fn encoder(&mut self) -> &mut E {
        self.encoder.as_mut().expect("present until finished")
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &E::Writer {
        self.encoder
            .as_ref()
            .expect("present until finished")
            .get_ref()
    }

    /// The underlying writer, mutably (writing to it directly corrupts the
    /// frame).
    pub fn get_mut(&mut self) -> &mut E::Writer {
        self.encoder().get_mut()
    }

    /// Finish now, reporting any error, and return the writer.
    pub fn finish(mut self) -> io::Result<E::Writer> {
        self.encoder
            .take()
            .expect("present until finished")
            .finish()
    }
}

impl<E: FrameWrite> Write for AutoFinishEncoder<E> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.encoder().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.encoder().flush()
    }
}

impl<E: FrameWrite> Drop for AutoFinishEncoder<E> {
    fn drop(&mut self) {
        if let Some(enc) = self.encoder.take()
            && !std::thread::panicking()
        {
            // Nobody is left to report an error to.
            let _ = enc.finish();
        }
    }
}

/// The conversions of a codec's level newtype over `i32` (which has a
/// `DEFAULT` constant): [`Default`], to and from `i32` (so that every
/// function taking `impl Into<Level>` takes a plain number), and
/// [`std::fmt::Display`] as the number.
macro_rules! level_conversions {
    ($level:ident) => {
        impl Default for $level {
            fn default() -> Self {
                $level::DEFAULT
            }
        }

        impl From<i32> for $level {
            fn from(level: i32) -> Self {
                $level(level)
            }
        }

        impl From<$level> for i32 {
            fn from(level: $level) -> Self {
                level.0
            }
        }

        impl std::fmt::Display for $level {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}
pub(crate) use level_conversions;
