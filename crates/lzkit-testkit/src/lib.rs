//! Test support for the lzkit workspace (not published): deterministic data
//! generators and the one seeded PRNG, an independent reference
//! parser/decoder of the LZ4 block format (written from the format
//! description, deliberately simple and slow), frame-building helpers and
//! the compression levels under test. Tests, benchmarks, fuzz targets and
//! `lzkit bench` share it.
#![allow(missing_docs)]

use lzkit::lz4::frame::{BlockMode, BlockSize, FrameOptions};
use std::sync::Arc;

/// Levels every round-trip test covers: fast (acceleration), default, HC.
pub const LEVELS: [i32; 5] = [-5, 0, 1, 9, 12];

/// All frame block sizes.
pub const BLOCK_SIZES: [BlockSize; 4] = [
    BlockSize::Max64KB,
    BlockSize::Max256KB,
    BlockSize::Max1MB,
    BlockSize::Max4MB,
];

// ---------------------------------------------------------------------------
// Deterministic pseudo-random numbers (SplitMix64): no dependency on any
// crate's stream stability, so a seed means the same data forever.
// ---------------------------------------------------------------------------

/// A small deterministic PRNG.
#[derive(Clone, Debug)]
pub struct TestRng(u64);

impl TestRng {
    pub fn new(seed: u64) -> TestRng {
        TestRng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        (self.next_u64() % den as u64) < num as u64
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

// ---------------------------------------------------------------------------
// Data shapes.
// ---------------------------------------------------------------------------

/// Uniformly random bytes: incompressible.
pub fn random(n: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; n];
    TestRng::new(seed).fill(&mut v);
    v
}

/// `n` copies of one byte.
pub fn run(n: usize, byte: u8) -> Vec<u8> {
    vec![byte; n]
}

/// A random pattern of `period` bytes repeated: matches at offset `period`
/// (overlapping copies for offsets < 8 or < 16 stress wild-copy decoders).
pub fn periodic(n: usize, period: usize, seed: u64) -> Vec<u8> {
    assert!(period > 0);
    let pat = random(period, seed);
    (0..n).map(|i| pat[i % period]).collect()
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "compression",
    "block",
    "frame",
    "literal",
    "match",
    "offset",
    "dictionary",
    "checksum",
    "stream",
    "buffer",
    "decoder",
    "encoder",
    "sequence",
    "token",
    "length",
    "window",
    "history",
];

/// Text-like data: words, punctuation, line breaks and numbers.
pub fn text(n: usize, seed: u64) -> Vec<u8> {
    let mut r = TestRng::new(seed);
    let mut v = Vec::with_capacity(n + 32);
    while v.len() < n {
        let w = WORDS[r.below(WORDS.len())];
        if r.chance(1, 12) {
            let mut cap = w.as_bytes().to_vec();
            cap[0] = cap[0].to_ascii_uppercase();
            v.extend_from_slice(&cap);
        } else {
            v.extend_from_slice(w.as_bytes());
        }
        match r.below(20) {
            0 => v.extend_from_slice(b", "),
            1 => v.extend_from_slice(b".\n"),
            2 => v.extend_from_slice(format!(" {} ", r.next_u64() % 100_000).as_bytes()),
            _ => v.push(b' '),
        }
    }
    v.truncate(n);
    v
}

/// Bytes drawn from a 4-letter alphabet: many short, overlapping matches.
pub fn low_entropy(n: usize, seed: u64) -> Vec<u8> {
    let mut r = TestRng::new(seed);
    (0..n).map(|_| b"ACGT"[r.below(4)]).collect()
}

/// A mixture of segments of every shape, plus copies of earlier data at
/// distances around the 64 KiB window edge.
pub fn mixed(n: usize, seed: u64) -> Vec<u8> {
    let mut r = TestRng::new(seed);
    let mut v: Vec<u8> = Vec::with_capacity(n + 70_000);
    while v.len() < n {
        let len = r.range(1, 1 + (n / 4).clamp(16, 40_000));
        let s = r.next_u64();
        match r.below(8) {
            0 => v.extend(random(len, s)),
            1 => v.extend(run(len, r.byte())),
            2 => v.extend(periodic(len, r.range(1, 16), s)),
            3 | 4 => v.extend(text(len, s)),
            5 => v.extend(low_entropy(len, s)),
            _ => {
                // Copy from the past, sometimes right at or past the window edge.
                if v.is_empty() {
                    continue;
                }
                let dist = match r.below(4) {
                    0 => r.range(1, v.len().min(16)),
                    1 => r.range(1, v.len()),
                    _ => {
                        let d = 65_535 + r.range(0, 3) - 1; // 65534..=65536
                        if d > v.len() { v.len() } else { d }
                    }
                };
                let start = v.len() - dist;
                for i in 0..len {
                    let b = v[start + i];
                    v.push(b);
                }
            }
        }
    }
    v.truncate(n);
    v
}

/// Random data with long repeats ending exactly at each position in `ends`
/// (each repeat copies the 40 bytes that lie 100 bytes earlier), so a
/// compressor finds a match that ends precisely there.
pub fn repeats_ending_at(n: usize, ends: &[usize], seed: u64) -> Vec<u8> {
    let mut v = random(n, seed);
    for &e in ends {
        if e <= n && e >= 140 {
            let (dst, len) = (e - 40, 40);
            v.copy_within(dst - 100..dst - 100 + len, dst);
        }
    }
    v
}

/// Ends of matches that stress the end-of-block rules of a block of `n`
/// bytes: the very end, LAST_LITERALS and MF_LIMIT and their neighbours.
pub fn tail_ends(n: usize) -> Vec<usize> {
    [0usize, 1, 4, 5, 6, 7, 11, 12, 13]
        .iter()
        .filter_map(|&d| n.checked_sub(d))
        .collect()
}

/// A named shape, for proptest strategies.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    Random,
    Run(u8),
    Periodic(usize),
    Text,
    LowEntropy,
    Mixed,
    /// Matches ending at the block's tail (see [`tail_ends`]).
    Tail,
}

pub fn generate(shape: Shape, n: usize, seed: u64) -> Vec<u8> {
    match shape {
        Shape::Random => random(n, seed),
        Shape::Run(b) => run(n, b),
        Shape::Periodic(p) => periodic(n, p, seed),
        Shape::Text => text(n, seed),
        Shape::LowEntropy => low_entropy(n, seed),
        Shape::Mixed => mixed(n, seed),
        Shape::Tail => repeats_ending_at(n, &tail_ends(n), seed),
    }
}

pub fn shape_strategy() -> impl proptest::strategy::Strategy<Value = Shape> {
    use proptest::prelude::*;
    prop_oneof![
        2 => Just(Shape::Random),
        1 => any::<u8>().prop_map(Shape::Run),
        2 => (1usize..=16).prop_map(Shape::Periodic),
        2 => Just(Shape::Text),
        1 => Just(Shape::LowEntropy),
        3 => Just(Shape::Mixed),
        2 => Just(Shape::Tail),
    ]
}

/// Sizes that matter to the formats: tiny, around MF_LIMIT, around 64 KiB.
pub fn interesting_small_sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=40).collect();
    for base in [255usize, 256, 4096, 65_535, 65_536] {
        for d in [-2i64, -1, 0, 1, 2] {
            v.push((base as i64 + d) as usize);
        }
    }
    v.sort();
    v.dedup();
    v
}

// ---------------------------------------------------------------------------
// A reference reader of the block format, written from the format
// description: used to check the compressor's output obeys every rule, and
// as an independent decoder.
// ---------------------------------------------------------------------------

/// One sequence of a block, as positions in the compressed block and sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seq {
    /// Position of the token.
    pub token_at: usize,
    /// Position of the first literal.
    pub lit_at: usize,
    pub lit_len: usize,
    /// Position of the 2-byte offset, or None for the last sequence.
    pub offset_at: Option<usize>,
    pub offset: usize,
    pub match_len: usize,
    /// Position just past this sequence.
    pub end: usize,
    /// Decoded position where this sequence's literals start.
    pub out_at: usize,
}

/// Parse a block into sequences and decode it with a plain byte-by-byte
/// copy. Strict: rejects offset 0, offsets before the start, truncation,
/// output over `cap`. Does *not* check the end-of-block rules (see
/// [`check_end_rules`]).
pub fn ref_decode(src: &[u8], cap: usize) -> Result<(Vec<u8>, Vec<Seq>), String> {
    let mut out = Vec::new();
    let mut seqs = Vec::new();
    let mut ip = 0usize;
    if src.is_empty() {
        return Err("empty block".into());
    }
    loop {
        let token_at = ip;
        let token = *src.get(ip).ok_or("truncated at token")?;
        ip += 1;
        let mut lit_len = (token >> 4) as usize;
        if lit_len == 15 {
            loop {
                let b = *src.get(ip).ok_or("truncated in literal length")?;
                ip += 1;
                lit_len += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        let lit_at = ip;
        if src.len() - ip < lit_len {
            return Err("truncated in literals".into());
        }
        if out.len() + lit_len > cap {
            return Err("output too small (literals)".into());
        }
        out.extend_from_slice(&src[ip..ip + lit_len]);
        ip += lit_len;
        let out_at = out.len() - lit_len;
        if ip == src.len() {
            seqs.push(Seq {
                token_at,
                lit_at,
                lit_len,
                offset_at: None,
                offset: 0,
                match_len: 0,
                end: ip,
                out_at,
            });
            return Ok((out, seqs));
        }
        let offset_at = ip;
        if src.len() - ip < 2 {
            return Err("truncated in offset".into());
        }
        let offset = u16::from_le_bytes([src[ip], src[ip + 1]]) as usize;
        ip += 2;
        let mut match_len = (token & 15) as usize;
        if match_len == 15 {
            loop {
                let b = *src.get(ip).ok_or("truncated in match length")?;
                ip += 1;
                match_len += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        match_len += 4;
        if offset == 0 {
            return Err("offset 0".into());
        }
        if offset > out.len() {
            return Err(format!(
                "offset {offset} before start ({} available)",
                out.len()
            ));
        }
        if out.len() + match_len > cap {
            return Err("output too small (match)".into());
        }
        let start = out.len() - offset;
        for i in 0..match_len {
            let b = out[start + i];
            out.push(b);
        }
        seqs.push(Seq {
            token_at,
            lit_at,
            lit_len,
            offset_at: Some(offset_at),
            offset,
            match_len,
            end: ip,
            out_at,
        });
    }
}

/// Check the block format's end-of-block rules on a parsed block of
/// `decoded_len` bytes: the last sequence is literals only; the last 5 bytes
/// are literals; the last match starts at least 12 bytes before the end.
pub fn check_end_rules(seqs: &[Seq], decoded_len: usize) -> Result<(), String> {
    let last = seqs.last().ok_or("no sequence")?;
    if last.offset_at.is_some() {
        return Err("last sequence has a match".into());
    }
    if let Some(m) = seqs.iter().rev().find(|s| s.offset_at.is_some()) {
        let match_start = m.out_at + m.lit_len;
        let match_end = match_start + m.match_len;
        if match_start + lzkit::lz4::block::MF_LIMIT > decoded_len {
            return Err(format!(
                "last match starts at {match_start}, less than MF_LIMIT before the end {decoded_len}"
            ));
        }
        if match_end + lzkit::lz4::block::LAST_LITERALS > decoded_len {
            return Err(format!(
                "last match ends at {match_end}, inside the last 5 bytes of {decoded_len}"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Frame helpers.
// ---------------------------------------------------------------------------

/// A skippable frame with magic `0x184D2A50 + nibble` and `payload`.
pub fn skippable_frame(nibble: u8, payload: &[u8]) -> Vec<u8> {
    assert!(nibble < 16);
    let mut v = Vec::new();
    v.extend_from_slice(&(0x184D_2A50u32 + nibble as u32).to_le_bytes());
    v.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

/// Frame options with everything spelled out.
#[allow(clippy::too_many_arguments)]
pub fn opts(
    level: i32,
    block_size: BlockSize,
    block_mode: BlockMode,
    block_checksum: bool,
    content_checksum: bool,
    content_size: Option<u64>,
    dict: Option<(&[u8], Option<u32>)>,
) -> FrameOptions {
    FrameOptions::new()
        .level(level)
        .block_size(block_size)
        .block_mode(block_mode)
        .block_checksum(block_checksum)
        .content_checksum(content_checksum)
        .content_size(content_size)
        .dict_id(dict.and_then(|(_, id)| id))
        .dictionary_opt(dict.map(|(d, _)| Arc::<[u8]>::from(d)))
        .legacy(false)
        .threads(1)
}

/// Legacy-format options at `level`.
pub fn legacy_opts(level: i32) -> FrameOptions {
    FrameOptions::new().level(level).legacy(true)
}

/// Positions of the parts of one standard frame (for targeted corruption).
#[derive(Debug, Clone)]
pub struct FrameLayout {
    /// Header length including magic and the header checksum byte.
    pub header_len: usize,
    /// Position of the header checksum byte.
    pub hc_at: usize,
    /// Position of the content size field if present.
    pub content_size_at: Option<usize>,
    /// Position of the dict ID field if present.
    pub dict_id_at: Option<usize>,
    /// For each block: (position of the size field, data length, stored?).
    pub blocks: Vec<(usize, usize, bool)>,
    pub block_checksum: bool,
    /// Position of the end mark.
    pub end_mark_at: usize,
    /// Position of the content checksum if present.
    pub content_checksum_at: Option<usize>,
    /// Length of the frame.
    pub len: usize,
}

/// Walk one standard frame starting at `f[0]` (panics on malformed input:
/// only for frames our tests built).
pub fn frame_layout(f: &[u8]) -> FrameLayout {
    assert_eq!(u32::from_le_bytes(f[0..4].try_into().unwrap()), 0x184D_2204);
    let flg = f[4];
    let mut p = 6;
    let content_size_at = if flg & 0x08 != 0 {
        p += 8;
        Some(p - 8)
    } else {
        None
    };
    let dict_id_at = if flg & 0x01 != 0 {
        p += 4;
        Some(p - 4)
    } else {
        None
    };
    let hc_at = p;
    p += 1;
    let header_len = p;
    let block_checksum = flg & 0x10 != 0;
    let mut blocks = Vec::new();
    loop {
        let word = u32::from_le_bytes(f[p..p + 4].try_into().unwrap());
        if word == 0 {
            break;
        }
        let size = (word & 0x7FFF_FFFF) as usize;
        blocks.push((p, size, word & 0x8000_0000 != 0));
        p += 4 + size + if block_checksum { 4 } else { 0 };
    }
    let end_mark_at = p;
    p += 4;
    let content_checksum_at = if flg & 0x04 != 0 {
        p += 4;
        Some(p - 4)
    } else {
        None
    };
    FrameLayout {
        header_len,
        hc_at,
        content_size_at,
        dict_id_at,
        blocks,
        block_checksum,
        end_mark_at,
        content_checksum_at,
        len: p,
    }
}

/// Recompute the header checksum byte of the frame at `f[0]` after editing
/// the header.
pub fn fix_header_checksum(f: &mut [u8]) {
    let l = frame_layout_header_only(f);
    let hc = (xxhash_rust::xxh32::xxh32(&f[4..l - 1], 0) >> 8) as u8;
    f[l - 1] = hc;
}

/// Header length (magic to HC inclusive) from the FLG byte only.
pub fn frame_layout_header_only(f: &[u8]) -> usize {
    let flg = f[4];
    7 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 }
}

/// Find the first position where two byte strings differ, for readable
/// assertion messages on large buffers.
pub fn first_diff(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b.iter())
        .position(|(x, y)| x != y)
        .or(if a.len() != b.len() {
            Some(a.len().min(b.len()))
        } else {
            None
        })
}

/// Assert equality of large buffers without dumping megabytes.
#[track_caller]
pub fn assert_same(actual: &[u8], expected: &[u8], what: &str) {
    if let Some(i) = first_diff(actual, expected) {
        panic!(
            "{what}: output differs at byte {i} (actual len {}, expected len {}); actual[{i}..] = {:?}, expected[{i}..] = {:?}",
            actual.len(),
            expected.len(),
            &actual[i..actual.len().min(i + 16)],
            &expected[i..expected.len().min(i + 16)],
        );
    }
}

// ---------------------------------------------------------------------------
// Hand-built blocks.
// ---------------------------------------------------------------------------

fn push_len(out: &mut Vec<u8>, mut extra: usize) {
    while extra >= 255 {
        out.push(255);
        extra -= 255;
    }
    out.push(extra as u8);
}

/// Append one sequence: `lits`, then a match of `match_len` (>= 4) bytes at
/// `offset` (written as given, even if invalid).
pub fn push_seq(out: &mut Vec<u8>, lits: &[u8], offset: u16, match_len: usize) {
    assert!(match_len >= 4);
    let ll = lits.len();
    let ml = match_len - 4;
    out.push(((ll.min(15) as u8) << 4) | ml.min(15) as u8);
    if ll >= 15 {
        push_len(out, ll - 15);
    }
    out.extend_from_slice(lits);
    out.extend_from_slice(&offset.to_le_bytes());
    if ml >= 15 {
        push_len(out, ml - 15);
    }
}

/// Append the last, literal-only sequence.
pub fn push_last(out: &mut Vec<u8>, lits: &[u8]) {
    let ll = lits.len();
    out.push((ll.min(15) as u8) << 4);
    if ll >= 15 {
        push_len(out, ll - 15);
    }
    out.extend_from_slice(lits);
}

// ---------------------------------------------------------------------------
// The reference `lz4` command.
// ---------------------------------------------------------------------------

/// Whether the reference `lz4` command is on PATH (noted once if not).
pub fn lz4_available() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OK.get_or_init(|| {
        let ok = std::process::Command::new("lz4")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            // In CI a missing `lz4` is a setup failure, not a reason to pass
            // without checking.
            assert!(
                std::env::var_os("CI").is_none(),
                "`lz4` is not on PATH in CI: install it (apt-get install lz4)"
            );
            eprintln!("note: `lz4` is not on PATH; reference decoding checks are skipped");
        }
        ok
    })
}

/// Decode `f` with the reference `lz4` and compare with `expected`.
pub fn check_with_lz4(f: &[u8], dict: Option<&[u8]>, expected: &[u8], what: &str) {
    if !lz4_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.lz4");
    std::fs::write(&path, f).unwrap();
    let mut cmd = std::process::Command::new("lz4");
    cmd.args(["-d", "-c"]);
    if let Some(d) = dict {
        let dp = dir.path().join("dict");
        std::fs::write(&dp, d).unwrap();
        cmd.arg("-D").arg(&dp);
    }
    let out = cmd.arg(&path).output().expect("run lz4");
    assert!(
        out.status.success(),
        "{what}: lz4 -d failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same(&out.stdout, expected, &format!("{what}: decoded by lz4"));
}
