//! Arbitrary bytes as an LZ4 stream (frames, skippable frames, legacy),
//! decoded by every frame decoder: one-shot, one-shot on 2 threads,
//! `FrameDecoder` and `FrameDecoder` on 2 threads, both over a reader that
//! hands out the input in uneven pieces (single bytes to whole blocks).
//! They must agree (the same content, or the same error), C's
//! `LZ4F_decompress` must agree with them (exceptions in
//! `lzkit_fuzz::known`), and `list_frames` must not panic. Without a
//! dictionary, `PushDecoder` fed in uneven pieces must agree with
//! `decompress_first`. A leading 0xD1 byte means "decode with the fixed
//! dictionary".
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit::lz4::frame;
use lzkit_fuzz::{check_against_c, decode_all_agree, dictionary, push_agrees};

fuzz_target!(|data: &[u8]| {
    let (dict, src): (&[u8], &[u8]) = match data.split_first() {
        Some((0xD1, rest)) => (dictionary(), rest),
        _ => (&[], data),
    };
    if dict.is_empty() {
        push_agrees(src);
    }
    let ours = decode_all_agree(src, dict);
    check_against_c(src, dict, &ours);
    let _ = frame::list_frames(src);
});
