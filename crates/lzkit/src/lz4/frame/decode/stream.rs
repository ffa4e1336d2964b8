//! The streaming path: [`FrameDecoder`], a [`Read`] over concatenated
//! frames. Where it is in its input is one [`Stage`]; each stage's next step
//! (a block, a batch, a frame boundary) returns the stage after it.

use super::frame_state::{FrameState, RawBlock, block_room, dict_tail};
use super::input::Input;
use super::legacy;
use super::parallel::{ParallelFrame, Workers};
use crate::error::{Error, Result};
use crate::lz4::block::{Decoder, MAX_DISTANCE};
use crate::lz4::frame::header::{
    BlockHeader, Header, MAX_DESCRIPTOR_LEN, MIN_DESCRIPTOR_LEN, Magic, unknown_magic,
};
use crate::lz4::frame::{BlockMode, DecodeOptions};
use crate::mem;
use crate::pool::effective_threads;
use std::io::{self, Read};

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
///
/// ```
/// use lzkit::lz4::frame::{self, FrameDecoder, FrameOptions};
/// use std::io::Read;
///
/// let data = b"streaming frames, block by block. ".repeat(1000);
/// let packed = frame::compress(&data, &FrameOptions::new());
/// let mut out = Vec::new();
/// FrameDecoder::new(&packed[..]).read_to_end(&mut out)?;
/// assert_eq!(out, data);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct FrameDecoder<R: Read> {
    pub(super) input: Input<R>,
    /// The dictionary's last 64 KiB (empty without one).
    pub(super) dict: Vec<u8>,
    /// Compressed block being decoded: `cbuf[..cbuf_len]`.
    pub(super) cbuf: Vec<u8>,
    pub(super) cbuf_len: usize,
    /// This stream's adaptive block decoder.
    pub(super) decoder: Decoder,
    /// History (dictionary or earlier blocks), then the decoded block; or,
    /// in a parallel frame, the decoded batch being handed out.
    pub(super) win: Vec<u8>,
    /// End of decoded data in `win`.
    pub(super) filled: usize,
    /// How long `win` may grow in the current frame: the history and one
    /// block, or for linked blocks room for several (see
    /// [`FrameDecoder::next_frame`]).
    win_limit: usize,
    /// Next byte of `win` to hand to the reader.
    pub(super) out_pos: usize,
    /// Where the decoder is in its input.
    stage: Stage,
    /// Worker threads for independent-block frames: `None` with one thread,
    /// or while a [`Stage::Parallel`] frame holds them.
    workers: Option<Box<Workers>>,
    /// Verify block and content checksums ([`DecodeOptions::verify_checksums`]).
    verify: bool,
    /// Filtered streams joined with other frames refused
    /// ([`DecodeOptions::filtered_streams`]).
    guard: crate::filter::frame::FrameGuard,
}

/// Where a [`FrameDecoder`] is in its input.
pub(super) enum Stage {
    /// Between frames: a magic number comes next. A legacy stream that ended
    /// at the next frame's magic number has already read it (with its
    /// stream position).
    BetweenFrames { pending_magic: Option<(u32, u64)> },
    /// Inside a standard frame, decoded block by block on this thread.
    Frame(FrameState),
    /// Inside an independent-block frame decoded in batches on the workers.
    Parallel(Box<ParallelFrame>),
    /// Inside a legacy stream.
    Legacy,
    /// At the end of the input, or after an error.
    Done,
}

impl<R: Read> FrameDecoder<R> {
    /// Read frames from `inner`.
    pub fn new(inner: R) -> Self {
        Self::with_dictionary(inner, &[])
    }

    /// Read frames compressed with dictionary `dict`.
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, FrameDecoder, FrameOptions};
    /// use std::io::Read;
    ///
    /// let dict = b"common words, common phrases. ".repeat(50);
    /// let data = b"common words, rarer phrases. ".repeat(20);
    /// let opts = FrameOptions::new().dictionary(&dict[..]);
    /// let packed = frame::compress(&data, &opts);
    /// let mut out = Vec::new();
    /// FrameDecoder::with_dictionary(&packed[..], &dict).read_to_end(&mut out)?;
    /// assert_eq!(out, data);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_dictionary(inner: R, dict: &[u8]) -> Self {
        FrameDecoder {
            input: Input { inner, pos: 0 },
            dict: dict_tail(dict).to_vec(),
            cbuf: Vec::new(),
            cbuf_len: 0,
            decoder: Decoder::new(),
            win: Vec::new(),
            filled: 0,
            win_limit: 0,
            out_pos: 0,
            stage: Stage::BetweenFrames {
                pending_magic: None,
            },
            workers: None,
            verify: true,
            guard: Default::default(),
        }
    }

    /// Read frames, decoding the blocks of independent-block frames on
    /// `threads` worker threads (0 = one per core, 1 = this thread only).
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, BlockSize, FrameDecoder, FrameOptions};
    /// use std::io::Read;
    ///
    /// let data: Vec<u8> = (0..1_000_000u32).map(|i| (i / 100 % 256) as u8).collect();
    /// let packed = frame::compress(&data, &FrameOptions::new().block_size(BlockSize::Max64KB));
    /// let mut out = Vec::new();
    /// FrameDecoder::with_threads(&packed[..], 0).read_to_end(&mut out)?;
    /// assert_eq!(out, data);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_threads(inner: R, threads: usize) -> Self {
        Self::with_options(inner, &DecodeOptions::new().threads(threads))
    }

    /// Read frames with `opts`: a dictionary, and worker threads.
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, DecodeOptions, FrameDecoder, FrameOptions};
    /// use std::io::Read;
    ///
    /// let data = vec![42u8; 3 << 20];
    /// let packed = frame::compress(&data, &FrameOptions::new().block_size(frame::BlockSize::Max64KB));
    /// let mut dec = FrameDecoder::with_options(&packed[..], &DecodeOptions::new().threads(4));
    /// let mut out = Vec::new();
    /// dec.read_to_end(&mut out)?;
    /// assert_eq!(out, data);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_options(inner: R, opts: &DecodeOptions) -> Self {
        let mut d = Self::with_dictionary(inner, opts.dictionary.as_deref().unwrap_or_default());
        let threads = effective_threads(opts.threads);
        if threads > 1 {
            d.workers = Some(Box::new(Workers::new(threads, &d.dict)));
        }
        d.verify = opts.verify_checksums;
        d.guard = crate::filter::frame::FrameGuard::new(opts.filtered_streams);
        d
    }

    /// Compressed bytes consumed so far (with worker threads, this includes
    /// what was read ahead).
    pub fn total_in(&self) -> u64 {
        self.input.pos
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.input.inner
    }

    /// The underlying reader, mutably. Reading from it directly desynchronizes
    /// the decoder (unless it is between frames and the caller knows where).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.input.inner
    }

    /// The underlying reader (with worker threads, positioned after what
    /// was read ahead).
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, FrameDecoder, FrameOptions};
    /// use std::io::Read;
    ///
    /// let packed = frame::compress(b"payload", &FrameOptions::new());
    /// let mut dec = FrameDecoder::new(std::io::Cursor::new(packed.clone()));
    /// let mut out = Vec::new();
    /// dec.read_to_end(&mut out)?;
    /// assert_eq!(dec.get_ref().position(), packed.len() as u64);
    /// assert_eq!(dec.into_inner().into_inner(), packed);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.input.inner
    }

    /// Read `len` bytes of block data into `cbuf[..len]` (`cbuf` only ever
    /// grows, so it is zero-filled once, not per block).
    pub(super) fn read_block_data(&mut self, len: usize, what: &'static str) -> Result<()> {
        mem::grow_zeroed_exact(&mut self.cbuf, len)?;
        self.cbuf_len = len;
        self.input.read_full(&mut self.cbuf[..len], what)
    }

    /// Make sure `win` has `len` bytes. It grows as blocks need room (never
    /// beyond the frame's [`FrameDecoder::win_limit`]), not to what a frame
    /// header says blocks may need.
    pub(super) fn window(&mut self, len: usize) -> Result<()> {
        mem::grow_zeroed_exact(&mut self.win, len)
    }

    /// Decode the next block (or batch), or move past a frame boundary. An
    /// error leaves the decoder at [`Stage::Done`].
    fn step(&mut self) -> Result<()> {
        self.stage = match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::BetweenFrames { pending_magic } => self.next_frame(pending_magic)?,
            Stage::Frame(state) => self.frame_block(state)?,
            Stage::Parallel(frame) => self.parallel_step(frame)?,
            Stage::Legacy => self.legacy_block()?,
            Stage::Done => Stage::Done,
        };
        Ok(())
    }

    /// Between frames: read the next magic number (or take the one a legacy
    /// stream ended at) and what follows it up to the first block.
    fn next_frame(&mut self, pending_magic: Option<(u32, u64)>) -> Result<Stage> {
        let (magic, at) = match pending_magic {
            Some(m) => m,
            None => {
                let at = self.input.pos;
                match self.input.u32_or_eof("magic number")? {
                    Some(m) => (m, at),
                    None => return Ok(Stage::Done),
                }
            }
        };
        match Magic::classify(magic) {
            Some(Magic::Standard) => {
                self.guard.data_frame(at)?;
                let mut desc = [0u8; MAX_DESCRIPTOR_LEN];
                self.input.read_full(&mut desc[..1], "frame header")?;
                let len = Header::descriptor_len(desc[0]);
                debug_assert!(len >= MIN_DESCRIPTOR_LEN);
                self.input.read_full(&mut desc[1..len], "frame header")?;
                let header = Header::parse(&desc[..len], at)?;
                if let (Some(dict_id), true) = (header.dict_id, self.dict.is_empty()) {
                    return Err(Error::DictionaryRequired { dict_id });
                }
                let block_max = header.block_size.bytes();
                let dict_len = self.dict.len();
                self.win_limit = match header.block_mode {
                    // Room for several blocks after the history, so sliding
                    // the history back to the front happens rarely.
                    BlockMode::Linked => {
                        MAX_DISTANCE.max(dict_len) + block_max + block_max.max(1 << 20)
                    }
                    BlockMode::Independent => dict_len + block_max,
                };
                // The window grows to that as blocks need it.
                self.window(dict_len)?;
                self.win[..dict_len].copy_from_slice(&self.dict);
                self.filled = dict_len;
                self.out_pos = dict_len;
                let state = FrameState::with_verification(header, self.verify);
                Ok(match (header.block_mode, self.workers.take()) {
                    (BlockMode::Independent, Some(workers)) => {
                        Stage::Parallel(Box::new(ParallelFrame::new(state, workers)))
                    }
                    (_, workers) => {
                        self.workers = workers;
                        Stage::Frame(state)
                    }
                })
            }
            Some(Magic::Legacy) => {
                self.guard.data_frame(at)?;
                Ok(Stage::Legacy)
            }
            Some(Magic::Skippable) => {
                let mut len = self.input.u32("skippable frame size")? as u64;
                if self.guard.on && len >= 4 {
                    let mut tag = [0u8; 4];
                    self.input.read_full(&mut tag, "skippable frame")?;
                    len -= 4;
                    self.guard.skippable(magic, &tag, at)?;
                }
                let skipped = io::copy(&mut (&mut self.input.inner).take(len), &mut io::sink())?;
                self.input.pos += skipped;
                if skipped < len {
                    return Err(Error::Truncated {
                        at: self.input.pos,
                        what: "skippable frame",
                    });
                }
                Ok(Stage::BetweenFrames {
                    pending_magic: None,
                })
            }
            None => Err(unknown_magic(magic, at)),
        }
    }

    /// Inside a frame decoded here: the next block, or the frame's end.
    fn frame_block(&mut self, mut state: FrameState) -> Result<Stage> {
        let at = self.input.pos;
        let word = self.input.u32("block size")?;
        let header = state.header;
        match state.block_header(word, at)? {
            BlockHeader::End => {
                let sum_at = self.input.pos;
                let checksum = if header.content_checksum {
                    Some(self.input.u32("content checksum")?)
                } else {
                    None
                };
                state.finish(checksum, sum_at)?;
                Ok(Stage::BetweenFrames {
                    pending_magic: None,
                })
            }
            BlockHeader::Data { len, stored } => {
                self.read_block_data(len, "block data")?;
                let checksum = if header.block_checksum {
                    Some(self.input.u32("block checksum")?)
                } else {
                    None
                };
                let block_max = header.block_size.bytes();
                match header.block_mode {
                    BlockMode::Linked => {
                        if self.win_limit - self.filled < block_max {
                            // Slide: keep the last 64 KiB as history.
                            let keep = self.filled.min(MAX_DISTANCE);
                            self.win.copy_within(self.filled - keep..self.filled, 0);
                            self.filled = keep;
                        }
                    }
                    BlockMode::Independent => self.filled = self.dict.len(),
                }
                self.out_pos = self.filled;
                let end = self.filled + block_room(len, stored, block_max);
                self.window(end)?;
                let block = RawBlock {
                    data: &self.cbuf[..self.cbuf_len],
                    stored,
                    checksum,
                    at,
                };
                let buf = &mut self.win[..end];
                let n = state.decode_block(&mut self.decoder, block, buf, self.filled)?;
                self.filled += n;
                Ok(Stage::Frame(state))
            }
        }
    }

    /// Inside a legacy stream: decode the next block; at the end of input,
    /// or at the next frame's magic number, the stream ends.
    fn legacy_block(&mut self) -> Result<Stage> {
        let at = self.input.pos;
        let Some(word) = self.input.u32_or_eof("legacy block size")? else {
            return Ok(Stage::BetweenFrames {
                pending_magic: None,
            });
        };
        if Magic::classify(word).is_some() {
            return Ok(Stage::BetweenFrames {
                pending_magic: Some((word, at)),
            });
        }
        let len = legacy::block_len(word)?;
        self.read_block_data(len, "legacy block")?;
        self.out_pos = 0;
        self.filled = 0;
        let room = legacy::room(len);
        self.window(room)?;
        let n = legacy::decode_block(
            &mut self.decoder,
            &self.cbuf[..self.cbuf_len],
            &mut self.win[..room],
            at,
        )?;
        self.filled = n;
        Ok(Stage::Legacy)
    }

    /// Inside a parallel frame: hand out the next decoded batch (see
    /// [`ParallelFrame::next_batch`]), or what follows the last one: the
    /// frame's end (the workers then come back for the next frame), or an
    /// error.
    fn parallel_step(&mut self, mut frame: Box<ParallelFrame>) -> Result<Stage> {
        match frame.take_batch(&mut self.input, &mut self.win)? {
            Some(filled) => {
                self.out_pos = 0;
                self.filled = filled;
                Ok(Stage::Parallel(frame))
            }
            None => {
                let ParallelFrame { workers, .. } = *frame;
                self.workers = Some(workers);
                Ok(Stage::BetweenFrames {
                    pending_magic: None,
                })
            }
        }
    }
}

impl<R: Read> Read for FrameDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = mem::hand_out(buf, &self.win, &mut self.out_pos, self.filled);
            if n > 0 {
                return Ok(n);
            }
            if matches!(self.stage, Stage::Done) || buf.is_empty() {
                return Ok(0);
            }
            if let Err(e) = self.step() {
                self.filled = self.out_pos;
                return Err(e.into_io());
            }
        }
    }
}
