//! Reading frames, one module per way of reading them:
//!
//! * [`slice`]: the one-shot [`decompress`] (blocks decoded straight into
//!   the output vector);
//! * [`stream`]: the streaming [`FrameDecoder`] (memory bounded by the block
//!   size), whose position in the input is one [`stream::Stage`];
//! * [`parallel`]: independent-block frames decoded in batches on a pool
//!   (the one-shot and streaming paths both hand their frames to it when
//!   given more than one thread);
//! * [`legacy`]: the legacy format (`lz4 -l`), one-shot and streaming;
//! * [`push`]: [`PushDecoder`], a frame fed in pieces by its caller.
//!
//! All of them drive the same per-frame logic, [`FrameState`], and decode
//! every block with the same function, [`decode_raw`]. A failing block
//! stops the output just where serial decoding stops it, with the same
//! error, whatever the path.

mod legacy;
mod parallel;
mod push;
mod slice;
mod stream;

pub use push::PushDecoder;
pub use stream::FrameDecoder;

use super::DecodeOptions;
use super::header::{BlockHeader, Header};
use crate::error::{Error, Result};
use crate::lz4::block::{Decoder, MAX_DISTANCE, max_decoded_size};
use crate::pool::effective_threads;
use std::io::Read;
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
fn in_block(index: u64, at: u64, e: Error) -> Error {
    Error::Block {
        index,
        at,
        source: Box::new(e),
    }
}

/// Decode the size word of block `index` of a frame, read at `at`.
fn parse_block_header(word: u32, at: u64, index: u64, block_max: usize) -> Result<BlockHeader> {
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
    /// Whether the checksums are verified ([`DecodeOptions::verify_checksums`]):
    /// without, they are read past and neither computed nor compared.
    pub(crate) verify: bool,
    block_index: u64,
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
fn dict_tail(dict: &[u8]) -> &[u8] {
    &dict[dict.len().saturating_sub(MAX_DISTANCE)..]
}

/// Decode every frame in `src` (standard, legacy; skippable frames skipped).
///
/// Memory: the output, reserved up to a few times the input's size (a
/// content size in a header is a claim, and is trusted no further) and
/// grown as blocks decode. An allocation the system refuses is
/// [`Error::OutOfMemory`].
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
///
/// let a = frame::compress(b"first frame, ", &FrameOptions::new());
/// let b = frame::compress(b"then a legacy one", &FrameOptions::new().legacy(true));
/// assert_eq!(frame::decompress(&[a, b].concat())?, b"first frame, then a legacy one");
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress(src: &[u8]) -> Result<Vec<u8>> {
    slice::decompress(src, 1)
}

/// The first frame of `src` only (python-lz4's `lz4.frame.decompress`):
/// its content and the number of bytes of `src` it took, on `threads`
/// threads for a frame of independent blocks (0: one per core). A
/// skippable frame decodes to nothing; a legacy stream runs to the next
/// magic number.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
/// let a = frame::compress(b"first", &FrameOptions::new());
/// let both = [a.clone(), frame::compress(b"second", &FrameOptions::new())].concat();
/// assert_eq!(frame::decompress_first(&both, 1)?, (b"first".to_vec(), a.len()));
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_first(src: &[u8], threads: usize) -> Result<(Vec<u8>, usize)> {
    slice::decompress_first(src, effective_threads(threads))
}

/// The first frame of `src`, a standard frame without a dictionary,
/// decoded into `dst`: returns the bytes written and the bytes of `src` it
/// took. A frame that decodes to more than `dst` holds is an error (size
/// `dst` from the frame's content size, [`super::read_header`]).
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
/// let data = b"into the caller's buffer ".repeat(100);
/// let packed = frame::compress(&data, &FrameOptions::new().content_size(Some(data.len() as u64)));
/// let mut out = vec![0u8; data.len()];
/// assert_eq!(frame::decompress_into(&packed, &mut out)?, (data.len(), packed.len()));
/// assert_eq!(out, data);
/// assert!(frame::decompress_into(&packed, &mut out[..100]).is_err());
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_into(src: &[u8], dst: &mut [u8]) -> Result<(usize, usize)> {
    slice::decompress_into(src, dst, true)
}

/// [`decompress_into`], checking the frame's own checksums only if
/// `verify` (a seekable entry whose table's checksum covers its bytes).
pub(crate) fn decompress_into_verifying(
    src: &[u8],
    dst: &mut [u8],
    verify: bool,
) -> Result<(usize, usize)> {
    slice::decompress_into(src, dst, verify)
}

/// [`decompress`] with a dictionary (the one the frames were compressed with).
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
///
/// let dict = b"shared vocabulary for small messages ".repeat(10);
/// let opts = FrameOptions::new().dictionary(&dict[..]).dict_id(Some(1));
/// let packed = frame::compress(b"small messages, shared vocabulary", &opts);
/// let out = frame::decompress_with_dict(&packed, &dict)?;
/// assert_eq!(out, b"small messages, shared vocabulary");
/// // Without it, a frame with a dictionary ID is refused.
/// assert!(frame::decompress(&packed).is_err());
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_with_dict(src: &[u8], dict: &[u8]) -> Result<Vec<u8>> {
    if dict.is_empty() {
        return slice::decompress(src, 1);
    }
    // Dictionaries are rare: let the streaming decoder keep them in its window.
    let mut out = Vec::new();
    FrameDecoder::with_dictionary(src, dict)
        .read_to_end(&mut out)
        .map_err(Error::from_io)?;
    Ok(out)
}

/// [`decompress`] with options: a dictionary, and worker threads that
/// decode the blocks of independent-block frames in parallel. The result,
/// and the error on corrupt input, are the same as [`decompress`]'s (or
/// [`decompress_with_dict`]'s) whatever the thread count.
///
/// ```
/// use lzkit::lz4::frame::{self, BlockSize, DecodeOptions, FrameOptions};
///
/// let data: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8).collect();
/// let opts = FrameOptions::new().block_size(BlockSize::Max64KB).threads(0);
/// let packed = frame::compress(&data, &opts);
/// let out = frame::decompress_with(&packed, &DecodeOptions::new().threads(0))?;
/// assert_eq!(out, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_with(src: &[u8], opts: &DecodeOptions) -> Result<Vec<u8>> {
    let dict = opts.dictionary.as_deref().unwrap_or_default();
    match dict {
        _ if !dict.is_empty() || !opts.verify_checksums => {
            let mut out = Vec::new();
            FrameDecoder::with_options(src, opts)
                .read_to_end(&mut out)
                .map_err(Error::from_io)?;
            Ok(out)
        }
        _ => slice::decompress(src, effective_threads(opts.threads)),
    }
}
