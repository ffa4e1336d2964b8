//! Reading a fuzz input's control fields: fixed-size little-endian
//! integers taken from the front of the input. Past the end of the input
//! every field reads as zero, so any input is a valid case and the fields
//! keep their meaning while libFuzzer mutates lengths.

/// A cursor over the control bytes at the front of a fuzz input.
pub struct Ctl<'a> {
    rest: &'a [u8],
}

impl<'a> Ctl<'a> {
    /// Read fields from the front of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Ctl { rest: data }
    }

    /// The next `N` bytes (zero past the end of the input).
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0u8; N];
        let n = N.min(self.rest.len());
        b[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        b
    }

    /// One byte.
    pub fn u8(&mut self) -> u8 {
        self.bytes::<1>()[0]
    }

    /// A little-endian 16-bit field.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.bytes())
    }

    /// A little-endian 24-bit field.
    pub fn u24(&mut self) -> u32 {
        let [a, b, c] = self.bytes();
        u32::from_le_bytes([a, b, c, 0])
    }

    /// A little-endian 32-bit field.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.bytes())
    }

    /// What follows the fields read so far.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }
}

/// Writing the fields [`Ctl`] reads, for seed inputs.
#[derive(Default)]
pub struct CtlWriter {
    /// The bytes written so far.
    pub out: Vec<u8>,
}

impl CtlWriter {
    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.out.push(v);
        self
    }

    /// A 16-bit field.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A 24-bit field (the low 24 bits of `v`).
    pub fn u24(&mut self, v: u32) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes()[..3]);
        self
    }

    /// A 32-bit field.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Raw bytes.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.out.extend_from_slice(v);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_read_zero_past_the_end() {
        let mut w = CtlWriter::default();
        w.u8(7)
            .u16(0x1234)
            .u24(0xAB_CDEF)
            .u32(0xDEAD_BEEF)
            .bytes(b"xy");
        let mut c = Ctl::new(&w.out);
        assert_eq!(c.u8(), 7);
        assert_eq!(c.u16(), 0x1234);
        assert_eq!(c.u24(), 0xAB_CDEF);
        assert_eq!(c.u32(), 0xDEAD_BEEF);
        assert_eq!(c.rest(), b"xy");
        assert_eq!(c.u32(), u32::from_le_bytes(*b"xy\0\0"));
        assert_eq!(c.u8(), 0);
        assert!(c.rest().is_empty());
    }
}
