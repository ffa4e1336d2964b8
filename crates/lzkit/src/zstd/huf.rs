//! Huffman-coded literals (RFC 8878 section 4.2): the tree description
//! (weights, direct or FSE-compressed) and the 1- and 4-stream decoders.

use super::bits::BackReader;
use super::fse::{self, MAX_SYMBOLS, SmallTable, highbit};

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
        Ok(())
    }

    /// Decode one stream filling `out` exactly.
    pub(crate) fn decode_1(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has(crate::cpu::Isa::Bmi2) {
            // SAFETY: BMI2 was detected.
            return unsafe { self.decode_1_bmi2(src, out) };
        }
        self.decode_1_body(src, out)
    }

    /// [`HufTable::decode_1`] with BMI2's shifts.
    ///
    /// # Safety
    /// The CPU supports BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn decode_1_bmi2(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        self.decode_1_body(src, out)
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
    pub(crate) fn decode_4(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has(crate::cpu::Isa::Bmi2) {
            // SAFETY: BMI2 was detected.
            return unsafe { self.decode_4_bmi2(src, out) };
        }
        self.decode_4_body(src, out)
    }

    /// [`HufTable::decode_4`] with BMI2's shifts (the bit reader's
    /// variable shifts need no `cl` register).
    ///
    /// # Safety
    /// The CPU supports BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn decode_4_bmi2(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        self.decode_4_body(src, out)
    }

    #[inline(always)]
    fn decode_4_body(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
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
        let done = if bits <= 11 {
            fast_4::<5>(
                cells,
                bits,
                &mut readers,
                [a, b, c, d],
                [&mut *o1, &mut *o2, &mut *o3, &mut *o4],
            )
        } else {
            fast_4::<4>(
                cells,
                bits,
                &mut readers,
                [a, b, c, d],
                [&mut *o1, &mut *o2, &mut *o3, &mut *o4],
            )
        };
        for (r, o) in readers.iter_mut().zip([o1, o2, o3, o4]) {
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
    let mut s1 = br.read(log) as usize & 63;
    br.reload();
    let mut s2 = br.read(log) as usize & 63;
    br.reload();
    let mut n = 0usize;
    // libzstd's order: each state's symbol, then its update; when a
    // reload finds the stream overrun, the other state's symbol is the
    // last one.
    loop {
        if n > 253 {
            return Err("more than 255 Huffman weights");
        }
        let c = cells[s1];
        weights[n] = c.symbol;
        n += 1;
        s1 = (c.base as usize + br.read(c.nb_bits as u32) as usize) & 63;
        br.reload();
        if br.overflowed() {
            weights[n] = cells[s2].symbol;
            n += 1;
            break;
        }
        if n > 253 {
            return Err("more than 255 Huffman weights");
        }
        let c = cells[s2];
        weights[n] = c.symbol;
        n += 1;
        s2 = (c.base as usize + br.read(c.nb_bits as u32) as usize) & 63;
        br.reload();
        if br.overflowed() {
            weights[n] = cells[s1].symbol;
            n += 1;
            break;
        }
    }
    Ok(n)
}

/// The interleaved loop of the 4-stream decoder: `N` symbols of each
/// stream per round (N * bits <= 57 after a refill), the four bit states
/// in registers, while every stream can refill 8 whole bytes and the
/// shortest output (the last) has room for a round. Returns the symbols
/// decoded per stream; `readers` continue from there.
#[inline(always)]
fn fast_4<'a, const N: usize>(
    cells: &[u16; TABLE_CELLS],
    bits: u32,
    readers: &mut [BackReader<'a>; 4],
    streams: [&'a [u8]; 4],
    outs: [&mut [u8]; 4],
) -> usize {
    debug_assert!(N as u32 * bits <= 57 && bits >= 1);
    let rounds = outs[3].len() / N;
    if rounds == 0 || streams.iter().any(|s| s.len() < 8) {
        return 0;
    }
    let mut pos = [0usize; 4];
    let mut container = [0u64; 4];
    let mut consumed = [0u32; 4];
    for k in 0..4 {
        (pos[k], container[k], consumed[k]) = readers[k].parts();
    }
    let [mut p0, mut p1, mut p2, mut p3] = pos;
    let [mut c0, mut c1, mut c2, mut c3] = container;
    let [mut n0, mut n1, mut n2, mut n3] = consumed;
    let ptrs = [
        streams[0].as_ptr(),
        streams[1].as_ptr(),
        streams[2].as_ptr(),
        streams[3].as_ptr(),
    ];
    let [o0, o1, o2, o3] = outs;
    let (q0, q1, q2, q3) = (
        o0.as_mut_ptr(),
        o1.as_mut_ptr(),
        o2.as_mut_ptr(),
        o3.as_mut_ptr(),
    );
    let shift = 64 - bits;
    let mut round = 0;
    while round < rounds {
        // Refill all four, or stop where one would pass its start.
        let (r0, r1, r2, r3) = (
            (n0 >> 3) as usize,
            (n1 >> 3) as usize,
            (n2 >> 3) as usize,
            (n3 >> 3) as usize,
        );
        if p0 < r0 || p1 < r1 || p2 < r2 || p3 < r3 {
            break;
        }
        p0 -= r0;
        p1 -= r1;
        p2 -= r2;
        p3 -= r3;
        n0 &= 7;
        n1 &= 7;
        n2 &= 7;
        n3 &= 7;
        // SAFETY: each pos only decreases from its initial value, at most
        // len - 8 (every stream is at least 8 bytes), so 8 bytes at pos are
        // inside its stream.
        unsafe {
            c0 = u64::from_le(ptrs[0].add(p0).cast::<u64>().read_unaligned());
            c1 = u64::from_le(ptrs[1].add(p1).cast::<u64>().read_unaligned());
            c2 = u64::from_le(ptrs[2].add(p2).cast::<u64>().read_unaligned());
            c3 = u64::from_le(ptrs[3].add(p3).cast::<u64>().read_unaligned());
        }
        let at = round * N;
        for i in 0..N {
            let e0 = cells[((c0 << n0) >> shift) as usize & (TABLE_CELLS - 1)];
            let e1 = cells[((c1 << n1) >> shift) as usize & (TABLE_CELLS - 1)];
            let e2 = cells[((c2 << n2) >> shift) as usize & (TABLE_CELLS - 1)];
            let e3 = cells[((c3 << n3) >> shift) as usize & (TABLE_CELLS - 1)];
            n0 += (e0 >> 8) as u32;
            n1 += (e1 >> 8) as u32;
            n2 += (e2 >> 8) as u32;
            n3 += (e3 >> 8) as u32;
            // SAFETY: at + i < rounds * N <= outs[3].len(), and the other
            // outputs are at least as long (the first three segments are
            // equal, the last is the shortest).
            unsafe {
                *q0.add(at + i) = e0 as u8;
                *q1.add(at + i) = e1 as u8;
                *q2.add(at + i) = e2 as u8;
                *q3.add(at + i) = e3 as u8;
            }
        }
        round += 1;
    }
    for (k, (p, c, n)) in [(p0, c0, n0), (p1, c1, n1), (p2, c2, n2), (p3, c3, n3)]
        .into_iter()
        .enumerate()
    {
        readers[k] = BackReader::from_parts(streams[k], p, c, n);
    }
    round * N
}
