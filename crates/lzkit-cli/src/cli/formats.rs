//! Which format an input holds, told by its magic number (never by its
//! name), and what to say when its frames switch from one codec to the
//! other or a zstd frame needs more memory than allowed; and each codec's
//! file-name extension, for the names the command makes and checks.

use std::io::{self, Read};

use lzkit::format::{self, Codec, Found};
use lzkit::zstd;

/// Skippable frames (shared by LZ4 and zstd) are read past, to find the
/// first frame with data, only while they add up to this much: what a
/// skippable frame usually holds (an index, a signature) is far smaller,
/// and past it the input is handed to the LZ4 decoder as before.
const SNIFF_LIMIT: usize = 1 << 20;

/// The file-name extension of `codec`'s files: its suffix without the dot.
pub fn extension(codec: Codec) -> &'static str {
    &codec.suffix()[1..]
}

/// Read the start of `input` until its format is known (the library's
/// [`format::sniff`], past skippable frames up to [`SNIFF_LIMIT`] bytes of
/// them). Returns the codec that decodes it, or `None` for anything else
/// (`-dcf` copies it through), and the bytes read, which the decoder must
/// be given first.
///
/// LZ4's decoder takes what is LZ4's to report on: an empty input, input
/// that only starts like an LZ4 magic number, and whatever follows
/// skippable frames unless it is zstd (a truncated or very large skippable
/// frame included).
pub fn sniff(input: &mut impl Read) -> io::Result<(Option<Codec>, Vec<u8>)> {
    let sniffed = format::sniff(input, SNIFF_LIMIT)?;
    let after_skippable = sniffed.skipped > 0;
    let codec = match sniffed.found {
        Found::Format(f) if let Some(codec) = f.codec() => Some(codec),
        Found::End if after_skippable || format::is_lz4_prefix(sniffed.rest()) => Some(Codec::Lz4),
        Found::TruncatedSkippable | Found::OverLimit { .. } => Some(Codec::Lz4),
        // Formats lzkit does not decode here (gzip, xz...) and unknown
        // bytes: LZ4's to report on after skippable frames.
        _ if after_skippable => Some(Codec::Lz4),
        _ => None,
    };
    Ok((codec, sniffed.head))
}

/// The filter recorded in `head` (the bytes [`sniff`] read): a filter
/// frame among the skippable frames it starts with
/// ([`lzkit::filter::read_frame`]), or `None`.
///
/// # Errors
/// A filter frame that cannot be read (another version, damaged, cut
/// short), and two filter frames: the content would come out filtered.
pub fn recorded_filter(
    head: &[u8],
) -> Result<Option<lzkit::filter::Filter>, lzkit::filter::FilterError> {
    use lzkit::filter::{FilterError, read_frame};
    let mut found = None;
    let mut at = 0;
    while let Some(frame) = head.get(at..).filter(|f| f.len() >= 8) {
        let magic = u32::from_le_bytes([frame[0], frame[1], frame[2], frame[3]]);
        if !format::is_skippable(magic) {
            break;
        }
        if let Some((filter, _)) = read_frame(frame)? {
            if found.is_some() {
                return Err(FilterError::CorruptFrame {
                    reason: format!(
                        "a second filter frame at byte {at}: a stream records one filter"
                    ),
                });
            }
            found = Some(filter);
        }
        let size = u32::from_le_bytes([frame[4], frame[5], frame[6], frame[7]]) as usize;
        at = at.saturating_add(8).saturating_add(size);
    }
    Ok(found)
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

/// If `e` is a magic number a decoder did not know (each codec reports
/// one as a frame fault of its own), that number and where it was met.
fn unknown_magic(e: &lzkit::Error) -> Option<(u32, u64)> {
    use lzkit::{FrameFault, Lz4FrameFault, ZstdFrameFault};
    match *innermost(e) {
        lzkit::Error::CorruptFrame {
            at,
            fault:
                FrameFault::Lz4(Lz4FrameFault::UnknownMagic { magic })
                | FrameFault::Zstd(ZstdFrameFault::NotZstd { magic }),
        } => Some((magic, at)),
        _ => None,
    }
}

/// If `e` is a frame of the other codec met inside a file (LZ4 after
/// zstd, or zstd after LZ4), the one line that says so. Each decoder
/// reports a magic number it does not know; the magic number says which
/// codec's frame it met.
pub fn mixed_codecs(e: &lzkit::Error) -> Option<String> {
    let (magic, at) = unknown_magic(e)?;
    let codec = format::Format::from_magic(magic).and_then(format::Format::codec)?;
    let (found, after) = match codec {
        Codec::Zstd => ("a zstd", "LZ4"),
        _ => ("an LZ4", "zstd"),
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
    let at = unknown_magic(e).map(|(_, at)| at).filter(|&at| at > 0)?;
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
    let lzkit::Error::CorruptFrame {
        fault: lzkit::FrameFault::Zstd(lzkit::ZstdFrameFault::WindowTooLarge { window, limit }),
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

    fn sniffed(data: &[u8]) -> (Option<Codec>, usize) {
        let mut input = data;
        let (codec, head) = sniff(&mut input).unwrap();
        assert_eq!(&data[..head.len()], &head[..]);
        (codec, head.len())
    }

    fn skippable(content: usize) -> Vec<u8> {
        let mut f = 0x184D_2A53u32.to_le_bytes().to_vec();
        f.extend_from_slice(&(content as u32).to_le_bytes());
        f.resize(8 + content, 7);
        f
    }

    const LZ4: Option<Codec> = Some(Codec::Lz4);
    const ZSTD: Option<Codec> = Some(Codec::Zstd);

    #[test]
    fn formats_by_magic_number() {
        let zstd_frame = format::ZSTD_MAGIC.to_le_bytes();
        let lz4_frame = format::LZ4_FRAME_MAGIC.to_le_bytes();
        let legacy = format::LZ4_LEGACY_MAGIC.to_le_bytes();
        assert_eq!(sniffed(&[]), (LZ4, 0));
        assert_eq!(sniffed(&zstd_frame), (ZSTD, 4));
        assert_eq!(sniffed(&lz4_frame), (LZ4, 4));
        assert_eq!(sniffed(&legacy), (LZ4, 4));
        // The head read may go past the magic number (the library reads
        // up to 8 bytes at a time); the decoder is given all of it.
        assert_eq!(sniffed(b"plain text").0, None);
        assert_eq!(sniffed(&lz4_frame[..2]), (LZ4, 2));
        assert_eq!(sniffed(b"ab"), (None, 2));
        // Other formats' magic numbers are not the command's to decode.
        assert_eq!(sniffed(&[0x1f, 0x8b, 8, 0, 0, 0]).0, None);
        assert_eq!(sniffed(&[0x78, 0x9c]).0, None);

        // Past skippable frames.
        let mut data = skippable(100);
        data.extend(skippable(0));
        data.extend_from_slice(&zstd_frame);
        data.extend_from_slice(b"rest");
        assert_eq!(sniffed(&data).0, ZSTD);
        let mut data = skippable(3);
        data.extend_from_slice(&lz4_frame);
        assert_eq!(sniffed(&data), (LZ4, 15));
        // Only skippable frames, a truncated one, a large one: LZ4's.
        assert_eq!(sniffed(&skippable(5)), (LZ4, 13));
        assert_eq!(sniffed(&skippable(5)[..10]), (LZ4, 10));
        assert_eq!(sniffed(&skippable(SNIFF_LIMIT)).0, LZ4);
        let mut data = skippable(1);
        data.extend_from_slice(b"junk");
        assert_eq!(sniffed(&data).0, LZ4);
        let mut data = skippable(1);
        data.extend_from_slice(&[0x1f, 0x8b, 8, 0]);
        assert_eq!(sniffed(&data).0, LZ4);
    }

    #[test]
    fn filters_recorded_among_skippable_frames() {
        use lzkit::filter::{Filter, FilterError};
        let f = Filter::parse("delta2").unwrap();
        let lz4_frame = format::LZ4_FRAME_MAGIC.to_le_bytes();
        // First, after another skippable frame, or absent.
        let mut data = f.frame();
        data.extend_from_slice(&lz4_frame);
        assert_eq!(recorded_filter(&data), Ok(Some(f)));
        let mut data = skippable(9);
        data.extend(f.frame());
        data.extend_from_slice(&lz4_frame);
        assert_eq!(recorded_filter(&data), Ok(Some(f)));
        assert_eq!(recorded_filter(&skippable(30)), Ok(None));
        assert_eq!(recorded_filter(&lz4_frame), Ok(None));
        assert_eq!(recorded_filter(&[]), Ok(None));
        // Twice, or damaged: errors.
        let mut data = f.frame();
        data.extend(f.frame());
        assert!(matches!(
            recorded_filter(&data),
            Err(FilterError::CorruptFrame { .. })
        ));
        let mut data = skippable(2);
        let mut bad = f.frame();
        bad[16] ^= 4;
        data.extend(bad);
        assert!(matches!(
            recorded_filter(&data),
            Err(FilterError::CorruptFrame { .. })
        ));
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
            source: Box::new(lzkit::Error::CorruptFrame {
                at: 40,
                fault: lzkit::ZstdFrameFault::WindowTooLarge {
                    window: 1 << 28,
                    limit: 1 << 27,
                }
                .into(),
            }),
        };
        let msg = window_too_large(&e).unwrap();
        assert!(
            msg.contains("268435456") && msg.ends_with("--memory=256MiB"),
            "{msg}"
        );
        assert!(mixed_codecs(&e).is_none());
        let e = lzkit::Error::CorruptFrame {
            at: 30,
            fault: lzkit::ZstdFrameFault::NotZstd {
                magic: format::LZ4_FRAME_MAGIC,
            }
            .into(),
        };
        let msg = mixed_codecs(&e).unwrap();
        assert!(
            msg.contains("an LZ4 frame at byte 30 follows zstd"),
            "{msg}"
        );
        let e = lzkit::Error::CorruptFrame {
            at: 12,
            fault: lzkit::Lz4FrameFault::UnknownMagic { magic: zstd::MAGIC }.into(),
        };
        assert!(
            mixed_codecs(&e)
                .unwrap()
                .contains("a zstd frame at byte 12 follows LZ4")
        );
        let e = lzkit::Error::CorruptFrame {
            at: 9,
            fault: lzkit::Lz4FrameFault::UnknownMagic {
                magic: format::LZ4_LEGACY_MAGIC,
            }
            .into(),
        };
        assert!(mixed_codecs(&e).unwrap().contains("an LZ4 frame at byte 9"));
        let e = lzkit::Error::CorruptFrame {
            at: 9,
            fault: lzkit::Lz4FrameFault::UnknownMagic { magic: 7 }.into(),
        };
        assert!(mixed_codecs(&e).is_none());
        let tail = undecodable_tail(&e, Some(20)).unwrap();
        assert!(tail.starts_with("11 bytes of undecodable data after the last frame, at byte 9"));
        assert!(
            undecodable_tail(&e, None)
                .unwrap()
                .starts_with("undecodable data")
        );
        let first = lzkit::Error::CorruptFrame {
            at: 0,
            fault: lzkit::Lz4FrameFault::UnknownMagic { magic: 7 }.into(),
        };
        assert!(undecodable_tail(&first, Some(20)).is_none());
    }
}
