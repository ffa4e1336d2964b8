//! The sequence loop: decodes each sequence from the FSE bitstream and
//! executes it at once (no sequence buffer), instantiated per copy
//! [`Kernel`] (the zstd [`super::Variant`]s).
//!
//! Each sequence takes the fast path when the output has room for its
//! literals, its match and the kernel's overrun: wild copies of literals
//! (the literal buffer is padded) and kernel match copies, short offsets
//! filled from a pattern register. Otherwise (near the end of the output,
//! matches reaching into a dictionary, the first bytes of a frame) it
//! takes the careful path: exact copies, bounds checked.

use super::bits::BackReader;
use super::seq::{SEQ_CELLS, SeqCell, SeqTable};
use crate::error::ZstdFault;
use crate::kernels::Kernel;
use crate::kernels::exact::copy_match_exact;

/// Zeroed bytes kept after the literals: the wild literal copies of every
/// kernel may read this far past them (the
/// widest kernel's overrun).
pub(crate) const LIT_PAD: usize = 64;

/// A sequence loop entry point.
pub(crate) type ExecFn = fn(&mut Seqs<'_>, &mut Out<'_>) -> Result<(), ZstdFault>;

/// The sequences of one block and what they need.
pub(crate) struct Seqs<'a> {
    /// The sequences bitstream (to the end of the block).
    pub(crate) stream: &'a [u8],
    /// Number of sequences (at least 1).
    pub(crate) count: usize,
    pub(crate) ll: &'a SeqTable,
    pub(crate) of: &'a SeqTable,
    pub(crate) ml: &'a SeqTable,
    /// The literals, followed by padding ([`LIT_PAD`] bytes).
    pub(crate) lits: &'a [u8],
    /// Number of literals.
    pub(crate) lit_len: usize,
    /// Repeat offsets, updated by the loop.
    pub(crate) rep: [usize; 3],
}

/// Where a block's output goes: `buf[pos..end]`, with `buf[base..pos]` and
/// then `dict` (its end) as history.
pub(crate) struct Out<'a> {
    pub(crate) buf: &'a mut [u8],
    /// Start of the frame's output in `buf` (matches never reach before
    /// it, except into `dict`).
    pub(crate) base: usize,
    /// Next byte to write.
    pub(crate) pos: usize,
    /// Limit of this block's output (`<= buf.len()`).
    pub(crate) end: usize,
    /// History before `base` (a dictionary's content; empty if none).
    pub(crate) dict: &'a [u8],
    /// The frame's window size: no match reaches further back, and the
    /// dictionary is reachable only while the frame's output is no longer
    /// than it (RFC 8878 §3.1.1.1.2, §5). Every decoder checks it the same
    /// way, so one frame gets one verdict from all of them.
    pub(crate) window: usize,
}

impl Out<'_> {
    /// The fault for output that would pass `end`.
    #[cold]
    pub(crate) fn too_small(&self) -> ZstdFault {
        if self.end == self.buf.len() {
            ZstdFault::OutputTooSmall {
                capacity: self.buf.len(),
            }
        } else {
            ZstdFault::Malformed("block decodes to more than the block maximum")
        }
    }
}

#[cold]
fn malformed(what: &'static str) -> ZstdFault {
    ZstdFault::Malformed(what)
}

/// The loop of kernel `K` (inlined into each variant's entry point).
#[inline(always)]
pub(crate) fn exec<K: Kernel>(s: &mut Seqs<'_>, o: &mut Out<'_>) -> Result<(), ZstdFault> {
    let br = BackReader::new(s.stream)
        .ok_or_else(|| malformed("sequences bitstream has no end marker"))?;
    // The bit reader's state in locals (registers): window index,
    // container, bits consumed.
    let stream = s.stream;
    let sp = stream.as_ptr();
    let (mut bpos, mut bits, mut used) = br.parts();
    // Read `n <= 56` bits (0 reads 0): `bits >> (64 - used)` masked to `n`
    // bits (BMI2: `shrx`, `bzhi`). Past 64 consumed bits (a corrupt
    // stream) values are meaningless, and the stream is rejected at the end.
    macro_rules! read {
        ($n:expr) => {{
            let n = $n as u32;
            used = used.wrapping_add(n);
            (bits.wrapping_shr(64u32.wrapping_sub(used)) & ((1u64 << (n & 63)) - 1)) as usize
        }};
    }
    macro_rules! reload {
        () => {
            if bpos >= 8 && used <= 64 {
                bpos -= (used >> 3) as usize;
                used &= 7;
                // SAFETY: bpos only decreases from its initial value,
                // stream.len() - 8 (the stream is at least 8 bytes, as
                // bpos >= 8 shows), so 8 bytes at bpos are in the stream.
                bits = u64::from_le(unsafe { sp.add(bpos).cast::<u64>().read_unaligned() });
            } else {
                (bpos, bits, used) = reload_near_start(stream, bpos, bits, used);
            }
        };
    }
    // The tables as arrays, not as the boxes that hold them: the loop's
    // stores go through raw pointers, which may alias a `Box` reached
    // through `s`, so a `&Box` would be reloaded every sequence (two
    // dependent loads on the state-to-cell chain instead of one).
    let ll_t: &[SeqCell; SEQ_CELLS] = &s.ll.cells;
    let of_t: &[SeqCell; SEQ_CELLS] = &s.of.cells;
    let ml_t: &[SeqCell; SEQ_CELLS] = &s.ml.cells;
    const MASK: usize = SEQ_CELLS - 1;
    let mut ll_state = read!(s.ll.log);
    reload!();
    let mut of_state = read!(s.of.log);
    reload!();
    let mut ml_state = read!(s.ml.log);
    reload!();
    let [mut r0, mut r1, mut r2] = s.rep;
    let lits = s.lits;
    // Wild literal copies read up to K::OVERRUN past a run; the literal
    // buffer's padding covers it.
    debug_assert!(lits.len() >= s.lit_len + K::OVERRUN.min(64));
    let lits_end = s.lit_len;
    let end = o.end;
    let mut op = o.pos;
    let mut lit = 0usize;
    let mut bp = o.buf.as_mut_ptr();
    let fast_end = o.buf.len().saturating_sub(K::OVERRUN);
    // Matches from at most `match_at - floor` back take the fast path: they
    // start after the frame's first byte and have the kernel's pattern
    // window before them. And they reach no further than the frame's
    // window: `match_at <= end`, so `offset <= match_at - (end - window)`
    // is at most `window` (checked once a block, not per sequence; the few
    // offsets within a block of the window take the careful path, which
    // checks them exactly).
    let floor = o.base.max(K::HISTORY).max(end.saturating_sub(o.window));
    let mut left = s.count;
    loop {
        left -= 1;
        let llc = ll_t[ll_state & MASK];
        let ofc = of_t[of_state & MASK];
        let mlc = ml_t[ml_state & MASK];
        let of_value = ofc.base as usize + read!(ofc.add_bits);
        let ml = mlc.base as usize + read!(mlc.add_bits);
        if ofc.add_bits as u32 + mlc.add_bits as u32 + llc.add_bits as u32 > 30 {
            reload!();
        }
        let ll = llc.base as usize + read!(llc.add_bits);
        // Repeat offsets, without branches (repeat and new offsets mix at
        // random on many columns): `of_value` 1-3 picks a repeat offset
        // (shifted by one when there are no literals; the fourth is
        // rep0 - 1), above 3 it is a new offset, `of_value - 3`.
        let is_new = of_value > 3;
        let idx = of_value.wrapping_sub(1) + (ll == 0) as usize;
        let picked = match idx {
            0 => r0,
            1 => r1,
            2 => r2,
            _ => r0.wrapping_sub(1),
        };
        let offset = if is_new { of_value - 3 } else { picked };
        let moved = is_new || idx != 0;
        r2 = if is_new || idx >= 2 { r1 } else { r2 };
        r1 = if moved { r0 } else { r1 };
        r0 = offset;
        if left > 0 {
            ll_state = llc.next as usize + read!(llc.nb_bits);
            ml_state = mlc.next as usize + read!(mlc.nb_bits);
            of_state = ofc.next as usize + read!(ofc.nb_bits);
            reload!();
        }
        // Execute.
        if ll > lits_end - lit {
            return Err(malformed("literal length runs past the block's literals"));
        }
        let total = ll + ml;
        if total > end - op {
            return Err(o.too_small());
        }
        let match_at = op + ll;
        // 1 <= offset <= match_at - floor, in one compare: offset 0 wraps
        // to the largest value, and match_at < floor leaves no room.
        if op + total <= fast_end && offset.wrapping_sub(1) < match_at.saturating_sub(floor) {
            // SAFETY: the literal source `lit .. lit + ll + OVERRUN` is
            // inside `lits` (ll <= lits_end - lit, padding >= OVERRUN); the
            // destination `op .. op + total + OVERRUN` is inside `buf`
            // (op + total <= fast_end); the match source starts at
            // match_at - offset >= floor >= base and the kernel's pattern
            // window at match_at - max(offset, HISTORY) >= 0 (floor >=
            // HISTORY), all initialised bytes of `buf` (the whole slice is).
            unsafe {
                K::copy_literals(bp.add(op), lits.as_ptr().add(lit), ll);
                if K::FILLS_FROM_WINDOW && offset < 16 {
                    // The pattern's bytes come from the literals just
                    // copied where they all do (`offset <= ll`): loaded
                    // from the literal buffer, written long before, rather
                    // than from the output, just written (see
                    // `Kernel::fill_short`).
                    let from = lit + ll;
                    let window_end = if offset <= ll && from >= 16 {
                        lits.as_ptr().add(from)
                    } else {
                        bp.add(match_at).cast_const()
                    };
                    // SAFETY: as above; the 16 bytes before `window_end`
                    // are initialised (literal buffer: from >= 16;
                    // output: HISTORY >= 16 for these kernels) and their
                    // last `offset` are the match's source; the fill writes
                    // at most 15 bytes past the match, within OVERRUN >= 16.
                    K::fill_short(bp.add(match_at), window_end, offset, ml);
                } else if K::MID_OFFSET_CHUNK && (16..32).contains(&offset) && ml <= 16 {
                    // One 16-byte chunk, whose load ends before the match:
                    // the kernel's 32-byte pattern load (offsets 16 to 31)
                    // would reach into the literals just stored, a load
                    // store-to-load forwarding cannot serve. In bounds:
                    // the load `dst - offset .. dst - offset + 16` ends by
                    // `dst` (offset >= 16), past the frame's start as
                    // checked above; the store's 16 bytes end within
                    // `ml + OVERRUN` (ml >= 1 and OVERRUN >= 16).
                    let dst = bp.add(match_at);
                    crate::kernels::copy_chunk::<16>(dst, dst.sub(offset));
                } else {
                    K::copy_match(bp.add(match_at), offset, ml);
                }
            }
            op += total;
            lit += ll;
        } else {
            // Careful path: exact copies.
            o.buf[op..match_at].copy_from_slice(&lits[lit..lit + ll]);
            lit += ll;
            op = careful_match(o, match_at, offset, ml)?;
            bp = o.buf.as_mut_ptr();
        }
        if left == 0 {
            break;
        }
    }
    if !BackReader::from_parts(stream, bpos, bits, used).finished() {
        return Err(malformed(
            "sequences bitstream does not end where its sequences do",
        ));
    }
    s.rep = [r0, r1, r2];
    // Last literals.
    let rest = lits_end - lit;
    if rest > end - op {
        return Err(o.too_small());
    }
    o.buf[op..op + rest].copy_from_slice(&lits[lit..lits_end]);
    o.pos = op + rest;
    Ok(())
}

/// [`BackReader::reload`] for the sequence loop's state, where the
/// stream's start is near (or the stream is shorter than 8 bytes).
#[cold]
#[inline(never)]
fn reload_near_start(stream: &[u8], pos: usize, bits: u64, used: u32) -> (usize, u64, u32) {
    let mut r = BackReader::from_parts(stream, pos, bits, used);
    r.reload();
    r.parts()
}

/// Copy a match of `len` bytes at `at` from `offset` back with exact
/// bounds, from the dictionary where it reaches before the frame's output;
/// returns the end. The caller checked `at + len <= o.end`.
#[inline(never)]
fn careful_match(
    o: &mut Out<'_>,
    at: usize,
    offset: usize,
    len: usize,
) -> Result<usize, ZstdFault> {
    let history = at - o.base;
    if offset == 0 {
        return Err(malformed("match offset 0"));
    }
    // How far back a match may reach: the window once the frame's output
    // is longer than it (the dictionary then out of reach), else the
    // output and the dictionary before it.
    let reach = if history > o.window {
        o.window
    } else {
        history + o.dict.len()
    };
    if offset > reach {
        return Err(if offset > o.window {
            ZstdFault::OffsetBeyondWindow {
                offset,
                window: o.window,
            }
        } else {
            ZstdFault::OffsetBeforeStart {
                offset,
                available: history + o.dict.len(),
            }
        });
    }
    if offset <= history {
        return Ok(copy_match_exact(o.buf, at, offset, len));
    }
    let back = offset - history;
    let from = o.dict.len() - back;
    let n = back.min(len);
    o.buf[at..at + n].copy_from_slice(&o.dict[from..from + n]);
    if n == len {
        return Ok(at + len);
    }
    // The rest starts at the frame's first byte, `offset` back.
    Ok(copy_match_exact(o.buf, at + n, offset, len - n))
}
