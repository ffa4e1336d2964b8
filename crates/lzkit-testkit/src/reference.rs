//! An independent reader of the LZ4 block format, written from the format
//! description (deliberately simple and slow): it checks that compressed
//! output obeys every rule, serves as a reference decoder, and writes
//! hand-built blocks sequence by sequence.

/// One sequence of a block, as positions in the compressed block and sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seq {
    /// Position of the token.
    pub token_at: usize,
    /// Position of the first literal.
    pub lit_at: usize,
    pub lit_len: usize,
    /// Position of the 2-byte offset, or None for the last sequence.
    pub offset_at: Option<usize>,
    pub offset: usize,
    pub match_len: usize,
    /// Position just past this sequence.
    pub end: usize,
    /// Decoded position where this sequence's literals start.
    pub out_at: usize,
}

/// Parse a block into sequences and decode it with a plain byte-by-byte
/// copy. Strict: rejects offset 0, offsets before the start, truncation,
/// output over `cap`. Does *not* check the end-of-block rules (see
/// [`check_end_rules`]).
pub fn ref_decode(src: &[u8], cap: usize) -> Result<(Vec<u8>, Vec<Seq>), String> {
    let mut out = Vec::new();
    let mut seqs = Vec::new();
    let mut ip = 0usize;
    if src.is_empty() {
        return Err("empty block".into());
    }
    loop {
        let token_at = ip;
        let token = *src.get(ip).ok_or("truncated at token")?;
        ip += 1;
        let mut lit_len = (token >> 4) as usize;
        if lit_len == 15 {
            loop {
                let b = *src.get(ip).ok_or("truncated in literal length")?;
                ip += 1;
                lit_len += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        let lit_at = ip;
        if src.len() - ip < lit_len {
            return Err("truncated in literals".into());
        }
        if out.len() + lit_len > cap {
            return Err("output too small (literals)".into());
        }
        out.extend_from_slice(&src[ip..ip + lit_len]);
        ip += lit_len;
        let out_at = out.len() - lit_len;
        if ip == src.len() {
            seqs.push(Seq {
                token_at,
                lit_at,
                lit_len,
                offset_at: None,
                offset: 0,
                match_len: 0,
                end: ip,
                out_at,
            });
            return Ok((out, seqs));
        }
        let offset_at = ip;
        if src.len() - ip < 2 {
            return Err("truncated in offset".into());
        }
        let offset = u16::from_le_bytes([src[ip], src[ip + 1]]) as usize;
        ip += 2;
        let mut match_len = (token & 15) as usize;
        if match_len == 15 {
            loop {
                let b = *src.get(ip).ok_or("truncated in match length")?;
                ip += 1;
                match_len += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        match_len += 4;
        if offset == 0 {
            return Err("offset 0".into());
        }
        if offset > out.len() {
            return Err(format!(
                "offset {offset} before start ({} available)",
                out.len()
            ));
        }
        if out.len() + match_len > cap {
            return Err("output too small (match)".into());
        }
        let start = out.len() - offset;
        for i in 0..match_len {
            let b = out[start + i];
            out.push(b);
        }
        seqs.push(Seq {
            token_at,
            lit_at,
            lit_len,
            offset_at: Some(offset_at),
            offset,
            match_len,
            end: ip,
            out_at,
        });
    }
}

/// Check the block format's end-of-block rules on a parsed block of
/// `decoded_len` bytes: the last sequence is literals only; the last 5 bytes
/// are literals; the last match starts at least 12 bytes before the end.
pub fn check_end_rules(seqs: &[Seq], decoded_len: usize) -> Result<(), String> {
    let last = seqs.last().ok_or("no sequence")?;
    if last.offset_at.is_some() {
        return Err("last sequence has a match".into());
    }
    if let Some(m) = seqs.iter().rev().find(|s| s.offset_at.is_some()) {
        let match_start = m.out_at + m.lit_len;
        let match_end = match_start + m.match_len;
        if match_start + lzkit::lz4::block::MF_LIMIT > decoded_len {
            return Err(format!(
                "last match starts at {match_start}, less than MF_LIMIT before the end {decoded_len}"
            ));
        }
        if match_end + lzkit::lz4::block::LAST_LITERALS > decoded_len {
            return Err(format!(
                "last match ends at {match_end}, inside the last 5 bytes of {decoded_len}"
            ));
        }
    }
    Ok(())
}

// Hand-built blocks.

/// Append the extra bytes of a literal or match length (255s, then the rest).
fn push_len(out: &mut Vec<u8>, mut extra: usize) {
    while extra >= 255 {
        out.push(255);
        extra -= 255;
    }
    out.push(extra as u8);
}

/// Append one sequence: `lits`, then a match of `match_len` (>= 4) bytes at
/// `offset` (written as given, even if invalid).
pub fn push_seq(out: &mut Vec<u8>, lits: &[u8], offset: u16, match_len: usize) {
    assert!(match_len >= 4);
    let ll = lits.len();
    let ml = match_len - 4;
    out.push(((ll.min(15) as u8) << 4) | ml.min(15) as u8);
    if ll >= 15 {
        push_len(out, ll - 15);
    }
    out.extend_from_slice(lits);
    out.extend_from_slice(&offset.to_le_bytes());
    if ml >= 15 {
        push_len(out, ml - 15);
    }
}

/// Append the last, literal-only sequence.
pub fn push_last(out: &mut Vec<u8>, lits: &[u8]) {
    let ll = lits.len();
    out.push((ll.min(15) as u8) << 4);
    if ll >= 15 {
        push_len(out, ll - 15);
    }
    out.extend_from_slice(lits);
}
