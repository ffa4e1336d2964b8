//! [`check_head`] compares one entry with the header of the frame it
//! points at (magic number, stated content size, a block's size word)
//! before its bytes are read: a range read checks the entries before the
//! one it reads this way (their sizes place its content), and the entry
//! it reads before reading the rest of it.

use super::source::ReadAt;
use super::table::{Entry, EntryKind, TableFormat, bad, le32};
use crate::error::Result;
use crate::lz4::frame;
use crate::lz4::frame::header::{BlockHeader, Header, MAX_DESCRIPTOR_LEN};
use crate::zstd;

/// The largest LZ4 block an entry may hold: the frame format's largest
/// block size (4 MiB).
pub(super) const LZ4_BLOCK_MAX: usize = frame::BlockSize::Max4MB.bytes();

/// Compare entry `i` with the header of what it points at, reading only
/// that header: the magic number, the stated content size where there is
/// one (and for a skippable frame its length), an LZ4 block's size word.
/// Returns the decoded size the header states, if it states one.
///
/// # Errors
/// [`crate::Error::SeekTable`] if they disagree; I/O errors.
pub(crate) fn check_head<S: ReadAt + ?Sized>(
    format: TableFormat,
    src: &S,
    i: usize,
    e: &Entry,
) -> Result<Option<u64>> {
    let mut head = [0u8; 4 + MAX_DESCRIPTOR_LEN];
    let n = head.len().min(e.compressed_size as usize);
    let head = &mut head[..n];
    src.read_exact_at(head, e.compressed_offset)?;
    let at = e.compressed_offset;
    let fail = |what: String| bad(format!("entry {i} at byte {at}: {what}"));
    let stated = match (format, e.kind) {
        (TableFormat::Zstd, _) => match zstd::frame::parse(head, at) {
            Ok(zstd::frame::Start::Skippable(len)) => {
                if len != u64::from(e.compressed_size) {
                    return Err(fail(format!(
                        "a skippable frame of {len} bytes where the table says {}",
                        e.compressed_size
                    )));
                }
                Some(0)
            }
            Ok(zstd::frame::Start::Frame(h)) => h.content_size,
            Err(err) => return Err(fail(format!("not a zstd frame ({err})"))),
        },
        (TableFormat::Lz4, EntryKind::Frame) => {
            if head.len() < 5 || le32(head) != frame::MAGIC {
                return Err(fail("not an LZ4 frame (no magic number)".into()));
            }
            let desc_len = Header::descriptor_len(head[4]);
            let desc = head
                .get(4..4 + desc_len)
                .ok_or_else(|| fail("an LZ4 frame header longer than the entry".into()))?;
            Header::parse(desc, at)
                .map_err(|err| fail(format!("{err}")))?
                .content_size
        }
        (TableFormat::Lz4, EntryKind::Lz4Block { block_checksum }) => {
            if head.len() < 4 {
                return Err(fail("too short for an LZ4 block".into()));
            }
            let (len, stored) = match BlockHeader::parse(le32(head), LZ4_BLOCK_MAX) {
                Ok(BlockHeader::Data { len, stored }) => (len, stored),
                Ok(BlockHeader::End) => {
                    return Err(fail("a frame's end mark, not a block".into()));
                }
                Err(err) => return Err(fail(format!("{err}"))),
            };
            let whole = 4 + len as u64 + if block_checksum { 4 } else { 0 };
            if whole != u64::from(e.compressed_size) {
                return Err(fail(format!(
                    "a block of {whole} bytes where the table says {}",
                    e.compressed_size
                )));
            }
            stored.then_some(len as u64)
        }
    };
    if let Some(size) = stated
        && size != u64::from(e.decompressed_size)
    {
        return Err(fail(format!(
            "its header says it decodes to {size} bytes, the table says {}",
            e.decompressed_size
        )));
    }
    Ok(stated)
}
