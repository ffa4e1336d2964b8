//! Hand-built zstd frames (RFC 8878), field by field: frame headers,
//! block headers, literals sections, sequences sections in RLE mode with
//! their backward bit streams, skippable frames and content checksums.
//!
//! The golden tests write each edge case of the format with these, one
//! commented field at a time; the fuzz seeds reuse them. Nothing here
//! checks what it writes: invalid frames are the point.

/// A frame's magic number, little-endian on disk (RFC 8878 §3.1.1).
pub const MAGIC: [u8; 4] = 0xFD2F_B528u32.to_le_bytes();

/// The header of a zstd frame (RFC 8878 §3.1.1.1), written by
/// [`FrameHeader::to_bytes`] with the smallest field sizes that hold the
/// values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameHeader {
    /// The Window_Descriptor byte (exponent in bits 7–3, mantissa in bits
    /// 2–0: window = 2^(10 + exponent) × (1 + mantissa / 8)); `None` makes
    /// a single-segment frame, whose window is its content size (which
    /// must then be given).
    pub window_descriptor: Option<u8>,
    /// Dictionary_ID (0: no field).
    pub dict_id: u32,
    /// Frame_Content_Size, if written.
    pub content_size: Option<u64>,
    /// Content_Checksum_Flag: 4 bytes of XXH64 after the last block.
    pub checksum: bool,
    /// Bits OR-ed into the Frame_Header_Descriptor as they are (bit 3 is
    /// reserved and must be 0; bit 4 is unused).
    pub extra_descriptor_bits: u8,
}

impl FrameHeader {
    /// A single-segment frame of `content_size` bytes, no checksum.
    pub fn single_segment(content_size: u64) -> Self {
        FrameHeader {
            content_size: Some(content_size),
            ..FrameHeader::default()
        }
    }

    /// A frame with a window of `2^log` bytes (Window_Descriptor with
    /// mantissa 0), no content size, no checksum.
    pub fn with_window_log(log: u32) -> Self {
        assert!(
            (10..=41).contains(&log),
            "window log {log} out of the descriptor's range"
        );
        FrameHeader {
            window_descriptor: Some(((log - 10) as u8) << 3),
            ..FrameHeader::default()
        }
    }

    pub fn checksum(mut self, on: bool) -> Self {
        self.checksum = on;
        self
    }

    pub fn dict_id(mut self, id: u32) -> Self {
        self.dict_id = id;
        self
    }

    pub fn content_size(mut self, size: Option<u64>) -> Self {
        self.content_size = size;
        self
    }

    /// Magic number and frame header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let single = self.window_descriptor.is_none();
        // Frame_Content_Size_Flag (bits 7–6) and the field: flag 0 has a
        // 1-byte field only in single-segment frames; flag 1 stores the
        // size minus 256 in 2 bytes; flags 2 and 3 store it in 4 and 8.
        let (fcs_flag, fcs): (u8, Vec<u8>) = match self.content_size {
            None => {
                assert!(!single, "a single-segment frame needs a content size");
                (0, vec![])
            }
            Some(n) if single && n < 256 => (0, vec![n as u8]),
            Some(n) if (256..256 + 65_536).contains(&n) => {
                (1, ((n - 256) as u16).to_le_bytes().to_vec())
            }
            Some(n) if n <= u64::from(u32::MAX) => (2, (n as u32).to_le_bytes().to_vec()),
            Some(n) => (3, n.to_le_bytes().to_vec()),
        };
        // Dictionary_ID_Flag (bits 1–0): 0, 1, 2 or 4 bytes.
        let (did_flag, did): (u8, Vec<u8>) = match self.dict_id {
            0 => (0, vec![]),
            id if id < 256 => (1, vec![id as u8]),
            id if id < 65_536 => (2, (id as u16).to_le_bytes().to_vec()),
            id => (3, id.to_le_bytes().to_vec()),
        };
        let descriptor = fcs_flag << 6
            | u8::from(single) << 5
            | u8::from(self.checksum) << 2
            | did_flag
            | self.extra_descriptor_bits;
        let mut v = MAGIC.to_vec();
        v.push(descriptor);
        v.extend(self.window_descriptor);
        v.extend(did);
        v.extend(fcs);
        v
    }
}

/// Block_Type (RFC 8878 §3.1.1.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockType {
    Raw = 0,
    Rle = 1,
    Compressed = 2,
    Reserved = 3,
}

/// A 3-byte block header: Last_Block (bit 0), Block_Type (bits 1–2),
/// Block_Size (bits 3–23; for RLE blocks the regenerated size).
pub fn block_header(last: bool, ty: BlockType, size: u32) -> [u8; 3] {
    assert!(size < 1 << 21, "Block_Size has 21 bits");
    let v = u32::from(last) | (ty as u32) << 1 | size << 3;
    [v as u8, (v >> 8) as u8, (v >> 16) as u8]
}

/// A Raw_Block holding `data`.
pub fn raw_block(last: bool, data: &[u8]) -> Vec<u8> {
    let mut v = block_header(last, BlockType::Raw, data.len() as u32).to_vec();
    v.extend_from_slice(data);
    v
}

/// An RLE_Block: `byte` repeated `n` times.
pub fn rle_block(last: bool, byte: u8, n: u32) -> Vec<u8> {
    let mut v = block_header(last, BlockType::Rle, n).to_vec();
    v.push(byte);
    v
}

/// A Compressed_Block with `content` (literals and sequences sections).
pub fn compressed_block(last: bool, content: &[u8]) -> Vec<u8> {
    let mut v = block_header(last, BlockType::Compressed, content.len() as u32).to_vec();
    v.extend_from_slice(content);
    v
}

/// A skippable frame (magic `0x184D2A50 + nibble`, a 4-byte size, the
/// payload), RFC 8878 §3.1.2.
pub fn skippable_frame(nibble: u8, payload: &[u8]) -> Vec<u8> {
    assert!(nibble < 16);
    let mut v = (0x184D_2A50u32 + u32::from(nibble)).to_le_bytes().to_vec();
    v.extend((payload.len() as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

/// The Content_Checksum of `data`: the low 4 bytes of XXH64 (seed 0),
/// little-endian.
pub fn content_checksum(data: &[u8]) -> [u8; 4] {
    (xxhash_rust::xxh64::xxh64(data, 0) as u32).to_le_bytes()
}

/// The header of a Raw_Literals_Block or RLE_Literals_Block (RFC 8878
/// §3.1.1.3.1.1) regenerating `n` bytes, in the smallest Size_Format.
fn literals_header_1(ty: u8, n: usize) -> Vec<u8> {
    match n {
        // Size_Format x0: 5 bits of size in byte 0.
        0..=31 => vec![ty | (n as u8) << 3],
        // Size_Format 01: 12 bits over 2 bytes.
        32..=4095 => vec![ty | 0b0100 | (n as u8 & 0xF) << 4, (n >> 4) as u8],
        // Size_Format 11: 20 bits over 3 bytes.
        _ => {
            assert!(n < 1 << 20);
            vec![
                ty | 0b1100 | (n as u8 & 0xF) << 4,
                (n >> 4) as u8,
                (n >> 12) as u8,
            ]
        }
    }
}

/// A literals section of type Raw_Literals_Block holding `data`.
pub fn raw_literals(data: &[u8]) -> Vec<u8> {
    let mut v = literals_header_1(0, data.len());
    v.extend_from_slice(data);
    v
}

/// A literals section of type RLE_Literals_Block: `byte` × `n`.
pub fn rle_literals(byte: u8, n: usize) -> Vec<u8> {
    let mut v = literals_header_1(1, n);
    v.push(byte);
    v
}

/// The header of a single-stream Compressed_Literals_Block (Size_Format
/// 00: Regenerated_Size and Compressed_Size in 10 bits each), RFC 8878
/// §3.1.1.3.1.1. `compressed` counts the Huffman tree description too.
pub fn huffman_1_stream_literals_header(regenerated: usize, compressed: usize) -> [u8; 3] {
    assert!(regenerated < 1024 && compressed < 1024);
    let v = 2 | (regenerated as u32) << 4 | (compressed as u32) << 14;
    [v as u8, (v >> 8) as u8, (v >> 16) as u8]
}

/// A backward bit stream (RFC 8878 §4.1, as the FSE, Huffman and sequence
/// streams are read): `fields` are `(bit count, value)` in the order the
/// decoder reads them. The writer puts the last-read field in the lowest
/// bits, then the 1-bit end marker that the decoder finds first in the
/// last byte.
pub fn backward_bitstream(fields: &[(u32, u64)]) -> Vec<u8> {
    let mut bits: Vec<bool> = Vec::new(); // bit i of the stream, from the lowest
    for &(n, value) in fields.iter().rev() {
        assert!(
            n <= 64 && (n == 64 || value < 1 << n),
            "{value} does not fit {n} bits"
        );
        for i in 0..n {
            bits.push(value >> i & 1 == 1);
        }
    }
    bits.push(true); // the end marker
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 8] |= u8::from(b) << (i % 8);
    }
    out
}

/// Extra bits of each Literals_Length code 0..=35 (RFC 8878 §3.1.1.3.2.1.1).
pub const LL_EXTRA_BITS: [u32; 36] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16,
];

/// Extra bits of each Match_Length code 0..=52.
pub const ML_EXTRA_BITS: [u32; 53] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];

/// One sequence's extra bits in RLE mode: the three codes are fixed for
/// the whole section, so a sequence is its extra-bit values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqExtra {
    /// Offset extra bits (Offset_Value = 2^Offset_Code + this).
    pub offset: u64,
    /// Match_Length extra bits (added to the code's baseline).
    pub match_length: u64,
    /// Literals_Length extra bits (added to the code's baseline).
    pub literals_length: u64,
}

/// A sequences section (RFC 8878 §3.1.1.3.2) whose three symbol types are
/// all in RLE_Mode (`ll`, `of` and `ml` are the codes every sequence
/// uses), so that the bit stream holds only extra bits: for each
/// sequence, in reading order, the offset's, the match length's and the
/// literals length's (the states have 0 bits in RLE mode).
///
/// The Number_of_Sequences uses the smallest encoding.
pub fn rle_sequences(ll: u8, of: u8, ml: u8, seqs: &[SeqExtra]) -> Vec<u8> {
    let n = seqs.len();
    let mut v = number_of_sequences(n);
    // Symbol_Compression_Modes: LL (bits 7–6), OF (5–4), ML (3–2) all
    // RLE_Mode (1); bits 1–0 reserved, 0.
    v.push(0b01_01_01_00);
    // The RLE symbols, in the order LL, OF, ML.
    v.extend([ll, of, ml]);
    let of_bits = u32::from(of);
    let ll_bits = LL_EXTRA_BITS.get(usize::from(ll)).copied().unwrap_or(0);
    let ml_bits = ML_EXTRA_BITS.get(usize::from(ml)).copied().unwrap_or(0);
    let mut fields = Vec::new();
    for s in seqs {
        fields.push((of_bits, s.offset));
        fields.push((ml_bits, s.match_length));
        fields.push((ll_bits, s.literals_length));
    }
    v.extend(backward_bitstream(&fields));
    v
}

/// Number_of_Sequences in its shortest form (1 byte below 128, 2 bytes
/// below 0x7F00, else 3).
pub fn number_of_sequences(n: usize) -> Vec<u8> {
    match n {
        0..=127 => vec![n as u8],
        128..=0x7EFF => vec![(n >> 8) as u8 + 0x80, n as u8],
        _ => {
            let m = n - 0x7F00;
            assert!(m < 65_536);
            vec![0xFF, m as u8, (m >> 8) as u8]
        }
    }
}

/// A whole frame: `header`, then `blocks` (each already with its header),
/// then the checksum of `content` if the header asks for one.
pub fn frame(header: &FrameHeader, blocks: &[Vec<u8>], content: &[u8]) -> Vec<u8> {
    let mut v = header.to_bytes();
    for b in blocks {
        v.extend_from_slice(b);
    }
    if header.checksum {
        v.extend(content_checksum(content));
    }
    v
}
