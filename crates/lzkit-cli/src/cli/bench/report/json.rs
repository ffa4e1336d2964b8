//! The report as one JSON object: the settings, a record per file and
//! the summary.

use std::fmt::Write as _;

use lzkit::lz4::block::Variant;

use super::super::measure::Sampling;
use super::super::render::{json_array, json_num, json_object, json_str};
use super::summary::{Derived, Summary};
use super::{DECODE_UNIT, FileResult, Report, Speeds, skipped};

impl Report {
    pub(super) fn json(&self, derived: &[Derived], sum: &Summary) -> String {
        let s = &self.settings;
        let names = |vs: &[Variant]| json_array(vs.iter().map(|v| json_str(v.name())));
        let mut out = String::from("{\n");
        let _ = writeln!(
            out,
            "  \"settings\": {},",
            json_object(&[
                ("source", json_str(&s.source)),
                ("block_size", s.block_size.to_string()),
                ("compressor", json_str(&s.compressor)),
                ("reference", json_str(&s.reference)),
                ("rounds", s.rounds.to_string()),
                ("stat", json_str(s.stat.name())),
                ("sampling", json_str(s.sampling.name())),
                ("hot", (s.sampling == Sampling::Hot).to_string()),
                ("cold", (s.sampling == Sampling::Cold).to_string()),
                ("seed", s.seed.to_string()),
                (
                    "interleave",
                    s.interleave
                        .map_or_else(|| "null".to_string(), |n| n.to_string()),
                ),
                ("unit", json_str(DECODE_UNIT)),
                ("variants", names(&s.variants)),
                ("skipped", names(&skipped(&s.variants))),
                ("candidates", names(&s.candidates)),
            ])
        );
        out.push_str("  \"files\": [\n");
        for (i, (f, d)) in self.files.iter().zip(derived).enumerate() {
            let sep = if i + 1 < self.files.len() { "," } else { "" };
            let _ = writeln!(out, "    {}{sep}", self.json_file(f, d));
        }
        out.push_str("  ],\n");
        let _ = writeln!(out, "  \"summary\": {}", self.json_summary(sum));
        out.push_str("}\n");
        out
    }

    fn json_file(&self, f: &FileResult, d: &Derived) -> String {
        let arms = json_array(f.adapt.arms.iter().map(|a| {
            json_object(&[
                ("variant", json_str(a.variant.name())),
                ("blocks", a.blocks.to_string()),
                ("timed", a.timed.to_string()),
                ("cost_per_byte", json_num(a.cost_per_byte)),
            ])
        }));
        json_object(&[
            ("file", json_str(&f.name)),
            ("bytes", f.bytes.to_string()),
            ("compressed_bytes", f.compressed.to_string()),
            ("blocks", f.blocks.to_string()),
            ("ratio", json_num(d.ratio)),
            ("gbps", self.json_speeds(&f.speeds)),
            ("max", json_num(d.max)),
            ("best", json_str(d.best.name())),
            ("adapt_boost", json_num(d.adapt_boost)),
            ("fresh_boost", json_num(d.fresh_boost)),
            ("free_boost", json_num(d.free_boost)),
            ("max_boost", json_num(d.max_boost)),
            ("adapt_over_max", json_num(d.adapt_over_max)),
            ("free_choice", json_str(f.free_choice.name())),
            ("preferred", json_str(f.adapt.preferred.name())),
            ("last", json_str(f.adapt.last.name())),
            (
                "prior",
                f.adapt
                    .prior
                    .map_or_else(|| "null".to_string(), |v| json_str(v.name())),
            ),
            ("arms", arms),
        ])
    }

    fn json_speeds(&self, s: &Speeds) -> String {
        let mut fields = vec![
            ("ref", json_num(s.reference)),
            ("lz4_flex", json_num(s.lz4_flex)),
        ];
        for (v, &g) in self.settings.variants.iter().zip(&s.variants) {
            fields.push((v.name(), json_num(g)));
        }
        fields.push(("adapt", json_num(s.adapt)));
        fields.push(("fresh", json_num(s.fresh)));
        fields.push(("free", json_num(s.free)));
        fields.push(("memcpy", json_num(s.memcpy)));
        json_object(&fields)
    }

    fn json_summary(&self, sum: &Summary) -> String {
        let geomean = json_object(&[
            ("ratio", json_num(sum.derived.ratio)),
            ("gbps", self.json_speeds(&sum.speeds)),
            ("max", json_num(sum.derived.max)),
            ("adapt_boost", json_num(sum.derived.adapt_boost)),
            ("fresh_boost", json_num(sum.derived.fresh_boost)),
            ("free_boost", json_num(sum.derived.free_boost)),
            ("max_boost", json_num(sum.derived.max_boost)),
            ("adapt_over_max", json_num(sum.derived.adapt_over_max)),
            ("adapt_over_fixed", json_num(sum.adapt_over_fixed)),
        ]);
        let worst: Vec<(&str, String)> = sum
            .worst
            .iter()
            .map(|w| {
                let o = json_object(&[("value", json_num(w.value)), ("file", json_str(&w.file))]);
                (w.column, o)
            })
            .collect();
        let preferred: Vec<(&str, String)> = sum
            .preferred
            .iter()
            .map(|(v, n)| (v.name(), n.to_string()))
            .collect();
        json_object(&[
            ("files", self.files.len().to_string()),
            ("bytes", sum.bytes.to_string()),
            ("blocks", sum.blocks.to_string()),
            ("geomean", geomean),
            ("worst", json_object(&worst)),
            ("best_fixed", json_str(sum.derived.best.name())),
            ("preferred_files", json_object(&preferred)),
            ("preferred_is_best_files", sum.preferred_is_best.to_string()),
            ("untimed_files", sum.untimed.to_string()),
        ])
    }
}
