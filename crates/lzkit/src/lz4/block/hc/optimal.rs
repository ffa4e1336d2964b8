//! Levels 10 to 12: optimal parsing over hash-chain matches, priced in
//! output bytes (the reference's "lz4opt").
//!
//! From a position with a match, the parser prices every position up to
//! the end of the matches it finds: `nodes[i]` holds the cheapest known way
//! to reach `ip + i` (as a literal, or as the end of a match) and its cost in
//! output bytes. Positions whose cost could still drop are searched for
//! matches of their own, which extend the priced range. When no match
//! reaches further, the cheapest path to the end is walked back and emitted.
//! A match longer than the level's "sufficient" length is emitted at once:
//! long matches rarely lose, and pricing them costs time.

use super::chain::{ChainFinder, Match, OptimalFavorMode, OptimalMode, SearchMode};
use crate::lz4::block::sequence::{write_literals, write_sequence};
use crate::lz4::block::{LAST_LITERALS, MF_LIMIT, MIN_MATCH};

/// Positions one parse may price: matches ending past this are emitted at
/// once (the reference's `LZ4_OPT_NUM`).
const OPT_NUM: usize = 1 << 12;
/// Level 12 takes no match at once unless it is this long.
pub(super) const MAX_SUFFICIENT_LEN: usize = OPT_NUM - 1;
/// Positions after the furthest match end that are priced as literals, so
/// that a match ending just before them can be compared with them.
const TRAILING_LITERALS: usize = 3;
/// Literal runs and match lengths of this much (15) or more need extra
/// length bytes (LZ4 block format: the token nibble saturates).
const RUN_MASK: usize = 15;
/// Cost of a sequence without its literals: token and 2-byte offset.
const SEQUENCE_COST: u32 = 3;
/// `favor_dec_speed`: matches of these lengths cost the decoder a second
/// copy step; cutting them to [`FAVOR_CUT_TO`] (the longest length whose
/// token needs no extra byte) decodes faster.
const FAVOR_CUT_FROM: usize = 19;
const FAVOR_CUT_UPTO: usize = 36;
const FAVOR_CUT_TO: usize = 18;
/// Inputs shorter than this are stored as literals only (LZ4 block format).
const MIN_INPUT_LENGTH: usize = MF_LIMIT + 1;

/// How to reach one position: by a literal (`len == 1`) or by a match of
/// `len` bytes at `offset` ending there. `lits` counts the literals before
/// it in its sequence; `price` is the output bytes spent so far.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    price: u32,
    len: u32,
    offset: u32,
    lits: u32,
}

impl Node {
    fn literal(price: u32, lits: usize) -> Self {
        Node {
            price,
            len: 1,
            offset: 0,
            lits: lits as u32,
        }
    }
}

/// Output bytes of a run of `n` literals (with its length bytes, without
/// the token).
#[inline(always)]
fn literals_price(n: usize) -> u32 {
    let extra = if n >= RUN_MASK {
        1 + (n - RUN_MASK) / 255
    } else {
        0
    };
    (n + extra) as u32
}

/// Output bytes of a match length's extra length bytes.
#[inline(always)]
fn match_length_price(len: usize) -> u32 {
    if len >= RUN_MASK + MIN_MATCH {
        (1 + (len - RUN_MASK - MIN_MATCH) / 255) as u32
    } else {
        0
    }
}

/// Output bytes of a sequence of `lits` literals and a `len`-byte match.
#[inline(always)]
fn sequence_price(lits: usize, len: usize) -> u32 {
    SEQUENCE_COST + literals_price(lits) + match_length_price(len)
}

/// State of a level 10..=12 compressor.
pub(crate) struct OptimalCompressor {
    pub(super) finder: ChainFinder,
    attempts: u32,
    sufficient_len: usize,
    full_update: bool,
    pub(super) favor_dec_speed: bool,
    nodes: Vec<Node>,
}

impl OptimalCompressor {
    pub(super) fn new(attempts: u32, sufficient_len: usize, full_update: bool) -> Self {
        let mut c = OptimalCompressor {
            finder: ChainFinder::new(),
            attempts,
            sufficient_len,
            full_update,
            favor_dec_speed: false,
            nodes: vec![Node::default(); OPT_NUM + TRAILING_LITERALS],
        };
        c.configure(attempts, sufficient_len, full_update);
        c
    }

    /// Set the level's parameters (and `favor_dec_speed` off).
    pub(super) fn configure(&mut self, attempts: u32, sufficient_len: usize, full_update: bool) {
        self.attempts = attempts;
        self.sufficient_len = sufficient_len.min(MAX_SUFFICIENT_LEN);
        self.full_update = full_update;
        self.favor_dec_speed = false;
    }

    /// Compress `buf[start..]`; `dst` holds at least `max_compressed_size`.
    pub(super) fn compress(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> usize {
        self.finder.prepare(buf.len());
        let end = buf.len();
        let (mut op, mut anchor) = (0, start);
        if end - start >= MIN_INPUT_LENGTH {
            (op, anchor) = if self.favor_dec_speed {
                self.parse::<OptimalFavorMode>(buf, start, dst)
            } else {
                self.parse::<OptimalMode>(buf, start, dst)
            };
        }
        write_literals(dst, op, &buf[anchor..], end - anchor)
    }

    /// A match at `ip` longer than `min_len`. Not inlined: the search loop
    /// then gets the registers to itself (the parse loop around it needs
    /// many), which measurably pays on deep searches.
    #[inline(never)]
    fn find_longer<M: SearchMode>(
        finder: &mut ChainFinder,
        attempts: u32,
        buf: &[u8],
        ip: usize,
        limit: usize,
        min_len: usize,
    ) -> Option<Match> {
        let mut m = finder.find_wider::<M>(buf, ip, ip, limit, min_len, attempts)?;
        if M::FAVOR_DEC_SPEED && (FAVOR_CUT_FROM..=FAVOR_CUT_UPTO).contains(&m.len) {
            m.len = FAVOR_CUT_TO;
        }
        Some(m)
    }

    /// The parse loop; returns the output position and the first byte not
    /// yet encoded.
    fn parse<M: SearchMode>(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> (usize, usize) {
        let end = buf.len();
        let mf_limit = end - MF_LIMIT;
        let limit = end - LAST_LITERALS;
        let attempts = self.attempts;
        // An equal price replaces a match only if it is one byte cheaper
        // (favouring longer, fewer matches) when decoding speed matters.
        let favor = u32::from(M::FAVOR_DEC_SPEED);
        let sufficient_len = self.sufficient_len;
        let full_update = self.full_update;
        let finder = &mut self.finder;
        let nodes = &mut self.nodes[..];
        let (mut op, mut anchor) = (0, start);
        let mut ip = start;

        while ip <= mf_limit {
            let lits = ip - anchor;
            let Some(first) =
                Self::find_longer::<M>(finder, attempts, buf, ip, limit, MIN_MATCH - 1)
            else {
                ip += 1;
                continue;
            };
            if first.len > sufficient_len {
                op = write_sequence(dst, op, buf, anchor, ip, first.offset, first.len);
                ip += first.len;
                anchor = ip;
                continue;
            }

            // Price the first positions as literals, then the first match.
            for (r, node) in nodes[..MIN_MATCH].iter_mut().enumerate() {
                *node = Node::literal(literals_price(lits + r), lits + r);
            }
            for (len, node) in nodes
                .iter_mut()
                .enumerate()
                .take(first.len + 1)
                .skip(MIN_MATCH)
            {
                *node = Node {
                    price: sequence_price(lits, len),
                    len: len as u32,
                    offset: first.offset as u32,
                    lits: lits as u32,
                };
            }
            let mut last = first.len;
            fill_trailing(nodes, last);

            // The last step of the chosen path: (its start, length, offset).
            let mut tail = None;
            let mut cur = 1;
            while cur < last {
                let p = ip + cur;
                if p > mf_limit {
                    break;
                }
                let here = nodes[cur];
                // No use searching where the next position is no dearer
                // (level 12 also searches when the price rises sharply just
                // after, as a short match could still pay).
                let flat = nodes[cur + 1].price <= here.price;
                let skip = if full_update {
                    flat && nodes[cur + MIN_MATCH].price < here.price + SEQUENCE_COST
                } else {
                    flat
                };
                if skip {
                    cur += 1;
                    continue;
                }
                // Levels 10 and 11 only look for matches reaching past the
                // priced range: faster, a little less thorough.
                let min_len = if full_update {
                    MIN_MATCH - 1
                } else {
                    last - cur
                };
                let Some(m) = Self::find_longer::<M>(finder, attempts, buf, p, limit, min_len)
                else {
                    cur += 1;
                    continue;
                };
                if m.len > sufficient_len || cur + m.len >= OPT_NUM {
                    // Long enough: end the parse with it.
                    tail = Some((cur, m.len, m.offset));
                    last = cur + 1;
                    break;
                }

                // Literals after `cur`, continuing its literal run.
                let run = here.lits as usize;
                for l in 1..MIN_MATCH {
                    let price = here.price - literals_price(run) + literals_price(run + l);
                    if price < nodes[cur + l].price {
                        nodes[cur + l] = Node::literal(price, run + l);
                    }
                }
                // The match at `cur`, at every length. Its sequence takes
                // the literal run that reaches `cur`, if any.
                let (lits, start_price) = if here.len == 1 {
                    let run = here.lits as usize;
                    (run, if cur > run { nodes[cur - run].price } else { 0 })
                } else {
                    (0, here.price)
                };
                let base_price = start_price + SEQUENCE_COST + literals_price(lits);
                // Past this, positions hold nothing of this parse yet.
                let fresh_from = last + TRAILING_LITERALS + 1;
                let end = cur + m.len;
                let step = |pos: usize, node: &mut Node| {
                    let price = base_price + match_length_price(pos - cur);
                    let better = pos >= fresh_from || price + favor <= node.price;
                    if better {
                        *node = Node {
                            price,
                            len: (pos - cur) as u32,
                            offset: m.offset as u32,
                            lits: lits as u32,
                        };
                    }
                    better
                };
                for (i, node) in nodes[cur + MIN_MATCH..end].iter_mut().enumerate() {
                    step(cur + MIN_MATCH + i, node);
                }
                // The full length may extend the priced range.
                if step(end, &mut nodes[end]) && end > last {
                    last = end;
                }
                fill_trailing(nodes, last);
                cur += 1;
            }

            let (step_start, step_len, step_offset) = tail.unwrap_or_else(|| {
                let n = nodes[last];
                (last - n.len as usize, n.len as usize, n.offset as usize)
            });
            // Walk the cheapest path back from its last step, leaving in each
            // node on it the step that *starts* there.
            let (mut pos, mut len, mut offset) = (step_start, step_len as u32, step_offset as u32);
            loop {
                let prev = nodes[pos];
                nodes[pos].len = len;
                nodes[pos].offset = offset;
                if prev.len as usize > pos {
                    break;
                }
                (len, offset) = (prev.len, prev.offset);
                pos -= prev.len as usize;
            }
            // Emit it forwards.
            let mut r = 0;
            while r < last {
                let n = nodes[r];
                if n.len == 1 {
                    ip += 1;
                    r += 1;
                    continue;
                }
                let len = n.len as usize;
                op = write_sequence(dst, op, buf, anchor, ip, n.offset as usize, len);
                ip += len;
                anchor = ip;
                r += len;
            }
        }
        (op, anchor)
    }
}

/// Price the [`TRAILING_LITERALS`] positions after `last` as literals
/// following it.
#[inline(always)]
fn fill_trailing(nodes: &mut [Node], last: usize) {
    let base = nodes[last].price;
    for add in 1..=TRAILING_LITERALS {
        nodes[last + add] = Node::literal(base + literals_price(add), add);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_count_output_bytes() {
        assert_eq!(literals_price(0), 0);
        assert_eq!(literals_price(14), 14);
        assert_eq!(literals_price(15), 16);
        assert_eq!(literals_price(15 + 254), 15 + 254 + 1);
        assert_eq!(literals_price(15 + 255), 15 + 255 + 2);
        assert_eq!(sequence_price(0, 4), 3);
        assert_eq!(sequence_price(0, 18), 3);
        assert_eq!(sequence_price(0, 19), 4);
        assert_eq!(sequence_price(15, 19 + 255), 3 + 16 + 2);
    }
}
