//! [`Decoder`]: one-shot decoding of whole frames with reusable state and
//! an adaptive choice of the sequence loop.

use super::DecodeOptions;
use super::block::{self, BlockError, Entropy};
use super::dict::Dictionary;
use super::exec::{ExecFn, Out};
use super::frame::{self, Header, Start};
use super::frame_state::{BlockRunner, FrameState, Hashing};
use super::variant::Variant;
use crate::adaptive::Policy;
use crate::error::{Error, Result};
use crate::mem;

/// What a [`Decoder`] has learned about one variant (tuning diagnostics,
/// not a stable API): the chooser's report, per variant.
pub type VariantStats = crate::adaptive::ArmReport<Variant>;

/// A reusable zstd decoder: keeps its literal buffer, its tables, its
/// dictionaries and what its chooser learned between frames. Use one per
/// stream (a column, a file): it learns which [`Variant`] of the sequence
/// loop is fastest for that stream's data on this CPU.
///
/// ```
/// use lzkit::zstd::{Decoder, Variant};
/// # let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65,
/// #     0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x31, 0x4a, 0x11, 0xa3, 0xaa, 0x74, 0xce];
/// let mut d = Decoder::new();
/// let mut out = vec![0u8; 1 << 10];
/// let n = d.decompress_into(&frame, &mut out)?;
/// assert_eq!(&out[..n], b"hello hello hello\n");
///
/// // A fixed variant (tests, benchmarks).
/// let mut p = Decoder::with_variant(Variant::from_name("portable16").unwrap())?;
/// assert_eq!(p.decompress(&frame)?, b"hello hello hello\n");
/// # Ok::<(), lzkit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    opts: DecodeOptions,
    dicts: Vec<Dictionary>,
    ent: Entropy,
    lits: Vec<u8>,
    policy: Policy<Variant, ExecFn>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

/// Where one-shot output goes: a caller's slice, or a growing vector.
trait Sink {
    /// The whole output buffer, with room for `need` bytes at `pos` if the
    /// sink can grow (a slice cannot: the caller checks its length).
    fn room(&mut self, pos: usize, need: usize) -> Result<&mut [u8]>;
}

impl Sink for &mut [u8] {
    fn room(&mut self, _pos: usize, _need: usize) -> Result<&mut [u8]> {
        Ok(self)
    }
}

/// Bytes a growing output keeps past a block's room, so that the sequence
/// loop's wild copies fit to the end of the block.
const SLACK: usize = 64;

impl Sink for Vec<u8> {
    fn room(&mut self, pos: usize, need: usize) -> Result<&mut [u8]> {
        mem::grow_zeroed(self, pos + need + SLACK)?;
        Ok(self)
    }
}

/// The output the frames of `src` state (their content sizes), each as
/// far as its blocks can produce it: a raw or RLE block its stated size, a
/// compressed block the frame's block maximum. Frames are read up to the
/// first that states no size or does not parse (the output grows past
/// that as it decodes).
fn declared_output(src: &[u8]) -> usize {
    let mut total = 0u64;
    let mut p = 0usize;
    while p < src.len() {
        match frame::parse(&src[p..], p as u64) {
            Ok(Start::Skippable(len)) => {
                match usize::try_from(len).ok().and_then(|len| p.checked_add(len)) {
                    Some(end) => p = end,
                    None => break,
                }
            }
            Ok(Start::Frame(h)) => {
                let Some(size) = h.content_size else { break };
                let (most, end) = blocks_output(&src[p..], &h);
                total = total.saturating_add(size.min(most));
                match end {
                    Some(end) => p += end,
                    None => break,
                }
            }
            Err(_) => break,
        }
    }
    usize::try_from(total).unwrap_or(usize::MAX)
}

/// The most the blocks of the frame at the start of `src` (header `h`) can
/// decode to, read from their headers alone; and the frame's length if it
/// is whole.
fn blocks_output(src: &[u8], h: &Header) -> (u64, Option<usize>) {
    let block_max = h.block_max();
    let mut most = 0u64;
    let mut p = h.len;
    while let Some(b) = src.get(p..p + 3) {
        let Ok(bh) = frame::block_header([b[0], b[1], b[2]], p as u64, block_max) else {
            break;
        };
        let produces = if bh.kind == 2 { block_max } else { bh.size };
        most = most.saturating_add(produces as u64);
        p += 3 + bh.input_len();
        if bh.last {
            let end = p + if h.checksum { 4 } else { 0 };
            return (most, (end <= src.len()).then_some(end));
        }
    }
    (most, None)
}

/// Output an adaptive decoder decodes with its prior,
/// [`Variant::default_for_cpu`], untimed, before it explores. zstd's
/// variants differ only in their copies, mostly a few percent apart,
/// while exploring costs more than on LZ4 (a switched-to variant's first
/// blocks run slow): on the development corpus's 64 KiB-1 MiB files
/// (1 MiB frames, 3-10 MiB decoded per file) exploring after LZ4's 2 MiB
/// left the adaptive decoder 2-3.5% behind the 32-byte variant on the
/// geometric mean, up to 19% on a file, and ahead on none.
///
/// The prior is the CPU's default, not the variant other decoders of the
/// process settled on (LZ4's process prior): trusted this long, a leader
/// that suits other streams can cost a stream dearly (the 64-byte variant,
/// the leader of a benchmark run over the corpus, decoded
/// `weather.hour.Int32` at level 19 at 0.65 times the 32-byte variant's
/// speed).
const PRIOR_TRUST_BYTES: usize = 32 << 20;

impl Decoder {
    /// An adaptive decoder over [`Variant::candidates`], starting on the
    /// default for this CPU, which it trusts for the first 32 MiB of
    /// output before it explores.
    pub fn new() -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let seed = now.as_nanos() as u64 ^ ((std::process::id() as u64) << 32);
        let arms: Vec<(Variant, ExecFn)> = Variant::candidates()
            .iter()
            .filter_map(|&v| Some((v, v.entry()?)))
            .collect();
        let initial = arms
            .iter()
            .position(|a| a.0 == Variant::default_for_cpu())
            .unwrap_or(0);
        let policy = Policy::adaptive(arms, initial, seed, None)
            .with_prior_trust(PRIOR_TRUST_BYTES)
            .with_prior(Some(Variant::default_for_cpu()));
        Decoder::with_policy(policy)
    }

    /// A decoder that always uses `variant`. Fails if this CPU cannot run it.
    pub fn with_variant(variant: Variant) -> Result<Self> {
        let entry = variant.entry().ok_or(Error::VariantUnavailable {
            variant: variant.name(),
        })?;
        Ok(Decoder::with_policy(Policy::fixed(variant, entry)))
    }

    /// A fixed decoder on [`Variant::default_for_cpu`] (available by
    /// construction), for a one-off decode with no learning.
    pub(crate) fn for_cpu() -> Self {
        match Variant::default_for_cpu().entry() {
            Some(entry) => Decoder::with_policy(Policy::fixed(Variant::default_for_cpu(), entry)),
            None => Decoder::new(),
        }
    }

    fn with_policy(policy: Policy<Variant, ExecFn>) -> Self {
        Decoder {
            opts: DecodeOptions::new(),
            dicts: Vec::new(),
            ent: Entropy::default(),
            lits: Vec::new(),
            policy,
        }
    }

    /// An adaptive decoder with `opts`.
    pub fn with_options(opts: DecodeOptions) -> Self {
        Decoder::new().options(opts)
    }

    /// This decoder with `opts`.
    pub fn options(mut self, opts: DecodeOptions) -> Self {
        self.opts = opts;
        self
    }

    /// This decoder with `dict` too: frames whose header names its ID use
    /// it; frames without a dictionary ID use the first dictionary given.
    pub fn with_dictionary(mut self, dict: Dictionary) -> Self {
        self.dicts.push(dict);
        self
    }

    /// The options in use.
    pub fn decode_options(&self) -> DecodeOptions {
        self.opts
    }

    /// The variant that decoded the last compressed block.
    pub fn last_variant(&self) -> Variant {
        self.policy.last()
    }

    /// What the decoder has observed, per variant (tuning diagnostics).
    #[doc(hidden)]
    pub fn stats(&self) -> Vec<VariantStats> {
        self.policy.stats()
    }

    /// Decode every frame of `src` into `dst`; returns the bytes written.
    ///
    /// # Errors
    /// As [`super::decompress_into`].
    pub fn decompress_into(&mut self, src: &[u8], mut dst: &mut [u8]) -> Result<usize> {
        self.decode_all(src, &mut dst)
    }

    /// Decode every frame of `src` into a new vector.
    ///
    /// # Errors
    /// As [`super::decompress`].
    pub fn decompress(&mut self, src: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        // Reserved up front: what the frames say they hold, as far as
        // their blocks can produce it ([`declared_output`]), and only as a
        // hint: where the system cannot give that much, the output grows
        // (geometrically) with what the blocks produce, so a header's
        // claim never becomes an out-of-memory error (the frame's own
        // verdict, such as a content-size mismatch, is reported).
        let want = declared_output(src);
        if want > 0 {
            let _ = out.try_reserve_exact(want.saturating_add(SLACK));
        }
        let n = self.decode_all(src, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    fn decode_all<S: Sink>(&mut self, src: &[u8], sink: &mut S) -> Result<usize> {
        let mut p = 0usize;
        let mut pos = 0usize;
        let mut index = 0u64;
        while p < src.len() {
            let at = p as u64;
            let wrap = |e: Error| Error::Frame {
                index,
                at,
                source: Box::new(e),
            };
            match frame::parse(&src[p..], at).map_err(wrap)? {
                Start::Skippable(len) => {
                    let end = p as u64 + len;
                    if end > src.len() as u64 {
                        return Err(wrap(Error::Truncated {
                            at: src.len() as u64,
                            what: "skippable frame",
                        }));
                    }
                    p = end as usize;
                }
                Start::Frame(h) => {
                    let (used, end) = self
                        .decode_frame(&src[p..], at, &h, sink, pos)
                        .map_err(wrap)?;
                    p += used;
                    pos = end;
                }
            }
            index += 1;
        }
        Ok(pos)
    }

    /// Decode the frame at the start of `src` (header `h`) into the sink at
    /// `pos`; returns (input bytes used, output end).
    fn decode_frame<S: Sink>(
        &mut self,
        src: &[u8],
        at: u64,
        h: &Header,
        sink: &mut S,
        pos: usize,
    ) -> Result<(usize, usize)> {
        let mut st = FrameState::start(self, *h, Hashing::AtEnd)?;
        let block_max = st.block_max();
        let start = pos;
        let mut op = pos;
        let mut p = h.len;
        loop {
            let block_at = at + p as u64;
            let hb = src.get(p..p + 3).ok_or(Error::Truncated {
                at: at + src.len() as u64,
                what: "block header",
            })?;
            let bh = st.block_header(hb, block_at)?;
            p += 3;
            let data = src.get(p..p + bh.input_len()).ok_or(Error::Truncated {
                at: at + src.len() as u64,
                what: "block",
            })?;
            let room = if bh.kind == 2 { block_max } else { bh.size };
            let buf = sink.room(op, room)?;
            op = st.decode_block(self, &bh, data, block_at, buf, start, op)?;
            p += bh.input_len();
            if bh.last {
                break;
            }
        }
        st.check_size()?;
        if h.checksum {
            let c = src.get(p..p + 4).ok_or(Error::Truncated {
                at: at + src.len() as u64,
                what: "content checksum",
            })?;
            st.check_checksum([c[0], c[1], c[2], c[3]], at + p as u64, || {
                Ok(&sink.room(op, 0)?[start..op])
            })?;
            p += 4;
        }
        Ok((p, op))
    }
}

impl BlockRunner for Decoder {
    fn dictionary(&self, id: u32) -> Result<Option<Dictionary>> {
        if id == 0 {
            return Ok(self.dicts.first().cloned());
        }
        match self.dicts.iter().find(|d| d.id() == id) {
            Some(d) => Ok(Some(d.clone())),
            None => Err(Error::DictionaryRequired { dict_id: id }),
        }
    }

    fn start_frame(&mut self, dict: Option<&Dictionary>) {
        match dict.and_then(|d| d.entropy()) {
            Some(e) => self.ent.set_from(e),
            None => self.ent.reset(),
        }
    }

    /// Decode one compressed block with the variant the policy chooses.
    fn run_block(
        &mut self,
        src: &[u8],
        out: &mut Out<'_>,
        block_max: usize,
    ) -> std::result::Result<(), BlockError> {
        let before = out.pos;
        if let Some(entry) = self.policy.untimed() {
            let r =
                block::decode_compressed(&mut self.ent, &mut self.lits, src, out, block_max, entry);
            if r.is_ok() {
                self.policy.untimed_done(out.pos - before);
            }
            return r;
        }
        let mut pull = self.policy.begin();
        let ent = &mut self.ent;
        let lits = &mut self.lits;
        let r = pull.run(|entry| block::decode_compressed(ent, lits, src, out, block_max, entry));
        let produced = r.as_ref().ok().map(|_| out.pos - before);
        self.policy.finish(&pull, produced);
        r
    }

    fn verifies_checksums(&self) -> bool {
        self.opts.verifies_checksums()
    }
}
