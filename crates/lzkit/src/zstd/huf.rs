//! Huffman-coded literals (RFC 8878 section 4.2): the tree description
//! (weights, direct or FSE-compressed) and the 1- and 4-stream decoders.

use super::bits::BackReader;
use super::fse::{self, MAX_SYMBOLS, SmallTable, highbit};

/// Literal sections of at least this many bytes per cell of the Huffman
/// table are decoded two symbols per lookup where the codes allow: the
/// table of pairs costs a pass over its cells, paid back from about one
/// literal per cell.
const PAIRS_PER_CELL: usize = 1;

impl HufTable {
    /// Whether a section of `len` literals is worth the table of pairs.
    fn wants_pairs(&self, len: usize) -> bool {
        len >= PAIRS_PER_CELL << self.bits
    }
}

/// The longest code libzstd accepts (the format says 11; libzstd decodes
/// 12, and so do we).
const MAX_BITS: u32 = 12;
/// Cells of the decoding table for the longest code.
const TABLE_CELLS: usize = 1 << MAX_BITS;

/// A Huffman decoding table: indexed by the next `bits` bits of a stream,
/// each cell holds `symbol | code_length << 8`.
#[derive(Clone)]
pub(crate) struct HufTable {
    cells: Box<[u16; TABLE_CELLS]>,
    bits: u32,
    /// The double-symbol table, built from `cells` when first needed:
    /// `s1 | s2 << 8 | bits << 16 | symbols << 24`, two symbols wherever
    /// both codes fit in the `bits` bits that index it.
    pairs: Option<Box<[u32; TABLE_CELLS]>>,
    pairs_valid: bool,
}

impl std::fmt::Debug for HufTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HufTable")
            .field("bits", &self.bits)
            .finish()
    }
}

impl Default for HufTable {
    fn default() -> Self {
        HufTable {
            cells: Box::new([0; TABLE_CELLS]),
            bits: 0,
            pairs: None,
            pairs_valid: false,
        }
    }
}

type Fail = &'static str;

impl HufTable {
    /// Read a tree description from the start of `src` into this table;
    /// returns the bytes it used.
    pub(crate) fn read(&mut self, src: &[u8]) -> Result<usize, Fail> {
        let (&header, rest) = src
            .split_first()
            .ok_or("literals end before the Huffman tree description")?;
        let mut weights = [0u8; 256];
        let (count, used) = if header >= 128 {
            let n = (header - 127) as usize;
            let bytes = n.div_ceil(2);
            let packed = rest
                .get(..bytes)
                .ok_or("Huffman weights run past the literals section")?;
            for i in 0..n {
                let b = packed[i / 2];
                weights[i] = if i % 2 == 0 { b >> 4 } else { b & 15 };
            }
            (n, 1 + bytes)
        } else {
            let size = header as usize;
            let data = rest
                .get(..size)
                .ok_or("Huffman weights run past the literals section")?;
            let n = fse_weights(data, &mut weights)?;
            (n, 1 + size)
        };
        self.build(&weights[..count], count)?;
        Ok(used)
    }

    /// Build from `count` stated weights (the last symbol's is implied).
    fn build(&mut self, weights: &[u8], count: usize) -> Result<(), Fail> {
        let mut rank = [0u32; MAX_BITS as usize + 2];
        let mut total = 0u32;
        for &w in weights {
            if w as u32 > MAX_BITS {
                return Err("Huffman weight above 12");
            }
            rank[w as usize] += 1;
            if w > 0 {
                total += 1 << (w - 1);
            }
        }
        if total == 0 {
            return Err("Huffman weights are all zero");
        }
        let bits = highbit(total) + 1;
        if bits > MAX_BITS {
            return Err("Huffman code longer than 12 bits");
        }
        let rest = (1u32 << bits) - total;
        let last = highbit(rest) + 1;
        if 1 << highbit(rest) != rest {
            return Err("Huffman weights do not sum to a power of two");
        }
        if count >= 256 {
            return Err("more than 256 Huffman symbols");
        }
        rank[last as usize] += 1;
        if rank[1] < 2 || rank[1] & 1 != 0 {
            return Err("Huffman weights give an incomplete code");
        }
        // Cells per weight, lowest weights (longest codes) first.
        let mut start = [0usize; MAX_BITS as usize + 2];
        let mut next = 0usize;
        for w in 1..=bits as usize {
            start[w] = next;
            next += (rank[w] as usize) << (w - 1);
        }
        let mut put = |symbol: usize, w: u8| {
            if w == 0 {
                return;
            }
            let len = 1usize << (w - 1);
            let s = start[w as usize];
            let cell = symbol as u16 | ((bits + 1 - w as u32) as u16) << 8;
            self.cells[s..s + len].fill(cell);
            start[w as usize] += len;
        };
        for (symbol, &w) in weights.iter().enumerate() {
            put(symbol, w);
        }
        put(count, last as u8);
        self.bits = bits;
        self.pairs_valid = false;
        Ok(())
    }

    /// Build the double-symbol table from the single-symbol one: at each
    /// index, the first code's symbol and, where the next code also fits
    /// in the index's remaining bits, the second's.
    fn build_pairs(&mut self) {
        let bits = self.bits;
        let mask = (1usize << bits) - 1;
        let cells = &*self.cells;
        let pairs = self.pairs.get_or_insert_with(|| Box::new([0; TABLE_CELLS]));
        for (i, pair) in pairs[..=mask].iter_mut().enumerate() {
            let c1 = cells[i] as u32;
            let l1 = c1 >> 8;
            let c2 = cells[(i << l1) & mask] as u32;
            let l2 = c2 >> 8;
            *pair = if l1 + l2 <= bits {
                (c1 & 0xff) | (c2 & 0xff) << 8 | (l1 + l2) << 16 | 2 << 24
            } else {
                (c1 & 0xff) | l1 << 16 | 1 << 24
            };
        }
        self.pairs_valid = true;
    }

    /// Decode one stream filling `out` exactly.
    pub(crate) fn decode_1(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        with_bmi2(
            #[inline(always)]
            || self.decode_1_body(src, out),
        )
    }

    #[inline(always)]
    fn decode_1_body(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        let mut br = BackReader::new(src).ok_or("Huffman stream has no end marker")?;
        let bits = self.bits;
        let cells = &*self.cells;
        let mut chunks = out.chunks_exact_mut(4);
        for chunk in &mut chunks {
            br.reload();
            for b in chunk {
                *b = decode_symbol(&mut br, cells, bits);
            }
        }
        for b in chunks.into_remainder() {
            br.reload();
            *b = decode_symbol(&mut br, cells, bits);
        }
        if !br.finished() {
            return Err("Huffman stream does not end where its symbols do");
        }
        Ok(())
    }

    /// Decode four streams (with their 6-byte jump table) filling `out`.
    pub(crate) fn decode_4(&mut self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        // Pairs pay for their table (one pass over it) on larger sections.
        if self.wants_pairs(out.len()) && !self.pairs_valid {
            self.build_pairs();
        }
        with_bmi2(
            #[inline(always)]
            || self.decode_4_body(src, out),
        )
    }

    #[inline(always)]
    fn decode_4_body(&mut self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        if src.len() < 10 {
            return Err("4-stream Huffman literals shorter than 10 bytes");
        }
        if out.len() < 6 {
            return Err("4-stream Huffman literals of fewer than 6 bytes");
        }
        let s1 = u16::from_le_bytes([src[0], src[1]]) as usize;
        let s2 = u16::from_le_bytes([src[2], src[3]]) as usize;
        let s3 = u16::from_le_bytes([src[4], src[5]]) as usize;
        let data = &src[6..];
        if s1 + s2 + s3 > data.len() {
            return Err("Huffman jump table points past the literals");
        }
        let (a, rest) = data.split_at(s1);
        let (b, rest) = rest.split_at(s2);
        let (c, d) = rest.split_at(s3);
        let out_len = out.len();
        let seg = out.len().div_ceil(4);
        if 3 * seg > out.len() {
            return Err("4-stream Huffman literals too short to split");
        }
        let mut readers = [
            BackReader::new(a).ok_or("Huffman stream 1 has no end marker")?,
            BackReader::new(b).ok_or("Huffman stream 2 has no end marker")?,
            BackReader::new(c).ok_or("Huffman stream 3 has no end marker")?,
            BackReader::new(d).ok_or("Huffman stream 4 has no end marker")?,
        ];
        let bits = self.bits;
        let cells = &*self.cells;
        let (o1, rest) = out.split_at_mut(seg);
        let (o2, rest) = rest.split_at_mut(seg);
        let (o3, o4) = rest.split_at_mut(seg);
        let outs = [&mut *o1, &mut *o2, &mut *o3, &mut *o4];
        let streams = [a, b, c, d];
        let done = match (&self.pairs, self.pairs_valid && self.wants_pairs(out_len)) {
            (Some(pairs), true) if bits <= 11 => {
                fast_4::<_, 5>(pairs, bits, &mut readers, streams, outs)
            }
            (Some(pairs), true) => fast_4::<_, 4>(pairs, bits, &mut readers, streams, outs),
            _ if bits <= 11 => fast_4::<_, 5>(cells, bits, &mut readers, streams, outs),
            _ => fast_4::<_, 4>(cells, bits, &mut readers, streams, outs),
        };
        for ((r, o), done) in readers.iter_mut().zip([o1, o2, o3, o4]).zip(done) {
            for b in &mut o[done..] {
                r.reload();
                *b = decode_symbol(r, cells, bits);
            }
            if !r.finished() {
                return Err("Huffman stream does not end where its symbols do");
            }
        }
        Ok(())
    }
}

#[inline(always)]
fn decode_symbol(br: &mut BackReader<'_>, cells: &[u16; TABLE_CELLS], bits: u32) -> u8 {
    let cell = cells[br.peek(bits) as usize & (TABLE_CELLS - 1)];
    br.skip((cell >> 8) as u32);
    cell as u8
}

/// Decode FSE-compressed Huffman weights (two interleaved states over one
/// backward stream) into `weights`; returns how many.
fn fse_weights(src: &[u8], weights: &mut [u8; 256]) -> Result<usize, Fail> {
    let (counts, used) = fse::read_counts(src, 6, MAX_SYMBOLS - 1)
        .ok_or("malformed FSE table of Huffman weights")?;
    let table = SmallTable::new(&counts).ok_or("malformed FSE table of Huffman weights")?;
    let mut br = BackReader::new(&src[used..]).ok_or("Huffman weights stream has no end marker")?;
    let log = table.log;
    let cells = &table.cells;
    let s1 = br.read(log) as usize & 63;
    br.reload();
    let s2 = br.read(log) as usize & 63;
    br.reload();
    if br.overflowed() {
        // The stream is shorter than the two initial states (libzstd's
        // "truncated Huffman state", an error since 1.5.6).
        return Err("Huffman weights stream shorter than its initial states");
    }
    let mut n = 0usize;
    // libzstd's order: each state's symbol, then its update, the two
    // states taking turns; when a reload finds the stream overrun, the
    // other state's symbol is the last one.
    let mut states = [s1, s2];
    let mut k = 0;
    loop {
        if n > 253 {
            return Err("more than 255 Huffman weights");
        }
        let c = cells[states[k]];
        weights[n] = c.symbol;
        n += 1;
        states[k] = (c.base as usize + br.read(c.nb_bits as u32) as usize) & 63;
        br.reload();
        if br.overflowed() {
            weights[n] = cells[states[k ^ 1]].symbol;
            n += 1;
            break;
        }
        k ^= 1;
    }
    Ok(n)
}

/// The interleaved loop of the 4-stream decoder: `N` lookups of each
/// stream per round (N * bits <= 57 after a refill), in a `T` table of
/// single symbols (`u16`) or of pairs (`u32`). Each lookup writes two
/// bytes and advances by its symbols (one or two), so the streams'
/// outputs move apart.
///
/// Each stream's state is its window index and a container kept shifted
/// so its next bits are on top, with a marker bit below the data: the
/// trailing zeros count the bits consumed since the last refill, so no
/// counter is kept. Rounds run in batches that need no bounds check: as
/// many as every stream can refill for (a round consumes at most 64 bits,
/// 8 bytes) and every output has room for (2 bytes a lookup).
/// Returns the symbols decoded per stream.
#[inline(always)]
fn fast_4<'a, T: Lookup, const N: usize>(
    table: &[T; TABLE_CELLS],
    bits: u32,
    readers: &mut [BackReader<'a>; 4],
    streams: [&'a [u8]; 4],
    outs: [&mut [u8]; 4],
) -> [usize; 4] {
    debug_assert!(N as u32 * bits <= 57 && bits >= 1);
    if streams.iter().any(|s| s.len() < 8) {
        return [0; 4];
    }
    let mut ip = [0usize; 4];
    let mut bs = [0u64; 4];
    for k in 0..4 {
        let (p, c, n) = readers[k].parts();
        ip[k] = p;
        // n <= 8 here (a fresh reader), so the marker stays in the word.
        bs[k] = (c | 1) << n;
    }
    let ptrs = [
        streams[0].as_ptr(),
        streams[1].as_ptr(),
        streams[2].as_ptr(),
        streams[3].as_ptr(),
    ];
    let lens = [outs[0].len(), outs[1].len(), outs[2].len(), outs[3].len()];
    let [o0, o1, o2, o3] = outs;
    let q = [
        o0.as_mut_ptr(),
        o1.as_mut_ptr(),
        o2.as_mut_ptr(),
        o3.as_mut_ptr(),
    ];
    let mut d = [0usize; 4];
    let shift = 64 - bits;
    loop {
        let mut batch = usize::MAX;
        for k in 0..4 {
            // Refills move back at most 8 bytes a round (the refill at a
            // round's start consumed at most 64 bits): ip / 8 rounds keep
            // every window inside the stream.
            batch = batch.min(ip[k] / 8).min((lens[k] - d[k]) / (2 * N));
        }
        if batch == 0 {
            break;
        }
        let [mut i0, mut i1, mut i2, mut i3] = ip;
        let [mut b0, mut b1, mut b2, mut b3] = bs;
        let [mut p0, mut p1, mut p2, mut p3] = [
            q[0].wrapping_add(d[0]),
            q[1].wrapping_add(d[1]),
            q[2].wrapping_add(d[2]),
            q[3].wrapping_add(d[3]),
        ];
        for _ in 0..batch {
            let (t0, t1, t2, t3) = (
                b0.trailing_zeros(),
                b1.trailing_zeros(),
                b2.trailing_zeros(),
                b3.trailing_zeros(),
            );
            i0 -= (t0 >> 3) as usize;
            i1 -= (t1 >> 3) as usize;
            i2 -= (t2 >> 3) as usize;
            i3 -= (t3 >> 3) as usize;
            // SAFETY: the batch keeps every window index >= 0 (see above)
            // and it starts at most at len - 8.
            unsafe {
                b0 = (u64::from_le(ptrs[0].add(i0).cast::<u64>().read_unaligned()) | 1) << (t0 & 7);
                b1 = (u64::from_le(ptrs[1].add(i1).cast::<u64>().read_unaligned()) | 1) << (t1 & 7);
                b2 = (u64::from_le(ptrs[2].add(i2).cast::<u64>().read_unaligned()) | 1) << (t2 & 7);
                b3 = (u64::from_le(ptrs[3].add(i3).cast::<u64>().read_unaligned()) | 1) << (t3 & 7);
            }
            for _ in 0..N {
                let (e0, l0, n0) = table[(b0 >> shift) as usize & (TABLE_CELLS - 1)].get();
                let (e1, l1, n1) = table[(b1 >> shift) as usize & (TABLE_CELLS - 1)].get();
                let (e2, l2, n2) = table[(b2 >> shift) as usize & (TABLE_CELLS - 1)].get();
                let (e3, l3, n3) = table[(b3 >> shift) as usize & (TABLE_CELLS - 1)].get();
                b0 <<= l0;
                b1 <<= l1;
                b2 <<= l2;
                b3 <<= l3;
                // SAFETY: the batch leaves room for 2 bytes a lookup in
                // every output.
                unsafe {
                    p0.cast::<[u8; 2]>().write_unaligned(e0.to_le_bytes());
                    p1.cast::<[u8; 2]>().write_unaligned(e1.to_le_bytes());
                    p2.cast::<[u8; 2]>().write_unaligned(e2.to_le_bytes());
                    p3.cast::<[u8; 2]>().write_unaligned(e3.to_le_bytes());
                    p0 = p0.add(n0);
                    p1 = p1.add(n1);
                    p2 = p2.add(n2);
                    p3 = p3.add(n3);
                }
            }
        }
        ip = [i0, i1, i2, i3];
        bs = [b0, b1, b2, b3];
        for (k, p) in [p0, p1, p2, p3].into_iter().enumerate() {
            d[k] = p as usize - q[k] as usize;
        }
    }
    for k in 0..4 {
        let used = bs[k].trailing_zeros();
        let mut r = BackReader::from_parts(streams[k], ip[k], 0, used);
        r.refill_container();
        readers[k] = r;
    }
    d
}

/// A cell of a Huffman decoding table, as the 4-stream loop reads it.
trait Lookup: Copy {
    /// (the bytes to store, little-endian; code bits consumed; symbols).
    fn get(self) -> (u16, u32, usize);
}

/// A single-symbol cell: `symbol | code_length << 8`.
impl Lookup for u16 {
    #[inline(always)]
    fn get(self) -> (u16, u32, usize) {
        (self & 0xff, (self >> 8) as u32, 1)
    }
}

/// A pair cell (see [`HufTable::build_pairs`]).
impl Lookup for u32 {
    #[inline(always)]
    fn get(self) -> (u16, u32, usize) {
        (self as u16, (self >> 16) & 0x3f, (self >> 24) as usize)
    }
}

/// Run `f` compiled with BMI2's shifts (`shlx`, `shrx`: the bit readers'
/// variable shifts need no `cl` register) where the CPU has BMI2.
#[inline(always)]
fn with_bmi2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has(crate::cpu::Isa::Bmi2) {
        // SAFETY: `bmi2` requires BMI2, which was just detected.
        return unsafe { bmi2(f) };
    }
    f()
}

/// `f()` in a function compiled with BMI2 (where `f` is inlined).
///
/// # Safety
/// The CPU supports BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn bmi2<R>(f: impl FnOnce() -> R) -> R {
    f()
}
