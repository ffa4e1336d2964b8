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
use super::seq::{ALL_CELLS, Field, SEQ_CELLS, SeqCell, SeqTables};
use crate::error::ZstdFault;
use crate::kernels::Kernel;
use crate::kernels::exact::copy_match_exact;
use core::hint::select_unpredictable;

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
    /// The literal length, offset and match length tables.
    pub(crate) tables: &'a SeqTables,
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
///
/// Built for few live values, as the loop is bound by the latency of the
/// state-to-cell chain and short of registers: one base pointer for the
/// three tables (states index [`SeqTables`]' one array, with no mask or
/// bounds check: its invariant keeps every state in it), the bit reader as
/// a window pointer, a container and a count, the output and the literals
/// as one pointer each, and the limits in memory, compared once a
/// sequence.
#[inline(always)]
pub(crate) fn exec<K: Kernel>(s: &mut Seqs<'_>, o: &mut Out<'_>) -> Result<(), ZstdFault> {
    // The one-chunk copies of the fast path (16-byte literal runs and
    // matches) stay within every kernel's overrun.
    const { assert!(K::OVERRUN >= 16) };
    let br = BackReader::new(s.stream)
        .ok_or_else(|| malformed("sequences bitstream has no end marker"))?;
    let stream = s.stream;
    let sp = stream.as_ptr();
    let (bpos, mut bits, mut used) = br.parts();
    // The window the container was loaded from, as a pointer; reloads
    // take the fast path while it is at least 16 bytes into the stream.
    // Fewer than 128 bits are consumed between two reloads, whatever the
    // input: after a reload at most 7, then at most three extra-bit reads
    // of at most 31 bits each (`SeqTables` keeps every cell's `add_bits`
    // at most `MAX_ADD_BITS`) and three state reads of at most 9. So a
    // reload moves the window back at most 15 bytes, and the count needs
    // no check. A valid stream never consumes more than the container's
    // 64 bits; a corrupt one that does reads meaningless values, with its
    // position still counted exactly, and is rejected at the end.
    let mut wp = sp.wrapping_add(bpos);
    let wp_floor = (sp as usize).saturating_add(16);
    // Read `n <= 56` bits (0 reads 0): `bits >> (64 - used)` masked to `n`
    // bits (BMI2: `shrx`, `bzhi`); always below `1 << n`. Past 64
    // consumed bits (a corrupt stream) values are meaningless, and the
    // stream is rejected at the end.
    macro_rules! read {
        ($n:expr) => {{
            let n = $n as u32;
            // The next bits at the container's top, then the top `n`
            // (two shifts, as `n` may be 0): computed from the bits
            // consumed before this read, so the count's update runs beside
            // it rather than before it.
            let v = ((bits << (used & 63)) >> 1) >> (63 - (n & 63));
            used = used.wrapping_add(n);
            v as usize
        }};
    }
    macro_rules! reload {
        () => {
            if wp as usize >= wp_floor {
                debug_assert!(used < 128);
                // SAFETY: `wp` is at least 16 bytes into the stream and
                // moves back at most 15 bytes (used < 128, above), so it
                // stays in it, and it started at most 8 bytes before its end
                // (BackReader's window), which it only moves away from:
                // the 8 bytes read are in the stream.
                unsafe {
                    wp = wp.sub((used >> 3) as usize);
                    bits = u64::from_le(wp.cast::<u64>().read_unaligned());
                }
                used &= 7;
            } else if wp != sp {
                // Within 16 bytes of the stream's start. At its start a
                // reload has nothing left to load (`BackReader::reload`
                // leaves the state as it is), so no call: streams of a few
                // bytes (every table in RLE mode, no bits a sequence)
                // otherwise call this on every sequence.
                let pos = wp as usize - sp as usize;
                let (pos, b, u) = reload_near_start(stream, pos, bits, used);
                wp = sp.wrapping_add(pos);
                bits = b;
                used = u;
            }
        };
    }
    let t: &[SeqCell; ALL_CELLS] = s.tables.cells();
    // A cell by state, by reference: its fields are loaded where they are
    // used (a copy of the cell loads all of them at once, and the loop,
    // short of registers, spilled them to the stack and back: 2-3%
    // slower). Every state is a region's start plus fewer than
    // `1 << log <= SEQ_CELLS` (the initial states), or a cell's `next`
    // plus fewer than `1 << nb_bits` (`read!` stays below it), which
    // SeqTables keeps within ALL_CELLS.
    macro_rules! cell {
        ($state:expr) => {{
            let state: usize = $state;
            debug_assert!(state < ALL_CELLS);
            // SAFETY: state < ALL_CELLS, as above.
            unsafe { t.get_unchecked(state) }
        }};
    }
    let mut ll_state = Field::LiteralLength.region() + read!(s.tables.log(Field::LiteralLength));
    reload!();
    let mut of_state = Field::Offset.region() + read!(s.tables.log(Field::Offset));
    reload!();
    let mut ml_state = Field::MatchLength.region() + read!(s.tables.log(Field::MatchLength));
    reload!();
    const _: () = assert!(SEQ_CELLS == 512 && ALL_CELLS == 3 * SEQ_CELLS);
    let [mut r0, mut r1, mut r2] = s.rep;
    let lits = s.lits;
    // Wild literal copies read up to K::OVERRUN past a run; the literal
    // buffer's padding covers it.
    debug_assert!(lits.len() >= s.lit_len + K::OVERRUN.min(64));
    let lits_start = lits.as_ptr();
    let lits_end = lits_start as usize + s.lit_len;
    let mut lp = lits_start;
    let mut bp = o.buf.as_mut_ptr();
    let buf_addr = bp as usize;
    let mut op = bp.wrapping_add(o.pos);
    // The fast path's limit: room for the kernel's overrun after a
    // sequence (so also within the block's end).
    let fast_end = buf_addr + o.buf.len().saturating_sub(K::OVERRUN).min(o.end);
    // Matches from at most `match_at - floor` back take the fast path: they
    // start after the frame's first byte and have the kernel's pattern
    // window before them. And they reach no further than the frame's
    // window: `match_at <= end`, so `offset <= match_at - (end - window)`
    // is at most `window` (checked once a block, not per sequence; the few
    // offsets within a block of the window take the careful path, which
    // checks them exactly).
    let floor = buf_addr + o.base.max(K::HISTORY).max(o.end.saturating_sub(o.window));
    let mut left = s.count;
    loop {
        left -= 1;
        let llc = cell!(ll_state);
        let ofc = cell!(of_state);
        let mlc = cell!(ml_state);
        // No literals: known from the cell (literal length code 0 is the
        // only one with baseline 0), before its extra bits are read.
        let ll0 = (llc.base() == 0) as usize;
        let of_value = ofc.base() as usize + read!(ofc.add_bits());
        // Lengths without extra bits (most of them on many columns) skip
        // the read, which shortens the chain through the bit count.
        let mut ml = mlc.base() as usize;
        if mlc.add_bits() != 0 {
            ml += read!(mlc.add_bits());
        }
        if ofc.add_bits() as u32 + mlc.add_bits() as u32 + llc.add_bits() as u32 > 30 {
            reload!();
        }
        let mut ll = llc.base() as usize;
        if llc.add_bits() != 0 {
            ll += read!(llc.add_bits());
        }
        // Repeat offsets, without branches (repeat and new offsets mix at
        // random on many columns): `of_value` 1-3 picks a repeat offset
        // (shifted by one when there are no literals; the fourth is
        // rep0 - 1), above 3 it is a new offset, `of_value - 3`.
        let is_new = of_value > 3;
        let idx = of_value.wrapping_sub(1) + ll0;
        let low = select_unpredictable(idx == 0, r0, r1);
        let high = select_unpredictable(idx == 2, r2, r0.wrapping_sub(1));
        let picked = select_unpredictable(idx < 2, low, high);
        let offset = select_unpredictable(is_new, of_value.wrapping_sub(3), picked);
        let keep1 = !is_new && idx == 0;
        let keep2 = !is_new && idx < 2;
        r2 = select_unpredictable(keep2, r2, r1);
        r1 = select_unpredictable(keep1, r1, r0);
        r0 = offset;
        if left > 0 {
            ll_state = llc.next() as usize + read!(llc.nb_bits());
            ml_state = mlc.next() as usize + read!(mlc.nb_bits());
            of_state = ofc.next() as usize + read!(ofc.nb_bits());
            reload!();
        }
        // Execute: the fast path when the literals are there, the output
        // has room for the sequence and the kernel's overrun, and the
        // match starts in the frame's output with the kernel's history
        // before it (1 <= offset <= match_at - floor, in one compare:
        // offset 0 wraps to the largest value).
        let total = ll + ml;
        let match_addr = (op as usize).wrapping_add(ll);
        if within(lp as usize, ll, lits_end)
            && within(op as usize, total, fast_end)
            && offset.wrapping_sub(1) < match_addr.saturating_sub(floor)
        {
            // SAFETY: the literal source `lp .. lp + ll + OVERRUN` is
            // inside `lits` (lp + ll <= lits_end, padding >= OVERRUN); the
            // destination `op .. op + total + OVERRUN` is inside `buf`
            // (op + total <= fast_end); the match source starts at
            // match_at - offset >= floor >= base and the kernel's pattern
            // window at match_at - max(offset, HISTORY) >= buf's start
            // (floor >= HISTORY), all initialised bytes of `buf` (the
            // whole slice is).
            unsafe {
                let dst = op.add(ll);
                if ll <= 16 {
                    // Most literal runs: one chunk (ll + OVERRUN >= 16
                    // on both sides).
                    crate::kernels::copy_chunk::<16>(op, lp);
                } else {
                    K::copy_literals(op, lp, ll);
                }
                lp = lp.add(ll);
                if ml <= 16 && offset >= 16 {
                    // A short match from at least 16 back: one 16-byte
                    // chunk, whose load ends by `dst` (past the frame's
                    // start as checked above), whose store ends within
                    // `ml + OVERRUN` (ml >= 1, OVERRUN >= 16).
                    crate::kernels::copy_chunk::<16>(dst, dst.sub(offset));
                } else if ml <= 8 && offset >= 8 {
                    // The same with 8 bytes from at least 8 back.
                    crate::kernels::copy_chunk::<8>(dst, dst.sub(offset));
                } else if K::FILLS_FROM_WINDOW && offset < 16 {
                    // The pattern's bytes come from the literals just
                    // copied where they all do (`offset <= ll`): loaded
                    // from the literal buffer, written long before, rather
                    // than from the output, just written (see
                    // `Kernel::fill_short`).
                    let window_end = if offset <= ll && lp as usize - lits_start as usize >= 16 {
                        lp
                    } else {
                        dst.cast_const()
                    };
                    // SAFETY: as above; the 16 bytes before `window_end`
                    // are initialised (literal buffer: 16 bytes in;
                    // output: HISTORY >= 16 for these kernels) and their
                    // last `offset` are the match's source; the fill writes
                    // at most 15 bytes past the match, within OVERRUN >= 16.
                    K::fill_short(dst, window_end, offset, ml);
                } else {
                    K::copy_match(dst, offset, ml);
                }
                op = dst.add(ml);
            }
        } else {
            // Careful path: exact checks and copies, by index.
            let pos = op as usize - buf_addr;
            let lit = lp as usize - lits_start as usize;
            let pos = careful_sequence(o, &lits[..s.lit_len], pos, lit, ll, ml, offset)?;
            lp = lits_start.wrapping_add(lit + ll);
            // The safe indexing reborrowed the buffer: pointers into it
            // are taken again.
            bp = o.buf.as_mut_ptr();
            op = bp.wrapping_add(pos);
        }
        if left == 0 {
            break;
        }
    }
    let pos = wp as usize - sp as usize;
    if !BackReader::from_parts(stream, pos, bits, used).finished() {
        return Err(malformed(
            "sequences bitstream does not end where its sequences do",
        ));
    }
    s.rep = [r0, r1, r2];
    // Last literals.
    let pos = op as usize - buf_addr;
    let lit = lp as usize - lits_start as usize;
    let rest = s.lit_len - lit;
    if rest > o.end - pos {
        return Err(o.too_small());
    }
    o.buf[pos..pos + rest].copy_from_slice(&lits[lit..s.lit_len]);
    o.pos = pos + rest;
    Ok(())
}

/// Whether `at + n <= end`, for `n` a sequence's literal or total length
/// (below 2^18). On 64-bit targets (addresses below 2^57) the sum cannot
/// wrap, and one add and compare do; on narrower ones a buffer near the
/// top of the address space could make it wrap, and the add is checked.
#[inline(always)]
fn within(at: usize, n: usize, end: usize) -> bool {
    if cfg!(target_pointer_width = "64") {
        at.wrapping_add(n) <= end
    } else {
        at.checked_add(n).is_some_and(|e| e <= end)
    }
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

/// One sequence with exact checks and copies: `ll` literals from
/// `lits[lit..]` to `o.buf[pos..]`, then the match; returns the end.
#[cold]
#[inline(never)]
fn careful_sequence(
    o: &mut Out<'_>,
    lits: &[u8],
    pos: usize,
    lit: usize,
    ll: usize,
    ml: usize,
    offset: usize,
) -> Result<usize, ZstdFault> {
    if ll > lits.len() - lit {
        return Err(malformed("literal length runs past the block's literals"));
    }
    if ll + ml > o.end - pos {
        return Err(o.too_small());
    }
    let match_at = pos + ll;
    o.buf[pos..match_at].copy_from_slice(&lits[lit..lit + ll]);
    careful_match(o, match_at, offset, ml)
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
