//! Copy kernels: the few primitives the decode loops are built from, one
//! implementation per copy width and instruction set. They depend on nothing
//! else in the crate but `crate::cpu` (the table's availability).
//!
//! A [`Kernel`] copies literals and matches in chunks of its width `W`
//! ("wild" copies that may write past the requested length). Matches whose
//! offset is smaller than the width cannot be copied chunk by chunk (a chunk
//! would read bytes it has not written yet), so kernels fill them from a
//! *pattern register*: the `offset` bytes before the destination, repeated
//! to the full width with one shuffle, then stored over and over with a step
//! that is a multiple of the offset, with no load inside the loop.
//!
//! Offsets from 16 up to 63 are copied from registers too on x86-64: the
//! `offset` bytes before the destination are loaded once and stored at every
//! multiple of the offset. Copying them chunk by chunk would load from output
//! written a few stores earlier, across store boundaries, which defeats
//! store-to-load forwarding and stalls every chunk (lines of 21..63 bytes in
//! text columns decoded 14% slower than lz4's C decoder that way).
//!
//! * [`table`]: the kernel table, every kernel's identity defined once
//!   (its public id, the enum [`table::Kernel`], name, width, instruction set,
//!   availability on this CPU through `crate::cpu`, and the type that
//!   implements this module's [`Kernel`] primitives); each codec derives
//!   its variant table from it. A new kernel is its instruction-set file
//!   and one row there.
//! * [`portable`]: plain Rust for every width, on every target.
//! * [`exact`]: plain-Rust match copies with exact bounds and the 16-byte
//!   pattern value, for where wild copies cannot go.
//! * `x86_64`: SSSE3 (`pshufb`, 16 bytes), AVX2 (`vpshufb`, 32 bytes),
//!   AVX-512 VBMI (`vpermb`, 64 bytes, offsets up to 63 from the register);
//!   all three fill short offsets from a window the caller chooses
//!   ([`Kernel::fill_short`]).
//! * `aarch64`: NEON (`tbl`, 16/32/64 bytes).

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod exact;
pub(crate) mod portable;
pub(crate) mod table;
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

    /// How many bytes before the destination [`Kernel::copy_match`] may
    /// read (its pattern window): the decode loop calls it only once this
    /// much output exists, and copies earlier matches without the kernel.
    const HISTORY: usize;

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
    /// output. A pattern load may read (and discard) the history bytes
    /// `dst - HISTORY .. dst - offset`, and may read bytes of the destination
    /// range `dst .. dst + OVERRUN` before this call writes them: they only
    /// reach scratch positions, each overwritten by a later store of the
    /// same call or left past `dst + len`.
    ///
    /// # Safety
    /// The contract above, plus: `dst - max(offset, HISTORY) .. dst`
    /// is initialised and in the same allocation.
    unsafe fn copy_match(dst: *mut u8, offset: usize, len: usize);

    /// Whether [`Kernel::fill_short`] is the kernel's own: a pattern built
    /// from 8-byte loads of a window the caller chooses (the x86-64 SIMD
    /// kernels, with `pshufb`). Loops test it (a constant) before choosing
    /// a window; without it they copy short offsets with
    /// [`Kernel::copy_match`].
    const FILLS_FROM_WINDOW: bool = false;

    /// Smallest offset [`Kernel::copy_short_match`] handles.
    const SHORT_MATCH_MIN_OFFSET: usize = 8;

    /// Copy a literal run of at most 14 bytes (one the token alone encodes)
    /// as one fixed-size chunk: no length-dependent branch.
    ///
    /// # Safety
    /// `src .. src + 16` readable, `dst .. dst + 16` writable, not overlapping.
    #[inline(always)]
    unsafe fn copy_short_literals(dst: *mut u8, src: *const u8) {
        // SAFETY: the caller guarantees both 16-byte ranges.
        unsafe { copy_chunk::<16>(dst, src) }
    }

    /// Fill a match of `len` bytes at `dst` with offset `1 <= offset < 16`
    /// from a pattern of the `offset` bytes before `window_end`: the output
    /// before `dst`, or the same bytes where the caller has them in a
    /// buffer written long before (a literal buffer). A kernel with
    /// [`Kernel::FILLS_FROM_WINDOW`] loads them with 8-byte loads there,
    /// which store-to-load forwarding serves where a 16-byte load from
    /// just-written output would wait; the default copies from the output
    /// with [`Kernel::copy_match`].
    ///
    /// # Safety
    /// `window_end - max(16, HISTORY) .. window_end` initialised, its last
    /// `offset` bytes those before `dst`; `dst - max(offset, HISTORY) ..
    /// dst` initialised and `dst .. dst + len + OVERRUN` writable, in one
    /// allocation.
    #[inline(always)]
    unsafe fn fill_short(dst: *mut u8, window_end: *const u8, offset: usize, len: usize) {
        let _ = window_end;
        // SAFETY: the caller guarantees copy_match's contract at dst.
        unsafe { Self::copy_match(dst, offset, len) }
    }

    /// Copy a match of at most 18 bytes (one the token alone encodes) whose
    /// offset is at least [`Kernel::SHORT_MATCH_MIN_OFFSET`], with fixed-size
    /// chunks: no length-dependent branch. Writes up to 32 bytes.
    ///
    /// The default copies 8 + 8 + 2 bytes: small loads are likely to be
    /// served whole from one earlier store (store-to-load forwarding), which
    /// 16-byte loads straddling two recent stores are not, and the last 2
    /// bytes (lengths 17 and 18 only) stay inside the first chunk's store.
    ///
    /// # Safety
    /// `dst - offset .. dst` initialised, `dst .. dst + 32` writable, same
    /// allocation, `offset >= SHORT_MATCH_MIN_OFFSET`.
    #[inline(always)]
    unsafe fn copy_short_match(dst: *mut u8, offset: usize) {
        // SAFETY: with offset >= 8 each chunk reads only bytes before its
        // own destination; writes end at dst + 18.
        unsafe {
            let src = dst.sub(offset);
            copy_chunk::<8>(dst, src);
            copy_chunk::<8>(dst.add(8), src.add(8));
            copy_chunk::<2>(dst.add(16), src.add(16));
        }
    }
}

/// Call `f(i)` for `i = 0, step, 2 * step, ...` while `i < len`, at least
/// once: the loop of every chunked copy and pattern store. Callers pass a
/// closure that moves one chunk at `i`.
#[inline(always)]
pub(crate) fn for_each_step(len: usize, step: usize, mut f: impl FnMut(usize)) {
    let mut i = 0;
    loop {
        f(i);
        i += step;
        if i >= len {
            break;
        }
    }
}

/// Copy one `N`-byte chunk with an unaligned load and store.
///
/// # Safety
/// `src .. src + N` readable and `dst .. dst + N` writable.
#[inline(always)]
pub(crate) unsafe fn copy_chunk<const N: usize>(dst: *mut u8, src: *const u8) {
    // SAFETY: the caller guarantees both ranges; the load completes before
    // the store, so overlap is harmless.
    unsafe {
        // As one register where there is one: a byte array in between may
        // be given a stack slot, and a dead store to it is then left in the
        // decode loop (seen with 16-byte chunks).
        match N {
            2 => copy_as::<u16>(dst, src),
            8 => copy_as::<u64>(dst, src),
            #[cfg(target_arch = "x86_64")]
            16 => copy_as::<core::arch::x86_64::__m128i>(dst, src),
            _ => copy_as::<[u8; N]>(dst, src),
        }
    }
}

/// Copy one unaligned `T` from `src` to `dst`.
///
/// # Safety
/// `src .. src + size_of::<T>()` readable and `dst .. dst + size_of::<T>()`
/// writable; `T` a plain-data type valid for any bytes.
#[inline(always)]
unsafe fn copy_as<T: Copy>(dst: *mut u8, src: *const u8) {
    // SAFETY: forwarded from the caller.
    unsafe {
        core::ptr::write_unaligned(dst.cast::<T>(), core::ptr::read_unaligned(src.cast::<T>()))
    }
}

/// Shuffle indices that repeat the *last* `o` bytes of an `n`-byte window
/// (the bytes just before the destination) across 64 bytes:
/// `t[o][i] = n - o + i % o`. Loading the window so that it ends at the
/// destination reads only bytes already written, never the scratch bytes
/// past it, which would also defeat store-to-load forwarding. Only the SIMD
/// kernels (x86-64, AArch64) use these tables.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const fn end_index<const N: usize>() -> [[u8; 64]; N] {
    let mut t = [[0u8; 64]; N];
    let mut o = 1;
    while o < N {
        let mut i = 0;
        while i < 64 {
            t[o][i] = (N - o + i % o) as u8;
            i += 1;
        }
        o += 1;
    }
    t
}

/// [`end_index`] for a 16-byte window (offsets 1..16).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) static END_INDEX_16: [[u8; 64]; 16] = end_index::<16>();
/// [`end_index`] for a 64-byte window (offsets 1..64).
#[cfg(target_arch = "x86_64")]
pub(crate) static END_INDEX_64: [[u8; 64]; 64] = end_index::<64>();

/// Largest multiple of `offset` that is at most `width`: the step at which
/// a `width`-byte pattern register can be stored repeatedly. A table lookup
/// for the widths in use (a division costs tens of cycles per match).
#[inline(always)]
pub(crate) fn pattern_step(width: usize, offset: usize) -> usize {
    let row = match width {
        8 => 0,
        16 => 1,
        32 => 2,
        _ => 3,
    };
    PATTERN_STEP[row][offset & 63] as usize
}

/// `PATTERN_STEP[r][o] = w - w % o` for `w = 8 << r` (0 where `o` is 0).
static PATTERN_STEP: [[u8; 64]; 4] = {
    let mut t = [[0u8; 64]; 4];
    let mut r = 0;
    while r < 4 {
        let w = 8usize << r;
        let mut o = 1;
        while o < 64 {
            t[r][o] = (w - w % o) as u8;
            o += 1;
        }
        r += 1;
    }
    t
};
