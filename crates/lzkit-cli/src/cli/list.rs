//! `--list`: describe the frames of `.lz4` and zstd files without
//! decoding them: the operation ([`list_all`]) and its tables.
//!
//! The default view is one line per file: for LZ4, with lz4's column names
//! and its `B<size code><I|D>` block notation (`B7I` = 4 MiB independent
//! blocks); for zstd, with `zstd -l`'s columns and the largest window.
//! With `-v` every frame gets its own line with exact byte counts.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read, Write};

use lzkit::format::Codec;
use lzkit::lz4::frame::{BlockMode, BlockSize, FrameInfo, FrameKind, list_frames};
use lzkit::zstd;

use super::args::Input;
use super::formats;
use super::output::{self, BUFFER_SIZE};
use super::report::{Failure, PROGRAM, Reporter};

/// The line `--list` adds under a file with a seek table (`file_len`: the
/// whole file's size).
pub fn seek_table_line(table: &lzkit::seekable::SeekTable, file_len: u64) -> String {
    use lzkit::seekable::{EntryKind, TableFormat};
    let blocks = table
        .entries()
        .iter()
        .any(|e| matches!(e.kind, EntryKind::Lz4Block { .. }));
    let len = table.encoded_len();
    format!(
        "  seek table: {} {} of up to {} ({}), {}, {} ({:.3}% of the file)",
        table.len(),
        if blocks {
            "entries (blocks inside frames)"
        } else {
            "frames"
        },
        human_size(u64::from(table.max_entry_size())),
        match table.format() {
            TableFormat::Lz4 => "lzkit's LZ4 seek table",
            TableFormat::Zstd => "zstd seekable format",
        },
        if table.has_checksums() {
            "checksums"
        } else {
            "no checksums"
        },
        human_size(len),
        len as f64 * 100.0 / file_len.max(1) as f64
    )
}

/// lz4's name for a frame kind.
fn kind_name(kind: FrameKind) -> &'static str {
    match kind {
        FrameKind::Standard => "LZ4Frame",
        FrameKind::Legacy => "LegacyFrame",
        FrameKind::Skippable => "SkippableFrame",
    }
}

/// `B7I`-style code of a standard frame's block settings.
fn block_code(size: BlockSize, mode: BlockMode) -> String {
    let m = match mode {
        BlockMode::Independent => 'I',
        BlockMode::Linked => 'D',
    };
    format!("B{}{m}", size as u8)
}

/// Readable block size: `64 KiB` .. `4 MiB`.
fn block_bytes(size: BlockSize) -> String {
    let b = size.bytes();
    if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

/// Which checksums a frame carries.
fn checksums(f: &FrameInfo) -> &'static str {
    match (f.content_checksum, f.block_checksum) {
        (true, true) => "content,block",
        (true, false) => "content",
        (false, true) => "block",
        (false, false) => "-",
    }
}

/// `1234` as `1.21 KiB` (binary units, two decimals), below 1 KiB in bytes.
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.2} {}", UNITS[unit])
}

/// Compressed size as a percentage of the decoded size, lz4's convention.
fn ratio(compressed: u64, decoded: Option<u64>) -> String {
    match decoded {
        Some(d) if d > 0 => format!("{:.2}%", compressed as f64 * 100.0 / d as f64),
        _ => "-".into(),
    }
}

/// One value if all items agree, `Mixed` if not, `-` if there are none.
fn agreed<I: Iterator<Item = String>>(mut items: I) -> String {
    let Some(first) = items.next() else {
        return "-".into();
    };
    if items.all(|x| x == first) {
        first
    } else {
        "Mixed".into()
    }
}

/// Header of the one-line-per-file view.
pub fn summary_header() -> String {
    format!(
        "{:>6}  {:<14}  {:<5}  {:<13}  {:>12}  {:>12}  {:>7}  Filename",
        "Frames", "Type", "Block", "Checksum", "Compressed", "Uncompressed", "Ratio"
    )
}

/// The line of one file in the default view.
pub fn summary_line(name: &str, frames: &[FrameInfo]) -> String {
    let standard = || frames.iter().filter(|f| f.kind == FrameKind::Standard);
    let kind = agreed(frames.iter().map(|f| kind_name(f.kind).to_string()));
    let block = agreed(standard().map(|f| match (f.block_size, f.block_mode) {
        (Some(s), Some(m)) => block_code(s, m),
        _ => "?".into(),
    }));
    let check = agreed(standard().map(|f| checksums(f).to_string()));
    let compressed: u64 = frames.iter().map(|f| f.compressed_size).sum();
    // The decoded size is known only if every data frame stores it.
    let decoded = frames
        .iter()
        .filter(|f| f.kind != FrameKind::Skippable)
        .try_fold(0u64, |acc, f| f.content_size.map(|c| acc.saturating_add(c)));
    format!(
        "{:>6}  {:<14}  {:<5}  {:<13}  {:>12}  {:>12}  {:>7}  {name}",
        frames.len(),
        kind,
        block,
        check,
        human_size(compressed),
        decoded.map_or_else(|| "-".into(), human_size),
        ratio(compressed, decoded),
    )
}

/// The per-frame table of one file (`-v`), in 80 columns: a line of
/// sizes per frame, and under each LZ4 frame one of its settings.
pub fn detailed(name: &str, frames: &[FrameInfo]) -> String {
    let mut out = String::new();
    let plural = if frames.len() == 1 { "" } else { "s" };
    let _ = writeln!(out, "{name}: {} frame{plural}", frames.len());
    let _ = writeln!(
        out,
        "{:>5} {:<14} {:>11} {:<5} {:>6} {:>11} {:>12} {:>7}",
        "Frame", "Type", "Offset", "Block", "Blocks", "Compressed", "Uncompressed", "Ratio"
    );
    for (i, f) in frames.iter().enumerate() {
        let (code, size, mode) = match (f.block_size, f.block_mode) {
            (Some(s), Some(m)) => (
                block_code(s, m),
                block_bytes(s),
                match m {
                    BlockMode::Independent => "independent",
                    BlockMode::Linked => "linked",
                },
            ),
            _ if f.kind == FrameKind::Legacy => ("-".into(), "8 MiB".into(), "independent"),
            _ => ("-".into(), "-".into(), "-"),
        };
        let decoded = f.content_size.map_or_else(|| "-".into(), |c| c.to_string());
        let _ = writeln!(
            out,
            "{:>5} {:<14} {:>11} {:<5} {:>6} {:>11} {:>12} {:>7}",
            i + 1,
            kind_name(f.kind),
            f.offset,
            code,
            f.blocks,
            f.compressed_size,
            decoded,
            ratio(f.compressed_size, f.content_size),
        );
        match f.kind {
            FrameKind::Standard => {
                let dict = f
                    .dict_id
                    .map_or_else(|| "none".into(), |d| format!("{d:#010x}"));
                let _ = writeln!(
                    out,
                    "      {size} {mode} blocks; checksums: {}; dictionary: {dict}",
                    checksums(f)
                );
            }
            FrameKind::Legacy => {
                let _ = writeln!(out, "      {size} {mode} blocks");
            }
            _ => {}
        }
    }
    out
}

/// The decoded size of all data frames, if every one of them stores it.
fn zstd_decoded(frames: &[zstd::FrameInfo]) -> Option<u64> {
    frames
        .iter()
        .filter(|f| f.kind == zstd::FrameKind::Zstd)
        .try_fold(0u64, |acc, f| f.content_size.map(|c| acc.saturating_add(c)))
}

/// Decoded size over compressed size, `zstd -l`'s convention (3 decimals).
fn zstd_ratio(compressed: u64, decoded: Option<u64>) -> String {
    match decoded {
        Some(d) if compressed > 0 => format!("{:.3}", d as f64 / compressed as f64),
        _ => "-".into(),
    }
}

/// A zstd frame's check: `XXH64` (its content checksum) or `None`.
fn zstd_check(f: &zstd::FrameInfo) -> &'static str {
    match f.checksum {
        Some(_) => "XXH64",
        None => "None",
    }
}

/// Header of the one-line-per-file view of zstd files (`zstd -l`'s
/// columns, and the largest window: the memory decoding needs).
pub fn zstd_summary_header() -> String {
    format!(
        "{:>6}  {:>5}  {:>12}  {:>12}  {:>7}  {:<5}  {:>10}  Filename",
        "Frames", "Skips", "Compressed", "Uncompressed", "Ratio", "Check", "Window"
    )
}

/// The line of one zstd file in the default view.
pub fn zstd_summary_line(name: &str, frames: &[zstd::FrameInfo]) -> String {
    let data = || frames.iter().filter(|f| f.kind == zstd::FrameKind::Zstd);
    let skips = frames.len() - data().count();
    let compressed: u64 = frames.iter().map(|f| f.compressed_size).sum();
    let decoded = zstd_decoded(frames);
    let window = data().map(|f| f.window_size).max();
    format!(
        "{:>6}  {:>5}  {:>12}  {:>12}  {:>7}  {:<5}  {:>10}  {name}",
        frames.len() - skips,
        skips,
        human_size(compressed),
        decoded.map_or_else(|| "-".into(), human_size),
        zstd_ratio(compressed, decoded),
        agreed(data().map(|f| zstd_check(f).to_string())),
        window.map_or_else(|| "-".into(), human_size),
    )
}

/// The per-frame table of one zstd file (`-v`), in 80 columns: a line of
/// sizes per frame, and under each zstd frame one of its settings.
pub fn zstd_detailed(name: &str, frames: &[zstd::FrameInfo]) -> String {
    let mut out = String::new();
    let skips = frames
        .iter()
        .filter(|f| f.kind != zstd::FrameKind::Zstd)
        .count();
    let _ = writeln!(
        out,
        "{name}: {} zstd frame{}, {skips} skippable frame{}",
        frames.len() - skips,
        if frames.len() - skips == 1 { "" } else { "s" },
        if skips == 1 { "" } else { "s" },
    );
    let _ = writeln!(
        out,
        "{:>5} {:<20} {:>11} {:>6} {:>11} {:>12} {:>7}",
        "Frame", "Type", "Offset", "Blocks", "Compressed", "Uncompressed", "Ratio"
    );
    for (i, f) in frames.iter().enumerate() {
        let data = f.kind == zstd::FrameKind::Zstd;
        let kind = match f.kind {
            zstd::FrameKind::Zstd if f.single_segment => "ZstdFrame (single)".to_string(),
            zstd::FrameKind::Zstd => "ZstdFrame".to_string(),
            zstd::FrameKind::Skippable { magic } => format!("Skippable {magic:#x}"),
            other => format!("{other:?}"),
        };
        let _ = writeln!(
            out,
            "{:>5} {:<20} {:>11} {:>6} {:>11} {:>12} {:>7}",
            i + 1,
            kind,
            f.offset,
            if data {
                f.blocks.to_string()
            } else {
                "-".into()
            },
            f.compressed_size,
            f.content_size.map_or_else(|| "-".into(), |c| c.to_string()),
            zstd_ratio(f.compressed_size, f.content_size),
        );
        if data {
            let _ = writeln!(
                out,
                "      window {}; check: {}; dictionary: {}",
                f.window_size,
                f.checksum
                    .map_or_else(|| "None".to_string(), |c| format!("XXH64 {c:08x}")),
                match f.dict_id {
                    0 => "none".to_string(),
                    id => id.to_string(),
                },
            );
        }
    }
    out
}

/// One input's listing: its codec, and the lines `--list` prints for it.
struct Listing {
    codec: Codec,
    /// The header of its codec's one-line table.
    header: String,
    /// Its line in that table.
    line: String,
    /// Its `-v` table.
    detailed: String,
    /// The filter its filter frame records (`--filter`).
    filter: Option<lzkit::filter::Filter>,
}

/// The frames of `reader` (named `name`), LZ4 or zstd as its magic number
/// says, described.
fn listing_of(reader: impl Read, name: &str) -> lzkit::Result<Listing> {
    let mut buffered = BufReader::with_capacity(BUFFER_SIZE, reader);
    let (codec, head) = formats::sniff(&mut buffered)?;
    let filter = formats::recorded_filter(&head)
        .map_err(|e| lzkit::Error::from_io(io::Error::new(io::ErrorKind::InvalidData, e)))?;
    let input = io::Cursor::new(head).chain(buffered);
    Ok(if codec == Some(Codec::Zstd) {
        let frames = zstd::list_frames(input)?;
        Listing {
            codec: Codec::Zstd,
            header: zstd_summary_header(),
            line: zstd_summary_line(name, &frames),
            detailed: zstd_detailed(name, &frames),
            filter,
        }
    } else {
        let frames = list_frames(input)?;
        Listing {
            codec: Codec::Lz4,
            header: summary_header(),
            line: summary_line(name, &frames),
            detailed: detailed(name, &frames),
            filter,
        }
    })
}

/// The seek table at the end of `file` (the one just listed, read by
/// position), and the file's length.
fn seek_table_of(file: &File) -> lzkit::Result<Option<(lzkit::seekable::SeekTable, u64)>> {
    let len = file.metadata()?.len();
    Ok(lzkit::seekable::SeekTable::read_from(file, len)?.map(|t| (t, len)))
}

/// `--list`: one line per file (or a table per file with `-v`); a header
/// line before the first file of each codec.
pub fn list_all(inputs: &[OsString], rep: &Reporter) -> bool {
    let mut ok = true;
    let mut header_done: Option<Codec> = None;
    let mut stdout = match output::stdout_writer() {
        Ok(w) => w,
        Err(f) => {
            rep.failure(&f);
            return false;
        }
    };
    for arg in inputs {
        // The file listed, opened once: its seek table is read from it too.
        let mut opened: Option<File> = None;
        let input = Input::from_arg(arg);
        let name = input.name();
        let listing = match &input {
            Input::Stdin if io::stdin().is_terminal() => {
                let f = Failure::new(&name, "refusing to read from a terminal");
                rep.failure(&f);
                ok = false;
                continue;
            }
            Input::Stdin if let Some(f) = output::stdin_closed() => {
                rep.failure(&f);
                ok = false;
                continue;
            }
            Input::Stdin => listing_of(io::stdin().lock(), &name),
            Input::File(path) => match File::open(path) {
                Ok(f) => listing_of(&*opened.insert(f), &name),
                Err(e) => Err(lzkit::Error::Io(e)),
            },
        };
        let listing = match listing {
            Ok(listing) => listing,
            Err(e) => {
                let f = match formats::mixed_codecs(&e) {
                    Some(msg) => Failure::new(&name, msg),
                    None => Failure::lzkit(&name, e),
                };
                rep.failure(&f);
                ok = false;
                continue;
            }
        };
        let mut text = String::new();
        if rep.level >= 3 {
            text.push_str(&listing.detailed);
        } else {
            if header_done != Some(listing.codec) {
                text.push_str(&listing.header);
                text.push('\n');
                header_done = Some(listing.codec);
            }
            text.push_str(&listing.line);
            text.push('\n');
        }
        if let Some(filter) = listing.filter {
            let _ = writeln!(
                text,
                "  filter: {filter} (undone by {PROGRAM} -d; lz4 -d and zstd -d give the filtered bytes)"
            );
        }
        if let Some(file) = &opened {
            match seek_table_of(file) {
                Ok(Some((table, len))) => {
                    text.push_str(&seek_table_line(&table, len));
                    text.push('\n');
                }
                Ok(None) => {}
                Err(e) => {
                    rep.failure(&Failure::lzkit(&name, e));
                    ok = false;
                }
            }
        }
        if let Err(e) = stdout.write_all(text.as_bytes()) {
            rep.failure(&Failure::stdout(&e));
            return false;
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: FrameKind, size: Option<BlockSize>, content: Option<u64>) -> FrameInfo {
        FrameInfo {
            kind,
            offset: 0,
            compressed_size: 1000,
            content_size: content,
            block_size: size,
            block_mode: size.map(|_| BlockMode::Linked),
            block_checksum: true,
            content_checksum: true,
            dict_id: None,
            blocks: 1,
        }
    }

    #[test]
    fn summary_shows_block_code_and_ratio() {
        let f = [frame(
            FrameKind::Standard,
            Some(BlockSize::Max64KB),
            Some(4000),
        )];
        let line = summary_line("x.lz4", &f);
        assert!(line.contains("B4D"), "{line}");
        assert!(line.contains("25.00%"), "{line}");
        assert!(line.contains("content,block"), "{line}");
        let two = [
            f[0].clone(),
            frame(FrameKind::Standard, Some(BlockSize::Max4MB), None),
        ];
        let line = summary_line("x.lz4", &two);
        assert!(
            line.contains("Mixed") && line.ends_with("-  x.lz4"),
            "{line}"
        );
    }

    #[test]
    fn detail_lists_every_frame() {
        let f = [
            frame(FrameKind::Standard, Some(BlockSize::Max256KB), None),
            frame(FrameKind::Skippable, None, None),
        ];
        let text = detailed("x.lz4", &f);
        assert!(
            text.contains("2 frames") && text.contains("256 KiB"),
            "{text}"
        );
        assert!(text.contains("SkippableFrame"), "{text}");
        assert!(text.lines().all(|l| l.len() <= 80), "{text}");
    }

    /// The frames of a zstd stream: a frame with a checksum, a skippable
    /// frame, a frame without (written by libzstd), as the library lists them.
    fn zstd_frames() -> Vec<zstd::FrameInfo> {
        let data: Vec<u8> = (0..50_000u32).flat_map(|i| (i / 9).to_le_bytes()).collect();
        let mut checked = ::zstd::bulk::Compressor::new(3).unwrap();
        checked.include_checksum(true).unwrap();
        let mut bytes = checked.compress(&data).unwrap();
        bytes.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
        bytes.extend_from_slice(&4u32.to_le_bytes());
        bytes.extend_from_slice(b"skip");
        bytes.extend(::zstd::bulk::compress(&data, 1).unwrap());
        zstd::list_frames(&bytes[..]).unwrap()
    }

    #[test]
    fn zstd_summary_and_detail() {
        let frames = zstd_frames();
        assert_eq!(frames.len(), 3);
        let line = zstd_summary_line("x.zst", &frames[..1]);
        let ratio = 200_000.0 / frames[0].compressed_size as f64;
        assert!(line.contains(&format!("{ratio:.3}")), "{line}");
        assert!(line.contains("XXH64") && line.ends_with("x.zst"), "{line}");
        let line = zstd_summary_line("x.zst", &frames);
        assert!(
            line.contains("Mixed") && line.trim_start().starts_with("2      1"),
            "{line}"
        );
        let text = zstd_detailed("x.zst", &frames);
        assert!(text.contains("2 zstd frames, 1 skippable frame"), "{text}");
        assert!(
            text.contains("XXH64 ") && text.contains("Skippable 0x184d2a50"),
            "{text}"
        );
        assert!(text.lines().all(|l| l.len() <= 80), "{text}");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1536), "1.50 KiB");
        assert_eq!(human_size(4 << 20), "4.00 MiB");
    }
}
