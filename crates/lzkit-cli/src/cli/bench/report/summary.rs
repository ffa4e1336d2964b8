//! The study's derived columns per file (`max`, `best`, the boosts) and
//! the summary over all files: geometric means, worst files, and what the
//! adaptive decoders chose.

use lzkit::lz4::block::{Kernel, Variant};

use super::{FileResult, Report, Speeds, geomean};

/// The study's derived columns for one file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Derived {
    /// Compression ratio: original / compressed.
    pub(super) ratio: f64,
    /// Speed of the fastest fixed lzkit variant.
    pub(super) max: f64,
    /// That variant.
    pub(super) best: Variant,
    /// adapt / ref.
    pub(super) adapt_boost: f64,
    /// fresh / ref.
    pub(super) fresh_boost: f64,
    /// free / ref.
    pub(super) free_boost: f64,
    /// max / ref.
    pub(super) max_boost: f64,
    /// adapt / max.
    pub(super) adapt_over_max: f64,
}

impl Derived {
    pub(super) fn of(file: &FileResult, variants: &[Variant]) -> Derived {
        let s = &file.speeds;
        let (best, max) = variants
            .iter()
            .zip(&s.variants)
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(&v, &g)| (v, g))
            .unwrap_or((Variant::plain(Kernel::Portable16), f64::NAN));
        Derived {
            ratio: file.bytes as f64 / file.compressed.max(1) as f64,
            max,
            best,
            adapt_boost: s.adapt / s.reference,
            fresh_boost: s.fresh / s.reference,
            free_boost: s.free / s.reference,
            max_boost: max / s.reference,
            adapt_over_max: s.adapt / max,
        }
    }
}

/// A ratio's lowest value over the files, and where.
#[derive(Debug, Clone)]
pub(super) struct Worst {
    pub(super) column: &'static str,
    pub(super) value: f64,
    pub(super) file: String,
}

/// The summary over all files.
#[derive(Debug, Clone)]
pub(super) struct Summary {
    pub(super) bytes: usize,
    pub(super) blocks: usize,
    /// Geometric means of the speeds, each file weighted equally.
    pub(super) speeds: Speeds,
    /// Geometric means of the derived columns; `best` is the fixed variant
    /// with the highest geometric mean speed: the best that choosing one
    /// variant for all data could do.
    pub(super) derived: Derived,
    /// adapt / that variant's speed, geometric mean.
    pub(super) adapt_over_fixed: f64,
    /// Lowest adapt_boost, fresh_boost, free_boost, max_boost,
    /// adapt_over_max, adapt_over_fixed.
    pub(super) worst: Vec<Worst>,
    /// Files on which each candidate was the adaptive decoder's preference.
    pub(super) preferred: Vec<(Variant, usize)>,
    /// Files on which each candidate was the variant the adaptive decoder
    /// started on (its data prior).
    pub(super) primed: Vec<(Variant, usize)>,
    /// Files on which the preference was the fastest fixed variant.
    pub(super) preferred_is_best: usize,
    /// Files of which the adaptive decoder timed no block (all too small).
    pub(super) untimed: usize,
}

impl Summary {
    pub(super) fn of(report: &Report, derived: &[Derived]) -> Summary {
        let files = &report.files;
        let variants = &report.settings.variants;
        let geo = |f: &dyn Fn(usize) -> f64| geomean((0..files.len()).map(f));
        let variant_geo: Vec<f64> = (0..variants.len())
            .map(|k| geo(&|i| files[i].speeds.variants[k]))
            .collect();
        let best_k = (0..variants.len())
            .max_by(|&a, &b| variant_geo[a].total_cmp(&variant_geo[b]))
            .unwrap_or(0);
        let over_fixed = |i: usize| files[i].speeds.adapt / files[i].speeds.variants[best_k];
        let worst_of = |column: &'static str, f: &dyn Fn(usize) -> f64| {
            let i = (0..files.len())
                .min_by(|&a, &b| f(a).total_cmp(&f(b)))
                .unwrap_or(0);
            Worst {
                column,
                value: f(i),
                file: files[i].name.clone(),
            }
        };
        let worst = vec![
            worst_of("adapt_boost", &|i| derived[i].adapt_boost),
            worst_of("fresh_boost", &|i| derived[i].fresh_boost),
            worst_of("free_boost", &|i| derived[i].free_boost),
            worst_of("max_boost", &|i| derived[i].max_boost),
            worst_of("adapt_over_max", &|i| derived[i].adapt_over_max),
            worst_of("adapt_over_fixed", &over_fixed),
        ];
        // Files per candidate on which `which` names that candidate.
        let per_candidate = |which: &dyn Fn(&FileResult) -> Option<Variant>| {
            let candidates = report.settings.candidates.iter();
            candidates
                .map(|&v| (v, files.iter().filter(|f| which(f) == Some(v)).count()))
                .collect()
        };
        let preferred = per_candidate(&|f| Some(f.adapt.preferred));
        let primed = per_candidate(&|f| f.adapt.prior);
        Summary {
            bytes: files.iter().map(|f| f.bytes).sum(),
            blocks: files.iter().map(|f| f.blocks).sum(),
            speeds: Speeds {
                reference: geo(&|i| files[i].speeds.reference),
                lz4_flex: geo(&|i| files[i].speeds.lz4_flex),
                variants: variant_geo,
                adapt: geo(&|i| files[i].speeds.adapt),
                fresh: geo(&|i| files[i].speeds.fresh),
                free: geo(&|i| files[i].speeds.free),
                memcpy: geo(&|i| files[i].speeds.memcpy),
            },
            derived: Derived {
                ratio: geo(&|i| derived[i].ratio),
                max: geo(&|i| derived[i].max),
                best: variants
                    .get(best_k)
                    .copied()
                    .unwrap_or(Variant::plain(Kernel::Portable16)),
                adapt_boost: geo(&|i| derived[i].adapt_boost),
                fresh_boost: geo(&|i| derived[i].fresh_boost),
                free_boost: geo(&|i| derived[i].free_boost),
                max_boost: geo(&|i| derived[i].max_boost),
                adapt_over_max: geo(&|i| derived[i].adapt_over_max),
            },
            adapt_over_fixed: geo(&over_fixed),
            worst,
            preferred,
            primed,
            preferred_is_best: files
                .iter()
                .zip(derived)
                .filter(|(f, d)| f.adapt.preferred == d.best)
                .count(),
            untimed: files
                .iter()
                .filter(|f| f.adapt.arms.iter().all(|a| a.timed == 0))
                .count(),
        }
    }
}

/// "variant on n" for each (variant, file count).
pub(super) fn on_files<'a>(counts: impl Iterator<Item = &'a (Variant, usize)>) -> Vec<String> {
    counts
        .map(|(v, n)| format!("{} on {n}", v.name()))
        .collect()
}
