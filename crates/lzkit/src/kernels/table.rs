//! The kernel table: every copy kernel's identity, defined once. A row
//! gives the kernel's id ([`Kernel`]), its name, its copy width, the
//! instruction set its copies need (with the `#[target_feature]` names that
//! enable it), the instruction set a loop that also reads a bitstream may
//! use beside it, the targets that can compile it, and its implementation
//! of the [`super::Kernel`] primitives.
//!
//! Each codec derives its variant table from these rows (see
//! [`kernel_rows`]): it instantiates its loop once per row, behind a
//! `#[target_feature]` wrapper where the row has features to enable. Adding
//! a kernel is its instruction-set file (the primitives) and one row here.

use crate::cpu::{self, Isa};

/// Expand `$callback! { $($arg;)? rows }` with every row of the kernel
/// table, in [`Kernel`]'s order; codecs call it as
/// `kernel_rows!(map_rows; each)` (see [`map_rows`]). A row is
///
/// ```text
/// /// doc
/// Id {
///     name: "name", width: W,
///     isa: Isa ["target-feature", ...],
///     bit_reader: Isa ["target-feature", ...],
///     cfg: (a cfg predicate: the targets that compile the kernel),
///     ty: the type implementing the kernel primitives,
/// }
/// ```
///
/// An empty feature list means "no `#[target_feature]` wrapper": the
/// kernel's instruction set is the target's baseline (portable Rust, NEON
/// on AArch64). `bit_reader` names what a loop that also reads a bitstream
/// (zstd's sequences) may enable beside `isa` on the CPUs that have it.
macro_rules! kernel_rows {
    ($callback:ident $(; $arg:ident)?) => {
        $callback! {
            $($arg;)?
            /// Portable Rust, 8-byte chunks.
            Portable8 {
                name: "portable8", width: 8,
                isa: Baseline [], bit_reader: Baseline [],
                cfg: (all()), ty: $crate::kernels::portable::Portable<8>,
            }
            /// Portable Rust, 16-byte chunks.
            Portable16 {
                name: "portable16", width: 16,
                isa: Baseline [], bit_reader: Baseline [],
                cfg: (all()), ty: $crate::kernels::portable::Portable<16>,
            }
            /// Portable Rust, 32-byte chunks.
            Portable32 {
                name: "portable32", width: 32,
                isa: Baseline [], bit_reader: Baseline [],
                cfg: (all()), ty: $crate::kernels::portable::Portable<32>,
            }
            /// Portable Rust, 64-byte chunks.
            Portable64 {
                name: "portable64", width: 64,
                isa: Baseline [], bit_reader: Baseline [],
                cfg: (all()), ty: $crate::kernels::portable::Portable<64>,
            }
            /// x86-64 SSSE3: 16-byte chunks, `pshufb` pattern fill.
            Ssse3x16 {
                name: "ssse3-16", width: 16,
                isa: Ssse3 ["ssse3"], bit_reader: Baseline [],
                cfg: (target_arch = "x86_64"), ty: $crate::kernels::x86_64::Ssse3,
            }
            /// x86-64 AVX2: 32-byte chunks, `vpshufb` pattern fill.
            Avx2x32 {
                name: "avx2-32", width: 32,
                isa: Avx2 ["avx2"], bit_reader: Bmi2 ["bmi2"],
                cfg: (target_arch = "x86_64"), ty: $crate::kernels::x86_64::Avx2,
            }
            /// x86-64 AVX-512 VBMI: 64-byte chunks, `vpermb` pattern fill.
            Avx512x64 {
                name: "avx512-64", width: 64,
                isa: Avx512Vbmi ["avx512f", "avx512bw", "avx512vbmi"],
                bit_reader: Bmi2 ["bmi2"],
                cfg: (target_arch = "x86_64"), ty: $crate::kernels::x86_64::Avx512Vbmi,
            }
            /// AArch64 NEON: 16-byte chunks, `tbl` pattern fill.
            Neon16 {
                name: "neon16", width: 16,
                isa: Neon [], bit_reader: Baseline [],
                cfg: (target_arch = "aarch64"), ty: $crate::kernels::aarch64::Neon<1>,
            }
            /// AArch64 NEON: 32-byte chunks (two registers).
            Neon32 {
                name: "neon32", width: 32,
                isa: Neon [], bit_reader: Baseline [],
                cfg: (target_arch = "aarch64"), ty: $crate::kernels::aarch64::Neon<2>,
            }
            /// AArch64 NEON: 64-byte chunks (four registers).
            Neon64 {
                name: "neon64", width: 64,
                isa: Neon [], bit_reader: Baseline [],
                cfg: (target_arch = "aarch64"), ty: $crate::kernels::aarch64::Neon<4>,
            }
        }
    };
}
pub(crate) use kernel_rows;

/// `[$each!(name, (cfg), [features], [bit_reader features], type), ...]`:
/// an array with one element per kernel, indexed by [`Kernel`], built by
/// `$each` from the row's name, cfg predicate, features and type (with
/// [`if_compiled`] for the cfg predicate).
macro_rules! map_rows {
    ($each:ident; $(
        $(#[$doc:meta])*
        $id:ident {
            name: $name:literal, width: $width:literal,
            isa: $isa:ident [$($feature:literal),*],
            bit_reader: $bits:ident [$($bit_feature:literal),*],
            cfg: ($($cfg:tt)*), ty: $ty:ty,
        }
    )*) => {
        [$($each!($name, ($($cfg)*), [$($feature),*], [$($bit_feature),*], $ty),)*]
    };
}
pub(crate) use map_rows;

/// `Some($value)` where the row's `cfg` predicate holds (the target can
/// compile the kernel), `None` elsewhere, where the kernel's type does not
/// exist.
macro_rules! if_compiled {
    (($($cfg:tt)*), $value:expr) => {{
        #[cfg($($cfg)*)]
        let value = Some($value);
        #[cfg(not($($cfg)*))]
        let value = None;
        value
    }};
}
pub(crate) use if_compiled;

/// What a codec's variant type (`$variant`, with `ALL`, `name()` and a
/// crate-internal `entry()` that is `Some` only where the CPU can run the
/// variant) derives from its table alike in every codec: lookup by name,
/// the available variants, and `Display` and `Debug` as the name.
macro_rules! variant_lookups {
    ($variant:ident) => {
        impl $variant {
            /// Look a variant up by its name (as used by the CLI and in
            /// benchmark tables).
            pub fn from_name(name: &str) -> Option<$variant> {
                $variant::ALL.iter().copied().find(|v| v.name() == name)
            }

            /// The variants this CPU can run, detected once per process.
            pub fn available() -> &'static [$variant] {
                static AVAILABLE: std::sync::OnceLock<Vec<$variant>> = std::sync::OnceLock::new();
                AVAILABLE.get_or_init(|| {
                    $variant::ALL
                        .iter()
                        .copied()
                        .filter(|v| v.entry().is_some())
                        .collect()
                })
            }
        }

        impl std::fmt::Display for $variant {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::fmt::Debug for $variant {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use variant_lookups;

/// One kernel's identity: a row of the table, less its type.
struct Row {
    name: &'static str,
    width: usize,
    isa: Isa,
    bit_reader: Isa,
}

/// The kernel ids and their rows, from [`kernel_rows`].
macro_rules! identities {
    ($(
        $(#[$doc:meta])*
        $id:ident {
            name: $name:literal, width: $width:literal,
            isa: $isa:ident [$($feature:literal),*],
            bit_reader: $bits:ident [$($bit_feature:literal),*],
            cfg: ($($cfg:tt)*), ty: $ty:ty,
        }
    )*) => {
        /// A copy kernel: a copy width and the instruction set its copies
        /// use (one row of the kernel table). Every codec's decode loop is
        /// instantiated once per kernel (and, for LZ4, per loop shape).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Kernel {
            $($(#[$doc])* $id,)*
        }

        /// Every kernel's row, indexed by [`Kernel`].
        static ROWS: [Row; COUNT] = [$(
            Row {
                name: $name,
                width: $width,
                isa: Isa::$isa,
                bit_reader: Isa::$bits,
            },
        )*];

        impl Kernel {
            /// Every kernel this build knows, compiled or not, in table
            /// order.
            pub(crate) const ALL: &'static [Kernel] = &[$(Kernel::$id,)*];
        }
    };
}

kernel_rows!(identities);

/// How many kernels the table has: the length of each codec's table.
pub(crate) const COUNT: usize = Kernel::ALL.len();

// The accessors that read ROWS are neither `const` nor inlinable into
// other crates: a body that other crates may inline makes the tables, and
// through the codecs' entry points the whole decode loops, exported
// symbols, which the loops then call through the GOT instead of directly.
impl Kernel {
    /// This kernel's row.
    fn row(self) -> &'static Row {
        &ROWS[self as usize]
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

    /// The kernel's name (`ssse3-16`): the name of its variant in the
    /// codecs whose loops come in one shape (zstd), the stem of the LZ4
    /// variants' names.
    pub(crate) fn name(self) -> &'static str {
        self.row().name
    }

    /// Whether this CPU has the kernel's instruction set: the only
    /// condition under which a codec hands out an entry point on it (most
    /// of which are `#[target_feature]` functions). Never for a kernel this
    /// build's target cannot compile: its instruction set is another
    /// architecture's, which detection never reports.
    pub(crate) fn is_available(self) -> bool {
        cpu::has(self.row().isa)
    }

    /// [`Kernel::is_available`] for a loop that also enables the row's
    /// `bit_reader` instruction set.
    pub(crate) fn is_available_with_bit_reader(self) -> bool {
        self.is_available() && cpu::has(self.row().bit_reader)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_portable_kernels_always_available() {
        for (i, a) in Kernel::ALL.iter().enumerate() {
            for b in &Kernel::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
            if a.is_portable() {
                assert!(a.is_available() && a.is_available_with_bit_reader());
            }
        }
    }
}
