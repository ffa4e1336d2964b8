//! [`PushDecoder`]: streaming decoding where the caller pushes the input,
//! in pieces of any size, and takes the output as the blocks complete
//! (what a `decompressobj` or a writer needs, where [`super::FrameDecoder`]
//! pulls its input through `Read`).
//!
//! The frame walk, the window and the blocks are the pull decoder's
//! ([`super::stream::FrameWindow`], [`FrameState`]): a block header states
//! the block's input length (at most 128 KiB), so only a unit the input
//! cut short (a frame header, a block, a checksum) is held over between
//! pushes; a unit whole in the caller's piece is decoded straight from it.

use super::decoder::Decoder;
use super::frame::{self, HEADER_MAX, Start};
use super::frame_state::FrameState;
use super::is_skippable_magic;
use super::stream::{FrameWindow, open_frame};
use crate::error::{Error, Result};
use crate::filter::frame::FrameGuard;
use crate::mem;

/// Where the decoder is in the stream.
enum Stage {
    /// Before a frame, or inside its header (its first bytes held).
    Frames,
    /// Inside a frame, before its next block.
    Blocks(FrameState),
    /// After a frame's last block: its content checksum.
    Checksum(FrameState),
    /// Inside a skippable frame: the bytes left to skip.
    Skip(u64),
    /// An error was returned; it is returned again.
    Failed,
}

/// What one [`PushDecoder::push`] did with its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pushed {
    /// Bytes of the input used: all of it, or up to the end of a frame.
    pub consumed: usize,
    /// A frame (zstd or skippable) ended at `consumed`: the push stopped
    /// there, with the frame's whole output handed back.
    pub frame_ended: bool,
}

/// A streaming zstd decoder fed by the caller: [`push`](Self::push) any
/// piece of the compressed stream (one byte to many megabytes) and get
/// back every block the input so far completes; [`finish`](Self::finish)
/// says the input has ended (an error if it ended inside a frame).
///
/// It decodes what [`super::FrameDecoder`] decodes, with the same
/// verdicts: zstd frames one after another, skippable frames skipped,
/// dictionaries, content checksums verified, the window limit of
/// [`super::DecodeOptions::window_log_max`] and the filtered-stream check
/// of [`super::DecodeOptions::filtered_streams`]. Memory: the window, grown
/// with the output as the pull decoder's is (a header's claim allocates
/// nothing), and at most one block (128 KiB and 3 bytes) held over
/// between pushes.
///
/// A push stops at the end of each frame ([`Pushed::frame_ended`]), so a
/// caller can tell frames apart (and leave what follows one unread); to
/// decode a stream of frames, push the rest again.
///
/// ```
/// use lzkit::zstd::PushDecoder;
/// # let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
/// #     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa, 0x74, 0xce];
/// let mut d = PushDecoder::new();
/// let mut out = Vec::new();
/// for piece in frame.chunks(5) {
///     let mut piece = piece;
///     while !piece.is_empty() {
///         let pushed = d.push(piece, &mut out)?;
///         piece = &piece[pushed.consumed..];
///     }
/// }
/// d.finish()?;
/// assert_eq!(out, b"hello hello hello\n");
///
/// // Cut short: an error only once the input is said to have ended.
/// let mut d = PushDecoder::new();
/// d.push(&frame[..20], &mut Vec::new())?;
/// assert!(d.in_frame());
/// let err = d.finish().unwrap_err();
/// assert!(err.to_string().contains("unexpected end of input"), "{err}");
/// # Ok::<(), lzkit::Error>(())
/// ```
pub struct PushDecoder {
    decoder: Decoder,
    stage: Stage,
    /// The start of a unit (frame header, block header and block, content
    /// checksum) the input so far holds only part of.
    held: Vec<u8>,
    win: FrameWindow,
    /// Stream position of the first byte of the current push.
    in_at: u64,
    frames: u64,
    frame_at: u64,
    error: Option<String>,
    guard: FrameGuard,
}

impl std::fmt::Debug for PushDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushDecoder")
            .field("frames", &self.frames)
            .field("in_frame", &self.in_frame())
            .finish_non_exhaustive()
    }
}

impl Default for PushDecoder {
    fn default() -> Self {
        PushDecoder::new()
    }
}

/// Where a unit's bytes are.
enum Unit {
    /// In the input, from this index.
    Input(usize),
    /// In the held bytes.
    Held,
    /// Not all there yet: the input's rest was added to the held bytes.
    Short,
}

/// Take the unit of `n` bytes that starts with the held bytes: straight
/// from `input[*i..]` if none are held and the input has it whole, else
/// the held bytes topped up from the input.
fn gather(held: &mut Vec<u8>, input: &[u8], i: &mut usize, n: usize) -> Result<Unit> {
    let rest = input.len() - *i;
    if held.is_empty() && rest >= n {
        let from = *i;
        *i += n;
        return Ok(Unit::Input(from));
    }
    let take = n.saturating_sub(held.len()).min(rest);
    held.try_reserve(take)
        .map_err(|_| mem::out_of_memory(held.len() + take))?;
    held.extend_from_slice(&input[*i..*i + take]);
    *i += take;
    Ok(if held.len() >= n {
        Unit::Held
    } else {
        Unit::Short
    })
}

/// The first (up to) `N` bytes of the held bytes followed by the input's
/// rest, and how many there are.
fn peek<const N: usize>(held: &[u8], input: &[u8]) -> ([u8; N], usize) {
    let mut b = [0u8; N];
    let h = held.len().min(N);
    b[..h].copy_from_slice(&held[..h]);
    let k = (N - h).min(input.len());
    b[h..h + k].copy_from_slice(&input[..k]);
    (b, h + k)
}

impl PushDecoder {
    /// A push decoder with a new adaptive [`Decoder`].
    pub fn new() -> Self {
        PushDecoder::with_decoder(Decoder::new())
    }

    /// A push decoder using `decoder` (its options, dictionaries and
    /// variant choice).
    pub fn with_decoder(decoder: Decoder) -> Self {
        let guard = FrameGuard::new(decoder.decode_options().checks_filtered_streams());
        PushDecoder {
            decoder,
            stage: Stage::Frames,
            held: Vec::new(),
            win: FrameWindow::new(),
            in_at: 0,
            frames: 0,
            frame_at: 0,
            error: None,
            guard,
        }
    }

    /// The decoder (its statistics, its last variant).
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Frames started so far (skippable frames included).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Bytes of input used so far.
    pub fn total_in(&self) -> u64 {
        self.in_at
    }

    /// Whether the input so far ends inside a frame (or a frame header):
    /// [`finish`](Self::finish) would report it truncated.
    pub fn in_frame(&self) -> bool {
        !matches!(self.stage, Stage::Frames) || !self.held.is_empty()
    }

    /// Decode `input`, the next bytes of the stream, appending to `out`
    /// the content of every block it completes. Uses all of `input`, or
    /// stops just after the end of a frame (see [`Pushed`]).
    ///
    /// # Errors
    /// What the pull decoder reports for the same stream (a malformed
    /// frame, a wrong checksum, a window over the limit, a missing
    /// dictionary...), wrapped in [`Error::Frame`] with the frame's index
    /// and position. After an error the decoder is done: later calls
    /// return it again, as an I/O error of kind `InvalidData` carrying its
    /// message. `out` keeps what the blocks before the error produced.
    pub fn push(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<Pushed> {
        self.push_each(input, |block| {
            out.try_reserve(block.len())
                .map_err(|_| mem::out_of_memory(out.len().saturating_add(block.len())))?;
            out.extend_from_slice(block);
            Ok(())
        })
    }

    /// As [`push`](Self::push), handing each block's content to `emit`
    /// straight from the window (no copy); an error from `emit` ends the
    /// push and the decoder, as a decoding error does.
    ///
    /// ```
    /// # let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
    /// #     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa, 0x74, 0xce];
    /// let mut d = lzkit::zstd::PushDecoder::new();
    /// let mut total = 0;
    /// let pushed = d.push_each(&frame, |block| {
    ///     total += block.len();
    ///     Ok(())
    /// })?;
    /// assert!(pushed.frame_ended && pushed.consumed == frame.len());
    /// assert_eq!(total, 18);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn push_each(
        &mut self,
        input: &[u8],
        mut emit: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<Pushed> {
        if let Some(msg) = &self.error {
            return Err(failed_before(msg));
        }
        let mut i = 0;
        let r = self.run(input, &mut i, &mut emit);
        self.in_at += i as u64;
        match r {
            Ok(frame_ended) => Ok(Pushed {
                consumed: i,
                frame_ended,
            }),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Say the input has ended: an error if it ended inside a frame (or
    /// if an error was returned before). The decoder may then go on with
    /// a new stream's frames.
    ///
    /// # Errors
    /// [`Error::Truncated`] (in [`Error::Frame`]) saying what was cut
    /// short; a frame header cut short reports what its bytes so far are
    /// wrong about, if anything (not zstd data, a reserved bit).
    pub fn finish(&mut self) -> Result<()> {
        if let Some(msg) = &self.error {
            return Err(failed_before(msg));
        }
        let what = match &self.stage {
            Stage::Frames if self.held.is_empty() => return Ok(()),
            Stage::Frames => match frame::parse(&self.held, self.frame_at) {
                Err(e) => return Err(self.fail(e)),
                Ok(_) => "frame header",
            },
            Stage::Blocks(_) if self.held.len() < 3 => "block header",
            Stage::Blocks(_) => "block",
            Stage::Checksum(_) => "content checksum",
            Stage::Skip(_) => "skippable frame",
            Stage::Failed => "frame",
        };
        let e = Error::Truncated {
            at: self.in_at,
            what,
        };
        Err(self.fail(e))
    }

    /// Record `e`, met in the current frame, and return it in its frame.
    fn fail(&mut self, e: Error) -> Error {
        let e = Error::Frame {
            index: self.frames.saturating_sub(1),
            at: self.frame_at,
            source: Box::new(e),
        };
        self.error = Some(e.to_string());
        self.stage = Stage::Failed;
        e
    }

    /// Decode `input[*i..]` up to its end or a frame's end (true).
    fn run(
        &mut self,
        input: &[u8],
        i: &mut usize,
        emit: &mut impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<bool> {
        loop {
            // An error leaves the stage Failed.
            match std::mem::replace(&mut self.stage, Stage::Failed) {
                Stage::Failed => return Ok(false),
                Stage::Frames => {
                    if *i == input.len() {
                        self.stage = Stage::Frames;
                        return Ok(false);
                    }
                    if self.held.is_empty() {
                        self.frame_at = self.in_at + *i as u64;
                        self.frames += 1;
                    }
                    if !self.header(input, i)? {
                        self.stage = Stage::Frames;
                        return Ok(false);
                    }
                }
                Stage::Skip(left) => {
                    let take = left.min((input.len() - *i) as u64);
                    *i += take as usize;
                    if take == left {
                        self.stage = Stage::Frames;
                        return Ok(true);
                    }
                    self.stage = Stage::Skip(left - take);
                    return Ok(false);
                }
                Stage::Blocks(st) => match self.block(st, input, i, emit)? {
                    Step::On => {}
                    Step::FrameEnd => return Ok(true),
                    Step::Short => return Ok(false),
                },
                Stage::Checksum(st) => {
                    let at = self.in_at + *i as u64 - self.held.len() as u64;
                    let stored = match gather(&mut self.held, input, i, 4)? {
                        Unit::Short => {
                            self.stage = Stage::Checksum(st);
                            return Ok(false);
                        }
                        Unit::Input(from) => &input[from..from + 4],
                        Unit::Held => &self.held[..4],
                    };
                    st.check_checksum(
                        [stored[0], stored[1], stored[2], stored[3]],
                        at,
                        || Ok(&[]),
                    )?;
                    self.held.clear();
                    self.stage = Stage::Frames;
                    return Ok(true);
                }
            }
        }
    }

    /// Read a frame header (a skippable frame's) from the held bytes and
    /// `input[*i..]`, and set the stage after it; false if the input ends
    /// first (its rest held).
    fn header(&mut self, input: &[u8], i: &mut usize) -> Result<bool> {
        let (head, have) = peek::<HEADER_MAX>(&self.held, &input[*i..]);
        let mut len = frame::header_len(&head[..have]).min(HEADER_MAX);
        let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        // The filtered-stream check reads a skippable frame's first 4
        // bytes of content, where it has them.
        let skippable_total = (have >= 8 && is_skippable_magic(magic))
            .then(|| 8 + u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as u64);
        if self.guard.on && skippable_total.is_some_and(|t| t >= 12) {
            len = 12;
        }
        if have < len {
            // What the bytes so far are wrong about (not zstd data, a
            // reserved bit) is said now; a header only cut short waits.
            if have >= 4 {
                match frame::parse(&head[..have], self.frame_at) {
                    Err(Error::Truncated { .. }) | Ok(_) => {}
                    Err(e) => return Err(e),
                }
            }
            gather(&mut self.held, input, i, len)?;
            return Ok(false);
        }
        gather(&mut self.held, input, i, len)?;
        self.held.clear();
        match frame::parse(&head[..len], self.frame_at)? {
            Start::Skippable(total) => {
                if len == 12 {
                    self.guard.skippable(magic, &head[8..12], self.frame_at)?;
                }
                self.stage = Stage::Skip(total - len as u64);
            }
            Start::Frame(h) => {
                self.guard.data_frame(self.frame_at)?;
                let st = open_frame(&mut self.decoder, h, self.frame_at)?;
                self.win.restart();
                self.stage = Stage::Blocks(st);
            }
        }
        Ok(true)
    }

    /// Decode the next block of frame `st` from the held bytes and
    /// `input[*i..]`, and set the stage after it (the input's rest held if
    /// it ends first).
    fn block(
        &mut self,
        mut st: FrameState,
        input: &[u8],
        i: &mut usize,
        emit: &mut impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<Step> {
        let block_at = self.in_at + *i as u64 - self.held.len() as u64;
        let (hb, have) = peek::<3>(&self.held, &input[*i..]);
        if have < 3 {
            gather(&mut self.held, input, i, 3)?;
            self.stage = Stage::Blocks(st);
            return Ok(Step::Short);
        }
        let bh = st.block_header(&hb, block_at)?;
        let n = 3 + bh.input_len();
        let data = match gather(&mut self.held, input, i, n)? {
            Unit::Short => {
                self.stage = Stage::Blocks(st);
                return Ok(Step::Short);
            }
            Unit::Input(from) => &input[from + 3..from + n],
            Unit::Held => &self.held[3..n],
        };
        let block_max = st.block_max();
        self.win
            .decode(&mut st, &mut self.decoder, &bh, data, block_at, block_max)?;
        self.held.clear();
        let out = self.win.pending();
        if !out.is_empty() {
            emit(out)?;
        }
        self.win.emitted = self.win.pos;
        if !bh.last {
            self.stage = Stage::Blocks(st);
            return Ok(Step::On);
        }
        st.check_size()?;
        if st.header.checksum {
            self.stage = Stage::Checksum(st);
            return Ok(Step::On);
        }
        self.stage = Stage::Frames;
        Ok(Step::FrameEnd)
    }
}

/// How far a block went.
enum Step {
    /// Decoded; the frame goes on (or its checksum follows).
    On,
    /// Decoded, the frame's last: the frame ended.
    FrameEnd,
    /// The input ended first.
    Short,
}

/// The error a failed decoder returns again.
fn failed_before(msg: &str) -> Error {
    Error::Io(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        msg.to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zstd::DecodeOptions;

    /// A frame header claiming a 1 GiB window over a few bytes: the window
    /// buffer grows with the output, not the claim, and the held bytes
    /// never pass one block.
    #[test]
    fn a_claimed_window_is_not_allocated() {
        // Window descriptor of log 30; one raw block of 5 bytes, the last.
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, (30 - 10) << 3];
        f.extend([(5 << 3 | 1) as u8, 0, 0]);
        f.extend(b"hello");
        let opts = DecodeOptions::new().window_log_max(30);
        let mut d = PushDecoder::with_decoder(Decoder::with_options(opts));
        let mut out = Vec::new();
        for b in &f {
            d.push(std::slice::from_ref(b), &mut out).unwrap();
            assert!(d.held.capacity() <= 64, "{} bytes held", d.held.capacity());
        }
        d.finish().unwrap();
        assert_eq!(out, b"hello");
        assert!(
            d.win.buf.capacity() < 1 << 20,
            "{} bytes of window for 5 bytes of output",
            d.win.buf.capacity()
        );
    }
}
