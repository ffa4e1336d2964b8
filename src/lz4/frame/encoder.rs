//! Writing frames.
use super::FrameOptions;
use std::io::{self, Write};

/// Compress `src` into one frame (or a legacy stream if `opts.legacy`).
pub fn compress(src: &[u8], opts: &FrameOptions) -> Vec<u8> {
    let _ = (src, opts);
    todo!()
}

/// Streaming frame writer. Data written is compressed block by block; call
/// [`FrameEncoder::finish`] to write the end mark and checksum.
pub struct FrameEncoder<W: Write> {
    inner: Option<W>,
}

impl<W: Write> FrameEncoder<W> {
    /// Start a frame on `inner` with `opts`. The header is written with the first block.
    pub fn new(inner: W, opts: &FrameOptions) -> Self {
        let _ = opts;
        FrameEncoder { inner: Some(inner) }
    }
    /// Flush the last block, write the end mark (and content checksum), return the writer.
    pub fn finish(self) -> io::Result<W> {
        todo!()
    }
    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("not finished")
    }
}

impl<W: Write> Write for FrameEncoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = buf;
        todo!()
    }
    fn flush(&mut self) -> io::Result<()> {
        todo!()
    }
}
