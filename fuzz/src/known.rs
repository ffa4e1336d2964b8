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
//! * **Fewer than 5 trailing literals** ([`ends_inside_last_literals`]).
//!   C's shortcut for a short literal run followed by a match skips the
//!   check that a non-last literal run leaves 8 bytes of input, so C accepts
//!   blocks whose last match ends within the last 5 bytes (example: block
//!   `df4142434445464748494a4b4c4d0100003078797a` into 40 bytes gives 35
//!   bytes), which lzkit rejects. lzkit is being changed to accept exactly
//!   those; until then the targets tolerate this one shape when
//!   [`tolerate_known_stricter`] says so. Delete the tolerance (set
//!   [`TOLERATE_KNOWN_STRICTER`] to `false`) once the change is merged.

use lzkit::lz4::block::LAST_LITERALS;
use lzkit::{Error, Fault, Lz4Fault};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the targets tolerate lzkit rejecting a block that C accepts
/// where the block's last match ends within the last [`LAST_LITERALS`]
/// bytes (see the module documentation). Set to `false` once lzkit accepts
/// these blocks; `LZKIT_FUZZ_STRICT=1` turns the tolerance off at run time.
pub const TOLERATE_KNOWN_STRICTER: bool = true;

/// [`TOLERATE_KNOWN_STRICTER`], unless the environment variable
/// `LZKIT_FUZZ_STRICT` is set to `1`.
pub fn tolerate_known_stricter() -> bool {
    static T: OnceLock<bool> = OnceLock::new();
    *T.get_or_init(|| {
        TOLERATE_KNOWN_STRICTER && std::env::var("LZKIT_FUZZ_STRICT").as_deref() != Ok("1")
    })
}

/// Say once per process that the known difference was met and tolerated
/// (so a run's log shows that the tolerance is still needed).
pub fn note_tolerated(what: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!(
            "lzkit-fuzz: tolerated the known end-of-block difference from C ({what}); \
             further ones are not reported (LZKIT_FUZZ_STRICT=1 makes it a failure)"
        );
    }
}

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

/// Whether the block `src` parses (sequence structure only: offsets are
/// not checked) into sequences whose last one is literals only, and whose
/// last match ends within the last [`LAST_LITERALS`] bytes of the output:
/// the shape of the known difference. `false` for anything that does not
/// parse.
pub fn ends_inside_last_literals(src: &[u8]) -> bool {
    fn length(src: &[u8], ip: &mut usize, mut len: usize) -> Option<usize> {
        loop {
            let b = *src.get(*ip)?;
            *ip += 1;
            len = len.checked_add(b as usize)?;
            if b != 255 {
                return Some(len);
            }
        }
    }
    let parse = || -> Option<bool> {
        let (mut ip, mut op) = (0usize, 0usize);
        let mut last_match_end = None;
        loop {
            let token = *src.get(ip)?;
            ip += 1;
            let mut lit = (token >> 4) as usize;
            if lit == 15 {
                lit = length(src, &mut ip, lit)?;
            }
            if src.len() - ip < lit {
                return None;
            }
            ip += lit;
            op = op.checked_add(lit)?;
            if ip == src.len() {
                return Some(last_match_end.is_some_and(|end: usize| end + LAST_LITERALS > op));
            }
            ip = ip.checked_add(2).filter(|&p| p <= src.len())?;
            let mut ml = (token & 15) as usize;
            if ml == 15 {
                ml = length(src, &mut ip, ml)?;
            }
            op = op.checked_add(ml + 4)?;
            last_match_end = Some(op);
        }
    };
    parse().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn the_known_block_has_the_known_shape() {
        let known = hex("df4142434445464748494a4b4c4d0100003078797a");
        assert!(ends_inside_last_literals(&known));
        // Five trailing literals: the rules hold.
        let ok = hex("df4142434445464748494a4b4c4d010000507778797a7b");
        assert!(!ends_inside_last_literals(&ok));
        // No match at all, truncated, empty.
        assert!(!ends_inside_last_literals(b"\x30abc"));
        assert!(!ends_inside_last_literals(&known[..10]));
        assert!(!ends_inside_last_literals(&[]));
    }
}
