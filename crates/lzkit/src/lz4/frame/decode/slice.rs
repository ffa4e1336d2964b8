//! The one-shot path: every frame of a slice decoded straight into one
//! output vector. Independent-block frames go to [`super::parallel`] when
//! more than one thread is asked for; legacy streams to [`super::legacy`].

use super::frame_state::{FrameState, block_room, reserve_limit};
use super::input::{SliceInput, finish_frame_slice, slice_block};
use super::legacy;
use super::parallel::{self, SlicePar};
use crate::error::{Error, Result};
use crate::lz4::block::Decoder;
use crate::lz4::frame::BlockMode;
use crate::lz4::frame::header::{BLOCK_STORED_FLAG, Header, Magic, unknown_magic};
use crate::mem::{self, out_of_memory};

/// The one-shot decoder without a dictionary, on `threads` threads.
pub(super) fn decompress(src: &[u8], threads: usize) -> Result<Vec<u8>> {
    let mut par = SlicePar::new(threads);
    // The whole input is one stream: one decoder learns from all of it
    // (and from nothing before it).
    let mut decoder = Decoder::new();
    let mut input = SliceInput { src, pos: 0 };
    let mut out = Vec::new();
    while input.pos < src.len() {
        decode_one(&mut input, &mut out, &mut decoder, &mut par, threads)?;
    }
    Ok(out)
}

/// The first frame of `src` only (a skippable one decodes to nothing):
/// its content, and the bytes it took.
pub(super) fn decompress_first(src: &[u8], threads: usize) -> Result<(Vec<u8>, usize)> {
    let mut par = SlicePar::new(threads);
    let mut decoder = Decoder::new();
    let mut input = SliceInput { src, pos: 0 };
    let mut out = Vec::new();
    decode_one(&mut input, &mut out, &mut decoder, &mut par, threads)?;
    Ok((out, input.pos))
}

/// The first frame of `src`, a standard frame, decoded into `dst`: the
/// bytes written and the bytes of `src` it took. Its block and content
/// checksums are checked only if `verify`.
pub(super) fn decompress_into(src: &[u8], dst: &mut [u8], verify: bool) -> Result<(usize, usize)> {
    let mut input = SliceInput { src, pos: 0 };
    let magic = input.u32("magic number")?;
    if Magic::classify(magic) != Some(Magic::Standard) {
        return Err(unknown_magic(magic, 0));
    }
    let header = read_header(&mut input, 0)?;
    if let Some(dict_id) = header.dict_id {
        return Err(Error::DictionaryRequired { dict_id });
    }
    let mut decoder = Decoder::new();
    let mut state = FrameState::with_verification(header, verify);
    let block_max = header.block_size.bytes();
    let mut filled = 0usize;
    while let Some(block) = slice_block(&mut input, &header, state.block_index)? {
        let room = block_room(block.data.len(), block.stored, block_max);
        let end = filled.saturating_add(room).min(dst.len());
        let history = match header.block_mode {
            BlockMode::Linked => 0,
            BlockMode::Independent => filled,
        };
        filled += state.decode_block(
            &mut decoder,
            block,
            &mut dst[history..end],
            filled - history,
        )?;
    }
    finish_frame_slice(&mut input, &state)?;
    Ok((filled, input.pos))
}

/// Decode the frame at `input` (of any kind) onto `out`.
fn decode_one(
    input: &mut SliceInput<'_>,
    out: &mut Vec<u8>,
    decoder: &mut Decoder,
    par: &mut SlicePar,
    threads: usize,
) -> Result<()> {
    let at = input.pos as u64;
    let magic = input.u32("magic number")?;
    match Magic::classify(magic) {
        Some(Magic::Standard) => {
            let header = read_header(input, at)?;
            if let Some(dict_id) = header.dict_id {
                return Err(Error::DictionaryRequired { dict_id });
            }
            if threads > 1 && header.block_mode == BlockMode::Independent {
                parallel::decode_frame_slice(input, header, out, par)?;
            } else {
                decode_frame_slice(input, header, out, decoder)?;
            }
        }
        Some(Magic::Legacy) => legacy::decode_slice(input, out, decoder)?,
        Some(Magic::Skippable) => {
            let len = input.u32("skippable frame size")? as usize;
            input.take(len, "skippable frame")?;
        }
        None => return Err(unknown_magic(magic, at)),
    }
    Ok(())
}

fn read_header(input: &mut SliceInput<'_>, at: u64) -> Result<Header> {
    let flg = *input.src.get(input.pos).ok_or(Error::Truncated {
        at: input.pos as u64,
        what: "frame header",
    })?;
    let desc = input.take(Header::descriptor_len(flg), "frame header")?;
    Header::parse(desc, at)
}

/// One frame of the one-shot path: blocks decode straight into `out`, and
/// linked blocks see the frame's earlier output as history.
fn decode_frame_slice(
    input: &mut SliceInput<'_>,
    header: Header,
    out: &mut Vec<u8>,
    decoder: &mut Decoder,
) -> Result<()> {
    let mut state = FrameState::new(header);
    let block_max = header.block_size.bytes();
    // Reserve the output once: growing the vector block by block would copy
    // everything decoded so far at every doubling (as costly as decoding
    // highly compressible data). But only what the blocks can produce,
    // whatever the header claims (a content size of 2^63 in a 28-byte
    // frame), and no more than reserve_limit of the frame's size: past
    // that, the output grows as the blocks decode.
    let (bound, compressed) = output_bound(input.src, input.pos, &header);
    let expected = header
        .content_size
        .map_or(bound, |n| {
            usize::try_from(n).unwrap_or(usize::MAX).min(bound)
        })
        .min(reserve_limit(compressed));
    out.try_reserve(expected)
        .map_err(|_| out_of_memory(out.len().saturating_add(expected)))?;
    let frame_start = out.len();
    let mut filled = out.len();
    while let Some(block) = slice_block(input, &header, state.block_index)? {
        // Only what the previous block left unused is re-zeroed.
        let room = block_room(block.data.len(), block.stored, block_max);
        mem::grow_zeroed(out, filled + room)?;
        let history = match header.block_mode {
            BlockMode::Linked => frame_start,
            BlockMode::Independent => filled,
        };
        let buf = &mut out[history..filled + room];
        let decoded = state.decode_block(decoder, block, buf, filled - history);
        match decoded {
            Ok(n) => filled += n,
            Err(e) => {
                out.truncate(filled);
                return Err(e);
            }
        }
    }
    out.truncate(filled);
    finish_frame_slice(input, &state)
}

/// The most the LZ4 frame at the start of `src` can decode to, read from
/// its header and its blocks' size words alone (no decoding): a stored
/// block its length, a compressed block at most 255 bytes per byte plus a
/// little slack, each at most the frame's block maximum; a block cut short
/// counts only the bytes there. The one-shot decoders size their output by
/// this bound, whatever content size the header claims. `None` if `src`
/// does not start with a valid standard frame header.
///
/// ```
/// use lzkit::lz4::frame;
/// let data = vec![7u8; 100_000];
/// let packed = frame::compress(&data, &frame::FrameOptions::new());
/// let bound = frame::max_decoded_len(&packed).unwrap();
/// assert!(bound >= data.len());
/// assert_eq!(frame::max_decoded_len(b"not a frame"), None);
/// ```
pub fn max_decoded_len(src: &[u8]) -> Option<usize> {
    let magic = src.get(..4)?;
    if Magic::classify(u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]))
        != Some(Magic::Standard)
    {
        return None;
    }
    let desc_len = Header::descriptor_len(*src.get(4)?);
    let header = Header::parse(src.get(4..4 + desc_len)?, 0).ok()?;
    Some(output_bound(src, 4 + desc_len, &header).0)
}

/// An upper bound of a frame's decoded size from its block size words alone
/// (no decoding): the sum of the blocks' [`block_room`]s, which is what
/// the blocks can produce at most; and the frame's compressed bytes
/// walked. Stops quietly at anything malformed (a size past the input's
/// end counts only the bytes there); decoding reports it.
fn output_bound(src: &[u8], start: usize, header: &Header) -> (usize, usize) {
    let block_max = header.block_size.bytes();
    let trailer = if header.block_checksum { 4 } else { 0 };
    let mut total = 0usize;
    let mut pos = start;
    while let Some(word) = src.get(pos..pos + 4) {
        let word = u32::from_le_bytes(word.try_into().expect("4 bytes"));
        let len = (word & !BLOCK_STORED_FLAG) as usize;
        if word == 0 || len > block_max {
            break;
        }
        // A block cut short can produce only from the bytes there.
        let len = len.min(src.len() - pos - 4);
        total = total.saturating_add(block_room(len, word & BLOCK_STORED_FLAG != 0, block_max));
        pos = pos.saturating_add(4 + len + trailer);
    }
    (total, pos.min(src.len()) - start)
}
