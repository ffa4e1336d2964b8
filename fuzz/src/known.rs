//! The differences from C that the targets expect, each for a stated reason.
//! Everything else C accepts, lzkit must accept with the same bytes, and
//! the reverse.
//!
//! * **Offset 0.** The format forbids it and lzkit rejects it by design
//!   (`Lz4Fault::OffsetZero`). `LZ4_decompress_safe` does not check it: it
//!   copies the match from the output position itself (bytes it zeroed
//!   first, for short offsets), so C accepts such blocks. A case where lzkit
//!   reports offset 0 is not compared with C's verdict; lzkit stops at the
//!   first offset 0, so any other error of lzkit's comes before it and
//!   would be compared.
//!
//! Blocks whose last match ends within the last 5 bytes (C's shortcut)
//! are no exception: lzkit accepts exactly what C accepts there.

use lzkit::{Error, Fault, Lz4Fault};

/// The innermost error: a frame's block error wraps the block's own.
pub fn innermost(e: &Error) -> &Error {
    match e {
        Error::Block { source, .. } => innermost(source),
        other => other,
    }
}

/// Whether lzkit's error is a match offset of 0 (rejected by design).
pub fn is_offset_zero(e: &Error) -> bool {
    matches!(
        innermost(e),
        Error::CorruptBlock {
            fault: Fault::Lz4(Lz4Fault::OffsetZero),
            ..
        }
    )
}
