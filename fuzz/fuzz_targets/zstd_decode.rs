//! Arbitrary bytes (after one control byte: dictionaries, output capacity,
//! read size; layout in `lzkit_fuzz::zstd::DecodeCase`) decoded as zstd by
//! every available variant forced and by the adaptive decoder, into a
//! bounded buffer prefilled with stale bytes, by `Decoder::decompress`
//! where its output is bounded, and by the streaming `FrameDecoder`: all
//! must agree on Ok/Err and on the bytes, and none may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::zstd::DecodeCase;

fuzz_target!(|input: &[u8]| {
    DecodeCase::parse(input).check();
});
