//! Blocks at the end-of-block rules, differential against the C reference
//! (`LZ4_decompress_safe` and `LZ4_decompress_safe_usingDict` of lz4
//! 1.10): every decoder variant, the free functions, the dictionary and
//! prefix paths and the frame decoders accept exactly the blocks C accepts
//! and decode the same bytes. C checks the format's end conditions (the
//! last 5 bytes are literals, the last match starts 12 bytes before the
//! end) against the output capacity, and not at all in its two-stage
//! shortcut; `lz4 -d` accepts what it accepts, so lzkit must too.
//!
//! The one difference left is offset 0, which C copies from the position
//! being written and lzkit rejects (the format says it is invalid).

use lzkit::lz4::block::{self, Decoder, Variant};
use lzkit::lz4::frame::{self, DecodeOptions, FrameDecoder};
use lzkit::{Error, Fault, Lz4Fault};
use lzkit_testkit::{Rng, c_ref};
use std::io::Read;

/// Bytes from a hex string.
fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The block of the issue: 13 literals, a 19-byte match from offset 1
/// that ends 3 bytes before the block's end, then 3 literals.
const SHORT_TAIL_BLOCK: &str = "df4142434445464748494a4b4c4d0100003078797a";
/// What it decodes to (C decodes 35 bytes into a 40-byte buffer).
const SHORT_TAIL_DECODED: &[u8] = b"ABCDEFGHIJKLMMMMMMMMMMMMMMMMMMMMxyz";
/// The block in a frame (64 KiB independent blocks, no checksums).
const SHORT_TAIL_FRAME: &str =
    "04224d1860408215000000df4142434445464748494a4b4c4d0100003078797a00000000";

/// A fixed decoder for every variant this CPU runs.
fn decoders() -> Vec<(Variant, Decoder)> {
    Variant::available()
        .iter()
        .map(|&v| (v, Decoder::with_variant(v).expect("available")))
        .collect()
}

/// A frame stream decoded by lzkit, every way: one-shot, one-shot on
/// threads, streaming, streaming on threads.
fn our_frame_decodes(
    f: &[u8],
    dict: Option<&[u8]>,
) -> Vec<(&'static str, Result<Vec<u8>, String>)> {
    let d = dict.unwrap_or_default();
    let stream = |threads: usize| {
        let mut opts = DecodeOptions::new().threads(threads);
        if let Some(dict) = dict {
            opts = opts.dictionary(dict);
        }
        let mut out = Vec::new();
        FrameDecoder::with_options(f, &opts)
            .read_to_end(&mut out)
            .map(|_| out)
            .map_err(|e| e.to_string())
    };
    let threaded = {
        let mut opts = DecodeOptions::new().threads(3);
        if let Some(dict) = dict {
            opts = opts.dictionary(dict);
        }
        frame::decompress_with(f, &opts).map_err(|e| e.to_string())
    };
    vec![
        (
            "decompress",
            frame::decompress_with_dict(f, d).map_err(|e| e.to_string()),
        ),
        ("decompress_with (3 threads)", threaded),
        ("FrameDecoder", stream(1)),
        ("FrameDecoder (3 threads)", stream(3)),
    ]
}

#[test]
fn a_last_literal_run_shorter_than_five_bytes_decodes_as_in_c() {
    let b = hex(SHORT_TAIL_BLOCK);
    let c = c_ref::decompress(&b, 40, &[], 0).expect("C accepts the block");
    assert_eq!(c, SHORT_TAIL_DECODED);
    let dict = b"a dictionary that the block does not use".as_slice();
    for (v, mut d) in decoders() {
        let mut out = [0u8; 40];
        let n = d
            .decompress_into(&b, &mut out)
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(&out[..n], SHORT_TAIL_DECODED, "{v}");
        let mut out = [0u8; 40];
        let n = d
            .decompress_with_dict_into(&b, dict, &mut out)
            .unwrap_or_else(|e| panic!("{v}, with a dictionary: {e}"));
        assert_eq!(&out[..n], SHORT_TAIL_DECODED, "{v}, with a dictionary");
        let mut buf = [dict, &[0u8; 40]].concat();
        let n = d
            .decompress_with_prefix_into(&b, &mut buf, dict.len())
            .unwrap_or_else(|e| panic!("{v}, after a prefix: {e}"));
        assert_eq!(&buf[dict.len()..dict.len() + n], SHORT_TAIL_DECODED);
    }
    let mut out = [0u8; 40];
    let n = block::decompress_into(&b, &mut out).expect("decompress_into");
    assert_eq!(&out[..n], SHORT_TAIL_DECODED);
    let n = block::decompress_with_dict_into(&b, &mut out, dict).expect("with a dictionary");
    assert_eq!(&out[..n], SHORT_TAIL_DECODED);
    assert_eq!(
        block::decompress(&b, 40).expect("decompress"),
        SHORT_TAIL_DECODED
    );
    // C checks the match against the capacity: it must end 5 bytes before
    // it (the match is long, so its shortcut does not apply), so C needs
    // 37 bytes of room to decode these 35.
    for cap in 30..=45 {
        let theirs = c_ref::decompress(&b, cap, &[], 0);
        assert_eq!(theirs.is_some(), cap >= 37, "capacity {cap}");
        for (v, mut d) in decoders() {
            let mut out = vec![0u8; cap];
            let ours = d.decompress_into(&b, &mut out).map(|n| out[..n].to_vec());
            assert_eq!(ours.ok(), theirs, "{v}, capacity {cap}");
        }
    }

    // The frame `lz4 -d` decodes.
    let f = hex(SHORT_TAIL_FRAME);
    assert_eq!(
        c_ref::decompress_frames(&f, None, usize::MAX).expect("C decodes the frame"),
        SHORT_TAIL_DECODED
    );
    for (how, r) in our_frame_decodes(&f, None) {
        assert_eq!(r.as_deref(), Ok(SHORT_TAIL_DECODED), "{how}");
    }
}

/// A head of sequences long enough for the fast loop to run before the
/// end: 193 bytes.
fn head() -> Vec<u8> {
    let mut b = Vec::new();
    lzkit_testkit::push_seq(&mut b, &lzkit_testkit::text(60, 1), 7, 90);
    lzkit_testkit::push_seq(&mut b, b"abc", 16, 40);
    b
}

/// Blocks ending as the format forbids and C allows, after [`head`]:
/// the issue's end (3 last literals after a long match), and a short match
/// that ends the output, then an empty last literal run. With the
/// capacities where C accepts them.
fn ends_c_accepts() -> [(Vec<u8>, std::ops::RangeFrom<usize>); 2] {
    let mut issue = head();
    issue.extend(hex(SHORT_TAIL_BLOCK));
    // 14 literals, an 18-byte match from 8 back, no last literals.
    let mut no_tail = head();
    no_tail.push(0xEE);
    no_tail.extend_from_slice(b"ABCDEFGHIJKLMN");
    no_tail.extend_from_slice(&[8, 0, 0x00]);
    // The long match must end 5 bytes before the capacity; the short
    // one may end at it.
    [(issue, 193 + 35 + 2..), (no_tail, 193 + 32..)]
}

#[test]
fn blocks_ending_in_a_match_or_short_literals_after_a_long_head() {
    for (b, accepted) in ends_c_accepts() {
        let want = lzkit_testkit::ref_decode(&b, usize::MAX)
            .expect("well-formed")
            .0;
        for cap in want.len().saturating_sub(3)..want.len() + 40 {
            let theirs = c_ref::decompress(&b, cap, &[], 0);
            assert_eq!(
                theirs.is_some(),
                accepted.contains(&cap),
                "C, capacity {cap}"
            );
            if let Some(t) = &theirs {
                assert_eq!(*t, want);
            }
            for (v, mut d) in decoders() {
                let mut out = vec![0u8; cap];
                let ours = d.decompress_into(&b, &mut out).map(|n| out[..n].to_vec());
                assert_eq!(ours.ok(), theirs, "{v}, capacity {cap}: {b:02x?}");
            }
        }
    }
}

#[test]
fn offset_zero_is_the_one_difference_from_c() {
    // 8 literals, a 4-byte match at offset 0, 12 last literals: C accepts
    // it (it copies from the position being written); lzkit rejects it.
    let mut b = vec![0x80];
    b.extend_from_slice(b"abcdefgh");
    b.extend_from_slice(&[0, 0]);
    b.push(0xC0);
    b.extend_from_slice(b"ijklmnopqrst");
    assert!(c_ref::decompress(&b, 24, &[], 0).is_some());
    for (v, mut d) in decoders() {
        let mut out = [0u8; 24];
        match d.decompress_into(&b, &mut out) {
            Err(Error::CorruptBlock {
                fault: Fault::Lz4(Lz4Fault::OffsetZero),
                ..
            }) => {}
            other => panic!("{v}: {other:?}"),
        }
    }
}

/// One generated block: a head of sequences, then sequences near the end
/// of the input and output (short literal runs, matches ending within the
/// last 12 bytes), then a last literal run of 0 to 6 bytes.
struct Case {
    block: Vec<u8>,
    /// What the block decodes to if accepted (after any history).
    decoded_len: usize,
    /// The last literal run's length.
    tail: usize,
}

/// Append a sequence with literal length `lits.len()` (any length), a match
/// `offset` back of `len >= 4` bytes.
fn push_seq(out: &mut Vec<u8>, lits: &[u8], offset: usize, len: usize) {
    lzkit_testkit::push_seq(out, lits, offset as u16, len);
}

/// Literal bytes that compress to nothing by chance.
fn literals(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| b'a' + rng.index(26) as u8).collect()
}

/// Generate a case with `history` bytes available before the block (a
/// dictionary or a prefix).
fn gen_case(rng: &mut Rng, history: usize) -> Case {
    let mut block = Vec::new();
    let mut out = 0usize;
    // A head: nothing, a few sequences, or enough for the fast loop.
    let head = match rng.index(4) {
        0 => 0,
        1 => rng.range(1, 3),
        2 => rng.range(3, 8),
        _ => rng.range(8, 20),
    };
    for _ in 0..head {
        let n = [0, 1, 4, 8, 14, 15, 20][rng.index(7)];
        let lits = literals(rng, n);
        let avail = out + lits.len() + history;
        if avail == 0 {
            continue;
        }
        let offset = 1 + rng.index(avail.min(40));
        let len = [4, 5, 8, 18, 19, 20, 40, 300][rng.index(8)];
        push_seq(&mut block, &lits, offset, len);
        out += lits.len() + len;
    }
    // The sequences near the end: short literal runs and short matches
    // mostly (the reference decoder's shortcut), from any distance.
    for _ in 0..rng.range(1, 3) {
        let n = [0, 1, 2, 3, 4, 5, 7, 8, 12, 13, 14, 15, 16][rng.index(13)];
        let lits = literals(rng, n);
        let avail = out + lits.len() + history;
        if avail == 0 {
            continue;
        }
        let offset = match rng.index(4) {
            // Within the block, often 8 or more back (the shortcut's copy).
            0 | 1 => 1 + rng.index((out + lits.len()).clamp(1, 40)),
            2 => 1 + rng.index(avail.min(12)),
            // Anywhere in the history, dictionary included.
            _ => 1 + rng.index(avail.min(65_535)),
        };
        let len = [4, 5, 6, 8, 11, 12, 13, 16, 17, 18, 19, 20, 33][rng.index(13)];
        push_seq(&mut block, &lits, offset, len);
        out += lits.len() + len;
    }
    let tail = [0, 0, 1, 2, 3, 4, 5, 6][rng.index(8)];
    // The last token's match nibble is ignored (C reads none after it).
    let nibble = if rng.odds(1, 4) {
        rng.index(16) as u8
    } else {
        0
    };
    block.push(((tail as u8) << 4) | nibble);
    block.extend(literals(rng, tail));
    out += tail;
    Case {
        block,
        decoded_len: out,
        tail,
    }
}

/// Capacities around a block's decoded size: below it, exact, and at the
/// distances where the rules change (5, 12, 32 bytes of room).
fn capacities(rng: &mut Rng, decoded: usize) -> Vec<usize> {
    let mut caps = vec![decoded, decoded + rng.index(70)];
    for _ in 0..2 {
        let d = [1, 2, 3, 4, 5, 6, 11, 12, 13, 17, 18, 31, 32, 33, 40, 51, 64][rng.index(17)];
        caps.push(decoded + d);
    }
    caps.push(decoded.saturating_sub(1 + rng.index(6)));
    caps
}

/// The decoded bytes, or the error as text.
type Outcome = Result<Vec<u8>, String>;

/// Compare one decode with C's; count the cases.
#[track_caller]
fn agree(ours: &Outcome, theirs: &Option<Vec<u8>>, what: &dyn Fn() -> String) {
    match (ours, theirs) {
        (Ok(a), Some(b)) => assert_eq!(a, b, "{}: decoded bytes differ from C's", what()),
        (Err(_), None) => {}
        (Ok(a), None) => panic!("{}: C rejects, we decode {} bytes", what(), a.len()),
        (Err(e), Some(b)) => panic!("{}: C decodes {} bytes, we reject: {e}", what(), b.len()),
    }
}

#[test]
fn blocks_near_the_end_rules_agree_with_c() {
    let mut rng = Rng::for_data(0xE0B);
    let big_dict = lzkit_testkit::text(70_000, 3);
    // No dictionary, a small one, one of more than 64 KiB.
    let dicts: [&[u8]; 3] = [&[], &big_dict[..24], &big_dict];
    let mut decoders = decoders();
    let (mut cases, mut accepted, mut short_tails) = (0usize, 0usize, 0usize);
    for round in 0..6_000 {
        let dict = dicts[round % dicts.len()];
        let case = gen_case(&mut rng, dict.len());
        let b = &case.block;
        for cap in capacities(&mut rng, case.decoded_len) {
            cases += 1;
            let fill = rng.byte();
            let theirs = c_ref::decompress(b, cap, dict, fill);
            if theirs.is_some() {
                accepted += 1;
                short_tails += usize::from(case.tail < 5);
            }
            let what = || format!("dict {} cap {cap}: block {b:02x?}", dict.len());
            for (v, d) in &mut decoders {
                let mut dst = vec![fill; cap];
                let ours = d
                    .decompress_with_dict_into(b, dict, &mut dst)
                    .map(|n| dst[..n].to_vec())
                    .map_err(|e| e.to_string());
                agree(&ours, &theirs, &|| format!("{v}, {}", what()));
            }
            // The free functions (no state: the variant a sample of the block suggests).
            let mut dst = vec![fill; cap];
            let ours = block::decompress_with_dict_into(b, &mut dst, dict)
                .map(|n| dst[..n].to_vec())
                .map_err(|e| e.to_string());
            agree(&ours, &theirs, &|| format!("free function, {}", what()));
            if dict.is_empty() {
                let ours = block::decompress(b, cap).map_err(|e| e.to_string());
                agree(&ours, &theirs, &|| format!("block::decompress, {}", what()));
            }
        }
    }
    eprintln!(
        "{cases} cases, {accepted} accepted by C, {short_tails} of them with fewer than 5 last literals"
    );
    assert!(
        accepted > 2_000 && short_tails > 500,
        "{accepted} accepted, {short_tails} short tails"
    );
}

#[test]
fn blocks_after_a_prefix_agree_with_c() {
    // The prefix path (linked frame blocks): history just before the
    // output, C's withSmallPrefix / withPrefix64k modes.
    let mut rng = Rng::for_data(0x9EF);
    let history = lzkit_testkit::text(70_000, 4);
    let mut decoders = decoders();
    let mut accepted = 0usize;
    for round in 0..4_000 {
        let prefix = [0usize, 1, 9, 100, 65_535, 70_000][round % 6];
        let case = gen_case(&mut rng, prefix);
        let b = &case.block;
        for cap in capacities(&mut rng, case.decoded_len) {
            let mut buf = history[history.len() - prefix..].to_vec();
            buf.resize(prefix + cap, 0xEE);
            let mut cbuf = buf.clone();
            let theirs = c_ref::decompress_with_prefix_into(b, &mut cbuf, prefix)
                .map(|n| cbuf[prefix..prefix + n].to_vec());
            accepted += usize::from(theirs.is_some());
            for (v, d) in &mut decoders {
                let mut ours_buf = buf.clone();
                let ours = d
                    .decompress_with_prefix_into(b, &mut ours_buf, prefix)
                    .map(|n| ours_buf[prefix..prefix + n].to_vec())
                    .map_err(|e| e.to_string());
                agree(&ours, &theirs, &|| {
                    format!("{v}, prefix {prefix} cap {cap}: block {b:02x?}")
                });
            }
        }
    }
    assert!(accepted > 2_000, "{accepted}");
}

/// A frame header (64 KiB blocks, no checksums, no content size), linked
/// or independent blocks.
fn frame_header(linked: bool) -> Vec<u8> {
    let flg = if linked { 0x40 } else { 0x60 };
    let mut f = vec![0x04, 0x22, 0x4D, 0x18, flg, 0x40];
    // The header checksum: the second byte of XXH32 of the descriptor.
    f.push((xxhash_rust::xxh32::xxh32(&f[4..6], 0) >> 8) as u8);
    f
}

/// Append a block (compressed, or stored) with its size word.
fn push_block(f: &mut Vec<u8>, data: &[u8], stored: bool) {
    let word = data.len() as u32 | if stored { 1 << 31 } else { 0 };
    f.extend_from_slice(&word.to_le_bytes());
    f.extend_from_slice(data);
}

#[test]
fn frames_with_blocks_near_the_end_rules_agree_with_c() {
    // Blocks that fill a 64 KiB block maximum to within a few bytes (the
    // capacity C and lzkit decode frame blocks into), so the end rules are
    // checked against it; independent, and linked after a stored block
    // (the prefix path). Every lzkit frame decoder against C's.
    let mut rng = Rng::for_data(0xF4A);
    const MAX: usize = 64 << 10;
    let stored = lzkit_testkit::text(3000, 5);
    let mut accepted = 0usize;
    for round in 0..600 {
        let linked = round % 2 == 1;
        let history = if linked { stored.len() } else { 0 };
        let case = gen_case(&mut rng, history);
        // A first sequence of literals and a long match to fill the block
        // up to `room` bytes before the maximum.
        let room = [0usize, 1, 3, 5, 8, 12, 20, 31, 32, 40][rng.index(10)];
        let fill = match (MAX - room).checked_sub(case.decoded_len + 20) {
            Some(n) if n >= 4 => n,
            _ => continue,
        };
        let mut b = Vec::new();
        push_seq(&mut b, &literals(&mut rng, 20), 1 + rng.index(20), fill);
        b.extend_from_slice(&case.block);
        let mut f = frame_header(linked);
        if linked {
            push_block(&mut f, &stored, true);
        }
        push_block(&mut f, &b, false);
        f.extend_from_slice(&0u32.to_le_bytes());
        let theirs = c_ref::decompress_frames(&f, None, usize::MAX).ok();
        accepted += usize::from(theirs.is_some());
        for (how, ours) in our_frame_decodes(&f, None) {
            agree(&ours, &theirs, &|| {
                format!("{how}, linked {linked}, room {room}: block {b:02x?}")
            });
        }
    }
    assert!(accepted > 100, "{accepted}");
}
