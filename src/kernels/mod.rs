//! Copy kernels: the primitives the decode loops are built from. They depend
//! on nothing else in the crate.
//!
//! All kernels here are *wild*: they copy whole chunks and may write past the
//! requested length (never read past it where that would read unwritten
//! output). Each function states exactly how far it may overrun, so a decode
//! loop can prove it only calls them with that much room left.

mod scalar;

pub(crate) use scalar::{MATCH_OVERRUN, WILD_OVERRUN, copy_match, wild_copy};
