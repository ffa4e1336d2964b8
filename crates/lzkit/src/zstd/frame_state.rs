//! [`FrameState`]: the per-frame walk of RFC 8878 section 3.1.1, shared by
//! the one-shot [`super::Decoder`] and the streaming
//! [`super::FrameDecoder`] (as LZ4's frame decoders share theirs): the
//! frame's dictionary and entropy state, block headers, raw, RLE and
//! compressed blocks, the content size and the content checksum (XXH64).
//!
//! Each caller owns its input and its output buffer; this module decides
//! what a block means and what a frame's end must hold, so every entry
//! point gives one frame one verdict, with the same error at the same
//! position.

use super::block::BlockError;
use super::dict::Dictionary;
use super::exec::Out;
use super::frame::{self, BlockHeader, Header};
use crate::error::{Error, Fault, Result, ZstdFault};
use xxhash_rust::xxh64::Xxh64;

/// What a frame's walk needs from the decoder that runs its blocks: the
/// dictionaries it was given, its entropy state, its options and its
/// block loop. [`super::Decoder`] is the one implementation; the trait
/// keeps this module below the decoder in the import graph.
pub(super) trait BlockRunner {
    /// The dictionary for a frame naming `id` (0: none named).
    fn dictionary(&self, id: u32) -> Result<Option<Dictionary>>;
    /// Reset the entropy state for a frame with `dict`.
    fn start_frame(&mut self, dict: Option<&Dictionary>);
    /// Whether content checksums are verified.
    fn verifies_checksums(&self) -> bool;
    /// Decode one compressed block `src` into `out`.
    fn run_block(
        &mut self,
        src: &[u8],
        out: &mut Out<'_>,
        block_max: usize,
    ) -> std::result::Result<(), BlockError>;
}

/// How the content checksum is computed, where it is verified.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Hashing {
    /// Over the frame's whole output at its end (one-shot decoding, which
    /// keeps all of it).
    AtEnd,
    /// Block by block, as the output goes (streaming, which keeps only
    /// the window).
    PerBlock,
}

/// One frame being decoded: its header and dictionary, where it is in its
/// blocks, and what its end must match.
pub(super) struct FrameState {
    pub(super) header: Header,
    dict: Option<Dictionary>,
    /// Whether matches may still reach the dictionary (no output dropped
    /// from the window yet).
    dict_reachable: bool,
    /// Whether the content checksum is verified (the frame has one and
    /// the options ask for it).
    verify: bool,
    /// The running hash, with [`Hashing::PerBlock`].
    hasher: Option<Xxh64>,
    /// Index of the next block in the frame.
    block: u64,
    /// Bytes decoded so far.
    produced: u64,
}

impl FrameState {
    /// Start the frame with header `header`: find its dictionary (an error
    /// if it names one `decoder` lacks) and reset the entropy state from it.
    pub(super) fn start(
        decoder: &mut impl BlockRunner,
        header: Header,
        hashing: Hashing,
    ) -> Result<Self> {
        let dict = decoder.dictionary(header.dict_id)?;
        decoder.start_frame(dict.as_ref());
        let verify = header.checksum && decoder.verifies_checksums();
        Ok(FrameState {
            header,
            dict,
            dict_reachable: true,
            verify,
            hasher: (verify && hashing == Hashing::PerBlock).then(|| Xxh64::new(0)),
            block: 0,
            produced: 0,
        })
    }

    /// The largest block of this frame, compressed or decoded.
    pub(super) fn block_max(&self) -> usize {
        self.header.block_max()
    }

    /// The frame's window, as the sequence loop checks offsets against it.
    fn window(&self) -> usize {
        usize::try_from(self.header.window).unwrap_or(usize::MAX)
    }

    /// Matches can no longer reach the dictionary: the output before the
    /// window was dropped.
    pub(super) fn drop_dictionary(&mut self) {
        self.dict_reachable = false;
    }

    /// Parse the 3-byte block header `b`, read at stream position `at`.
    pub(super) fn block_header(&self, b: &[u8], at: u64) -> Result<BlockHeader> {
        frame::block_header([b[0], b[1], b[2]], at, self.block_max())
    }

    /// Decode the block with header `bh` and data `data` (read at stream
    /// position `block_at`) into `buf[pos..]`, the frame's output starting
    /// at `buf[base]`; then count it. Returns the end of its output.
    ///
    /// The caller gives `buf` room for the block: its size for a raw or
    /// RLE block, the block maximum for a compressed one (a caller's slice
    /// may be shorter: the block's error then says so).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode_block(
        &mut self,
        decoder: &mut impl BlockRunner,
        bh: &BlockHeader,
        data: &[u8],
        block_at: u64,
        buf: &mut [u8],
        base: usize,
        pos: usize,
    ) -> Result<usize> {
        let index = self.block;
        let wrap = |(off, fault): BlockError| Error::Block {
            index,
            at: block_at,
            source: Box::new(Error::CorruptBlock {
                at: off,
                fault: Fault::Zstd(fault),
            }),
        };
        let end = match bh.kind {
            0 | 1 => {
                if bh.size > buf.len() - pos {
                    return Err(wrap((
                        0,
                        ZstdFault::OutputTooSmall {
                            capacity: buf.len(),
                        },
                    )));
                }
                if bh.kind == 0 {
                    buf[pos..pos + bh.size].copy_from_slice(data);
                } else {
                    buf[pos..pos + bh.size].fill(data[0]);
                }
                pos + bh.size
            }
            _ => {
                let dict: &[u8] = match (&self.dict, self.dict_reachable) {
                    (Some(d), true) => d.content(),
                    _ => &[],
                };
                let mut out = Out {
                    buf: &mut *buf,
                    base,
                    pos,
                    end: pos,
                    dict,
                    window: self.window(),
                };
                decoder
                    .run_block(data, &mut out, self.header.block_max())
                    .map_err(wrap)?;
                out.pos
            }
        };
        if let Some(hasher) = self.hasher.as_mut() {
            hasher.update(&buf[pos..end]);
        }
        self.produced += (end - pos) as u64;
        self.block += 1;
        Ok(end)
    }

    /// After the last block: the content size, if the header states one,
    /// must be what the blocks produced.
    pub(super) fn check_size(&self) -> Result<()> {
        match self.header.content_size {
            Some(expected) if expected != self.produced => Err(Error::ContentSize {
                expected,
                actual: self.produced,
            }),
            _ => Ok(()),
        }
    }

    /// Check the content checksum `stored` (read at `at`), where it is
    /// verified; `output` gives the frame's whole output, read only with
    /// [`Hashing::AtEnd`].
    pub(super) fn check_checksum<'a>(
        &self,
        stored: [u8; 4],
        at: u64,
        output: impl FnOnce() -> Result<&'a [u8]>,
    ) -> Result<()> {
        if !self.verify {
            return Ok(());
        }
        let stored = u32::from_le_bytes(stored);
        let computed = match &self.hasher {
            Some(hasher) => hasher.digest() as u32,
            None => xxhash_rust::xxh64::xxh64(output()?, 0) as u32,
        };
        if stored != computed {
            return Err(Error::ContentChecksum {
                at,
                stored,
                computed,
            });
        }
        Ok(())
    }
}
