//! The zstd decoder variants: the sequence loop ([`super::exec::exec`])
//! instantiated per copy kernel, derived from the kernel table
//! ([`crate::kernels::table`]), as the LZ4 variants are.

use super::exec::{ExecFn, exec};
use crate::kernels::table::{COUNT, Kernel, if_compiled, kernel_rows, map_rows, variant_lookups};
use std::sync::OnceLock;

/// The sequence loop of kernel type `$ty`: the loop itself where the
/// kernel needs no `#[target_feature]`, else a safe wrapper around one
/// `#[target_feature]` function that holds the whole loop (features do not
/// inline across that boundary), with the kernel's features and those of
/// the row's bit reader (BMI2 beside AVX2 and AVX-512). The wrapper is
/// reachable only through [`LOOPS`], whose entries [`Variant::entry`]
/// hands out only once both instruction sets were detected.
macro_rules! exec_entry {
    ($ty:ty, [], []) => {
        exec::<$ty> as ExecFn
    };
    ($ty:ty, [$($feature:literal),+], [$($bit_feature:literal),*]) => {{
        use super::exec::{Out, Seqs};
        use crate::error::ZstdFault;

        $(#[target_feature(enable = $feature)])+
        $(#[target_feature(enable = $bit_feature)])*
        fn looped(s: &mut Seqs<'_>, o: &mut Out<'_>) -> Result<(), ZstdFault> {
            exec::<$ty>(s, o)
        }

        fn entry(s: &mut Seqs<'_>, o: &mut Out<'_>) -> Result<(), ZstdFault> {
            // SAFETY: only reachable through a LOOPS entry of a kernel
            // needing these features, handed out by Variant::entry after
            // Kernel::is_available_with_bit_reader detected them.
            unsafe { looped(s, o) }
        }

        entry as ExecFn
    }};
}

/// One kernel's [`LOOPS`] entry: its sequence loop where the target
/// compiles it.
macro_rules! zstd_loop {
    ($name:literal, $cfg:tt, $features:tt, $bit_features:tt, $ty:ty) => {
        if_compiled!($cfg, exec_entry!($ty, $features, $bit_features))
    };
}

/// Every kernel's sequence loop, indexed by [`Kernel`] (`None` where this
/// build's target cannot compile the kernel).
static LOOPS: [Option<ExecFn>; COUNT] = kernel_rows!(map_rows; zstd_loop);

const ALL: [Variant; COUNT] = {
    let mut all = [Variant(Kernel::Portable8); COUNT];
    let mut k = 0;
    while k < COUNT {
        all[k] = Variant(Kernel::ALL[k]);
        k += 1;
    }
    all
};

/// One instantiation of the zstd sequence loop: a copy [`Kernel`] (its
/// width and the instruction set of its copies; matches with an offset
/// below the width are filled from a pattern register). Every variant
/// decodes exactly the same bytes and accepts exactly the same frames.
///
/// ```
/// use lzkit::zstd::Variant;
/// let v = Variant::from_name("portable16").unwrap();
/// assert!(v.is_available());
/// assert_eq!(v.to_string(), "portable16");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variant(Kernel);

impl Variant {
    /// Every variant this build knows, available or not.
    pub const ALL: &'static [Variant] = &ALL;

    /// The variant of `kernel`.
    pub const fn new(kernel: Kernel) -> Variant {
        Variant(kernel)
    }

    /// The copy kernel.
    pub const fn kernel(self) -> Kernel {
        self.0
    }

    /// Short name, as used by the CLI and in benchmark tables.
    #[inline(never)]
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// Copy width in bytes.
    pub fn width(self) -> usize {
        self.0.width()
    }

    /// Whether this CPU can run the variant.
    pub fn is_available(self) -> bool {
        self.entry().is_some()
    }

    /// The variants an adaptive [`super::Decoder`] chooses among: every
    /// available SIMD kernel, or without SIMD portable 16 and 32.
    pub fn candidates() -> &'static [Variant] {
        static CANDIDATES: OnceLock<Vec<Variant>> = OnceLock::new();
        CANDIDATES.get_or_init(|| {
            let simd: Vec<Variant> = Variant::available()
                .iter()
                .copied()
                .filter(|v| !v.0.is_portable())
                .collect();
            if simd.is_empty() {
                vec![Variant(Kernel::Portable16), Variant(Kernel::Portable32)]
            } else {
                simd
            }
        })
    }

    /// The variant used when no choice is made: the 32-byte SIMD kernel
    /// where there is one, else 16-byte, else portable 16-byte chunks.
    pub fn default_for_cpu() -> Variant {
        [
            Kernel::Avx2x32,
            Kernel::Ssse3x16,
            Kernel::Neon32,
            Kernel::Neon16,
        ]
        .into_iter()
        .map(Variant)
        .find(|v| v.is_available())
        .unwrap_or(Variant(Kernel::Portable16))
    }

    /// The sequence loop, if this CPU supports the variant. The only way
    /// to reach a `#[target_feature]` loop is through here, after its
    /// instruction set was detected.
    pub(crate) fn entry(self) -> Option<ExecFn> {
        if !self.0.is_available_with_bit_reader() {
            return None;
        }
        LOOPS[self.0 as usize]
    }
}

variant_lookups!(Variant);
