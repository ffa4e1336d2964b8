//! The zstd targets' cases and checks.
//!
//! * [`check_decoders_agree`]: every available variant forced, through
//!   `decompress_into` with a bounded buffer (prefilled with stale bytes),
//!   the adaptive [`Decoder`] through `decompress_into` and, when its
//!   output is bounded, `decompress`, and the streaming [`FrameDecoder`]:
//!   all must agree on Ok/Err and on the bytes.
//! * [`DecodeCase`]: the `zstd_decode` target's input (arbitrary bytes
//!   after one control byte).
//! * [`LibCase`]: the `zstd_roundtrip` and `zstd_mutate` targets' input: a
//!   frame made by libzstd from the input's body, at a level, with flags
//!   and a dictionary chosen by the input; for `zstd_mutate`, edited by
//!   mutations from the input.
//!
//! Layouts are in the types' docs; `examples/seeds.rs` writes valid cases
//! through [`DecodeCase::encode`] and [`LibCase::encode`].

use crate::ctl::{Ctl, CtlWriter};
use lzkit::Error;
use lzkit::zstd::Variant;
use lzkit::{ZstdFault, ZstdFrameFault};
use lzkit_testkit::zstd_check::{self, Ways, decoder, forced, stream_limited, zstd_fault};
use lzkit_testkit::zstd_ref::{self, Settings};
use lzkit_testkit::{Kind, generate_kind, text};
use std::sync::OnceLock;

/// The most output any check lets an input produce: a few bytes of RLE
/// blocks can claim gigabytes.
pub const MAX_OUTPUT: usize = 8 << 20;

/// A zstd-format dictionary trained by libzstd on text and column samples
/// (built once per process).
pub fn trained_dictionary() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| {
        let mut samples: Vec<Vec<u8>> = (0..200).map(|i| text(400, 7000 + i)).collect();
        samples.extend((0..200).map(|i| generate_kind(Kind::Column, 256, 8000 + i)));
        zstd_ref::train_dictionary(&samples, 8 << 10).expect("training the fuzz dictionary")
    })
}

/// A raw-content dictionary: 20 KB of text (no ID).
pub fn raw_dictionary() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| text(20_000, 7777))
}

/// Whether an error is the output not fitting (the bounded buffer).
fn output_too_small(e: &Error) -> bool {
    matches!(zstd_fault(e), Some(ZstdFault::OutputTooSmall { .. }))
}

/// Whether a streaming error is the window limit (one-shot decoding has
/// none).
fn window_too_large(e: &Error) -> bool {
    matches!(
        zstd_check::zstd_frame_fault(e),
        Some(ZstdFrameFault::WindowTooLarge { .. })
    )
}

/// Stale bytes the output buffers start with.
const STALE: u8 = 0xA5;

/// Decode `src` into a buffer of `cap` bytes with every available variant
/// forced and with the adaptive decoder, then (when bounded) with
/// `Decoder::decompress` and the streaming decoder (`read` bytes per
/// read): all must agree on Ok/Err and on the bytes. Returns the adaptive
/// decoder's verdict from `decompress_into`.
pub fn check_decoders_agree(
    src: &[u8],
    dicts: &[&[u8]],
    cap: usize,
    read: usize,
) -> Result<Vec<u8>, Error> {
    let ways = Ways {
        dicts,
        ..Ways::default()
    };
    let mut buf = vec![STALE; cap];
    let into = |d: &mut lzkit::zstd::Decoder, buf: &mut [u8]| {
        buf.fill(STALE);
        d.decompress_into(src, buf).map(|n| buf[..n].to_vec())
    };
    let base = into(&mut decoder(&ways), &mut buf);
    let agree = |other: &Result<Vec<u8>, Error>, how: &str| match (&base, other) {
        (Ok(a), Ok(b)) => assert!(
            a == b,
            "{how}: other bytes than the adaptive decoder ({} vs {} bytes)",
            b.len(),
            a.len()
        ),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("{how} rejects ({e}) what the adaptive decoder accepts"),
        (Err(e), Ok(_)) => panic!("{how} accepts what the adaptive decoder rejects ({e})"),
    };
    for &v in Variant::available() {
        let r = into(&mut forced(v, &ways), &mut buf);
        agree(&r, &format!("Decoder::with_variant({})", v.name()));
    }
    // A growing output is bounded by `cap` when the bounded decode did not
    // stop for want of room: it then stops at the same place.
    let bounded = match &base {
        Ok(_) => true,
        Err(e) => !output_too_small(e),
    };
    if bounded {
        let r = decoder(&ways).decompress(src);
        agree(&r, "Decoder::decompress");
    }
    let r = stream_limited(src, decoder(&ways), read, cap);
    match (&base, &r) {
        // The streaming window limit applies only there.
        (Ok(_), Err(e)) if window_too_large(e) => {}
        // Output past `cap` stops the stream with the test's own error.
        (Err(e), Err(_)) if output_too_small(e) => {}
        _ => agree(&r, &format!("FrameDecoder ({read}-byte reads)")),
    }
    base
}

/// The `zstd_decode` target's case.
///
/// | bytes | field |
/// |-------|-------|
/// | 0     | bits 0-1 dictionaries (none, none, the trained one, the raw one and the trained one), 2-3 output capacity (1 MiB + 16 × the input's length, the input's length, 4 × it + 64, [`MAX_OUTPUT`]), 4-5 read size (1, 7, 4096, 65536) |
/// | 1..   | the input to decode |
pub struct DecodeCase<'a> {
    pub dicts: Vec<&'static [u8]>,
    pub cap: usize,
    pub read: usize,
    pub src: &'a [u8],
}

impl<'a> DecodeCase<'a> {
    pub fn parse(input: &'a [u8]) -> Self {
        let mut c = Ctl::new(input);
        let flags = c.u8();
        let src = c.rest();
        let dicts = match flags & 3 {
            0 | 1 => vec![],
            2 => vec![trained_dictionary()],
            _ => vec![raw_dictionary(), trained_dictionary()],
        };
        // Each decoder fills its buffer with stale bytes first: a capacity
        // in proportion to the input keeps that cheap.
        let cap = match flags >> 2 & 3 {
            0 => (1 << 20) + 16 * src.len(),
            1 => src.len(),
            2 => src.len() * 4 + 64,
            _ => MAX_OUTPUT,
        }
        .min(MAX_OUTPUT);
        let read = [1, 7, 4096, 65_536][usize::from(flags >> 4 & 3)];
        DecodeCase {
            dicts,
            cap,
            read,
            src,
        }
    }

    /// An input for [`DecodeCase::parse`]: `flags`, then `src`.
    pub fn encode(flags: u8, src: &[u8]) -> Vec<u8> {
        let mut w = CtlWriter::default();
        w.u8(flags).bytes(src);
        w.out
    }

    pub fn check(&self) {
        let _ = check_decoders_agree(self.src, &self.dicts, self.cap, self.read);
    }
}

/// Where a [`LibCase`]'s dictionary comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictChoice {
    None,
    /// The front of the body, as raw content.
    FromBody,
    /// [`trained_dictionary`].
    Trained,
}

/// One edit of a frame: 5 bytes (position u24, operation, value).
#[derive(Clone, Copy, Debug)]
pub struct Mutation {
    /// Byte position (modulo the frame's length).
    pub at: u32,
    /// 0: XOR the value in; 1: set the byte; 2: insert the value; 3:
    /// delete the byte; 4: truncate there; others: XOR one bit (value % 8).
    pub op: u8,
    pub value: u8,
}

impl Mutation {
    fn apply(&self, f: &mut Vec<u8>) {
        if f.is_empty() {
            return;
        }
        let i = self.at as usize % f.len();
        match self.op % 6 {
            0 => f[i] ^= self.value,
            1 => f[i] = self.value,
            2 => f.insert(i, self.value),
            3 => {
                f.remove(i);
            }
            4 => f.truncate(i),
            _ => f[i] ^= 1 << (self.value % 8),
        }
    }
}

/// The `zstd_roundtrip` and `zstd_mutate` targets' case: a frame made by
/// libzstd.
///
/// | bytes | field |
/// |-------|-------|
/// | 0     | level: byte % 28 − 5 (−5..=22) |
/// | 1     | bit 0 checksum, 1 content size, 2 dictionary ID, 3-4 dictionary (none, from the body, trained, trained), 5 flushes, 6 one call (`ZSTD_compress2`), 7 long window (2^20, long-distance matching) |
/// | 2-3   | dictionary length (u16; taken from the front of the body) |
/// | 4-5   | flush interval (u16, plus 1) |
/// | 6     | mutation count (low 4 bits; `zstd_mutate` only) |
/// | 7..   | the mutations, 5 bytes each ([`Mutation`]), then the body: the data (at most 32 KiB at levels 17 and up, the slow ones) |
#[derive(Debug)]
pub struct LibCase {
    pub settings: Settings,
    pub one_call: bool,
    pub dict: DictChoice,
    pub dict_bytes: Vec<u8>,
    pub data: Vec<u8>,
    pub mutations: Vec<Mutation>,
}

/// The data limit at a level (libzstd's high levels are slow).
fn max_data(level: i32) -> usize {
    if level >= 17 { 32 << 10 } else { 1 << 20 }
}

impl LibCase {
    /// Parse; `mutate` says whether the mutation fields are present.
    pub fn parse(input: &[u8], mutate: bool) -> Self {
        let mut c = Ctl::new(input);
        let level = i32::from(c.u8() % 28) - 5;
        let flags = c.u8();
        let dict_len = usize::from(c.u16());
        let flush = usize::from(c.u16()) + 1;
        let mutations = if mutate {
            let n = c.u8() & 15;
            (0..n)
                .map(|_| Mutation {
                    at: c.u24(),
                    op: c.u8(),
                    value: c.u8(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut body = c.rest();
        let dict = match flags >> 3 & 3 {
            0 => DictChoice::None,
            1 => DictChoice::FromBody,
            _ => DictChoice::Trained,
        };
        let dict_bytes = match dict {
            DictChoice::None => Vec::new(),
            DictChoice::Trained => trained_dictionary().to_vec(),
            DictChoice::FromBody => {
                let n = dict_len.min(body.len());
                let mut d = body[..n].to_vec();
                body = &body[n..];
                // Raw content must not look like a zstd-format dictionary.
                if d.starts_with(&[0x37, 0xA4, 0x30, 0xEC]) {
                    d[0] = 0;
                }
                d
            }
        };
        let data = body[..body.len().min(max_data(level))].to_vec();
        let mut settings = Settings::new(level)
            .checksum(flags & 1 != 0)
            .content_size(flags & 2 != 0)
            .dict_id(flags & 4 != 0)
            .flush_every((flags & 32 != 0).then_some(flush));
        if flags & 128 != 0 {
            settings = settings.long(20);
        }
        LibCase {
            settings,
            one_call: flags & 64 != 0,
            dict,
            dict_bytes,
            data,
            mutations,
        }
    }

    /// An input for [`LibCase::parse`].
    pub fn encode(
        level: i32,
        flags: u8,
        dict_len: u16,
        flush: u16,
        mutations: Option<&[Mutation]>,
        body: &[u8],
    ) -> Vec<u8> {
        let mut w = CtlWriter::default();
        w.u8((level + 5).rem_euclid(28) as u8)
            .u8(flags)
            .u16(dict_len)
            .u16(flush);
        if let Some(m) = mutations {
            w.u8(m.len() as u8);
            for m in m {
                w.u24(m.at).u8(m.op).u8(m.value);
            }
        }
        w.bytes(body);
        w.out
    }

    /// The dictionary, if any.
    pub fn dictionary(&self) -> Option<&[u8]> {
        (self.dict != DictChoice::None).then_some(&self.dict_bytes[..])
    }

    /// The frame libzstd makes (without a dictionary when made in one
    /// call).
    pub fn frame(&self) -> Vec<u8> {
        if self.one_call && self.dict == DictChoice::None {
            zstd_ref::compress_one_shot(&self.data, self.settings.level, self.settings.checksum)
        } else {
            zstd_ref::compress(&self.data, &self.settings, self.dictionary())
        }
    }

    /// The frame with the mutations applied.
    pub fn mutated(&self, frame: &[u8]) -> Vec<u8> {
        let mut f = frame.to_vec();
        for m in &self.mutations {
            m.apply(&mut f);
        }
        f
    }

    /// `zstd_roundtrip`: the frame decodes to the data every way; one byte
    /// less of output room is an error.
    pub fn check_roundtrip(&self) {
        let f = self.frame();
        let dicts: Vec<&[u8]> = self.dictionary().into_iter().collect();
        let n = self.data.len();
        let r = check_decoders_agree(&f, &dicts, n, 4096 + n % 7);
        match r {
            Ok(out) => assert!(
                out == self.data,
                "decoded {} bytes differ from the {n} compressed ({:?})",
                out.len(),
                self.settings
            ),
            Err(e) => panic!(
                "a libzstd frame fails: {e} ({n} bytes, {:?})",
                self.settings
            ),
        }
        if n > 0 {
            let r = check_decoders_agree(&f, &dicts, n - 1, 7);
            assert!(r.is_err(), "{n} bytes decoded into {} bytes", n - 1);
        }
        let full = zstd_check::decoder(&Ways {
            dicts: &dicts,
            ..Ways::default()
        })
        .decompress(&f);
        assert!(full.is_ok_and(|v| v == self.data), "Decoder::decompress");
    }

    /// `zstd_mutate`: the mutated frame, decoded by every lzkit decoder
    /// (which must agree) and by libzstd in one call, into the same
    /// bounded buffer: the same verdict, the same bytes.
    ///
    /// One divergence from libzstd 1.5.7 is allowed, where lzkit follows
    /// RFC 8878 and libzstd is permissive: a Huffman literal stream whose
    /// symbols read past its start (the stream must be consumed exactly).
    /// libzstd's double-symbol decoder accepts some such streams (found by
    /// this target: `zstd_golden.rs`, `fuzz_mutated_huffman_weights`,
    /// where an independent decoder of the same block also finds every
    /// stream overrun), so lzkit rejecting what libzstd accepts is allowed
    /// for that fault. The other: a match offset beyond the frame's window
    /// (or into the dictionary once the output is longer than the window),
    /// which RFC 8878 forbids and libzstd's one-shot decoder accepts
    /// (`ZstdFault::OffsetBeyondWindow`; `zstd_golden.rs`,
    /// `offsets_beyond_the_window_get_one_verdict`).
    pub fn check_mutated(&self) {
        let f = self.mutated(&self.frame());
        let dicts: Vec<&[u8]> = self.dictionary().into_iter().collect();
        let ours = check_decoders_agree(&f, &dicts, MAX_OUTPUT, 4096);
        let reference = zstd_ref::decompress_one_shot(&f, self.dictionary(), MAX_OUTPUT);
        match (&ours, &reference) {
            (Ok(a), Ok(b)) => assert!(
                a == b,
                "lzkit and libzstd decode to other bytes ({} vs {})",
                a.len(),
                b.len()
            ),
            (Err(_), Err(_)) => {}
            (Ok(a), Err(e)) => panic!(
                "lzkit accepts ({} bytes) what libzstd rejects ({e}); frame {}",
                a.len(),
                hex(&f)
            ),
            (Err(e), Ok(_)) if e.to_string().contains(PERMISSIVE_HUFFMAN) => {}
            (Err(e), Ok(_))
                if matches!(zstd_fault(e), Some(ZstdFault::OffsetBeyondWindow { .. })) => {}
            (Err(e), Ok(b)) => panic!(
                "lzkit rejects ({e}) what libzstd accepts ({} bytes); frame {}",
                b.len(),
                hex(&f)
            ),
        }
        if self.mutations.is_empty() {
            assert!(
                ours.is_ok_and(|v| v == self.data),
                "the unmutated frame must decode"
            );
        }
    }
}

/// The fault lzkit reports for a Huffman stream that does not end where
/// its symbols do (see [`LibCase::check_mutated`]).
const PERMISSIVE_HUFFMAN: &str = "Huffman stream does not end where its symbols do";

/// A frame in hex for failure messages (the first 256 bytes).
fn hex(f: &[u8]) -> String {
    let mut s: String = f.iter().take(256).map(|b| format!("{b:02x}")).collect();
    if f.len() > 256 {
        s.push_str(&format!("… ({} bytes)", f.len()));
    }
    s
}

/// The `zstd_push` target's case: a stream pushed into the
/// [`lzkit::zstd::PushDecoder`] in pieces the input chooses, against the
/// pull decoder over 4096-byte reads and one push of the whole input: all
/// must agree on Ok/Err and on the bytes, none may panic, and each push
/// must use all of its piece or stop just after a frame's end
/// ([`zstd_check::push_pieces`] checks it).
///
/// | bytes | field |
/// |-------|-------|
/// | 0     | bits 0-1 dictionaries (as [`DecodeCase`]) |
/// | 1..5  | four piece sizes, cycled: 1 + b² bytes for a byte b (1 to 65 026) |
/// | 5..   | the stream |
pub struct PushCase<'a> {
    pub dicts: Vec<&'static [u8]>,
    pub pieces: [usize; 4],
    pub src: &'a [u8],
}

impl<'a> PushCase<'a> {
    pub fn parse(input: &'a [u8]) -> Self {
        let mut c = Ctl::new(input);
        let flags = c.u8();
        let pieces = [c.u8(), c.u8(), c.u8(), c.u8()].map(|b| 1 + usize::from(b).pow(2));
        let dicts = match flags & 3 {
            0 | 1 => vec![],
            2 => vec![trained_dictionary()],
            _ => vec![raw_dictionary(), trained_dictionary()],
        };
        PushCase {
            dicts,
            pieces,
            src: c.rest(),
        }
    }

    /// An input for [`PushCase::parse`]: `flags`, the piece bytes, `src`.
    pub fn encode(flags: u8, pieces: [u8; 4], src: &[u8]) -> Vec<u8> {
        let mut w = CtlWriter::default();
        w.u8(flags);
        for p in pieces {
            w.u8(p);
        }
        w.bytes(src);
        w.out
    }

    pub fn check(&self) {
        let ways = Ways {
            dicts: &self.dicts,
            ..Ways::default()
        };
        let limit = |r: &Result<Vec<u8>, Error>| matches!(r, Err(Error::InvalidOptions(m)) if m.contains("test's limit"));
        let pull = stream_limited(self.src, decoder(&ways), 4096, MAX_OUTPUT);
        let pushed = zstd_check::push_pieces(self.src, decoder(&ways), &self.pieces, MAX_OUTPUT);
        let whole =
            zstd_check::push_pieces(self.src, decoder(&ways), &[self.src.len()], MAX_OUTPUT);
        for (r, how) in [(&pushed, "pushed in pieces"), (&whole, "pushed whole")] {
            match (&pull, r) {
                (Ok(a), Ok(b)) => assert!(a == b, "{how}: other bytes than pulled"),
                (Err(a), Err(b)) if !limit(&pull) && !limit(r) => {
                    assert_eq!(a.to_string(), b.to_string(), "{how}: another error")
                }
                (Err(_), Err(_)) => {}
                _ if limit(&pull) || limit(r) => {}
                (Ok(_), Err(e)) => panic!("{how} rejects ({e}) what the pull decoder accepts"),
                (Err(e), Ok(_)) => panic!("{how} accepts what the pull decoder rejects ({e})"),
            }
        }
    }
}
