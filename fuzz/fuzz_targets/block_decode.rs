//! A block, a dictionary and an output capacity from the input (layout in
//! `lzkit_fuzz::block`), decoded by C's `LZ4_decompress_safe(_usingDict)`
//! and by every block decoder: the one-shot functions and every variant
//! this CPU runs, forced, each across the dictionary boundary when there
//! is a dictionary (the fixed one, or one taken from the input). Each
//! decodes into a buffer of exactly the capacity, prefilled with stale
//! bytes (alternating between two fills). They must all give C's verdict
//! and, when C accepts, C's bytes; errors must be identical across
//! decoders and point inside the block. The exceptions (offset 0, and for
//! now the known end-of-block difference) are in `lzkit_fuzz::known`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::block::BlockCase;

fuzz_target!(|data: &[u8]| {
    BlockCase::parse(data).check();
});
