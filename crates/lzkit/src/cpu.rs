//! CPU feature detection, once per process: every question "can this CPU
//! run that instruction set?" in the crate is answered here.

use std::sync::atomic::{AtomicU32, Ordering};

/// An instruction set a kernel may require.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Isa {
    /// None beyond the target's baseline: plain Rust.
    Baseline,
    /// x86-64 SSSE3 (`pshufb`).
    Ssse3,
    /// x86-64 AVX2.
    Avx2,
    /// x86-64 AVX-512 F, BW and VBMI (`vpermb`).
    Avx512Vbmi,
    /// AArch64 NEON (part of the AArch64 baseline).
    Neon,
    /// x86-64 BMI2 (three-operand shifts: `shlx`, `shrx`), for the bit
    /// readers of entropy decoders.
    Bmi2,
    /// x86-64 LZCNT (a leading-zero count defined at 0, one instruction
    /// where `bsr` needs three), for the entropy table builds.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Lzcnt,
}

impl Isa {
    /// This instruction set's bit in the detected set.
    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// Set once detection has run: the cache is never 0 after it.
const DETECTED: u32 = 1 << 31;

/// The detected instruction sets (bits of [`Isa::bit`]) and [`DETECTED`],
/// or 0 before the first question.
static CACHE: AtomicU32 = AtomicU32::new(0);

/// Whether this CPU can run code that uses `isa`. Detects on the first
/// call; racing first calls both detect and store the same value.
#[inline(always)]
pub(crate) fn has(isa: Isa) -> bool {
    let mut bits = CACHE.load(Ordering::Relaxed);
    if bits == 0 {
        bits = first_detection();
    }
    bits & isa.bit() != 0
}

/// Detect and cache (the first question only, out of the callers' way).
#[cold]
#[inline(never)]
fn first_detection() -> u32 {
    let bits = detect() | DETECTED;
    CACHE.store(bits, Ordering::Relaxed);
    bits
}

/// Ask the CPU (through std's detection macros).
fn detect() -> u32 {
    #[allow(unused_mut)]
    let mut bits = Isa::Baseline.bit();
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("ssse3") {
            bits |= Isa::Ssse3.bit();
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            bits |= Isa::Avx2.bit();
        }
        if std::arch::is_x86_feature_detected!("bmi2") {
            bits |= Isa::Bmi2.bit();
        }
        if std::arch::is_x86_feature_detected!("lzcnt") {
            bits |= Isa::Lzcnt.bit();
        }
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
        {
            bits |= Isa::Avx512Vbmi.bit();
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            bits |= Isa::Neon.bit();
        }
    }
    bits
}

/// The CPU's time-stamp counter on x86-64 (a few nanoseconds to read),
/// nanoseconds since the first call elsewhere: a cheap clock whose ticks
/// are only compared with each other (see [`crate::adaptive::policy::ticks`]).
#[inline(always)]
pub(crate) fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC exists on every x86-64 CPU and has no preconditions.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        EPOCH
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_always_and_cached() {
        assert!(has(Isa::Baseline));
        let first = CACHE.load(Ordering::Relaxed);
        assert_ne!(first & DETECTED, 0);
        let _ = has(Isa::Avx2);
        assert_eq!(CACHE.load(Ordering::Relaxed), first);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(has(Isa::Avx2), std::arch::is_x86_feature_detected!("avx2"));
        #[cfg(not(target_arch = "x86_64"))]
        assert!(!has(Isa::Avx2));
    }
}
