//! A format-neutral table and its renderers: aligned text, markdown, CSV, LaTeX (booktabs), JSON.
//!
//! Every report table is built once as a [`Table`] from core results and rendered in the format the
//! user asked for; the dashboard renders the same cells, so a script and the screen never disagree.

use serde_json::{json, Map, Value};
use std::fmt::Write;

/// Output formats of `execscope report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Latex,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Table,
        Format::Json,
        Format::Csv,
        Format::Markdown,
        Format::Latex,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
            Format::Latex => "latex",
        }
    }

    /// File extension used by `report --all`.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Latex => "tex",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("unknown format {s:?} (table, json, csv, markdown, latex)"))
    }
}

/// Column alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One cell: its text, and the number behind it (for JSON and for highlighting).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TableCell {
    pub text: String,
    pub value: Option<f64>,
    /// Best value of its column (bold in LaTeX/markdown).
    pub best: bool,
    /// Marked (e.g. tied with the leader): a trailing dagger in LaTeX, `†` elsewhere.
    pub mark: bool,
    /// `value` is a rate in percent (as the human-readable formats show it); JSON gives the
    /// fraction, value / 100, like every other rate in JSON output.
    pub percent: bool,
    /// `value` is a count or another whole number: JSON writes it as an integer (`1`, not `1.0`).
    pub integer: bool,
}

/// A p-value with `digits` decimals, `<0.0001` (for 4 digits) below the smallest value those
/// digits show, so an honest small p never reads as zero. Every front end prints p this way.
pub fn p_text(p: f64, digits: usize) -> String {
    let floor = 10f64.powi(-(digits as i32));
    if p.is_finite() && p < floor {
        format!("<{floor:.digits$}")
    } else {
        format!("{p:.digits$}")
    }
}

impl TableCell {
    pub fn text(s: impl Into<String>) -> TableCell {
        TableCell {
            text: s.into(),
            ..TableCell::default()
        }
    }

    /// A number shown with `digits` decimals.
    pub fn num(v: f64, digits: usize) -> TableCell {
        TableCell {
            text: if v.is_finite() {
                format!("{v:.digits$}")
            } else {
                "—".to_string()
            },
            value: Some(v),
            ..TableCell::default()
        }
    }

    /// A p-value shown with `digits` decimals, or as `<0.0001` (for 4) where it rounds to zero:
    /// never `0.0000`. The value stays exact (CSV and JSON give it whole).
    pub fn p_value(p: f64, digits: usize) -> TableCell {
        TableCell {
            text: p_text(p, digits),
            value: Some(p),
            ..TableCell::default()
        }
    }

    /// A rate `v` (a fraction) shown as a percentage with `digits` decimals and a `%` sign; JSON
    /// keeps the fraction.
    pub fn pct(v: f64, digits: usize) -> TableCell {
        let mut c = TableCell::num(v * 100.0, digits);
        if v.is_finite() {
            c.text.push('%');
        }
        c.percent = true;
        c
    }

    pub fn int(v: usize) -> TableCell {
        TableCell {
            text: v.to_string(),
            value: Some(v as f64),
            integer: true,
            ..TableCell::default()
        }
    }

    /// A whole number that may be negative (a difference of counts).
    pub fn signed(v: i64) -> TableCell {
        TableCell {
            text: v.to_string(),
            value: Some(v as f64),
            integer: true,
            ..TableCell::default()
        }
    }
}

/// Characters a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A text field of a CSV file: a field a spreadsheet would read as a formula (it starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, as OWASP recommends, so
/// it is shown as text and never evaluated; a field holding a comma, a quote or a line break is
/// quoted (RFC 4180).
pub fn csv_text(s: &str) -> String {
    let s = if s.starts_with(FORMULA_START) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Text in a Markdown (GitHub-flavoured) table cell, shown as the characters it holds and never
/// read as markup: the characters that open links, images and code, HTML and autolinks,
/// entities and emphasis (`[ ] < > & \` * ~`, an underscore not between two letters or digits),
/// the cell separator `|` and the escape `\` itself are backslash-escaped, and so are the
/// triggers of GFM's extended autolinks (the `:` of `://`, the `.` of `www.`); a line break or
/// another control character becomes a space, so the row stays one row. Parentheses and `!`
/// mean nothing without a `[`, and stay as they are.
pub fn markdown_text(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut o = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let before = |n: usize| i.checked_sub(n).map(|j| chars[j]);
        match c {
            // An underscore between two letters or digits can neither open nor close emphasis
            // (`off_by_one` stays as it is); anywhere else it could.
            '_' if before(1).is_some_and(char::is_alphanumeric)
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()) =>
            {
                o.push(c)
            }
            '\\' | '`' | '*' | '_' | '~' | '[' | ']' | '<' | '>' | '&' | '|' => {
                o.push('\\');
                o.push(c);
            }
            ':' if chars.get(i + 1) == Some(&'/') && chars.get(i + 2) == Some(&'/') => {
                o.push_str("\\:")
            }
            '.' if (1..=3).all(|n| before(n).is_some_and(|p| p.eq_ignore_ascii_case(&'w'))) => {
                o.push_str("\\.")
            }
            c if c.is_control() => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// A table with a machine-readable key per column.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Table {
    /// Short name (`leaderboard`, `density`, …), used for file names.
    pub name: String,
    pub title: String,
    /// What the numbers are and which test produced any marks (LaTeX caption, text footer).
    pub caption: String,
    /// Column headers as shown.
    pub headers: Vec<String>,
    /// Column keys for JSON/CSV (snake or metric keys).
    pub keys: Vec<String>,
    pub align: Vec<Align>,
    pub rows: Vec<Vec<TableCell>>,
}

impl Table {
    pub fn new(name: &str, title: &str) -> Table {
        Table {
            name: name.to_string(),
            title: title.to_string(),
            ..Table::default()
        }
    }

    /// Add a column (header shown, key for machines).
    pub fn column(mut self, header: &str, key: &str, align: Align) -> Table {
        self.headers.push(header.to_string());
        self.keys.push(key.to_string());
        self.align.push(align);
        self
    }

    pub fn caption(mut self, caption: impl Into<String>) -> Table {
        self.caption = caption.into();
        self
    }

    pub fn push(&mut self, row: Vec<TableCell>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }

    /// Mark the largest value of each listed column as best (all equal maxima).
    pub fn mark_best(&mut self, cols: &[usize]) {
        for &c in cols {
            let best = self
                .rows
                .iter()
                .filter_map(|r| r[c].value)
                .filter(|v| v.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            for r in &mut self.rows {
                if r[c].value == Some(best) {
                    r[c].best = true;
                }
            }
        }
    }

    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => self.to_text(),
            Format::Json => {
                serde_json::to_string_pretty(&self.to_json()).unwrap_or_default() + "\n"
            }
            Format::Csv => self.to_csv(),
            Format::Markdown => self.to_markdown(),
            Format::Latex => self.to_latex(),
        }
    }

    fn shown(c: &TableCell) -> String {
        if c.mark {
            format!("{}†", c.text)
        } else {
            c.text.clone()
        }
    }

    /// Aligned plain text with a title line and the caption as a footer.
    pub fn to_text(&self) -> String {
        let ncol = self.headers.len();
        let mut width: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(ncol) {
                width[i] = width[i].max(Self::shown(c).chars().count());
            }
        }
        let line = |cells: Vec<String>| -> String {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                if i > 0 {
                    s.push_str("  ");
                }
                match self.align[i] {
                    Align::Left => {
                        s.push_str(c);
                        if i + 1 < cells.len() {
                            s.push_str(&" ".repeat(pad));
                        }
                    }
                    Align::Right => {
                        s.push_str(&" ".repeat(pad));
                        s.push_str(c);
                    }
                }
            }
            s.trim_end().to_string()
        };
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = writeln!(out, "{}", self.title);
        }
        let _ = writeln!(out, "{}", line(self.headers.clone()));
        let total: usize = width.iter().sum::<usize>() + 2 * ncol.saturating_sub(1);
        let _ = writeln!(out, "{}", "─".repeat(total));
        for r in &self.rows {
            let _ = writeln!(out, "{}", line(r.iter().map(Self::shown).collect()));
        }
        if !self.caption.is_empty() {
            let _ = writeln!(out, "{}", self.caption);
        }
        out
    }

    pub fn to_markdown(&self) -> String {
        let esc = markdown_text;
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = writeln!(out, "**{}**\n", esc(&self.title));
        }
        let _ = writeln!(
            out,
            "| {} |",
            self.headers
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let seps: Vec<&str> = self
            .align
            .iter()
            .map(|a| if *a == Align::Right { "---:" } else { "---" })
            .collect();
        let _ = writeln!(out, "| {} |", seps.join(" | "));
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .map(|c| {
                    let t = esc(&Self::shown(c));
                    if c.best {
                        format!("**{t}**")
                    } else {
                        t
                    }
                })
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        if !self.caption.is_empty() {
            let _ = writeln!(out, "\n{}", esc(&self.caption));
        }
        out
    }

    pub fn to_csv(&self) -> String {
        let field = csv_text;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}",
            self.keys
                .iter()
                .map(|k| field(k))
                .collect::<Vec<_>>()
                .join(",")
        );
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .map(|c| match c.value {
                    Some(v) if v.is_finite() => format!("{v}"),
                    Some(_) => String::new(),
                    None => field(&c.text),
                })
                .collect();
            let _ = writeln!(out, "{}", cells.join(","));
        }
        out
    }

    pub fn to_latex(&self) -> String {
        let esc = super::latex::escape;
        let spec: String = self
            .align
            .iter()
            .map(|a| if *a == Align::Right { 'r' } else { 'l' })
            .collect();
        let mut out = String::new();
        // booktabs' rules when the document loads it, plain \hline otherwise: the table
        // compiles under the bare kernel too.
        let _ = writeln!(
            out,
            "% booktabs rules if loaded (\\usepackage{{booktabs}}), else \\hline"
        );
        let _ = writeln!(
            out,
            "\\providecommand{{\\toprule}}{{\\hline}}\\providecommand{{\\midrule}}{{\\hline}}\\providecommand{{\\bottomrule}}{{\\hline}}"
        );
        let _ = writeln!(out, "\\begin{{table}}[t]\n\\centering\\small");
        let _ = writeln!(out, "\\begin{{tabular}}{{{spec}}}\n\\toprule");
        let _ = writeln!(
            out,
            "{} \\\\\n\\midrule",
            self.headers
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" & ")
        );
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .map(|c| {
                    let mut t = esc(&c.text);
                    if c.best {
                        t = format!("\\textbf{{{t}}}");
                    }
                    if c.mark {
                        t.push_str("$^\\dagger$");
                    }
                    t
                })
                .collect();
            let _ = writeln!(out, "{} \\\\", cells.join(" & "));
        }
        let _ = writeln!(out, "\\bottomrule\n\\end{{tabular}}");
        let cap = if self.caption.is_empty() {
            esc(&self.title)
        } else {
            format!("{} {}", esc(&self.title), esc(&self.caption))
        };
        let _ = writeln!(out, "\\caption{{{cap}}}");
        let _ = writeln!(out, "\\label{{tab:{}}}", self.name);
        let _ = writeln!(out, "\\end{{table}}");
        out
    }

    /// `{"table", "title", "caption", "rows": [{key: value}]}` with numbers as numbers.
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut m = Map::new();
                for (k, c) in self.keys.iter().zip(r) {
                    let v = match c.value {
                        Some(v) if v.is_finite() && c.percent => json!(v / 100.0),
                        Some(v) if v.is_finite() && c.integer => json!(v as i64),
                        Some(v) if v.is_finite() => json!(v),
                        Some(_) => Value::Null,
                        None => json!(c.text),
                    };
                    m.insert(k.clone(), v);
                    if c.mark {
                        m.insert(format!("{k}_marked"), json!(true));
                    }
                }
                Value::Object(m)
            })
            .collect();
        json!({"table": self.name, "title": self.title, "caption": self.caption, "rows": rows})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("demo", "Demo")
            .column("system", "system", Align::Left)
            .column("exec@1", "exec@1", Align::Right)
            .caption("Marks: tied with the leader (McNemar, Holm).");
        t.push(vec![TableCell::text("a_b"), TableCell::num(0.5, 3)]);
        let mut c = TableCell::num(0.25, 3);
        c.mark = true;
        t.push(vec![TableCell::text("c,d"), c]);
        t.mark_best(&[1]);
        t
    }

    #[test]
    fn one_table_in_text_markdown_csv_latex_and_json() {
        let t = sample();
        let text = t.render(Format::Table);
        assert!(text.contains("a_b      0.500\n"), "{text}");
        assert!(text.contains("0.250†"));
        assert!(t.render(Format::Markdown).contains("| a_b | **0.500** |"));
        let csv = t.render(Format::Csv);
        assert_eq!(csv.lines().nth(2), Some("\"c,d\",0.25"));
        let tex = t.render(Format::Latex);
        assert!(tex.contains("a\\_b & \\textbf{0.500} \\\\"), "{tex}");
        assert!(tex.contains("0.250$^\\dagger$"));
        assert!(tex.contains("\\toprule") && tex.contains("\\bottomrule"));
        let js = t.to_json();
        assert_eq!(js["rows"][1]["exec@1"], json!(0.25));
        assert_eq!(js["rows"][1]["exec@1_marked"], json!(true));
    }

    /// OWASP's CSV-injection rule: a text field a spreadsheet would evaluate is shown as text.
    #[test]
    fn csv_neutralises_formulas() {
        assert_eq!(
            csv_text("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        for c in ["+1", "-1", "@SUM(A1)", "\t=1", "\r=1"] {
            assert!(
                csv_text(c).trim_start_matches('"').starts_with('\''),
                "{c:?}"
            );
        }
        assert_eq!(csv_text("all"), "all");
        assert_eq!(csv_text("a,b"), "\"a,b\"");
        // Numbers are written from their value, not their text: a negative one stays a number.
        let mut t = Table::new("n", "").column("d", "d", Align::Right);
        t.push(vec![TableCell::signed(-2)]);
        assert_eq!(t.to_csv(), "d\n-2\n");
        assert_eq!(t.to_json()["rows"][0]["d"], json!(-2));
    }

    /// Markdown cells: links, images, HTML, autolinks, entities and pipes are shown as text.
    #[test]
    fn markdown_cells_are_text() {
        assert_eq!(
            markdown_text("[x](http://evil) ![i](y) <img src=x> &amp; a|b"),
            "\\[x\\](http\\://evil) !\\[i\\](y) \\<img src=x\\> \\&amp; a\\|b"
        );
        assert_eq!(markdown_text("www.evil.com a: b"), "www\\.evil.com a: b");
        assert_eq!(markdown_text("two\nlines"), "two lines");
        assert_eq!(
            markdown_text("off_by_one _x_ a*b*"),
            "off_by_one \\_x\\_ a\\*b\\*"
        );
        assert_eq!(markdown_text("base+plus 0.5"), "base+plus 0.5");
    }

    #[test]
    fn whole_numbers_are_json_integers() {
        let mut t =
            Table::new("n", "")
                .column("k", "k", Align::Right)
                .column("v", "v", Align::Right);
        t.push(vec![TableCell::int(1), TableCell::num(1.0, 2)]);
        let js = t.to_json();
        assert!(js["rows"][0]["k"].is_u64(), "{js}");
        assert!(js["rows"][0]["v"].is_f64(), "{js}");
    }
}
