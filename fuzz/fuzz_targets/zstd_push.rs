//! A zstd stream (after a control byte choosing dictionaries and four
//! bytes choosing piece sizes; layout in `lzkit_fuzz::zstd::PushCase`)
//! pushed into the `PushDecoder` in those pieces and in one, against the
//! pull `FrameDecoder`: all must agree on Ok/Err, on the error and on the
//! bytes, and none may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::zstd::PushCase;

fuzz_target!(|input: &[u8]| {
    PushCase::parse(input).check();
});
