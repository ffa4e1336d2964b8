//! Shared pieces of the lzkit fuzz targets: the tables of decoder variants
//! every target loops over, and small helpers. The C reference, the
//! dictionary's text and the stream decoding helpers come from
//! `lzkit-testkit`.
//!
//! Every block decoder variant this CPU runs (`Variant::available()`, from
//! the table `Variant::ALL`) is a row of
//! [`block_decoders`] by itself; to fuzz another frame decoder, add a row to
//! [`FRAME_DECODERS`]: every target checks every row against the C
//! reference and against the other rows.

use lzkit::lz4::{block, frame};
use lzkit_testkit::stream_decode;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// Decoder variants.
// ---------------------------------------------------------------------------

/// What a [`BlockDecoder`] row calls.
#[derive(Clone, Copy, Debug)]
enum BlockEntry {
    /// `block::decompress_into`.
    Plain,
    /// `block::decompress_with_dict_into`.
    WithDict,
    /// `Decoder::with_variant(v)`, forced (a fresh adaptive decoder would
    /// only ever reach its first arm), with the dictionary handled inside
    /// its decode loop when there is one. Only variants this CPU runs have
    /// a row.
    Variant(block::Variant),
}

/// A named block decoder under test.
#[derive(Clone, Debug)]
pub struct BlockDecoder {
    /// Name in failure messages.
    pub name: String,
    /// Whether it takes a dictionary (if not, only called with an empty one).
    pub dict: bool,
    entry: BlockEntry,
}

impl BlockDecoder {
    /// Decode `src` into `dst` with `dict` (empty: none) as history.
    pub fn decode(&self, src: &[u8], dst: &mut [u8], dict: &[u8]) -> lzkit::Result<usize> {
        match self.entry {
            BlockEntry::Plain => block::decompress_into(src, dst),
            BlockEntry::WithDict => block::decompress_with_dict_into(src, dst, dict),
            BlockEntry::Variant(v) => {
                block::Decoder::with_variant(v)?.decompress_with_dict_into(src, dict, dst)
            }
        }
    }
}

/// Every block decoder under test: the two one-shot functions, then one row
/// per variant of `Variant::ALL` this CPU runs (the others are skipped).
pub fn block_decoders() -> &'static [BlockDecoder] {
    static ROWS: OnceLock<Vec<BlockDecoder>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let row = |name: String, dict, entry| BlockDecoder { name, dict, entry };
        let mut rows = vec![
            row("decompress_into".into(), false, BlockEntry::Plain),
            row(
                "decompress_with_dict_into".into(),
                true,
                BlockEntry::WithDict,
            ),
        ];
        rows.extend(block::Variant::available().iter().map(|&v| {
            row(
                format!("Decoder::with_variant({})", v.name()),
                true,
                BlockEntry::Variant(v),
            )
        }));
        rows
    })
}

/// A frame decoder: `(src, dict) -> content`. An empty `dict` means none.
pub type FrameDecodeFn = fn(&[u8], &[u8]) -> lzkit::Result<Vec<u8>>;

/// A named frame decoder variant.
pub struct FrameDecoderVariant {
    pub name: &'static str,
    pub decode: FrameDecodeFn,
}

/// `dict`, or `None` when it is empty (the tables' "no dictionary").
fn opt_dict(dict: &[u8]) -> Option<&[u8]> {
    (!dict.is_empty()).then_some(dict)
}

fn frame_one_shot(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    if dict.is_empty() {
        frame::decompress(src)
    } else {
        frame::decompress_with_dict(src, dict)
    }
}

fn frame_stream_big(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    stream_decode(src, opt_dict(dict), usize::MAX, 1 << 16)
}

fn frame_stream_tiny(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    stream_decode(src, opt_dict(dict), 3, 7)
}

fn frame_stream_bytewise(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    stream_decode(src, opt_dict(dict), 1, 1)
}

/// Every frame decoder under test.
pub const FRAME_DECODERS: &[FrameDecoderVariant] = &[
    FrameDecoderVariant {
        name: "decompress",
        decode: frame_one_shot,
    },
    FrameDecoderVariant {
        name: "FrameDecoder",
        decode: frame_stream_big,
    },
    FrameDecoderVariant {
        name: "FrameDecoder 3-byte input, 7-byte reads",
        decode: frame_stream_tiny,
    },
    FrameDecoderVariant {
        name: "FrameDecoder 1-byte input, 1-byte reads",
        decode: frame_stream_bytewise,
    },
];

/// A fixed 70 KB text-like dictionary (longer than the 64 KiB window).
pub fn dictionary() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| lzkit_testkit::text(70_000, 0xD1C7))
}

// ---------------------------------------------------------------------------
// The C reference.
// ---------------------------------------------------------------------------

/// What C's frame decoder made of an input.
#[derive(Debug)]
pub enum CFrame {
    /// Decoded completely.
    Ok(Vec<u8>),
    /// An error, or the input ends inside a frame.
    Rejected,
    /// Not decoded to the end (output too large to be a useful test).
    Skipped,
}

/// C frame decoding of a stream of frames, with `dict` (empty: none).
pub fn c_frame_decode(src: &[u8], dict: &[u8]) -> CFrame {
    match lzkit_testkit::c_ref::decompress_frames(src, opt_dict(dict), 64 << 20) {
        Ok(out) => CFrame::Ok(out),
        Err(lzkit_testkit::c_ref::FrameError::Rejected(_)) => CFrame::Rejected,
        Err(lzkit_testkit::c_ref::FrameError::TooLarge) => CFrame::Skipped,
    }
}

/// Whether `data` contains the legacy magic number anywhere (C's frame API
/// does not read the legacy format, so C-vs-ours comparisons skip it).
pub fn mentions_legacy(data: &[u8]) -> bool {
    let m = frame::LEGACY_MAGIC.to_le_bytes();
    data.windows(4).any(|w| w == m)
}
