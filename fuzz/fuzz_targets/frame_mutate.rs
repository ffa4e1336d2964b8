//! A valid frame built from fuzz-chosen options and data (lzkit's encoder,
//! with flushes for many short blocks, or C's), then edited (layout and
//! edits in `lzkit_fuzz::frame_case`), decoded by every frame decoder
//! (serial and parallel, one-shot and streaming) and by C. Unedited, every
//! decoder and C must give the data back; edited, they must agree with
//! each other and with C (exceptions in `lzkit_fuzz::known`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::frame_case::FrameCase;
use lzkit_fuzz::{check_against_c, decode_all_agree};

fuzz_target!(|input: &[u8]| {
    let case = FrameCase::parse(input);
    let ours = decode_all_agree(&case.stream, &case.decode_dict);
    check_against_c(&case.stream, &case.decode_dict, &ours);
    if case.must_decode {
        match &ours {
            Ok(out) => assert!(
                *out == case.expected,
                "the unedited stream decodes to other content ({} bytes, {} expected)",
                out.len(),
                case.expected.len()
            ),
            Err(e) => panic!(
                "the unedited stream fails: {e} ({} bytes of data)",
                case.data.len()
            ),
        }
    }
});
