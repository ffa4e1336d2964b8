//! The references `lzkit bench` and `lzkit probe` measure lzkit against,
//! besides libzstd: the LZ4 C library (lz4 through the test kit's `c_ref`)
//! and lz4_flex. They are built in with the command's `c-reference` feature
//! only, so that what `cargo install` builds carries no test code.
//!
//! Without the feature this module keeps its names: the functions say that
//! nothing was done, and [`State`] and [`FrameDecoder`] cannot be made.
//! The callers check [`BUILT_IN`] first: they measure lzkit alone, leave
//! the C columns empty (NaN: "-" in tables) and say how to get them
//! ([`MISSING`]).

/// Whether the C reference and lz4_flex are built in.
pub const BUILT_IN: bool = cfg!(feature = "c-reference");

/// What a report or an error says when they are not.
pub const MISSING: &str = "the C columns (the LZ4 C library, lz4_flex) are not built in: \
                           build with `cargo build --release -p lzkit-cli --features \
                           c-reference` for them";

#[cfg(feature = "c-reference")]
pub use lzkit_testkit::c_ref::{
    FrameDecoder, State, bound_for_either, compress_into, decompress_into, entry_point, version,
};

/// `lz4_flex::block::decompress_into` (the crate's safe decoder): decode
/// `src` into `dst`; the decoded size, or why not.
#[cfg(feature = "c-reference")]
#[inline]
pub fn flex_decompress_into(src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
    lz4_flex::block::decompress_into(src, dst).map_err(|e| e.to_string())
}

#[cfg(not(feature = "c-reference"))]
pub use absent::*;

/// The same names when the references are not built in.
#[cfg(not(feature = "c-reference"))]
mod absent {
    use super::MISSING;

    /// No C library: what the reports show for its version.
    pub fn version() -> String {
        "(not built in)".into()
    }

    /// No C entry point either.
    pub fn entry_point(_level: i32) -> String {
        "(not built in)".into()
    }

    /// Room for one compressed block of `len` bytes: lzkit's bound.
    pub fn bound_for_either(len: usize) -> usize {
        lzkit::lz4::block::max_compressed_size(len)
    }

    /// Compresses nothing: `None`.
    pub fn compress_into(_src: &[u8], _dst: &mut [u8], _level: i32) -> Option<usize> {
        None
    }

    /// Decodes nothing: `None`.
    pub fn decompress_into(_src: &[u8], _dst: &mut [u8]) -> Option<usize> {
        None
    }

    /// Decodes nothing: an error.
    pub fn flex_decompress_into(_src: &[u8], _dst: &mut [u8]) -> Result<usize, String> {
        Err(MISSING.into())
    }

    /// The C compressor's state: none can be made.
    pub enum State {}

    impl State {
        /// `None`: there is no C library.
        pub fn new(_level: i32) -> Option<State> {
            None
        }

        /// Never called: no state exists.
        pub fn compress_into(
            &mut self,
            _src: &[u8],
            _dst: &mut [u8],
            _level: i32,
        ) -> Option<usize> {
            match *self {}
        }
    }

    /// C's frame decoder: none can be made.
    pub enum FrameDecoder {}

    impl FrameDecoder {
        /// An error: there is no C library.
        pub fn new() -> Result<FrameDecoder, String> {
            Err(MISSING.into())
        }

        /// Never called: no decoder exists.
        pub fn decode_into(&mut self, _frame: &[u8], _dst: &mut [u8]) -> Result<usize, String> {
            match *self {}
        }
    }
}
