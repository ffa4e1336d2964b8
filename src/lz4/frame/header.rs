//! Frame descriptor: FLG, BD, optional fields and the header checksum.

/// Maximum uncompressed size of a block (frame spec: BD byte bits 6-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockSize {
    /// 64 KiB (`-B4`).
    Max64KB = 4,
    /// 256 KiB (`-B5`).
    Max256KB = 5,
    /// 1 MiB (`-B6`).
    Max1MB = 6,
    /// 4 MiB (`-B7`).
    Max4MB = 7,
}

impl BlockSize {
    /// Size in bytes.
    pub const fn bytes(self) -> usize {
        1 << (8 + 2 * self as usize)
    }

    /// From the BD byte's block-size code (4..=7).
    pub const fn from_code(code: u8) -> Option<BlockSize> {
        match code {
            4 => Some(BlockSize::Max64KB),
            5 => Some(BlockSize::Max256KB),
            6 => Some(BlockSize::Max1MB),
            7 => Some(BlockSize::Max4MB),
            _ => None,
        }
    }
}

/// Whether blocks depend on the data of earlier blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockMode {
    /// Each block may use the previous 64 KiB of decoded data (`-BD`): better
    /// ratio with small blocks, serial decoding only.
    Linked,
    /// Each block stands alone (`-BI`, the CLI default).
    Independent,
}
