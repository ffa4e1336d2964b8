//! The decoder variants: the one decode loop ([`super::decompress::decode`])
//! instantiated per copy kernel and instruction set, and the runtime CPU
//! detection that says which of them this machine can run.

use super::decompress::{Decoded, MATCH_ONLY, MEDIUM, PLAIN, decode};
use crate::kernels::portable::Portable;
use std::sync::OnceLock;

/// A decode entry point: `(src, buf, start)` decodes `src` into
/// `buf[start..]` with `buf[..start]` as history.
pub(crate) type DecodeFn = fn(&[u8], &mut [u8], usize) -> Decoded<usize>;

/// The shape of the decode loop a [`Variant`] runs (see [`Variant`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Every sequence decoded the same way.
    Plain,
    /// Match-only sequences on a branch of their own (names ending in `m`).
    MatchOnly,
    /// Medium matches without a branch on a length byte (names ending in
    /// `h`, for HC-compressed data).
    Medium,
}

/// One instantiation of the LZ4 block decode loop: a copy width, the
/// instruction set its kernels use, and the loop's [`Shape`].
///
/// Every kernel comes in three loop shapes. The plain one decodes each
/// sequence the same way. The `m` one (names ending in `m`) first tests for
/// a *match-only* sequence (no literals, a short match) and decodes it on a
/// branch of its own: where most sequences are match-only (integer and
/// float columns of middle ratio), that branch is predicted, the input
/// advances by a constant, and the next token's load no longer waits for
/// this token's value, which is the plain loop's critical path. Where
/// match-only sequences are mixed with others at random, the branch is
/// mispredicted and the plain shape is faster. The `h` one (names ending in
/// `h`) copies matches of up to 32 bytes from at least 32 back with no
/// branch on whether a length byte follows: at HC levels a third of the
/// sequences have one, at random, which the plain shape mispredicts. The
/// adaptive decoder learns which shape suits the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Variant {
    /// Portable Rust, 8-byte chunks.
    Portable8,
    /// Portable Rust, 16-byte chunks.
    Portable16,
    /// Portable Rust, 32-byte chunks.
    Portable32,
    /// Portable Rust, 64-byte chunks.
    Portable64,
    /// x86-64 SSSE3: 16-byte chunks, `pshufb` pattern fill.
    Ssse3x16,
    /// x86-64 AVX2: 32-byte chunks, `vpshufb` pattern fill.
    Avx2x32,
    /// x86-64 AVX-512 VBMI: 64-byte chunks, `vpermb` pattern fill.
    Avx512x64,
    /// AArch64 NEON: 16-byte chunks, `tbl` pattern fill.
    Neon16,
    /// AArch64 NEON: 32-byte chunks (two registers).
    Neon32,
    /// AArch64 NEON: 64-byte chunks (four registers).
    Neon64,
    /// [`Variant::Portable8`] with the match-only branch.
    Portable8M,
    /// [`Variant::Portable16`] with the match-only branch.
    Portable16M,
    /// [`Variant::Portable32`] with the match-only branch.
    Portable32M,
    /// [`Variant::Portable64`] with the match-only branch.
    Portable64M,
    /// [`Variant::Ssse3x16`] with the match-only branch.
    Ssse3x16M,
    /// [`Variant::Avx2x32`] with the match-only branch.
    Avx2x32M,
    /// [`Variant::Avx512x64`] with the match-only branch.
    Avx512x64M,
    /// [`Variant::Neon16`] with the match-only branch.
    Neon16M,
    /// [`Variant::Neon32`] with the match-only branch.
    Neon32M,
    /// [`Variant::Neon64`] with the match-only branch.
    Neon64M,
    /// [`Variant::Portable8`] with branch-free medium matches.
    Portable8H,
    /// [`Variant::Portable16`] with branch-free medium matches.
    Portable16H,
    /// [`Variant::Portable32`] with branch-free medium matches.
    Portable32H,
    /// [`Variant::Portable64`] with branch-free medium matches.
    Portable64H,
    /// [`Variant::Ssse3x16`] with branch-free medium matches.
    Ssse3x16H,
    /// [`Variant::Avx2x32`] with branch-free medium matches.
    Avx2x32H,
    /// [`Variant::Avx512x64`] with branch-free medium matches.
    Avx512x64H,
    /// [`Variant::Neon16`] with branch-free medium matches.
    Neon16H,
    /// [`Variant::Neon32`] with branch-free medium matches.
    Neon32H,
    /// [`Variant::Neon64`] with branch-free medium matches.
    Neon64H,
}

/// Each kernel's variants, by shape: plain, match-only, medium.
const BY_KERNEL: [[Variant; 3]; 10] = [
    [Variant::Portable8, Variant::Portable8M, Variant::Portable8H],
    [
        Variant::Portable16,
        Variant::Portable16M,
        Variant::Portable16H,
    ],
    [
        Variant::Portable32,
        Variant::Portable32M,
        Variant::Portable32H,
    ],
    [
        Variant::Portable64,
        Variant::Portable64M,
        Variant::Portable64H,
    ],
    [Variant::Ssse3x16, Variant::Ssse3x16M, Variant::Ssse3x16H],
    [Variant::Avx2x32, Variant::Avx2x32M, Variant::Avx2x32H],
    [Variant::Avx512x64, Variant::Avx512x64M, Variant::Avx512x64H],
    [Variant::Neon16, Variant::Neon16M, Variant::Neon16H],
    [Variant::Neon32, Variant::Neon32M, Variant::Neon32H],
    [Variant::Neon64, Variant::Neon64M, Variant::Neon64H],
];

impl Variant {
    /// Every variant this build knows, available or not.
    pub const ALL: &'static [Variant] = &[
        Variant::Portable8,
        Variant::Portable16,
        Variant::Portable32,
        Variant::Portable64,
        Variant::Ssse3x16,
        Variant::Avx2x32,
        Variant::Avx512x64,
        Variant::Neon16,
        Variant::Neon32,
        Variant::Neon64,
        Variant::Portable8M,
        Variant::Portable16M,
        Variant::Portable32M,
        Variant::Portable64M,
        Variant::Ssse3x16M,
        Variant::Avx2x32M,
        Variant::Avx512x64M,
        Variant::Neon16M,
        Variant::Neon32M,
        Variant::Neon64M,
        Variant::Portable8H,
        Variant::Portable16H,
        Variant::Portable32H,
        Variant::Portable64H,
        Variant::Ssse3x16H,
        Variant::Avx2x32H,
        Variant::Avx512x64H,
        Variant::Neon16H,
        Variant::Neon32H,
        Variant::Neon64H,
    ];

    /// Short name, as used by the CLI and in benchmark tables.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Portable8 => "portable8",
            Variant::Portable16 => "portable16",
            Variant::Portable32 => "portable32",
            Variant::Portable64 => "portable64",
            Variant::Ssse3x16 => "ssse3-16",
            Variant::Avx2x32 => "avx2-32",
            Variant::Avx512x64 => "avx512-64",
            Variant::Neon16 => "neon16",
            Variant::Neon32 => "neon32",
            Variant::Neon64 => "neon64",
            Variant::Portable8M => "portable8m",
            Variant::Portable16M => "portable16m",
            Variant::Portable32M => "portable32m",
            Variant::Portable64M => "portable64m",
            Variant::Ssse3x16M => "ssse3-16m",
            Variant::Avx2x32M => "avx2-32m",
            Variant::Avx512x64M => "avx512-64m",
            Variant::Neon16M => "neon16m",
            Variant::Neon32M => "neon32m",
            Variant::Neon64M => "neon64m",
            Variant::Portable8H => "portable8h",
            Variant::Portable16H => "portable16h",
            Variant::Portable32H => "portable32h",
            Variant::Portable64H => "portable64h",
            Variant::Ssse3x16H => "ssse3-16h",
            Variant::Avx2x32H => "avx2-32h",
            Variant::Avx512x64H => "avx512-64h",
            Variant::Neon16H => "neon16h",
            Variant::Neon32H => "neon32h",
            Variant::Neon64H => "neon64h",
        }
    }

    /// This variant's row of [`BY_KERNEL`] and its shape's column.
    const fn position(self) -> (usize, usize) {
        let mut k = 0;
        while k < BY_KERNEL.len() {
            let mut s = 0;
            while s < 3 {
                if BY_KERNEL[k][s] as u8 == self as u8 {
                    return (k, s);
                }
                s += 1;
            }
            k += 1;
        }
        // Every variant is in the table (checked by a test).
        (0, 0)
    }

    /// The loop shape.
    pub const fn shape(self) -> Shape {
        match self.position().1 {
            0 => Shape::Plain,
            1 => Shape::MatchOnly,
            _ => Shape::Medium,
        }
    }

    /// The same kernel in loop shape `shape`.
    pub const fn with_shape(self, shape: Shape) -> Variant {
        let column = match shape {
            Shape::Plain => 0,
            Shape::MatchOnly => 1,
            Shape::Medium => 2,
        };
        BY_KERNEL[self.position().0][column]
    }

    /// Whether the loop has the match-only branch (see [`Variant`]).
    pub const fn match_only_branch(self) -> bool {
        matches!(self.shape(), Shape::MatchOnly)
    }

    /// Look a variant up by [`Variant::name`].
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Copy width in bytes.
    pub const fn width(self) -> usize {
        match self.with_shape(Shape::Plain) {
            Variant::Portable8 => 8,
            Variant::Portable16 | Variant::Ssse3x16 | Variant::Neon16 => 16,
            Variant::Portable32 | Variant::Avx2x32 | Variant::Neon32 => 32,
            _ => 64,
        }
    }

    /// The variants this CPU can run, detected once per process.
    pub fn available() -> &'static [Variant] {
        static AVAILABLE: OnceLock<Vec<Variant>> = OnceLock::new();
        AVAILABLE.get_or_init(|| {
            Variant::ALL
                .iter()
                .copied()
                .filter(|v| v.entry().is_some())
                .collect()
        })
    }

    /// The variants an adaptive [`super::Decoder`] chooses among: every
    /// available SIMD kernel in the plain and match-only shapes, the
    /// widest one also in the medium shape (it wins only on some
    /// HC-compressed columns, and there the narrower kernels' medium
    /// shapes add little), plus portable 64-byte chunks on x86-64 without
    /// AVX-512 (its unrolled 64-byte steps win on some low-ratio columns,
    /// which no SIMD kernel there does). The other portable kernels are
    /// dominated by the SIMD ones of the same width, so exploring them
    /// would only cost time. Without SIMD: portable 16 and 64 plain, 8 and
    /// 16 with the match-only branch, 16 in the medium shape.
    pub fn candidates() -> &'static [Variant] {
        static CANDIDATES: OnceLock<Vec<Variant>> = OnceLock::new();
        CANDIDATES.get_or_init(|| {
            let simd: Vec<Variant> = Variant::available()
                .iter()
                .copied()
                .filter(|v| !v.is_portable() && v.shape() != Shape::Medium)
                .collect();
            let wanted: Vec<Variant> = if simd.is_empty() {
                vec![
                    Variant::Portable16,
                    Variant::Portable64,
                    Variant::Portable8M,
                    Variant::Portable16M,
                    Variant::Portable16H,
                ]
            } else {
                let mut v = Vec::new();
                if cfg!(target_arch = "x86_64") && !simd.contains(&Variant::Avx512x64) {
                    v.push(Variant::Portable64);
                }
                let widest = simd.iter().copied().max_by_key(|s| s.width());
                v.extend(simd);
                v.extend(widest.map(|w| w.with_shape(Shape::Medium)));
                v
            };
            wanted.into_iter().filter(|v| v.is_available()).collect()
        })
    }

    /// Whether the kernel is plain Rust (no SIMD instruction set).
    pub const fn is_portable(self) -> bool {
        matches!(
            self.with_shape(Shape::Plain),
            Variant::Portable8 | Variant::Portable16 | Variant::Portable32 | Variant::Portable64
        )
    }

    /// Whether this CPU can run the variant.
    pub fn is_available(self) -> bool {
        Variant::available().contains(&self)
    }

    /// The variant used when no choice is made: the widest SIMD variant
    /// available, else portable 16-byte chunks.
    pub fn default_for_cpu() -> Variant {
        let simd = [
            Variant::Avx2x32,
            Variant::Ssse3x16,
            Variant::Neon32,
            Variant::Neon16,
        ];
        simd.into_iter()
            .find(|v| v.is_available())
            .unwrap_or(Variant::Portable16)
    }

    /// The entry point, if this CPU supports the variant. The only way to
    /// reach a `#[target_feature]` entry point is through here, after its
    /// features were detected.
    pub(crate) fn entry(self) -> Option<DecodeFn> {
        let kernel = self.with_shape(Shape::Plain);
        match self.shape() {
            Shape::Plain => kernel.entry_of_shape::<PLAIN>(),
            Shape::MatchOnly => kernel.entry_of_shape::<MATCH_ONLY>(),
            Shape::Medium => kernel.entry_of_shape::<MEDIUM>(),
        }
    }

    /// [`Variant::entry`] of this variant's kernel in loop shape `S`.
    fn entry_of_shape<const S: u8>(self) -> Option<DecodeFn> {
        match self {
            Variant::Portable8 => Some(decode::<Portable<8>, S>),
            Variant::Portable16 => Some(decode::<Portable<16>, S>),
            Variant::Portable32 => Some(decode::<Portable<32>, S>),
            Variant::Portable64 => Some(decode::<Portable<64>, S>),
            #[cfg(target_arch = "x86_64")]
            Variant::Ssse3x16 => x86::ssse3::<S>(),
            #[cfg(target_arch = "x86_64")]
            Variant::Avx2x32 => x86::avx2::<S>(),
            #[cfg(target_arch = "x86_64")]
            Variant::Avx512x64 => x86::avx512::<S>(),
            #[cfg(target_arch = "aarch64")]
            Variant::Neon16 => Some(decode::<crate::kernels::aarch64::Neon<1>, S>),
            #[cfg(target_arch = "aarch64")]
            Variant::Neon32 => Some(decode::<crate::kernels::aarch64::Neon<2>, S>),
            #[cfg(target_arch = "aarch64")]
            Variant::Neon64 => Some(decode::<crate::kernels::aarch64::Neon<4>, S>),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86-64 entry points: each wraps the whole decode loop in a
    //! `#[target_feature]` function, because features do not inline across
    //! that boundary.
    use super::{DecodeFn, Decoded, decode};
    use crate::kernels::x86_64::{Avx2, Avx512Vbmi, Ssse3};

    #[target_feature(enable = "ssse3")]
    fn ssse3_loop<const S: u8>(src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        decode::<Ssse3, S>(src, buf, start)
    }

    #[target_feature(enable = "avx2")]
    fn avx2_loop<const S: u8>(src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        decode::<Avx2, S>(src, buf, start)
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn avx512_loop<const S: u8>(src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
        decode::<Avx512Vbmi, S>(src, buf, start)
    }

    pub(super) fn ssse3<const S: u8>() -> Option<DecodeFn> {
        if !std::arch::is_x86_feature_detected!("ssse3") {
            return None;
        }
        // SAFETY: SSSE3 was detected just above, and this closure is only
        // handed out from here.
        Some(|s, b, o| unsafe { ssse3_loop::<S>(s, b, o) })
    }

    pub(super) fn avx2<const S: u8>() -> Option<DecodeFn> {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return None;
        }
        // SAFETY: AVX2 was detected just above, and this closure is only
        // handed out from here.
        Some(|s, b, o| unsafe { avx2_loop::<S>(s, b, o) })
    }

    pub(super) fn avx512<const S: u8>() -> Option<DecodeFn> {
        if !(std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi"))
        {
            return None;
        }
        // SAFETY: AVX-512 F/BW/VBMI were detected just above, and this
        // closure is only handed out from here.
        Some(|s, b, o| unsafe { avx512_loop::<S>(s, b, o) })
    }
}
