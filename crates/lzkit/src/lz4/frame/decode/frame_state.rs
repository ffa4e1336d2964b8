//! The per-frame logic every way of reading a frame shares (the lowest
//! module of `decode/`, with [`super::input`]): [`FrameState`] (block
//! header checks, block and content checksums, content size), the one
//! block function [`decode_raw`], and the room a block decodes into.

use crate::error::{Error, Result};
use crate::lz4::block::{Decoder, MAX_DISTANCE, max_decoded_size};
use crate::lz4::frame::header::{BlockHeader, Header};
use xxhash_rust::xxh32::{Xxh32, xxh32};

/// Room to decode a block into: its decoded size is at most the block
/// maximum, and at most 255 times its compressed size plus a little
/// ([`max_decoded_size`]), so tiny blocks do not zero-fill a whole block
/// maximum. Every decoding path gives a block exactly this capacity, so
/// they agree on every error (and with the reference decoder, which gives
/// a block the block maximum: see [`max_decoded_size`]).
pub(crate) fn block_room(len: usize, stored: bool, block_max: usize) -> usize {
    if stored {
        len
    } else {
        block_max.min(max_decoded_size(len))
    }
}

/// A one-shot decoder reserves its output up front, from the frame's
/// content size or else the bound of its blocks' sizes, but never more than
/// this many times the frame's compressed size (or [`RESERVE_MIN`]): sizes
/// in a header are claims. Past that, the output grows as blocks decode.
const RESERVE_RATIO: usize = 4;
/// The least a one-shot decoder may reserve up front (see [`RESERVE_RATIO`]).
const RESERVE_MIN: usize = 1 << 20;

/// The most a one-shot decoder reserves up front for a frame of
/// `compressed` bytes (see [`RESERVE_RATIO`]).
pub(crate) fn reserve_limit(compressed: usize) -> usize {
    compressed.saturating_mul(RESERVE_RATIO).max(RESERVE_MIN)
}

/// Wrap an error with its block's index in the frame and stream position.
pub(super) fn in_block(index: u64, at: u64, e: Error) -> Error {
    Error::Block {
        index,
        at,
        source: Box::new(e),
    }
}

/// Decode the size word of block `index` of a frame, read at `at`.
pub(super) fn parse_block_header(
    word: u32,
    at: u64,
    index: u64,
    block_max: usize,
) -> Result<BlockHeader> {
    BlockHeader::parse(word, block_max).map_err(|e| in_block(index, at, e))
}

/// Verify (if present) the block checksum, then decode block `index` into
/// `buf[start..]` with `buf[..start]` as history; the capacity is the rest
/// of `buf`, at most `block_max`. Returns the decoded size. Every path,
/// serial or parallel, decodes blocks with this.
pub(crate) fn decode_raw(
    decoder: &mut Decoder,
    block: &RawBlock<'_>,
    index: u64,
    block_max: usize,
    buf: &mut [u8],
    start: usize,
) -> Result<usize> {
    let RawBlock {
        data,
        stored,
        checksum,
        at,
    } = *block;
    if let Some(stored_sum) = checksum {
        let computed = xxh32(data, 0);
        if computed != stored_sum {
            return Err(in_block(
                index,
                at,
                Error::BlockChecksum {
                    stored: stored_sum,
                    computed,
                },
            ));
        }
    }
    let capacity = (buf.len() - start).min(block_max);
    if stored {
        if data.len() > capacity {
            return Err(in_block(
                index,
                at,
                Error::BlockTooLarge {
                    size: data.len(),
                    max: capacity,
                },
            ));
        }
        buf[start..start + data.len()].copy_from_slice(data);
        return Ok(data.len());
    }
    decoder
        .decode_with_prefix(data, &mut buf[..start + capacity], start)
        .map_err(|e| Error::Block {
            index,
            at,
            source: e,
        })
}

/// One block as read from a frame, before decoding.
#[derive(Clone, Copy)]
pub(crate) struct RawBlock<'a> {
    /// The block's data (compressed, or raw if `stored`).
    pub data: &'a [u8],
    /// Stored uncompressed (size word's high bit).
    pub stored: bool,
    /// The block checksum that followed it, if the frame has them.
    pub checksum: Option<u32>,
    /// Stream position of the block's size word.
    pub at: u64,
}

/// Per-frame decoding state and checks, shared by both decoders: block
/// header validation, block checksums, block decoding, content checksum and
/// content size.
pub(crate) struct FrameState {
    pub(crate) header: Header,
    /// Whether the checksums are verified ([`crate::lz4::frame::DecodeOptions::verify_checksums`]):
    /// without, they are read past and neither computed nor compared.
    pub(crate) verify: bool,
    pub(super) block_index: u64,
    hasher: Option<Xxh32>,
    decoded: u64,
}

impl FrameState {
    pub(crate) fn new(header: Header) -> Self {
        Self::with_verification(header, true)
    }

    /// The state of a frame whose checksums are verified only if `verify`.
    pub(crate) fn with_verification(header: Header, verify: bool) -> Self {
        FrameState {
            header,
            verify,
            block_index: 0,
            hasher: (verify && header.content_checksum).then(|| Xxh32::new(0)),
            decoded: 0,
        }
    }

    /// Decode a block size word read at stream position `at`.
    pub(crate) fn block_header(&self, word: u32, at: u64) -> Result<BlockHeader> {
        parse_block_header(word, at, self.block_index, self.header.block_size.bytes())
    }

    /// Verify and decode the next block into `buf[start..]` (see
    /// [`decode_raw`]), then count it. Returns the decoded size.
    pub(crate) fn decode_block(
        &mut self,
        decoder: &mut Decoder,
        block: RawBlock<'_>,
        buf: &mut [u8],
        start: usize,
    ) -> Result<usize> {
        let block_max = self.header.block_size.bytes();
        let block = RawBlock {
            checksum: block.checksum.filter(|_| self.verify),
            ..block
        };
        let n = decode_raw(decoder, &block, self.block_index, block_max, buf, start)?;
        self.account(&buf[start..start + n]);
        Ok(n)
    }

    /// Count the next block, decoded (elsewhere) to `data`: content checksum
    /// and size. Blocks must be counted in order.
    pub(crate) fn account(&mut self, data: &[u8]) {
        if let Some(h) = &mut self.hasher {
            h.update(data);
        }
        self.decoded += data.len() as u64;
        self.block_index += 1;
    }

    /// After the end mark: check the content checksum (read at `at`) and the
    /// content size.
    pub(crate) fn finish(&self, checksum: Option<u32>, at: u64) -> Result<()> {
        if let (Some(h), Some(stored)) = (&self.hasher, checksum) {
            let computed = h.digest();
            if computed != stored {
                return Err(Error::ContentChecksum {
                    at,
                    stored,
                    computed,
                });
            }
        }
        if let Some(expected) = self.header.content_size
            && expected != self.decoded
        {
            return Err(Error::ContentSize {
                expected,
                actual: self.decoded,
            });
        }
        Ok(())
    }
}

/// The last 64 KiB of a dictionary: all that matches can reach.
pub(super) fn dict_tail(dict: &[u8]) -> &[u8] {
    &dict[dict.len().saturating_sub(MAX_DISTANCE)..]
}
