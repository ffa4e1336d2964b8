//! The legacy format (`lz4 -l`): `[u32 compressed size][block]...`, 8 MiB
//! independent blocks with no checksums, ending at the end of input or at
//! the next frame's magic number. One-shot ([`decode_slice`]); the
//! streaming [`super::FrameDecoder`]'s legacy stage reads its blocks
//! itself and checks and decodes them with [`block_len`] and
//! [`decode_block`].

use super::frame_state::block_room;
use super::input::SliceInput;
use crate::error::{Error, Result};
use crate::lz4::block::{self, Decoder};
use crate::lz4::frame::LEGACY_BLOCK_SIZE;
use crate::lz4::frame::header::Magic;
use crate::mem;

/// Largest compressed legacy block: the block bound of 8 MiB.
const LEGACY_MAX_COMPRESSED: usize = block::max_compressed_size(LEGACY_BLOCK_SIZE);

/// The compressed length a legacy block's size word `word` gives, if the
/// format allows it.
pub(super) fn block_len(word: u32) -> Result<usize> {
    let len = word as usize;
    if len > LEGACY_MAX_COMPRESSED {
        return Err(Error::BlockTooLarge {
            size: len,
            max: LEGACY_MAX_COMPRESSED,
        });
    }
    Ok(len)
}

/// The room a legacy block of `len` compressed bytes decodes into: the
/// block size, or what the block can produce if less (the same result:
/// see [`block_room`]).
pub(super) fn room(len: usize) -> usize {
    block_room(len, false, LEGACY_BLOCK_SIZE)
}

/// Decode the legacy block `data`, whose size word was read at `at`, into
/// `buf` (no history: legacy blocks are independent). Returns the decoded
/// size.
pub(super) fn decode_block(
    decoder: &mut Decoder,
    data: &[u8],
    buf: &mut [u8],
    at: u64,
) -> Result<usize> {
    decoder
        .decode_with_prefix(data, buf, 0)
        .map_err(|e| Error::Block {
            index: 0,
            at,
            source: e,
        })
}

/// Legacy stream: `[u32 compressed size][block]...`, 8 MiB independent
/// blocks, ending at the end of input or at the next frame's magic number.
pub(super) fn decode_slice(
    input: &mut SliceInput<'_>,
    out: &mut Vec<u8>,
    decoder: &mut Decoder,
) -> Result<()> {
    while let Some(word) = input.peek_u32() {
        if Magic::classify(word).is_some() {
            return Ok(());
        }
        let at = input.pos as u64;
        input.pos += 4;
        let len = block_len(word)?;
        let data = input.take(len, "legacy block")?;
        let start = out.len();
        mem::grow_zeroed(out, start + room(len))?;
        let n = decode_block(decoder, data, &mut out[start..], at)?;
        out.truncate(start + n);
    }
    if input.pos < input.src.len() {
        return Err(Error::Truncated {
            at: input.src.len() as u64,
            what: "legacy block size",
        });
    }
    Ok(())
}
