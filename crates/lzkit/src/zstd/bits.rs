//! Bit readers: the backward bitstream of Huffman and FSE data (read from
//! the last byte towards the first, RFC 8878 section 4.1) and the forward
//! reader of FSE table descriptions.

/// A backward bitstream over one slice: a 64-bit container refilled 8
/// bytes at a time, read from its top.
///
/// The stream's last byte holds a 1 bit above its final data bits (the
/// end marker); bits past the start of the slice read as zeros, and
/// [`BackReader::overflowed`] says whether any were consumed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BackReader<'a> {
    src: &'a [u8],
    /// Index of the 8-byte window the container was loaded from (0 once
    /// the start is reached). Invariant: `pos + 8 <= src.len()` whenever
    /// `src.len() >= 8`.
    pos: usize,
    container: u64,
    /// Bits of the container consumed, from its top; above 64 only after
    /// reading past the start.
    consumed: u32,
}

impl<'a> BackReader<'a> {
    /// A reader over `src`; `None` if it is empty or its last byte is 0
    /// (no end marker).
    #[inline]
    pub(crate) fn new(src: &'a [u8]) -> Option<Self> {
        let last = *src.last()?;
        if last == 0 {
            return None;
        }
        let marker = last.leading_zeros() + 1;
        let n = src.len();
        if n >= 8 {
            let pos = n - 8;
            Some(BackReader {
                src,
                pos,
                container: read_u64(src, pos),
                consumed: marker,
            })
        } else {
            let mut container = 0u64;
            for (i, &b) in src.iter().enumerate() {
                container |= (b as u64) << (8 * i);
            }
            Some(BackReader {
                src,
                pos: 0,
                container,
                consumed: marker + 8 * (8 - n as u32),
            })
        }
    }

    /// The reader's state: (window index, container, bits consumed).
    #[inline(always)]
    pub(crate) fn parts(&self) -> (usize, u64, u32) {
        (self.pos, self.container, self.consumed)
    }

    /// A reader over `src` in the state `parts` gave (a loop that kept the
    /// state in registers hands it back). `pos + 8 <= src.len()` unless
    /// `pos == 0`, as [`BackReader::parts`] gives.
    #[inline(always)]
    pub(crate) fn from_parts(src: &'a [u8], pos: usize, container: u64, consumed: u32) -> Self {
        BackReader {
            src,
            pos,
            container,
            consumed,
        }
    }

    /// Load the container from the window at the reader's position (for
    /// [`BackReader::from_parts`] callers that kept no container).
    #[inline]
    pub(crate) fn refill_container(&mut self) {
        if self.src.len() >= 8 {
            self.container = read_u64(self.src, self.pos);
        }
    }

    /// Read `n <= 56` bits (the caller reloads often enough); 0 bits read 0.
    #[inline(always)]
    pub(crate) fn read(&mut self, n: u32) -> u64 {
        let v = self.peek(n);
        self.consumed += n;
        v
    }

    /// The next `n <= 56` bits, not consumed. Once more than 64 bits
    /// were consumed (a corrupt stream) the value is meaningless, but the
    /// stream is then rejected by [`BackReader::overflowed`] or
    /// [`BackReader::finished`].
    #[inline(always)]
    pub(crate) fn peek(&self, n: u32) -> u64 {
        // Two shifts: `n` may be 0.
        ((self.container << (self.consumed & 63)) >> 1) >> (63 - n)
    }

    /// Consume `n` bits after [`BackReader::peek`].
    #[inline(always)]
    pub(crate) fn skip(&mut self, n: u32) {
        self.consumed += n;
    }

    /// Refill the container. Afterwards at least 56 bits are available
    /// unless the start of the stream was reached.
    #[inline(always)]
    pub(crate) fn reload(&mut self) {
        if self.consumed > 64 {
            return;
        }
        if self.pos >= 8 {
            self.pos -= (self.consumed >> 3) as usize;
            self.consumed &= 7;
            self.container = read_u64(self.src, self.pos);
        } else if self.pos > 0 {
            let bytes = ((self.consumed >> 3) as usize).min(self.pos);
            self.pos -= bytes;
            self.consumed -= 8 * bytes as u32;
            self.container = read_u64(self.src, self.pos);
        }
    }

    /// Whether the window is at the stream's start: the container holds
    /// every bit left, and [`BackReader::reload`] does nothing.
    #[inline(always)]
    pub(crate) fn at_start(&self) -> bool {
        self.pos == 0
    }

    /// Bits left in the container (0 once more than 64 were consumed).
    #[inline(always)]
    pub(crate) fn container_left(&self) -> u32 {
        64u32.saturating_sub(self.consumed)
    }

    /// Whether more bits were consumed than the stream holds.
    #[inline(always)]
    pub(crate) fn overflowed(&self) -> bool {
        self.consumed > 64
    }

    /// Whether every bit was consumed, exactly (the stream's end is valid).
    #[inline]
    pub(crate) fn finished(&self) -> bool {
        self.pos == 0 && self.consumed == 64
    }
}

/// 8 bytes at `pos`, little-endian.
#[inline(always)]
fn read_u64(src: &[u8], pos: usize) -> u64 {
    match src.get(pos..pos + 8) {
        Some(b) => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        // Unreachable by BackReader's invariant; zeros keep it panic-free.
        None => 0,
    }
}

/// A forward bit reader (least significant bit first) for FSE table
/// descriptions: reads past the end as zeros; the caller checks how far
/// it went with [`ForwardReader::bytes_used`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ForwardReader<'a> {
    src: &'a [u8],
    bit: usize,
}

impl<'a> ForwardReader<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Self {
        ForwardReader { src, bit: 0 }
    }

    /// The next `n <= 32` bits, not consumed.
    #[inline]
    pub(crate) fn peek(&self, n: u32) -> u32 {
        let byte = self.bit >> 3;
        if let Some(word) = self.src.get(byte..byte + 8) {
            // Away from the end: one load.
            let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            return ((v >> (self.bit & 7)) & ((1u64 << n) - 1)) as u32;
        }
        let mut v = 0u64;
        for i in 0..5 {
            v |= (*self.src.get(byte + i).unwrap_or(&0) as u64) << (8 * i);
        }
        ((v >> (self.bit & 7)) & ((1u64 << n) - 1)) as u32
    }

    #[inline]
    pub(crate) fn skip(&mut self, n: u32) {
        self.bit += n as usize;
    }

    /// Bytes the bits read so far occupy (rounded up).
    pub(crate) fn bytes_used(&self) -> usize {
        self.bit.div_ceil(8)
    }
}

/// Run `f` compiled with BMI2's shifts (`shlx`, `shrx`: the bit readers'
/// variable shifts need no `cl` register) and LZCNT (`highbit` in one
/// instruction) where the CPU has both.
#[inline(always)]
pub(crate) fn with_bit_ops<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has(crate::cpu::Isa::Bmi2) && crate::cpu::has(crate::cpu::Isa::Lzcnt) {
        // SAFETY: `bit_ops` requires BMI2 and LZCNT, just detected.
        return unsafe { bit_ops(f) };
    }
    f()
}

/// `f()` in a function compiled with BMI2 and LZCNT (where `f` is
/// inlined: give it `#[inline(always)]`, and its callees too).
///
/// # Safety
/// The CPU supports BMI2 and LZCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,lzcnt")]
unsafe fn bit_ops<R>(f: impl FnOnce() -> R) -> R {
    f()
}
