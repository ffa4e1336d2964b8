//! The decoder variants: the one decode loop ([`super::decompress::decode`])
//! instantiated per copy kernel and loop shape, from one table.
//!
//! Adding a kernel costs its `impl` of the kernel trait (in `kernels/`), a
//! [`Kernel`] id and its row in [`KERNELS`]: the variant list, names, widths,
//! CPU requirements and entry points all come from the table.

use super::decompress::{Decoded, MATCH_ONLY, MEDIUM, PLAIN, decode, decode_dict};
use crate::cpu::{self, Isa};
use crate::kernels::portable::Portable;
use std::sync::OnceLock;

/// A decode entry point: `(src, buf, start)` decodes `src` into
/// `buf[start..]` with `buf[..start]` as history.
pub(crate) type DecodeFn = fn(&[u8], &mut [u8], usize) -> Decoded<usize>;

/// A decode entry point with an external dictionary: `(src, dict, dst)`
/// decodes `src` into `dst`, matches before `dst` reading `dict`'s end.
pub(crate) type DictDecodeFn = fn(&[u8], &[u8], &mut [u8]) -> Decoded<usize>;

/// A kernel's decode loop entry points, per shape: without and with an
/// external dictionary.
struct Entries {
    plain: [DecodeFn; 3],
    dict: [DictDecodeFn; 3],
}

/// The shape of the decode loop a [`Variant`] runs (see [`Variant`]):
/// tuning detail, not a stable API (variants are chosen by name).
///
/// Ordered as the loop shapes are listed in [`Variant::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// Every sequence decoded the same way.
    Plain,
    /// Match-only sequences on a branch of their own (names ending in `m`).
    MatchOnly,
    /// Medium matches without a branch on a length byte (names ending in
    /// `h`, for HC-compressed data).
    Medium,
}

impl Shape {
    /// Every shape, in [`Variant::ALL`]'s order.
    const ALL: [Shape; 3] = [Shape::Plain, Shape::MatchOnly, Shape::Medium];
}

/// A copy kernel: a copy width and the instruction set its copies use
/// (one row of the kernel table). Every kernel runs in each [`Shape`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kernel {
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
}

/// One kernel: its names per shape, copy width, required instruction set,
/// and its decode loop's entry points per shape (`None` where this build's
/// target cannot compile the kernel).
struct KernelRow {
    kernel: Kernel,
    names: [&'static str; 3],
    width: usize,
    isa: Isa,
    entries: Option<Entries>,
}

/// The kernel's decode loop in the three shapes, each through `$plain`
/// and, with a dictionary, `$dict` (the loop itself, or `#[target_feature]`
/// wrappers).
macro_rules! shapes {
    ($($plain:ident)::+, $($dict:ident)::+, $kernel:ty) => {
        Entries {
            plain: [
                $($plain)::+::<$kernel, PLAIN> as DecodeFn,
                $($plain)::+::<$kernel, MATCH_ONLY>,
                $($plain)::+::<$kernel, MEDIUM>,
            ],
            dict: [
                $($dict)::+::<$kernel, PLAIN> as DictDecodeFn,
                $($dict)::+::<$kernel, MATCH_ONLY>,
                $($dict)::+::<$kernel, MEDIUM>,
            ],
        }
    };
}

/// `Some(entries)` on `target_arch = $arch`, `None` elsewhere (where the
/// kernel's type does not exist).
macro_rules! on_arch {
    ($arch:literal, $entries:expr) => {{
        #[cfg(target_arch = $arch)]
        let entries = Some($entries);
        #[cfg(not(target_arch = $arch))]
        let entries = None;
        entries
    }};
}

/// Every kernel this build knows, indexed by [`Kernel`].
static KERNELS: [KernelRow; 10] = [
    KernelRow {
        kernel: Kernel::Portable8,
        names: ["portable8", "portable8m", "portable8h"],
        width: 8,
        isa: Isa::Baseline,
        entries: Some(shapes!(decode, decode_dict, Portable<8>)),
    },
    KernelRow {
        kernel: Kernel::Portable16,
        names: ["portable16", "portable16m", "portable16h"],
        width: 16,
        isa: Isa::Baseline,
        entries: Some(shapes!(decode, decode_dict, Portable<16>)),
    },
    KernelRow {
        kernel: Kernel::Portable32,
        names: ["portable32", "portable32m", "portable32h"],
        width: 32,
        isa: Isa::Baseline,
        entries: Some(shapes!(decode, decode_dict, Portable<32>)),
    },
    KernelRow {
        kernel: Kernel::Portable64,
        names: ["portable64", "portable64m", "portable64h"],
        width: 64,
        isa: Isa::Baseline,
        entries: Some(shapes!(decode, decode_dict, Portable<64>)),
    },
    KernelRow {
        kernel: Kernel::Ssse3x16,
        names: ["ssse3-16", "ssse3-16m", "ssse3-16h"],
        width: 16,
        isa: Isa::Ssse3,
        entries: on_arch!("x86_64", shapes!(x86::ssse3, x86::ssse3_dict, x86::Ssse3)),
    },
    KernelRow {
        kernel: Kernel::Avx2x32,
        names: ["avx2-32", "avx2-32m", "avx2-32h"],
        width: 32,
        isa: Isa::Avx2,
        entries: on_arch!("x86_64", shapes!(x86::avx2, x86::avx2_dict, x86::Avx2)),
    },
    KernelRow {
        kernel: Kernel::Avx512x64,
        names: ["avx512-64", "avx512-64m", "avx512-64h"],
        width: 64,
        isa: Isa::Avx512Vbmi,
        entries: on_arch!(
            "x86_64",
            shapes!(x86::avx512, x86::avx512_dict, x86::Avx512Vbmi)
        ),
    },
    KernelRow {
        kernel: Kernel::Neon16,
        names: ["neon16", "neon16m", "neon16h"],
        width: 16,
        isa: Isa::Neon,
        entries: on_arch!("aarch64", shapes!(decode, decode_dict, arm::Neon<1>)),
    },
    KernelRow {
        kernel: Kernel::Neon32,
        names: ["neon32", "neon32m", "neon32h"],
        width: 32,
        isa: Isa::Neon,
        entries: on_arch!("aarch64", shapes!(decode, decode_dict, arm::Neon<2>)),
    },
    KernelRow {
        kernel: Kernel::Neon64,
        names: ["neon64", "neon64m", "neon64h"],
        width: 64,
        isa: Isa::Neon,
        entries: on_arch!("aarch64", shapes!(decode, decode_dict, arm::Neon<4>)),
    },
];

const _: () = {
    let mut k = 0;
    while k < KERNELS.len() {
        assert!(
            KERNELS[k].kernel as usize == k,
            "KERNELS is indexed by Kernel"
        );
        k += 1;
    }
};

/// Every variant, shape by shape, kernel by kernel within a shape.
const ALL_VARIANTS: [Variant; 3 * KERNELS.len()] = {
    let mut all = [Variant::new(Kernel::Portable8, Shape::Plain); 3 * KERNELS.len()];
    let mut s = 0;
    while s < 3 {
        let mut k = 0;
        while k < KERNELS.len() {
            all[s * KERNELS.len() + k] = Variant::new(KERNELS[k].kernel, Shape::ALL[s]);
            k += 1;
        }
        s += 1;
    }
    all
};

// The accessors that read KERNELS are neither `const` nor inlinable
// into other crates: a body that other crates may inline makes the table,
// and through its entry points the whole decode loop, exported symbols,
// which the loop then calls through the GOT instead of directly.
impl Kernel {
    /// This kernel's row of [`KERNELS`].
    const fn row(self) -> &'static KernelRow {
        &KERNELS[self as usize]
    }

    /// Copy width in bytes.
    #[inline(never)]
    pub fn width(self) -> usize {
        self.row().width
    }

    /// Whether the kernel is plain Rust (no SIMD instruction set).
    #[inline(never)]
    pub fn is_portable(self) -> bool {
        matches!(self.row().isa, Isa::Baseline)
    }
    /// The instruction set the kernel's copies need (every codec's loop
    /// on this kernel needs at least this).
    pub(crate) fn isa(self) -> Isa {
        self.row().isa
    }

    /// The kernel's name: its plain-shape variant's (`ssse3-16`), which the
    /// codecs whose loops come in one shape (zstd) use as theirs.
    pub(crate) fn plain_name(self) -> &'static str {
        self.row().names[0]
    }
}

/// One instantiation of the LZ4 block decode loop: a copy [`Kernel`] (a
/// width and the instruction set its copies use) and the loop's [`Shape`].
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
///
/// Ordered as in [`Variant::ALL`]; `Debug` and `Display` print the name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variant {
    // Shape first: the order of `Variant::ALL`.
    shape: Shape,
    kernel: Kernel,
}

impl Variant {
    /// Every variant this build knows, available or not: every kernel in
    /// the plain shape, then every kernel in the `m` shape, then in the `h`
    /// shape.
    pub const ALL: &'static [Variant] = &ALL_VARIANTS;

    /// `kernel`'s decode loop in shape `shape`.
    #[doc(hidden)]
    pub const fn new(kernel: Kernel, shape: Shape) -> Variant {
        Variant { shape, kernel }
    }

    /// `kernel` in the plain shape.
    pub const fn plain(kernel: Kernel) -> Variant {
        Variant::new(kernel, Shape::Plain)
    }

    /// The copy kernel.
    pub const fn kernel(self) -> Kernel {
        self.kernel
    }

    /// Short name, as used by the CLI and in benchmark tables.
    #[inline(never)]
    pub fn name(self) -> &'static str {
        self.kernel.row().names[self.shape as usize]
    }

    /// The loop shape.
    #[doc(hidden)]
    pub const fn shape(self) -> Shape {
        self.shape
    }

    /// The same kernel in loop shape `shape`.
    #[doc(hidden)]
    pub const fn with_shape(self, shape: Shape) -> Variant {
        Variant::new(self.kernel, shape)
    }

    /// Whether the loop has the match-only branch (see [`Variant`]).
    pub const fn match_only_branch(self) -> bool {
        matches!(self.shape, Shape::MatchOnly)
    }

    /// Look a variant up by [`Variant::name`].
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Copy width in bytes.
    pub fn width(self) -> usize {
        self.kernel.width()
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
                    Variant::plain(Kernel::Portable16),
                    Variant::plain(Kernel::Portable64),
                    Variant::new(Kernel::Portable8, Shape::MatchOnly),
                    Variant::new(Kernel::Portable16, Shape::MatchOnly),
                    Variant::new(Kernel::Portable16, Shape::Medium),
                ]
            } else {
                let mut v = Vec::new();
                if cfg!(target_arch = "x86_64")
                    && !simd.contains(&Variant::plain(Kernel::Avx512x64))
                {
                    v.push(Variant::plain(Kernel::Portable64));
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
    pub fn is_portable(self) -> bool {
        self.kernel.is_portable()
    }

    /// Whether this CPU can run the variant.
    pub fn is_available(self) -> bool {
        Variant::available().contains(&self)
    }

    /// The variant used when no choice is made: the widest SIMD variant
    /// available, else portable 16-byte chunks.
    pub fn default_for_cpu() -> Variant {
        static DEFAULT: OnceLock<Variant> = OnceLock::new();
        *DEFAULT.get_or_init(|| {
            [
                Kernel::Avx2x32,
                Kernel::Ssse3x16,
                Kernel::Neon32,
                Kernel::Neon16,
            ]
            .into_iter()
            .map(Variant::plain)
            .find(|v| v.is_available())
            .unwrap_or(Variant::plain(Kernel::Portable16))
        })
    }

    /// The entry point, if this CPU supports the variant: `None` for a
    /// variant it cannot run (never another variant's entry). The only way
    /// to reach a `#[target_feature]` entry point is through here, after
    /// its instruction set was detected.
    pub(crate) fn entry(self) -> Option<DecodeFn> {
        let row = self.kernel.row();
        if !cpu::has(row.isa) {
            return None;
        }
        Some(row.entries.as_ref()?.plain[self.shape as usize])
    }

    /// The entry point with an external dictionary, where [`Variant::entry`]
    /// has one (the same row and the same instruction set).
    pub(crate) fn dict_entry(self) -> Option<DictDecodeFn> {
        let row = self.kernel.row();
        if !cpu::has(row.isa) {
            return None;
        }
        Some(row.entries.as_ref()?.dict[self.shape as usize])
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(target_arch = "aarch64")]
mod arm {
    //! AArch64 kernels: NEON is part of the baseline, so the loop needs no
    //! `#[target_feature]` wrapper.
    pub(super) use crate::kernels::aarch64::Neon;
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86-64 entry points: each wraps the whole decode loop in a
    //! `#[target_feature]` function, because features do not inline across
    //! that boundary. The safe wrappers are reachable only through
    //! [`super::KERNELS`], whose entries [`super::Variant::entry`] and
    //! [`super::Variant::dict_entry`] hand out only once the row's
    //! instruction set was detected.
    use super::Decoded;
    use crate::kernels::Kernel;
    pub(super) use crate::kernels::x86_64::{Avx2, Avx512Vbmi, Ssse3};
    use crate::lz4::block::decompress::{Dict, ExtDict, NoDict, decode_with};

    /// The safe entry points (without and with a dictionary) of one
    /// `#[target_feature]` loop.
    macro_rules! wrappers {
        ($features:literal, $isa:literal, $looped:ident, $plain:ident, $dict:ident) => {
            #[target_feature(enable = $features)]
            fn $looped<K: Kernel, const S: u8, D: Dict>(
                src: &[u8],
                buf: &mut [u8],
                start: usize,
                dict: D,
            ) -> Decoded<usize> {
                decode_with::<K, S, D>(src, buf, start, dict)
            }

            #[doc = concat!("The ", $isa, " loop of kernel `K` in shape `S`.")]
            pub(super) fn $plain<K: Kernel, const S: u8>(
                src: &[u8],
                buf: &mut [u8],
                start: usize,
            ) -> Decoded<usize> {
                // SAFETY: only reachable through a KERNELS row requiring
                // this instruction set, handed out by Variant::entry after
                // cpu::has detected it.
                unsafe { $looped::<K, S, NoDict>(src, buf, start, NoDict) }
            }

            #[doc = concat!("The ", $isa, " loop of kernel `K` in shape `S`, with a dictionary.")]
            pub(super) fn $dict<K: Kernel, const S: u8>(
                src: &[u8],
                dict: &[u8],
                dst: &mut [u8],
            ) -> Decoded<usize> {
                // SAFETY: only reachable through a KERNELS row requiring
                // this instruction set, handed out by Variant::dict_entry
                // after cpu::has detected it.
                unsafe { $looped::<K, S, ExtDict<'_>>(src, dst, 0, ExtDict(dict)) }
            }
        };
    }

    wrappers!("ssse3", "SSSE3", ssse3_loop, ssse3, ssse3_dict);
    wrappers!("avx2", "AVX2", avx2_loop, avx2, avx2_dict);
    wrappers!(
        "avx512f,avx512bw,avx512vbmi",
        "AVX-512 (F, BW, VBMI)",
        avx512_loop,
        avx512,
        avx512_dict
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_order_of_every_variant() {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        let kernels = [
            "portable8",
            "portable16",
            "portable32",
            "portable64",
            "ssse3-16",
            "avx2-32",
            "avx512-64",
            "neon16",
            "neon32",
            "neon64",
        ];
        let want: Vec<String> = ["", "m", "h"]
            .iter()
            .flat_map(|s| kernels.iter().map(move |k| format!("{k}{s}")))
            .collect();
        assert_eq!(names, want);
        let mut sorted = Variant::ALL.to_vec();
        sorted.sort();
        assert_eq!(sorted, Variant::ALL, "Ord follows ALL");
    }

    #[test]
    fn an_unavailable_variant_has_no_entry() {
        for &v in Variant::ALL {
            let row = v.kernel().row();
            assert_eq!(
                v.entry().is_some(),
                cpu::has(row.isa) && row.entries.is_some(),
                "{v}"
            );
        }
        assert!(Variant::plain(Kernel::Portable8).entry().is_some());
    }
}
