//! The legacy format (`lz4 -l`): `[u32 compressed size][block]...`, 8 MiB
//! independent blocks with no checksums, ending at the end of input or at
//! the next frame's magic number. One-shot ([`decode_slice`]) and
//! streaming ([`FrameDecoder`]'s legacy stage).

use super::block_room;
use super::slice::SliceInput;
use super::stream::{FrameDecoder, Stage};
use crate::error::{Error, Result};
use crate::lz4::block::{self, Decoder};
use crate::lz4::frame::LEGACY_BLOCK_SIZE;
use crate::lz4::frame::header::Magic;
use crate::mem;
use std::io::Read;

/// Largest compressed legacy block: the block bound of 8 MiB.
const LEGACY_MAX_COMPRESSED: usize = block::max_compressed_size(LEGACY_BLOCK_SIZE);
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
        let len = word as usize;
        if len > LEGACY_MAX_COMPRESSED {
            return Err(Error::BlockTooLarge {
                size: len,
                max: LEGACY_MAX_COMPRESSED,
            });
        }
        let data = input.take(len, "legacy block")?;
        let start = out.len();
        // The block size, or what the block can produce if less (the same
        // result: see block_room).
        mem::grow_zeroed(out, start + block_room(len, false, LEGACY_BLOCK_SIZE))?;
        match decoder.decode_with_prefix(data, &mut out[start..], 0) {
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

impl<R: Read> FrameDecoder<R> {
    /// Inside a legacy stream: decode the next block; at the end of input,
    /// or at the next frame's magic number, the stream ends.
    pub(super) fn legacy_block(&mut self) -> Result<Stage> {
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
        let room = block_room(len, false, LEGACY_BLOCK_SIZE);
        self.window(room)?;
        let n = self
            .decoder
            .decode_with_prefix(&self.cbuf[..self.cbuf_len], &mut self.win[..room], 0)
            .map_err(|e| Error::Block {
                index: 0,
                at,
                source: e,
            })?;
        self.filled = n;
        Ok(Stage::Legacy)
    }
}
