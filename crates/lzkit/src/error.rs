//! The one error type of lzkit.
//!
//! Every failure is a variant that says what was wrong and where, so that a
//! user (or the CLI) can print one line that explains it. Faults come in
//! one shape per layer, for every codec alike: a corrupt frame (its header,
//! or how its blocks are framed) is [`Error::CorruptFrame`] with a
//! [`FrameFault`] ([`Lz4FrameFault`], [`ZstdFrameFault`]); a corrupt block
//! is [`Error::CorruptBlock`] with a [`Fault`] ([`Lz4Fault`],
//! [`ZstdFault`]). Each codec's faults say what its format forbids and name
//! the format in the message. The checks of a frame's blocks and content
//! that are not one codec's own (block and content checksums, a block's
//! size against the frame's maximum, the content size, truncation,
//! dictionaries) are codec-neutral variants, wrapped by [`Error::Block`]
//! and [`Error::Frame`] to say where.

use std::fmt;

pub use crate::format::Codec;

/// Why a compressed block was rejected, by codec. Carried by
/// [`Error::CorruptBlock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// An LZ4 block broke the LZ4 block format.
    Lz4(Lz4Fault),
    /// A zstd frame or block broke RFC 8878.
    Zstd(ZstdFault),
}

impl Fault {
    /// The codec whose block this is.
    pub const fn codec(&self) -> Codec {
        match self {
            Fault::Lz4(_) => Codec::Lz4,
            Fault::Zstd(_) => Codec::Zstd,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Lz4(fault) => fault.fmt(f),
            Fault::Zstd(fault) => fault.fmt(f),
        }
    }
}

impl From<Lz4Fault> for Fault {
    fn from(fault: Lz4Fault) -> Self {
        Fault::Lz4(fault)
    }
}

impl From<ZstdFault> for Fault {
    fn from(fault: ZstdFault) -> Self {
        Fault::Zstd(fault)
    }
}

/// Why a zstd block was rejected (a [`Fault::Zstd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZstdFault {
    /// A structure of the block is malformed; the text says which.
    Malformed(&'static str),
    /// A match offset pointing before the start of the data (and of any
    /// dictionary).
    OffsetBeforeStart {
        /// The offset decoded.
        offset: usize,
        /// How many bytes of history (output so far plus dictionary) were available.
        available: usize,
    },
    /// A match offset beyond the frame's window (RFC 8878: a match
    /// reaches at most Window_Size back, and the dictionary only while the
    /// frame's output is no longer than the window). Every lzkit decoder
    /// rejects it; libzstd's one-shot decoder accepts some (see the zstd
    /// module's notes on deliberate differences).
    OffsetBeyondWindow {
        /// The offset decoded.
        offset: usize,
        /// The frame's window size.
        window: usize,
    },
    /// The decoded data does not fit in the output buffer.
    OutputTooSmall {
        /// Capacity of the output buffer.
        capacity: usize,
    },
}

impl fmt::Display for ZstdFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZstdFault::Malformed(what) => f.write_str(what),
            ZstdFault::OffsetBeforeStart { offset, available } => write!(
                f,
                "match offset {offset} points before the start of the data ({available} bytes available)"
            ),
            ZstdFault::OffsetBeyondWindow { offset, window } => write!(
                f,
                "match offset {offset} reaches beyond the frame's window of {window} bytes"
            ),
            ZstdFault::OutputTooSmall { capacity } => {
                write!(f, "decoded data does not fit in {capacity} bytes")
            }
        }
    }
}

/// Why a compressed frame was rejected, by codec: its header, or how its
/// blocks are framed. Carried by [`Error::CorruptFrame`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameFault {
    /// An LZ4 frame broke the LZ4 frame format.
    Lz4(Lz4FrameFault),
    /// A zstd frame broke RFC 8878.
    Zstd(ZstdFrameFault),
}

impl FrameFault {
    /// The codec whose frame this is.
    pub const fn codec(&self) -> Codec {
        match self {
            FrameFault::Lz4(_) => Codec::Lz4,
            FrameFault::Zstd(_) => Codec::Zstd,
        }
    }

    /// The whole message of a frame that failed at byte `at` (each codec
    /// words its own, as its command does).
    fn message(&self, at: u64) -> String {
        match self {
            FrameFault::Lz4(Lz4FrameFault::UnknownMagic { magic }) => {
                format!("not LZ4 data: unknown magic number {magic:#010x} at byte {at}")
            }
            FrameFault::Lz4(Lz4FrameFault::BadHeader { reason }) => {
                format!("corrupt LZ4 frame header at byte {at}: {reason}")
            }
            FrameFault::Lz4(Lz4FrameFault::HeaderChecksum { stored, computed }) => format!(
                "LZ4 frame header checksum mismatch at byte {at}: stored {stored:#04x}, computed {computed:#04x}"
            ),
            FrameFault::Zstd(fault) => format!("corrupt zstd frame at byte {at}: {fault}"),
        }
    }
}

impl fmt::Display for FrameFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameFault::Lz4(fault) => fault.fmt(f),
            FrameFault::Zstd(fault) => fault.fmt(f),
        }
    }
}

impl From<Lz4FrameFault> for FrameFault {
    fn from(fault: Lz4FrameFault) -> Self {
        FrameFault::Lz4(fault)
    }
}

impl From<ZstdFrameFault> for FrameFault {
    fn from(fault: ZstdFrameFault) -> Self {
        FrameFault::Zstd(fault)
    }
}

/// Why an LZ4 frame was rejected (a [`FrameFault::Lz4`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lz4FrameFault {
    /// The data does not start with a known LZ4 magic number.
    UnknownMagic {
        /// The four bytes read, little-endian.
        magic: u32,
    },
    /// The frame header is malformed (reserved bits, version, block size).
    BadHeader {
        /// What was wrong.
        reason: &'static str,
    },
    /// The frame header checksum byte does not match.
    HeaderChecksum {
        /// Stored checksum byte.
        stored: u8,
        /// Computed checksum byte.
        computed: u8,
    },
}

impl fmt::Display for Lz4FrameFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lz4FrameFault::UnknownMagic { magic } => {
                write!(f, "not LZ4 data: unknown magic number {magic:#010x}")
            }
            Lz4FrameFault::BadHeader { reason } => write!(f, "corrupt frame header: {reason}"),
            Lz4FrameFault::HeaderChecksum { stored, computed } => write!(
                f,
                "frame header checksum mismatch: stored {stored:#04x}, computed {computed:#04x}"
            ),
        }
    }
}

/// Why a zstd frame was rejected (a [`FrameFault::Zstd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZstdFrameFault {
    /// The data does not start with the zstd magic number (nor a skippable
    /// frame's).
    NotZstd {
        /// The four bytes read, little-endian.
        magic: u32,
    },
    /// A structure of the frame (its header, a block header, a
    /// dictionary) is malformed; the text says which.
    Malformed(&'static str),
    /// The frame's window is larger than the decoder's memory limit.
    WindowTooLarge {
        /// The window size the frame header asks for.
        window: u64,
        /// The limit (`window_log_max`, CLI `--memory`).
        limit: u64,
    },
}

impl fmt::Display for ZstdFrameFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZstdFrameFault::NotZstd { magic } => {
                write!(f, "not zstd data: unknown magic number {magic:#010x}")
            }
            ZstdFrameFault::Malformed(what) => f.write_str(what),
            ZstdFrameFault::WindowTooLarge { window, limit } => write!(
                f,
                "window of {window} bytes exceeds the memory limit of {limit} bytes (raise it: CLI --memory, API window_log_max)"
            ),
        }
    }
}

/// Why an LZ4 block was rejected (a [`Fault::Lz4`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lz4Fault {
    /// The input ended in the middle of a sequence (token, length, literals or offset).
    Truncated,
    /// A match offset of 0, which the format forbids (LZ4 block format: "offset 0 is invalid").
    ///
    /// The reference decoder (`LZ4_decompress_safe` of lz4 1.10, and so
    /// `lz4 -d`) does not check for it and copies the match from the
    /// position being written: a block with offset 0 is the one kind of
    /// block it accepts that lzkit rejects.
    OffsetZero,
    /// A match offset pointing before the start of the output (and of any dictionary).
    OffsetBeforeStart {
        /// The offset read from the block.
        offset: usize,
        /// How many bytes of history (output so far plus dictionary) were available.
        available: usize,
    },
    /// A literal or match length, read from its 255-run bytes, larger than
    /// half the address space: only possible on 32-bit targets, where 17
    /// MiB of 255s add up to more than 4 GiB (the reference decoder rejects
    /// the same lengths).
    LengthOverflow,
    /// The decoded data does not fit in the output buffer.
    OutputTooSmall {
        /// Capacity of the output buffer.
        capacity: usize,
    },
    /// The block breaks an end-of-block rule (for example: a block that
    /// decodes to nothing must be the single byte 0).
    BadEnd,
}

impl fmt::Display for Lz4Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lz4Fault::Truncated => f.write_str("input ends in the middle of a sequence"),
            Lz4Fault::OffsetZero => f.write_str("match offset 0"),
            Lz4Fault::OffsetBeforeStart { offset, available } => write!(
                f,
                "match offset {offset} points before the start of the data ({available} bytes available)"
            ),
            Lz4Fault::LengthOverflow => f.write_str("length larger than half the address space"),
            Lz4Fault::OutputTooSmall { capacity } => {
                write!(f, "decoded data does not fit in {capacity} bytes")
            }
            Lz4Fault::BadEnd => f.write_str("block breaks the LZ4 end-of-block rules"),
        }
    }
}

/// Every error lzkit reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A compressed block is malformed ("corrupt LZ4 block at byte 17:
    /// match offset 0").
    #[error("corrupt {codec} block at byte {at}: {fault}", codec = .fault.codec())]
    CorruptBlock {
        /// Byte position in the compressed block where the problem was detected.
        at: usize,
        /// What was wrong, by codec.
        fault: Fault,
    },
    /// The destination buffer given to a compressor is smaller than the output.
    #[error("output buffer too small: {capacity} bytes, need up to {needed}")]
    OutputTooSmall {
        /// Capacity of the buffer that was given.
        capacity: usize,
        /// Bytes needed (an upper bound where exact size is unknown).
        needed: usize,
    },
    /// The input is larger than the format can represent in one block.
    #[error("input of {size} bytes exceeds the LZ4 block limit of {limit} bytes")]
    InputTooLarge {
        /// Size of the input.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Options that cannot be used together (for example a dictionary with
    /// the legacy format); the message says which, and what to change.
    #[error("invalid options: {0}")]
    InvalidOptions(&'static str),
    /// A filtered stream (one that starts with lzkit's filter frame,
    /// [`crate::filter::read_frame`]) joined with other frames: its filter
    /// would be undone over bytes it was not applied to, or not undone
    /// over bytes it was. Only decoders asked to check it report this
    /// (the command's `-d`); decode the joined files one at a time.
    #[error(
        "{what} at byte {at}: a filtered stream (lzkit --filter) holds its filter frame and one frame; this input joins it with other frames, decode each file on its own"
    )]
    FilteredStreamJoined {
        /// Position of the frame in the input stream.
        at: u64,
        /// What was met there.
        what: &'static str,
    },
    /// A frame is malformed ("not LZ4 data: unknown magic number
    /// 0x00000007 at byte 9", "corrupt zstd frame at byte 4: reserved bit
    /// set in the frame header"): its header, or how its blocks are framed.
    #[error("{}", .fault.message(*.at))]
    CorruptFrame {
        /// Position in the input stream where the problem was detected:
        /// the frame's start for an LZ4 header, the faulty field for zstd.
        at: u64,
        /// What was wrong, by codec.
        fault: FrameFault,
    },
    /// A block in a frame failed to decode.
    #[error("block {index} at byte {at}: {source}")]
    Block {
        /// Index of the block in its frame, from 0.
        index: u64,
        /// Position of the block's size field in the input stream.
        at: u64,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
    /// Something went wrong inside one frame of a stream of several.
    #[error("frame {index} at byte {at}: {source}")]
    Frame {
        /// Index of the frame in the input, from 0.
        index: u64,
        /// Position of the frame's first byte in the input stream.
        at: u64,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
    /// A block's size field is larger than the frame's block maximum.
    #[error("block size {size} exceeds the frame's maximum of {max} bytes")]
    BlockTooLarge {
        /// Size read from the block header.
        size: usize,
        /// The frame's block maximum.
        max: usize,
    },
    /// A block checksum does not match.
    #[error("block checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    BlockChecksum {
        /// Stored checksum.
        stored: u32,
        /// Computed checksum.
        computed: u32,
    },
    /// The content checksum at the end of a frame does not match.
    #[error(
        "content checksum mismatch at byte {at}: stored {stored:#010x}, computed {computed:#010x}"
    )]
    ContentChecksum {
        /// Position of the checksum in the input stream.
        at: u64,
        /// Stored checksum.
        stored: u32,
        /// Computed checksum.
        computed: u32,
    },
    /// The decoded size disagrees with the content size in the frame header.
    #[error("content size mismatch: frame header says {expected} bytes, decoded {actual}")]
    ContentSize {
        /// Content size from the header.
        expected: u64,
        /// Bytes actually decoded.
        actual: u64,
    },
    /// The input ended before the end of a frame.
    #[error("unexpected end of input at byte {at}: {what}")]
    Truncated {
        /// Position in the input stream.
        at: u64,
        /// What was being read.
        what: &'static str,
    },
    /// The frame needs a dictionary that was not supplied, or a different one.
    #[error("frame needs the dictionary with ID {dict_id:#010x}")]
    DictionaryRequired {
        /// The dictionary ID in the frame header.
        dict_id: u32,
    },
    /// The system would not allocate a buffer (for decoded data, or for
    /// compressed bytes to be read): the data is larger than this machine
    /// can hold. Decoders size their buffers from
    /// what the input can produce, never from sizes it claims, so a small
    /// input cannot cause this; and a refused allocation is this error,
    /// never an abort.
    #[error("out of memory: cannot allocate a buffer of {bytes} bytes")]
    OutOfMemory {
        /// The size of the buffer that could not be allocated.
        bytes: usize,
    },
    /// A decoder variant was requested that this CPU cannot run.
    #[error("decoder variant {variant} is not available on this CPU")]
    VariantUnavailable {
        /// The variant's name.
        variant: &'static str,
    },
    /// A seek table is malformed or disagrees with the data it indexes
    /// (sizes that do not add up, entries past the end, a decoded entry of
    /// another size or checksum than the table says).
    #[error("corrupt seek table: {reason}")]
    SeekTable {
        /// What was wrong, and where.
        reason: String,
    },
    /// The data cannot be read at random: no seek table, or frames that
    /// cannot be indexed; the reason says which, and what to do.
    #[error("cannot read at random: {reason}")]
    NotSeekable {
        /// Why, and what to do.
        reason: String,
    },
    /// An I/O error from the underlying reader or writer.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// Convert into an [`std::io::Error`], keeping this error as its inner
    /// value (retrievable with `get_ref().downcast_ref::<lzkit::Error>()`).
    /// I/O errors are returned unchanged.
    pub fn into_io(self) -> std::io::Error {
        match self {
            Error::Io(e) => e,
            Error::Truncated { .. } => std::io::Error::new(std::io::ErrorKind::UnexpectedEof, self),
            Error::OutOfMemory { .. } => std::io::Error::new(std::io::ErrorKind::OutOfMemory, self),
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other),
        }
    }

    /// Recover an lzkit error from an I/O error produced by [`Error::into_io`]
    /// (for example by [`crate::lz4::frame::FrameDecoder`]'s `Read` impl).
    pub fn from_io(e: std::io::Error) -> Error {
        if e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            match e.into_inner().map(|b| b.downcast::<Error>()) {
                Some(Ok(inner)) => *inner,
                _ => unreachable!("checked above"),
            }
        } else {
            Error::Io(e)
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_frame_names_its_codec() {
        let e = Error::CorruptFrame {
            at: 9,
            fault: Lz4FrameFault::UnknownMagic { magic: 7 }.into(),
        };
        assert_eq!(
            e.to_string(),
            "not LZ4 data: unknown magic number 0x00000007 at byte 9"
        );
        let e = Error::CorruptFrame {
            at: 4,
            fault: ZstdFrameFault::Malformed("reserved bit set in the frame header").into(),
        };
        assert_eq!(
            e.to_string(),
            "corrupt zstd frame at byte 4: reserved bit set in the frame header"
        );
        let Error::CorruptFrame { fault, .. } = e else {
            unreachable!()
        };
        assert_eq!(fault.codec(), Codec::Zstd);
    }

    #[test]
    fn a_corrupt_block_names_its_codec() {
        let e = Error::CorruptBlock {
            at: 1_204,
            fault: Lz4Fault::OffsetZero.into(),
        };
        assert_eq!(
            e.to_string(),
            "corrupt LZ4 block at byte 1204: match offset 0"
        );
        let Error::CorruptBlock { fault, .. } = e else {
            unreachable!()
        };
        assert_eq!(fault.codec(), Codec::Lz4);
    }
}
