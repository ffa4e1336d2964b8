//! The structured frame target's case: data and frame options chosen by
//! the fuzz input, compressed into a valid frame by lzkit's encoder (with
//! flushes where the input says: many short blocks, so that a frame with
//! 4 MiB blocks reaches the parallel decoders with little data) or by C's,
//! then edited by a few mutations (bytes, size words, truncation, bytes
//! inside a chosen block), with the header and block checksums optionally
//! repaired so that the edits reach the decoders behind them.
//!
//! Input layout ([`FrameCase::parse`], written by [`FrameCase::encode`]):
//!
//! | bytes | field |
//! |-------|-------|
//! | 0     | bits 0-2 level ([`LEVELS`]), 3-4 block size, 5 linked, 6 block checksums, 7 content checksum |
//! | 1     | bit 0 content size, 1-2 dictionary (none, without ID, with ID), 3 C's encoder, 4 repair the header checksum, 5 repair block checksums, 6 two frames, 7 legacy format |
//! | 2     | bits 0-2 data kind ([`DataKind`]), 3-6 flushes (pieces - 1), 7 decode with the other dictionary choice |
//! | 3-5   | data length (u24, at most [`max_data_len`]) |
//! | 6-7   | data seed (u16) |
//! | 8     | mutation count (low 3 bits) |
//! | 9..   | the mutations, 5 bytes each ([`Mutation`]), then the body (the data for kinds 0 and 1) |

use crate::ctl::{Ctl, CtlWriter};
use crate::dictionary;
use lzkit::lz4::frame::{self, BlockMode, FrameEncoder, FrameOptions};
use lzkit_testkit::c_ref::{self, FrameSettings};
use lzkit_testkit::{BLOCK_SIZES, corpus, data};
use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;

/// Compression levels by the level bits.
pub const LEVELS: [i32; 8] = [-5, -1, 0, 1, 2, 3, 9, 12];

/// Where the frame's content comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// The input's body.
    Body,
    /// The body repeated (with a counter byte between copies) to the length.
    Stretched,
    /// `lzkit_testkit::text`.
    Text,
    /// `lzkit_testkit::mixed`.
    Mixed,
    /// A random pattern of period 1 to 70 repeated.
    Periodic,
    /// A file of the bench corpus (column-like data).
    Column,
    /// Random bytes.
    Random,
    /// One of `lzkit_testkit::KINDS`.
    Kind,
}

const KINDS: [DataKind; 8] = [
    DataKind::Body,
    DataKind::Stretched,
    DataKind::Text,
    DataKind::Mixed,
    DataKind::Periodic,
    DataKind::Column,
    DataKind::Random,
    DataKind::Kind,
];

/// The most data a case compresses at `level`: HC levels are slow under
/// the sanitizer, so they get less.
pub fn max_data_len(level: i32) -> usize {
    if level >= 2 { 64 << 10 } else { 256 << 10 }
}

/// Generate `len` bytes of `kind` from `seed` (and `body`).
pub fn generate(kind: DataKind, len: usize, seed: u16, body: &[u8]) -> Vec<u8> {
    let s = u64::from(seed);
    match kind {
        DataKind::Body => body[..body.len().min(len)].to_vec(),
        DataKind::Stretched => {
            if body.is_empty() {
                return Vec::new();
            }
            let mut v = Vec::with_capacity(len + body.len() + 1);
            let mut round = 0u8;
            while v.len() < len {
                v.extend_from_slice(body);
                v.push(round);
                round = round.wrapping_add(1);
            }
            v.truncate(len);
            v
        }
        DataKind::Text => data::text(len, s),
        DataKind::Mixed => data::mixed(len, s),
        DataKind::Periodic => data::periodic(len, 1 + (seed % 70) as usize, s),
        DataKind::Column => {
            let mut v = corpus::generate(
                seed as usize % corpus::len(),
                len as f64 / f64::from(1 << 20),
            );
            v.truncate(len);
            v
        }
        DataKind::Random => data::random(len, s),
        DataKind::Kind => {
            data::generate_kind(data::KINDS[seed as usize % data::KINDS.len()], len, s)
        }
    }
}

/// One edit of the compressed stream.
#[derive(Clone, Copy, Debug)]
pub struct Mutation {
    /// What to do (low 3 bits).
    pub op: u8,
    /// Where (reduced modulo the stream length).
    pub pos: u32,
    /// With what.
    pub val: u8,
}

/// 32-bit values worth writing over a size word or a field.
const WORDS: [u32; 8] = [
    0,
    0x8000_0000,
    0x0040_0000,
    0x0040_0001,
    0x0001_0000,
    0x0001_0001,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
];

/// The blocks of the standard frame at `f[0..]`, walked leniently: for
/// each, the position of its size word and its data's length, up to the end
/// mark or the first block that does not fit. Also whether the frame has
/// block checksums.
fn blocks(f: &[u8]) -> (Vec<(usize, usize)>, bool) {
    let mut out = Vec::new();
    if f.len() < 7 || f[..4] != frame::MAGIC.to_le_bytes() {
        return (out, false);
    }
    let flg = f[4];
    let checksums = flg & 0x10 != 0;
    let mut p = 7 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 };
    while let Some(w) = f.get(p..p + 4) {
        let word = u32::from_le_bytes(w.try_into().expect("4 bytes"));
        let len = (word & 0x7FFF_FFFF) as usize;
        let end = p + 4 + len + if checksums { 4 } else { 0 };
        if word == 0 || end > f.len() {
            break;
        }
        out.push((p, len));
        p = end;
    }
    (out, checksums)
}

impl Mutation {
    /// Apply this edit to `f`.
    pub fn apply(self, f: &mut Vec<u8>) {
        let pos = self.pos as usize % (f.len() + 1);
        let val = self.val;
        match self.op & 7 {
            0 if pos < f.len() => f[pos] ^= val.max(1),
            1 if pos < f.len() => f[pos] = val,
            2 => f.truncate(pos),
            3 => f.insert(pos, val),
            4 if pos < f.len() => {
                f.remove(pos);
            }
            5 => {
                let w = WORDS[(val & 7) as usize].wrapping_add(u32::from(val >> 3));
                let end = (pos + 4).min(f.len());
                f.splice(pos..end, w.to_le_bytes());
            }
            6 => {
                // Repeat f[pos..pos + val] after itself.
                let end = (pos + val as usize).min(f.len());
                let piece = f[pos..end].to_vec();
                f.splice(end..end, piece);
            }
            7 => {
                // A byte inside the data of a block chosen by `pos`.
                let (bs, _) = blocks(f);
                if let Some(&(at, len)) = bs.get(pos % bs.len().max(1))
                    && len > 0
                {
                    f[at + 4 + (pos >> 8) % len] ^= val.max(1);
                }
            }
            _ => {}
        }
    }
}

/// Recompute the header checksum of the frame at `f[0..]`, if it is one
/// whose header is complete.
fn repair_header(f: &mut [u8]) {
    if f.len() < 7 || f[..4] != frame::MAGIC.to_le_bytes() {
        return;
    }
    if f.len() >= lzkit_testkit::frame_layout_header_only(f) {
        lzkit_testkit::fix_header_checksum(f);
    }
}

/// Recompute the block checksums of the frame at `f[0..]` (where it has
/// them and its blocks can be walked).
fn repair_blocks(f: &mut [u8]) {
    let (bs, checksums) = blocks(f);
    if !checksums {
        return;
    }
    for (at, len) in bs {
        let sum = xxhash_rust::xxh32::xxh32(&f[at + 4..at + 4 + len], 0);
        f[at + 4 + len..at + 8 + len].copy_from_slice(&sum.to_le_bytes());
    }
}

/// Frames built lately, by the control bytes (and body) they were built
/// from: libFuzzer mostly mutates the edits or the body of an input, and
/// compressing the data again (at HC levels, under the sanitizer) would
/// cost more than decoding it five ways.
type Built = (Vec<u8>, (Vec<u8>, Vec<u8>));

thread_local! {
    static BUILT: RefCell<Vec<Built>> = const { RefCell::new(Vec::new()) };
}

/// Frames kept in [`BUILT`].
const BUILT_KEPT: usize = 16;

/// The (data, frame) built for `key`, from the cache or by `build`.
fn built(key: Vec<u8>, build: impl FnOnce() -> (Vec<u8>, Vec<u8>)) -> (Vec<u8>, Vec<u8>) {
    if let Some(hit) = BUILT.with(|b| {
        let b = b.borrow();
        b.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
    }) {
        return hit;
    }
    let value = build();
    BUILT.with(|b| {
        let mut b = b.borrow_mut();
        if b.len() == BUILT_KEPT {
            b.remove(0);
        }
        b.push((key, value.clone()));
    });
    value
}

/// One case of the structured frame target.
pub struct FrameCase {
    /// The content compressed.
    pub data: Vec<u8>,
    /// What the stream decodes to if no mutation changed it.
    pub expected: Vec<u8>,
    /// The stream (one or two frames), after the mutations.
    pub stream: Vec<u8>,
    /// The dictionary to decode with (empty: none).
    pub decode_dict: Vec<u8>,
    /// Whether the stream, as built, must decode to `expected`.
    pub must_decode: bool,
}

/// The options of a case, as the control bytes give them.
#[derive(Clone, Copy, Debug, Default)]
pub struct CaseOptions {
    /// Control byte 0.
    pub opts: u8,
    /// Control byte 1.
    pub more: u8,
    /// Control byte 2.
    pub kind: u8,
    /// Data length.
    pub len: u32,
    /// Data seed.
    pub seed: u16,
}

impl FrameCase {
    /// A fuzz input for a case with `o`, `mutations` and `body`.
    pub fn encode(o: CaseOptions, mutations: &[Mutation], body: &[u8]) -> Vec<u8> {
        let mut w = CtlWriter::default();
        w.u8(o.opts)
            .u8(o.more)
            .u8(o.kind)
            .u24(o.len)
            .u16(o.seed)
            .u8(mutations.len() as u8);
        for m in mutations {
            w.u8(m.op).u24(m.pos).u8(m.val);
        }
        w.bytes(body);
        w.out
    }

    /// Build a case from a fuzz input (any input is one).
    pub fn parse(input: &[u8]) -> FrameCase {
        let mut c = Ctl::new(input);
        let (opts, more, kind) = (c.u8(), c.u8(), c.u8());
        let len_field = c.u24() as usize;
        let seed = c.u16();
        let mutations: Vec<Mutation> = (0..c.u8() & 7)
            .map(|_| Mutation {
                op: c.u8(),
                pos: c.u24(),
                val: c.u8(),
            })
            .collect();
        let body = c.rest();

        let level = LEVELS[(opts & 7) as usize];
        let block_size = BLOCK_SIZES[((opts >> 3) & 3) as usize];
        let linked = opts & 0x20 != 0;
        let (block_checksum, content_checksum) = (opts & 0x40 != 0, opts & 0x80 != 0);
        let content_size = more & 1 != 0;
        let dict_mode = (more >> 1) & 3;
        let (use_c, fix_header, fix_blocks) = (more & 8 != 0, more & 0x10 != 0, more & 0x20 != 0);
        let (two_frames, legacy) = (more & 0x40 != 0, more & 0x80 != 0);
        let data_kind = KINDS[(kind & 7) as usize];
        let pieces = 1 + ((kind >> 3) & 15) as usize;
        let swap_dict = kind & 0x80 != 0;

        let len = len_field % (max_data_len(level) + 1);
        let dict: &[u8] = if dict_mode != 0 && !legacy {
            dictionary()
        } else {
            &[]
        };
        // The frame depends on the control bytes that choose the options
        // and the data, and on the body where the data is the body.
        let body_used = matches!(data_kind, DataKind::Body | DataKind::Stretched);
        let key = [
            &input[..input.len().min(8)],
            if body_used { body } else { &[] },
        ]
        .concat();
        let (data, frame) = built(key, || {
            let data = generate(data_kind, len, seed, body);
            let dict_id = (dict_mode == 2 && !legacy).then_some(0x5EED_0000 | u32::from(seed));

            let frame = if legacy {
                frame::compress(&data, &FrameOptions::new().level(level).legacy(true))
            } else if use_c {
                let s = FrameSettings {
                    level,
                    block_size,
                    linked,
                    block_checksum,
                    content_checksum,
                    content_size,
                    dict_id: dict_id.unwrap_or(0),
                };
                c_ref::compress_frame(&data, &s, (!dict.is_empty()).then_some(dict))
                    .unwrap_or_else(|e| panic!("C's frame compressor failed: {e}"))
            } else {
                let o = FrameOptions::new()
                    .level(level)
                    .block_size(block_size)
                    .block_mode(if linked {
                        BlockMode::Linked
                    } else {
                        BlockMode::Independent
                    })
                    .block_checksum(block_checksum)
                    .content_checksum(content_checksum)
                    .content_size(content_size.then_some(data.len() as u64))
                    .dict_id(dict_id)
                    .dictionary_opt((!dict.is_empty()).then(|| Arc::<[u8]>::from(dict)))
                    .threads(1);
                let mut e = FrameEncoder::new(Vec::new(), &o);
                let piece = data.len().div_ceil(pieces).max(1);
                for p in data.chunks(piece) {
                    e.write_all(p).expect("writing to a vector");
                    if pieces > 1 {
                        e.flush().expect("writing to a vector");
                    }
                }
                e.finish().expect("writing to a vector")
            };
            (data, frame)
        });
        let mut stream = frame.clone();
        let mut expected = data.clone();
        if two_frames {
            stream.extend_from_slice(&lzkit_testkit::skippable_frame(
                seed as u8 & 15,
                body.get(..7).unwrap_or(body),
            ));
            stream.extend_from_slice(&frame);
            expected.extend_from_slice(&data);
        }
        for m in &mutations {
            m.apply(&mut stream);
        }
        if fix_header {
            repair_header(&mut stream);
        }
        if fix_blocks {
            repair_blocks(&mut stream);
        }
        // The other dictionary choice: none where the frame has one, the
        // fixed one where it has none (which a frame without one must not
        // need: it decodes the same).
        let decode_dict = match (swap_dict, dict.is_empty()) {
            (false, _) => dict.to_vec(),
            (true, true) if !legacy => dictionary().to_vec(),
            (true, _) => Vec::new(),
        };
        let must_decode = mutations.is_empty() && (!swap_dict || dict.is_empty());
        FrameCase {
            data,
            expected,
            stream,
            decode_dict,
            must_decode,
        }
    }
}
