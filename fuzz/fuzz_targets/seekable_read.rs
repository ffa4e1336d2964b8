//! Seekable files (`lzkit::seekable`): an arbitrary file, or a valid one
//! built from the input (lzkit's LZ4 writer, plain LZ4 frames indexed by
//! `build_table`, libzstd frames with a zstd seek table) and then edited
//! at positions the input chooses (layout in `lzkit_fuzz::seekable`).
//! Opened with its table or by a scan, and without scanning; `read_at` at
//! offsets from the input and `decode_all` on 1 and 2 threads: typed
//! errors or the right bytes, the ways of reading agreeing, a scan
//! agreeing with lzkit's ordinary decoder, and never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::seekable::SeekCase;

fuzz_target!(|input: &[u8]| {
    SeekCase::parse(input).check();
});
