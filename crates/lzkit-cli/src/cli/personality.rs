//! lz4's and zstd's meanings of the same command line.
//!
//! `lz4 -f a b` compresses `a` into `b`; `zstd -f a b` compresses both.
//! Called as `zstd`, `unzstd` or `zstdcat`, lzkit takes zstd's meanings
//! ([`super::args::Personality::Zstd`]); under lz4's, an `IN OUT` pair
//! whose `OUT` looks like a second input that `-f` would destroy is
//! refused ([`check_operand_output`]).

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::Path;

use lzkit::format::{Codec, Format, is_skippable};

use super::args::{Mode, Options};
use super::formats::extension;

/// A compressed format, told by its first bytes or by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A codec lzkit writes.
    Codec(Codec),
    /// gzip, xz, bzip2: formats lzkit never writes.
    Foreign(&'static str),
}

impl Kind {
    fn name(self) -> String {
        match self {
            Kind::Codec(codec) => codec.to_string(),
            Kind::Foreign(name) => name.to_string(),
        }
    }
}

/// The compressed format `head` (a file's first bytes) starts with, if any.
fn kind_of_content(head: &[u8]) -> Option<Kind> {
    let word = head
        .get(..4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    if let Some(w) = word {
        if let Some(codec) = Format::from_magic(w).and_then(Format::codec) {
            return Some(Kind::Codec(codec));
        }
        // Skippable frames start LZ4 and zstd files alike (seek tables).
        if is_skippable(w) {
            return Some(Kind::Codec(Codec::Lz4));
        }
    }
    if head.starts_with(&[0x1F, 0x8B]) {
        Some(Kind::Foreign("gzip"))
    } else if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        Some(Kind::Foreign("xz"))
    } else if head.starts_with(b"BZh") {
        Some(Kind::Foreign("bzip2"))
    } else {
        None
    }
}

/// The compressed format a file name's suffix promises, if any.
fn kind_of_name(name: &OsStr) -> Option<Kind> {
    let ext = Path::new(name).extension()?.to_str()?;
    Codec::ALL
        .iter()
        .find(|&&c| extension(c) == ext)
        .map(|&c| Kind::Codec(c))
}

/// Under lz4's meanings, `lzkit -f IN OUT` replaces `OUT`. A zstd user
/// means two inputs (`zstd -f a b`, `zstd -d -f a.zst b.zst`), and would
/// lose `OUT`. So, with `-f`, an existing regular file `OUT` is refused
/// when it holds compressed data of another format than the one written
/// (decompression writes none), when its name ends in `.lz4` or `.zst`
/// and another format is written, or when zstd output (`--zstd`, zstd's
/// syntax) goes to a name without `.zst`. Without `-f` an existing
/// output is refused anyway (or asked about on a terminal).
///
/// Returns the message for the user, naming `OUT` and what to do.
pub fn check_operand_output(opts: &Options, mode: Mode, out: &OsStr) -> Result<(), String> {
    if !opts.force || matches!(out.to_str(), Some("-" | "stdout" | "null")) {
        return Ok(());
    }
    let writes = match mode {
        Mode::Compress => Some(Kind::Codec(opts.format)),
        Mode::Decompress => None,
        _ => return Ok(()),
    };
    // A link is followed, as the write would follow it.
    let Ok(meta) = fs::metadata(out) else {
        return Ok(());
    };
    if !meta.is_file() {
        return Ok(());
    }
    let mut head = Vec::with_capacity(8);
    if let Ok(f) = fs::File::open(out) {
        // An unreadable file is judged by its name alone.
        let _ = f.take(8).read_to_end(&mut head);
    }
    let shown = Path::new(out).display();
    let why = match (kind_of_content(&head), kind_of_name(out)) {
        (Some(held), _) if Some(held) != writes => {
            format!("{shown} exists and holds {} data", held.name())
        }
        (_, Some(named)) if Some(named) != writes => {
            format!("{shown} exists and its name ends in .{}", suffix(named))
        }
        _ if writes == Some(Kind::Codec(Codec::Zstd))
            && kind_of_name(out) != Some(Kind::Codec(Codec::Zstd)) =>
        {
            format!("{shown} exists and would get zstd data under a name without .zst")
        }
        _ => return Ok(()),
    };
    Err(format!(
        "{why}: not overwritten. lzkit treats the second operand as the output (as lz4 does), and -f would replace it; use -m to process several files, or -o to name the output"
    ))
}

/// The suffix of `kind`'s files, without its dot (kinds named by their
/// suffix are codecs).
fn suffix(kind: Kind) -> &'static str {
    let codec = match kind {
        Kind::Codec(codec) => codec,
        Kind::Foreign(_) => Codec::Lz4,
    };
    extension(codec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_content_and_name() {
        assert_eq!(
            kind_of_content(&[0x04, 0x22, 0x4D, 0x18]),
            Some(Kind::Codec(Codec::Lz4))
        );
        assert_eq!(
            kind_of_content(&[0x28, 0xB5, 0x2F, 0xFD]),
            Some(Kind::Codec(Codec::Zstd))
        );
        assert_eq!(
            kind_of_content(&[0x1F, 0x8B, 8, 0]),
            Some(Kind::Foreign("gzip"))
        );
        assert_eq!(kind_of_content(b"plain text"), None);
        assert_eq!(kind_of_content(b""), None);
        assert_eq!(
            kind_of_name(OsStr::new("a.zst")),
            Some(Kind::Codec(Codec::Zstd))
        );
        assert_eq!(
            kind_of_name(OsStr::new("a.lz4")),
            Some(Kind::Codec(Codec::Lz4))
        );
        assert_eq!(kind_of_name(OsStr::new("a.txt")), None);
    }
}
