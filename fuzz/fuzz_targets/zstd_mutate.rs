//! A valid libzstd frame of the input's body (as `zstd_roundtrip`), edited
//! by up to 15 mutations from the input (XOR, set, insert, delete,
//! truncate, bit flips; layout in `lzkit_fuzz::zstd::LibCase`), decoded by
//! every lzkit decoder (which must agree) and by libzstd in one call into
//! the same bounded buffer: the same verdict, and the same bytes when both
//! accept. Known divergences would be documented in
//! `LibCase::check_mutated`; none is allowed so far.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::zstd::LibCase;

fuzz_target!(|input: &[u8]| {
    LibCase::parse(input, true).check_mutated();
});
