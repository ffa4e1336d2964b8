//! Copy kernels: the few primitives the decode loops are built from, one
//! implementation per copy width and instruction set. They depend on nothing
//! else in the crate.
//!
//! A [`Kernel`] copies literals and matches in chunks of its width `W`
//! ("wild" copies that may write past the requested length). Matches whose
//! offset is smaller than the width cannot be copied chunk by chunk (a chunk
//! would read bytes it has not written yet), so kernels fill them from a
//! *pattern register*: the `offset` bytes before the destination, repeated
//! to the full width with one shuffle, then stored over and over with a step
//! that is a multiple of the offset, with no load inside the loop.
//!
//! * [`portable`]: plain Rust for every width, on every target.
//! * `x86_64`: SSSE3 (`pshufb`, 16 bytes), AVX2 (`vpshufb`, 32 bytes),
//!   AVX-512 VBMI (`vpermb`, 64 bytes, offsets up to 63 from the register).
//! * `aarch64`: NEON (`tbl`, 16/32/64 bytes).

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod portable;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

/// A copy strategy: how literals and matches are copied.
///
/// # Contract (for both functions)
/// The caller guarantees that `dst .. dst + len + Self::OVERRUN` is writable
/// memory of one initialised allocation. Kernels write only inside it and
/// produce exactly the bytes a byte-by-byte copy would in `dst .. dst + len`;
/// bytes past `dst + len` are scratch.
pub(crate) trait Kernel {
    /// How far past `dst + len` a copy may write, and past the source's end
    /// a literal copy may read.
    const OVERRUN: usize;

    /// Copy `len` literal bytes from `src` to `dst`.
    ///
    /// # Safety
    /// The contract above, plus: `src .. src + len + OVERRUN` readable and not
    /// overlapping the destination range.
    unsafe fn copy_literals(dst: *mut u8, src: *const u8, len: usize);

    /// Copy a match of `len >= 4` bytes starting `offset >= 1` bytes before
    /// `dst`, as if byte by byte.
    ///
    /// Only `dst - offset .. dst` and bytes this call writes contribute to the
    /// output. A pattern load may read (and discard) bytes up to
    /// `dst + OVERRUN`, inside the range the caller guarantees.
    ///
    /// # Safety
    /// The contract above, plus: `dst - offset .. dst` is initialised and in
    /// the same allocation.
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize);
}

/// `PATTERN_INDEX[o][i] = i % o`: shuffle indices that repeat the first `o`
/// bytes of a register across 64 bytes (row 0 is unused).
pub(crate) static PATTERN_INDEX: [[u8; 64]; 64] = {
    let mut t = [[0u8; 64]; 64];
    let mut o = 1;
    while o < 64 {
        let mut i = 0;
        while i < 64 {
            t[o][i] = (i % o) as u8;
            i += 1;
        }
        o += 1;
    }
    t
};

/// Largest multiple of `offset` that is at most `width`: the step at which
/// a `width`-byte pattern register can be stored repeatedly.
#[inline(always)]
pub(crate) const fn pattern_step(width: usize, offset: usize) -> usize {
    width - width % offset
}
