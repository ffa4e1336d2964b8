//! Names: which operation a file name asks for, the output name made from
//! an input's, and which files are skipped.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use lzkit::format::Codec;

use super::super::args::Input;
use super::super::args::Mode;
use super::super::formats::extension;
use super::super::output::Target;
use super::super::report::Failure;
use super::Job;
use super::inputs::Found;

/// Suffix of the files the operation is chosen by: `.lz4` is
/// decompressed when no `-z`/`-d` says (as `lz4` does).
const SUFFIX: &str = Codec::Lz4.suffix();

/// The operation when none was given (`-z`/`-d`): decompress `.lz4`
/// inputs, compress the others, as `lz4` decides from the extension. The
/// named inputs must agree, so that one run never mixes plaintext and
/// frames in one stream (`-c a.lz4 b.txt`) or surprises with half its
/// files; files found by `-r` inside directories are compressed (their
/// `.lz4` files are then skipped).
pub(super) fn resolve_auto_mode(
    mode: Mode,
    inputs: &[Found],
    recursive: bool,
) -> Result<Mode, String> {
    if mode != Mode::Auto {
        return Ok(mode);
    }
    let named: Vec<&Found> = inputs.iter().filter(|f| !f.in_directory).collect();
    let compressed: Vec<String> = named
        .iter()
        .filter(|f| matches!(&f.input, Input::File(p) if has_suffix(p.as_os_str())))
        .map(|f| f.name())
        .collect();
    if compressed.is_empty() || (recursive && named.len() < inputs.len()) {
        if !compressed.is_empty() {
            return Err(format!(
                "{} ends in {SUFFIX} but directories given with -r are compressed; use -d to decompress, -z to compress everything",
                compressed[0]
            ));
        }
        return Ok(Mode::Compress);
    }
    if compressed.len() == named.len() {
        return Ok(Mode::Decompress);
    }
    let plain = named
        .iter()
        .map(|f| f.name())
        .find(|n| !compressed.contains(n))
        .unwrap_or_default();
    Err(format!(
        "mixed inputs: {} ends in {SUFFIX} (decompress) but {plain} does not (compress); say which with -d or -z",
        compressed[0]
    ))
}

/// `path` without its compressed suffix (one of the format layer's
/// extensions, [`lzkit::format::Format::by_extension`]: `.tgz` and `.txz`
/// keep a `.tar`), or `None` if it has none.
pub(super) fn recompressed_stem(path: &Path) -> Option<OsString> {
    let ext = path.extension()?.to_str()?;
    let (_, tail) = lzkit::format::Format::by_extension(ext)?;
    let mut stem = path.with_extension("").into_os_string();
    stem.push(tail);
    Some(stem)
}

/// Whether a file name ends in `.lz4` (a file named just `.lz4` does not).
pub(super) fn has_suffix(name: &OsStr) -> bool {
    Path::new(name).extension() == Some(OsStr::new(extension(Codec::Lz4)))
}

/// Whether a file name ends in `.lz4` or `.zst` (any codec's suffix): a
/// name that decompressing strips (the input's codec is told by its magic
/// number, whatever its name).
pub(super) fn has_decoded_suffix(name: &OsStr) -> bool {
    let ext = Path::new(name).extension();
    Codec::ALL
        .iter()
        .any(|&c| ext == Some(OsStr::new(extension(c))))
}

/// Extensions of files that are already compressed (archives, media,
/// office documents), which `--exclude-compressed` skips when compressing.
const COMPRESSED_EXTENSIONS: &[&str] = &[
    "lz4", "tlz4", "zst", "tzst", "gz", "tgz", "bz2", "tbz", "tbz2", "xz", "txz", "lzma", "lz",
    "tlz", "lzo", "sz", "br", "zip", "zipx", "7z", "rar", "cab", "jar", "war", "apk", "deb", "rpm",
    "dmg", "jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "jxl", "mp3", "mp4", "m4a", "m4v",
    "aac", "ogg", "oga", "ogv", "opus", "flac", "mkv", "webm", "mov", "avi", "wmv", "wma", "docx",
    "xlsx", "pptx", "odt", "ods", "odp", "epub", "woff", "woff2",
];

/// Whether `path`'s extension names a compressed format.
pub(super) fn looks_compressed(path: &Path) -> bool {
    path.extension().and_then(OsStr::to_str).is_some_and(|ext| {
        COMPRESSED_EXTENSIONS
            .iter()
            .any(|c| c.eq_ignore_ascii_case(ext))
    })
}

impl Job {
    /// The output name `recompress` gives `path`: without its compressed
    /// suffix, plus the target's.
    pub(super) fn recompressed_name(&self, path: &Path) -> PathBuf {
        let mut out = recompressed_stem(path).unwrap_or_else(|| path.as_os_str().to_os_string());
        out.push(self.opts.format.suffix());
        PathBuf::from(out)
    }

    /// Why `found` is skipped rather than processed, if it is: files of the
    /// wrong kind inside a directory walked by `-r`, and compressed formats
    /// with `--exclude-compressed`.
    pub(super) fn skip_reason(&self, found: &Found, mode: Mode) -> Option<String> {
        let Input::File(path) = &found.input else {
            return None;
        };
        let suffix = self.opts.format.suffix();
        let compressed = path.extension() == Some(OsStr::new(extension(self.opts.format)));
        match mode {
            Mode::Compress if found.in_directory && compressed => {
                Some(format!("already has the {suffix} suffix"))
            }
            Mode::Compress if self.opts.exclude_compressed && looks_compressed(path) => {
                Some("already compressed (--exclude-compressed)".into())
            }
            Mode::Decompress | Mode::Test
                if found.in_directory && !has_decoded_suffix(path.as_os_str()) =>
            {
                Some("does not end in .lz4 or .zst".into())
            }
            Mode::Recompress if found.in_directory && recompressed_stem(path).is_none() => {
                Some("does not end in a compressed suffix (.lz4, .zst, .gz, .xz, ...)".into())
            }
            Mode::Recompress if found.in_directory && self.recompressed_name(path) == *path => {
                Some("already in the target format (its output would replace it; use -o)".into())
            }
            _ => None,
        }
    }

    /// Where the output of `input` goes.
    pub(super) fn target_for(
        &self,
        input: &Input,
        explicit: Option<&Target>,
        mode: Mode,
    ) -> Result<Target, Failure> {
        if mode == Mode::Test {
            return Ok(Target::Null);
        }
        if self.opts.stdout {
            return Ok(Target::Stdout);
        }
        if let Some(t) = explicit {
            return Ok(t.clone());
        }
        let Input::File(path) = input else {
            return Ok(Target::Stdout);
        };
        let name = path.as_os_str();
        if mode == Mode::Recompress {
            let out = self.recompressed_name(path);
            if out == *path {
                return Err(Failure::new(
                    input.name(),
                    "the output name is the input's; name another with -o (the input is never replaced)",
                ));
            }
            return Ok(Target::File(out));
        }
        if mode == Mode::Compress {
            let mut out = name.to_os_string();
            out.push(self.opts.format.suffix());
            return Ok(Target::File(PathBuf::from(out)));
        }
        if has_decoded_suffix(name) {
            return Ok(Target::File(path.with_extension("")));
        }
        Err(Failure::new(
            input.name(),
            "unknown suffix (expected .lz4 or .zst), cannot choose an output name; use -c or give one",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::Options;
    use crate::cli::report::Reporter;

    fn job(format: Codec, mode: Mode) -> Job {
        let opts = Options {
            format,
            level: Some(lzkit::lz4::Level::DEFAULT),
            threads: Some(1),
            ..Options::default()
        };
        Job::new(opts, Reporter { level: 0 }, mode, true).unwrap_or_else(|f| panic!("{f}"))
    }

    fn file(name: &str, in_directory: bool) -> Found {
        Found {
            input: Input::File(PathBuf::from(name)),
            in_directory,
            seen: None,
            #[cfg(unix)]
            at: None,
        }
    }

    #[test]
    fn suffix_rules() {
        assert_eq!(extension(Codec::Lz4), "lz4");
        assert_eq!(extension(Codec::Zstd), "zst");
        assert!(has_suffix(OsStr::new("a.lz4")) && !has_suffix(OsStr::new(".lz4")));
        assert!(!has_suffix(OsStr::new("a.LZ4")) && !has_suffix(OsStr::new("a.zst")));
        assert!(has_decoded_suffix(OsStr::new("a.zst")) && has_decoded_suffix(OsStr::new("a.lz4")));
        assert!(!has_decoded_suffix(OsStr::new("a.gz")));
        assert!(looks_compressed(Path::new("x.JPG")) && !looks_compressed(Path::new("x.txt")));
        assert_eq!(
            recompressed_stem(Path::new("a.tar.GZ")),
            Some(OsString::from("a.tar"))
        );
        assert_eq!(
            recompressed_stem(Path::new("a.tgz")),
            Some(OsString::from("a.tar"))
        );
        assert_eq!(recompressed_stem(Path::new("a.txt")), None);
    }

    #[test]
    fn auto_mode() {
        let resolve = |names: &[(&str, bool)], recursive| {
            let found: Vec<Found> = names.iter().map(|&(n, d)| file(n, d)).collect();
            resolve_auto_mode(Mode::Auto, &found, recursive)
        };
        assert_eq!(resolve(&[("a.lz4", false)], false), Ok(Mode::Decompress));
        assert_eq!(resolve(&[("a.txt", false)], false), Ok(Mode::Compress));
        assert_eq!(resolve(&[("a.zst", false)], false), Ok(Mode::Compress));
        let mixed = resolve(&[("a.lz4", false), ("b.txt", false)], false).unwrap_err();
        assert!(
            mixed.starts_with("mixed inputs: a.lz4 ends in .lz4"),
            "{mixed}"
        );
        // Files found by -r are compressed; a named .lz4 then is an error.
        assert_eq!(resolve(&[("d/x.txt", true)], true), Ok(Mode::Compress));
        assert!(resolve(&[("a.lz4", false), ("d/x", true)], true).is_err());
        assert_eq!(
            resolve_auto_mode(Mode::Test, &[file("a.txt", false)], false),
            Ok(Mode::Test)
        );
    }

    #[test]
    fn output_names() {
        let out = |format, mode, name: &str| {
            job(format, mode)
                .target_for(&Input::File(PathBuf::from(name)), None, mode)
                .map_err(|f| f.message)
        };
        let file = |name: &str| Ok(Target::File(PathBuf::from(name)));
        assert_eq!(out(Codec::Lz4, Mode::Compress, "a.txt"), file("a.txt.lz4"));
        assert_eq!(out(Codec::Zstd, Mode::Compress, "a.txt"), file("a.txt.zst"));
        assert_eq!(
            out(Codec::Lz4, Mode::Decompress, "a.txt.zst"),
            file("a.txt")
        );
        assert_eq!(out(Codec::Lz4, Mode::Decompress, "a.lz4"), file("a"));
        assert!(out(Codec::Lz4, Mode::Decompress, "a.txt").is_err());
        assert_eq!(out(Codec::Lz4, Mode::Test, "a.lz4"), Ok(Target::Null));
        assert_eq!(
            out(Codec::Zstd, Mode::Recompress, "a.tgz"),
            file("a.tar.zst")
        );
        assert_eq!(out(Codec::Lz4, Mode::Recompress, "a.gz"), file("a.lz4"));
        assert!(out(Codec::Lz4, Mode::Recompress, "a.lz4").is_err());
        let j = job(Codec::Lz4, Mode::Compress);
        assert_eq!(
            j.target_for(&Input::Stdin, None, Mode::Compress).ok(),
            Some(Target::Stdout)
        );
    }

    #[test]
    fn skipped_files() {
        let why = |format, mode, name: &str, in_directory| {
            job(format, mode).skip_reason(&file(name, in_directory), mode)
        };
        assert_eq!(
            why(Codec::Zstd, Mode::Compress, "d/a.zst", true).as_deref(),
            Some("already has the .zst suffix")
        );
        assert_eq!(
            why(Codec::Lz4, Mode::Compress, "d/a.lz4", true).as_deref(),
            Some("already has the .lz4 suffix")
        );
        assert_eq!(why(Codec::Lz4, Mode::Compress, "a.lz4", false), None);
        assert!(why(Codec::Lz4, Mode::Decompress, "d/a.txt", true).is_some());
        assert_eq!(why(Codec::Lz4, Mode::Test, "d/a.zst", true), None);
        assert!(why(Codec::Lz4, Mode::Recompress, "d/a.txt", true).is_some());
        assert!(why(Codec::Zstd, Mode::Recompress, "d/a.zst", true).is_some());
    }
}
