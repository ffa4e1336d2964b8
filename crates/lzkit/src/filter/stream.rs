//! The filters on streams: [`FilterWriter`] encodes what is written to
//! it, [`FilterReader`] decodes what it reads, with the same result as
//! [`Filter::encode`] and [`Filter::decode`] of the whole stream, however
//! it arrives in pieces.
//!
//! Delta runs as the bytes come, carrying the last element from one piece
//! to the next (and holding back the bytes of an element not yet
//! complete). The byte shuffle cannot: its output puts the first byte of
//! every element first, so it needs the whole stream, which both types
//! hold in memory until it ends.

use std::io::{self, Read, Write};

use super::{Filter, FilterKind};

/// Bytes filtered at a time by the delta forms (in tests, few and no
/// multiple of the widths, so that pieces cross chunks).
#[cfg(not(test))]
const CHUNK: usize = 64 << 10;
#[cfg(test)]
const CHUNK: usize = 61;

/// The little-endian element of `w` bytes at the start of `bytes`.
fn load(w: usize, bytes: &[u8]) -> u64 {
    let mut le = [0u8; 8];
    le[..w].copy_from_slice(&bytes[..w]);
    u64::from_le_bytes(le)
}

/// Store the low `w` bytes of `v` at the start of `bytes`.
fn store(w: usize, bytes: &mut [u8], v: u64) {
    bytes[..w].copy_from_slice(&v.to_le_bytes()[..w]);
}

/// A writer that filters what is written to it ([`Filter::encode`] of
/// the whole stream) into an inner writer. Call [`finish`](Self::finish)
/// at the end: the last bytes (with shuffle, all of them) are written
/// then.
///
/// ```
/// use std::io::Write;
/// use lzkit::filter::{Filter, FilterWriter};
///
/// let f: Filter = "delta4".parse()?;
/// let column: Vec<u8> = (0u32..1000).map(|i| i * 3).flat_map(u32::to_le_bytes).collect();
/// let mut w = FilterWriter::new(Vec::new(), f);
/// for piece in column.chunks(7) {
///     w.write_all(piece)?;
/// }
/// assert_eq!(w.finish()?, f.encode(&column));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FilterWriter<W: Write> {
    inner: W,
    filter: Filter,
    /// Delta: the bytes of an element not yet complete. Shuffle: the
    /// whole stream so far.
    pending: Vec<u8>,
    /// Delta: the last whole element written (0 before the first, which
    /// leaves element 0 unchanged).
    prev: u64,
    /// Delta: the filtered bytes of one chunk.
    scratch: Vec<u8>,
}

impl<W: Write> FilterWriter<W> {
    /// A writer that filters with `filter` into `inner`.
    pub fn new(inner: W, filter: Filter) -> FilterWriter<W> {
        FilterWriter {
            inner,
            filter,
            pending: Vec::new(),
            prev: 0,
            scratch: Vec::new(),
        }
    }

    /// The filter.
    pub fn filter(&self) -> Filter {
        self.filter
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Delta: filter the whole elements of `src` (a multiple of the width)
    /// and write them.
    fn delta(&mut self, src: &[u8]) -> io::Result<()> {
        let w = self.filter.width();
        debug_assert_eq!(src.len() % w, 0);
        for piece in src.chunks(CHUNK - CHUNK % w) {
            self.scratch.resize(piece.len(), 0);
            // Cannot fail: the lengths are equal.
            let _ = self.filter.encode_into(piece, &mut self.scratch);
            // Element 0 of the piece is its own value: less the element
            // before it.
            let first = load(w, &self.scratch).wrapping_sub(self.prev);
            store(w, &mut self.scratch, first);
            self.prev = load(w, &piece[piece.len() - w..]);
            self.inner.write_all(&self.scratch)?;
        }
        Ok(())
    }

    /// Write what is left (with shuffle, the whole stream, filtered), and
    /// return the inner writer (not flushed).
    ///
    /// # Errors
    /// The inner writer's.
    pub fn finish(mut self) -> io::Result<W> {
        match self.filter.kind() {
            // A partial element is copied unchanged.
            FilterKind::Delta => self.inner.write_all(&self.pending)?,
            FilterKind::Shuffle => {
                let filtered = self.filter.encode(&self.pending);
                self.inner.write_all(&filtered)?;
            }
        }
        Ok(self.inner)
    }
}

impl<W: Write> Write for FilterWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.filter.kind() == FilterKind::Shuffle {
            self.pending.extend_from_slice(buf);
            return Ok(buf.len());
        }
        let w = self.filter.width();
        let mut buf_rest = buf;
        if !self.pending.is_empty() {
            let need = (w - self.pending.len()).min(buf_rest.len());
            self.pending.extend_from_slice(&buf_rest[..need]);
            buf_rest = &buf_rest[need..];
            if self.pending.len() < w {
                return Ok(buf.len());
            }
            let element = std::mem::take(&mut self.pending);
            self.delta(&element)?;
        }
        let whole = buf_rest.len() - buf_rest.len() % w;
        self.delta(&buf_rest[..whole])?;
        self.pending.extend_from_slice(&buf_rest[whole..]);
        Ok(buf.len())
    }

    /// Flushes the inner writer (the bytes held back stay held: they
    /// depend on what comes next).
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that undoes a filter on what it reads from an inner reader
/// ([`Filter::decode`] of the whole stream).
///
/// ```
/// use std::io::Read;
/// use lzkit::filter::{Filter, FilterReader};
///
/// let f: Filter = "shuffle8".parse()?;
/// let column: Vec<u8> = (0u64..1000).flat_map(u64::to_le_bytes).collect();
/// let filtered = f.encode(&column);
/// let mut back = Vec::new();
/// FilterReader::new(&filtered[..], f).read_to_end(&mut back)?;
/// assert_eq!(back, column);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FilterReader<R: Read> {
    inner: R,
    filter: Filter,
    /// Decoded bytes not read yet: `out[pos..]`.
    out: Vec<u8>,
    pos: usize,
    /// Delta: bytes read from the inner reader that do not make a whole
    /// element yet.
    partial: Vec<u8>,
    /// Delta: the last element decoded.
    prev: u64,
    /// The inner reader has ended (and everything read from it is in
    /// `out`).
    done: bool,
}

impl<R: Read> FilterReader<R> {
    /// A reader that undoes `filter` on what `inner` holds.
    pub fn new(inner: R, filter: Filter) -> FilterReader<R> {
        FilterReader {
            inner,
            filter,
            out: Vec::new(),
            pos: 0,
            partial: Vec::new(),
            prev: 0,
            done: false,
        }
    }

    /// The filter.
    pub fn filter(&self) -> Filter {
        self.filter
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Refill `out` (emptied): with shuffle the whole stream, with delta
    /// the next chunk.
    fn fill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        if self.filter.kind() == FilterKind::Shuffle {
            let mut all = Vec::new();
            self.inner.read_to_end(&mut all)?;
            self.out = self.filter.decode(&all);
            self.done = true;
            return Ok(());
        }
        let w = self.filter.width();
        let mut raw = std::mem::take(&mut self.partial);
        let start = raw.len();
        raw.resize(CHUNK, 0);
        let mut filled = start;
        // Read until there is a whole element, or the end.
        while filled < w {
            match self.inner.read(&mut raw[filled..]) {
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    raw.truncate(filled);
                    self.partial = raw;
                    return Err(e);
                }
            }
        }
        raw.truncate(filled);
        let whole = filled - filled % w;
        if whole > 0 {
            // Element 0 of the chunk is a difference from the element
            // before it: adding that one carries it through the prefix sum.
            let first = load(w, &raw).wrapping_add(self.prev);
            store(w, &mut raw, first);
            self.out.resize(whole, 0);
            // Cannot fail: the lengths are equal.
            let _ = self.filter.decode_into(&raw[..whole], &mut self.out);
            self.prev = load(w, &self.out[whole - w..]);
        }
        if self.done {
            // A partial element at the end is copied unchanged.
            self.out.extend_from_slice(&raw[whole..]);
        } else {
            self.partial = raw[whole..].to_vec();
        }
        Ok(())
    }
}

impl<R: Read> Read for FilterReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.out.len() {
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            self.fill()?;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
