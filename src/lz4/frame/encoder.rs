//! Writing frames: [`FrameEncoder`] buffers input up to one block, compresses
//! it, and writes it (stored raw when compression does not pay). The one-shot
//! [`compress`] is the encoder over a vector.

use super::header::{BLOCK_STORED_FLAG, Header};
use super::{BlockMode, FrameOptions, LEGACY_BLOCK_SIZE, LEGACY_MAGIC};
use crate::error::Error;
use crate::lz4::block::{Compressor, MAX_DISTANCE, max_compressed_size};
use std::io::{self, Write};
use xxhash_rust::xxh32::{Xxh32, xxh32};

/// Compress `src` into one frame (or a legacy stream if `opts.legacy`).
/// If `opts.content_size` is set, the header records `src.len()`.
pub fn compress(src: &[u8], opts: &FrameOptions) -> Vec<u8> {
    let mut opts = opts.clone();
    if opts.content_size.is_some() {
        opts.content_size = Some(src.len() as u64);
    }
    let mut out = Vec::with_capacity(src.len() / 2 + 64);
    let mut enc = FrameEncoder::new(&mut out, &opts);
    let written = enc.write_all(src).and_then(|()| enc.finish().map(|_| ()));
    // Writing to a Vec cannot fail, and the content size is right by construction.
    debug_assert!(written.is_ok());
    drop(written);
    out
}

/// Streaming frame writer. Data written is compressed block by block; call
/// [`FrameEncoder::finish`] to write the end mark and checksum (dropping the
/// encoder without it leaves an unterminated frame).
pub struct FrameEncoder<W: Write> {
    inner: Option<W>,
    opts: FrameOptions,
    compressor: Compressor,
    /// History (dictionary or earlier input, linked mode) then pending input.
    win: Vec<u8>,
    /// Start of the pending (not yet compressed) input in `win`.
    pending: usize,
    /// Length of the dictionary kept at the front of `win` (independent mode).
    dict_len: usize,
    /// Compressed block scratch, with room for the size word and checksum.
    out: Vec<u8>,
    hasher: Option<Xxh32>,
    header_written: bool,
    blocks: u64,
    total_in: u64,
}

impl<W: Write> FrameEncoder<W> {
    /// Start a frame on `inner` with `opts`. The header is written with the
    /// first block (or at [`FrameEncoder::finish`] for empty input).
    pub fn new(inner: W, opts: &FrameOptions) -> Self {
        let block_max = if opts.legacy {
            LEGACY_BLOCK_SIZE
        } else {
            opts.block_size.bytes()
        };
        let dict: &[u8] = match (&opts.dictionary, opts.legacy) {
            (Some(d), false) => &d[d.len().saturating_sub(MAX_DISTANCE)..],
            _ => &[],
        };
        let mut win = Vec::with_capacity(dict.len() + block_max);
        win.extend_from_slice(dict);
        let mut compressor = Compressor::new(opts.level);
        if !opts.legacy && opts.block_mode == BlockMode::Linked {
            compressor.load_history(&win, win.len());
        }
        FrameEncoder {
            inner: Some(inner),
            opts: opts.clone(),
            compressor,
            pending: win.len(),
            dict_len: win.len(),
            win,
            out: Vec::with_capacity(max_compressed_size(block_max) + 8),
            hasher: (opts.content_checksum && !opts.legacy).then(|| Xxh32::new(0)),
            header_written: false,
            blocks: 0,
            total_in: 0,
        }
    }

    fn block_max(&self) -> usize {
        if self.opts.legacy {
            LEGACY_BLOCK_SIZE
        } else {
            self.opts.block_size.bytes()
        }
    }

    fn writer(&mut self) -> &mut W {
        self.inner.as_mut().expect("FrameEncoder used after finish")
    }

    fn write_header(&mut self) -> io::Result<()> {
        if self.header_written {
            return Ok(());
        }
        self.header_written = true;
        let mut h = Vec::with_capacity(19);
        if self.opts.legacy {
            h.extend_from_slice(&LEGACY_MAGIC.to_le_bytes());
        } else {
            Header {
                block_size: self.opts.block_size,
                block_mode: self.opts.block_mode,
                block_checksum: self.opts.block_checksum,
                content_checksum: self.opts.content_checksum,
                content_size: self.opts.content_size,
                dict_id: self.opts.dict_id,
            }
            .write(&mut h);
        }
        self.writer().write_all(&h)
    }

    /// Compress and write the pending input as one block.
    fn flush_block(&mut self) -> io::Result<()> {
        self.write_header()?;
        let n = self.win.len() - self.pending;
        if n == 0 {
            return Ok(());
        }
        if let Some(h) = &mut self.hasher {
            h.update(&self.win[self.pending..]);
        }
        // Keep the scratch's length (no re-zeroing per block); `end` marks
        // how much of it this block uses.
        let bound = 4 + max_compressed_size(n) + 4;
        if self.out.len() < bound {
            self.out.resize(bound, 0);
        }
        let linked = !self.opts.legacy && self.opts.block_mode == BlockMode::Linked;
        let result = if linked {
            self.compressor
                .compress_next(&self.win, self.pending, &mut self.out[4..])
        } else {
            // Independent blocks start from the dictionary alone.
            let start = self.dict_len;
            self.compressor
                .compress_block(&self.win[..start + n], start, &mut self.out[4..])
        };
        let csize = result.map_err(Error::into_io)?;
        let (word, mut end) = if csize >= n && !self.opts.legacy {
            // Frame spec: a block may not exceed the block maximum, so data
            // that does not compress is stored.
            self.out[4..4 + n].copy_from_slice(&self.win[self.pending..]);
            (n as u32 | BLOCK_STORED_FLAG, 4 + n)
        } else {
            (csize as u32, 4 + csize)
        };
        self.out[..4].copy_from_slice(&word.to_le_bytes());
        if self.opts.block_checksum && !self.opts.legacy {
            let sum = xxh32(&self.out[4..end], 0);
            self.out[end..end + 4].copy_from_slice(&sum.to_le_bytes());
            end += 4;
        }
        let out = std::mem::take(&mut self.out);
        let res = self.writer().write_all(&out[..end]);
        self.out = out;
        res?;
        self.blocks += 1;
        self.total_in += n as u64;
        self.advance_window(linked);
        Ok(())
    }

    /// After a block: in linked mode its input becomes history (slid to the
    /// front when the window is full); otherwise only the dictionary stays.
    fn advance_window(&mut self, linked: bool) {
        if !linked {
            self.win.truncate(self.dict_len);
            self.pending = self.dict_len;
            return;
        }
        self.pending = self.win.len();
        let block_max = self.block_max();
        // Keep room for several blocks before sliding, so sliding is rare.
        let cap = MAX_DISTANCE + block_max + block_max.max(1 << 20);
        if self.win.len() + block_max > cap {
            let keep = self.win.len().min(MAX_DISTANCE);
            let shift = self.win.len() - keep;
            self.win.copy_within(shift.., 0);
            self.win.truncate(keep);
            self.compressor.rebase(shift);
            self.pending = keep;
        }
    }

    /// Flush the last block, write the end mark (and content checksum), and
    /// return the writer. Fails if `content_size` was set and differs from
    /// the number of bytes written.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_block()?;
        let total = self.total_in;
        if let Some(expected) = self.opts.content_size
            && expected != total
            && !self.opts.legacy
        {
            return Err(Error::ContentSize {
                expected,
                actual: total,
            }
            .into_io());
        }
        if !self.opts.legacy {
            let mut tail = 0u32.to_le_bytes().to_vec();
            if let Some(h) = &self.hasher {
                tail.extend_from_slice(&h.digest().to_le_bytes());
            }
            self.writer().write_all(&tail)?;
        }
        let mut w = self.inner.take().expect("finish called once");
        w.flush()?;
        Ok(w)
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("FrameEncoder used after finish")
    }
}

impl<W: Write> Write for FrameEncoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.block_max() - (self.win.len() - self.pending);
        let n = buf.len().min(room);
        self.win.extend_from_slice(&buf[..n]);
        if self.win.len() - self.pending == self.block_max() {
            self.flush_block()?;
        }
        Ok(n)
    }

    /// Compress what is buffered as a (possibly short) block and flush the
    /// underlying writer.
    fn flush(&mut self) -> io::Result<()> {
        self.flush_block()?;
        self.writer().flush()
    }
}
