//! Literal and match lengths whose 255-runs add up past what a 32-bit
//! `usize` holds (issue 10): on a 32-bit target every decode path reports
//! [`Lz4Fault::LengthOverflow`] (the reference decoder rejects the same
//! lengths, over half the address space), never a wrapped length that
//! passes the bounds checks; on a 64-bit target the same blocks are still
//! errors (the data does not fit the output). CI runs this file on i686.

use lzkit::lz4::block::{self, Decoder, Variant};
use lzkit::{Error, Fault, Lz4Fault};
use lzkit_testkit::c_ref;

/// 255-run bytes after the token: with the token's 15 and the run's last
/// byte, a length of 2^32 - 11 (the block).
const RUN: usize = 16_843_008;

/// The block: a literal length of 2^32 - 11 (token `F0`, `RUN`
/// bytes of 255, then 230), followed by 100 bytes.
fn literal_overflow() -> Vec<u8> {
    let mut b = vec![0xF0];
    b.resize(1 + RUN, 0xFF);
    b.push(0xE6);
    b.extend((0..100u8).map(|i| i.wrapping_mul(7)));
    b
}

/// A match length of 2^32 - 11 + 4 after one literal, then 12 last
/// literals.
fn match_overflow() -> Vec<u8> {
    let mut b = vec![0x1F, b'a', 1, 0];
    b.resize(4 + RUN, 0xFF);
    b.push(0xE6);
    b.push(0xC0);
    b.extend_from_slice(b"0123456789ab");
    b
}

/// A 255-run of the same length that runs to the end of the input.
fn unterminated() -> Vec<u8> {
    let mut b = vec![0xF0];
    b.resize(1 + RUN + 1, 0xFF);
    b
}

/// Check one decode's result: an error, `LengthOverflow` on 32-bit targets.
#[track_caller]
fn check(r: lzkit::Result<usize>, what: &str) {
    match r {
        Err(Error::CorruptBlock {
            fault: Fault::Lz4(fault),
            ..
        }) => {
            if cfg!(target_pointer_width = "32") {
                assert_eq!(fault, Lz4Fault::LengthOverflow, "{what}");
            } else {
                assert_ne!(fault, Lz4Fault::LengthOverflow, "{what}");
            }
        }
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn lengths_past_4_gib_are_errors_on_every_path() {
    let dict = b"a dictionary before the output".as_slice();
    for (name, b) in [
        ("literal length", literal_overflow()),
        ("match length", match_overflow()),
        ("unterminated length", unterminated()),
    ] {
        // C rejects it too (on 32-bit targets: over half the address space).
        assert_eq!(c_ref::decompress(&b, 1000, &[], 0), None, "{name}: C");
        for &v in Variant::available() {
            let mut d = Decoder::with_variant(v).expect("available");
            let mut dst = vec![0u8; 1000];
            check(d.decompress_into(&b, &mut dst), &format!("{name}: {v}"));
            check(
                d.decompress_with_dict_into(&b, dict, &mut dst),
                &format!("{name}: {v}, dictionary"),
            );
            let mut buf = [dict, &[0u8; 1000]].concat();
            check(
                d.decompress_with_prefix_into(&b, &mut buf, dict.len()),
                &format!("{name}: {v}, prefix"),
            );
        }
        let mut dst = vec![0u8; 1000];
        check(block::decompress_into(&b, &mut dst), name);
        check(
            block::decompress_with_dict_into(&b, &mut dst, dict),
            &format!("{name}: dictionary"),
        );
        check(block::decompress(&b, 1000).map(|v| v.len()), name);
    }
}
