//! Levels 3 to 9: hash chains with lazy matching, the reference's HC parser.
//!
//! After finding a match at `ip`, the parser does not emit it at once: it
//! asks for a longer match starting inside it (near its end, allowed to
//! extend backwards into it). If there is one, the first match is shortened
//! or dropped, and the new one is checked the same way, with up to three
//! overlapping candidates in hand. Where two matches overlap, the first one
//! keeps up to [`OPTIMAL_ML`] bytes, taken from the start of the second (as
//! long as that one keeps a minimum match): the longest length whose token
//! needs no extra byte, so the first sequence costs no more, while the
//! second gets shorter at no cost unless it drops to a shorter length class.

use super::chain::{ChainFinder, LazyMode, LazyRunsMode, Match, SearchMode};
use crate::lz4::block::sequence::{write_literals, write_sequence};
use crate::lz4::block::{LAST_LITERALS, MF_LIMIT, MIN_MATCH};

/// Longest match length whose token nibble needs no extra byte (15 + 4 - 1:
/// the reference's `OPTIMAL_ML`).
const OPTIMAL_ML: usize = 18;
/// Search depth from which runs of one byte value are analysed (levels 9 and
/// up, as in the reference).
const RUN_ANALYSIS_MIN_ATTEMPTS: u32 = 256;
/// A match that starts fewer than this many bytes after the current one
/// replaces it outright (shortening the current one would leave less than a
/// minimum match).
const MIN_GAP: usize = 3;
/// How far before the end of the current match (then of the second one) the
/// search for a longer, overlapping match looks: the reference's choices.
const SECOND_REACH: usize = 2;
const THIRD_REACH: usize = 3;
/// Inputs shorter than this are stored as literals only (LZ4 block format).
const MIN_INPUT_LENGTH: usize = MF_LIMIT + 1;

/// A match in buffer coordinates.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    pos: usize,
    len: usize,
    offset: usize,
}

impl Candidate {
    fn end(&self) -> usize {
        self.pos + self.len
    }

    /// Drop the first `n` bytes of the match (same offset).
    fn skip(&mut self, n: usize) {
        self.pos += n;
        self.len -= n;
    }

    /// `m`, found by a search at `ip`.
    fn at(ip: usize, m: Match) -> Self {
        Candidate {
            pos: ip - m.back,
            len: m.len,
            offset: m.offset,
        }
    }
}

/// A match longer than `c` that starts inside it: searched for at `reach`
/// bytes before its end, extending back at most to its start.
#[inline(always)]
fn longer<M: SearchMode>(
    f: &mut ChainFinder,
    buf: &[u8],
    c: Candidate,
    reach: usize,
    attempts: u32,
) -> Option<Candidate> {
    // The LZ4 block end rules: the last match starts at most `MF_LIMIT`
    // bytes, and ends at most `LAST_LITERALS` bytes, before the end.
    if c.end() + MF_LIMIT > buf.len() {
        return None;
    }
    let at = c.end() - reach;
    f.find_wider::<M>(buf, at, c.pos, buf.len() - LAST_LITERALS, c.len, attempts)
        .map(|m| Candidate::at(at, m))
}

/// State of a level 3..=9 compressor.
pub(crate) struct LazyCompressor {
    pub(super) finder: ChainFinder,
    /// Chain links followed per search.
    pub(super) attempts: u32,
}

/// Output position and the first byte not yet encoded.
struct Out<'a> {
    buf: &'a [u8],
    dst: &'a mut [u8],
    op: usize,
    anchor: usize,
}

impl Out<'_> {
    fn emit(&mut self, c: Candidate) {
        self.op = write_sequence(
            self.dst,
            self.op,
            self.buf,
            self.anchor,
            c.pos,
            c.offset,
            c.len,
        );
        self.anchor = c.end();
    }
}

impl LazyCompressor {
    pub(super) fn new(attempts: u32) -> Self {
        LazyCompressor {
            finder: ChainFinder::new(),
            attempts,
        }
    }

    /// Compress `buf[start..]`; `dst` holds at least `max_compressed_size`.
    pub(super) fn compress(&mut self, buf: &[u8], start: usize, dst: &mut [u8]) -> usize {
        self.finder.prepare(buf.len());
        let end = buf.len();
        let mut out = Out {
            buf,
            dst,
            op: 0,
            anchor: start,
        };
        if end - start >= MIN_INPUT_LENGTH {
            if self.attempts >= RUN_ANALYSIS_MIN_ATTEMPTS {
                self.parse::<LazyRunsMode>(buf, start, &mut out);
            } else {
                self.parse::<LazyMode>(buf, start, &mut out);
            }
        }
        write_literals(out.dst, out.op, &buf[out.anchor..], end - out.anchor)
    }

    /// The parse loop, with or without run analysis (`M`).
    fn parse<M: SearchMode>(&mut self, buf: &[u8], start: usize, out: &mut Out) {
        let end = buf.len();
        // The last match starts at most here, and ends at most at `limit`
        // (LZ4 block format end rules).
        let mf_limit = end - MF_LIMIT;
        let limit = end - LAST_LITERALS;
        let attempts = self.attempts;
        let f = &mut self.finder;
        let mut ip = start;

        'next: while ip <= mf_limit {
            let Some(m) = f.find_wider::<M>(buf, ip, ip, limit, MIN_MATCH - 1, attempts) else {
                ip += 1;
                continue;
            };
            let mut first = Candidate::at(ip, m);
            // The match found first, kept in case a later choice skips too
            // far ahead of it.
            let mut saved = first;

            'second: loop {
                let Some(mut second) = longer::<M>(f, buf, first, SECOND_REACH, attempts) else {
                    out.emit(first);
                    ip = out.anchor;
                    continue 'next;
                };
                if saved.pos < first.pos && second.pos < first.pos + saved.len {
                    // `first` replaced `saved` but `second` overlaps where
                    // `saved` would end: `saved` fits before `second` better.
                    first = saved;
                }
                if second.pos - first.pos < MIN_GAP {
                    first = second;
                    continue 'second;
                }

                'third: loop {
                    if second.pos - first.pos < OPTIMAL_ML {
                        // Let `first` keep up to OPTIMAL_ML bytes, taking
                        // them from the start of `second`, as long as
                        // `second` keeps a minimum match.
                        let gap = second.pos - first.pos;
                        let keep = first.len.min(OPTIMAL_ML).min(gap + second.len - MIN_MATCH);
                        if keep > gap {
                            second.skip(keep - gap);
                        }
                    }
                    let Some(third) = longer::<M>(f, buf, second, THIRD_REACH, attempts) else {
                        // Two sequences: `first` cut where `second` starts.
                        first.len = first.len.min(second.pos - first.pos);
                        out.emit(first);
                        out.emit(second);
                        ip = out.anchor;
                        continue 'next;
                    };

                    if third.pos < first.end() + MIN_GAP {
                        // No room for `second` between the other two.
                        if third.pos >= first.end() {
                            // `first` ends before `third`: emit it; `third`
                            // becomes the current match, `second` (cut to
                            // start after `first`) the fallback.
                            if second.pos < first.end() {
                                second.skip(first.end() - second.pos);
                                if second.len < MIN_MATCH {
                                    second = third;
                                }
                            }
                            out.emit(first);
                            first = third;
                            saved = second;
                            continue 'second;
                        }
                        second = third;
                        continue 'third;
                    }

                    // Three ascending matches: emit `first`, shortened so
                    // that `second` can start after it.
                    if second.pos < first.end() {
                        let gap = second.pos - first.pos;
                        if gap < OPTIMAL_ML {
                            first.len = first.len.min(OPTIMAL_ML).min(gap + second.len - MIN_MATCH);
                            if first.len > gap {
                                second.skip(first.len - gap);
                            }
                        } else {
                            first.len = gap;
                        }
                    }
                    out.emit(first);
                    first = second;
                    second = third;
                }
            }
        }
    }
}
