//! Decoding zstd input every way lzkit offers, and requiring that the
//! ways agree: the one-shot functions, a [`Decoder`] with dictionaries and
//! options, `decompress_into` with an exact and a too-small buffer
//! (prefilled with stale bytes), every available [`Variant`] forced, the
//! streaming [`FrameDecoder`] over small reads, and the [`PushDecoder`]
//! over small pieces and the whole input in one.
//!
//! The tests compare the result with libzstd ([`crate::zstd_ref`]); this
//! module only checks that lzkit is consistent with itself.

use crate::compare::assert_same;
use lzkit::zstd::{self, DecodeOptions, Decoder, Dictionary, FrameDecoder, PushDecoder, Variant};
use lzkit::{Error, Fault, FrameFault, ZstdFault, ZstdFrameFault};
use std::io::Read;

/// The read sizes of the streaming checks: one byte, an odd size, a page.
pub const READ_SIZES: [usize; 3] = [1, 7, 4096];

/// What lzkit's ways are asked to do with an input.
#[derive(Clone, Debug)]
pub struct Ways<'a> {
    /// Dictionaries given to every [`Decoder`] (frames pick by ID).
    pub dicts: &'a [&'a [u8]],
    /// Options of the decoders that take options (the forced variants and
    /// the free functions use the defaults, so they are compared only when
    /// these are the defaults).
    pub options: DecodeOptions,
    /// Read sizes of the streaming decoder ([`READ_SIZES`] by default;
    /// empty: no streaming check).
    pub read_sizes: &'a [usize],
    /// Whether streaming must agree with one-shot decoding (not when the
    /// frame's window is above the streaming limit, which one-shot
    /// decoding ignores).
    pub streaming_agrees: bool,
}

impl Default for Ways<'_> {
    fn default() -> Self {
        Ways {
            dicts: &[],
            options: DecodeOptions::new(),
            read_sizes: &READ_SIZES,
            streaming_agrees: true,
        }
    }
}

/// A [`Decoder`] with `ways`' options and dictionaries.
///
/// # Panics
/// If a dictionary is refused.
pub fn decoder(ways: &Ways<'_>) -> Decoder {
    let mut d = Decoder::with_options(ways.options);
    for dict in ways.dicts {
        d = d.with_dictionary(Dictionary::new(dict).expect("dictionary accepted"));
    }
    d
}

/// A [`Decoder`] forced to `v`, with `ways`' dictionaries.
pub fn forced(v: Variant, ways: &Ways<'_>) -> Decoder {
    let mut d = Decoder::with_variant(v).expect("an available variant");
    for dict in ways.dicts {
        d = d.with_dictionary(Dictionary::new(dict).expect("dictionary accepted"));
    }
    d
}

/// Stale bytes in output buffers, so a decoder that leaves a byte
/// unwritten is caught.
const STALE: u8 = 0xA5;

/// Decode `src` every way and check they agree (same verdict, same bytes);
/// returns the verdict of a [`Decoder`] with `ways`' options.
///
/// # Panics
/// On any disagreement (with `what` in the message).
#[track_caller]
pub fn decode_every_way(src: &[u8], ways: &Ways<'_>, what: &str) -> Result<Vec<u8>, Error> {
    let base = decoder(ways).decompress(src);
    let defaults = ways.options == DecodeOptions::new();
    let same = |other: &Result<Vec<u8>, Error>, how: &str| match (&base, other) {
        (Ok(a), Ok(b)) => assert_same(b, a, &format!("{what}: {how}")),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("{what}: {how} rejects ({e}) what Decoder::decompress accepts"),
        (Err(e), Ok(_)) => {
            panic!("{what}: {how} accepts what Decoder::decompress rejects ({e})")
        }
    };

    if defaults && ways.dicts.is_empty() {
        same(&zstd::decompress(src), "zstd::decompress");
    }

    // decompress_into: the exact size must do, one byte less must not.
    let exact = base.as_ref().map_or(src.len() * 4 + 1024, Vec::len);
    let mut out = vec![STALE; exact];
    let r = decoder(ways).decompress_into(src, &mut out);
    same(
        &r.map(|n| out[..n].to_vec()),
        "decompress_into (exact size)",
    );
    if defaults && ways.dicts.is_empty() {
        let mut out = vec![STALE; exact];
        let r = zstd::decompress_into(src, &mut out);
        same(
            &r.map(|n| out[..n].to_vec()),
            "zstd::decompress_into (exact size)",
        );
    }
    if let Ok(v) = &base
        && !v.is_empty()
    {
        let mut small = vec![STALE; v.len() - 1];
        if let Ok(n) = decoder(ways).decompress_into(src, &mut small) {
            panic!(
                "{what}: decompress_into accepted a buffer of {} bytes for {} bytes of output (returned {n})",
                v.len() - 1,
                v.len()
            );
        }
    }

    // Every variant, forced (defaults only: forced decoders have them).
    if defaults {
        for &v in Variant::available() {
            let r = forced(v, ways).decompress(src);
            same(&r, &format!("Decoder::with_variant({})", v.name()));
        }
    }

    // Streaming, over small reads on both sides.
    for &k in ways.read_sizes {
        let r = stream(src, decoder(ways), k);
        if ways.streaming_agrees {
            same(&r, &format!("FrameDecoder ({k}-byte reads)"));
        }
    }

    // Pushed, in small pieces and in one.
    if !ways.read_sizes.is_empty() {
        for k in ways.read_sizes.iter().copied().chain([src.len()]) {
            let r = push_pieces(src, decoder(ways), &[k], usize::MAX);
            if ways.streaming_agrees {
                same(&r, &format!("PushDecoder ({k}-byte pieces)"));
            }
        }
    }
    base
}

/// `src` pushed into a [`PushDecoder`] around `decoder`, in pieces of the
/// sizes `pieces` cycles through (0 taken as 1), every frame decoded, then
/// the end of the input said: the output, or the first error (the test's
/// own once the output passes `max_output` bytes). Checks what each push
/// reports: all of the piece used, or a stop just after a frame's end.
///
/// # Panics
/// If `pieces` is empty, a push uses none of its piece, or one stops
/// short of its end with no frame ended.
pub fn push_pieces(
    src: &[u8],
    decoder: Decoder,
    pieces: &[usize],
    max_output: usize,
) -> Result<Vec<u8>, Error> {
    assert!(!pieces.is_empty(), "no piece sizes");
    let mut d = PushDecoder::with_decoder(decoder);
    let mut out = Vec::new();
    let mut at = 0;
    for k in pieces.iter().cycle() {
        if at == src.len() {
            break;
        }
        let n = (*k).clamp(1, src.len() - at);
        let mut piece = &src[at..at + n];
        at += n;
        while !piece.is_empty() {
            let pushed = d.push_each(piece, |block| {
                if block.len() > max_output - out.len() {
                    return Err(Error::InvalidOptions("output larger than the test's limit"));
                }
                out.extend_from_slice(block);
                Ok(())
            })?;
            assert!(
                pushed.consumed > 0 && pushed.consumed <= piece.len(),
                "a push of {} bytes used {}",
                piece.len(),
                pushed.consumed
            );
            assert!(
                pushed.frame_ended || pushed.consumed == piece.len(),
                "a push stopped at {} of {} bytes with no frame ended",
                pushed.consumed,
                piece.len()
            );
            piece = &piece[pushed.consumed..];
        }
    }
    d.finish()?;
    Ok(out)
}

/// A reader that hands out at most `chunk` bytes per `read`.
pub struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl<'a> Chunked<'a> {
    pub fn new(data: &'a [u8], chunk: usize) -> Self {
        Chunked {
            data,
            chunk: chunk.max(1),
        }
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.chunk).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// `src` through a [`FrameDecoder`] around `decoder`, reading `k` bytes at
/// a time from the input and into the output.
pub fn stream(src: &[u8], decoder: Decoder, k: usize) -> Result<Vec<u8>, Error> {
    stream_limited(src, decoder, k, usize::MAX)
}

/// [`stream`], stopping with an error once the output passes `max_output`
/// bytes (fuzz targets bound what a small input may produce).
pub fn stream_limited(
    src: &[u8],
    decoder: Decoder,
    k: usize,
    max_output: usize,
) -> Result<Vec<u8>, Error> {
    let mut r = FrameDecoder::with_decoder(Chunked::new(src, k), decoder);
    let mut out = Vec::new();
    let mut buf = vec![0u8; k.max(1)];
    loop {
        let n = r.read(&mut buf).map_err(Error::from_io)?;
        if n == 0 {
            return Ok(out);
        }
        if n > max_output - out.len() {
            return Err(Error::InvalidOptions("output larger than the test's limit"));
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// The innermost error: through [`Error::Frame`] and [`Error::Block`].
pub fn innermost(e: &Error) -> &Error {
    match e {
        Error::Frame { source, .. } | Error::Block { source, .. } => innermost(source),
        other => other,
    }
}

/// The [`ZstdFault`] (a corrupt block) an error reports, if any (through
/// frames and blocks).
pub fn zstd_fault(e: &Error) -> Option<ZstdFault> {
    match innermost(e) {
        Error::CorruptBlock {
            fault: Fault::Zstd(f),
            ..
        } => Some(*f),
        _ => None,
    }
}

/// The [`ZstdFrameFault`] (a corrupt frame) an error reports, if any
/// (through frames and blocks).
pub fn zstd_frame_fault(e: &Error) -> Option<ZstdFrameFault> {
    match innermost(e) {
        Error::CorruptFrame {
            fault: FrameFault::Zstd(f),
            ..
        } => Some(*f),
        _ => None,
    }
}
