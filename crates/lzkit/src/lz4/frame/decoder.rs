//! Reading frames: the one-shot [`decompress`] (blocks decoded straight into
//! the output vector) and the streaming [`FrameDecoder`] (memory bounded by
//! the block size). Both drive the same per-frame logic, [`FrameState`], and
//! decode every block with the same function, [`decode_raw`].
//!
//! With more than one thread ([`decompress_with`],
//! [`FrameDecoder::with_options`]), the blocks of independent-block frames
//! are decoded in batches on a pool, each batch by a task with its own
//! [`Decoder`]; the calling thread reads ahead, checks the content checksum
//! and hands out the output in order. A failing block stops the output just
//! where serial decoding stops it, with the same error.

use super::header::{
    BLOCK_STORED_FLAG, BlockHeader, Header, MAX_DESCRIPTOR_LEN, MIN_DESCRIPTOR_LEN, Magic,
};
use super::{BlockMode, DecodeOptions, LEGACY_BLOCK_SIZE};
use crate::error::{Error, Result};
use crate::lz4::block::{self, Decoder, MAX_DISTANCE, with_thread_decoder};
use crate::pool::{IN_FLIGHT_PER_THREAD, Ordered, Pool, effective_threads};
use std::io::{self, Read};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use xxhash_rust::xxh32::{Xxh32, xxh32};

/// Largest compressed legacy block: the block bound of 8 MiB.
const LEGACY_MAX_COMPRESSED: usize = block::max_compressed_size(LEGACY_BLOCK_SIZE);
/// Decoded bytes (room, see [`block_room`]) per parallel batch, at least one
/// block: large enough that handing a batch to a worker costs little next
/// to decoding it, small enough that a few batches per thread keep memory
/// and latency low.
const BATCH_BYTES: usize = 4 << 20;
/// LZ4 expands at most this much per input byte (each length byte adds at
/// most 255).
const MAX_EXPANSION: usize = 255;
/// Slack over [`MAX_EXPANSION`] for a block's fixed-size parts.
const EXPANSION_SLACK: usize = 64;

/// Room to decode a block into: its decoded size is at most the block
/// maximum, and at most 255 times its compressed size plus a little, so
/// tiny blocks do not zero-fill a whole block maximum. Every decoding path
/// gives a block exactly this capacity, so they agree on every error.
pub(crate) fn block_room(len: usize, stored: bool, block_max: usize) -> usize {
    if stored {
        len
    } else {
        block_max.min(
            len.saturating_mul(MAX_EXPANSION)
                .saturating_add(EXPANSION_SLACK),
        )
    }
}

/// Wrap an error with its block's index in the frame and stream position.
fn in_block(index: u64, at: u64, e: Error) -> Error {
    Error::Block {
        index,
        at,
        source: Box::new(e),
    }
}

/// Decode the size word of block `index` of a frame, read at `at`.
fn parse_block_header(word: u32, at: u64, index: u64, block_max: usize) -> Result<BlockHeader> {
    BlockHeader::parse(word, block_max).map_err(|e| in_block(index, at, e))
}

/// Verify (if present) the block checksum, then decode block `index` into
/// `buf[start..]` with `buf[..start]` as history; the capacity is the rest
/// of `buf`, at most `block_max`. Returns the decoded size. Every path,
/// serial or parallel, decodes blocks with this.
pub(crate) fn decode_raw(
    decoder: &mut Decoder,
    block: &RawBlock<'_>,
    index: u64,
    block_max: usize,
    buf: &mut [u8],
    start: usize,
) -> Result<usize> {
    let RawBlock {
        data,
        stored,
        checksum,
        at,
    } = *block;
    if let Some(stored_sum) = checksum {
        let computed = xxh32(data, 0);
        if computed != stored_sum {
            return Err(in_block(
                index,
                at,
                Error::BlockChecksum {
                    stored: stored_sum,
                    computed,
                },
            ));
        }
    }
    let capacity = (buf.len() - start).min(block_max);
    if stored {
        if data.len() > capacity {
            return Err(in_block(
                index,
                at,
                Error::BlockTooLarge {
                    size: data.len(),
                    max: capacity,
                },
            ));
        }
        buf[start..start + data.len()].copy_from_slice(data);
        return Ok(data.len());
    }
    decoder
        .decode_with_prefix(data, &mut buf[..start + capacity], start)
        .map_err(|e| Error::Block {
            index,
            at,
            source: e,
        })
}

/// One block as read from a frame, before decoding.
#[derive(Clone, Copy)]
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

    /// Decode a block size word read at stream position `at`.
    pub(crate) fn block_header(&self, word: u32, at: u64) -> Result<BlockHeader> {
        parse_block_header(word, at, self.block_index, self.header.block_size.bytes())
    }

    /// Verify and decode the next block into `buf[start..]` (see
    /// [`decode_raw`]), then count it. Returns the decoded size.
    pub(crate) fn decode_block(
        &mut self,
        decoder: &mut Decoder,
        block: RawBlock<'_>,
        buf: &mut [u8],
        start: usize,
    ) -> Result<usize> {
        let block_max = self.header.block_size.bytes();
        let n = decode_raw(decoder, &block, self.block_index, block_max, buf, start)?;
        self.account(&buf[start..start + n]);
        Ok(n)
    }

    /// Count the next block, decoded (elsewhere) to `data`: content checksum
    /// and size. Blocks must be counted in order.
    pub(crate) fn account(&mut self, data: &[u8]) {
        if let Some(h) = &mut self.hasher {
            h.update(data);
        }
        self.decoded += data.len() as u64;
        self.block_index += 1;
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
    decompress_slice(src, 1)
}

/// [`decompress`] with a dictionary (the one the frames were compressed with).
pub fn decompress_with_dict(src: &[u8], dict: &[u8]) -> Result<Vec<u8>> {
    if dict.is_empty() {
        return decompress_slice(src, 1);
    }
    // Dictionaries are rare: let the streaming decoder keep them in its window.
    let mut out = Vec::new();
    FrameDecoder::with_dictionary(src, dict)
        .read_to_end(&mut out)
        .map_err(Error::from_io)?;
    Ok(out)
}

/// [`decompress`] with options: a dictionary, and worker threads that
/// decode the blocks of independent-block frames in parallel. The result,
/// and the error on corrupt input, are the same as [`decompress`]'s (or
/// [`decompress_with_dict`]'s) whatever the thread count.
pub fn decompress_with(src: &[u8], opts: &DecodeOptions) -> Result<Vec<u8>> {
    match opts.dictionary.as_deref() {
        Some(dict) if !dict.is_empty() => {
            let mut out = Vec::new();
            FrameDecoder::with_options(src, opts)
                .read_to_end(&mut out)
                .map_err(Error::from_io)?;
            Ok(out)
        }
        _ => decompress_slice(src, effective_threads(opts.threads)),
    }
}

/// The one-shot decoder without a dictionary, on `threads` threads.
fn decompress_slice(src: &[u8], threads: usize) -> Result<Vec<u8>> {
    let mut par = SlicePar {
        threads,
        pool: None,
        decoders: Mutex::new(Vec::new()),
    };
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
                if threads > 1 && header.block_mode == BlockMode::Independent {
                    decode_frame_slice_par(&mut input, header, &mut out, &mut par)?;
                } else {
                    decode_frame_slice(&mut input, header, &mut out)?;
                }
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

/// Read the next block of a frame from the one-shot input: `None` at the
/// end mark. `index` is the block's index in the frame (for errors).
fn slice_block<'a>(
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
fn finish_frame_slice(input: &mut SliceInput<'_>, state: &FrameState) -> Result<()> {
    let at = input.pos as u64;
    let checksum = if state.header.content_checksum {
        Some(input.u32("content checksum")?)
    } else {
        None
    };
    state.finish(checksum, at)
}

/// One frame of the one-shot path: blocks decode straight into `out`, and
/// linked blocks see the frame's earlier output as history.
fn decode_frame_slice(input: &mut SliceInput<'_>, header: Header, out: &mut Vec<u8>) -> Result<()> {
    let mut state = FrameState::new(header);
    let block_max = header.block_size.bytes();
    // Reserve the output once: growing the vector block by block would copy
    // everything decoded so far at every doubling (as costly as decoding
    // highly compressible data).
    let expected = match header.content_size {
        Some(n) => n as usize,
        None => output_bound(input.src, input.pos, &header),
    };
    out.reserve(expected.min(1 << 30));
    let frame_start = out.len();
    let mut filled = out.len();
    while let Some(block) = slice_block(input, &header, state.block_index)? {
        // Only what the previous block left unused is re-zeroed.
        let room = block_room(block.data.len(), block.stored, block_max);
        if out.len() < filled + room {
            out.resize(filled + room, 0);
        }
        let history = match header.block_mode {
            BlockMode::Linked => frame_start,
            BlockMode::Independent => filled,
        };
        let decoded = with_thread_decoder(|d| {
            let buf = &mut out[history..filled + room];
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
    finish_frame_slice(input, &state)
}

/// An upper bound of a frame's decoded size from its block size words alone
/// (no decoding), for frames without a content size. Stops quietly at
/// anything malformed; decoding reports it.
fn output_bound(src: &[u8], mut pos: usize, header: &Header) -> usize {
    let block_max = header.block_size.bytes();
    let trailer = if header.block_checksum { 4 } else { 0 };
    let mut total = 0usize;
    while let Some(word) = src.get(pos..pos + 4) {
        let word = u32::from_le_bytes(word.try_into().expect("4 bytes"));
        let len = (word & !BLOCK_STORED_FLAG) as usize;
        if word == 0 || len > block_max {
            break;
        }
        total = total.saturating_add(block_room(len, word & BLOCK_STORED_FLAG != 0, block_max));
        pos = pos.saturating_add(4 + len + trailer);
    }
    total
}

/// The one-shot decoder's parallel resources, started on first use.
struct SlicePar {
    threads: usize,
    pool: Option<Pool>,
    /// Decoders for the tasks: each task takes one for itself, so they keep
    /// what they learn from batch to batch.
    decoders: Mutex<Vec<Decoder>>,
}

/// What a batch of blocks decoded: the sizes of the blocks that decoded
/// (packed one after the other from the start of the batch's room), then
/// the error of the block that did not, if any.
struct BatchResult {
    sizes: Vec<usize>,
    error: Option<Error>,
}

/// Decode consecutive independent blocks `first..` of a frame into `room`
/// (the sum of their [`block_room`]s), packed one after the other, each with
/// exactly its own room as capacity and `dict` (maybe empty) as history;
/// stop at the first failure, or before any block once `cancel` is set (an
/// earlier batch failed: nothing later is used).
fn decode_batch(
    decoder: &mut Decoder,
    blocks: &[RawBlock<'_>],
    first: u64,
    block_max: usize,
    dict: &[u8],
    room: &mut [u8],
    cancel: &AtomicBool,
) -> BatchResult {
    let mut result = BatchResult {
        sizes: Vec::with_capacity(blocks.len()),
        error: None,
    };
    // With a dictionary, each block decodes right after a copy of it.
    let mut scratch = Vec::new();
    if !dict.is_empty() {
        scratch.resize(dict.len() + block_max, 0);
        scratch[..dict.len()].copy_from_slice(dict);
    }
    let mut off = 0;
    for (i, block) in blocks.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        let cap = block_room(block.data.len(), block.stored, block_max);
        let index = first + i as u64;
        let decoded = if dict.is_empty() {
            decode_raw(
                decoder,
                block,
                index,
                block_max,
                &mut room[off..off + cap],
                0,
            )
        } else {
            let d = dict.len();
            decode_raw(decoder, block, index, block_max, &mut scratch[..d + cap], d)
                .inspect(|&n| room[off..off + n].copy_from_slice(&scratch[d..d + n]))
        };
        match decoded {
            Ok(n) => {
                result.sizes.push(n);
                off += n;
            }
            Err(e) => {
                result.error = Some(e);
                break;
            }
        }
    }
    result
}

/// Cut consecutive blocks with these rooms into batches of about
/// [`BATCH_BYTES`] of room (at least one block each).
fn batch_ranges(rooms: &[usize]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for (i, &room) in rooms.iter().enumerate() {
        if i > start && bytes + room > BATCH_BYTES {
            ranges.push(start..i);
            start = i;
            bytes = 0;
        }
        bytes += room;
    }
    if start < rooms.len() {
        ranges.push(start..rooms.len());
    }
    ranges
}

/// One independent-block frame of the one-shot path, decoded in parallel:
/// the blocks are located first (stopping at the end mark or at the first
/// framing error), then decoded in batches straight into `out`, each batch
/// into its own part of it, while this thread checks the content checksum
/// of the batches in order. Errors are those of [`decode_frame_slice`]: the
/// first failing block's, else the framing error.
fn decode_frame_slice_par(
    input: &mut SliceInput<'_>,
    header: Header,
    out: &mut Vec<u8>,
    par: &mut SlicePar,
) -> Result<()> {
    let block_max = header.block_size.bytes();
    let mut blocks = Vec::new();
    let framing = loop {
        match slice_block(input, &header, blocks.len() as u64) {
            Ok(Some(b)) => blocks.push(b),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    let rooms: Vec<usize> = blocks
        .iter()
        .map(|b| block_room(b.data.len(), b.stored, block_max))
        .collect();
    let ranges = batch_ranges(&rooms);
    let base = out.len();
    let total = rooms.iter().sum::<usize>();
    if base == 0 {
        // A fresh zeroed allocation: the system hands out zero pages, so the
        // pages are first touched (faulted in) by the tasks that decode
        // into them, in parallel, rather than zero-filled here first.
        *out = vec![0u8; total];
    } else {
        out.resize(base + total, 0);
    }

    // Each batch's part of `out`, in order.
    let mut parts: Vec<&mut [u8]> = Vec::with_capacity(ranges.len());
    let mut rest = &mut out[base..];
    for r in &ranges {
        let (part, tail) = rest.split_at_mut(rooms[r.clone()].iter().sum());
        parts.push(part);
        rest = tail;
    }
    let part_lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();

    let mut state = FrameState::new(header);
    let cancel = AtomicBool::new(false);
    // Bytes each batch decoded, in order, up to the first failure.
    let mut decoded: Vec<usize> = Vec::with_capacity(ranges.len());
    let mut failure = None;
    // Count one batch (in order): content checksum and size.
    let mut account = |part: &[u8], r: BatchResult, state: &mut FrameState| {
        let mut off = 0;
        for &n in &r.sizes {
            state.account(&part[off..off + n]);
            off += n;
        }
        decoded.push(off);
        if r.error.is_some() {
            cancel.store(true, Ordering::Relaxed);
        }
        r.error
    };
    if par.pool.is_none() && ranges.len() > 1 {
        par.pool = Pool::new(par.threads);
    }
    match &par.pool {
        Some(pool) if ranges.len() > 1 => {
            let (tx, rx) = mpsc::channel();
            let decoders = &par.decoders;
            let blocks = &blocks;
            let cancel = &cancel;
            pool.in_place_scope(|scope| {
                for (k, (part, r)) in parts.into_iter().zip(&ranges).enumerate() {
                    let tx = tx.clone();
                    scope.spawn(move || {
                        let mut d = take_decoder(decoders);
                        let result = decode_batch(
                            &mut d,
                            &blocks[r.clone()],
                            r.start as u64,
                            block_max,
                            &[],
                            part,
                            cancel,
                        );
                        put_decoder(decoders, d);
                        // The receiver outlives the scope.
                        let _ = tx.send((k, part, result));
                    });
                }
                drop(tx);
                // Results arrive in any order; count them in frame order.
                let mut waiting: Vec<Option<(&mut [u8], BatchResult)>> =
                    (0..ranges.len()).map(|_| None).collect();
                for k in 0..ranges.len() {
                    while waiting[k].is_none() {
                        // Closed only if a task panicked; the scope then
                        // re-raises its panic.
                        let Ok((i, part, r)) = rx.recv() else { return };
                        waiting[i] = Some((part, r));
                    }
                    let (part, r) = waiting[k].take().expect("just received");
                    if let Some(e) = account(part, r, &mut state) {
                        failure = Some(e);
                        return;
                    }
                }
            });
        }
        _ => {
            for (part, r) in parts.into_iter().zip(&ranges) {
                let result = with_thread_decoder(|d| {
                    decode_batch(
                        d,
                        &blocks[r.clone()],
                        r.start as u64,
                        block_max,
                        &[],
                        part,
                        &cancel,
                    )
                });
                if let Some(e) = account(part, result, &mut state) {
                    failure = Some(e);
                    break;
                }
            }
        }
    }
    if let Some(e) = failure.or(framing) {
        out.truncate(base);
        return Err(e);
    }
    // Close the gaps left where a batch decoded to less than its room.
    let mut from = base;
    let mut to = base;
    for (len, n) in part_lens.iter().zip(&decoded) {
        out.copy_within(from..from + n, to);
        from += len;
        to += n;
    }
    out.truncate(to);
    finish_frame_slice(input, &state)
}

/// A decoder from the shared set, or a new one.
fn take_decoder(decoders: &Mutex<Vec<Decoder>>) -> Decoder {
    decoders
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop()
        .unwrap_or_default()
}

/// Give a decoder back to the shared set.
fn put_decoder(decoders: &Mutex<Vec<Decoder>>, d: Decoder) {
    decoders
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(d);
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
                    source: e,
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
///
/// With more than one thread ([`FrameDecoder::with_options`]), the blocks
/// of independent-block frames are decoded in parallel batches while this
/// reader reads ahead; memory is then bounded by about two batches of
/// 4 MiB (or one block, if larger) per thread, compressed and decoded. The
/// bytes read, and the error after them on corrupt input, are the same as
/// with one thread.
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
    /// History (dictionary or earlier blocks), then the decoded block; or,
    /// in parallel mode, the decoded batch being handed out.
    win: Vec<u8>,
    /// End of decoded data in `win`.
    filled: usize,
    /// Next byte of `win` to hand to the reader.
    out_pos: usize,
    done: bool,
    /// Parallel decoding of independent-block frames (more than one thread).
    par: Option<ParStream>,
}

/// The streaming decoder's parallel state.
struct ParStream {
    /// Batches being decoded, in frame order.
    jobs: Ordered<BatchDone>,
    /// Batches allowed in flight.
    max_in_flight: usize,
    /// Decoders for the tasks (one each while it runs).
    decoders: Arc<Mutex<Vec<Decoder>>>,
    /// The dictionary's last 64 KiB, shared with the tasks.
    dict: Arc<[u8]>,
    /// The current frame is decoded here (it has independent blocks).
    active: bool,
    /// The reader has reached the current frame's end mark, or an error.
    read_done: bool,
    /// Blocks of the current frame read so far.
    read_index: u64,
    /// What comes after the output being handed out: the frame's end, or an
    /// error.
    after: Option<Tail>,
    /// Buffers handed back, for the next batches.
    spare_raw: Vec<Vec<u8>>,
    spare_out: Vec<Vec<u8>>,
}

/// How a batch ends, besides its blocks.
enum Tail {
    /// The frame's end mark, then its content checksum (if any), read at `at`.
    End { checksum: Option<u32>, at: u64 },
    /// Reading failed here (truncation, a bad size word, I/O).
    Error(Error),
}

/// Where a block read ahead lies in its batch's compressed data.
struct BatchBlock {
    data: Range<usize>,
    stored: bool,
    checksum: Option<u32>,
    at: u64,
}

/// Blocks read ahead for one task.
struct Batch {
    /// The blocks' compressed data, packed.
    raw: Vec<u8>,
    blocks: Vec<BatchBlock>,
    /// Index in the frame of the first block.
    first: u64,
    /// Buffer for the decoded blocks.
    out: Vec<u8>,
    tail: Option<Tail>,
}

/// A decoded batch: `out` holds the blocks that decoded, packed.
struct BatchDone {
    raw: Vec<u8>,
    out: Vec<u8>,
    result: BatchResult,
    tail: Option<Tail>,
}

/// Decode a batch read ahead (the function pool tasks run).
fn decode_read_batch(
    batch: Batch,
    block_max: usize,
    decoders: &Mutex<Vec<Decoder>>,
    dict: &[u8],
) -> BatchDone {
    let Batch {
        raw,
        blocks,
        first,
        mut out,
        tail,
    } = batch;
    let room: usize = blocks
        .iter()
        .map(|b| block_room(b.data.len(), b.stored, block_max))
        .sum();
    // Buffers keep their length from use to use: zero-filled only once.
    if out.len() < room {
        out.resize(room, 0);
    }
    let raws: Vec<RawBlock<'_>> = blocks
        .iter()
        .map(|b| RawBlock {
            data: &raw[b.data.clone()],
            stored: b.stored,
            checksum: b.checksum,
            at: b.at,
        })
        .collect();
    let mut d = take_decoder(decoders);
    let never = AtomicBool::new(false);
    let result = decode_batch(
        &mut d,
        &raws,
        first,
        block_max,
        dict,
        &mut out[..room],
        &never,
    );
    put_decoder(decoders, d);
    drop(raws);
    BatchDone {
        raw,
        out,
        result,
        tail,
    }
}

/// Read one block of a frame into `raw[*used..]` (growing it as needed):
/// `None` at the end mark. `index` is its index in the frame.
fn read_frame_block<R: Read>(
    inner: &mut R,
    pos: &mut u64,
    header: &Header,
    index: u64,
    raw: &mut Vec<u8>,
    used: &mut usize,
) -> Result<Option<BatchBlock>> {
    let at = *pos;
    let word = read_u32(inner, pos, "block size")?;
    let (len, stored) = match parse_block_header(word, at, index, header.block_size.bytes())? {
        BlockHeader::End => return Ok(None),
        BlockHeader::Data { len, stored } => (len, stored),
    };
    let start = *used;
    if raw.len() < start + len {
        raw.resize(start + len, 0);
    }
    read_full(inner, &mut raw[start..start + len], pos, "block data")?;
    *used += len;
    let checksum = if header.block_checksum {
        Some(read_u32(inner, pos, "block checksum")?)
    } else {
        None
    };
    Ok(Some(BatchBlock {
        data: start..start + len,
        stored,
        checksum,
        at,
    }))
}

/// A little-endian u32, counting the stream position.
fn read_u32<R: Read>(inner: &mut R, pos: &mut u64, what: &'static str) -> Result<u32> {
    let mut b = [0u8; 4];
    read_full(inner, &mut b, pos, what)?;
    Ok(u32::from_le_bytes(b))
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
            par: None,
        }
    }

    /// Read frames, decoding the blocks of independent-block frames on
    /// `threads` worker threads (0 = one per core, 1 = this thread only).
    pub fn with_threads(inner: R, threads: usize) -> Self {
        Self::with_options(
            inner,
            &DecodeOptions {
                threads,
                dictionary: None,
            },
        )
    }

    /// Read frames with `opts`: a dictionary, and worker threads.
    pub fn with_options(inner: R, opts: &DecodeOptions) -> Self {
        let mut d = Self::with_dictionary(inner, opts.dictionary.as_deref().unwrap_or_default());
        let threads = effective_threads(opts.threads);
        if threads > 1 {
            d.par = Some(ParStream {
                jobs: Ordered::new(threads),
                max_in_flight: threads * IN_FLIGHT_PER_THREAD,
                decoders: Arc::new(Mutex::new(Vec::new())),
                dict: d.dict.as_slice().into(),
                active: false,
                read_done: false,
                read_index: 0,
                after: None,
                spare_raw: Vec::new(),
                spare_out: Vec::new(),
            });
        }
        d
    }

    /// Compressed bytes consumed so far (with worker threads, this includes
    /// what was read ahead).
    pub fn total_in(&self) -> u64 {
        self.pos
    }

    /// The underlying reader (with worker threads, positioned after what
    /// was read ahead).
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
            if self.par.as_ref().is_some_and(|p| p.active) {
                return self.par_step();
            }
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
                if let Some(par) = &mut self.par {
                    par.active = header.block_mode == BlockMode::Independent;
                    par.read_done = false;
                    par.read_index = 0;
                    par.after = None;
                }
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
                let end = self.filled + block_room(len, stored, block_max);
                let buf = &mut self.win[..end];
                let n = state.decode_block(&mut self.decoder, block, buf, self.filled)?;
                self.filled += n;
                Ok(())
            }
        }
    }

    /// Parallel path, inside an independent-block frame: hand out the next
    /// decoded batch (reading ahead and queueing more while it decodes), or
    /// what follows the last one handed out: the frame's end, or an error.
    fn par_step(&mut self) -> Result<()> {
        let par = self.par.as_mut().expect("parallel mode");
        if let Some(tail) = par.after.take() {
            return match tail {
                Tail::Error(e) => Err(e),
                Tail::End { checksum, at } => {
                    par.active = false;
                    let state = self.frame.take().expect("in a frame");
                    state.finish(checksum, at)
                }
            };
        }
        let done = self.par_next();
        let par = self.par.as_mut().expect("parallel mode");
        par.spare_raw.push(done.raw);
        let state = self.frame.as_mut().expect("in a frame");
        let mut off = 0;
        for &n in &done.result.sizes {
            state.account(&done.out[off..off + n]);
            off += n;
        }
        par.spare_out
            .push(std::mem::replace(&mut self.win, done.out));
        self.out_pos = 0;
        self.filled = off;
        // A failing block comes before anything the reader found after it.
        par.after = done.result.error.map(Tail::Error).or(done.tail);
        Ok(())
    }

    /// The next batch in frame order: one already decoded if there is one;
    /// otherwise read ahead (while the workers decode) until the queue is
    /// full, then wait.
    fn par_next(&mut self) -> BatchDone {
        let block_max = self
            .frame
            .as_ref()
            .expect("in a frame")
            .header
            .block_size
            .bytes();
        loop {
            let par = self.par.as_mut().expect("parallel mode");
            if let Some(done) = par.jobs.next(false) {
                return done;
            }
            if par.read_done || par.jobs.len() >= par.max_in_flight {
                // The batch with the frame's end or an error is queued
                // before reading stops, so the queue is not empty here.
                return par.jobs.next(true).expect("a batch is queued");
            }
            let batch = self.read_batch();
            let par = self.par.as_mut().expect("parallel mode");
            if batch.blocks.is_empty() || (batch.tail.is_some() && par.jobs.len() == 0) {
                // Nothing to overlap with: decode here, no handoff.
                let done = decode_read_batch(batch, block_max, &par.decoders, &par.dict);
                par.jobs.push_ready(done);
            } else {
                let decoders = Arc::clone(&par.decoders);
                let dict = Arc::clone(&par.dict);
                par.jobs
                    .submit(move || decode_read_batch(batch, block_max, &decoders, &dict));
            }
        }
    }

    /// Read the next blocks of the current frame, about [`BATCH_BYTES`] of
    /// room, up to the end mark (and content checksum) or the first error.
    fn read_batch(&mut self) -> Batch {
        let header = self.frame.as_ref().expect("in a frame").header;
        let block_max = header.block_size.bytes();
        let par = self.par.as_mut().expect("parallel mode");
        let mut raw = par.spare_raw.pop().unwrap_or_default();
        let out = par.spare_out.pop().unwrap_or_default();
        let first = par.read_index;
        let mut blocks = Vec::new();
        let mut used = 0;
        let mut room = 0;
        let tail = loop {
            if !blocks.is_empty() && room + block_max > BATCH_BYTES {
                break None;
            }
            let index = par.read_index;
            match read_frame_block(
                &mut self.inner,
                &mut self.pos,
                &header,
                index,
                &mut raw,
                &mut used,
            ) {
                Ok(Some(b)) => {
                    room += block_room(b.data.len(), b.stored, block_max);
                    blocks.push(b);
                    par.read_index += 1;
                }
                Ok(None) => {
                    let at = self.pos;
                    break Some(if header.content_checksum {
                        match read_u32(&mut self.inner, &mut self.pos, "content checksum") {
                            Ok(c) => Tail::End {
                                checksum: Some(c),
                                at,
                            },
                            Err(e) => Tail::Error(e),
                        }
                    } else {
                        Tail::End { checksum: None, at }
                    });
                }
                Err(e) => break Some(Tail::Error(e)),
            }
        };
        par.read_done = tail.is_some();
        Batch {
            raw,
            blocks,
            first,
            out,
            tail,
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
                source: e,
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
