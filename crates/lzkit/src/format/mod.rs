//! The format layer: every format lzkit reads or writes, told apart,
//! named and opened in one place.
//!
//! * [`Codec`]: what lzkit writes (LZ4 or zstd), with its name and suffix.
//! * [`Format`]: what lzkit reads (LZ4 frames and legacy frames, zstd;
//!   gzip, zlib, xz and LZMA with the `recompress` feature), told by its
//!   first bytes ([`detect`]), or from a reader past leading skippable
//!   frames ([`sniff`]).
//! * The magic numbers, defined by the codecs and named here once:
//!   [`LZ4_FRAME_MAGIC`], [`LZ4_LEGACY_MAGIC`], [`ZSTD_MAGIC`],
//!   [`is_skippable`]; gzip's and xz's ([`GZIP_MAGIC`], [`XZ_MAGIC`]).
//! * [`decoder`]: a reader of the content of a stream in a [`Format`];
//!   [`Encoder`]: a writer of a [`Target`] (LZ4 or zstd frames, or a
//!   seekable file).
//!
//! Adding a format lzkit reads is a decoder of its own (a codec module, or
//! a wrapper around another library: an arm in `foreign.rs`), a variant of
//! [`Format`] with its place in [`Format::ALL`], and one row in the format
//! table (`Format::row`: name, codec, file extensions, magic bytes). The
//! sniffer, recompression, its messages and the command's suffix rules
//! ([`Format::by_extension`]) follow from the table.
//!
//! ```
//! use lzkit::format::{self, Codec, Format};
//! assert_eq!(Codec::from_name("zst").unwrap(), Codec::Zstd);
//! assert_eq!(Codec::Zstd.suffix(), ".zst");
//! assert_eq!(format::detect(&[0x28, 0xb5, 0x2f, 0xfd]), Some(Format::Zstd));
//! assert_eq!(Format::Zstd.codec(), Some(Codec::Zstd));
//! ```

mod decode;
mod encode;
#[cfg(feature = "recompress")]
mod foreign;
mod sniff;

use std::fmt;

pub use decode::{DecodeOptions, decoder};
pub use encode::{CodecOptions, Encoder, Target};
pub use sniff::{Found, Sniffed, is_lz4_prefix, sniff};

pub use crate::lz4::frame::{LEGACY_MAGIC as LZ4_LEGACY_MAGIC, MAGIC as LZ4_FRAME_MAGIC};
pub use crate::zstd::{MAGIC as ZSTD_MAGIC, is_skippable_magic as is_skippable};

/// The two bytes that start a gzip member (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// The six bytes that start an xz stream.
pub const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0];

/// A codec lzkit compresses with (and decodes): the formats it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Codec {
    /// The LZ4 block format (also inside LZ4 frames).
    Lz4,
    /// Zstandard (RFC 8878).
    Zstd,
}

/// A name that is no codec lzkit writes ([`Codec::from_name`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format '{0}': lzkit writes lz4 or zstd")]
pub struct UnknownName(pub String);

impl Codec {
    /// Every codec, in the order the command lists them.
    pub const ALL: &'static [Codec] = &[Codec::Lz4, Codec::Zstd];

    /// The codec's name on a command line: `lz4`, `zstd`.
    pub const fn name(self) -> &'static str {
        match self {
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
        }
    }

    /// The codec named `name`: `lz4`, `zstd` (or `zst`, its suffix).
    ///
    /// # Errors
    /// [`UnknownName`] for any other name.
    pub fn from_name(name: &str) -> Result<Codec, UnknownName> {
        match name {
            "lz4" => Ok(Codec::Lz4),
            "zstd" | "zst" => Ok(Codec::Zstd),
            _ => Err(UnknownName(name.to_string())),
        }
    }

    /// The file name suffix of its files: `.lz4`, `.zst`.
    pub const fn suffix(self) -> &'static str {
        match self {
            Codec::Lz4 => ".lz4",
            Codec::Zstd => ".zst",
        }
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Codec::Lz4 => "LZ4",
            Codec::Zstd => "zstd",
        })
    }
}

/// A compressed format lzkit reads, told by its first bytes. Skippable
/// frames (shared by LZ4 and zstd) are no format of their own: [`sniff`]
/// reads past them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// LZ4 frames (spec v1.6.4).
    Lz4Frame,
    /// LZ4 legacy frames (`lz4 -l`).
    Lz4Legacy,
    /// zstd frames (RFC 8878).
    Zstd,
    /// gzip members (several in a row, as `gzip -d` reads them).
    Gzip,
    /// A zlib stream (RFC 1950), as ROOT and many HEP files hold.
    Zlib,
    /// xz streams (several in a row).
    Xz,
    /// The legacy `.lzma` format (LZMA-alone).
    Lzma,
}

/// One format's row in the format table: all the layer knows of it but
/// its decoder ([`decoder`]).
struct Row {
    /// [`Format::name`].
    name: &'static str,
    /// [`Format::codec`].
    codec: Option<Codec>,
    /// [`Format::extensions`].
    extensions: &'static [(&'static str, &'static str)],
    /// Whether an input's first bytes (up to [`DETECT_LEN`], fewer only if
    /// the input is shorter) start like this format.
    starts: fn(&[u8]) -> bool,
}

/// The first four bytes of `head`, read little-endian: a magic number.
fn word(head: &[u8]) -> Option<u32> {
    head.get(..4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

impl Format {
    /// Every format, in the order [`detect`] tries them (no two formats'
    /// first bytes overlap, so the order only matters to messages that
    /// list them: [`Format::list`]).
    pub const ALL: &'static [Format] = &[
        Format::Lz4Frame,
        Format::Lz4Legacy,
        Format::Zstd,
        Format::Gzip,
        Format::Zlib,
        Format::Xz,
        Format::Lzma,
    ];

    /// The format table: each format's name, codec, file extensions and
    /// magic bytes.
    const fn row(self) -> &'static Row {
        match self {
            // A skippable frame's magic number counts as LZ4 frames (what
            // the `lz4` command decodes past it).
            Format::Lz4Frame => {
                const {
                    &Row {
                        name: "lz4",
                        codec: Some(Codec::Lz4),
                        extensions: &[("lz4", "")],
                        starts: |h| {
                            word(h).is_some_and(|w| w == LZ4_FRAME_MAGIC || is_skippable(w))
                        },
                    }
                }
            }
            Format::Lz4Legacy => {
                const {
                    &Row {
                        name: "lz4",
                        codec: Some(Codec::Lz4),
                        extensions: &[("lz4", "")],
                        starts: |h| word(h) == Some(LZ4_LEGACY_MAGIC),
                    }
                }
            }
            Format::Zstd => {
                const {
                    &Row {
                        name: "zstd",
                        codec: Some(Codec::Zstd),
                        extensions: &[("zst", ""), ("tzst", ".tar")],
                        starts: |h| word(h) == Some(ZSTD_MAGIC),
                    }
                }
            }
            Format::Gzip => {
                const {
                    &Row {
                        name: "gzip",
                        codec: None,
                        extensions: &[("gz", ""), ("tgz", ".tar")],
                        starts: |h| h.starts_with(&GZIP_MAGIC),
                    }
                }
            }
            Format::Xz => {
                const {
                    &Row {
                        name: "xz",
                        codec: None,
                        extensions: &[("xz", ""), ("txz", ".tar")],
                        starts: |h| h.starts_with(&XZ_MAGIC),
                    }
                }
            }
            Format::Zlib => {
                const {
                    &Row {
                        name: "zlib",
                        codec: None,
                        extensions: &[("zz", "")],
                        starts: starts_like_zlib,
                    }
                }
            }
            Format::Lzma => {
                const {
                    &Row {
                        name: "lzma",
                        codec: None,
                        extensions: &[("lzma", "")],
                        starts: starts_like_lzma,
                    }
                }
            }
        }
    }

    /// The format's usual name: `lz4`, `zstd`, `gzip`, `zlib`, `xz`,
    /// `lzma` (both LZ4 formats are `lz4`, as the `lz4` command reads both).
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The codec lzkit decodes it with itself, or `None` for the formats
    /// read through other libraries (the `recompress` feature).
    pub const fn codec(self) -> Option<Codec> {
        self.row().codec
    }

    /// The file name extensions of its files, each with what replaces it
    /// when the extension is taken off (`.tgz` holds a `.tar`): `x.gz` is
    /// `x`'s content, `x.tgz` is `x.tar`'s. Both LZ4 formats share `.lz4`.
    pub const fn extensions(self) -> &'static [(&'static str, &'static str)] {
        self.row().extensions
    }

    /// The format whose files end in `.{ext}` (compared without regard to
    /// ASCII case), and what replaces the extension when it is taken off
    /// ([`Format::extensions`]).
    ///
    /// ```
    /// use lzkit::format::Format;
    /// assert_eq!(Format::by_extension("TGZ"), Some((Format::Gzip, ".tar")));
    /// assert_eq!(Format::by_extension("lz4"), Some((Format::Lz4Frame, "")));
    /// assert_eq!(Format::by_extension("txt"), None);
    /// ```
    pub fn by_extension(ext: &str) -> Option<(Format, &'static str)> {
        Format::ALL.iter().find_map(|&format| {
            let &(_, tail) = format
                .extensions()
                .iter()
                .find(|(e, _)| e.eq_ignore_ascii_case(ext))?;
            Some((format, tail))
        })
    }

    /// The names of the formats lzkit reads, for messages: `LZ4, zstd,
    /// gzip, zlib, xz, lzma` (each codec as it calls itself, once).
    pub fn list() -> String {
        let mut names: Vec<String> = Vec::new();
        for format in Format::ALL {
            let name = match format.codec() {
                Some(codec) => codec.to_string(),
                None => format.name().to_string(),
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names.join(", ")
    }

    /// The format whose magic number `magic` (four bytes read
    /// little-endian) is, for the formats that have a four-byte one.
    pub const fn from_magic(magic: u32) -> Option<Format> {
        match magic {
            LZ4_FRAME_MAGIC => Some(Format::Lz4Frame),
            LZ4_LEGACY_MAGIC => Some(Format::Lz4Legacy),
            ZSTD_MAGIC => Some(Format::Zstd),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The longest head [`detect`] looks at: the xz magic number's 6 bytes.
pub const DETECT_LEN: usize = 6;

/// The format whose magic bytes start `head` (at least the first
/// [`DETECT_LEN`] bytes of the input, fewer only if the input is shorter),
/// or `None`. A skippable frame's magic number counts as LZ4 frames (what
/// the `lz4` command decodes past it).
///
/// ```
/// use lzkit::format::{Format, detect};
/// assert_eq!(detect(&[0x1f, 0x8b, 8, 0]), Some(Format::Gzip));
/// assert_eq!(detect(&[0x28, 0xb5, 0x2f, 0xfd]), Some(Format::Zstd));
/// assert_eq!(detect(&[0x02, 0x21, 0x4c, 0x18]), Some(Format::Lz4Legacy));
/// assert_eq!(detect(b"plain text"), None);
/// ```
pub fn detect(head: &[u8]) -> Option<Format> {
    Format::ALL
        .iter()
        .copied()
        .find(|format| (format.row().starts)(head))
}

/// A zlib stream's header (RFC 1950): deflate (CM 8), a window of at most
/// 32 KiB (CINFO <= 7), no preset dictionary (FDICT clear), and CMF.FLG a
/// multiple of 31.
fn starts_like_zlib(head: &[u8]) -> bool {
    matches!(head, [cmf, flg, ..]
        if cmf & 0x0F == 8
            && cmf >> 4 <= 7
            && flg & 0x20 == 0
            && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0)
}

/// An LZMA-alone header: a properties byte (lc + lp * 9 + pb * 45 < 225;
/// 0x5D is what every encoder writes by default) and a dictionary size (a
/// power of two, three times one, or "unknown").
fn starts_like_lzma(head: &[u8]) -> bool {
    let [0x5D, d0, d1, d2, d3, ..] = head else {
        return false;
    };
    let dict = u32::from_le_bytes([*d0, *d1, *d2, *d3]);
    let three_halves = dict % 3 == 0 && (dict / 3).is_power_of_two();
    dict.is_power_of_two() || three_halves || dict == u32::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(detect(&[0x78, 0x9c]), Some(Format::Zlib));
        assert_eq!(detect(&[0x78, 0x9d]), None);
        assert_eq!(detect(&[0x02, 0x21, 0x4c, 0x18]), Some(Format::Lz4Legacy));
        assert_eq!(detect(&[0x04, 0x22, 0x4d, 0x18]), Some(Format::Lz4Frame));
        assert_eq!(detect(&[0x50, 0x2a, 0x4d, 0x18]), Some(Format::Lz4Frame));
        assert_eq!(detect(&[0x5d, 0, 0, 0x80, 0]), Some(Format::Lzma));
        assert_eq!(detect(&[0x5d, 1, 2, 3, 4]), None);
        assert_eq!(detect(&[0x5d, 0, 0, 0xC0, 0]), Some(Format::Lzma));
        // A zlib header asking for a preset dictionary is not taken.
        assert_eq!(detect(&[0x78, 0xbb]), None);
        assert_eq!(detect(&[]), None);
    }

    #[test]
    fn names() {
        for &codec in Codec::ALL {
            assert_eq!(Codec::from_name(codec.name()), Ok(codec));
            assert_eq!(Codec::from_name(&codec.suffix()[1..]), Ok(codec));
        }
        assert_eq!(
            Codec::from_name("gz").unwrap_err().to_string(),
            "unknown format 'gz': lzkit writes lz4 or zstd"
        );
        assert_eq!(Codec::Lz4.to_string(), "LZ4");
        for &format in Format::ALL {
            assert_eq!(format.to_string(), format.name());
        }
        assert_eq!(Format::list(), "LZ4, zstd, gzip, zlib, xz, lzma");
        // What the command strips before adding the output's suffix.
        let mut all: Vec<(&str, &str)> = Format::ALL
            .iter()
            .flat_map(|f| f.extensions().iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        let mut command = vec![
            ("lz4", ""),
            ("zst", ""),
            ("gz", ""),
            ("xz", ""),
            ("lzma", ""),
            ("zz", ""),
            ("tgz", ".tar"),
            ("txz", ".tar"),
            ("tzst", ".tar"),
        ];
        command.sort_unstable();
        assert_eq!(all, command);
    }
}
