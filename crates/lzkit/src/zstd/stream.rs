//! [`FrameDecoder`]: streaming decoding through [`std::io::Read`], with a
//! window that grows with the output up to the frame's window size.

use super::decoder::Decoder;
use super::frame::{self, BlockHeader, HEADER_MAX, Header, Start};
use super::frame_state::{FrameState, Hashing};
use crate::error::{Error, Fault, Result, ZstdFault, ZstdFrameFault};
use crate::mem;
use std::io::{self, Read};

/// Bytes kept past a block's room for the wild copies of the sequence loop.
const SLACK: usize = 64;

/// Where the decoder is in the input.
enum Stage {
    /// Between frames: the next thing is a frame (or the end).
    Frames,
    /// Inside a frame, before its next block.
    Blocks(FrameState),
    /// Skipping the rest of a skippable frame.
    Skip(u64),
    /// The input ended (or an error was returned; it is returned again).
    Done,
}

/// A streaming zstd decoder: reads compressed data from `R` and yields
/// the decoded bytes of every frame (skippable frames skipped).
///
/// Memory: the window, as the frame header sets it, up to the decoder's
/// [`super::DecodeOptions::window_log_max`] (128 MiB by default; a frame
/// that needs more is refused before anything is allocated), grown only
/// as output is produced. A dropped decoder's buffer (up to 16 MiB) is
/// kept for the thread's next one, which takes it if its frame may use
/// that much.
///
/// ```
/// use std::io::Read;
/// # let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
/// #     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa, 0x74, 0xce];
/// let mut text = String::new();
/// lzkit::zstd::FrameDecoder::new(&frame[..]).read_to_string(&mut text)?;
/// assert_eq!(text, "hello hello hello\n");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// A `read` that starts a frame whose header states its content size,
/// with nothing pending and a buffer with room for all of it, decodes the
/// frame straight into the buffer (it is then the window) and returns its
/// content size, as libzstd's streaming decoder does when the output
/// holds the whole frame; every other read goes through the window.
pub struct FrameDecoder<R: Read> {
    reader: R,
    decoder: Decoder,
    stage: Stage,
    /// Input read ahead, `input[in_pos..]` not yet used.
    input: Vec<u8>,
    in_pos: usize,
    /// Absolute position of `input[0]` in the stream.
    in_at: u64,
    /// Window and output: `win.buf[emitted..pos]` not yet returned.
    win: FrameWindow,
    frames: u64,
    frame_at: u64,
    /// The frame in [`Stage::Blocks`] has decoded no block yet.
    fresh: bool,
    error: Option<String>,
    /// Filtered streams joined with other frames refused
    /// ([`super::DecodeOptions::filtered_streams`]).
    guard: crate::filter::frame::FrameGuard,
}

impl<R: Read> std::fmt::Debug for FrameDecoder<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameDecoder")
            .field("frames", &self.frames)
            .finish_non_exhaustive()
    }
}

/// The window's buffer. A dropped decoder's buffer is kept for the
/// thread's next one (one buffer a thread, of at most [`SPARE_MAX`]
/// bytes): a buffer allocated afresh for every decoder is, for the sizes
/// windows have, memory the system allocator maps anew each time, every
/// page faulted in again as the output reaches it (a new decoder over a
/// 660 KB frame spent as long in page faults as in decoding).
pub(super) struct Window(Vec<u8>);

/// The largest buffer kept for a thread's next decoder.
const SPARE_MAX: usize = 16 << 20;

thread_local! {
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Window {
    /// Take the thread's spare buffer if it holds at most `most` bytes
    /// (never more than this frame may use). Its old bytes stay, as they
    /// do in a decoder's buffer from one frame to the next: a frame's
    /// output starts at `pos` 0, matches never reach before it, and no
    /// byte at or past `pos` is ever handed out, only overwritten (so the
    /// buffer needs no zeroing again).
    fn adopt_spare(&mut self, most: usize) {
        let _ = SPARE.try_with(|spare| {
            let v = spare.take();
            if v.capacity() <= most {
                self.0 = v;
            } else {
                spare.set(v);
            }
        });
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        let v = std::mem::take(&mut self.0);
        if v.capacity() == 0 || v.capacity() > SPARE_MAX {
            return;
        }
        let _ = SPARE.try_with(|spare| {
            let kept = spare.take();
            spare.set(if v.capacity() >= kept.capacity() {
                v
            } else {
                kept
            });
        });
    }
}

impl std::ops::Deref for Window {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl std::ops::DerefMut for Window {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl<R: Read> FrameDecoder<R> {
    /// A streaming decoder with a new adaptive [`Decoder`].
    pub fn new(reader: R) -> Self {
        FrameDecoder::with_decoder(reader, Decoder::new())
    }

    /// A streaming decoder using `decoder` (its options, dictionaries and
    /// variant choice).
    pub fn with_decoder(reader: R, decoder: Decoder) -> Self {
        let guard = crate::filter::frame::FrameGuard::new(
            decoder.decode_options().checks_filtered_streams(),
        );
        FrameDecoder {
            reader,
            decoder,
            stage: Stage::Frames,
            input: Vec::new(),
            in_pos: 0,
            in_at: 0,
            win: FrameWindow::new(),
            frames: 0,
            frame_at: 0,
            fresh: false,
            error: None,
            guard,
        }
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The reader, mutably (reading from it loses data).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The reader back (input read ahead is lost).
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// The decoder (its statistics, its last variant).
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Make `input[in_pos..]` hold at least `n` bytes; false at the end of
    /// the input with fewer.
    fn fill(&mut self, n: usize) -> io::Result<bool> {
        if self.input.len() - self.in_pos >= n {
            return Ok(true);
        }
        if self.in_pos > 0 {
            self.input.drain(..self.in_pos);
            self.in_at += self.in_pos as u64;
            self.in_pos = 0;
        }
        let mut chunk = [0u8; 1 << 15];
        while self.input.len() < n {
            let want = (n - self.input.len()).max(chunk.len()).min(chunk.len());
            match self.reader.read(&mut chunk[..want]) {
                Ok(0) => return Ok(false),
                Ok(k) => self.input.extend_from_slice(&chunk[..k]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    fn at(&self) -> u64 {
        self.in_at + self.in_pos as u64
    }

    fn truncated(&self, what: &'static str) -> Error {
        Error::Truncated {
            at: self.in_at + self.input.len() as u64,
            what,
        }
    }

    /// Advance by one step (a frame header, a block, a skip); false at the
    /// end of the input.
    fn step(&mut self) -> Result<bool> {
        match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Done => Ok(false),
            Stage::Skip(left) => {
                let have = (self.input.len() - self.in_pos) as u64;
                if have >= left {
                    self.in_pos += left as usize;
                    self.stage = Stage::Frames;
                    return Ok(true);
                }
                self.in_pos = self.input.len();
                if !self.fill(1)? {
                    return Err(self.truncated("skippable frame"));
                }
                self.stage = Stage::Skip(left - have);
                Ok(true)
            }
            Stage::Frames => {
                if !self.fill(1)? {
                    return Ok(false);
                }
                self.frame_at = self.at();
                self.frames += 1;
                self.fill(5)?;
                let len = frame::header_len(&self.input[self.in_pos..]).min(HEADER_MAX);
                self.fill(len)?;
                let avail = &self.input[self.in_pos..self.input.len().min(self.in_pos + len)];
                match frame::parse(avail, self.frame_at)? {
                    Start::Skippable(total) => {
                        if self.guard.on && total >= 12 && self.fill(12)? {
                            let head = &self.input[self.in_pos..self.in_pos + 12];
                            let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
                            self.guard.skippable(magic, &head[8..], self.frame_at)?;
                        }
                        self.in_pos += 8;
                        self.stage = Stage::Skip(total - 8);
                    }
                    Start::Frame(h) => {
                        self.guard.data_frame(self.frame_at)?;
                        self.in_pos += h.len;
                        self.start(h)?;
                    }
                }
                Ok(true)
            }
            Stage::Blocks(state) => self.block(state),
        }
    }

    /// Set up a frame with header `h`.
    fn start(&mut self, h: Header) -> Result<()> {
        let st = open_frame(&mut self.decoder, h, self.frame_at)?;
        self.win.restart();
        self.fresh = true;
        self.stage = Stage::Blocks(st);
        Ok(())
    }

    /// The frame just started and its content size, taken out of the
    /// stage, if its whole output can be decoded straight into a buffer of
    /// `room` bytes (nothing pending: a new frame's output starts empty).
    fn take_direct(&mut self, room: usize) -> Option<(FrameState, usize)> {
        let size = match &self.stage {
            Stage::Blocks(st) if self.fresh && self.win.emitted == self.win.pos => {
                usize::try_from(st.header.content_size?).ok()?
            }
            _ => return None,
        };
        // A frame of no content goes the usual way: `read` must not return
        // 0 before the end of the input.
        if size == 0 || size > room {
            return None;
        }
        match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Blocks(st) => Some((st, size)),
            other => {
                self.stage = other;
                None
            }
        }
    }

    /// Decode the frame just started into `out`, exactly its content size:
    /// the frame's output starts at `out[0]`, matches reach back into
    /// `out`, and no block writes past it. The verdicts are the window's:
    /// the same checks in the same order, and a block that would write
    /// past `out` is decoded again through the window
    /// ([`FrameDecoder::verdict`]) for the error the window gives it.
    fn direct(&mut self, mut st: FrameState, out: &mut [u8]) -> Result<()> {
        self.fresh = false;
        let mut pos = 0usize;
        loop {
            let (bh, block_at) = self.next_block(&st)?;
            // A raw or RLE block larger than the room left makes the frame
            // longer than it states: the window decodes it, for its verdict.
            if bh.kind != 2 && bh.size > out.len() - pos {
                return Err(self.verdict(st, out, pos));
            }
            let from = self.in_pos + 3;
            let data = &self.input[from..from + bh.input_len()];
            match st.decode_block(&mut self.decoder, &bh, data, block_at, out, 0, pos) {
                Ok(end) => pos = end,
                Err(e) if overflowed(&e) => return Err(self.verdict(st, out, pos)),
                Err(e) => return Err(e),
            }
            self.in_pos = from + bh.input_len();
            if bh.last {
                break;
            }
        }
        self.end_frame(&mut st)?;
        Ok(())
    }

    /// The verdict on a frame [`FrameDecoder::direct`] found longer than
    /// its content size (`out`, `pos` of it decoded, the next block's
    /// header not yet used): the window takes the frame over from its last
    /// `window` bytes decoded, as it would hold them, and decodes the rest
    /// without handing any of it out, up to the error it gives (the block's
    /// own, or the content size's at the frame's end).
    ///
    /// The block is decoded again: a compressed block that failed only for
    /// want of room left the entropy state as the block itself sets it
    /// (its own tables; the repeat offsets are kept only on success).
    fn verdict(&mut self, mut st: FrameState, out: &[u8], pos: usize) -> Error {
        let expected = st.header.content_size.unwrap_or(0);
        let window = st.header.window.min(usize::MAX as u64 / 4) as usize;
        let keep = pos.min(window);
        self.win.buf.clear();
        if self.win.buf.try_reserve_exact(keep).is_err() {
            return mem::out_of_memory(keep);
        }
        self.win.buf.extend_from_slice(&out[pos - keep..pos]);
        if keep < pos {
            st.drop_dictionary();
        }
        self.win.base = 0;
        self.win.pos = keep;
        self.win.emitted = keep;
        self.stage = Stage::Blocks(st);
        let e = loop {
            match self.step() {
                Err(e) => break e,
                Ok(true) if matches!(self.stage, Stage::Blocks(_)) => {}
                // Not reached: the frame's blocks make more than it states.
                Ok(_) => {
                    self.stage = Stage::Done;
                    break Error::ContentSize {
                        expected,
                        actual: expected.saturating_add(1),
                    };
                }
            }
        };
        self.win.emitted = self.win.pos;
        e
    }

    /// Record `e`, returned by the frame being decoded, and return it as
    /// an I/O error (reader errors unchanged).
    fn fail(&mut self, e: Error) -> io::Error {
        if let Error::Io(e) = e {
            return e;
        }
        let e = Error::Frame {
            index: self.frames.saturating_sub(1),
            at: self.frame_at,
            source: Box::new(e),
        };
        self.error = Some(e.to_string());
        e.into_io()
    }

    /// The checks at a frame's end: its content size, then its checksum
    /// (read from the input); the next frame may start after them.
    fn end_frame(&mut self, st: &mut FrameState) -> Result<()> {
        st.check_size()?;
        if st.header.checksum {
            let at = self.at();
            if !self.fill(4)? {
                return Err(self.truncated("content checksum"));
            }
            let c = &self.input[self.in_pos..self.in_pos + 4];
            let stored = [c[0], c[1], c[2], c[3]];
            self.in_pos += 4;
            st.check_checksum(stored, at, || Ok(&[]))?;
        }
        self.stage = Stage::Frames;
        Ok(())
    }

    /// The next block's header and its position in the stream, with the
    /// header and the block's input in the input buffer (at `in_pos`, not
    /// consumed).
    fn next_block(&mut self, st: &FrameState) -> Result<(BlockHeader, u64)> {
        let block_at = self.at();
        if !self.fill(3)? {
            return Err(self.truncated("block header"));
        }
        let bh = st.block_header(&self.input[self.in_pos..self.in_pos + 3], block_at)?;
        if !self.fill(3 + bh.input_len())? {
            return Err(self.truncated("block"));
        }
        Ok((bh, block_at))
    }

    /// Decode the next block of the frame (or finish it).
    fn block(&mut self, mut st: FrameState) -> Result<bool> {
        self.fresh = false;
        let block_max = st.block_max();
        let (bh, block_at) = self.next_block(&st)?;
        self.in_pos += 3;
        let data = &self.input[self.in_pos..self.in_pos + bh.input_len()];
        self.win
            .decode(&mut st, &mut self.decoder, &bh, data, block_at, block_max)?;
        self.in_pos += bh.input_len();
        if !bh.last {
            self.stage = Stage::Blocks(st);
            return Ok(true);
        }
        self.end_frame(&mut st)?;
        Ok(true)
    }
}

/// A frame's output as it is decoded: the window its matches reach into,
/// the frame's output starting at `buf[base]` (0 once the window slid),
/// `buf[emitted..pos]` decoded and not yet handed out. Shared by the pull
/// [`FrameDecoder`] and the [`super::PushDecoder`].
pub(super) struct FrameWindow {
    pub(super) buf: Window,
    pub(super) base: usize,
    pub(super) pos: usize,
    pub(super) emitted: usize,
}

impl FrameWindow {
    pub(super) fn new() -> Self {
        FrameWindow {
            buf: Window(Vec::new()),
            base: 0,
            pos: 0,
            emitted: 0,
        }
    }

    /// Start a new frame: its matches never reach the previous frame's
    /// output; the buffer is reused as it is (its bytes past `pos` are
    /// never handed out, only overwritten).
    pub(super) fn restart(&mut self) {
        self.base = 0;
        self.pos = 0;
        self.emitted = 0;
    }

    /// The output decoded and not yet handed out.
    pub(super) fn pending(&self) -> &[u8] {
        &self.buf[self.emitted..self.pos]
    }

    /// Decode the block with header `bh` and input `data` (read at stream
    /// position `block_at`) of frame `st` (blocks of at most `block_max`
    /// bytes) into the window, after its pending output.
    pub(super) fn decode(
        &mut self,
        st: &mut FrameState,
        decoder: &mut Decoder,
        bh: &BlockHeader,
        data: &[u8],
        block_at: u64,
        block_max: usize,
    ) -> Result<()> {
        self.make_room(st, block_max)?;
        self.pos = st.decode_block(
            decoder,
            bh,
            data,
            block_at,
            &mut self.buf,
            self.base,
            self.pos,
        )?;
        Ok(())
    }

    /// Make `buf[pos..]` hold a block of `block_max` bytes and the slack,
    /// sliding the window (keeping its last `window` bytes) when it would
    /// grow past twice the window. The buffer grows with the output,
    /// doubling as a vector does, but never past that largest size (twice
    /// the window and a block and the slack): a vector's own doubling asks
    /// for up to twice as much, never used, and an allocation that large
    /// is one the system allocator maps afresh for every new decoder
    /// (glibc's above 32 MiB: an 8 MiB window's), every page of it faulted
    /// in again as the output reaches it.
    fn make_room(&mut self, st: &mut FrameState, block_max: usize) -> Result<()> {
        let window = st.header.window.min(usize::MAX as u64 / 4) as usize;
        let need = self.pos + block_max + SLACK;
        let cap = 2 * window.max(block_max) + block_max + SLACK;
        if need > cap && self.pos > window {
            let keep = window;
            let from = self.pos - keep;
            self.buf.copy_within(from..self.pos, 0);
            if self.base > from {
                self.base -= from;
            } else {
                self.base = 0;
                st.drop_dictionary();
            }
            self.pos = keep;
            self.emitted = keep;
        }
        let need = self.pos + block_max + SLACK;
        if self.buf.capacity() == 0 {
            self.buf.adopt_spare(cap.max(need));
        }
        if need > self.buf.len() {
            let target = self
                .buf
                .capacity()
                .saturating_mul(2)
                .clamp(need, cap.max(need));
            if target > self.buf.capacity() {
                let len = self.buf.len();
                self.buf
                    .try_reserve_exact(target - len)
                    .map_err(|_| mem::out_of_memory(need))?;
            }
            self.buf.resize(need, 0);
        }
        Ok(())
    }
}

/// Start the frame with header `h` (its first byte at stream position
/// `frame_at`): refused if its window passes the decoder's limit, before
/// anything is allocated for it.
pub(super) fn open_frame(decoder: &mut Decoder, h: Header, frame_at: u64) -> Result<FrameState> {
    let limit = decoder.decode_options().window_limit();
    if h.window > limit {
        return Err(Error::CorruptFrame {
            at: frame_at + 5,
            fault: ZstdFrameFault::WindowTooLarge {
                window: h.window,
                limit,
            }
            .into(),
        });
    }
    FrameState::start(decoder, h, Hashing::PerBlock)
}

impl<R: Read> Read for FrameDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let n = mem::hand_out(buf, &self.win.buf, &mut self.win.emitted, self.win.pos);
            if n > 0 {
                return Ok(n);
            }
            if let Some(e) = &self.error {
                return Err(io::Error::new(io::ErrorKind::InvalidData, e.clone()));
            }
            if let Some((st, size)) = self.take_direct(buf.len()) {
                return match self.direct(st, &mut buf[..size]) {
                    Ok(()) => Ok(size),
                    Err(e) => Err(self.fail(e)),
                };
            }
            match self.step() {
                Ok(true) => {}
                Ok(false) => return Ok(0),
                Err(e) => return Err(self.fail(e)),
            }
        }
    }
}

/// Whether `e` is a block's output passing the end of its buffer (which
/// the window, with room for a whole block, never reports).
fn overflowed(e: &Error) -> bool {
    match e {
        Error::Block { source, .. } => matches!(
            **source,
            Error::CorruptBlock {
                fault: Fault::Zstd(ZstdFault::OutputTooSmall { .. }),
                ..
            }
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data` compressed by libzstd at `level` with window log `log`.
    fn frame(data: &[u8], level: i32, log: u32) -> Vec<u8> {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), level).unwrap();
        enc.window_log(log).unwrap();
        std::io::Write::write_all(&mut enc, data).unwrap();
        enc.finish().unwrap()
    }

    /// Data with copies from a window back, and random bytes between.
    fn data(len: usize, window: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if v.len() > window && !x.is_multiple_of(3) {
                let from = v.len() - window + (x >> 40) as usize % 16;
                for i in 0..(x >> 20) as usize % 200 {
                    let b = v[from + i];
                    v.push(b);
                }
            } else {
                v.push(x as u8);
            }
        }
        v.truncate(len);
        v
    }

    /// The window buffer never grows past two windows and a block (the
    /// doubling of a growing vector stops there), however much is decoded
    /// and whatever the reads.
    #[test]
    fn buffer_stays_within_two_windows_and_a_block() {
        for (log, len) in [(10u32, 200_000), (17, 1_500_000), (20, 3_000_000)] {
            let window = 1usize << log;
            let original = data(len, window);
            let f = frame(&original, 3, log);
            let block_max = window.min(128 << 10);
            let most = 2 * window + block_max + SLACK;
            for k in [1usize, 4096, 1 << 20] {
                let mut d = FrameDecoder::new(&f[..]);
                let mut out = Vec::new();
                let mut buf = vec![0u8; k];
                loop {
                    let n = d.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    out.extend_from_slice(&buf[..n]);
                    assert!(
                        d.win.buf.capacity() <= most,
                        "window 2^{log}: {} bytes held, at most {most}",
                        d.win.buf.capacity()
                    );
                }
                assert!(out == original, "window 2^{log}, {k}-byte reads");
            }
        }
    }

    /// Everything `d` gives, read 4 KiB at a time (never the direct path),
    /// and how it ended.
    fn read_all<R: Read>(d: &mut FrameDecoder<R>) -> (Vec<u8>, io::Result<()>) {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match d.read(&mut buf) {
                Ok(0) => return (out, Ok(())),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Err(e)),
            }
        }
    }

    /// A dropped decoder's buffer serves the thread's next decoder, whose
    /// output never shows its old bytes, and never one that may use less.
    #[test]
    fn a_dropped_decoders_buffer_serves_the_next_one() {
        let a = data(600_000, 1 << 17);
        let fa = frame(&a, 3, 20);
        let b = data(300_000, 1 << 10);
        let fb = frame(&b, 3, 20);
        let held = {
            let mut d = FrameDecoder::new(&fa[..]);
            let (out, end) = read_all(&mut d);
            assert!(end.is_ok() && out == a);
            d.win.buf.capacity()
        };
        let mut d = FrameDecoder::new(&fb[..]);
        let (out, end) = read_all(&mut d);
        assert!(end.is_ok() && out == b);
        assert_eq!(d.win.buf.capacity(), held, "the spare was not adopted");
        drop(d);
        // Cut short: what comes out is a prefix of the frame's content.
        let mut d = FrameDecoder::new(&fb[..fb.len() / 2]);
        let (out, end) = read_all(&mut d);
        assert!(end.is_err() && b.starts_with(&out) && out.len() < b.len());
        drop(d);
        // A frame of a 1 KiB window does not take the larger buffer.
        let c = data(5000, 1000);
        let fc = frame(&c, 3, 10);
        let mut d = FrameDecoder::new(&fc[..]);
        let (out, end) = read_all(&mut d);
        assert!(end.is_ok() && out == c);
        assert!(d.win.buf.capacity() <= 2 * 1024 + 1024 + SLACK);
        assert!(d.win.buf.capacity() < held);
    }

    /// A frame whose header claims a large window but holds little gets a
    /// buffer for what it holds (on a thread with no spare buffer).
    #[test]
    fn buffer_grows_with_the_output_not_the_claim() {
        let original = data(5000, 1000);
        let f = frame(&original, 3, 27);
        let mut d = FrameDecoder::new(&f[..]);
        let mut out = Vec::new();
        d.read_to_end(&mut out).unwrap();
        assert!(out == original);
        assert!(
            d.win.buf.capacity() < 1 << 20,
            "{} bytes held",
            d.win.buf.capacity()
        );
    }
}
