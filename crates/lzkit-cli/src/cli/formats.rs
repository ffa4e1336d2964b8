//! Which format an input holds, told by its magic number (never by its
//! name), and what to say when its frames switch from one codec to the
//! other or a zstd frame needs more memory than allowed.

use std::io::{self, Read};

use lzkit::zstd;

/// The LZ4 frame format's magic number.
const LZ4_MAGIC: u32 = 0x184D_2204;
/// The LZ4 legacy format's magic number.
const LZ4_LEGACY_MAGIC: u32 = 0x184C_2102;
/// Skippable frames (shared by LZ4 and zstd) are read past, to find the
/// first frame with data, only while they add up to this much: what a
/// skippable frame usually holds (an index, a signature) is far smaller,
/// and past it the input is handed to the LZ4 decoder as before.
const SNIFF_LIMIT: usize = 1 << 20;

/// What an input starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// LZ4 frames (or legacy frames), or nothing: an empty input, and
    /// input that only starts like an LZ4 magic number, are LZ4's to
    /// report on.
    Lz4,
    /// Zstandard frames.
    Zstd,
    /// Anything else (`-dcf` copies it through).
    Other,
}

/// Whether `magic` is one of LZ4's: frame or legacy frame.
fn is_lz4_magic(magic: u32) -> bool {
    magic == LZ4_MAGIC || magic == LZ4_LEGACY_MAGIC
}

/// Whether `head` (an input's first bytes, up to 4) starts like an LZ4
/// magic number: frame, legacy frame or skippable frame. Empty input counts
/// as LZ4 (an empty stream of frames decodes to nothing); shorter input is
/// compared as far as it goes.
fn starts_like_lz4(head: &[u8]) -> bool {
    if head.is_empty() {
        return true;
    }
    let n = head.len().min(4);
    let frame = LZ4_MAGIC.to_le_bytes();
    let legacy = LZ4_LEGACY_MAGIC.to_le_bytes();
    // Skippable frames: 0x184D2A50 to 0x184D2A5F.
    let skippable = 0x184D_2A50u32.to_le_bytes();
    head[..n] == frame[..n]
        || head[..n] == legacy[..n]
        || (head[0] & 0xF0 == skippable[0] && head[1..n] == skippable[1..n])
}

/// Read the start of `input` until its format is known: its first magic
/// number, past any skippable frames (up to [`SNIFF_LIMIT`] bytes of them).
/// Returns the format and the bytes read, which the decoder must be given
/// first.
pub fn sniff(input: &mut impl Read) -> io::Result<(Format, Vec<u8>)> {
    let mut head = Vec::new();
    loop {
        let start = head.len();
        read_up_to(input, &mut head, 4)?;
        let word = &head[start..];
        let Ok(bytes) = <[u8; 4]>::try_from(word) else {
            // Shorter than a magic number: LZ4's decoder reports it as it
            // always has, after skippable frames too.
            let lz4 = start > 0 || starts_like_lz4(word);
            return Ok((if lz4 { Format::Lz4 } else { Format::Other }, head));
        };
        let magic = u32::from_le_bytes(bytes);
        if magic == zstd::MAGIC {
            return Ok((Format::Zstd, head));
        }
        if !zstd::is_skippable_magic(magic) {
            let lz4 = start > 0 || is_lz4_magic(magic);
            return Ok((if lz4 { Format::Lz4 } else { Format::Other }, head));
        }
        let size_at = head.len();
        read_up_to(input, &mut head, 4)?;
        let Ok(size) = <[u8; 4]>::try_from(&head[size_at..]) else {
            return Ok((Format::Lz4, head));
        };
        let size = u32::from_le_bytes(size) as usize;
        if head.len().saturating_add(size) > SNIFF_LIMIT {
            return Ok((Format::Lz4, head));
        }
        let want = head.len() + size;
        read_up_to(input, &mut head, size)?;
        if head.len() < want {
            // Truncated: the decoder says so.
            return Ok((Format::Lz4, head));
        }
    }
}

/// Append up to `n` bytes of `input` to `buf`, fewer only at its end,
/// however the input delivers them (a pipe may hand out one byte at a time).
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

/// The error inside the wrappers that say where (frame, block).
pub fn innermost(mut e: &lzkit::Error) -> &lzkit::Error {
    loop {
        match e {
            lzkit::Error::Block { source, .. } | lzkit::Error::Frame { source, .. } => {
                e = source;
            }
            other => return other,
        }
    }
}

/// If `e` is a frame of the other codec met inside a file (LZ4 after
/// zstd, or zstd after LZ4), the one line that says so. Each decoder
/// reports a magic number it does not know, whichever error it uses; the
/// magic number says which codec's frame it met.
pub fn mixed_codecs(e: &lzkit::Error) -> Option<String> {
    let (magic, at) = match *innermost(e) {
        lzkit::Error::UnknownMagic { magic, at } => (magic, at),
        lzkit::Error::ZstdFrame {
            at,
            fault: lzkit::ZstdFault::NotZstd { magic },
        } => (magic, at),
        _ => return None,
    };
    let (found, after) = match magic {
        zstd::MAGIC => ("a zstd", "LZ4"),
        m if is_lz4_magic(m) => ("an LZ4", "zstd"),
        _ => return None,
    };
    Some(format!(
        "mixed codecs: {found} frame at byte {at} follows {after} frames; a file holds \
         frames of one codec (decode each part on its own)"
    ))
}

/// If `e` is an unknown magic number after the first frame (a valid stream
/// followed by bytes that are no frame), the one line that says so, as
/// `lz4` says "Stream followed by undecodable data": where they start and,
/// when the input's length is known, how many there are. Call it after
/// [`mixed_codecs`], which names the other codec's frames.
pub fn undecodable_tail(e: &lzkit::Error, input_len: Option<u64>) -> Option<String> {
    let at = match *innermost(e) {
        lzkit::Error::UnknownMagic { at, .. } if at > 0 => at,
        lzkit::Error::ZstdFrame {
            at,
            fault: lzkit::ZstdFault::NotZstd { .. },
        } if at > 0 => at,
        _ => return None,
    };
    Some(match input_len.and_then(|len| len.checked_sub(at)) {
        Some(n) if n > 0 => format!(
            "{n} bytes of undecodable data after the last frame, at byte {at} (not a frame: no known magic number)"
        ),
        _ => format!(
            "undecodable data after the last frame, at byte {at} (not a frame: no known magic number)"
        ),
    })
}

/// The `--memory` limit as a window log: the largest power of two within
/// `memory` bytes (zstd windows are checked against a log), at least 1 KiB
/// and at most what the format allows; zstd's default without one.
pub fn window_log_max(memory: Option<u64>) -> u32 {
    match memory {
        None => zstd::DEFAULT_WINDOW_LOG_MAX,
        Some(bytes) => bytes
            .checked_ilog2()
            .unwrap_or(0)
            .clamp(10, zstd::WINDOW_LOG_MAX),
    }
}

/// If `e` is a zstd window over the memory limit, the one line that says
/// so and which `--memory` decodes it.
pub fn window_too_large(e: &lzkit::Error) -> Option<String> {
    let lzkit::Error::ZstdFrame {
        fault: lzkit::ZstdFault::WindowTooLarge { window, limit },
        ..
    } = *innermost(e)
    else {
        return None;
    };
    Some(format!(
        "window of {window} bytes exceeds the memory limit of {limit} bytes; use --memory={}",
        memory_for(window)
    ))
}

/// The `--memory` value, in the largest binary unit that writes it as a
/// whole number, whose window log admits a window of `window` bytes: the
/// next power of two.
fn memory_for(window: u64) -> String {
    let bytes = window.checked_next_power_of_two().unwrap_or(1 << 63);
    match bytes.trailing_zeros() {
        30.. => format!("{}GiB", bytes >> 30),
        20.. => format!("{}MiB", bytes >> 20),
        10.. => format!("{}KiB", bytes >> 10),
        _ => bytes.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniffed(data: &[u8]) -> (Format, usize) {
        let mut input = data;
        let (format, head) = sniff(&mut input).unwrap();
        assert_eq!(&data[..head.len()], &head[..]);
        (format, head.len())
    }

    fn skippable(content: usize) -> Vec<u8> {
        let mut f = 0x184D_2A53u32.to_le_bytes().to_vec();
        f.extend_from_slice(&(content as u32).to_le_bytes());
        f.resize(8 + content, 7);
        f
    }

    #[test]
    fn formats_by_magic_number() {
        let zstd_frame = zstd::MAGIC.to_le_bytes();
        let lz4_frame = LZ4_MAGIC.to_le_bytes();
        assert_eq!(sniffed(&[]), (Format::Lz4, 0));
        assert_eq!(sniffed(&zstd_frame), (Format::Zstd, 4));
        assert_eq!(sniffed(&lz4_frame), (Format::Lz4, 4));
        assert_eq!(sniffed(&LZ4_LEGACY_MAGIC.to_le_bytes()), (Format::Lz4, 4));
        assert_eq!(sniffed(b"plain text"), (Format::Other, 4));
        assert_eq!(sniffed(&lz4_frame[..2]), (Format::Lz4, 2));
        assert_eq!(sniffed(b"ab"), (Format::Other, 2));

        // Past skippable frames.
        let mut data = skippable(100);
        data.extend(skippable(0));
        data.extend_from_slice(&zstd_frame);
        data.extend_from_slice(b"rest");
        assert_eq!(sniffed(&data), (Format::Zstd, 108 + 8 + 4));
        let mut data = skippable(3);
        data.extend_from_slice(&lz4_frame);
        assert_eq!(sniffed(&data), (Format::Lz4, 15));
        // Only skippable frames, a truncated one, a large one: LZ4's.
        assert_eq!(sniffed(&skippable(5)), (Format::Lz4, 13));
        assert_eq!(sniffed(&skippable(5)[..10]), (Format::Lz4, 10));
        assert_eq!(sniffed(&skippable(SNIFF_LIMIT)).0, Format::Lz4);
        let mut data = skippable(1);
        data.extend_from_slice(b"junk");
        assert_eq!(sniffed(&data).0, Format::Lz4);
    }

    #[test]
    fn memory_limits() {
        assert_eq!(window_log_max(None), 27);
        assert_eq!(window_log_max(Some(256 << 20)), 28);
        assert_eq!(window_log_max(Some(300 << 20)), 28);
        assert_eq!(window_log_max(Some(0)), 10);
        assert_eq!(window_log_max(Some(u64::MAX)), zstd::WINDOW_LOG_MAX);
        assert_eq!(memory_for(1 << 28), "256MiB");
        assert_eq!(memory_for((1 << 28) + 1), "512MiB");
        assert_eq!(memory_for(1 << 31), "2GiB");
        assert_eq!(memory_for(3000), "4KiB");
    }

    #[test]
    fn messages() {
        let e = lzkit::Error::Frame {
            index: 1,
            at: 40,
            source: Box::new(lzkit::Error::ZstdFrame {
                at: 40,
                fault: lzkit::ZstdFault::WindowTooLarge {
                    window: 1 << 28,
                    limit: 1 << 27,
                },
            }),
        };
        let msg = window_too_large(&e).unwrap();
        assert!(
            msg.contains("268435456") && msg.ends_with("--memory=256MiB"),
            "{msg}"
        );
        assert!(mixed_codecs(&e).is_none());
        let e = lzkit::Error::ZstdFrame {
            at: 30,
            fault: lzkit::ZstdFault::NotZstd { magic: LZ4_MAGIC },
        };
        let msg = mixed_codecs(&e).unwrap();
        assert!(
            msg.contains("an LZ4 frame at byte 30 follows zstd"),
            "{msg}"
        );
        let e = lzkit::Error::UnknownMagic {
            magic: zstd::MAGIC,
            at: 12,
        };
        assert!(
            mixed_codecs(&e)
                .unwrap()
                .contains("a zstd frame at byte 12 follows LZ4")
        );
        let e = lzkit::Error::UnknownMagic {
            magic: LZ4_LEGACY_MAGIC,
            at: 9,
        };
        assert!(mixed_codecs(&e).unwrap().contains("an LZ4 frame at byte 9"));
        let e = lzkit::Error::UnknownMagic { magic: 7, at: 9 };
        assert!(mixed_codecs(&e).is_none());
    }
}
