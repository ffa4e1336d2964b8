//! `--plot FILE.svg`: compression ratio against decompression speed, one
//! point per setting, the Pareto front as a line, the recommended settings
//! ringed. Drawn with `plotters`' SVG backend, which writes text as SVG
//! text for the viewer to render (no font is needed here).

use std::path::Path;

use lzkit::format::Codec;
use lzkit::probe::{Candidate, IoRate, Recommendation, Report};
use plotters::prelude::*;

/// The picture's size in pixels.
const SIZE: (u32, u32) = (960, 640);
/// LZ4 points.
const LZ4_COLOR: RGBColor = RGBColor(31, 119, 180);
/// zstd points.
const ZSTD_COLOR: RGBColor = RGBColor(44, 160, 44);
/// The rings around recommended settings.
const PICK_COLOR: RGBColor = RGBColor(214, 39, 40);

/// Draw `report` into `path` (an SVG file).
pub fn draw(path: &Path, report: &Report, io: IoRate, block: &str) -> Result<(), String> {
    let rec = report.recommend(io);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    chart(&root, report, io, &rec, block).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Setting `i`'s label: its name, and what it is recommended for.
fn label(c: &Candidate, i: usize, rec: &Recommendation) -> String {
    let roles: Vec<&str> = [(rec.read, "read"), (rec.write, "write"), (rec.size, "size")]
        .into_iter()
        .filter(|&(j, _)| j == i)
        .map(|(_, r)| r)
        .collect();
    match roles.is_empty() {
        true => c.setting.to_string(),
        false => format!("{} (best {})", c.setting, roles.join(", ")),
    }
}

fn chart<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    report: &Report,
    io: IoRate,
    rec: &Recommendation,
    block: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let cs = &report.candidates;
    let (speed_lo, speed_hi) = bounds(cs.iter().map(|c| c.decompress_mbps));
    let (ratio_lo, ratio_hi) = bounds(cs.iter().map(|c| c.ratio));
    let ratio_pad = ((ratio_hi - ratio_lo) * 0.08).max(0.05);
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("lzkit probe: ratio against decompression speed ({block})"),
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (speed_lo / 1.6..speed_hi * 1.6).log_scale(),
            (ratio_lo - ratio_pad).max(0.0)..ratio_hi + ratio_pad,
        )?;
    chart
        .configure_mesh()
        .x_desc("decompression speed, MB/s (10^6 bytes of data per second, one thread)")
        .y_desc("compression ratio")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.2}"))
        .draw()?;

    // The Pareto front, from the fastest decoder to the highest ratio.
    let mut front: Vec<(f64, f64)> = cs
        .iter()
        .filter(|c| c.pareto)
        .map(|c| (c.decompress_mbps, c.ratio))
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    chart
        .draw_series(LineSeries::new(front, BLACK.mix(0.5).stroke_width(2)))?
        .label("Pareto front (ratio vs decompression speed)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5)));

    for (codec, color) in [(Codec::Lz4, LZ4_COLOR), (Codec::Zstd, ZSTD_COLOR)] {
        let points: Vec<(f64, f64)> = cs
            .iter()
            .filter(|c| c.setting.codec == codec)
            .map(|c| (c.decompress_mbps, c.ratio))
            .collect();
        if points.is_empty() {
            continue;
        }
        chart
            .draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 5, color.filled())),
            )?
            .label(codec.name())
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, color.filled()));
    }
    let picks = [rec.read, rec.write, rec.size];
    chart
        .draw_series(picks.iter().map(|&i| {
            let c = &cs[i];
            Circle::new((c.decompress_mbps, c.ratio), 10, PICK_COLOR.stroke_width(2))
        }))?
        .label(format!("recommended at {io}"))
        .legend(|(x, y)| Circle::new((x + 10, y), 6, PICK_COLOR.stroke_width(2)));
    chart.draw_series(cs.iter().enumerate().map(|(i, c)| {
        Text::new(
            label(c, i, rec),
            (c.decompress_mbps * 1.06, c.ratio),
            ("sans-serif", 13).into_font(),
        )
    }))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

/// The smallest and largest of `values`, kept apart so that an axis has
/// a range even when all are equal, and positive for the log scale.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (1.0, 2.0);
    }
    match hi > lo {
        true => (lo, hi),
        false => (lo * 0.9, hi * 1.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_a_positive_range() {
        assert_eq!(bounds([3.0, 1.0, 2.0].into_iter()), (1.0, 3.0));
        let (lo, hi) = bounds([5.0, 5.0].into_iter());
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(bounds([f64::NAN, 0.0].into_iter()), (1.0, 2.0));
    }
}
