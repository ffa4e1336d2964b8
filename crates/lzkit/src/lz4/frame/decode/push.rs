//! The push decoder: a frame fed in pieces by a caller that receives its
//! input rather than reads it (a socket's packets, python-lz4's
//! `LZ4FrameDecompressor`). Each [`PushDecoder::feed`] decodes every block
//! that has arrived whole, with the same per-frame logic ([`FrameState`])
//! and block function ([`super::frame_state::decode_raw`]) as the other paths, and
//! keeps the rest of the input for the next call.

use super::frame_state::{FrameState, RawBlock, block_room};
use super::input::{SliceInput, slice_block};
use crate::error::{Error, Result};
use crate::lz4::block::{Decoder, MAX_DISTANCE};
use crate::lz4::frame::BlockMode;
use crate::lz4::frame::header::{Header, Magic, unknown_magic};

/// Where a push decoder is in its frame.
enum Stage {
    /// Before the frame's magic number and header.
    Start,
    /// Inside a standard frame.
    Blocks {
        state: FrameState,
        /// Decoded bytes at the start of `window` that the next block of
        /// a linked frame may refer to (the frame's last 64 KiB at most).
        history: usize,
    },
    /// Inside a skippable frame: bytes of it still to pass over.
    Skipping(u64),
    /// The frame ended, its checksums checked.
    Done,
}

/// A decoder of one LZ4 frame (standard or skippable) fed in pieces, for
/// input that arrives rather than is read: every [`feed`](Self::feed)
/// decodes the blocks that have arrived whole and keeps what is left of
/// the input for the next call.
///
/// Memory: at most one block of input (plus any bytes past the frame's
/// end, kept as [`unused`](Self::unused)) and, for linked frames, 64 KiB
/// of output history. Nothing is reserved on a header's word: a block's
/// room is bounded by the bytes that have arrived for it. Legacy frames
/// and frames that need a dictionary are refused.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions, PushDecoder};
///
/// let data = b"sent over the network in small packets. ".repeat(500);
/// let packed = frame::compress(&data, &FrameOptions::new());
/// let mut dec = PushDecoder::new();
/// let mut out = Vec::new();
/// for packet in packed.chunks(100) {
///     dec.feed(packet, &mut out)?;
/// }
/// assert!(dec.is_finished());
/// assert_eq!(out, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub struct PushDecoder {
    stage: Stage,
    /// Input received and not yet used (a block's worth at most, and any
    /// bytes after the frame).
    pending: Vec<u8>,
    /// Stream position of the next byte to use (for error messages).
    pos: u64,
    decoder: Decoder,
    /// History, then room for the next block.
    window: Vec<u8>,
    /// An error stopped the frame: every feed fails until `reset`.
    failed: bool,
}

impl Default for PushDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl PushDecoder {
    /// A decoder waiting for a frame.
    pub fn new() -> Self {
        PushDecoder {
            stage: Stage::Start,
            pending: Vec::new(),
            pos: 0,
            decoder: Decoder::new(),
            window: Vec::new(),
            failed: false,
        }
    }

    /// Decode what `input`, after the input fed before, makes decodable,
    /// appending it to `out`. Returns whether the frame has ended (then
    /// its checksums and content size have been checked, and input after
    /// it is [`unused`](Self::unused)). After an error every call fails
    /// until [`reset`](Self::reset). A step (header, block) begun in an
    /// earlier call takes from `input` only the bytes it still needs; the
    /// rest is decoded in place, so memory stays at about one block
    /// however large the pieces.
    ///
    /// # Errors
    /// Those of [`super::decompress`] for a damaged frame (a bad magic
    /// number or header, a corrupt block, a checksum or content-size
    /// mismatch); [`Error::CorruptFrame`] (an unknown magic number) for a legacy frame;
    /// [`Error::DictionaryRequired`] for a frame that needs a dictionary.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        if self.failed {
            return Err(Error::Io(std::io::Error::other(
                "the frame stopped at an earlier error: reset() the decoder to start a new one",
            )));
        }
        while !input.is_empty() {
            if matches!(self.stage, Stage::Done) {
                self.pending.extend_from_slice(input);
                break;
            }
            if self.pending.is_empty() {
                // Straight from the caller's input; only its undecodable
                // tail is kept.
                let used = self.run(input, out);
                let used = self.failing(used)?;
                self.pending.extend_from_slice(&input[used..]);
                break;
            }
            // A step begun in an earlier call: only the bytes it still
            // needs join it, then the rest is read in place.
            let take = self.needed().min(input.len());
            self.pending.extend_from_slice(&input[..take]);
            input = &input[take..];
            let pending = std::mem::take(&mut self.pending);
            let used = self.run(&pending, out);
            self.pending = pending;
            let used = self.failing(used)?;
            self.pending.drain(..used);
        }
        Ok(self.is_finished())
    }

    /// `r`, remembering an error: the frame's state has moved past what
    /// it decoded, so the decoder refuses to go on until reset.
    fn failing<T>(&mut self, r: Result<T>) -> Result<T> {
        if r.is_err() {
            self.failed = true;
        }
        r
    }

    /// How many more bytes the step begun in `pending` needs before it can
    /// run (at least 1; when the step's bytes are not all known yet, what
    /// tells how many it takes).
    fn needed(&self) -> usize {
        let p = &self.pending;
        let word = |at: usize| {
            p.get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        };
        let total = match &self.stage {
            Stage::Start => match (word(0), p.get(4)) {
                (Some(m), _) if Magic::classify(m) == Some(Magic::Skippable) => 8,
                (Some(_), Some(&flg)) => 4 + Header::descriptor_len(flg),
                _ => 5,
            },
            Stage::Blocks { state, .. } => match word(0) {
                None => 4,
                Some(0) => 4 + if state.header.content_checksum { 4 } else { 0 },
                Some(w) => {
                    let len = (w & 0x7FFF_FFFF) as usize;
                    4 + len.min(state.header.block_size.bytes())
                        + if state.header.block_checksum { 4 } else { 0 }
                }
            },
            Stage::Skipping(_) | Stage::Done => 1,
        };
        total.saturating_sub(p.len()).max(1)
    }
    /// Whether the frame has ended (and all of it was checked).
    pub fn is_finished(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    /// Input received that the decoder has not used: after the frame's
    /// end, the bytes that followed it.
    pub fn unused(&self) -> &[u8] {
        &self.pending
    }

    /// Forget the frame and all input: ready for a new one.
    pub fn reset(&mut self) {
        self.stage = Stage::Start;
        self.pending.clear();
        self.pos = 0;
        self.window.clear();
        self.failed = false;
    }

    /// Use as much of `src` as decodes; returns the bytes used. Input
    /// that stops inside a header, block or checksum is left for later.
    fn run(&mut self, src: &[u8], out: &mut Vec<u8>) -> Result<usize> {
        let mut used = 0;
        loop {
            let mut input = SliceInput { src, pos: used };
            match self.step(&mut input, out) {
                Ok(true) => {
                    self.pos += (input.pos - used) as u64;
                    used = input.pos;
                }
                Ok(false) => return Ok(used),
                // The input ends inside this step: wait for more.
                Err(Error::Truncated { .. }) => return Ok(used),
                Err(e) => return Err(e),
            }
        }
    }

    /// One step (a header, a block, the end of a frame) from `input`;
    /// `false` if there is nothing to do (frame ended, or no input). Errors
    /// carry stream positions; [`Error::Truncated`] means the step needs
    /// more input than has arrived (nothing was changed).
    fn step(&mut self, input: &mut SliceInput<'_>, out: &mut Vec<u8>) -> Result<bool> {
        let base = self.pos - input.pos as u64;
        match &mut self.stage {
            Stage::Done => Ok(false),
            _ if input.pos == input.src.len() => Ok(false),
            Stage::Start => {
                let at = self.pos;
                let magic = input.u32("magic number")?;
                match Magic::classify(magic) {
                    Some(Magic::Standard) => {}
                    Some(Magic::Skippable) => {
                        let size = input.u32("skippable frame size")?;
                        self.stage = match size {
                            0 => Stage::Done,
                            n => Stage::Skipping(u64::from(n)),
                        };
                        return Ok(true);
                    }
                    Some(Magic::Legacy) | None => {
                        return Err(unknown_magic(magic, at));
                    }
                }
                let flg = *input.src.get(input.pos).ok_or(Error::Truncated {
                    at: input.src.len() as u64,
                    what: "frame header",
                })?;
                let header =
                    Header::parse(input.take(Header::descriptor_len(flg), "frame header")?, at)?;
                if let Some(dict_id) = header.dict_id {
                    return Err(Error::DictionaryRequired { dict_id });
                }
                self.window.clear();
                self.stage = Stage::Blocks {
                    state: FrameState::new(header),
                    history: 0,
                };
                Ok(true)
            }
            Stage::Skipping(left) => {
                let n = (*left).min((input.src.len() - input.pos) as u64) as usize;
                input.take(n, "skippable frame")?;
                *left -= n as u64;
                if *left == 0 {
                    self.stage = Stage::Done;
                }
                Ok(true)
            }
            Stage::Blocks { state, history } => {
                let header = state.header;
                // Positions in `slice_block`'s errors are the input's: made
                // the stream's.
                let block =
                    slice_block(input, &header, state.block_index).map_err(|e| match e {
                        Error::Block { index, at, source } => Error::Block {
                            index,
                            at: at + base,
                            source,
                        },
                        e => e,
                    })?;
                let Some(block) = block else {
                    if header.content_checksum {
                        let at = base + input.pos as u64;
                        let sum = input.u32("content checksum")?;
                        state.finish(Some(sum), at)?;
                    } else {
                        state.finish(None, 0)?;
                    }
                    self.stage = Stage::Done;
                    return Ok(true);
                };
                let block = RawBlock {
                    at: base + block.at,
                    ..block
                };
                let block_max = header.block_size.bytes();
                let start = match header.block_mode {
                    BlockMode::Linked => *history,
                    BlockMode::Independent => 0,
                };
                let room = block_room(block.data.len(), block.stored, block_max);
                self.window.resize(start + room, 0);
                let n = state.decode_block(&mut self.decoder, block, &mut self.window, start)?;
                let end = start + n;
                out.extend_from_slice(&self.window[start..end]);
                if header.block_mode == BlockMode::Linked {
                    // Keep the last 64 KiB as the next block's history.
                    let keep = end.min(MAX_DISTANCE);
                    self.window.copy_within(end - keep..end, 0);
                    *history = keep;
                }
                Ok(true)
            }
        }
    }
}
