//! The zstd decoder variants: the sequence loop ([`super::exec::exec`])
//! instantiated per copy kernel, from one table (as the LZ4 variants).

use super::exec::{ExecFn, exec};
#[cfg(target_arch = "x86_64")]
use super::exec::{Out, Seqs};
use crate::cpu::{self, Isa};
#[cfg(target_arch = "x86_64")]
use crate::error::ZstdFault;
use crate::kernels::portable::Portable;
use crate::lz4::block::Kernel;
use std::sync::OnceLock;

/// One kernel's row: its sequence loop (`None` where this build's target
/// cannot compile it). Its name (the kernel's plain-shape name) and
/// instruction set come from the kernel table of [`crate::lz4::block`].
struct Row {
    kernel: Kernel,
    /// Whether the loop also uses BMI2 (the x86-64 AVX2 and AVX-512 rows).
    bmi2: bool,
    entry: Option<ExecFn>,
}

/// `Some(entry)` on `target_arch = $arch`, `None` elsewhere.
macro_rules! on_arch {
    ($arch:literal, $entry:expr) => {{
        #[cfg(target_arch = $arch)]
        let entry = Some($entry as ExecFn);
        #[cfg(not(target_arch = $arch))]
        let entry = None;
        entry
    }};
}

/// Every kernel, indexed by [`Kernel`].
static ROWS: [Row; 10] = [
    Row {
        kernel: Kernel::Portable8,
        bmi2: false,
        entry: Some(exec::<Portable<8>> as ExecFn),
    },
    Row {
        kernel: Kernel::Portable16,
        bmi2: false,
        entry: Some(exec::<Portable<16>> as ExecFn),
    },
    Row {
        kernel: Kernel::Portable32,
        bmi2: false,
        entry: Some(exec::<Portable<32>> as ExecFn),
    },
    Row {
        kernel: Kernel::Portable64,
        bmi2: false,
        entry: Some(exec::<Portable<64>> as ExecFn),
    },
    Row {
        kernel: Kernel::Ssse3x16,
        bmi2: false,
        entry: on_arch!("x86_64", x86::ssse3),
    },
    Row {
        kernel: Kernel::Avx2x32,
        bmi2: true,
        entry: on_arch!("x86_64", x86::avx2),
    },
    Row {
        kernel: Kernel::Avx512x64,
        bmi2: true,
        entry: on_arch!("x86_64", x86::avx512),
    },
    Row {
        kernel: Kernel::Neon16,
        bmi2: false,
        entry: on_arch!("aarch64", exec::<arm::Neon<1>>),
    },
    Row {
        kernel: Kernel::Neon32,
        bmi2: false,
        entry: on_arch!("aarch64", exec::<arm::Neon<2>>),
    },
    Row {
        kernel: Kernel::Neon64,
        bmi2: false,
        entry: on_arch!("aarch64", exec::<arm::Neon<4>>),
    },
];

const _: () = {
    let mut k = 0;
    while k < ROWS.len() {
        assert!(ROWS[k].kernel as usize == k, "ROWS is indexed by Kernel");
        k += 1;
    }
};

const ALL: [Variant; 10] = {
    let mut all = [Variant(Kernel::Portable8); 10];
    let mut k = 0;
    while k < ROWS.len() {
        all[k] = Variant(ROWS[k].kernel);
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
        self.0.plain_name()
    }

    /// Look a variant up by [`Variant::name`].
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Copy width in bytes.
    pub fn width(self) -> usize {
        self.0.width()
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
        let row = &ROWS[self.0 as usize];
        if !cpu::has(self.0.isa()) || (row.bmi2 && !cpu::has(Isa::Bmi2)) {
            return None;
        }
        row.entry
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
    //! NEON is part of the AArch64 baseline: no wrapper needed.
    pub(super) use crate::kernels::aarch64::Neon;
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86-64 entry points: the whole sequence loop inside one
    //! `#[target_feature]` function each (features do not inline across
    //! that boundary), reachable only through [`super::ROWS`] after the
    //! instruction set was detected.
    use super::{Out, Seqs, ZstdFault, exec};
    use crate::kernels::x86_64::{Avx2, Avx512Vbmi, Ssse3};

    macro_rules! wrapper {
        ($features:literal, $inner:ident, $outer:ident, $kernel:ty) => {
            #[target_feature(enable = $features)]
            fn $inner(s: &mut Seqs<'_>, o: &mut Out<'_>) -> Result<(), ZstdFault> {
                exec::<$kernel>(s, o)
            }

            pub(super) fn $outer(s: &mut Seqs<'_>, o: &mut Out<'_>) -> Result<(), ZstdFault> {
                // SAFETY: only reachable through a ROWS entry requiring
                // this instruction set, handed out by Variant::entry after
                // cpu::has detected it.
                unsafe { $inner(s, o) }
            }
        };
    }

    wrapper!("ssse3", ssse3_loop, ssse3, Ssse3);
    wrapper!("avx2,bmi2", avx2_loop, avx2, Avx2);
    wrapper!(
        "avx512f,avx512bw,avx512vbmi,bmi2",
        avx512_loop,
        avx512,
        Avx512Vbmi
    );
}
