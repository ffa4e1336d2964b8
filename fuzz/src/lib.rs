//! Shared pieces of the lzkit fuzz targets.
//!
//! * [`block_decoders`]: every block decoder under test, one row per
//!   variant this CPU runs (`Variant::available()`), each forced (a fresh
//!   adaptive decoder would only ever reach its first arm) and run through
//!   its dictionary loop when there is a dictionary;
//! * [`block`]: the block target's case (block, dictionary, capacity from
//!   the input) and its check against C, exact but for [`known`];
//! * [`frame`]: every frame decoder (one-shot, parallel one-shot,
//!   streaming, parallel streaming, over uneven reads), compared with each
//!   other and with C's `LZ4F_decompress`;
//! * [`frame_case`]: the structured frame target's case (a valid frame
//!   from fuzz-chosen options and data, then edited);
//! * [`known`]: the differences from C the targets expect, and why;
//! * [`ctl`]: reading (and, for seeds, writing) the control fields;
//! * [`alloc`]: the targets' allocator, which keeps large blocks for reuse;
//! * [`seekable`]: the seekable target's case (an arbitrary file, or a
//!   valid seekable file built from the input and edited) and its checks:
//!   typed errors or the right bytes, every way of reading agreeing;
//! * [`seek_table`]: the crafted-table target's case (a valid seekable
//!   file whose table is rewritten as an attacker would, its checksums
//!   recomputed) and its check: the content or an error, never other bytes;
//! * [`zstd`]: the zstd targets' cases (arbitrary input; libzstd frames,
//!   round-tripped or mutated) and the check that every zstd decoder
//!   agrees (and, for mutated frames, agrees with libzstd).
//!
//! Every target's input layout is documented in its module; the seed
//! generator (`examples/seeds.rs`, run by `scripts/fuzz.sh`) writes valid,
//! large cases through the same modules.

pub mod alloc;
pub mod block;
pub mod ctl;
pub mod frame;
pub mod frame_case;
pub mod known;
pub mod seek_table;
pub mod seekable;
pub mod zstd;

/// See [`alloc`]: only in `cargo fuzz` builds.
#[cfg(fuzzing)]
#[global_allocator]
static ALLOCATOR: alloc::Recycling = alloc::Recycling::new();

pub use frame::{
    CFrame, FRAME_DECODERS, FrameDecoderVariant, c_frame_decode, check_against_c, decode_all_agree,
    mentions_legacy, push_agrees,
};

use lzkit::lz4::block as lz4_block;
use std::sync::OnceLock;

/// What a [`BlockDecoder`] row calls.
#[derive(Clone, Copy, Debug)]
enum BlockEntry {
    /// `block::decompress_into`.
    Plain,
    /// `block::decompress_with_dict_into`.
    WithDict,
    /// `Decoder::with_variant(v)`, forced, with the dictionary handled
    /// inside its decode loop when there is one.
    Variant(lz4_block::Variant),
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
            BlockEntry::Plain => lz4_block::decompress_into(src, dst),
            BlockEntry::WithDict => lz4_block::decompress_with_dict_into(src, dst, dict),
            BlockEntry::Variant(v) => {
                lz4_block::Decoder::with_variant(v)?.decompress_with_dict_into(src, dict, dst)
            }
        }
    }
}

/// Every block decoder under test: the two one-shot functions (adaptive),
/// then one row per variant of `Variant::ALL` this CPU runs.
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
        rows.extend(lz4_block::Variant::available().iter().map(|&v| {
            row(
                format!("Decoder::with_variant({})", v.name()),
                true,
                BlockEntry::Variant(v),
            )
        }));
        rows
    })
}

/// A fixed 70 KB text-like dictionary (longer than the 64 KiB window).
pub fn dictionary() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| lzkit_testkit::text(70_000, 0xD1C7))
}
