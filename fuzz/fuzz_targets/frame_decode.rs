//! Arbitrary bytes as an LZ4 stream (frames, skippable frames, legacy),
//! decoded by every frame decoder variant (one-shot, and `FrameDecoder` with
//! small reads over a trickling reader). No panic; all variants agree (same
//! content, or errors of the same kind); never accept what C's
//! `LZ4F_decompress` rejects; `list_frames` does not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit::lz4::frame;
use lzkit_fuzz::{CFrame, FRAME_DECODERS, c_frame_decode, dictionary, mentions_legacy};
use std::mem::discriminant;

fuzz_target!(|data: &[u8]| {
    // A leading 0xD1 means "decode with the dictionary".
    let (dict, src): (&[u8], &[u8]) = match data.split_first() {
        Some((0xD1, rest)) => (dictionary(), rest),
        _ => (&[], data),
    };
    let results: Vec<(&str, lzkit::Result<Vec<u8>>)> = FRAME_DECODERS
        .iter()
        .map(|v| (v.name, (v.decode)(src, dict)))
        .collect();
    let (n0, r0) = &results[0];
    for (n, r) in &results[1..] {
        match (r0, r) {
            (Ok(a), Ok(b)) => assert!(a == b, "{n0} and {n} decode to different content"),
            (Err(a), Err(b)) => {
                assert_eq!(discriminant(a), discriminant(b), "{n0}: {a:?}; {n}: {b:?}")
            }
            _ => panic!(
                "{n0}: {:?}; {n}: {:?}",
                r0.as_ref().map(Vec::len),
                r.as_ref().map(Vec::len)
            ),
        }
    }
    if !mentions_legacy(src) {
        match (c_frame_decode(src, dict), r0) {
            (CFrame::Rejected, Ok(v)) => {
                panic!("C rejects the stream, we accept it ({} bytes)", v.len())
            }
            (CFrame::Ok(c), Ok(v)) => assert!(c == *v, "C and {n0} decode to different content"),
            _ => {}
        }
    }
    let _ = frame::list_frames(src);
});
