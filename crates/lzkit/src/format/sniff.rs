//! The one sniffer: which format a reader holds, read from its first
//! bytes past any skippable frames.

use std::io::{self, Read};

use super::{DETECT_LEN, Format, LZ4_FRAME_MAGIC, LZ4_LEGACY_MAGIC, detect, is_skippable};

/// Bytes read at each step: a skippable frame's header (magic number and
/// size), which is also enough for [`detect`].
const HEAD_LEN: usize = 8;
const _: () = assert!(DETECT_LEN <= HEAD_LEN);

/// What [`sniff`] found after the leading skippable frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A format's magic bytes (a skippable frame whose header is cut
    /// short counts as LZ4 frames, as in [`detect`]: the LZ4 decoder
    /// reports the truncation).
    Format(Format),
    /// The input ended before a whole four-byte magic number:
    /// [`Sniffed::rest`] (0 to 3 bytes) is all there is after the
    /// skippable frames.
    End,
    /// The input ended inside a skippable frame's content.
    TruncatedSkippable,
    /// A skippable frame whose content would take the bytes read past
    /// `limit`: [`Sniffed::head`] ends with its 8-byte header, and
    /// `remaining` bytes of its content are still unread.
    OverLimit {
        /// The frame's content bytes not read yet.
        remaining: u64,
    },
    /// Bytes that start no format lzkit reads ([`Sniffed::rest`]).
    Unknown,
}

/// The start of an input, as [`sniff`] read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sniffed {
    /// Every byte read, skippable frames included: a decoder of the input
    /// must be given these first.
    pub head: Vec<u8>,
    /// How many of them are whole skippable frames (at the start).
    pub skipped: usize,
    /// What follows them.
    pub found: Found,
}

impl Sniffed {
    /// The bytes read after the skippable frames.
    pub fn rest(&self) -> &[u8] {
        &self.head[self.skipped..]
    }
}

/// Read the start of `input` until its format is known: past skippable
/// frames (shared by LZ4 and zstd) while they add up to at most `limit`
/// bytes, then up to [`DETECT_LEN`] bytes more for [`detect`] (at least a
/// four-byte magic number, or to the end of a shorter input). Reads the
/// input however it delivers its bytes (a pipe may hand out one at a time).
///
/// ```
/// use lzkit::format::{Format, Found, sniff};
/// let mut input = &[0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 9, 0x28, 0xb5, 0x2f, 0xfd][..];
/// let s = sniff(&mut input, 1 << 20)?;
/// assert_eq!((s.found, s.skipped), (Found::Format(Format::Zstd), 9));
/// assert_eq!(s.rest(), &[0x28, 0xb5, 0x2f, 0xfd]);
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
/// The input's read errors (`Interrupted` is retried).
pub fn sniff(input: &mut impl Read, limit: usize) -> io::Result<Sniffed> {
    let mut head = Vec::new();
    loop {
        let skipped = head.len();
        let done = |head: Vec<u8>, found| {
            Ok(Sniffed {
                head,
                skipped,
                found,
            })
        };
        read_up_to(input, &mut head, HEAD_LEN)?;
        let rest = &head[skipped..];
        let word = rest
            .get(..4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        let size = match (word, rest.get(4..8)) {
            (Some(w), Some(s)) if is_skippable(w) => u32::from_le_bytes([s[0], s[1], s[2], s[3]]),
            _ => {
                let found = match detect(rest) {
                    Some(format) => Found::Format(format),
                    None if word.is_none() => Found::End,
                    None => Found::Unknown,
                };
                return done(head, found);
            }
        };
        // The 8 bytes read are this frame's header, no more.
        debug_assert_eq!(head.len(), skipped + 8);
        let size = size as usize;
        if head.len().saturating_add(size) > limit {
            return done(
                head,
                Found::OverLimit {
                    remaining: size as u64,
                },
            );
        }
        let want = head.len() + size;
        read_up_to(input, &mut head, size)?;
        if head.len() < want {
            return done(head, Found::TruncatedSkippable);
        }
    }
}

/// Whether `bytes` (an input's first bytes after skippable frames, fewer
/// than 4: [`Found::End`]) start like an LZ4 magic number: frame, legacy
/// frame or skippable frame. Empty input counts (an empty stream of frames
/// decodes to nothing): the LZ4 decoder is the one to report on such input.
pub fn is_lz4_prefix(bytes: &[u8]) -> bool {
    let n = bytes.len().min(4);
    let frame = LZ4_FRAME_MAGIC.to_le_bytes();
    let legacy = LZ4_LEGACY_MAGIC.to_le_bytes();
    // Skippable frames: 0x184D2A50 to 0x184D2A5F.
    let skippable = crate::lz4::frame::SKIPPABLE_MAGIC_MIN.to_le_bytes();
    bytes.is_empty()
        || bytes[..n] == frame[..n]
        || bytes[..n] == legacy[..n]
        || (bytes[0] & 0xF0 == skippable[0] && bytes[1..n] == skippable[1..n])
}

/// Append up to `n` bytes of `input` to `buf`, fewer only at its end.
fn read_up_to(input: &mut impl Read, buf: &mut Vec<u8>, n: usize) -> io::Result<()> {
    let want = buf.len() + n;
    let mut chunk = [0u8; 4096];
    while buf.len() < want {
        let room = (want - buf.len()).min(chunk.len());
        match input.read(&mut chunk[..room]) {
            Ok(0) => break,
            Ok(got) => buf.extend_from_slice(&chunk[..got]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Codec, ZSTD_MAGIC};

    fn sniffed(data: &[u8], limit: usize) -> Sniffed {
        let mut input = data;
        let s = sniff(&mut input, limit).unwrap();
        assert_eq!(&data[..s.head.len()], &s.head[..]);
        s
    }

    fn skippable(content: usize) -> Vec<u8> {
        let mut f = 0x184D_2A53u32.to_le_bytes().to_vec();
        f.extend_from_slice(&(content as u32).to_le_bytes());
        f.resize(8 + content, 7);
        f
    }

    #[test]
    fn formats_past_skippable_frames() {
        let zstd = ZSTD_MAGIC.to_le_bytes();
        let lz4 = LZ4_FRAME_MAGIC.to_le_bytes();
        let s = sniffed(&[], 100);
        assert_eq!((s.found, s.skipped, s.head.len()), (Found::End, 0, 0));
        assert_eq!(sniffed(&zstd, 100).found, Found::Format(Format::Zstd));
        assert_eq!(sniffed(b"plain text", 100).found, Found::Unknown);
        assert_eq!(sniffed(b"plain text", 100).head.len(), 8);
        assert_eq!(sniffed(&lz4[..2], 100).found, Found::End);
        assert!(is_lz4_prefix(&lz4[..2]) && is_lz4_prefix(&[]) && !is_lz4_prefix(b"ab"));

        let mut data = skippable(100);
        data.extend(skippable(0));
        data.extend_from_slice(&zstd);
        data.extend_from_slice(b"rest");
        let s = sniffed(&data, 1 << 20);
        assert_eq!((s.found, s.skipped), (Found::Format(Format::Zstd), 116));
        assert_eq!(s.rest(), &data[116..]);
        // Only skippable frames, a cut header, a cut frame, a large one.
        let s = sniffed(&skippable(5), 100);
        assert_eq!((s.found, s.skipped, s.head.len()), (Found::End, 13, 13));
        let s = sniffed(&skippable(5)[..6], 100);
        assert_eq!(
            (s.found, s.head.len()),
            (Found::Format(Format::Lz4Frame), 6)
        );
        let s = sniffed(&skippable(5)[..10], 100);
        assert_eq!((s.found, s.head.len()), (Found::TruncatedSkippable, 10));
        let s = sniffed(&skippable(100), 100);
        assert_eq!(
            (s.found, s.skipped, s.head.len()),
            (Found::OverLimit { remaining: 100 }, 0, 8)
        );
        let mut data = skippable(1);
        data.extend_from_slice(b"junk");
        assert_eq!(sniffed(&data, 100).found, Found::Unknown);
    }

    /// The command's rule (`lzkit -d`, `-dcf`): zstd, else LZ4 for anything
    /// LZ4's decoder should report on, else something to pass through.
    fn command_rule(data: &[u8]) -> Option<Codec> {
        let s = sniffed(data, 1 << 20);
        match s.found {
            Found::Format(Format::Zstd) => Some(Codec::Zstd),
            _ if s.skipped > 0 => Some(Codec::Lz4),
            Found::Format(Format::Lz4Frame | Format::Lz4Legacy)
            | Found::TruncatedSkippable
            | Found::OverLimit { .. } => Some(Codec::Lz4),
            Found::End if is_lz4_prefix(s.rest()) => Some(Codec::Lz4),
            _ => None,
        }
    }

    #[test]
    fn the_commands_rule_is_expressible() {
        let zstd = ZSTD_MAGIC.to_le_bytes();
        let lz4 = LZ4_FRAME_MAGIC.to_le_bytes();
        assert_eq!(command_rule(&[]), Some(Codec::Lz4));
        assert_eq!(command_rule(&zstd), Some(Codec::Zstd));
        assert_eq!(command_rule(&lz4), Some(Codec::Lz4));
        assert_eq!(
            command_rule(&LZ4_LEGACY_MAGIC.to_le_bytes()),
            Some(Codec::Lz4)
        );
        assert_eq!(command_rule(b"plain text"), None);
        assert_eq!(command_rule(&[0x1f, 0x8b, 8, 0, 0]), None);
        assert_eq!(command_rule(&lz4[..2]), Some(Codec::Lz4));
        assert_eq!(command_rule(b"ab"), None);
        let mut data = skippable(3);
        data.extend_from_slice(&zstd);
        assert_eq!(command_rule(&data), Some(Codec::Zstd));
        for only in [
            skippable(5),
            skippable(5)[..10].to_vec(),
            skippable(1 << 20),
        ] {
            assert_eq!(command_rule(&only), Some(Codec::Lz4));
        }
        let mut data = skippable(1);
        data.extend_from_slice(b"junk");
        assert_eq!(command_rule(&data), Some(Codec::Lz4));
    }
}
