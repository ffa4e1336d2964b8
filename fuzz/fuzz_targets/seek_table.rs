//! Seek tables crafted as an attacker would, over real frames (layout in
//! `lzkit_fuzz::seek_table`): entries left out, resized, moved, merged,
//! duplicated, checksums recomputed. Every read gives the content's bytes
//! or an error; `decode_all` the whole content or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::seek_table::TableCase;

fuzz_target!(|input: &[u8]| {
    TableCase::parse(input).check();
});
