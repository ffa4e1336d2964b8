//! `--plot FILE.svg`: compression ratio against decompression speed, one
//! point per setting with its ratio's 95% interval as a vertical bar, the
//! Pareto front as a line, the recommended settings ringed. Drawn with
//! `plotters`' SVG backend, which writes text as SVG text for the viewer to
//! render (no font is needed here). `--plot DIR/` draws one per file
//! ([`file_names`] names them).

use std::collections::HashSet;
use std::path::Path;

use lzkit::format::Codec;
use lzkit::probe::{Candidate, IoRate, Recommendation, Report};
use plotters::prelude::*;

use crate::cli::report::describe_io;

/// The picture's size in pixels.
const SIZE: (u32, u32) = (960, 640);
/// LZ4 points.
const LZ4_COLOR: RGBColor = RGBColor(31, 119, 180);
/// zstd points.
const ZSTD_COLOR: RGBColor = RGBColor(44, 160, 44);
/// The rings around recommended settings.
const PICK_COLOR: RGBColor = RGBColor(214, 39, 40);
/// The interval bars: a grey no other element uses, so that the SVG's
/// bars can be told apart (`stroke="#505050"`), one polyline each.
const BAR_COLOR: RGBColor = RGBColor(80, 80, 80);
/// The bars' legend: what the report's ratio intervals are
/// ([`Candidate::ratio_interval`]). Speeds have none (the speed axis says
/// why).
const BARS_LABEL: &str = "bars: 95% confidence interval of the ratio";
/// Half the width of a bar's caps, in pixels.
const CAP: i32 = 4;
/// The name of the plot of all the files in `--plot DIR/`.
pub const ALL: &str = "all.svg";
/// The longest file name made for a plot, in bytes (file systems allow 255).
const MAX_NAME: usize = 200;

/// What one plot is of: the caption's start (`lzkit probe`, or which file).
pub struct Title<'a> {
    /// What was probed, before the caption's "ratio against ...".
    pub what: &'a str,
    /// The block size, as the report shows it.
    pub block: &'a str,
}

/// Draw `report` into `path` (an SVG file).
pub fn draw(path: &Path, report: &Report, io: IoRate, title: &Title) -> Result<(), String> {
    std::fs::write(path, svg(report, io, title)?).map_err(|e| describe_io(&e))
}

/// `report` drawn as an SVG document.
fn svg(report: &Report, io: IoRate, title: &Title) -> Result<String, String> {
    let rec = report.recommend(io);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        chart(&root, report, io, &rec, title).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
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

/// A candidate's ratio interval where it has width: `None` without one
/// (a single block) or for an exact ratio (the whole input sampled).
fn bar(c: &Candidate) -> Option<(f64, f64)> {
    c.ratio_interval
        .filter(|&(low, high)| high > low && low.is_finite() && high.is_finite())
}

/// The plot file names of `--plot DIR/` for inputs named `names` (paths,
/// or the built-in corpus's names), in order: each input's file name (its
/// last component), every character other than a letter, a digit or
/// `. - _ +` replaced by `_`, a leading `.` too (no hidden file, no `..`),
/// at most [`MAX_NAME`] bytes, then `.svg`; a name already used (by an
/// earlier input, or [`ALL`]; compared ignoring case, as macOS and Windows
/// file systems do) gets `-2`, `-3`... before `.svg`. None can leave the
/// directory or clash with another, or with the plot of all of them.
pub fn file_names(names: &[&str]) -> Vec<String> {
    let mut used: HashSet<String> = HashSet::from([ALL.to_lowercase()]);
    names
        .iter()
        .map(|name| {
            let stem = safe_stem(name);
            let name = (1..)
                .map(|n| match n {
                    1 => format!("{stem}.svg"),
                    n => format!("{stem}-{n}.svg"),
                })
                .find(|candidate| !used.contains(&candidate.to_lowercase()))
                .expect("some suffix is free");
            used.insert(name.to_lowercase());
            name
        })
        .collect()
}

/// `name`'s last component as a safe file name (see [`file_names`]).
fn safe_stem(name: &str) -> String {
    let last = name
        .rsplit(|c: char| c == '/' || std::path::is_separator(c))
        .find(|part| !part.is_empty())
        .unwrap_or("");
    let mut stem = String::new();
    for (i, c) in last.chars().enumerate() {
        let keep = c.is_alphanumeric() || matches!(c, '-' | '_' | '+') || (c == '.' && i > 0);
        let c = if keep { c } else { '_' };
        if stem.len() + c.len_utf8() > MAX_NAME {
            break;
        }
        stem.push(c);
    }
    if stem.is_empty() {
        stem.push_str("file");
    }
    // Windows reserves these names, with any extension.
    let base = stem.split('.').next().unwrap_or("").to_ascii_uppercase();
    let reserved = matches!(base.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || (base.len() == 4
            && (base.starts_with("COM") || base.starts_with("LPT"))
            && base.as_bytes()[3].is_ascii_digit());
    if reserved {
        stem.insert(0, '_');
    }
    stem
}

fn chart<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    report: &Report,
    io: IoRate,
    rec: &Recommendation,
    title: &Title,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let cs = &report.candidates;
    let (speed_lo, speed_hi) = bounds(cs.iter().map(|c| c.decompress_mbps));
    // The ratio axis holds the bars whole.
    let (ratio_lo, ratio_hi) = bounds(cs.iter().flat_map(|c| {
        let (low, high) = bar(c).unwrap_or((c.ratio, c.ratio));
        [c.ratio, low, high]
    }));
    let ratio_pad = ((ratio_hi - ratio_lo) * 0.08).max(0.05);
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!(
                "{}: ratio against decompression speed ({})",
                title.what, title.block
            ),
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
        .x_desc(
            "decompression speed, MB/s (10^6 bytes of data per second, one thread; \
             best pass, no interval)",
        )
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

    // The ratios' intervals, under the points: a stem from low to high
    // with caps, one polyline each (in pixels from the top end, so that
    // the caps keep their width on the log axis). Speeds have no interval
    // (each is the best of repeated passes), so no horizontal bars.
    let bars: Vec<(f64, f64, f64)> = cs
        .iter()
        .filter_map(|c| bar(c).map(|(low, high)| (c.decompress_mbps, low, high)))
        .collect();
    if !bars.is_empty() {
        let stems: Vec<_> = bars
            .iter()
            .map(|&(speed, low, high)| {
                let length =
                    chart.backend_coord(&(speed, low)).1 - chart.backend_coord(&(speed, high)).1;
                EmptyElement::at((speed, high))
                    + PathElement::new(bar_path(length), BAR_COLOR.stroke_width(1))
            })
            .collect();
        chart
            .draw_series(stems)?
            .label(BARS_LABEL)
            .legend(|(x, y)| {
                EmptyElement::at((x + 10, y - 6))
                    + PathElement::new(bar_path(12), BAR_COLOR.stroke_width(1))
            });
    }

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

/// An interval bar `length` pixels long, from its top end down: the top
/// cap, the stem, the bottom cap.
fn bar_path(length: i32) -> Vec<(i32, i32)> {
    vec![
        (-CAP, 0),
        (CAP, 0),
        (0, 0),
        (0, length),
        (-CAP, length),
        (CAP, length),
    ]
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
    use lzkit::probe::{BlockSize, Setting};

    /// Four settings: two with a ratio interval, one exact, one without.
    fn report() -> Report {
        let c = |setting: Setting, ratio: f64, dec: f64, interval| Candidate {
            setting,
            ratio,
            ratio_interval: interval,
            sample_bytes: 1 << 20,
            blocks: 16,
            compressed_bytes: ((1 << 20) as f64 / ratio) as u64,
            compress_mbps: 10_000.0 / dec,
            compress_mbps_threads: 20_000.0 / dec,
            decompress_mbps: dec,
            reference_decompress_mbps: None,
            compress_memory: 80 << 10,
            decompress_memory: 64 << 10,
            pareto: true,
            pareto_compress: true,
        };
        Report {
            input_bytes: 1 << 30,
            files: 2,
            sample_bytes: 1 << 20,
            blocks: 16,
            block_size: BlockSize::Bytes(64 << 10),
            whole_input: false,
            threads: 2,
            calibration: None,
            candidates: vec![
                c(Setting::lz4(1), 2.0, 4000.0, Some((1.9, 2.1))),
                c(Setting::lz4(9), 2.5, 3500.0, Some((2.5, 2.5))),
                c(Setting::zstd(3), 3.0, 1200.0, Some((2.0, 4.5))),
                c(Setting::zstd(19), 3.6, 1000.0, None),
            ],
        }
    }

    /// The interval bars' polylines in `svg` (the legend's among them).
    fn bars(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.starts_with("<polyline") && l.contains(r##"stroke="#505050""##))
            .collect()
    }

    /// The integer attribute `name` of an SVG element's line.
    fn attribute(line: &str, name: &str) -> i32 {
        let start = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[start..].split('"').next().unwrap().parse().unwrap()
    }

    /// A polyline's points.
    fn points_of(line: &str) -> Vec<(i32, i32)> {
        let start = line.find("points=\"").unwrap() + 8;
        line[start..]
            .split('"')
            .next()
            .unwrap()
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    fn title() -> Title<'static> {
        Title {
            what: "lzkit probe, <a&b>",
            block: "64 KiB",
        }
    }

    #[test]
    fn intervals_are_bars_and_the_legend_says_so() {
        let report = report();
        let drawn = svg(&report, IoRate::MEMORY, &title()).unwrap();
        assert_eq!(report.candidates.iter().filter_map(bar).count(), 2);
        // Two bars and the legend's: the exact ratio and the one without
        // an interval have none.
        assert_eq!(bars(&drawn).len(), 3, "{drawn}");
        assert!(drawn.contains("bars: 95% confidence interval of the ratio"));
        // A stem with caps: six points, the caps 2 * CAP wide.
        let first = points_of(bars(&drawn)[0]);
        assert_eq!(first.len(), 6);
        assert_eq!(first[1].0 - first[0].0, 2 * CAP);
        // zstd -3's interval is longer than lz4 -1's on the ratio axis.
        let length = |line: &str| {
            let p = points_of(line);
            p[3].1 - p[2].1
        };
        assert!(length(bars(&drawn)[1]) > 5 * length(bars(&drawn)[0]));
        // Each bar stands on its setting's point: the stem at the point's
        // x, from above it to below.
        let circles: Vec<(i32, i32)> = drawn
            .lines()
            .filter(|l| l.starts_with("<circle") && l.contains(r#"r="5""#))
            .map(|l| (attribute(l, "cx"), attribute(l, "cy")))
            .collect();
        for (bar, c) in bars(&drawn).iter().zip([&circles[0], &circles[2]]) {
            let points = points_of(bar);
            // The stem: the third and fourth points.
            assert_eq!((points[2].0, points[3].0), (c.0, c.0), "{bar}");
            assert!(points[2].1 < c.1 && c.1 < points[3].1, "{bar} {c:?}");
        }
        // The recommendations stay ringed, the caption escaped.
        assert!(drawn.contains("recommended at memory"));
        assert!(drawn.contains("lzkit probe, &lt;a&amp;b&gt;: ratio against"));

        // No interval with width: no bars, no legend for them.
        let mut exact = report.clone();
        for c in &mut exact.candidates {
            c.ratio_interval = Some((c.ratio, c.ratio));
        }
        let drawn = svg(&exact, IoRate::MEMORY, &title()).unwrap();
        assert!(bars(&drawn).is_empty() && !drawn.contains("bars:"));
    }

    #[test]
    fn plot_names_are_safe_and_distinct() {
        let names = file_names(&[
            "dir/a.Int64",
            "other/a.Int64",
            "x/A.int64",
            "d/all",
            "d/ALL.svg",
            "../../etc/passwd",
            "d/..",
            "d/.hidden",
            "d/sp ace:*?<>|\"",
            "d/été.bin",
            "d/con.txt",
            "d/COM1",
            "",
            "/",
        ]);
        assert_eq!(
            names,
            [
                "a.Int64.svg",
                "a.Int64-2.svg",
                "A.int64-3.svg",
                "all-2.svg",
                "ALL.svg.svg",
                "passwd.svg",
                "_..svg",
                "_hidden.svg",
                "sp_ace_______.svg",
                "été.bin.svg",
                "_con.txt.svg",
                "_COM1.svg",
                "file.svg",
                "file-2.svg",
            ]
        );
        for name in &names {
            assert!(!name.contains('/') && !name.contains('\\') && !name.starts_with('.'));
        }
        let long = "x".repeat(300);
        assert_eq!(file_names(&[&long])[0].len(), MAX_NAME + 4);
        // A numbered name taken by an earlier input: the next number.
        assert_eq!(
            file_names(&["b-2", "b", "b"]),
            ["b-2.svg", "b.svg", "b-3.svg"]
        );
    }

    #[test]
    fn bounds_are_a_positive_range() {
        assert_eq!(bounds([3.0, 1.0, 2.0].into_iter()), (1.0, 3.0));
        let (lo, hi) = bounds([5.0, 5.0].into_iter());
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(bounds([f64::NAN, 0.0].into_iter()), (1.0, 2.0));
    }
}
