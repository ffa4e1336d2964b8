//! Huffman-coded literals (RFC 8878 section 4.2): the tree description
//! (weights, direct or FSE-compressed) and the 1- and 4-stream decoders.

use super::bits::{BackReader, with_bit_ops};
use super::fse::{self, MAX_SYMBOLS, SmallTable, highbit};

/// Literal sections are decoded two symbols per lookup where the codes
/// allow once they have at least this many *pair lookups* (literals times
/// the share of lookups that find two codes, [`HufTable::pair_share`])
/// per cell of the Huffman table: the table of pairs costs a pass over its
/// cells, paid back by the lookups it saves. Measured (11-bit tables,
/// pairs against single symbols): 5,832 literals with 91% of lookups
/// finding pairs, 15% faster; 7,055 at 63%, 3-5% faster; 4,871 at 77%
/// (256 symbols, a costlier build), 11% slower.
const PAIR_LOOKUPS_PER_CELL: usize = 2;

/// ... and only where the codes are short enough, on average, for two of
/// them to fit in a lookup's 11 bits often: at most this many bits per
/// literal (tenths). Above it most lookups give one symbol, and the pair
/// loop's wider cells and writes cost more than they save (measured:
/// +3% on an integer column at 7 bits per literal, no loss on text).
const PAIRS_MAX_TENTH_BITS: usize = 60;

impl HufTable {
    /// Whether a section of `len` literals coded in `coded` bytes is
    /// worth the table of pairs.
    fn wants_pairs(&self, len: usize, coded: usize) -> bool {
        len * self.pair_share as usize >= (PAIR_LOOKUPS_PER_CELL << self.log) * 256
            && coded * 80 <= PAIRS_MAX_TENTH_BITS * len
    }
}

/// The longest code libzstd accepts (the format says 11; libzstd decodes
/// 12, and so do we).
const MAX_BITS: u32 = 12;
/// Cells of the decoding table for the longest code.
const TABLE_CELLS: usize = 1 << MAX_BITS;
/// The index width of every table whose codes fit in it: shorter codes
/// are spread over it, so the decoding loops index with a constant shift
/// and take five lookups per refill (5 * 11 <= 56 bits).
const FAST_LOG: u32 = 11;

/// A Huffman decoding table: indexed by the next `log` bits of a stream
/// (`FAST_LOG`, or 12 for 12-bit codes), each cell holds
/// `code_length | symbol << 8`, so a container shifts by the cell itself.
#[derive(Clone)]
pub(crate) struct HufTable {
    cells: Box<[u16; TABLE_CELLS]>,
    /// The longest code's length.
    bits: u32,
    /// The index width of `cells` and `pairs`: `max(bits, FAST_LOG)`.
    log: u32,
    /// The double-symbol table, built from `cells` when first needed:
    /// `code_bits | s1 << 8 | s2 << 16 | symbols << 24`, two symbols
    /// wherever both codes fit in the `log` bits that index it.
    pairs: Option<Box<Pairs>>,
    pairs_valid: bool,
    /// The share of lookups (of 256) whose index holds two whole codes,
    /// by the code's own probabilities (a code of length `l` is taken
    /// with probability `2^-l`).
    pair_share: u32,
}

/// The double-symbol table and the scratch its build gathers second codes
/// into (kept, so a build clears nothing).
#[derive(Clone)]
struct Pairs {
    cells: [u32; TABLE_CELLS],
    /// The second codes of the current first-code length.
    second: [u32; TABLE_CELLS / 2],
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
            log: FAST_LOG,
            pairs: None,
            pairs_valid: false,
            pair_share: 0,
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
        // Weights counted in four sets of counters taking turns: runs of
        // equal weights would otherwise increment one counter in memory
        // back to back, each waiting for the one before. Weight 0 (a
        // symbol absent from the literals) is not counted: eight of them
        // in a row, common in sparse alphabets, are skipped at once.
        let mut ranks = [[0u32; 16]; 4];
        const ONES: u64 = u64::from_ne_bytes([1; 8]);
        let mut above = 0u64;
        let mut eights = weights.chunks_exact(8);
        for eight in eights.by_ref() {
            let v = u64::from_ne_bytes(eight.try_into().unwrap_or_default());
            if v == 0 {
                continue;
            }
            // A byte's top bit is set where it is above 12: bytes of 128
            // or more have it already, the others get it from + 115
            // (no carry leaves a byte: at most 127 + 115).
            above |= v | ((v & (0x7f * ONES)) + 0x73 * ONES);
            for (i, &w) in eight.iter().enumerate() {
                ranks[i & 3][w as usize & 15] += 1;
            }
        }
        for (i, &w) in eights.remainder().iter().enumerate() {
            above |= ((w as u32 > MAX_BITS) as u64) << 7;
            ranks[i & 3][w as usize & 15] += 1;
        }
        if above & (0x80 * ONES) != 0 {
            return Err("Huffman weight above 12");
        }
        let mut rank = [0u32; MAX_BITS as usize + 2];
        let mut total = 0u32;
        for (w, r) in rank.iter_mut().enumerate() {
            *r = ranks.iter().map(|set| set[w & 15]).sum();
            if w > 0 {
                total += *r << (w - 1);
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
        // Cells per weight, lowest weights (longest codes) first; the
        // table is indexed by `log >= bits` bits, so each cell of a
        // `bits`-bit table spreads over `1 << spread` cells.
        let log = bits.max(FAST_LOG);
        let spread = log - bits;
        // The symbols sorted by weight (a counting sort, stable, so each
        // weight's symbols stay in ascending order as the format's
        // canonical code wants): `at[w]` is where weight `w`'s come next.
        // Absent symbols (weight 0) go first and are never read.
        let mut at = [0usize; 16];
        let mut next = (256 - rank[1..].iter().sum::<u32>()) as usize;
        for w in 1..=bits as usize {
            at[w] = next;
            next += rank[w] as usize;
        }
        let first = at;
        let mut sorted = [0u8; 256];
        let mut sort = |symbol: usize, w: u8| {
            let slot = &mut at[w as usize & 15];
            // (`& 255`: the slots stay below 256, see above)
            sorted[*slot & 255] = symbol as u8;
            *slot += 1;
        };
        for (symbol, &w) in weights.iter().enumerate() {
            sort(symbol, w);
        }
        sort(count, last as u8);
        // Then each weight's run of cells, one run of `len` cells per
        // symbol: `len` is fixed within a weight, so each length gets a
        // loop of whole stores instead of a branch per symbol. The runs
        // cover the table exactly (the weights sum to `1 << bits`).
        let mut cell_at = 0usize;
        for w in 1..=bits as usize {
            let symbols = sorted.get(first[w]..at[w]).unwrap_or_default();
            let len = 1usize << (w - 1 + spread as usize);
            let end = cell_at + symbols.len() * len;
            let Some(run) = self.cells.get_mut(cell_at..end) else {
                break;
            };
            cell_at = end;
            let length = (bits + 1 - w as u32) as u16;
            let cell = |s: u8| length | (s as u16) << 8;
            match len {
                1 => runs::<1>(run, symbols, cell),
                2 => runs::<2>(run, symbols, cell),
                4 => runs::<4>(run, symbols, cell),
                8 => runs::<8>(run, symbols, cell),
                // Powers of two from 16 on: a fill, which LLVM unrolls
                // into wide stores.
                _ => {
                    for (c, &s) in run.chunks_exact_mut(len).zip(symbols) {
                        c.fill(cell(s));
                    }
                }
            }
        }
        self.bits = bits;
        self.log = log;
        self.pairs_valid = false;
        self.pair_share = pair_share(&rank, bits, log);
        Ok(())
    }

    /// Build the double-symbol table from the single-symbol one: at each
    /// index, the first code's symbol and, where the next code also fits
    /// in the index's remaining bits, the second's.
    ///
    /// The cells of a first code of length `l` form a run of
    /// `1 << (log - l)`, whose second codes are those of the single table
    /// sampled every `1 << l` cells: the same for every first code of
    /// that length, so they are gathered once per length (the runs come
    /// sorted by length) and added to each run's first symbol. A second
    /// code of length `l2` covers `1 << (log - l - l2)` samples in a row,
    /// so the gather takes one cell per code, not one per sample.
    fn build_pairs(&mut self) {
        let log = self.log;
        let size = 1usize << log;
        let cells = &*self.cells;
        let pairs = self.pairs.get_or_insert_with(|| {
            Box::new(Pairs {
                cells: [0; TABLE_CELLS],
                second: [0; TABLE_CELLS / 2],
            })
        });
        let Pairs {
            cells: table,
            second,
        } = &mut **pairs;
        let mut last = 0;
        let mut i = 0;
        while i < size {
            let c1 = cells[i] as u32;
            let l1 = c1 & 0xff;
            if l1 == 0 || l1 > log {
                // Not a table `build` made (never happens): the pairs
                // stay unused, so no cell of count 0 stalls a loop.
                return;
            }
            let r = log - l1;
            let run = 1usize << r;
            if l1 != last {
                last = l1;
                // `second[..run]`: every entry written before it is read
                // (the scratch keeps what earlier tables left).
                let mut j = 0;
                while j < run {
                    let c2 = cells[(j << l1) & (TABLE_CELLS - 1)] as u32;
                    let l2 = c2 & 0xff;
                    if l2 != 0 && l2 <= r {
                        let pair = l2 | (c2 >> 8) << 16 | 1 << 24;
                        let covers = 1usize << (r - l2);
                        if let Some(d) = second.get_mut(j..j + covers) {
                            d.fill(pair);
                        }
                        j += covers;
                    } else {
                        if let Some(d) = second.get_mut(j) {
                            *d = 0;
                        }
                        j += 1;
                    }
                }
            }
            let first = l1 | (c1 >> 8) << 8 | 1 << 24;
            if let (Some(dst), Some(src)) = (table.get_mut(i..i + run), second.get(..run)) {
                for (p, &s) in dst.iter_mut().zip(src) {
                    *p = first + s;
                }
            }
            i += run;
        }
        self.pairs_valid = true;
    }

    /// Decode one stream filling `out` exactly.
    pub(crate) fn decode_1(&self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        with_bit_ops(
            #[inline(always)]
            || {
                let r = BackReader::new(src).ok_or("Huffman stream has no end marker")?;
                self.decode_streams(&[r], [src], [out], false)
            },
        )
    }

    /// Decode four streams (with their 6-byte jump table) filling `out`.
    pub(crate) fn decode_4(&mut self, src: &[u8], out: &mut [u8]) -> Result<(), Fail> {
        // Pairs pay for their table (one pass over it) on larger sections.
        let pairs = self.wants_pairs(out.len(), src.len());
        if pairs && !self.pairs_valid {
            self.build_pairs();
        }
        with_bit_ops(
            #[inline(always)]
            || self.decode_4_body(src, out, pairs),
        )
    }

    #[inline(always)]
    fn decode_4_body(&self, src: &[u8], out: &mut [u8], pairs: bool) -> Result<(), Fail> {
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
        let readers = [
            BackReader::new(a).ok_or("Huffman stream 1 has no end marker")?,
            BackReader::new(b).ok_or("Huffman stream 2 has no end marker")?,
            BackReader::new(c).ok_or("Huffman stream 3 has no end marker")?,
            BackReader::new(d).ok_or("Huffman stream 4 has no end marker")?,
        ];
        let (o1, rest) = out.split_at_mut(seg);
        let (o2, rest) = rest.split_at_mut(seg);
        let (o3, o4) = rest.split_at_mut(seg);
        self.decode_streams(&readers, [a, b, c, d], [o1, o2, o3, o4], pairs)
    }

    /// Decode `S <= 4` streams, each filling its output exactly: the
    /// interleaved fast loops while every stream has 8 bytes of input and
    /// room for a round of output, then one symbol at a time.
    #[inline(always)]
    fn decode_streams<'a, const S: usize>(
        &self,
        readers: &[BackReader<'a>; S],
        streams: [&'a [u8]; S],
        outs: [&mut [u8]; S],
        pairs: bool,
    ) -> Result<(), Fail> {
        let cells = &*self.cells;
        let log = self.log;
        let pairs = match &self.pairs {
            Some(p) if pairs && self.pairs_valid => Some(&p.cells),
            _ => None,
        };
        let mut lanes = [Lane::IDLE; S];
        for (k, lane) in lanes.iter_mut().enumerate() {
            let src = streams[k];
            let out = &mut *outs[k];
            let op = out.as_mut_ptr();
            *lane = Lane {
                start: src.as_ptr(),
                ip: src.as_ptr(),
                bits: 1,
                op,
                oend: op,
                id: k,
            };
            if src.len() >= 8 {
                let (pos, c, n) = readers[k].parts();
                // A fresh reader: pos == len - 8 and n <= 8, so the
                // marker bit stays in the word.
                lane.ip = src.as_ptr().wrapping_add(pos);
                lane.bits = (c | 1) << n;
                lane.oend = op.wrapping_add(out.len());
            }
        }
        match (pairs, log) {
            (Some(p), FAST_LOG) => run_lanes::<u32, FAST_LOG, 4>(p, &mut lanes),
            (Some(p), _) => run_lanes::<u32, MAX_BITS, 3>(p, &mut lanes),
            (None, FAST_LOG) => run_lanes::<u16, FAST_LOG, 4>(cells, &mut lanes),
            (None, _) => run_lanes::<u16, MAX_BITS, 3>(cells, &mut lanes),
        }
        for lane in &lanes {
            let k = lane.id;
            let src = streams[k];
            // A local copy, so the tail keeps it in registers.
            let mut r = readers[k];
            let out = &mut *outs[k];
            let mut done = 0;
            if src.len() >= 8 {
                let pos = lane.ip as usize - src.as_ptr() as usize;
                let used = lane.bits.trailing_zeros();
                r = BackReader::from_parts(src, pos, 0, used);
                r.refill_container();
                done = lane.op as usize - out.as_ptr() as usize;
            }
            let rest = out.get_mut(done..).unwrap_or_default();
            // The last few bytes of the stream (the fast loops stop 7
            // before its start): a reload a symbol until the window
            // reaches the start, then the container holds every bit left
            // and needs no reload. Two loops, not one with a test on the
            // window a symbol: 4% fewer instructions in a small section.
            let mut at = 0;
            while at < rest.len() && !r.at_start() {
                r.reload();
                rest[at] = decode_symbol(&mut r, cells, log);
                at += 1;
            }
            for b in rest.get_mut(at..).unwrap_or_default() {
                *b = decode_symbol(&mut r, cells, log);
            }
            if !r.finished() {
                return Err("Huffman stream does not end where its symbols do");
            }
        }
        Ok(())
    }
}

/// One run of `N` cells per symbol of `symbols`, from the start of `run`,
/// each cell `cell(symbol)`: whole-array stores, which LLVM writes as one
/// store each (`copy_from_slice` of a `[cell; 8]` became eight two-byte
/// stores).
#[inline(always)]
fn runs<const N: usize>(run: &mut [u16], symbols: &[u8], cell: impl Fn(u8) -> u16) {
    for (c, &s) in run.as_chunks_mut::<N>().0.iter_mut().zip(symbols) {
        *c = [cell(s); N];
    }
}

#[inline(always)]
fn decode_symbol(br: &mut BackReader<'_>, cells: &[u16; TABLE_CELLS], log: u32) -> u8 {
    let cell = cells[br.peek(log) as usize & (TABLE_CELLS - 1)];
    br.skip((cell & 0xff) as u32);
    (cell >> 8) as u8
}

/// The share of lookups (of 256) in a `log`-bit table whose index holds
/// two whole codes, from the count of symbols per weight (`rank`) of a
/// code of `bits` bits: the sum over first lengths `l1` of `P(l1) *
/// P(l2 <= log - l1)`, where a length's probability is its codes' count
/// times `2^-l` (fixed point: 4096 for all of them).
fn pair_share(rank: &[u32; MAX_BITS as usize + 2], bits: u32, log: u32) -> u32 {
    // Probability of each code length, of 4096.
    let mut p = [0u64; MAX_BITS as usize + 1];
    for (w, &n) in rank.iter().enumerate().take(bits as usize + 1).skip(1) {
        let l = (bits + 1) as usize - w;
        p[l] = (n as u64) << (MAX_BITS as usize - l);
    }
    let mut at_most = [0u64; MAX_BITS as usize + 1];
    let mut sum = 0;
    for (l, &q) in p.iter().enumerate() {
        sum += q;
        at_most[l] = sum;
    }
    let mut share = 0u64;
    for (l1, &q) in p.iter().enumerate().skip(1) {
        if let Some(&fits) = (log as usize).checked_sub(l1).and_then(|r| at_most.get(r)) {
            share += q * fits;
        }
    }
    // Of 2^24: a complete code's probabilities sum to 4096 each.
    (share >> 16).min(256) as u32
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
    // The state whose turn it is, and the other (two locals, not an
    // array indexed by the turn, which would keep them in memory).
    let (mut turn, mut other) = (s1, s2);
    // Four weights per reload while the container holds their bits (a
    // state reads at most `log <= 6`) and the count stays below the
    // limit: no overrun check can fire there, so the order above gives
    // the same weights. libzstd decodes its weights the same way.
    debug_assert!(log <= 6 && cells.iter().all(|c| c.nb_bits as u32 <= log));
    while n + 4 <= 254 && br.container_left() >= 4 * 6 {
        for _ in 0..4 {
            let c = cells[turn];
            weights[n] = c.symbol;
            n += 1;
            let updated = (c.base as usize + br.read(c.nb_bits as u32) as usize) & 63;
            (turn, other) = (other, updated);
        }
        br.reload();
    }
    loop {
        if n > 253 {
            return Err("more than 255 Huffman weights");
        }
        let c = cells[turn];
        weights[n] = c.symbol;
        n += 1;
        let updated = (c.base as usize + br.read(c.nb_bits as u32) as usize) & 63;
        br.reload();
        if br.overflowed() {
            weights[n] = cells[other].symbol;
            n += 1;
            break;
        }
        (turn, other) = (other, updated);
    }
    Ok(n)
}

/// One stream in the fast loops: its container is kept shifted so its
/// next bits are on top, with a marker bit below the data: the trailing
/// zeros count the bits consumed since the last refill, so no counter is
/// kept.
#[derive(Clone, Copy)]
struct Lane {
    /// The stream's first byte.
    start: *const u8,
    /// The 8-byte window the container was loaded from: `start <= ip`
    /// and `ip + 8 <= ` the stream's end.
    ip: *const u8,
    bits: u64,
    /// The next output byte; `op <= oend`, the end of this stream's
    /// output.
    op: *mut u8,
    oend: *mut u8,
    /// The stream's place in the section.
    id: usize,
}

impl Lane {
    const IDLE: Lane = Lane {
        start: std::ptr::null(),
        ip: std::ptr::null(),
        bits: 1,
        op: std::ptr::null_mut(),
        oend: std::ptr::null_mut(),
        id: 0,
    };

    /// Rounds of `N` lookups this lane can run with no bounds check: a
    /// refill moves its window back at most 7 bytes (at most 63 bits
    /// were consumed since the last one), and a round writes at most
    /// `N * T::WRITE` bytes.
    #[inline(always)]
    fn rounds<T: Lookup, const N: usize>(&self) -> usize {
        let input = (self.ip as usize - self.start as usize) / 7;
        let output = (self.oend as usize - self.op as usize) / (N * T::WRITE);
        input.min(output)
    }
}

/// Run the interleaved loop over all `lanes`, then over those left each
/// time one runs out of input or output room, down to one.
#[inline(always)]
fn run_lanes<T: Lookup, const LOG: u32, const N: usize>(
    table: &[T; TABLE_CELLS],
    lanes: &mut [Lane],
) {
    let mut active = lanes.len();
    loop {
        // Lanes with no round left go to the end.
        let mut k = 0;
        while k < active {
            if lanes[k].rounds::<T, N>() == 0 {
                active -= 1;
                lanes.swap(k, active);
            } else {
                k += 1;
            }
        }
        match &mut lanes[..active] {
            [] => return,
            [a] => fast::<T, 1, LOG, N>(table, std::array::from_mut(a)),
            [a, b] => {
                let mut l = [*a, *b];
                fast::<T, 2, LOG, N>(table, &mut l);
                [*a, *b] = l;
            }
            [a, b, c] => {
                let mut l = [*a, *b, *c];
                fast::<T, 3, LOG, N>(table, &mut l);
                [*a, *b, *c] = l;
            }
            [a, b, c, d, ..] => {
                let mut l = [*a, *b, *c, *d];
                fast::<T, 4, LOG, N>(table, &mut l);
                [*a, *b, *c, *d] = l;
            }
        }
    }
}

/// The interleaved loop over `K` streams: `N` lookups of each stream per
/// round, in a `T` table of single symbols (`u16`) or of pairs (`u32`).
/// A refill leaves at least 56 bits above the marker; the round's first
/// lookup indexes the container from before the refill, so its latency
/// hides the refill's load, which needs `LOG` more bits left at a
/// round's start: `(N + 1) * LOG <= 56`. Rounds run in batches that need
/// no bounds check, as many as every lane has ([`Lane::rounds`]);
/// returns when a lane has none.
#[inline(always)]
fn fast<T: Lookup, const K: usize, const LOG: u32, const N: usize>(
    table: &[T; TABLE_CELLS],
    lanes: &mut [Lane; K],
) {
    const { assert!((N as u32 + 1) * LOG <= 56 && LOG <= MAX_BITS) };
    loop {
        let mut batch = usize::MAX;
        for lane in lanes.iter() {
            batch = batch.min(lane.rounds::<T, N>());
        }
        if batch == 0 {
            return;
        }
        let mut ip = lanes.map(|l| l.ip);
        let mut bits = lanes.map(|l| l.bits);
        let mut op = lanes.map(|l| l.op);
        // Every round moves the last output at least N bytes on: it ends
        // the batch within `batch` rounds, with no counter.
        let olimit = op[K - 1] as usize + batch * N;
        loop {
            // The refill's load runs alongside the round's first lookup,
            // which indexes the container before the refill (its top
            // bits are the same): at most `63 - LOG` bits are consumed
            // at a round's start (`(N + 1) * LOG <= 56`).
            let mut cells = [&table[0]; K];
            for k in 0..K {
                let t = bits[k].trailing_zeros();
                cells[k] = &table[(bits[k] >> (64 - LOG)) as usize];
                // SAFETY: `batch` rounds move the window back at most
                // 7 bytes each and stay at or above the stream's start
                // (`Lane::rounds`); the window starts at most at the
                // stream's end - 8 and only moves back. `k < K`, so
                // `slot` is an element of the local array `ip`. The
                // window's place stays in memory (volatile): it is needed
                // once a round, and the registers go to the containers,
                // the outputs and the table.
                unsafe {
                    let slot = ip.as_mut_ptr().add(k);
                    let p = slot.read_volatile().sub((t >> 3) as usize);
                    slot.write_volatile(p);
                    bits[k] = (u64::from_le(p.cast::<u64>().read_unaligned()) | 1) << (t & 7);
                }
            }
            for k in 0..K {
                // SAFETY: `batch` rounds leave room for `T::WRITE`
                // bytes a lookup in every output (`Lane::rounds`).
                op[k] = unsafe { T::step(cells[k], &mut bits[k], op[k]) };
            }
            for _ in 1..N {
                for k in 0..K {
                    let cell = &table[(bits[k] >> (64 - LOG)) as usize];
                    // SAFETY: as above.
                    op[k] = unsafe { T::step(cell, &mut bits[k], op[k]) };
                }
            }
            if op[K - 1] as usize >= olimit {
                break;
            }
        }
        for k in 0..K {
            lanes[k].ip = ip[k];
            lanes[k].bits = bits[k];
            lanes[k].op = op[k];
        }
    }
}

/// A cell of a Huffman decoding table, as the fast loops read it: the
/// code bits in the low byte, so the container shifts by the cell itself
/// (`shlx` takes the count's low 6 bits).
trait Lookup: Copy {
    /// Bytes a lookup writes.
    const WRITE: usize;
    /// Consume the cell's code bits from `bits` and write its `WRITE`
    /// bytes at `p`; returns `p` moved past its symbols.
    ///
    /// # Safety
    /// `cell` points to a cell of a table, `p` is valid for `WRITE` bytes.
    unsafe fn step(cell: *const Self, bits: &mut u64, p: *mut u8) -> *mut u8;
}

/// A single-symbol cell: `code_length | symbol << 8`.
impl Lookup for u16 {
    const WRITE: usize = 1;
    #[inline(always)]
    unsafe fn step(cell: *const Self, bits: &mut u64, p: *mut u8) -> *mut u8 {
        // SAFETY: the caller's.
        unsafe {
            let c = cell.read();
            *bits <<= c & 63;
            p.write((c >> 8) as u8);
            p.add(1)
        }
    }
}

/// A pair cell (see [`HufTable::build_pairs`]): code bits in the low
/// byte, the two symbols in the middle ones, the count in the high one.
impl Lookup for u32 {
    const WRITE: usize = 2;
    #[inline(always)]
    unsafe fn step(cell: *const Self, bits: &mut u64, p: *mut u8) -> *mut u8 {
        // SAFETY: the caller's. The count is read by a load of its own
        // (one shift less per lookup).
        unsafe {
            let c = cell.read();
            *bits <<= c & 63;
            p.cast::<[u8; 2]>()
                .write_unaligned(((c >> 8) as u16).to_le_bytes());
            let n = cell
                .cast::<u8>()
                .add(if cfg!(target_endian = "big") { 0 } else { 3 });
            p.add(n.read() as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Random complete code lengths for `symbols` of 256 symbols (others
    /// absent), longest `max_len`; returns the weights as stated (the
    /// last present symbol's implied) and the lengths of all 256.
    fn random_code(rng: &mut Rng, symbols: usize, max_len: u32) -> (Vec<u8>, [u32; 256]) {
        // Split random leaves of a complete tree until there are enough.
        let mut leaves = vec![0u32];
        while leaves.len() < symbols {
            let k = rng.below(leaves.len() as u64) as usize;
            if leaves[k] < max_len {
                let l = leaves[k] + 1;
                leaves[k] = l;
                leaves.push(l);
            } else if leaves.iter().all(|&l| l >= max_len) {
                break;
            }
        }
        let longest = *leaves.iter().max().unwrap();
        let mut lengths = [0u32; 256];
        let mut present: Vec<usize> = (0..256).collect();
        while present.len() > leaves.len() {
            let k = rng.below(present.len() as u64) as usize;
            present.remove(k);
        }
        for (&s, &l) in present.iter().zip(&leaves) {
            lengths[s] = l;
        }
        let last = *present.last().unwrap();
        let weights = (0..last)
            .map(|s| {
                if lengths[s] == 0 {
                    0
                } else {
                    (longest + 1 - lengths[s]) as u8
                }
            })
            .collect();
        (weights, lengths)
    }

    /// The canonical codes of `table` (read back from its cells).
    fn codes(table: &HufTable) -> [(u32, u32); 256] {
        let mut codes = [(0, 0); 256];
        let log = table.log;
        for i in (0..1usize << log).rev() {
            let c = table.cells[i];
            let len = (c & 0xff) as u32;
            codes[(c >> 8) as usize] = ((i >> (log - len)) as u32, len);
        }
        codes
    }

    /// One backward stream of `symbols` (the decoder reads them first to
    /// last).
    fn encode(codes: &[(u32, u32); 256], symbols: &[u8]) -> Vec<u8> {
        let mut bits: Vec<bool> = Vec::new();
        for &s in symbols.iter().rev() {
            let (code, len) = codes[s as usize];
            for i in 0..len {
                bits.push(code >> i & 1 != 0);
            }
        }
        bits.push(true);
        let mut out = vec![0u8; bits.len().div_ceil(8)];
        for (i, &b) in bits.iter().enumerate() {
            out[i / 8] |= (b as u8) << (i % 8);
        }
        out
    }

    /// Reference: one symbol at a time, bit by bit, from the codes.
    fn reference(codes: &[(u32, u32); 256], src: &[u8], n: usize) -> Option<Vec<u8>> {
        let last = *src.last()?;
        if last == 0 {
            return None;
        }
        let mut pos = src.len() * 8 - last.leading_zeros() as usize - 1;
        let bit = |p: usize| src[p / 8] >> (p % 8) & 1;
        let mut by_code = vec![0u16; (MAX_BITS as usize + 1) << MAX_BITS];
        for (s, &(code, len)) in codes.iter().enumerate() {
            if len > 0 {
                by_code[(len as usize) << MAX_BITS | code as usize] = s as u16 + 1;
            }
        }
        let mut out = Vec::new();
        'sym: for _ in 0..n {
            let mut code = 0u32;
            for len in 1..=MAX_BITS {
                if pos == 0 {
                    return None;
                }
                pos -= 1;
                code = code << 1 | bit(pos) as u32;
                let s = by_code[(len as usize) << MAX_BITS | code as usize];
                if s > 0 {
                    out.push((s - 1) as u8);
                    continue 'sym;
                }
            }
            return None;
        }
        (pos == 0).then_some(out)
    }

    fn random_symbols(rng: &mut Rng, lengths: &[u32; 256], n: usize) -> Vec<u8> {
        // Skewed towards short codes, as real literals are.
        let present: Vec<u8> = (0..=255u8).filter(|&s| lengths[s as usize] > 0).collect();
        (0..n)
            .map(|_| {
                let a = rng.below(present.len() as u64);
                let b = rng.below(present.len() as u64);
                let s = present[a.min(b) as usize];
                if rng.below(2) == 0 {
                    s
                } else {
                    *present
                        .iter()
                        .min_by_key(|&&p| lengths[p as usize])
                        .unwrap()
                }
            })
            .collect()
    }

    /// The pair share is the share of table indices whose bits hold two
    /// whole codes, counted cell by cell.
    #[test]
    fn weights_above_12_are_refused_wherever_they_are() {
        let mut rng = Rng(0x12);
        for _ in 0..20 {
            let symbols = 2 + rng.below(254) as usize;
            let (weights, _) = random_code(&mut rng, symbols, 11);
            let mut table = HufTable::default();
            assert!(table.build(&weights, weights.len()).is_ok());
            // Every place: in the chunks of eight and in the tail, in a
            // chunk of zeros, with values just above 12 and above 127.
            for at in 0..weights.len() {
                for bad in [13u8, 15, 16, 128, 255] {
                    let mut w = weights.clone();
                    w[at] = bad;
                    assert_eq!(table.build(&w, w.len()), Err("Huffman weight above 12"));
                }
                let mut w = vec![0u8; weights.len()];
                w[at] = 13;
                assert_eq!(table.build(&w, w.len()), Err("Huffman weight above 12"));
            }
        }
    }

    /// The table by the format's definition, one symbol at a time: codes
    /// in order of weight, then of symbol, from the table's start; each
    /// `bits`-bit cell spread over the index width.
    fn table_by_definition(weights: &[u8], bits: u32) -> Vec<u16> {
        let mut all = weights.to_vec();
        let total: u32 = all.iter().filter(|&&w| w > 0).map(|&w| 1 << (w - 1)).sum();
        let rest = (1u32 << bits) - total;
        all.push((rest.ilog2() + 1) as u8);
        let log = bits.max(FAST_LOG);
        let mut cells = Vec::new();
        for w in 1..=bits as u8 {
            for (s, _) in all.iter().enumerate().filter(|&(_, &x)| x == w) {
                let cell = (bits + 1 - w as u32) as u16 | (s as u16) << 8;
                cells.extend(std::iter::repeat_n(cell, 1 << (w as u32 - 1 + log - bits)));
            }
        }
        cells
    }

    #[test]
    fn tables_are_built_as_the_format_defines_them() {
        let mut rng = Rng(0xb1d);
        // One table rebuilt, as a decoder reuses it.
        let mut table = HufTable::default();
        for round in 0..300 {
            let max_len = 1 + (round % 12) as u32;
            let symbols = 2 + rng.below(255) as usize;
            let (weights, _) = random_code(&mut rng, symbols, max_len);
            table.build(&weights, weights.len()).unwrap();
            let want = table_by_definition(&weights, table.bits);
            assert_eq!(&table.cells[..want.len()], &want[..], "round {round}");
            assert_eq!(want.len(), 1 << table.log);
        }
    }

    #[test]
    fn pair_share_counts_the_indices_holding_two_codes() {
        let mut rng = Rng(0x5eed);
        for case in 0..200 {
            let symbols = 2 + rng.below(255) as usize;
            let max_len = 1 + rng.below(11) as u32;
            let (weights, _) = random_code(&mut rng, symbols, max_len);
            let mut table = HufTable::default();
            if table.build(&weights, weights.len()).is_err() {
                continue;
            }
            let log = table.log;
            let mask = (1usize << log) - 1;
            let two = (0..=mask)
                .filter(|&i| {
                    let l1 = (table.cells[i] & 0xff) as u32;
                    let l2 = (table.cells[(i << l1) & mask] & 0xff) as u32;
                    l1 + l2 <= log
                })
                .count();
            let counted = (two * 256) >> log;
            let share = table.pair_share as usize;
            assert!(
                share.abs_diff(counted) <= 1,
                "case {case}: share {share}, counted {counted}"
            );
        }
    }

    #[test]
    fn matches_reference_over_code_shapes() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let sizes = [
            6usize, 7, 9, 31, 32, 33, 100, 257, 1000, 2047, 2048, 4100, 20000,
        ];
        // One table rebuilt for every code, as a decoder reuses it: the
        // pair table's scratch keeps what earlier codes left.
        let mut table = HufTable::default();
        for round in 0..60 {
            let max_len = [1, 2, 5, 8, 11, 12][round % 6];
            let symbols = 2 + rng.below(255) as usize;
            let (weights, lengths) = random_code(&mut rng, symbols, max_len);
            table.build(&weights, weights.len()).unwrap();
            let codes = codes(&table);
            for (s, &l) in lengths.iter().enumerate() {
                assert_eq!(codes[s].1, l, "symbol {s}");
            }
            for &n in &sizes {
                let syms = random_symbols(&mut rng, &lengths, n);
                // One stream.
                let src = encode(&codes, &syms);
                assert_eq!(reference(&codes, &src, n).as_deref(), Some(&syms[..]));
                let mut out = vec![0u8; n];
                table.decode_1(&src, &mut out).unwrap();
                assert_eq!(out, syms, "1 stream, {n} symbols, {max_len} bits");
                // Four streams.
                let seg = n.div_ceil(4);
                if 3 * seg > n {
                    continue;
                }
                let parts: Vec<Vec<u8>> = syms.chunks(seg).map(|c| encode(&codes, c)).collect();
                if parts.len() != 4 || parts[..3].iter().any(|p| p.len() > 0xffff) {
                    continue;
                }
                let mut src = Vec::new();
                for p in &parts[..3] {
                    src.extend_from_slice(&(p.len() as u16).to_le_bytes());
                }
                for p in &parts {
                    src.extend_from_slice(p);
                }
                let mut out = vec![0u8; n];
                table.decode_4(&src, &mut out).unwrap();
                assert_eq!(out, syms, "4 streams, {n} symbols, {max_len} bits");
                // Corrupt copies: errors or some output, never a panic;
                // a cut stream is an error.
                for _ in 0..8 {
                    let mut bad = src.clone();
                    let k = 6 + rng.below((bad.len() - 6) as u64) as usize;
                    bad[k] ^= 1 << rng.below(8);
                    if table.decode_4(&bad, &mut out).is_ok() {
                        // Then every stream decodes as the reference does.
                        let mut at = 6;
                        for (p, o) in parts.iter().zip(out.chunks(seg)) {
                            let stream = &bad[at..at + p.len()];
                            assert_eq!(reference(&codes, stream, o.len()).as_deref(), Some(o));
                            at += p.len();
                        }
                    }
                }
                let mut cut = src.clone();
                cut.pop();
                let _ = table.decode_4(&cut, &mut out);
                let one = encode(&codes, &syms);
                let cut1 = &one[..one.len() - 1];
                let r = table.decode_1(cut1, &mut out);
                assert_eq!(
                    r.is_ok(),
                    reference(&codes, cut1, n).is_some(),
                    "cut stream, {n} symbols, {max_len} bits, {r:?}"
                );
            }
        }
    }
}
