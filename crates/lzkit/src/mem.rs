//! Fallible allocation of decode buffers. Decoders size their buffers
//! from what the input can produce (an LZ4 block at most 255 times its
//! size, a stored block its size), never from a size the input claims;
//! and an allocation the system refuses is [`Error::OutOfMemory`], never
//! an abort.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc_zeroed};
use std::mem::MaybeUninit;

/// The error for `bytes` bytes the system would not allocate.
#[cold]
pub(crate) fn out_of_memory(bytes: usize) -> Error {
    Error::OutOfMemory { bytes }
}

/// `len` zero bytes, or [`Error::OutOfMemory`]. Zeroed by the allocator
/// (`calloc`): a large one is fresh zero pages, first touched by whoever
/// writes to them (the decoder), not zero-filled here.
pub(crate) fn zeroed(len: usize) -> Result<Vec<u8>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout = Layout::array::<u8>(len).map_err(|_| out_of_memory(len))?;
    // SAFETY: the layout's size is not zero (len > 0).
    let p = unsafe { alloc_zeroed(layout) };
    if p.is_null() {
        return Err(out_of_memory(len));
    }
    // SAFETY: `p` was allocated by the global allocator with the layout of
    // `len` bytes at alignment 1, which is a `Vec<u8>`'s for capacity
    // `len`; all `len` bytes are initialised (zero).
    Ok(unsafe { Vec::from_raw_parts(p, len, len) })
}

/// Lengthen `v` to `len` bytes (if shorter), the new bytes zero, or
/// [`Error::OutOfMemory`] (and `v` unchanged). Grows the capacity as
/// [`Vec::reserve`] does (amortized doubling): for an output that keeps
/// growing.
pub(crate) fn grow_zeroed(v: &mut Vec<u8>, len: usize) -> Result<()> {
    if let Some(more) = len.checked_sub(v.len())
        && more > 0
    {
        v.try_reserve(more).map_err(|_| out_of_memory(len))?;
        v.resize(len, 0);
    }
    Ok(())
}

/// `v` as `len` bytes for a reader to fill (its first bytes kept, the rest
/// zero): shrunk, or grown to exactly `len` through
/// [`grow_zeroed_exact`], so a size the system cannot give is
/// [`Error::OutOfMemory`], not an abort.
pub(crate) fn resize_for_read(v: &mut Vec<u8>, len: usize) -> Result<()> {
    v.truncate(len);
    grow_zeroed_exact(v, len)
}

/// [`grow_zeroed`] to a capacity of exactly `len` where it must grow: for
/// a buffer reused at about the same size (a block's or a batch's room),
/// which doubling would leave twice as large as it is ever used.
pub(crate) fn grow_zeroed_exact(v: &mut Vec<u8>, len: usize) -> Result<()> {
    if let Some(more) = len.checked_sub(v.len())
        && more > 0
    {
        v.try_reserve_exact(more).map_err(|_| out_of_memory(len))?;
        v.resize(len, 0);
    }
    Ok(())
}

/// Copy into `dst` as much of `src[*from..end]` as fits, and advance
/// `*from` past it: how a streaming decoder's `Read` hands out what it has
/// decoded. Returns the count, 0 when nothing is left (or `dst` is empty).
pub(crate) fn hand_out(dst: &mut [u8], src: &[u8], from: &mut usize, end: usize) -> usize {
    let n = dst.len().min(end.saturating_sub(*from));
    dst[..n].copy_from_slice(&src[*from..*from + n]);
    *from += n;
    n
}

/// `part` zero-filled, as initialised bytes.
pub(crate) fn zero_fill(part: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    part.fill(MaybeUninit::new(0));
    // SAFETY: every element was just initialised, and `MaybeUninit<u8>`
    // has the size, alignment and layout of `u8`.
    unsafe { &mut *(part as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_failures_are_errors() {
        assert_eq!(zeroed(0).unwrap(), []);
        let v = zeroed(100_000).unwrap();
        assert!(v.len() == 100_000 && v.capacity() == 100_000 && v.iter().all(|&b| b == 0));
        let mut v = vec![7u8; 3];
        grow_zeroed(&mut v, 5).unwrap();
        grow_zeroed(&mut v, 2).unwrap();
        assert_eq!(v, [7, 7, 7, 0, 0]);
        let mut w = vec![1u8; 1000];
        grow_zeroed_exact(&mut w, 1001).unwrap();
        assert!(w.len() == 1001 && w.capacity() == 1001 && w[1000] == 0);
        // More than the address space allows: an error, not an abort.
        for huge in [usize::MAX, isize::MAX as usize + 1] {
            assert!(matches!(zeroed(huge), Err(Error::OutOfMemory { bytes }) if bytes == huge));
            assert!(matches!(
                grow_zeroed(&mut v, huge),
                Err(Error::OutOfMemory { .. })
            ));
            assert!(matches!(
                grow_zeroed_exact(&mut v, huge),
                Err(Error::OutOfMemory { .. })
            ));
        }
        assert_eq!(v, [7, 7, 7, 0, 0]);
        let mut spare = Vec::<u8>::with_capacity(64);
        let bytes = zero_fill(&mut spare.spare_capacity_mut()[..64]);
        assert_eq!(bytes, [0; 64]);
    }
}
