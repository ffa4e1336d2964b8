//! Small inputs through every decoder variant this machine runs, sized for
//! Miri (`scripts/miri.sh`), where no SIMD feature is detected and so every
//! variant is a portable one: round trips of matches at every offset up to
//! 70 (pattern fills, chunk copies, overlapping copies), literal runs,
//! exact and roomy output buffers, and truncated or corrupt blocks, which
//! must give an error without any out-of-bounds access; and the same
//! through every variant's dictionary loop (matches in the dictionary and
//! across its boundary into the output, too short a dictionary, none).
//! Runs as an ordinary test too.

use lzkit::lz4::block::{self, Decoder, Variant};
use lzkit_testkit::{periodic, push_seq, random, ref_decode, text};

/// Inputs with matches at every offset from 1 to 70 and literal runs of
/// every kind, each small enough for Miri.
fn inputs() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for period in (1..=70).step_by(3) {
        v.push(periodic(300 + period * 5, period, period as u64));
    }
    v.push(text(1500, 7));
    v.push(random(600, 8));
    // A random run between two periodic ones: literals, then matches again.
    v.push([periodic(200, 5, 1), random(90, 2), periodic(260, 33, 3)].concat());
    v.push(vec![0u8; 1000]);
    v.push(Vec::new());
    v
}

#[test]
fn small_round_trips_through_every_variant() {
    for data in inputs() {
        for level in [1, 9] {
            let c = block::compress(&data, level);
            for &v in Variant::available() {
                let mut d = Decoder::with_variant(v).unwrap();
                // Exact capacity (no room for wild copies), and a roomy
                // stale buffer (its bytes past `n` are the decoder's scratch).
                for extra in [0usize, 40] {
                    let mut out = vec![0xA5u8; data.len() + extra];
                    let n = d
                        .decompress_into(&c, &mut out)
                        .unwrap_or_else(|e| panic!("{v} level {level} len {}: {e}", data.len()));
                    assert_eq!(&out[..n], &data[..], "{v} level {level}");
                }
            }
        }
    }
}

#[test]
fn truncated_and_corrupt_blocks_fail_cleanly() {
    let data = [periodic(400, 3, 1), text(400, 2)].concat();
    let c = block::compress(&data, 1);
    for &v in Variant::available() {
        let mut d = Decoder::with_variant(v).unwrap();
        let mut out = vec![0u8; data.len()];
        // Every proper prefix is truncated (an error or, where it ends
        // between sequences, fewer bytes); never a panic.
        for cut in (0..c.len()).step_by(7) {
            if let Ok(n) = d.decompress_into(&c[..cut], &mut out) {
                assert!(n < data.len(), "{v}: prefix {cut} decoded everything");
            }
        }
        // A too small output buffer is an error.
        let mut small = vec![0u8; data.len() - 1];
        assert!(d.decompress_into(&c, &mut small).is_err(), "{v}");
        // Corrupt bytes: any result but a panic or an out-of-bounds access.
        for at in (0..c.len()).step_by(11) {
            let mut bad = c.clone();
            bad[at] ^= 0x5A;
            let _ = d.decompress_into(&bad, &mut out);
        }
    }
}

#[test]
fn blocks_ending_as_the_reference_decoder_allows() {
    // Ends the format forbids and the reference decoder accepts (its
    // shortcut; tests/end_of_block.rs checks them against it), after a head
    // the fast loop decodes: 3 last literals after a long match, and a
    // short match ending at the capacity with no last literals. Decoded
    // near the ends of both buffers by the careful step.
    let mut head = Vec::new();
    push_seq(&mut head, &text(60, 1), 7, 90);
    push_seq(&mut head, b"abc", 16, 40);
    let mut issue = head.clone();
    issue.extend_from_slice(&[0xDF]);
    issue.extend_from_slice(b"ABCDEFGHIJKLM");
    issue.extend_from_slice(&[1, 0, 0, 0x30, b'x', b'y', b'z']);
    let mut no_tail = head;
    no_tail.push(0xEE);
    no_tail.extend_from_slice(b"ABCDEFGHIJKLMN");
    no_tail.extend_from_slice(&[8, 0, 0]);
    for (b, room) in [(issue, 2usize), (no_tail, 0)] {
        let want = ref_decode(&b, usize::MAX).expect("well-formed").0;
        for &v in Variant::available() {
            let mut d = Decoder::with_variant(v).unwrap();
            for cap in [want.len() + room, want.len() + room + 1, want.len() + 40] {
                let mut out = vec![0xA5u8; cap];
                let n = d
                    .decompress_into(&b, &mut out)
                    .unwrap_or_else(|e| panic!("{v} capacity {cap}: {e}"));
                assert_eq!(&out[..n], &want[..], "{v} capacity {cap}");
            }
        }
    }
}

/// A dictionary and data that borrows from it: matches entirely in the
/// dictionary, matches that start in it and run on into the output (the
/// copy crosses the boundary), at offsets up to the dictionary's start.
fn dictionary_case() -> (Vec<u8>, Vec<u8>) {
    let dict = [text(200, 21), periodic(60, 7, 22)].concat();
    let data = [
        &dict[..40],
        &periodic(90, 7, 22)[..],
        &dict[150..230],
        &text(120, 23)[..],
        &dict[255..],
        &dict[..30],
    ]
    .concat();
    (dict, data)
}

#[test]
fn dictionary_decodes_through_every_variant() {
    let (dict, data) = dictionary_case();
    for level in [1, 9] {
        let c = block::compress_with_dict(&data, &dict, level);
        for &v in Variant::available() {
            let mut d = Decoder::with_variant(v).unwrap();
            // Exact capacity and a roomy stale buffer, as above.
            for extra in [0usize, 40] {
                let mut out = vec![0xA5u8; data.len() + extra];
                let n = d
                    .decompress_with_dict_into(&c, &dict, &mut out)
                    .unwrap_or_else(|e| panic!("{v} level {level} with dictionary: {e}"));
                assert_eq!(&out[..n], &data[..], "{v} level {level} with dictionary");
            }
            // Only the dictionary's last bytes, and none: matches reach
            // before what is there, which is an error, never a read
            // outside the dictionary.
            let mut out = vec![0u8; data.len()];
            for tail in [dict.len() - 1, 1] {
                let short = &dict[tail..];
                if let Ok(n) = d.decompress_with_dict_into(&c, short, &mut out) {
                    assert!(n <= data.len(), "{v}");
                }
            }
            assert!(
                d.decompress_into(&c, &mut out).is_err(),
                "{v}: no dictionary"
            );
        }
    }
}

#[test]
fn truncated_and_corrupt_dictionary_blocks_fail_cleanly() {
    let (dict, data) = dictionary_case();
    let c = block::compress_with_dict(&data, &dict, 1);
    for &v in Variant::available() {
        let mut d = Decoder::with_variant(v).unwrap();
        let mut out = vec![0u8; data.len()];
        for cut in (0..c.len()).step_by(9) {
            if let Ok(n) = d.decompress_with_dict_into(&c[..cut], &dict, &mut out) {
                assert!(n < data.len(), "{v}: prefix {cut} decoded everything");
            }
        }
        for at in (0..c.len()).step_by(13) {
            let mut bad = c.clone();
            bad[at] ^= 0x5A;
            let _ = d.decompress_with_dict_into(&bad, &dict, &mut out);
        }
    }
}
