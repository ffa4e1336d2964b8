//! The block target's case: a block, a dictionary and an output capacity
//! read from the fuzz input, decoded by every block decoder (every variant
//! this CPU runs, forced, through its dictionary loop when there is a
//! dictionary) and by C, which must agree exactly (see [`crate::known`]
//! for the two stated exceptions).
//!
//! Input layout ([`BlockCase::parse`], written by [`BlockCase::encode`]):
//!
//! | bytes | field |
//! |-------|-------|
//! | 0     | flags: bits 0-1 capacity mode, bits 2-4 dictionary mode, all 8 the stale fill |
//! | 1     | decoder group, for large outputs (see below) |
//! | 2-5   | capacity field (u32) |
//! | 6-8   | dictionary field (u24) |
//! | 9..   | payload: the block, or the dictionary then the block |
//!
//! Every decoder runs every case whose capacity is at most [`ALL_DECODERS_CAP`];
//! above it (large blocks, where one decode under the sanitizer costs
//! milliseconds) only one group of decoders does, the one the group byte
//! selects ([`GROUPS`] groups, every decoder in one of them), with C: so
//! large inputs run several times faster, and libFuzzer still sends them
//! through every variant as it mutates the group byte.
//!
//! Capacity modes ([`CapMode`]), always at most what the block could
//! possibly decode to plus a margin ([`cap_limit`]): near the size C
//! decodes the block to (the low byte of the field is a signed offset:
//! every end-of-buffer condition is a few bytes either side), the field
//! itself, the field modulo a few times the input size, or tiny.
//!
//! Dictionary modes ([`DictMode`]): none; the fixed 70 KB dictionary whole,
//! its last 64 KiB, or its last `field` bytes; or a dictionary taken from
//! the input: the payload's first `field` bytes (so libFuzzer mutates the
//! dictionary and the block together, and matches reach into it).

use crate::ctl::{Ctl, CtlWriter};
use crate::known::is_offset_zero;
use crate::{BlockDecoder, block_decoders, dictionary};
use lzkit::Error;
use lzkit_testkit::c_ref;
use std::cell::RefCell;

/// The largest output capacity a case uses.
pub const MAX_CAP: usize = 8 << 20;

/// Bytes of control fields before the payload.
pub const HEADER_LEN: usize = 9;

/// Capacities up to this run every decoder; larger ones one group.
pub const ALL_DECODERS_CAP: usize = 64 << 10;

/// Decoder groups for large capacities: decoder `i` of [`block_decoders`]
/// is in group `i % GROUPS`.
pub const GROUPS: usize = 8;

/// How the output capacity is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapMode {
    /// The size C decodes the block to with room to spare, plus the field's
    /// low byte as a signed offset (the field itself if C rejects the block).
    NearDecoded,
    /// The field.
    Field,
    /// The field modulo 8 times the block's size, plus 32.
    AroundInput,
    /// The field modulo 64.
    Tiny,
}

/// Where the dictionary comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictMode {
    /// No dictionary.
    None,
    /// The fixed dictionary's last 64 KiB (all a match can reach).
    FixedWindow,
    /// The fixed dictionary's last `field % 70_001` bytes.
    FixedTail,
    /// The payload's first `field % (payload length + 1)` bytes.
    InInput,
    /// The whole fixed dictionary (70,000 bytes, more than the window).
    FixedWhole,
    /// The fixed dictionary's last `field % 64 + 1` bytes: matches just
    /// past a tiny dictionary.
    FixedTiny,
}

impl CapMode {
    fn from_bits(b: u8) -> Self {
        [
            CapMode::NearDecoded,
            CapMode::Field,
            CapMode::AroundInput,
            CapMode::Tiny,
        ][(b & 3) as usize]
    }

    fn bits(self) -> u8 {
        self as u8
    }
}

impl DictMode {
    const TABLE: [DictMode; 8] = [
        DictMode::None,
        DictMode::None,
        DictMode::FixedWindow,
        DictMode::FixedTail,
        DictMode::InInput,
        DictMode::InInput,
        DictMode::FixedWhole,
        DictMode::FixedTiny,
    ];

    fn from_bits(b: u8) -> Self {
        Self::TABLE[(b & 7) as usize]
    }

    fn bits(self) -> u8 {
        Self::TABLE.iter().position(|&m| m == self).unwrap_or(0) as u8
    }
}

/// One case of the block target, read from a fuzz input.
pub struct BlockCase {
    /// The block (its own allocation, so that reads past either end are
    /// out of bounds for AddressSanitizer).
    pub src: Vec<u8>,
    /// The dictionary, empty for none (its own allocation too).
    pub dict: Vec<u8>,
    /// The output capacity.
    pub cap: usize,
    /// The byte the output buffers are prefilled with (and its complement).
    pub fill: u8,
    /// The decoder group (of [`GROUPS`]) run for a capacity above
    /// [`ALL_DECODERS_CAP`].
    pub group: usize,
}

/// The largest capacity that can make a difference for `src`: a block
/// decodes to at most 255 bytes per input byte (its length bytes), and
/// every end-of-buffer condition is within a few dozen bytes of the end.
pub fn cap_limit(src_len: usize) -> usize {
    src_len.saturating_mul(255).saturating_add(128).min(MAX_CAP)
}

thread_local! {
    /// C's roomy output buffer for [`CapMode::NearDecoded`], reused.
    static ROOMY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// What C decodes `src` (with `dict`) to, in a buffer of capacity `cap`.
fn c_decode_len(src: &[u8], dict: &[u8], cap: usize) -> Option<usize> {
    ROOMY.with(|b| {
        let mut b = b.borrow_mut();
        if b.len() < cap {
            b.resize(cap, 0);
        }
        let out = &mut b[..cap];
        if dict.is_empty() {
            c_ref::decompress_into(src, out)
        } else {
            c_ref::decompress_with_dict_into(src, out, dict)
        }
    })
}

impl BlockCase {
    /// Read a case from a fuzz input (any input is one).
    pub fn parse(data: &[u8]) -> BlockCase {
        let mut c = Ctl::new(data);
        let flags = c.u8();
        let group = c.u8() as usize % GROUPS;
        let cap_field = c.u32();
        let dict_field = c.u24() as usize;
        let payload = c.rest();
        let fixed = dictionary();
        let tail = |n: usize| fixed[fixed.len() - n.min(fixed.len())..].to_vec();
        let (dict, src) = match DictMode::from_bits(flags >> 2) {
            DictMode::None => (Vec::new(), payload),
            DictMode::FixedWindow => (tail(1 << 16), payload),
            DictMode::FixedTail => (tail(dict_field % 70_001), payload),
            DictMode::InInput => {
                let split = dict_field % (payload.len() + 1);
                (payload[..split].to_vec(), &payload[split..])
            }
            DictMode::FixedWhole => (tail(fixed.len()), payload),
            DictMode::FixedTiny => (tail(dict_field % 64 + 1), payload),
        };
        let limit = cap_limit(src.len());
        let field = cap_field as usize;
        let cap = match CapMode::from_bits(flags) {
            CapMode::NearDecoded => match c_decode_len(src, &dict, limit) {
                Some(n) => n.saturating_add_signed(isize::from(cap_field as u8 as i8)),
                None => field,
            },
            CapMode::Field => field,
            CapMode::AroundInput => field % (src.len() * 8 + 32),
            CapMode::Tiny => field % 64,
        }
        .min(limit);
        BlockCase {
            src: src.to_vec(),
            dict,
            cap,
            fill: flags ^ 0x5A,
            group,
        }
    }

    /// A fuzz input for `block` (with `dict` placed as `mode` says: for
    /// [`DictMode::InInput`] `dict` is written into the input; for the
    /// fixed modes it must be the matching tail of the fixed dictionary)
    /// decoded with capacity chosen by `cap_mode` from `cap_field`, by
    /// decoder group `group` if the capacity is large.
    pub fn encode(
        block: &[u8],
        dict_mode: DictMode,
        dict: &[u8],
        cap_mode: CapMode,
        cap_field: u32,
        group: u8,
    ) -> Vec<u8> {
        let dict_field = match dict_mode {
            DictMode::InInput | DictMode::FixedTail => dict.len() as u32,
            DictMode::FixedTiny => dict.len().saturating_sub(1) as u32,
            _ => 0,
        };
        let mut w = CtlWriter::default();
        w.u8(cap_mode.bits() | dict_mode.bits() << 2)
            .u8(group)
            .u32(cap_field)
            .u24(dict_field);
        if dict_mode == DictMode::InInput {
            w.bytes(dict);
        }
        w.bytes(block);
        w.out
    }

    /// Decode with C and every block decoder and check that they agree.
    pub fn check(&self) {
        let BlockCase {
            src,
            dict,
            cap,
            fill,
            group,
        } = self;
        let (src, dict, cap, fill) = (&src[..], &dict[..], *cap, *fill);
        let all = cap <= ALL_DECODERS_CAP;
        let reference = c_ref::decompress(src, cap, dict, fill);
        // The outcome of the first decoder: the decoded length, or the error.
        let mut first: Option<(&str, Result<usize, String>)> = None;
        for (i, row) in block_decoders().iter().enumerate() {
            if (!dict.is_empty() && !row.dict) || (!all && i % GROUPS != *group) {
                continue;
            }
            // Every other decoder sees the complementary stale bytes: all
            // must give C's bytes, so none may depend on them.
            let garbage = if i % 2 == 0 { fill } else { !fill };
            let mut dst = vec![garbage; cap];
            let r = row.decode(src, &mut dst, dict);
            check_one(row, src, dict, cap, &reference, &r, &dst);
            let outcome = r.map_err(|e| e.to_string());
            match &first {
                None => first = Some((&row.name, outcome)),
                Some((name, o)) => assert_eq!(
                    o,
                    &outcome,
                    "decoders {name} and {} disagree (block {} bytes, dictionary {} bytes, capacity {cap})",
                    row.name,
                    src.len(),
                    dict.len(),
                ),
            }
        }
    }
}

/// Check one decoder's result against C's.
fn check_one(
    row: &BlockDecoder,
    src: &[u8],
    dict: &[u8],
    cap: usize,
    reference: &Option<Vec<u8>>,
    r: &lzkit::Result<usize>,
    dst: &[u8],
) {
    let what = || {
        format!(
            "{} (block {} bytes, dictionary {} bytes, capacity {cap})",
            row.name,
            src.len(),
            dict.len()
        )
    };
    match (reference, r) {
        (None, Ok(n)) => panic!("{}: C rejects the block, we accept it ({n} bytes)", what()),
        (Some(c), Ok(n)) => {
            assert_eq!(*n, c.len(), "{}: decoded length differs from C", what());
            if dst[..*n] != c[..] {
                let at = dst.iter().zip(c).position(|(a, b)| a != b).unwrap_or(0);
                panic!("{}: decoded bytes differ from C's at {at}", what());
            }
        }
        (_, Err(Error::CorruptBlock { at, .. })) => {
            assert!(
                *at <= src.len(),
                "{}: error position {at} past the block",
                what()
            );
            if let (Some(c), Err(e)) = (reference, r) {
                if is_offset_zero(e) {
                    // lzkit rejects offset 0 by design; C accepts it.
                } else {
                    panic!(
                        "{}: C accepts the block ({} bytes), we reject it: {e}",
                        what(),
                        c.len()
                    );
                }
            }
        }
        (_, Err(e)) => panic!("{}: unexpected error kind {e:?}", what()),
    }
}
