//! Reading a frame's input, from a slice ([`SliceInput`]) or a reader
//! ([`Input`]), with the stream positions and truncation errors every
//! path reports alike. Below every other module of `decode/` but
//! [`super::frame_state`].

use super::frame_state::{FrameState, RawBlock, parse_block_header};
use crate::error::{Error, Result};
use crate::lz4::frame::header::{BlockHeader, Header};
use std::io::{self, Read};

/// A cursor over the one-shot input with truncation errors.
pub(super) struct SliceInput<'a> {
    pub(super) src: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> SliceInput<'a> {
    pub(super) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.src.len() - self.pos < n {
            return Err(Error::Truncated {
                at: self.src.len() as u64,
                what,
            });
        }
        self.pos += n;
        Ok(&self.src[self.pos - n..self.pos])
    }

    pub(super) fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    pub(super) fn peek_u32(&self) -> Option<u32> {
        let b = self.src.get(self.pos..self.pos + 4)?;
        Some(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
}

/// Read the next block of a frame from the one-shot input: `None` at the
/// end mark. `index` is the block's index in the frame (for errors).
pub(super) fn slice_block<'a>(
    input: &mut SliceInput<'a>,
    header: &Header,
    index: u64,
) -> Result<Option<RawBlock<'a>>> {
    let at = input.pos as u64;
    let word = input.u32("block size")?;
    let (len, stored) = match parse_block_header(word, at, index, header.block_size.bytes())? {
        BlockHeader::End => return Ok(None),
        BlockHeader::Data { len, stored } => (len, stored),
    };
    let data = input.take(len, "block data")?;
    let checksum = if header.block_checksum {
        Some(input.u32("block checksum")?)
    } else {
        None
    };
    Ok(Some(RawBlock {
        data,
        stored,
        checksum,
        at,
    }))
}

/// After a frame's end mark in the one-shot input: read the content
/// checksum (if any) and check it and the content size.
pub(super) fn finish_frame_slice(input: &mut SliceInput<'_>, state: &FrameState) -> Result<()> {
    let at = input.pos as u64;
    let checksum = if state.header.content_checksum {
        Some(input.u32("content checksum")?)
    } else {
        None
    };
    state.finish(checksum, at)
}

/// The underlying reader and the stream position of its next byte.
pub(super) struct Input<R> {
    pub(super) inner: R,
    pub(super) pos: u64,
}

impl<R: Read> Input<R> {
    /// `read_exact` that counts the stream position and reports a short
    /// read as [`Error::Truncated`].
    pub(super) fn read_full(&mut self, buf: &mut [u8], what: &'static str) -> Result<()> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => {
                    self.pos += got as u64;
                    return Err(Error::Truncated { at: self.pos, what });
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
        self.pos += got as u64;
        Ok(())
    }

    /// A little-endian u32.
    pub(super) fn u32(&mut self, what: &'static str) -> Result<u32> {
        let mut b = [0u8; 4];
        self.read_full(&mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }

    /// A u32, or `None` at a clean end of input.
    pub(super) fn u32_or_eof(&mut self, what: &'static str) -> Result<Option<u32>> {
        let mut b = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.inner.read(&mut b[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
        self.pos += got as u64;
        match got {
            0 => Ok(None),
            4 => Ok(Some(u32::from_le_bytes(b))),
            _ => Err(Error::Truncated { at: self.pos, what }),
        }
    }
}
