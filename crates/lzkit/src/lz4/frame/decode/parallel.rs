//! Independent-block frames decoded in parallel: the blocks are decoded in
//! batches of about [`BATCH_BYTES`] on a pool, each batch by a task with
//! its own [`Decoder`]; the calling thread reads ahead, checks the content
//! checksum and hands out the output in order. A failing block stops the
//! output just where serial decoding stops it, with the same error.
//!
//! * One-shot ([`decode_frame_slice`]): the blocks are located and decoded
//!   in waves, straight into the output vector; a wave's room is bounded
//!   by the thread count and the output so far, not by what block sizes
//!   claim.
//! * Streaming ([`ParallelFrame`]): the [`super::FrameDecoder`] lends its
//!   [`Workers`] to the frame, which reads batches ahead and hands them out.

use super::frame_state::{FrameState, RawBlock, block_room, decode_raw, parse_block_header};
use super::input::{Input, SliceInput, finish_frame_slice, slice_block};
use crate::error::{Error, Result};
use crate::lz4::block::Decoder;
use crate::lz4::frame::header::{BlockHeader, Header};
use crate::mem;
use crate::pool::{IN_FLIGHT_PER_THREAD, Ordered, Pool};
use std::io::Read;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

/// Decoded bytes (room, see [`block_room`]) per parallel batch, at least one
/// block: large enough that handing a batch to a worker costs little next
/// to decoding it, small enough that a few batches per thread keep memory
/// and latency low.
const BATCH_BYTES: usize = 4 << 20;
/// The one-shot decoder's parallel resources, started on first use.
pub(super) struct SlicePar {
    threads: usize,
    pool: Option<Pool>,
    /// Decoders for the tasks: each task takes one for itself, so they keep
    /// what they learn from batch to batch.
    decoders: Mutex<Vec<Decoder>>,
}

impl SlicePar {
    /// Resources for `threads` threads; the pool starts with the first frame
    /// that has more than one batch.
    pub(super) fn new(threads: usize) -> Self {
        SlicePar {
            threads,
            pool: None,
            decoders: Mutex::new(Vec::new()),
        }
    }
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
        if let Err(e) = mem::grow_zeroed_exact(&mut scratch, dict.len() + block_max) {
            result.error = Some(e);
            return result;
        }
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

/// One independent-block frame of the one-shot path, decoded in parallel,
/// in waves: blocks are located until their rooms (what each may produce,
/// see [`block_room`]) fill the wave's budget, then decoded in batches
/// straight into `out`, each batch into its own part of the wave's room,
/// while this thread checks the content checksum of the batches in order;
/// then the gaps left where blocks decoded to less than their room are
/// closed, and the next wave starts. A wave's budget is a batch per thread
/// ([`wave_floor`]), or what the frame has decoded so far if more: a
/// block's size claims up to 255 times as much room as it has bytes, so
/// memory beyond the decoded data stays within a few batches, growing with
/// the data, whatever the claims (366 blocks of 16 KiB in a frame of 4 MiB
/// blocks claim 1.4 GiB). Errors are those of the serial one-shot path:
/// the first failing block's, else the framing error.
pub(super) fn decode_frame_slice(
    input: &mut SliceInput<'_>,
    header: Header,
    out: &mut Vec<u8>,
    par: &mut SlicePar,
) -> Result<()> {
    let block_max = header.block_size.bytes();
    let floor = wave_floor(par.threads, block_max);
    let base = out.len();
    let mut state = FrameState::new(header);
    let mut next_index = 0u64;
    loop {
        let budget = floor.max(out.len() - base);
        let first = next_index;
        let mut blocks = Vec::new();
        let mut rooms = Vec::new();
        let mut total = 0usize;
        // `None` while the frame goes on after this wave; else its end
        // mark (`Ok`) or the framing error that stops it.
        let end = loop {
            if !blocks.is_empty() && total + block_max > budget {
                break None;
            }
            match slice_block(input, &header, next_index) {
                Ok(Some(b)) => {
                    let room = block_room(b.data.len(), b.stored, block_max);
                    total += room;
                    rooms.push(room);
                    blocks.push(b);
                    next_index += 1;
                }
                Ok(None) => break Some(Ok(())),
                Err(e) => break Some(Err(e)),
            }
        };
        if let Err(e) = decode_wave(&blocks, &rooms, first, block_max, out, par, &mut state) {
            out.truncate(base);
            return Err(e);
        }
        match end {
            None => {}
            Some(Ok(())) => return finish_frame_slice(input, &state),
            Some(Err(e)) => {
                out.truncate(base);
                return Err(e);
            }
        }
    }
}

/// The least room a wave of [`decode_frame_slice`] decodes: a batch (or a
/// block, if larger) per thread.
fn wave_floor(threads: usize, block_max: usize) -> usize {
    threads.max(1).saturating_mul(BATCH_BYTES.max(block_max))
}

/// A batch's part of a wave's room in the output: zeroed already (a fresh
/// allocation), or the output's spare capacity, zero-filled by the task
/// that decodes into it (in parallel, rather than by the calling thread
/// before the wave).
enum Part<'a> {
    Zeroed(&'a mut [u8]),
    Uninit(&'a mut [MaybeUninit<u8>]),
}

impl<'a> Part<'a> {
    /// The part as bytes, zero-filled if it was not.
    fn bytes(self) -> &'a mut [u8] {
        match self {
            Part::Zeroed(b) => b,
            Part::Uninit(u) => mem::zero_fill(u),
        }
    }
}

/// Decode one wave of [`decode_frame_slice`]: `blocks` (with their
/// `rooms`; the first is block `first` of the frame), appended to `out`
/// packed, in batches on the pool, each counted in order in `state`.
/// Returns the first failing block's error (`out` is then left as it was).
fn decode_wave(
    blocks: &[RawBlock<'_>],
    rooms: &[usize],
    first: u64,
    block_max: usize,
    out: &mut Vec<u8>,
    par: &mut SlicePar,
    state: &mut FrameState,
) -> Result<()> {
    if blocks.is_empty() {
        return Ok(());
    }
    let ranges = batch_ranges(rooms);
    let part_lens: Vec<usize> = ranges
        .iter()
        .map(|r| rooms[r.clone()].iter().sum())
        .collect();
    let total: usize = part_lens.iter().sum();
    let start = out.len();
    let fresh = out.capacity() == 0;
    if fresh {
        // A fresh zeroed allocation: the system hands out zero pages, so the
        // pages are first touched (faulted in) by the tasks that decode
        // into them, in parallel, rather than zero-filled here first.
        *out = mem::zeroed(total)?;
    } else {
        out.try_reserve_exact(total)
            .map_err(|_| mem::out_of_memory(start.saturating_add(total)))?;
    }

    // Each batch's part of the wave's room, in order.
    let mut parts: Vec<Part<'_>> = Vec::with_capacity(ranges.len());
    if fresh {
        let mut rest = &mut out[..];
        for &len in &part_lens {
            let (part, tail) = rest.split_at_mut(len);
            parts.push(Part::Zeroed(part));
            rest = tail;
        }
    } else {
        let mut rest = &mut out.spare_capacity_mut()[..total];
        for &len in &part_lens {
            let (part, tail) = rest.split_at_mut(len);
            parts.push(Part::Uninit(part));
            rest = tail;
        }
    }

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
    // One batch, with a decoder from the call's set (on any thread).
    let decoders = &par.decoders;
    let cancel = &cancel;
    let decode = |r: &Range<usize>, part: &mut [u8]| {
        let mut d = take_decoder(decoders);
        let result = decode_batch(
            &mut d,
            &blocks[r.clone()],
            first + r.start as u64,
            block_max,
            &[],
            part,
            cancel,
        );
        put_decoder(decoders, d);
        result
    };
    match &par.pool {
        Some(pool) if ranges.len() > 1 => {
            let (tx, rx) = mpsc::channel();
            let decode = &decode;
            pool.in_place_scope(|scope| {
                for (k, (part, r)) in parts.into_iter().zip(&ranges).enumerate() {
                    let tx = tx.clone();
                    scope.spawn(move || {
                        // First of all: the whole part is initialised once
                        // every task has run (decode_wave relies on it).
                        let part = part.bytes();
                        let result = decode(r, part);
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
                    if let Some(e) = account(part, r, state) {
                        failure = Some(e);
                        return;
                    }
                }
            });
        }
        _ => {
            for (part, r) in parts.into_iter().zip(&ranges) {
                let part = part.bytes();
                let result = decode(r, part);
                if let Some(e) = account(part, result, state) {
                    failure = Some(e);
                    break;
                }
            }
        }
    }
    if let Some(e) = failure {
        if fresh {
            out.clear();
        }
        return Err(e);
    }
    // Without a failure every batch was decoded and counted (a task that
    // panicked has had its panic re-raised by the scope).
    assert_eq!(decoded.len(), ranges.len(), "every batch was decoded");
    if !fresh {
        // SAFETY: `try_reserve_exact` above made the capacity at least
        // `start + total`, and every byte of `start..start + total` is
        // initialised: the parts cover that range, and each part was
        // zero-filled (`Part::bytes`) by the task or loop iteration that
        // decoded it, before anything else; every batch was decoded (each
        // one's result was counted above, there was no failure).
        unsafe { out.set_len(start + total) };
    }
    // Close the gaps left where a batch decoded to less than its room.
    let mut from = start;
    let mut to = start;
    for (len, n) in part_lens.iter().zip(&decoded) {
        out.copy_within(from..from + n, to);
        from += len;
        to += n;
    }
    out.truncate(to);
    Ok(())
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

/// The streaming decoder's worker threads and what they reuse from batch
/// to batch and frame to frame.
pub(crate) struct Workers {
    /// Batches being decoded, in frame order.
    jobs: Ordered<BatchDone>,
    /// Batches allowed in flight.
    max_in_flight: usize,
    /// Decoders for the tasks (one each while it runs).
    decoders: Arc<Mutex<Vec<Decoder>>>,
    /// The dictionary's last 64 KiB, shared with the tasks.
    dict: Arc<[u8]>,
    /// Buffers handed back, for the next batches.
    spare_raw: Vec<Vec<u8>>,
    spare_out: Vec<Vec<u8>>,
}

impl Workers {
    /// Workers for `threads` threads (started with the first batch
    /// submitted), with `dict` (maybe empty) as every block's history.
    pub(super) fn new(threads: usize, dict: &[u8]) -> Self {
        Workers {
            jobs: Ordered::new(threads),
            max_in_flight: threads * IN_FLIGHT_PER_THREAD,
            decoders: Arc::new(Mutex::new(Vec::new())),
            dict: dict.into(),
            spare_raw: Vec::new(),
            spare_out: Vec::new(),
        }
    }
}

/// An independent-block frame being decoded by the streaming decoder's
/// workers: the frame's checks, the workers (lent by the decoder for the
/// frame), and how far reading ahead has gone.
pub(crate) struct ParallelFrame {
    frame: FrameState,
    pub(super) workers: Box<Workers>,
    /// The reader has reached the frame's end mark, or an error.
    read_done: bool,
    /// Blocks of the frame read so far.
    read_index: u64,
    /// What comes after the output being handed out: the frame's end, or an
    /// error.
    after: Option<Tail>,
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
    if let Err(e) = mem::grow_zeroed_exact(&mut out, room) {
        return BatchDone {
            raw,
            out,
            result: BatchResult {
                sizes: Vec::new(),
                error: Some(e),
            },
            tail,
        };
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
    input: &mut Input<R>,
    header: &Header,
    index: u64,
    raw: &mut Vec<u8>,
    used: &mut usize,
) -> Result<Option<BatchBlock>> {
    let at = input.pos;
    let word = input.u32("block size")?;
    let (len, stored) = match parse_block_header(word, at, index, header.block_size.bytes())? {
        BlockHeader::End => return Ok(None),
        BlockHeader::Data { len, stored } => (len, stored),
    };
    let start = *used;
    mem::grow_zeroed_exact(raw, start + len)?;
    input.read_full(&mut raw[start..start + len], "block data")?;
    *used += len;
    let checksum = if header.block_checksum {
        Some(input.u32("block checksum")?)
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

impl ParallelFrame {
    /// Start decoding the independent-block frame `frame` on `workers`.
    pub(super) fn new(frame: FrameState, workers: Box<Workers>) -> Self {
        ParallelFrame {
            frame,
            workers,
            read_done: false,
            read_index: 0,
            after: None,
        }
    }

    /// Hand out the next decoded batch by swapping it into `win` (reading
    /// ahead and queueing more while it decodes) and return its length; or,
    /// after the last batch, check the frame's end and return `None`, or
    /// return the error the batches stopped at.
    pub(super) fn take_batch<R: Read>(
        &mut self,
        input: &mut Input<R>,
        win: &mut Vec<u8>,
    ) -> Result<Option<usize>> {
        if let Some(tail) = self.after.take() {
            return match tail {
                Tail::Error(e) => Err(e),
                Tail::End { checksum, at } => self.frame.finish(checksum, at).map(|()| None),
            };
        }
        let done = self.next_batch(input);
        self.workers.spare_raw.push(done.raw);
        let mut off = 0;
        for &n in &done.result.sizes {
            self.frame.account(&done.out[off..off + n]);
            off += n;
        }
        self.workers
            .spare_out
            .push(std::mem::replace(win, done.out));
        // A failing block comes before anything the reader found after it.
        self.after = done.result.error.map(Tail::Error).or(done.tail);
        Ok(Some(off))
    }

    /// The next batch in frame order: one already decoded if there is one;
    /// otherwise read ahead (while the workers decode) until the queue is
    /// full, then wait.
    fn next_batch<R: Read>(&mut self, input: &mut Input<R>) -> BatchDone {
        let block_max = self.frame.header.block_size.bytes();
        loop {
            let w = &mut self.workers;
            if let Some(done) = w.jobs.next(false) {
                return done;
            }
            if self.read_done || w.jobs.len() >= w.max_in_flight {
                // The batch with the frame's end or an error is queued
                // before reading stops, so the queue is not empty here.
                return w.jobs.next(true).expect("a batch is queued");
            }
            let batch = self.read_batch(input);
            let w = &mut self.workers;
            if batch.blocks.is_empty() || (batch.tail.is_some() && w.jobs.len() == 0) {
                // Nothing to overlap with: decode here, no handoff.
                let done = decode_read_batch(batch, block_max, &w.decoders, &w.dict);
                w.jobs.push_ready(done);
            } else {
                let decoders = Arc::clone(&w.decoders);
                let dict = Arc::clone(&w.dict);
                w.jobs
                    .submit(move || decode_read_batch(batch, block_max, &decoders, &dict));
            }
        }
    }

    /// Read the next blocks of the frame, about [`BATCH_BYTES`] of room, up
    /// to the end mark (and content checksum) or the first error.
    fn read_batch<R: Read>(&mut self, input: &mut Input<R>) -> Batch {
        let header = self.frame.header;
        let block_max = header.block_size.bytes();
        let mut raw = self.workers.spare_raw.pop().unwrap_or_default();
        let out = self.workers.spare_out.pop().unwrap_or_default();
        let first = self.read_index;
        let mut blocks = Vec::new();
        let mut used = 0;
        let mut room = 0;
        let tail = loop {
            if !blocks.is_empty() && room + block_max > BATCH_BYTES {
                break None;
            }
            let index = self.read_index;
            match read_frame_block(input, &header, index, &mut raw, &mut used) {
                Ok(Some(mut b)) => {
                    if !self.frame.verify {
                        b.checksum = None;
                    }
                    room += block_room(b.data.len(), b.stored, block_max);
                    blocks.push(b);
                    self.read_index += 1;
                }
                Ok(None) => {
                    let at = input.pos;
                    break Some(if header.content_checksum {
                        match input.u32("content checksum") {
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
        self.read_done = tail.is_some();
        Batch {
            raw,
            blocks,
            first,
            out,
            tail,
        }
    }
}
