//! Decoding one table entry: a whole LZ4 or zstd frame, or one block of an
//! LZ4 frame of independent blocks.

use super::head::{LZ4_BLOCK_MAX, check_head};
use super::source::{ReadAt, Window};
use super::table::{Entry, EntryKind, MAX_ENTRY_SIZE, TableFormat, le32};
use crate::error::{Error, Result};
use crate::lz4::block;
use crate::lz4::frame::header::{BlockHeader, Header, MAX_DESCRIPTOR_LEN, Magic};
use crate::lz4::frame::{self, BlockMode};
use crate::zstd;
use std::io::Read;
use xxhash_rust::xxh64::Xxh64;
use xxhash_rust::{xxh32::xxh32, xxh64::xxh64};

/// The checksum a table stores: the low 32 bits of the XXH64 of an LZ4
/// entry's bytes in the file, or of a zstd entry's decoded bytes.
pub(crate) fn entry_checksum(data: &[u8]) -> u32 {
    xxh64(data, 0) as u32
}

fn malformed(reason: String) -> Error {
    Error::SeekTable { reason }
}

/// Decode `comp`, the bytes of one entry of `kind` in a `format` file,
/// into `out` (replacing its contents). `expected`: the decoded size the
/// table gives, if known (the output buffer is then exactly that large,
/// and a unit that decodes to anything else is an error). `verify_own`:
/// check the unit's own checksums (LZ4 block and content checksums, zstd
/// frame checksums).
pub(crate) fn decode(
    format: TableFormat,
    kind: EntryKind,
    comp: &[u8],
    expected: Option<u32>,
    verify_own: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    match (format, kind) {
        (TableFormat::Zstd, _) => decode_zstd(comp, expected, verify_own, out),
        (TableFormat::Lz4, EntryKind::Frame) => decode_lz4_frame(comp, expected, verify_own, out),
        (TableFormat::Lz4, EntryKind::Lz4Block { block_checksum }) => {
            decode_lz4_block(comp, block_checksum, expected, verify_own, out)
        }
    }
}

/// Size `out` for `expected` bytes (or clear it), reusing its memory.
fn prepare(out: &mut Vec<u8>, len: usize) -> Result<()> {
    if out.capacity() < len {
        *out = crate::mem::zeroed(len)?;
    } else {
        // Within capacity: `resize` writes only the bytes past the old
        // length, and every byte up to `len` is overwritten by the decoder
        // or checked to be (a unit that decodes to less is an error).
        out.resize(len, 0);
    }
    Ok(())
}

fn decode_zstd(comp: &[u8], expected: Option<u32>, verify: bool, out: &mut Vec<u8>) -> Result<()> {
    let head = comp.get(..4).ok_or(Error::Truncated {
        at: comp.len() as u64,
        what: "frame magic number",
    })?;
    let magic = le32(head);
    if zstd::is_skippable_magic(magic) {
        let size = comp.get(4..8).map(le32);
        if size.map(|s| u64::from(s) + 8) != Some(comp.len() as u64) {
            return Err(malformed(format!(
                "a skippable frame of {} bytes in the table's place for one of {} bytes",
                size.map_or(0, |s| s as u64 + 8),
                comp.len()
            )));
        }
        out.clear();
        return Ok(());
    }
    match expected {
        Some(n) => {
            let mut decoder = zstd::Decoder::for_cpu()
                .options(zstd::DecodeOptions::new().verify_checksums(verify));
            prepare(out, n as usize)?;
            let got = decoder.decompress_into(comp, out)?;
            out.truncate(got);
            Ok(())
        }
        // Streaming, so that what is held is what the frame decodes to, up
        // to the most an entry may hold (one more byte: too much).
        None => stream_decode(TableFormat::Zstd, comp, MAX_ENTRY_SIZE, verify, out),
    }
}

/// Decode the frames of `input` as a stream into `out` (replacing its
/// contents), at most `cap` bytes: more is [`Error::NotSeekable`]. What
/// is held is what the frames decode to, and `input` is read as it is
/// decoded (to its end: every byte must belong to a frame).
fn stream_decode(
    format: TableFormat,
    input: impl Read,
    cap: u64,
    verify: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    match format {
        TableFormat::Zstd => {
            let opts = zstd::DecodeOptions::new()
                .verify_checksums(verify)
                .window_log_max(MAX_ENTRY_SIZE.trailing_zeros());
            let stream =
                zstd::FrameDecoder::with_decoder(input, zstd::Decoder::for_cpu().options(opts));
            capped(stream, cap, out)
        }
        TableFormat::Lz4 => {
            let opts = frame::DecodeOptions::new()
                .threads(1)
                .verify_checksums(verify);
            capped(frame::FrameDecoder::with_options(input, &opts), cap, out)
        }
    }
}

/// Read `stream` into `out`, but no more than `cap` bytes: more is
/// [`Error::NotSeekable`] (an entry cannot be that large).
fn capped(stream: impl Read, cap: u64, out: &mut Vec<u8>) -> Result<()> {
    out.clear();
    stream
        .take(cap + 1)
        .read_to_end(out)
        .map_err(Error::from_io)?;
    if out.len() as u64 > cap {
        return Err(Error::NotSeekable {
            reason: format!(
                "a frame decodes to more than {cap} bytes, too large for one entry (rewrite the file with `lzkit --seekable`)"
            ),
        });
    }
    Ok(())
}

/// An LZ4 frame entry of `expected` decoded bytes: a standard frame goes
/// straight into `out` through the frame decoder's one-shot path (its own
/// checksums checked only if `verify`); anything else, or an entry of
/// unknown size, through [`general_lz4`].
fn decode_lz4_frame(
    comp: &[u8],
    expected: Option<u32>,
    verify: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    let standard = comp.get(..4).map(le32).and_then(Magic::classify) == Some(Magic::Standard);
    let Some(total) = expected.filter(|_| standard) else {
        return general_lz4(comp, expected, verify, out);
    };
    prepare(out, total as usize)?;
    let (filled, used) = frame::decode::decompress_into_verifying(comp, out, verify)?;
    if used != comp.len() {
        return Err(malformed(format!(
            "the frame ends after {used} of the entry's {} bytes",
            comp.len()
        )));
    }
    out.truncate(filled);
    Ok(())
}

fn too_long(total: u32) -> Error {
    malformed(format!(
        "the entry decodes to more than the {total} bytes the table says"
    ))
}

/// Any LZ4 frame, through the frame decoder.
fn general_lz4(comp: &[u8], expected: Option<u32>, verify: bool, out: &mut Vec<u8>) -> Result<()> {
    let cap = expected.map_or(MAX_ENTRY_SIZE, u64::from);
    match (
        stream_decode(TableFormat::Lz4, comp, cap, verify, out),
        expected,
    ) {
        (Err(Error::NotSeekable { .. }), Some(n)) => Err(too_long(n)),
        (other, _) => other,
    }
}

fn decode_lz4_block(
    comp: &[u8],
    block_checksum: bool,
    expected: Option<u32>,
    verify: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    let word = comp.get(..4).map(le32).ok_or(Error::Truncated {
        at: comp.len() as u64,
        what: "block size",
    })?;
    let (len, stored) = match BlockHeader::parse(word, LZ4_BLOCK_MAX)? {
        BlockHeader::End => (0, true),
        BlockHeader::Data { len, stored } => (len, stored),
    };
    let trailer = if block_checksum { 4 } else { 0 };
    if comp.len() != 4 + len + trailer {
        return Err(malformed(format!(
            "a block of {} bytes in the table's place for one of {} bytes",
            4 + len + trailer,
            comp.len()
        )));
    }
    let data = &comp[4..4 + len];
    if block_checksum && verify {
        let stored_sum = le32(&comp[4 + len..]);
        let computed = xxh32(data, 0);
        if computed != stored_sum {
            return Err(Error::BlockChecksum {
                stored: stored_sum,
                computed,
            });
        }
    }
    let cap = expected.map_or(LZ4_BLOCK_MAX, |n| n as usize);
    if stored {
        if data.len() > cap {
            return Err(too_long(cap as u32));
        }
        out.clear();
        out.extend_from_slice(data);
        return Ok(());
    }
    prepare(out, cap.min(block::max_decoded_size(len)))?;
    let n = block::decompress_into(data, out)?;
    out.truncate(n);
    Ok(())
}

/// Check entry `index`'s stored checksum against `computed`.
fn check_sum(index: usize, e: &Entry, computed: u32, of: &str) -> Result<()> {
    match e.checksum {
        Some(stored) if stored != computed => Err(Error::SeekTable {
            reason: format!(
                "entry {index} at byte {}: checksum {computed:#010x} of its {of}, the table says {stored:#010x}",
                e.compressed_offset
            ),
        }),
        _ => Ok(()),
    }
}

/// Decode entry `index` (`e`, whose bytes are `comp`) into `out` and check
/// it against the table: its decoded size and, if `verify` and the table
/// has them, its checksum (of its bytes in the file for LZ4 tables, checked
/// before decoding unless `bytes_checked`; of its decoded bytes for zstd
/// tables, as zstd's format says). The unit's own checksums are checked
/// instead when the table has none.
pub(crate) fn decode_entry(
    format: TableFormat,
    index: usize,
    e: &Entry,
    comp: &[u8],
    verify: bool,
    bytes_checked: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    if verify && !bytes_checked && format == TableFormat::Lz4 {
        check_sum(index, e, entry_checksum(comp), "bytes")?;
    }
    let verify_own = verify && e.checksum.is_none();
    decode(
        format,
        e.kind,
        comp,
        Some(e.decompressed_size),
        verify_own,
        out,
    )
    .map_err(|err| in_entry(index, e, err))?;
    if out.len() != e.decompressed_size as usize {
        return Err(size_mismatch(index, e, out.len()));
    }
    if verify && format == TableFormat::Zstd {
        check_sum(index, e, entry_checksum(out), "decoded bytes")?;
    }
    Ok(())
}

fn in_entry(index: usize, e: &Entry, err: Error) -> Error {
    match err {
        Error::SeekTable { reason } => Error::SeekTable {
            reason: format!("entry {index} at byte {}: {reason}", e.compressed_offset),
        },
        // The entry's own position replaces that of a decoder that saw
        // the entry alone (which says "frame 0 at byte 0").
        Error::Frame { source, .. } => Error::Frame {
            index: index as u64,
            at: e.compressed_offset,
            source,
        },
        other @ Error::OutOfMemory { .. } => other,
        other => Error::Frame {
            index: index as u64,
            at: e.compressed_offset,
            source: Box::new(other),
        },
    }
}

fn size_mismatch(index: usize, e: &Entry, got: usize) -> Error {
    Error::SeekTable {
        reason: format!(
            "entry {index} at byte {} decodes to {got} bytes, the table says {}",
            e.compressed_offset, e.decompressed_size
        ),
    }
}

/// The blocks of an LZ4 frame that can be decoded one by one: independent,
/// no dictionary, the content size the table says, every block but the
/// last full. Each: where its data starts in the entry, its length, and
/// whether it is stored.
struct Blocks {
    size: usize,
    list: Vec<(usize, usize, bool)>,
}

/// The layout of the LZ4 frame `comp`, if it decodes block by block (see
/// [`Blocks`]); `None` if it does not (it is then decoded whole, which
/// reports what is wrong with it, if anything).
fn lz4_blocks(comp: &[u8], decoded: u32) -> Option<Blocks> {
    if comp.get(..4).map(le32) != Some(frame::MAGIC) {
        return None;
    }
    let desc_len = Header::descriptor_len(*comp.get(4)?);
    let h = Header::parse(comp.get(4..4 + desc_len.min(MAX_DESCRIPTOR_LEN))?, 0).ok()?;
    if h.block_mode != BlockMode::Independent
        || h.dict_id.is_some()
        || h.content_size != Some(u64::from(decoded))
    {
        return None;
    }
    let size = h.block_size.bytes();
    let count = (decoded as usize).div_ceil(size);
    if count < 2 {
        return None;
    }
    let mut list = Vec::with_capacity(count);
    let mut pos = 4 + desc_len;
    loop {
        let word = comp.get(pos..pos + 4).map(le32)?;
        pos += 4;
        match BlockHeader::parse(word, size).ok()? {
            BlockHeader::End => break,
            BlockHeader::Data { len, stored } => {
                if list.len() == count {
                    return None;
                }
                list.push((pos, len, stored));
                pos += len + if h.block_checksum { 4 } else { 0 };
            }
        }
    }
    pos += if h.content_checksum { 4 } else { 0 };
    (list.len() == count && pos == comp.len()).then_some(Blocks { size, list })
}

/// The decoded length of the LZ4 block `src`, from its tokens and length
/// bytes alone (nothing is copied); `None` if it is malformed.
fn block_len(src: &[u8]) -> Option<usize> {
    let mut pos = 0usize;
    let mut total = 0usize;
    let extra = |pos: &mut usize| -> Option<usize> {
        let mut n = 0usize;
        loop {
            let b = *src.get(*pos)?;
            *pos += 1;
            n = n.checked_add(b as usize)?;
            if b != 255 {
                return Some(n);
            }
        }
    };
    loop {
        let token = *src.get(pos)?;
        pos += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            lit = lit.checked_add(extra(&mut pos)?)?;
        }
        pos = pos.checked_add(lit)?;
        total = total.checked_add(lit)?;
        if pos == src.len() {
            return Some(total);
        }
        if pos + 2 > src.len() {
            return None;
        }
        pos += 2;
        let mut m = (token & 15) as usize + 4;
        if m == 19 {
            m = m.checked_add(extra(&mut pos)?)?;
        }
        total = total.checked_add(m)?;
    }
}

/// Decode the part of entry `index` that holds its decoded byte `want`:
/// for an LZ4 frame of independent blocks whose bytes the table's checksum
/// covers (or with `verify` off), only the block holding it; otherwise the
/// whole entry (as [`decode_entry`]). `checked`: `comp` was checked
/// against the table already (by an earlier call for the same entry).
/// Returns where the decoded part starts in the entry. A block that
/// decodes to another length than its place in the frame is an error.
#[allow(clippy::too_many_arguments)]
pub(crate) fn decode_piece(
    format: TableFormat,
    index: usize,
    e: &Entry,
    comp: &[u8],
    verify: bool,
    checked: bool,
    want: u64,
    out: &mut Vec<u8>,
) -> Result<u64> {
    if format != TableFormat::Lz4 || e.kind != EntryKind::Frame || (verify && e.checksum.is_none())
    {
        decode_entry(format, index, e, comp, verify, false, out)?;
        return Ok(0);
    }
    if verify && !checked {
        check_sum(index, e, entry_checksum(comp), "bytes")?;
    }
    let Some(blocks) = lz4_blocks(comp, e.decompressed_size) else {
        decode_entry(format, index, e, comp, verify, true, out)?;
        return Ok(0);
    };
    let k = (want as usize / blocks.size).min(blocks.list.len() - 1);
    let start = k * blocks.size;
    let expected = blocks.size.min(e.decompressed_size as usize - start);
    // Every block before this one must fill its place (a frame flushed
    // mid-block has a short block, which would move the rest): their
    // decoded lengths, from their sequences alone.
    for &(p, l, st) in &blocks.list[..k] {
        let full = if st {
            l
        } else {
            block_len(&comp[p..p + l]).unwrap_or(0)
        };
        if full != blocks.size {
            decode_entry(format, index, e, comp, verify, true, out)?;
            return Ok(0);
        }
    }
    let (pos, len, stored) = blocks.list[k];
    let data = &comp[pos..pos + len];
    let n = if stored {
        out.clear();
        out.extend_from_slice(data);
        data.len()
    } else {
        prepare(out, expected)?;
        block::decompress_into(data, out).map_err(|err| {
            in_entry(
                index,
                e,
                Error::Block {
                    index: k as u64,
                    at: (pos - 4) as u64,
                    source: Box::new(err),
                },
            )
        })?
    };
    if n != expected {
        return Err(Error::SeekTable {
            reason: format!(
                "entry {index} at byte {}: block {k} decodes to {n} bytes, its place in the frame holds {expected}",
                e.compressed_offset
            ),
        });
    }
    out.truncate(n);
    Ok(start as u64)
}

/// The most bytes an entry of `decoded` bytes takes in a file any common
/// encoder writes (incompressible data stored, a block header per block,
/// the frame's header and checksums); an entry that takes more is read
/// piece by piece as it is decoded, so that a size the table claims is
/// never read or held before the data backs it.
fn plausible_len(decoded: u32) -> u64 {
    let d = u64::from(decoded);
    d + d / 16 + (64 << 10)
}

/// Whether entry `e` is decoded as it is read: larger than its decoded
/// size makes plausible, or than `stream_above` bytes.
pub(crate) fn streamed(e: &Entry, stream_above: u64) -> bool {
    let c = u64::from(e.compressed_size);
    c > plausible_len(e.decompressed_size) || c > stream_above
}

/// A `Read` that hashes what passes through it (an LZ4 entry's bytes, for
/// the table's checksum).
struct Hashing<R> {
    inner: R,
    sum: Xxh64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }
}

/// Read entry `index` (`e`) of `src` and decode it into `out`, checked as
/// [`decode_entry`] checks it, with `comp` for its bytes. Its header is
/// checked against the table first (magic number, stated size); an entry
/// that decodes to nothing was checked when the table was read and is not
/// read again; an entry larger than its decoded size makes plausible is
/// decoded as it is read (see [`plausible_len`]), and so is one of more
/// than `stream_above` bytes.
///
/// # Errors
/// As [`decode_entry`]; I/O errors of `src`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_entry<S: ReadAt + ?Sized>(
    src: &S,
    format: TableFormat,
    index: usize,
    e: &Entry,
    verify: bool,
    stream_above: u64,
    comp: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<()> {
    if e.decompressed_size == 0 {
        out.clear();
        return Ok(());
    }
    check_head(format, src, index, e)?;
    if !streamed(e, stream_above) {
        crate::mem::resize_for_read(comp, e.compressed_size as usize)?;
        src.read_exact_at(comp, e.compressed_offset)?;
        return decode_entry(format, index, e, comp, verify, false, out);
    }
    let mut input = Hashing {
        inner: Window {
            src,
            pos: e.compressed_offset,
            end: e.compressed_end(),
        },
        sum: Xxh64::new(0),
    };
    let cap = u64::from(e.decompressed_size);
    let verify_own = verify && e.checksum.is_none();
    match stream_decode(format, &mut input, cap, verify_own, out) {
        Err(Error::NotSeekable { .. }) => {
            return Err(in_entry(index, e, too_long(e.decompressed_size)));
        }
        other => other.map_err(|err| in_entry(index, e, err))?,
    }
    if input.inner.pos != input.inner.end {
        return Err(malformed(format!(
            "entry {index} at byte {}: its frames end after {} of its {} bytes",
            e.compressed_offset,
            input.inner.pos - e.compressed_offset,
            e.compressed_size
        )));
    }
    if out.len() != e.decompressed_size as usize {
        return Err(size_mismatch(index, e, out.len()));
    }
    if verify {
        match format {
            TableFormat::Lz4 => check_sum(index, e, input.sum.digest() as u32, "bytes")?,
            TableFormat::Zstd => check_sum(index, e, entry_checksum(out), "decoded bytes")?,
        }
    }
    Ok(())
}
