//! Reading frames.
use crate::error::Result;
use std::io::{self, Read};

/// Decode every frame in `src` (standard, legacy; skippable frames skipped).
pub fn decompress(src: &[u8]) -> Result<Vec<u8>> {
    decompress_with_dict(src, &[])
}

/// [`decompress`] with a dictionary (the one the frames were compressed with).
pub fn decompress_with_dict(src: &[u8], dict: &[u8]) -> Result<Vec<u8>> {
    let _ = (src, dict);
    todo!()
}

/// Streaming frame reader: decodes concatenated frames from `inner`. Errors
/// are `io::Error`s wrapping [`crate::Error`] (see [`crate::Error::from_io`]).
pub struct FrameDecoder<R: Read> {
    inner: R,
}

impl<R: Read> FrameDecoder<R> {
    /// Read frames from `inner`.
    pub fn new(inner: R) -> Self {
        FrameDecoder { inner }
    }
    /// Read frames compressed with dictionary `dict`.
    pub fn with_dictionary(inner: R, dict: &[u8]) -> Self {
        let _ = dict;
        FrameDecoder { inner }
    }
    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Read for FrameDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let _ = buf;
        todo!()
    }
}
