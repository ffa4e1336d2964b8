//! Dictionaries (RFC 8878 section 5): raw content, or the zstd format
//! (magic, ID, entropy tables, repeat offsets, content).

use super::DICT_MAGIC;
use super::block::Entropy;
use super::seq::Field;
use crate::error::{Error, Result, ZstdFrameFault};
use std::sync::Arc;

/// A decoding dictionary: content that frames' matches may reach before
/// their first byte and, for the zstd format (`zstd --train`), the entropy
/// tables and repeat offsets frames start from. Cheap to clone.
///
/// ```
/// use lzkit::zstd::Dictionary;
/// // Anything without the dictionary magic number is raw content, ID 0.
/// let d = Dictionary::new(b"GET /index.html HTTP/1.1\r\n")?;
/// assert_eq!(d.id(), 0);
/// # Ok::<(), lzkit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Dictionary {
    id: u32,
    content: Arc<[u8]>,
    entropy: Option<Arc<Entropy>>,
}

impl Dictionary {
    /// Parse `bytes`: a zstd-format dictionary if it starts with
    /// [`DICT_MAGIC`] (and is at least 8 bytes long), raw content (ID 0)
    /// otherwise.
    ///
    /// # Errors
    /// A zstd-format dictionary whose tables or repeat offsets are
    /// malformed ([`Error::CorruptFrame`] with the byte in the dictionary).
    pub fn new(bytes: &[u8]) -> Result<Dictionary> {
        if bytes.len() < 8
            || u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) != DICT_MAGIC
        {
            return Ok(Dictionary::raw(bytes));
        }
        let id = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let bad = |at: usize, what: &'static str| Error::CorruptFrame {
            at: at as u64,
            fault: ZstdFrameFault::Malformed(what).into(),
        };
        let mut ent = Entropy::default();
        let mut at = 8;
        at += ent
            .huf
            .read(&bytes[at..])
            .map_err(|_| bad(at, "dictionary: malformed Huffman table"))?;
        for field in [Field::Offset, Field::MatchLength, Field::LiteralLength] {
            at += ent
                .read_table(field, 2, &bytes[at..])
                .map_err(|_| bad(at, "dictionary: malformed FSE table"))?;
        }
        let reps = bytes
            .get(at..at + 12)
            .ok_or_else(|| bad(at, "dictionary ends in its repeat offsets"))?;
        let content = &bytes[at + 12..];
        for (i, r) in reps.chunks_exact(4).enumerate() {
            let rep = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as usize;
            if rep == 0 || rep > content.len() {
                return Err(bad(at + 4 * i, "dictionary: repeat offset out of range"));
            }
            ent.rep[i] = rep;
        }
        ent.huf_ok = true;
        ent.seq_ok = true;
        Ok(Dictionary {
            id,
            content: content.into(),
            entropy: Some(Arc::new(ent)),
        })
    }

    /// `bytes` as raw content (ID 0), whatever they start with.
    pub fn raw(bytes: &[u8]) -> Dictionary {
        Dictionary {
            id: 0,
            content: bytes.into(),
            entropy: None,
        }
    }

    /// The dictionary ID (0 for raw content).
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The content frames' matches may reach.
    pub fn content(&self) -> &[u8] {
        &self.content
    }

    /// The entropy tables frames start from, for the zstd format.
    pub(crate) fn entropy(&self) -> Option<&Entropy> {
        self.entropy.as_deref()
    }
}
