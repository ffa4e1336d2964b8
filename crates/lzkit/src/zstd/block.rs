//! One compressed block (RFC 8878 section 3.1.1.3): the literals section,
//! the sequences section header and its tables; the sequences themselves
//! are decoded and executed by the variant's loop ([`super::exec`]), with
//! the sequence tables of [`super::seq`].

use super::exec::{ExecFn, LIT_PAD, Out, Seqs};
use super::fse;
use super::huf::HufTable;
use super::seq::{Field, SeqTables};
use crate::error::ZstdFault;
use crate::mem;

/// What a frame's blocks carry over to the next (RFC 8878: "previous"
/// tables and repeat offsets), reset at each frame (or to a dictionary's).
#[derive(Debug, Clone)]
pub(crate) struct Entropy {
    pub(crate) huf: HufTable,
    /// Whether `huf` holds a table (treeless literals need one).
    pub(crate) huf_ok: bool,
    /// The literal length, offset and match length tables.
    pub(crate) seq: SeqTables,
    /// Whether the sequence tables may be repeated (a block had sequences,
    /// or a dictionary gave them), as libzstd decides.
    pub(crate) seq_ok: bool,
    pub(crate) rep: [usize; 3],
}

impl Default for Entropy {
    fn default() -> Self {
        Entropy {
            huf: HufTable::default(),
            huf_ok: false,
            seq: SeqTables::default(),
            seq_ok: false,
            rep: [1, 4, 8],
        }
    }
}

impl Entropy {
    /// The state at the start of a frame without a dictionary.
    pub(crate) fn reset(&mut self) {
        self.huf_ok = false;
        self.seq_ok = false;
        self.rep = [1, 4, 8];
    }

    /// The state at the start of a frame with `dict`'s tables.
    pub(crate) fn set_from(&mut self, dict: &Entropy) {
        self.huf.clone_from(&dict.huf);
        self.huf_ok = dict.huf_ok;
        self.seq.set(&dict.seq);
        self.seq_ok = dict.seq_ok;
        self.rep = dict.rep;
    }

    /// Read one table of `field` in `mode` from the start of `src` into
    /// this state; returns the bytes used. Also used for dictionaries.
    pub(crate) fn read_table(&mut self, field: Field, mode: u8, src: &[u8]) -> Result<usize, Fail> {
        match mode {
            0 => {
                self.seq.set_predefined(field);
                Ok(0)
            }
            1 => {
                let &symbol = src.first().ok_or("sequences section ends in its tables")?;
                if symbol as usize > field.max_symbol() {
                    return Err("RLE sequence code out of range");
                }
                self.seq.set_rle(field, symbol);
                Ok(1)
            }
            2 => {
                let (counts, used) = fse::read_counts(src, field.max_log(), field.max_symbol())
                    .ok_or("malformed FSE table description")?;
                self.seq
                    .build(field, &counts)
                    .ok_or("malformed FSE table description")?;
                Ok(used)
            }
            _ => {
                if !self.seq_ok {
                    return Err("repeated sequence table with no previous table");
                }
                Ok(0)
            }
        }
    }
}

type Fail = &'static str;

/// A block fault at byte `at` of the block.
pub(crate) type BlockError = (usize, ZstdFault);

fn bad(at: usize, what: &'static str) -> BlockError {
    (at, ZstdFault::Malformed(what))
}

/// Decode the literals section at the start of `src` into `lits`
/// (followed by [`LIT_PAD`] zero bytes); returns (bytes used, literal
/// count).
fn read_literals(
    ent: &mut Entropy,
    lits: &mut Vec<u8>,
    src: &[u8],
    block_max: usize,
) -> Result<(usize, usize), BlockError> {
    let b = |i: usize| src.get(i).copied().map(usize::from);
    let b0 = b(0).ok_or_else(|| bad(0, "empty compressed block"))?;
    let kind = b0 & 3;
    let format = (b0 >> 2) & 3;
    let short = || bad(0, "block ends in the literals section header");
    if kind < 2 {
        let (size, header) = match format {
            0 | 2 => (b0 >> 3, 1),
            1 => ((b0 >> 4) + (b(1).ok_or_else(short)? << 4), 2),
            _ => (
                (b0 >> 4) + (b(1).ok_or_else(short)? << 4) + (b(2).ok_or_else(short)? << 12),
                3,
            ),
        };
        if size > block_max {
            return Err(bad(0, "literals larger than the block maximum"));
        }
        room(lits, size)?;
        if kind == 0 {
            let data = src
                .get(header..header + size)
                .ok_or_else(|| bad(header, "raw literals run past the block"))?;
            lits[..size].copy_from_slice(data);
            lits[size..size + LIT_PAD].fill(0);
            Ok((header + size, size))
        } else {
            let &byte = src
                .get(header)
                .ok_or_else(|| bad(header, "block ends before its RLE literal"))?;
            lits[..size].fill(byte);
            lits[size..size + LIT_PAD].fill(0);
            Ok((header + 1, size))
        }
    } else {
        let (streams, header, bits) = match format {
            0 => (1, 3, 10),
            1 => (4, 3, 10),
            2 => (4, 4, 14),
            _ => (4, 5, 18),
        };
        let mut v = 0u64;
        for i in 0..header {
            v |= (b(i).ok_or_else(short)? as u64) << (8 * i);
        }
        let mask = (1u64 << bits) - 1;
        let size = ((v >> 4) & mask) as usize;
        let compressed = ((v >> (4 + bits)) & mask) as usize;
        if size > block_max {
            return Err(bad(0, "literals larger than the block maximum"));
        }
        let data = src
            .get(header..header + compressed)
            .ok_or_else(|| bad(header, "compressed literals run past the block"))?;
        let mut at = header;
        let data = if kind == 2 {
            let used = ent.huf.read(data).map_err(|e| bad(at, e))?;
            ent.huf_ok = true;
            at += used;
            &data[used..]
        } else {
            if !ent.huf_ok {
                return Err(bad(0, "treeless literals with no previous Huffman table"));
            }
            data
        };
        room(lits, size)?;
        let out = &mut lits[..size];
        let r = if streams == 1 {
            ent.huf.decode_1(data, out)
        } else {
            ent.huf.decode_4(data, out)
        };
        r.map_err(|e| bad(at, e))?;
        lits[size..size + LIT_PAD].fill(0);
        Ok((header + compressed, size))
    }
}

/// Make `lits` hold `size` literals and their padding.
fn room(lits: &mut Vec<u8>, size: usize) -> Result<(), BlockError> {
    mem::grow_zeroed_exact(lits, size + LIT_PAD).map_err(|_| {
        (
            0,
            ZstdFault::Malformed("no memory for the literals of a block"),
        )
    })
}

/// Decode one compressed block `src` into `out` at `out.pos`: literals,
/// then the sequences through `exec` (the variant's loop). The block may
/// write at most `block_max` bytes.
pub(crate) fn decode_compressed(
    ent: &mut Entropy,
    lits: &mut Vec<u8>,
    src: &[u8],
    out: &mut Out<'_>,
    block_max: usize,
    exec: ExecFn,
) -> Result<(), BlockError> {
    let (mut at, lit_len) = read_literals(ent, lits, src, block_max)?;
    out.end = out.pos.saturating_add(block_max).min(out.buf.len());
    // Sequences section header.
    let b = |i: usize| src.get(at + i).copied().map(usize::from);
    let short = |at| bad(at, "block ends in the sequences section header");
    let b0 = b(0).ok_or_else(|| short(at))?;
    let (count, header) = if b0 < 128 {
        (b0, 1)
    } else if b0 < 255 {
        (((b0 - 128) << 8) + b(1).ok_or_else(|| short(at))?, 2)
    } else {
        (
            b(1).ok_or_else(|| short(at))? + (b(2).ok_or_else(|| short(at))? << 8) + 0x7F00,
            3,
        )
    };
    at += header;
    if count == 0 {
        if at != src.len() {
            return Err(bad(at, "bytes after a sequences section with no sequences"));
        }
        return copy_last_literals(&lits[..lit_len], out).map_err(|f| (at, f));
    }
    let modes = *src.get(at).ok_or_else(|| short(at))?;
    if modes & 3 != 0 {
        return Err(bad(at, "reserved bits set in the sequence modes"));
    }
    at += 1;
    for (field, mode) in [
        (Field::LiteralLength, modes >> 6),
        (Field::Offset, (modes >> 4) & 3),
        (Field::MatchLength, (modes >> 2) & 3),
    ] {
        at += ent
            .read_table(field, mode, &src[at..])
            .map_err(|e| bad(at, e))?;
    }
    ent.seq_ok = true;
    let mut seqs = Seqs {
        stream: &src[at..],
        count,
        tables: &ent.seq,
        lits: &lits[..lit_len + LIT_PAD],
        lit_len,
        rep: ent.rep,
    };
    exec(&mut seqs, out).map_err(|f| (at, f))?;
    ent.rep = seqs.rep;
    Ok(())
}

/// Copy the literals of a block without sequences.
fn copy_last_literals(lits: &[u8], out: &mut Out<'_>) -> Result<(), ZstdFault> {
    let end = out.pos + lits.len();
    if end > out.end {
        return Err(out.too_small());
    }
    out.buf[out.pos..end].copy_from_slice(lits);
    out.pos = end;
    Ok(())
}
