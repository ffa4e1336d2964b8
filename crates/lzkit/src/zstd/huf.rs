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
        // Interleaved: 4 symbols of each stream per round (48 bits at most
        // per stream between reloads), while every stream can reload fully
        // and the shortest segment (the last) has 4 symbols left.
        let rounds = o4.len() / 4;
        let mut done = 0;
        while done < rounds && readers.iter().all(|r| r.far_from_start()) {
            let i = done * 4;
            for r in readers.iter_mut() {
                r.reload();
            }
            for j in i..i + 4 {
                o1[j] = decode_symbol(&mut readers[0], cells, bits);
                o2[j] = decode_symbol(&mut readers[1], cells, bits);
                o3[j] = decode_symbol(&mut readers[2], cells, bits);
                o4[j] = decode_symbol(&mut readers[3], cells, bits);
            }
            done += 1;
        }
        for (r, o) in readers.iter_mut().zip([o1, o2, o3, o4]) {
            for b in &mut o[done * 4..] {
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
