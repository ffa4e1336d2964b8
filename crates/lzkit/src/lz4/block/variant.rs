//! The decoder variants: the one decode loop ([`super::decompress::decode`])
//! instantiated per copy kernel and loop shape, derived from the kernel
//! table ([`crate::kernels::table`]).
//!
//! Adding a kernel costs nothing here: its row of the kernel table gives
//! the variants' names, widths, CPU requirements, and the type from which
//! `lz4_row` instantiates the loop (behind a `#[target_feature]`
//! wrapper where the row has features to enable).

use super::decompress::{Decoded, MATCH_ONLY, MEDIUM, PLAIN, decode, decode_dict};
use crate::kernels::table::{COUNT, Kernel, if_compiled, kernel_rows, map_rows, variant_lookups};
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

/// One kernel's LZ4 row: its variants' names per shape and its decode
/// loop's entry points per shape (`None` where this build's target cannot
/// compile the kernel).
struct Row {
    names: [&'static str; 3],
    entries: Option<Entries>,
}

/// The decode loop of kernel type `$ty` in the three shapes, without and
/// with a dictionary: the loop itself where the kernel needs no
/// `#[target_feature]`, else safe wrappers around one `#[target_feature]`
/// function that holds the whole loop (features do not inline across that
/// boundary). The wrappers are reachable only through [`ROWS`], whose
/// entries [`Variant::entry`] and [`Variant::dict_entry`] hand out only
/// once the kernel's instruction set was detected.
macro_rules! entries {
    ($ty:ty, []) => {
        Entries {
            plain: [
                decode::<$ty, PLAIN> as DecodeFn,
                decode::<$ty, MATCH_ONLY>,
                decode::<$ty, MEDIUM>,
            ],
            dict: [
                decode_dict::<$ty, PLAIN> as DictDecodeFn,
                decode_dict::<$ty, MATCH_ONLY>,
                decode_dict::<$ty, MEDIUM>,
            ],
        }
    };
    ($ty:ty, [$($feature:literal),+]) => {{
        use super::decompress::{Dict, ExtDict, NoDict, decode_with};

        $(#[target_feature(enable = $feature)])+
        fn looped<const S: u8, D: Dict>(
            src: &[u8],
            buf: &mut [u8],
            start: usize,
            dict: D,
        ) -> Decoded<usize> {
            decode_with::<$ty, S, D>(src, buf, start, dict)
        }

        fn plain<const S: u8>(src: &[u8], buf: &mut [u8], start: usize) -> Decoded<usize> {
            // SAFETY: only reachable through a ROWS row of a kernel needing
            // these features, handed out by Variant::entry after
            // Kernel::is_available detected them.
            unsafe { looped::<S, NoDict>(src, buf, start, NoDict) }
        }

        fn dict<const S: u8>(src: &[u8], dict: &[u8], dst: &mut [u8]) -> Decoded<usize> {
            // SAFETY: only reachable through a ROWS row of a kernel needing
            // these features, handed out by Variant::dict_entry after
            // Kernel::is_available detected them.
            unsafe { looped::<S, ExtDict<'_>>(src, dst, 0, ExtDict(dict)) }
        }

        Entries {
            plain: [
                plain::<PLAIN> as DecodeFn,
                plain::<MATCH_ONLY>,
                plain::<MEDIUM>,
            ],
            dict: [
                dict::<PLAIN> as DictDecodeFn,
                dict::<MATCH_ONLY>,
                dict::<MEDIUM>,
            ],
        }
    }};
}

/// One kernel's [`Row`]: names `<kernel>`, `<kernel>m`, `<kernel>h`, and
/// the loop of the row's type where the target compiles it.
macro_rules! lz4_row {
    ($name:literal, $cfg:tt, $features:tt, $bit_features:tt, $ty:ty) => {
        Row {
            names: [$name, concat!($name, "m"), concat!($name, "h")],
            entries: if_compiled!($cfg, entries!($ty, $features)),
        }
    };
}

/// Every kernel's LZ4 row, indexed by [`Kernel`].
static ROWS: [Row; COUNT] = kernel_rows!(map_rows; lz4_row);

/// `kernel`'s row of [`ROWS`]. The public accessors that read it are not
/// inlinable into other crates (see `crate::kernels::table`).
fn row(kernel: Kernel) -> &'static Row {
    &ROWS[kernel as usize]
}

/// Every variant, shape by shape, kernel by kernel within a shape.
const ALL_VARIANTS: [Variant; 3 * COUNT] = {
    let mut all = [Variant::new(Kernel::Portable8, Shape::Plain); 3 * COUNT];
    let mut s = 0;
    while s < 3 {
        let mut k = 0;
        while k < COUNT {
            all[s * COUNT + k] = Variant::new(Kernel::ALL[k], Shape::ALL[s]);
            k += 1;
        }
        s += 1;
    }
    all
};

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
        row(self.kernel).names[self.shape as usize]
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

    /// Copy width in bytes.
    pub fn width(self) -> usize {
        self.kernel.width()
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
        if !self.kernel.is_available() {
            return None;
        }
        Some(row(self.kernel).entries.as_ref()?.plain[self.shape as usize])
    }

    /// The entry point with an external dictionary, where [`Variant::entry`]
    /// has one (the same row and the same instruction set).
    pub(crate) fn dict_entry(self) -> Option<DictDecodeFn> {
        if !self.kernel.is_available() {
            return None;
        }
        Some(row(self.kernel).entries.as_ref()?.dict[self.shape as usize])
    }
}

variant_lookups!(Variant);

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
            let entries = row(v.kernel()).entries.is_some();
            assert_eq!(v.entry().is_some(), v.kernel().is_available(), "{v}");
            assert_eq!(v.dict_entry().is_some(), v.kernel().is_available(), "{v}");
            assert!(!v.kernel().is_available() || entries, "{v}");
        }
        assert!(Variant::plain(Kernel::Portable8).entry().is_some());
    }
}
