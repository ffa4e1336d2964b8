//! The fuzz targets' global allocator (under `cfg(fuzzing)`, that is in
//! `cargo fuzz` builds): the system allocator (AddressSanitizer's, there),
//! except that large blocks freed are kept and handed out again for the
//! next request of exactly the same size and alignment.
//!
//! Why: some decoders allocate and zero-fill a few MiB per call whatever
//! the input (a window sized by the block maximum a frame header declares,
//! an 8 MiB legacy block). Under the sanitizer every such allocation is a
//! fresh `mmap`, page-faulted in, its shadow poisoned on free and unmapped
//! later: for a small input that costs ten times the decoding. A kept block
//! is only written again (the zero fill). Nothing is lost for the checks:
//! a kept block is never freed as far as the sanitizer knows, so accesses
//! past its end are still out of bounds (the sizes match exactly); only a
//! use after free of a kept block would go unnoticed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::{Mutex, PoisonError};

/// Blocks of at least this many bytes are kept when freed.
const LARGE: usize = 1 << 20;
/// At most this many blocks are kept (the oldest is freed for a new one).
const KEPT: usize = 8;

/// A kept block: its address and layout.
#[derive(Clone, Copy)]
struct Kept {
    ptr: usize,
    size: usize,
    align: usize,
}

/// The kept blocks (a fixed array: the allocator never allocates itself),
/// and the slot the next block evicts when all are taken.
struct Slots {
    kept: [Option<Kept>; KEPT],
    next: usize,
}

/// The allocator (see the module documentation).
pub struct Recycling {
    slots: Mutex<Slots>,
}

impl Recycling {
    /// An allocator with nothing kept.
    pub const fn new() -> Self {
        Recycling {
            slots: Mutex::new(Slots {
                kept: [None; KEPT],
                next: 0,
            }),
        }
    }

    /// A kept block of exactly `layout`, if there is one (it leaves the list).
    fn take(&self, layout: Layout) -> Option<*mut u8> {
        let mut s = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = s
            .kept
            .iter_mut()
            .find(|k| k.is_some_and(|k| k.size == layout.size() && k.align == layout.align()))?;
        slot.take().map(|k| k.ptr as *mut u8)
    }

    /// Keep the block `k`; returns the block it evicted, if any.
    fn keep(&self, k: Kept) -> Option<Kept> {
        let mut s = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(free) = s.kept.iter_mut().find(|slot| slot.is_none()) {
            *free = Some(k);
            return None;
        }
        let i = s.next;
        s.next = (i + 1) % KEPT;
        s.kept[i].replace(k)
    }
}

impl Default for Recycling {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every block handed out comes from `System` with the layout asked
// for: a kept block was allocated by `System` with exactly that layout and
// leaves the list (under the lock) before it is handed out, so it is
// handed out once. Every block freed is either returned to `System` with
// its layout or kept (and a block evicted from the list is returned to
// `System`). `realloc` copies the smaller of the two sizes. The allocator
// itself never allocates (the list is a fixed array).
unsafe impl GlobalAlloc for Recycling {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE
            && let Some(p) = self.take(layout)
        {
            return p;
        }
        // SAFETY: the caller's contract (a non-zero size) is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // Fresh zeroed memory is cheap from the system (`calloc`): never
        // a kept block, which would need zeroing.
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let (ptr, layout) = if layout.size() >= LARGE {
            let kept = Kept {
                ptr: ptr as usize,
                size: layout.size(),
                align: layout.align(),
            };
            match self.keep(kept) {
                None => return,
                // SAFETY: the evicted block's layout was valid when it was
                // allocated with it.
                Some(k) => (k.ptr as *mut u8, unsafe {
                    Layout::from_size_align_unchecked(k.size, k.align)
                }),
            }
        } else {
            (ptr, layout)
        };
        // SAFETY: `ptr` was allocated by `System` with `layout` (the
        // caller's block, or an evicted one, no longer in the list).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.size() < LARGE && new_size < LARGE {
            // SAFETY: the caller's contract is passed on; the block came
            // from `System` with `layout`.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller guarantees that `new_size`, rounded up to the
        // alignment, does not overflow (GlobalAlloc::realloc's contract).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: a valid, non-zero layout (the caller's contract).
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are live, distinct, and at least the
            // smaller size long; the old one is freed once, after the copy.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}
