//! The input's body compressed by libzstd at a level chosen by the input
//! (−5..=22), with checksum, content size, dictionary ID, flushes, one-call
//! compression and a long window as the input says, optionally with a
//! dictionary (raw content from the input's front, or a trained one);
//! layout in `lzkit_fuzz::zstd::LibCase`. Every lzkit decoder must give
//! the data back, and refuse a buffer one byte too small.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::zstd::LibCase;

fuzz_target!(|input: &[u8]| {
    LibCase::parse(input, false).check_roundtrip();
});
