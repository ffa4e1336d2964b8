//! Rendering primitives for the report: cells formatted per output format,
//! tables as aligned text, markdown or CSV, and JSON literals.

use std::fmt::Write as _;

/// One table cell, formatted per output format.
#[derive(Debug, Clone)]
pub enum Cell {
    /// Text, left-aligned in tables.
    Text(String),
    /// A count, printed as is.
    Count(u64),
    /// A signed integer, printed as is (a compression level).
    Int(i64),
    /// A size in bytes: human-readable in tables, exact in CSV.
    Size(u64),
    /// A speed in GB/s (2 decimals in tables). In this and the other
    /// numbers, NaN stands for a value not measured: "-" in tables, an
    /// empty CSV field, `null` in JSON.
    Speed(f64),
    /// A ratio of speeds (3 decimals in tables: the targets are in
    /// hundredths, so the third digit tells which side of one a value is).
    Ratio(f64),
    /// A compression ratio (2 decimals in tables).
    Compression(f64),
    /// Nothing (a column a summary row has no value for).
    Empty,
}

impl Cell {
    fn table(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Count(n) => n.to_string(),
            Cell::Int(n) => n.to_string(),
            Cell::Size(n) => human_size(*n),
            // Not measured (a reference not built in).
            Cell::Speed(x) | Cell::Ratio(x) | Cell::Compression(x) if x.is_nan() => "-".into(),
            Cell::Speed(x) | Cell::Compression(x) => format!("{x:.2}"),
            Cell::Ratio(x) => format!("{x:.3}"),
            Cell::Empty => String::new(),
        }
    }

    fn csv(&self) -> String {
        match self {
            Cell::Text(s) => csv_field(s),
            Cell::Count(n) | Cell::Size(n) => n.to_string(),
            Cell::Int(n) => n.to_string(),
            Cell::Speed(x) | Cell::Ratio(x) | Cell::Compression(x) if x.is_nan() => String::new(),
            Cell::Speed(x) | Cell::Ratio(x) | Cell::Compression(x) => format!("{x:.4}"),
            Cell::Empty => String::new(),
        }
    }

    /// The cell as a JSON value (an empty cell is `null`).
    pub fn json(&self) -> String {
        match self {
            Cell::Text(s) => json_str(s),
            Cell::Count(n) | Cell::Size(n) => n.to_string(),
            Cell::Int(n) => n.to_string(),
            Cell::Speed(x) | Cell::Ratio(x) | Cell::Compression(x) => json_num(*x),
            Cell::Empty => "null".into(),
        }
    }

    /// The cell's number, if it holds one.
    pub fn value(&self) -> Option<f64> {
        match self {
            Cell::Count(n) | Cell::Size(n) => Some(*n as f64),
            Cell::Int(n) => Some(*n as f64),
            Cell::Speed(x) | Cell::Ratio(x) | Cell::Compression(x) => Some(*x),
            Cell::Text(_) | Cell::Empty => None,
        }
    }

    fn right_aligned(&self) -> bool {
        !matches!(self, Cell::Text(_))
    }
}

/// "1.5 KiB", "2.6 MiB".
pub fn human_size(n: u64) -> String {
    const KIB: f64 = 1024.0;
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / KIB),
        _ => format!("{:.1} MiB", n as f64 / (KIB * KIB)),
    }
}

/// "64 KiB" for whole KiB or MiB, else bytes.
pub fn block_size_label(n: usize) -> String {
    if n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// A CSV field, quoted when it holds a separator, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A table: column names and rows of cells; `summary_from` is the first
/// summary row (a rule goes before it in text).
pub struct Table {
    /// Column names.
    pub head: Vec<String>,
    /// Rows of cells, as many as there are columns.
    pub rows: Vec<Vec<Cell>>,
    /// Index of the first summary row.
    pub summary_from: usize,
}

impl Table {
    /// Whether column `c` is right-aligned (numbers), judged by its first row.
    fn right(&self, c: usize) -> bool {
        self.rows.first().is_some_and(|r| r[c].right_aligned())
    }

    /// Aligned columns, a rule under the head and above the summary.
    pub fn text(&self) -> String {
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(Cell::table).collect())
            .collect();
        let widths: Vec<usize> = (0..self.head.len())
            .map(|c| {
                cells
                    .iter()
                    .map(|r| r[c].len())
                    .chain([self.head[c].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |items: &[String]| {
            let mut s = String::new();
            for (c, item) in items.iter().enumerate() {
                if c > 0 {
                    s.push_str("  ");
                }
                let w = widths[c];
                if self.right(c) {
                    let _ = write!(s, "{item:>w$}");
                } else {
                    let _ = write!(s, "{item:<w$}");
                }
            }
            s.truncate(s.trim_end().len());
            s.push('\n');
            s
        };
        let rule = format!(
            "{}\n",
            "-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1))
        );
        let mut out = line(&self.head);
        out.push_str(&rule);
        for (i, r) in cells.iter().enumerate() {
            if i == self.summary_from && i > 0 {
                out.push_str(&rule);
            }
            out.push_str(&line(r));
        }
        out
    }

    /// A markdown table (numbers right-aligned).
    pub fn markdown(&self) -> String {
        let row = |items: Vec<String>| format!("| {} |\n", items.join(" | "));
        let mut out = row(self.head.clone());
        let align = (0..self.head.len())
            .map(|c| if self.right(c) { "---:" } else { "---" }.to_string())
            .collect();
        out.push_str(&row(align));
        for r in &self.rows {
            out.push_str(&row(r
                .iter()
                .map(|c| c.table().replace('|', "\\|"))
                .collect()));
        }
        out
    }

    /// CSV: one line for the head, one per row.
    pub fn csv(&self) -> String {
        let mut out = self
            .head
            .iter()
            .map(|h| csv_field(h))
            .collect::<Vec<_>>()
            .join(",");
        out.push('\n');
        for r in &self.rows {
            out.push_str(&r.iter().map(Cell::csv).collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number; JSON has no NaN or infinity, so those become `null`.
pub fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.4}")
    } else {
        "null".into()
    }
}

/// A JSON object of already-encoded values.
pub fn json_object(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}: {v}", json_str(k)))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// A JSON array of already-encoded values.
pub fn json_array(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_nonfinite() {
        assert_eq!(human_size(1458), "1.4 KiB");
        assert_eq!(human_size(512), "512 B");
        assert_eq!(block_size_label(65_536), "64 KiB");
        assert_eq!(block_size_label(1 << 20), "1 MiB");
        assert_eq!(json_num(f64::NAN), "null");
        assert_eq!(json_str("a\nb"), "\"a\\u000ab\"");
    }
}
