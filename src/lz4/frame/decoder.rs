//! Reading frames: the one-shot [`decompress`] (blocks decoded straight into
//! the output vector) and the streaming [`FrameDecoder`] (memory bounded by
//! the block size). Both drive the same per-frame logic, [`FrameState`].

use super::header::{BlockHeader, Header, MAX_DESCRIPTOR_LEN, MIN_DESCRIPTOR_LEN, Magic};
use super::{BlockMode, LEGACY_BLOCK_SIZE};
use crate::error::{Error, Result};
use crate::lz4::block::{self, Decoder, MAX_DISTANCE, with_thread_decoder};
use std::io::{self, Read};
use xxhash_rust::xxh32::{Xxh32, xxh32};

/// Largest compressed legacy block: the block bound of 8 MiB.
const LEGACY_MAX_COMPRESSED: usize = block::max_compressed_size(LEGACY_BLOCK_SIZE);

/// One block as read from a frame, before decoding.
pub(crate) struct RawBlock<'a> {
    /// The block's data (compressed, or raw if `stored`).
    pub data: &'a [u8],
    /// Stored uncompressed (size word's high bit).
    pub stored: bool,
    /// The block checksum that followed it, if the frame has them.
    pub checksum: Option<u32>,
    /// Stream position of the block's size word.
    pub at: u64,
}

/// Per-frame decoding state and checks, shared by both decoders: block
/// header validation, block checksums, block decoding, content checksum and
/// content size.
pub(crate) struct FrameState {
    pub(crate) header: Header,
    block_index: u64,
    hasher: Option<Xxh32>,
    decoded: u64,
}

impl FrameState {
    pub(crate) fn new(header: Header) -> Self {
        FrameState {
            header,
            block_index: 0,
            hasher: header.content_checksum.then(|| Xxh32::new(0)),
            decoded: 0,
        }
    }

    /// Wrap an error with the current block's index and stream position.
    fn in_block(&self, at: u64, e: Error) -> Error {
        Error::Block {
            index: self.block_index,
            at,
            source: Box::new(e),
        }
    }

    /// Decode a block size word read at stream position `at`.
    pub(crate) fn block_header(&self, word: u32, at: u64) -> Result<BlockHeader> {
        BlockHeader::parse(word, self.header.block_size.bytes()).map_err(|e| self.in_block(at, e))
    }

    /// Verify (if present) the block checksum of `data`, then decode it into
    /// `buf[start..]` with `buf[..start]` as history. Returns the decoded size.
    /// `at` is the stream position of the block's size word.
    pub(crate) fn decode_block(
        &mut self,
        decoder: &mut Decoder,
        block: RawBlock<'_>,
        buf: &mut [u8],
        start: usize,
    ) -> Result<usize> {
        let RawBlock {
            data,
            stored,
            checksum,
            at,
        } = block;
        if let Some(stored_sum) = checksum {
            let computed = xxh32(data, 0);
            if computed != stored_sum {
                return Err(self.in_block(
                    at,
                    Error::BlockChecksum {
                        stored: stored_sum,
                        computed,
                    },
                ));
            }
        }
        let capacity = (buf.len() - start).min(self.header.block_size.bytes());
        let n = if stored {
            buf[start..start + data.len()].copy_from_slice(data);
            data.len()
        } else {
            decoder
                .decode_with_prefix(data, &mut buf[..start + capacity], start)
                .map_err(|e| self.in_block(at, e))?
        };
        if let Some(h) = &mut self.hasher {
            h.update(&buf[start..start + n]);
        }
        self.decoded += n as u64;
        self.block_index += 1;
        Ok(n)
    }

    /// After the end mark: check the content checksum (read at `at`) and the
    /// content size.
    pub(crate) fn finish(&self, checksum: Option<u32>, at: u64) -> Result<()> {
        if let (Some(h), Some(stored)) = (&self.hasher, checksum) {
            let computed = h.digest();
            if computed != stored {
                return Err(Error::ContentChecksum {
                    at,
                    stored,
                    computed,
                });
            }
        }
        if let Some(expected) = self.header.content_size
            && expected != self.decoded
        {
            return Err(Error::ContentSize {
                expected,
                actual: self.decoded,
            });
        }
        Ok(())
    }
}

/// The last 64 KiB of a dictionary: all that matches can reach.
fn dict_tail(dict: &[u8]) -> &[u8] {
    &dict[dict.len().saturating_sub(MAX_DISTANCE)..]
}

/// Decode every frame in `src` (standard, legacy; skippable frames skipped).
pub fn decompress(src: &[u8]) -> Result<Vec<u8>> {
    decompress_with_dict(src, &[])
}

/// [`decompress`] with a dictionary (the one the frames were compressed with).
pub fn decompress_with_dict(src: &[u8], dict: &[u8]) -> Result<Vec<u8>> {
    if !dict.is_empty() {
        // Dictionaries are rare: let the streaming decoder keep them in its window.
        let mut out = Vec::new();
        FrameDecoder::with_dictionary(src, dict)
            .read_to_end(&mut out)
            .map_err(Error::from_io)?;
        return Ok(out);
    }
    let mut input = SliceInput { src, pos: 0 };
    let mut out = Vec::new();
    while input.pos < src.len() {
        let at = input.pos as u64;
        let magic = input.u32("magic number")?;
        match Magic::classify(magic) {
            Some(Magic::Standard) => {
                let header = read_header(&mut input, at)?;
                if let Some(dict_id) = header.dict_id {
                    return Err(Error::DictionaryRequired { dict_id });
                }
                decode_frame_slice(&mut input, header, &mut out)?;
            }
            Some(Magic::Legacy) => decode_legacy_slice(&mut input, &mut out)?,
            Some(Magic::Skippable) => {
                let len = input.u32("skippable frame size")? as usize;
                input.take(len, "skippable frame")?;
            }
            None => return Err(Error::UnknownMagic { magic, at }),
        }
    }
    Ok(out)
}

/// A cursor over the one-shot input with truncation errors.
struct SliceInput<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> SliceInput<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.src.len() - self.pos < n {
            return Err(Error::Truncated {
                at: self.src.len() as u64,
                what,
            });
        }
        self.pos += n;
        Ok(&self.src[self.pos - n..self.pos])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn peek_u32(&self) -> Option<u32> {
        let b = self.src.get(self.pos..self.pos + 4)?;
        Some(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
}

fn read_header(input: &mut SliceInput<'_>, at: u64) -> Result<Header> {
    let flg = *input.src.get(input.pos).ok_or(Error::Truncated {
        at: input.pos as u64,
        what: "frame header",
    })?;
    let desc = input.take(Header::descriptor_len(flg), "frame header")?;
    Header::parse(desc, at)
}

/// One frame of the one-shot path: blocks decode straight into `out`, and
/// linked blocks see the frame's earlier output as history.
fn decode_frame_slice(input: &mut SliceInput<'_>, header: Header, out: &mut Vec<u8>) -> Result<()> {
    let mut state = FrameState::new(header);
    let block_max = header.block_size.bytes();
    if let Some(n) = header.content_size {
        out.reserve(n.min(1 << 30) as usize);
    }
    let frame_start = out.len();
    let mut filled = out.len();
    loop {
        let at = input.pos as u64;
        let word = input.u32("block size")?;
        let (len, stored) = match state.block_header(word, at)? {
            BlockHeader::End => break,
            BlockHeader::Data { len, stored } => (len, stored),
        };
        let data = input.take(len, "block data")?;
        let checksum = if header.block_checksum {
            Some(input.u32("block checksum")?)
        } else {
            None
        };
        // Room for the block: its decoded size is at most the block maximum,
        // and at most 255 times its compressed size (each length byte adds
        // at most 255), so tiny frames do not zero-fill a whole block
        // maximum. Only what the previous block left unused is re-zeroed.
        let room = if stored {
            len
        } else {
            block_max.min(len.saturating_mul(255).saturating_add(64))
        };
        if out.len() < filled + room {
            out.resize(filled + room, 0);
        }
        let history = match header.block_mode {
            BlockMode::Linked => frame_start,
            BlockMode::Independent => filled,
        };
        let decoded = with_thread_decoder(|d| {
            let buf = &mut out[history..];
            let block = RawBlock {
                data,
                stored,
                checksum,
                at,
            };
            state.decode_block(d, block, buf, filled - history)
        });
        match decoded {
            Ok(n) => filled += n,
            Err(e) => {
                out.truncate(filled);
                return Err(e);
            }
        }
    }
    out.truncate(filled);
    let at = input.pos as u64;
    let checksum = if header.content_checksum {
        Some(input.u32("content checksum")?)
    } else {
        None
    };
    state.finish(checksum, at)
}

/// Legacy stream: `[u32 compressed size][block]...`, 8 MiB independent
/// blocks, ending at the end of input or at the next frame's magic number.
fn decode_legacy_slice(input: &mut SliceInput<'_>, out: &mut Vec<u8>) -> Result<()> {
    while let Some(word) = input.peek_u32() {
        if Magic::classify(word).is_some() {
            return Ok(());
        }
        let at = input.pos as u64;
        input.pos += 4;
        let len = word as usize;
        if len > LEGACY_MAX_COMPRESSED {
            return Err(Error::BlockTooLarge {
                size: len,
                max: LEGACY_MAX_COMPRESSED,
            });
        }
        let data = input.take(len, "legacy block")?;
        let start = out.len();
        out.resize(start + LEGACY_BLOCK_SIZE, 0);
        match with_thread_decoder(|d| d.decode_with_prefix(data, &mut out[start..], 0)) {
            Ok(n) => out.truncate(start + n),
            Err(e) => {
                return Err(Error::Block {
                    index: 0,
                    at,
                    source: Box::new(e),
                });
            }
        }
    }
    if input.pos < input.src.len() {
        return Err(Error::Truncated {
            at: input.src.len() as u64,
            what: "legacy block size",
        });
    }
    Ok(())
}

/// Streaming frame reader: decodes concatenated frames from `inner` with
/// memory bounded by the block size (plus 64 KiB of history and the
/// dictionary). Errors are `io::Error`s wrapping [`crate::Error`] (see
/// [`crate::Error::from_io`]); after an error the decoder stays at end.
pub struct FrameDecoder<R: Read> {
    inner: R,
    dict: Vec<u8>,
    /// Stream position of the next byte of `inner`.
    pos: u64,
    /// Inside a standard frame.
    frame: Option<FrameState>,
    /// Inside a legacy stream.
    legacy: bool,
    /// A magic number already read while looking for the next legacy block.
    pending_magic: Option<(u32, u64)>,
    /// Compressed block being decoded: `cbuf[..cbuf_len]`.
    cbuf: Vec<u8>,
    cbuf_len: usize,
    /// This stream's adaptive block decoder.
    decoder: Decoder,
    /// History (dictionary or earlier blocks), then the decoded block.
    win: Vec<u8>,
    /// End of decoded data in `win`.
    filled: usize,
    /// Next byte of `win` to hand to the reader.
    out_pos: usize,
    done: bool,
}

impl<R: Read> FrameDecoder<R> {
    /// Read frames from `inner`.
    pub fn new(inner: R) -> Self {
        Self::with_dictionary(inner, &[])
    }

    /// Read frames compressed with dictionary `dict`.
    pub fn with_dictionary(inner: R, dict: &[u8]) -> Self {
        FrameDecoder {
            inner,
            dict: dict_tail(dict).to_vec(),
            pos: 0,
            frame: None,
            legacy: false,
            pending_magic: None,
            cbuf: Vec::new(),
            cbuf_len: 0,
            decoder: Decoder::new(),
            win: Vec::new(),
            filled: 0,
            out_pos: 0,
            done: false,
        }
    }

    /// Compressed bytes consumed so far.
    pub fn total_in(&self) -> u64 {
        self.pos
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Read `len` bytes of block data into `cbuf[..len]` (`cbuf` only ever
    /// grows, so it is zero-filled once, not per block).
    fn read_block_data(&mut self, len: usize, what: &'static str) -> Result<()> {
        if self.cbuf.len() < len {
            self.cbuf.resize(len, 0);
        }
        self.cbuf_len = len;
        read_full(&mut self.inner, &mut self.cbuf[..len], &mut self.pos, what)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32> {
        let mut b = [0u8; 4];
        read_full(&mut self.inner, &mut b, &mut self.pos, what)?;
        Ok(u32::from_le_bytes(b))
    }

    /// A u32, or `None` at a clean end of input.
    fn u32_or_eof(&mut self, what: &'static str) -> Result<Option<u32>> {
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

    /// Make sure `win` has `len` bytes.
    fn window(&mut self, len: usize) {
        if self.win.len() < len {
            self.win.resize(len, 0);
        }
    }

    /// Decode the next block, or move past a frame boundary.
    fn step(&mut self) -> Result<()> {
        if self.frame.is_some() {
            return self.frame_block();
        }
        if self.legacy {
            return self.legacy_block();
        }
        let (magic, at) = match self.pending_magic.take() {
            Some(m) => m,
            None => {
                let at = self.pos;
                match self.u32_or_eof("magic number")? {
                    Some(m) => (m, at),
                    None => {
                        self.done = true;
                        return Ok(());
                    }
                }
            }
        };
        match Magic::classify(magic) {
            Some(Magic::Standard) => {
                let mut desc = [0u8; MAX_DESCRIPTOR_LEN];
                read_full(
                    &mut self.inner,
                    &mut desc[..1],
                    &mut self.pos,
                    "frame header",
                )?;
                let len = Header::descriptor_len(desc[0]);
                debug_assert!(len >= MIN_DESCRIPTOR_LEN);
                read_full(
                    &mut self.inner,
                    &mut desc[1..len],
                    &mut self.pos,
                    "frame header",
                )?;
                let header = Header::parse(&desc[..len], at)?;
                if let (Some(dict_id), true) = (header.dict_id, self.dict.is_empty()) {
                    return Err(Error::DictionaryRequired { dict_id });
                }
                let block_max = header.block_size.bytes();
                let dict_len = self.dict.len();
                let cap = match header.block_mode {
                    // Room for several blocks after the history, so sliding
                    // the history back to the front happens rarely.
                    BlockMode::Linked => {
                        MAX_DISTANCE.max(dict_len) + block_max + block_max.max(1 << 20)
                    }
                    BlockMode::Independent => dict_len + block_max,
                };
                self.window(cap);
                self.win[..dict_len].copy_from_slice(&self.dict);
                self.filled = dict_len;
                self.out_pos = dict_len;
                self.frame = Some(FrameState::new(header));
            }
            Some(Magic::Legacy) => {
                self.window(LEGACY_BLOCK_SIZE);
                self.legacy = true;
            }
            Some(Magic::Skippable) => {
                let len = self.u32("skippable frame size")? as u64;
                let skipped = io::copy(&mut (&mut self.inner).take(len), &mut io::sink())?;
                self.pos += skipped;
                if skipped < len {
                    return Err(Error::Truncated {
                        at: self.pos,
                        what: "skippable frame",
                    });
                }
            }
            None => return Err(Error::UnknownMagic { magic, at }),
        }
        Ok(())
    }

    fn frame_block(&mut self) -> Result<()> {
        let at = self.pos;
        let word = self.u32("block size")?;
        let state = self.frame.as_ref().expect("in a frame");
        let header = state.header;
        match state.block_header(word, at)? {
            BlockHeader::End => {
                let sum_at = self.pos;
                let checksum = if header.content_checksum {
                    Some(self.u32("content checksum")?)
                } else {
                    None
                };
                let state = self.frame.take().expect("in a frame");
                state.finish(checksum, sum_at)
            }
            BlockHeader::Data { len, stored } => {
                self.read_block_data(len, "block data")?;
                let checksum = if header.block_checksum {
                    Some(self.u32("block checksum")?)
                } else {
                    None
                };
                let block_max = header.block_size.bytes();
                match header.block_mode {
                    BlockMode::Linked => {
                        if self.win.len() - self.filled < block_max {
                            // Slide: keep the last 64 KiB as history.
                            let keep = self.filled.min(MAX_DISTANCE);
                            self.win.copy_within(self.filled - keep..self.filled, 0);
                            self.filled = keep;
                        }
                    }
                    BlockMode::Independent => self.filled = self.dict.len(),
                }
                self.out_pos = self.filled;
                let state = self.frame.as_mut().expect("in a frame");
                let block = RawBlock {
                    data: &self.cbuf[..self.cbuf_len],
                    stored,
                    checksum,
                    at,
                };
                let n = state.decode_block(&mut self.decoder, block, &mut self.win, self.filled)?;
                self.filled += n;
                Ok(())
            }
        }
    }

    fn legacy_block(&mut self) -> Result<()> {
        let at = self.pos;
        let Some(word) = self.u32_or_eof("legacy block size")? else {
            self.legacy = false;
            return Ok(());
        };
        if Magic::classify(word).is_some() {
            self.legacy = false;
            self.pending_magic = Some((word, at));
            return Ok(());
        }
        let len = word as usize;
        if len > LEGACY_MAX_COMPRESSED {
            return Err(Error::BlockTooLarge {
                size: len,
                max: LEGACY_MAX_COMPRESSED,
            });
        }
        self.read_block_data(len, "legacy block")?;
        self.out_pos = 0;
        self.filled = 0;
        let n = self
            .decoder
            .decode_with_prefix(
                &self.cbuf[..self.cbuf_len],
                &mut self.win[..LEGACY_BLOCK_SIZE],
                0,
            )
            .map_err(|e| Error::Block {
                index: 0,
                at,
                source: Box::new(e),
            })?;
        self.filled = n;
        Ok(())
    }
}

/// `read_exact` that counts the stream position and reports a short read
/// as [`Error::Truncated`].
fn read_full<R: Read>(r: &mut R, buf: &mut [u8], pos: &mut u64, what: &'static str) -> Result<()> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => {
                *pos += got as u64;
                return Err(Error::Truncated { at: *pos, what });
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Io(e)),
        }
    }
    *pos += got as u64;
    Ok(())
}

impl<R: Read> Read for FrameDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.out_pos < self.filled {
                let n = buf.len().min(self.filled - self.out_pos);
                buf[..n].copy_from_slice(&self.win[self.out_pos..self.out_pos + n]);
                self.out_pos += n;
                return Ok(n);
            }
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            if let Err(e) = self.step() {
                self.done = true;
                self.filled = self.out_pos;
                return Err(e.into_io());
            }
        }
    }
}
