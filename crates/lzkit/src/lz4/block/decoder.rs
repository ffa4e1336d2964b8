//! [`Decoder`]: a block decoder that chooses its variant at run time, an
//! LZ4 [`Policy`] over the decode variants.

use super::decompress::Decoded;
use super::guess::{data_prior, same_family};
use super::variant::{DecodeFn, DictDecodeFn, Shape, Variant};
use crate::adaptive::{Policy, Votes};
use crate::error::{Error, Result};

pub use crate::adaptive::{MIN_TIMED_BYTES, PRIOR_TRUST_BYTES};

/// What a [`Decoder`] has learned about one variant (tuning diagnostics,
/// not a stable API).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariantStats {
    /// The variant.
    pub variant: Variant,
    /// Blocks it decoded.
    pub blocks: u64,
    /// Timed blocks counted (the first is discarded as cold).
    pub timed: u32,
    /// Mean decode time per output byte, in clock ticks (the time-stamp
    /// counter on x86-64, nanoseconds elsewhere); 0 if never timed. Only
    /// comparable between variants of the same decoder.
    pub cost_per_byte: f64,
}

/// The LZ4 block decoders' votes for the process prior, by index in
/// [`Variant::candidates`]: each adaptive decoder votes once, for its
/// settled variant, when it first converges.
static VOTES: Votes = Votes::new();

/// An LZ4 block decoder with state: one per stream (as ClickHouse keeps one
/// per column reader), so it learns which decode variant is fastest for that
/// stream's data on this CPU.
///
/// Every variant decodes exactly the same bytes and accepts exactly the same
/// blocks; they differ only in speed.
///
/// ```
/// use lzkit::lz4::block::{self, Decoder, Kernel, Variant};
///
/// // One decoder per stream (a column, a file): it learns as it goes.
/// let column: Vec<u8> = (0u32..50_000).flat_map(|i| (i / 100).to_le_bytes()).collect();
/// let blocks: Vec<Vec<u8>> = column.chunks(64 << 10).map(|c| block::compress(c, 1)).collect();
/// let mut decoder = Decoder::new();
/// let mut out = vec![0u8; 64 << 10];
/// let mut back = Vec::new();
/// for b in &blocks {
///     let n = decoder.decompress_into(b, &mut out)?;
///     back.extend_from_slice(&out[..n]);
/// }
/// assert_eq!(back, column);
///
/// // A fixed variant (tests, benchmarks); one this CPU cannot run is an error.
/// let mut portable = Decoder::with_variant(Variant::plain(Kernel::Portable16))?;
/// assert_eq!(portable.decompress_into(&blocks[0], &mut out)?, 64 << 10);
/// # Ok::<(), lzkit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    /// The chooser; `None` during a new decoder's opening (see
    /// [`Decoder::new`]), which decodes with the CPU's default variant.
    policy: Option<Policy<Variant, DecodeFn>>,
    /// The policy for blocks with an external dictionary (a separate
    /// instantiation of the loop), made from `policy` on the first such
    /// block (boxed: most decoders never see a dictionary).
    dict_policy: Option<Box<Policy<Variant, DictDecodeFn>>>,
    /// Whether the first block still has to set the prior (see
    /// [`Decoder::with_data_prior`]).
    data_prior: bool,
    /// Output decoded during the opening.
    opening: usize,
}

/// A new decoder's opening: the output it decodes as the free function
/// does, each block with the variant a sample of it suggests, before it
/// sets up its chooser (a few allocations and a clock read, which a short
/// stream, or a file read once, should not pay: on a 26 KiB column they
/// cost a third of the decode time).
const OPENING_BYTES: usize = 256 << 10;

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// An adaptive decoder over every variant this CPU can run.
    ///
    /// It costs nothing to make and nothing to keep while a stream is
    /// short: its first 256 KiB of output are decoded as the free function
    /// [`super::decompress_into`] decodes, each block with the variant a
    /// sample of its first sequences suggests ([`super::free_variant`]).
    /// The next block sets up the chooser, which starts on the variant
    /// that a larger sample of that block suggests (see
    /// [`Decoder::with_data_prior`]), trusts it for 2 MiB, then explores.
    /// It never starts from what other streams (other decoders of this
    /// process) learned, so unrelated streams decoded in turn cannot
    /// mislead each other.
    pub fn new() -> Self {
        Decoder {
            policy: None,
            dict_policy: None,
            data_prior: true,
            opening: 0,
        }
    }

    /// The adaptive policy a new decoder sets up when its opening ends.
    fn opening_policy() -> Policy<Variant, DecodeFn> {
        // Any varying seed will do; choices only affect speed.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let seed = now.as_nanos() as u64 ^ ((std::process::id() as u64) << 32);
        Decoder::adaptive_policy(seed)
    }

    /// The policy, set up now if this decoder was still in its opening.
    fn policy_mut(&mut self) -> &mut Policy<Variant, DecodeFn> {
        self.policy.get_or_insert_with(Decoder::opening_policy)
    }

    /// Start this adaptive decoder on the variant that a sample of its
    /// first block suggests: the share of sequences without literals picks
    /// the loop shape (the match-only branch pays where most sequences have
    /// none) and the mean match length the copy width. The first
    /// [`PRIOR_TRUST_BYTES`] of output are decoded with it, untimed; then
    /// the decoder explores and settles on what its own timings show. From
    /// a sample of 32 sequences or more, it explores only the prior's loop
    /// shape family (match-only, or plain and medium), where the other can
    /// cost half the speed on that data; a plain prior also keeps its own
    /// kernel's match-only variant, as no feature of the sample tells the
    /// columns where that shape is much faster (see the `guess` module).
    /// The sample reads a few
    /// hundred sequences once (well under a microsecond). A decoder that is
    /// not adaptive: unchanged.
    ///
    /// ```
    /// use lzkit::lz4::block::{self, Decoder};
    /// let column: Vec<u8> = (0u32..20_000).flat_map(|i| (i / 8 % 64).to_le_bytes()).collect();
    /// let packed = block::compress(&column, 1);
    /// let mut d = Decoder::with_seed(7).with_data_prior();
    /// let mut out = vec![0u8; column.len()];
    /// assert_eq!(d.decompress_into(&packed, &mut out)?, column.len());
    /// assert_eq!(out, column);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn with_data_prior(mut self) -> Self {
        self.data_prior = self.policy.as_ref().is_none_or(Policy::is_adaptive);
        self
    }

    /// Set the data prior from `src`, the stream's first block, if it is
    /// still to be set.
    fn take_data_prior(&mut self, src: &[u8], capacity: usize) {
        if std::mem::take(&mut self.data_prior) {
            let (prior, decisive) = data_prior(src, capacity);
            let policy = self.policy_mut();
            if decisive {
                // Its family only; a plain prior keeps its kernel's `m`
                // variant too (see the doc above).
                let sibling = prior.with_shape(Shape::MatchOnly);
                policy.retain_arms(|v: Variant| {
                    same_family(v.shape(), prior.shape()) || v == sibling
                });
            }
            policy.set_prior(Some(prior));
        }
    }

    /// The variant that this process's adaptive decoders settled on most
    /// often, or `None` before any has settled. Each adaptive decoder
    /// votes once, when it has tried every candidate and timed its
    /// favourite 32 times; ties go to the earlier candidate. No decoder
    /// starts on it unless asked (`Decoder::with_seed(s).with_prior(...)`).
    pub fn process_prior() -> Option<Variant> {
        let candidates = Variant::candidates();
        VOTES.leader(candidates.len()).map(|i| candidates[i])
    }

    /// The votes behind [`Decoder::process_prior`]: per candidate variant,
    /// how many of this process's adaptive decoders have settled on it.
    #[doc(hidden)]
    pub fn process_votes() -> Vec<(Variant, u32)> {
        Variant::candidates()
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, VOTES.count(i)))
            .collect()
    }

    /// Start this adaptive decoder on `prior`: its first
    /// [`PRIOR_TRUST_BYTES`] of output are decoded with that variant,
    /// untimed, and only then does it explore. `None`, or a variant that
    /// is not a candidate: no prior, it explores from its first block
    /// (either way this replaces the [data prior](Decoder::with_data_prior)
    /// [`Decoder::new`] starts on). A decoder that is not adaptive:
    /// unchanged.
    pub fn with_prior(self, prior: Option<Variant>) -> Self {
        let policy = self.policy.unwrap_or_else(Decoder::opening_policy);
        Decoder {
            policy: Some(policy.with_prior(prior)),
            dict_policy: None,
            data_prior: false,
            opening: 0,
        }
    }

    /// This adaptive decoder without a prior: it explores from its first
    /// block (it still votes once it converges). The same as
    /// `with_prior(None)`; it also drops the [data
    /// prior](Decoder::with_data_prior).
    ///
    /// ```
    /// use lzkit::lz4::block::Decoder;
    /// let mut d = Decoder::new().without_prior();
    /// let c = lzkit::lz4::block::compress(b"hello hello hello hello", 1);
    /// let mut out = [0u8; 64];
    /// assert_eq!(d.decompress_into(&c, &mut out).unwrap(), 23);
    /// ```
    pub fn without_prior(self) -> Self {
        self.with_prior(None)
    }

    /// An adaptive decoder whose choices are reproducible for `seed`.
    pub fn with_seed(seed: u64) -> Self {
        Decoder {
            policy: Some(Decoder::adaptive_policy(seed)),
            dict_policy: None,
            data_prior: false,
            opening: 0,
        }
    }

    /// An adaptive policy over the candidates, settled on the CPU's
    /// default variant, without a prior.
    fn adaptive_policy(seed: u64) -> Policy<Variant, DecodeFn> {
        let arms = arms_of(Variant::candidates());
        let initial = arms
            .iter()
            .position(|a| a.0 == Variant::default_for_cpu())
            .unwrap_or(0);
        Policy::adaptive(arms, initial, seed, Some(&VOTES))
    }

    /// A decoder that always uses `variant`. Fails if this CPU cannot run it.
    pub fn with_variant(variant: Variant) -> Result<Self> {
        let entry = variant.entry().ok_or(Error::VariantUnavailable {
            variant: variant.name(),
        })?;
        Ok(Decoder {
            policy: Some(Policy::fixed(variant, entry)),
            dict_policy: None,
            data_prior: false,
            opening: 0,
        })
    }

    /// A decoder that uses each available variant in turn, block by block
    /// (benchmarks and tests).
    #[doc(hidden)]
    pub fn round_robin() -> Self {
        Decoder {
            policy: Some(Policy::round_robin(arms_of(Variant::available()))),
            dict_policy: None,
            data_prior: false,
            opening: 0,
        }
    }

    /// Decompress the block `src` into `dst` (capacity `dst.len()`), exactly
    /// like [`super::decompress_into`].
    pub fn decompress_into(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        self.decode_with_prefix(src, dst, 0).map_err(|e| *e)
    }

    /// Decompress the block `src`, compressed with the dictionary `dict`
    /// (see [`super::compress_with_dict`]), into `dst` (capacity
    /// `dst.len()`): matches that reach before `dst` read the end of
    /// `dict`, inside the decode loop, so the dictionary is neither copied
    /// nor limited in size (only its last 64 KiB can be reached). Accepts
    /// exactly the blocks the reference decoder accepts with the same
    /// dictionary (but for offset 0: see
    /// [`Lz4Fault::OffsetZero`](crate::Lz4Fault::OffsetZero)); an empty
    /// `dict` is no dictionary.
    ///
    /// The dictionary loop is a separate instantiation of each variant,
    /// chosen by its own policy, which starts from what this decoder
    /// learned without a dictionary.
    ///
    /// ```
    /// use lzkit::lz4::block::{self, Decoder};
    ///
    /// let dict = b"GET /index.html HTTP/1.1\r\nHost: example.org\r\n".repeat(4);
    /// let request = b"GET /about.html HTTP/1.1\r\nHost: example.org\r\n";
    /// let packed = block::compress_with_dict(request, &dict, 1);
    /// let mut d = Decoder::new();
    /// let mut out = vec![0u8; request.len()];
    /// let n = d.decompress_with_dict_into(&packed, &dict, &mut out)?;
    /// assert_eq!(&out[..n], &request[..]);
    /// assert_eq!(d.decompress_with_dict(&packed, &dict, 4096)?, request);
    /// # Ok::<(), lzkit::Error>(())
    /// ```
    pub fn decompress_with_dict_into(
        &mut self,
        src: &[u8],
        dict: &[u8],
        dst: &mut [u8],
    ) -> Result<usize> {
        if dict.is_empty() {
            return self.decompress_into(src, dst);
        }
        if self.dict_policy.is_none() {
            self.take_data_prior(src, dst.len());
            // Every variant with an entry has a dictionary entry (the same
            // table row), so this copy always succeeds.
            self.dict_policy = self
                .policy_mut()
                .map_entries(Variant::dict_entry)
                .map(Box::new);
        }
        let Some(policy) = self.dict_policy.as_mut() else {
            return Err(Error::VariantUnavailable {
                variant: self.last_variant().name(),
            });
        };
        let r = if let Some(entry) = policy.untimed() {
            let r = entry(src, dict, dst);
            if let Ok(n) = r {
                policy.untimed_done(n);
            }
            r
        } else {
            let mut pull = policy.begin();
            let r = pull.run(|entry| entry(src, dict, dst));
            policy.finish(&pull, r.as_ref().ok().copied());
            r
        };
        r.map_err(|e| *e)
    }

    /// [`Decoder::decompress_with_dict_into`] into a new vector of at most
    /// `max_size` bytes (the buffer is no larger than `src` can decode to,
    /// as for [`super::decompress()`]; [`Error::OutOfMemory`] if the system
    /// will not allocate it).
    pub fn decompress_with_dict(
        &mut self,
        src: &[u8],
        dict: &[u8],
        max_size: usize,
    ) -> Result<Vec<u8>> {
        let mut dst = crate::mem::zeroed(max_size.min(super::max_decoded_size(src.len())))?;
        let n = self.decompress_with_dict_into(src, dict, &mut dst)?;
        dst.truncate(n);
        Ok(dst)
    }

    /// Decompress the block `src` into `buf[start..]` (capacity
    /// `buf.len() - start`) with `buf[..start]` as history that matches may
    /// reach (a prefix, as linked frame blocks see earlier output; the
    /// reference decoder's `LZ4_decompress_safe_usingDict` with the
    /// dictionary just before the output). Returns the bytes written after
    /// `start`. Test support for the prefix path that frame decoding uses,
    /// not a stable API.
    ///
    /// # Panics
    /// If `start > buf.len()`.
    #[doc(hidden)]
    pub fn decompress_with_prefix_into(
        &mut self,
        src: &[u8],
        buf: &mut [u8],
        start: usize,
    ) -> Result<usize> {
        assert!(start <= buf.len(), "prefix longer than the buffer");
        self.decode_with_prefix(src, buf, start).map_err(|e| *e)
    }

    /// Decode `src` into `buf[start..]` with `buf[..start]` as history.
    ///
    /// The common case, a fixed decoder or a converged adaptive one between
    /// timings, is kept small enough to inline: on a 3 KiB block the whole
    /// per-block cost of choosing is then a few loads and an indirect call.
    #[inline]
    pub(crate) fn decode_with_prefix(
        &mut self,
        src: &[u8],
        buf: &mut [u8],
        start: usize,
    ) -> Decoded<usize> {
        if let Some(policy) = &mut self.policy
            && let Some(entry) = policy.untimed()
        {
            let r = entry(src, buf, start);
            if let Ok(n) = r {
                policy.untimed_done(n);
            }
            return r;
        }
        self.decode_choosing(src, buf, start)
    }

    /// [`Decoder::decode_with_prefix`] when this block's variant must be
    /// chosen (and the block may be timed).
    #[inline(never)]
    fn decode_choosing(&mut self, src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        if self.policy.is_none() && self.opening < OPENING_BYTES {
            let (_, entry, _) = super::free_choice(src, buf.len() - start);
            let r = entry(src, buf, start);
            if let Ok(n) = r {
                self.opening += n;
            }
            return r;
        }
        if self.data_prior {
            self.take_data_prior(src, buf.len() - start);
            return self.decode_with_prefix(src, buf, start);
        }
        let policy = self.policy_mut();
        let mut pull = policy.begin();
        let r = pull.run(|entry| entry(src, buf, start));
        policy.finish(&pull, r.as_ref().ok().copied());
        r
    }

    /// The variant that decoded the last block.
    pub fn last_variant(&self) -> Variant {
        match &self.policy {
            Some(p) => p.last(),
            None => Variant::default_for_cpu(),
        }
    }

    /// The variant this decoder currently believes fastest (for a fixed
    /// decoder, its variant).
    pub fn preferred(&self) -> Variant {
        match &self.policy {
            Some(p) => p.preferred(),
            None => Variant::default_for_cpu(),
        }
    }

    /// What the decoder has observed, per variant (tuning diagnostics).
    #[doc(hidden)]
    pub fn stats(&self) -> Vec<VariantStats> {
        let Some(policy) = &self.policy else {
            return Vec::new();
        };
        policy
            .stats()
            .into_iter()
            .map(|s| VariantStats {
                variant: s.arm,
                blocks: s.blocks,
                timed: s.timed,
                cost_per_byte: s.cost_per_byte,
            })
            .collect()
    }
}

fn arms_of(variants: &[Variant]) -> Vec<(Variant, DecodeFn)> {
    variants
        .iter()
        .filter_map(|&v| Some((v, v.entry()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `n` bytes that decodes quickly.
    fn block(n: usize) -> Vec<u8> {
        crate::lz4::block::compress(&vec![7u8; n], 1)
    }

    /// The dictionary decode as it was before the loop handled
    /// dictionaries: the dictionary's last 64 KiB - 1 copied in front of a
    /// scratch buffer, decoded as history.
    fn dict_by_prefix(src: &[u8], dict: &[u8], cap: usize) -> Result<Vec<u8>> {
        let dict = &dict[dict.len().saturating_sub(super::super::MAX_DISTANCE)..];
        let mut buf = vec![0u8; dict.len() + cap];
        buf[..dict.len()].copy_from_slice(dict);
        let mut d = Decoder::with_variant(Variant::plain(super::super::Kernel::Portable16))?;
        let n = d
            .decode_with_prefix(src, &mut buf, dict.len())
            .map_err(|e| *e)?;
        Ok(buf[dict.len()..dict.len() + n].to_vec())
    }

    /// Bytes that repeat pieces of `dict` and of themselves, from an LCG.
    fn dict_data(dict: &[u8], n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        let mut next = move || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) as usize
        };
        let mut v = Vec::with_capacity(n + 64);
        while v.len() < n {
            let len = 1 + next() % 40;
            match next() % 4 {
                0 if !dict.is_empty() => {
                    let at = dict.len() - 1 - next() % dict.len().min(70_000);
                    let end = (at + len).min(dict.len());
                    v.extend_from_slice(&dict[at..end]);
                }
                1 if !v.is_empty() => {
                    let back = 1 + next() % v.len().min(70);
                    for _ in 0..len {
                        v.push(v[v.len() - back]);
                    }
                }
                _ => v.extend((0..len).map(|_| b"abcdefgh"[next() % 8])),
            }
        }
        v.truncate(n);
        v
    }

    /// A decode error as position and fault, without the capacity (the
    /// prefix decode reported its scratch buffer's, dictionary included).
    fn fault(e: Error) -> String {
        match e {
            Error::CorruptBlock {
                at,
                fault: crate::Fault::Lz4(crate::Lz4Fault::OutputTooSmall { .. }),
            } => format!("{at}: output too small"),
            e => e.to_string(),
        }
    }

    #[test]
    fn dictionary_in_the_loop_decodes_as_the_prefix_did() {
        let big: Vec<u8> = dict_data(&[], 80_000, 99);
        let dicts: [&[u8]; 6] = [
            &big[..1],
            &big[..5],
            &big[..100],
            &big[..5_000],
            &big[..65_536],
            &big[..],
        ];
        let mut fixed: Vec<Decoder> = Variant::available()
            .iter()
            .map(|&v| Decoder::with_variant(v).unwrap())
            .collect();
        fixed.push(Decoder::with_seed(5));
        let mut cases = 0;
        for (k, dict) in dicts.iter().enumerate() {
            for (n, level) in [(0usize, 1), (20, 1), (300, 9), (5_000, 1), (70_000, 12)] {
                let data = dict_data(dict, n, k as u64 * 31 + n as u64);
                let block = crate::lz4::block::compress_with_dict(&data, dict, level);
                // The block, damaged copies of it, and cut ones.
                let mut inputs = vec![block.clone()];
                for m in 0..24usize {
                    if block.is_empty() {
                        break;
                    }
                    let mut b = block.clone();
                    let at = (m * 7919 + n) % b.len();
                    b[at] = b[at].wrapping_add(1 + (m as u8).wrapping_mul(37));
                    inputs.push(b);
                    inputs.push(block[..block.len() * m / 24].to_vec());
                }
                for input in &inputs {
                    for cap in [n, n + 17, n.saturating_sub(3), n / 2] {
                        let want = dict_by_prefix(input, dict, cap).map_err(fault);
                        for d in &mut fixed {
                            let got = d.decompress_with_dict(input, dict, cap).map_err(fault);
                            assert_eq!(
                                got,
                                want,
                                "{:?}: dict {} n {n} cap {cap}",
                                d.last_variant(),
                                dict.len()
                            );
                            cases += 1;
                        }
                    }
                }
                if n > 0 {
                    assert_eq!(
                        fixed[0].decompress_with_dict(&block, dict, n).unwrap(),
                        data
                    );
                }
            }
        }
        assert!(cases > 1000, "{cases}");
    }

    #[test]
    fn a_new_decoder_opens_as_the_free_function_then_sets_up_its_chooser() {
        // A column whose blocks are mostly match-only sequences, and
        // another of plain text: whatever decoders before it learned, a new
        // decoder's variant depends on its own blocks alone.
        let column: Vec<u8> = (0u32..200_000)
            .flat_map(|i| ((i / 3) % 97 * 1_000_003).to_le_bytes())
            .collect();
        let blocks: Vec<Vec<u8>> = column
            .chunks(64 << 10)
            .map(|c| crate::lz4::block::compress(c, 1))
            .collect();
        let mut out = vec![0u8; 64 << 10];
        // Another decoder, elsewhere, settles on something first.
        let mut other = Decoder::with_seed(3).with_prior(Variant::candidates().last().copied());
        for b in &blocks {
            other.decompress_into(b, &mut out).unwrap();
        }
        let mut d = Decoder::new();
        assert!(d.stats().is_empty(), "no chooser before the first block");
        let mut decoded = 0;
        let mut prior = None;
        for b in &blocks {
            let want = crate::lz4::block::free_variant(b, out.len());
            let n = d.decompress_into(b, &mut out).unwrap();
            if decoded < OPENING_BYTES {
                assert_eq!(d.last_variant(), want);
                assert!(d.stats().is_empty());
            } else {
                // The chooser, started on the data prior of the first
                // block after the opening, trusted for 2 MiB.
                assert!(!d.stats().is_empty());
                let first = *prior.get_or_insert(super::super::stream_guess(b, 64 << 10));
                assert_eq!(d.last_variant(), first);
            }
            assert_eq!(&out[..n], &column[decoded..decoded + n]);
            decoded += n;
        }
        assert!(decoded > OPENING_BYTES + (64 << 10));
    }

    #[test]
    fn without_prior_explores_from_the_first_block() {
        let candidates = Variant::candidates();
        let src = block(4 << 10);
        let mut out = vec![0u8; 4 << 10];
        // The last candidate: not the first one the bandit tries.
        let prior = *candidates.last().expect("a candidate");
        let mut with = Decoder::with_seed(1).with_prior(Some(prior));
        let mut without = with.clone().without_prior();
        assert_eq!(with.preferred(), prior);
        assert_eq!(without.preferred(), Variant::default_for_cpu());
        with.decompress_into(&src, &mut out).unwrap();
        without.decompress_into(&src, &mut out).unwrap();
        assert_eq!(with.last_variant(), prior);
        if candidates.len() > 1 {
            // Warm-up starts with the first candidate.
            assert_eq!(without.last_variant(), candidates[0]);
        }
        // Decoder::new() may start on a prior; without_prior drops it.
        let d = Decoder::new().without_prior();
        assert_eq!(d.preferred(), Variant::default_for_cpu());
        assert_eq!(
            Decoder::new().with_prior(None).preferred(),
            Variant::default_for_cpu()
        );
    }

    #[test]
    fn a_decisive_prior_explores_its_family_and_one_match_only_variant() {
        // A column with a literal in nearly every sequence: a decisive
        // sample (hundreds of sequences) that suggests the plain shape.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let column: Vec<u8> = (0..16_384u32)
            .flat_map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (i / 4 * 3 + (x % 2) as u32).to_le_bytes()
            })
            .collect();
        let packed = crate::lz4::block::compress(&column, 1);
        let (prior, decisive) = data_prior(&packed, column.len());
        assert!(decisive && prior.shape() == Shape::Plain, "{prior:?}");
        let mut d = Decoder::new();
        let mut out = vec![0u8; column.len()];
        // Past the opening, so the chooser is set up from a block.
        for _ in 0..=OPENING_BYTES / column.len() + 1 {
            assert_eq!(d.decompress_into(&packed, &mut out).unwrap(), column.len());
        }
        assert_eq!(out, column);
        let sibling = prior.with_shape(Shape::MatchOnly);
        let arms: Vec<Variant> = d.stats().iter().map(|s| s.variant).collect();
        assert!(!arms.is_empty());
        for v in &arms {
            assert!(
                v.shape() != Shape::MatchOnly || *v == sibling,
                "{v:?} explored after a plain prior {prior:?}"
            );
        }
        let plain_family = Variant::candidates()
            .iter()
            .filter(|v| v.shape() != Shape::MatchOnly)
            .count();
        let expected = plain_family + usize::from(Variant::candidates().contains(&sibling));
        assert_eq!(arms.len(), expected, "{arms:?}");
    }
}
