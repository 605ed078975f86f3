//! A query's ranking as rows: rank, score with a bar, snippet id, its role for the query, the PASS
//! verdict with per-test outcome glyphs from the execution cache, and the tie-group size.

use crate::tui::actions::Hit;
use crate::tui::view::{Data, View};
use crate::tui::widgets::bar::bar;
use crate::tui::widgets::scroll_offset;
use crate::tui::widgets::text::fit_middle;
use crate::view::ranking::Counted;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// One ranked snippet.
#[derive(Clone, Debug, PartialEq)]
pub struct RankRow {
    pub corpus: usize,
    pub score: f64,
    /// Size of its tie group over the whole corpus (1 = untied).
    pub tie: usize,
    /// PASS on the query's suite (`None` for a live query: there is no suite).
    pub pass: Option<bool>,
    /// Whether the session's tie policy counts it inside the cutoff k.
    pub counted: Counted,
    /// Cached per-test outcomes, when the cache holds the pair.
    pub outcomes: Option<Vec<String>>,
}

/// The mark after a rank: `›` counted inside the cutoff, `≈` inside it in some orders of its
/// tie group only (expected ties), nothing outside.
pub fn cutoff_mark(c: Counted) -> char {
    match c {
        Counted::In => '›',
        Counted::Share(_) => '≈',
        Counted::Out => ' ',
    }
}

/// Glyph and style of one cached test outcome (`?` for text that is no outcome).
pub fn outcome_glyph(o: &str, v: &View) -> (char, Style) {
    use crate::record::Outcome;
    let th = v.theme;
    match o.parse::<Outcome>() {
        Ok(Outcome::Pass) => ('✓', th.good),
        Ok(Outcome::Fail) => ('✗', th.bad),
        Ok(Outcome::Timeout) => ('T', th.warn),
        Ok(Outcome::Hang) => ('H', th.warn),
        Ok(Outcome::FailExc(_) | Outcome::Error(_)) => ('E', th.warn),
        Ok(Outcome::NotRun) => ('·', th.dim),
        Err(_) => ('?', th.dim),
    }
}

/// The snippet's role for query `q`: canonical, one of its own paired distractors, or foreign.
pub(super) fn role(d: &Data, q: Option<usize>, c: usize) -> (String, bool) {
    let b = &d.engine.bundle();
    let s = &b.corpus[c];
    let kind = s
        .bug_type
        .clone()
        .unwrap_or_else(|| s.label.as_str().to_string());
    match q.map(|q| &b.queries[q]) {
        Some(query) if query.correct.contains(&c) => ("canonical".to_string(), true),
        Some(query) if query.paired.contains(&c) => (format!("★{kind}"), true),
        // Another query's snippet: its own label (a canonical there is no answer here).
        Some(_) => (format!("other:{kind}"), false),
        // A live query has no snippets of its own: each shows its label.
        None => (kind, true),
    }
}

/// Every glyph a ranking shows, with what it means (the panel's bottom border and the help).
pub const LEGEND: &[(&str, &str)] = &[
    ("›", "in the top k"),
    ("≈", "a tie across the cutoff (expected)"),
    ("★", "this query's distractor"),
    ("=n", "n-way score tie"),
    ("✓ ✗", "pass / fail, then per test"),
    ("E", "error"),
    ("T", "timeout"),
    ("H", "hang"),
    ("other:", "another query's snippet"),
    ("label", "no per-test record (the bundle's label)"),
    ("–", "no suite (live query)"),
    ("…", "cut to fit"),
];

/// The legend in at most `w` columns: whole items, then ` · ? all` when some were left out.
pub fn legend_line(w: usize) -> String {
    let items: Vec<String> = LEGEND.iter().map(|(g, m)| format!("{g} {m}")).collect();
    let all = items.join(" · ");
    if all.chars().count() + 2 <= w {
        return format!(" {all} ");
    }
    let more = " · ? all ";
    let mut out = String::from(" ");
    for (i, it) in items.iter().enumerate() {
        let sep = if i == 0 { "" } else { " · " };
        if out.chars().count() + sep.len() + it.chars().count() + more.chars().count() > w {
            break;
        }
        out.push_str(sep);
        out.push_str(it);
    }
    if out.trim().is_empty() {
        return if w >= 7 {
            " ? all ".into()
        } else {
            String::new()
        };
    }
    out.push_str(more);
    out
}

/// Exactly `w` columns: [`fit_middle`] (a role's `★` or `other:` prefix kept whole) then padded.
fn fit(s: &str, w: usize) -> String {
    let prefix = ["★", "other:"]
        .into_iter()
        .find(|p| s.starts_with(p) && s.chars().count() > w && w > p.chars().count() + 4)
        .unwrap_or("");
    let n = prefix.chars().count();
    let t = format!("{prefix}{}", fit_middle(&s[prefix.len()..], w - n));
    let n = t.chars().count();
    format!("{t}{}", " ".repeat(w.saturating_sub(n)))
}

/// Column widths of a ranking drawn `w` columns wide.
struct Widths {
    id: usize,
    bar: usize,
    kind: usize,
}

impl Widths {
    fn of(rows: &[RankRow], d: &Data, w: usize) -> Widths {
        let b = d.engine.bundle();
        Widths {
            id: rows
                .iter()
                .map(|r| b.corpus[r.corpus].id.chars().count())
                .max()
                .unwrap_or(4)
                .clamp(4, 14),
            bar: match w {
                90.. => 12,
                70..90 => 8,
                60..70 => 4,
                _ => 0,
            },
            kind: if w >= 80 { 24 } else { 13 },
        }
    }
}

/// Draw a full ranking (header + rows) with `sel` kept in view.
#[allow(clippy::too_many_arguments)]
pub fn render(
    f: &mut Frame,
    area: Rect,
    v: &View,
    d: &Data,
    q: Option<usize>,
    rows: &[RankRow],
    sel: usize,
    focused: bool,
    list: u8,
) {
    let th = v.theme;
    if rows.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled(" no results (type a query)", th.dim)),
            area,
        );
        return;
    }
    let cols = Widths::of(rows, d, area.width as usize);
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
            (lo.min(r.score), hi.max(r.score))
        });
    let h = area.height.saturating_sub(1) as usize;
    let offset = scroll_offset(sel, h);
    let mut lines = vec![Line::styled(
        format!(
            "{:>4} {:>9} {}{} {} pass tests",
            "#",
            "score",
            if cols.bar > 0 {
                format!("{} ", fit("", cols.bar))
            } else {
                String::new()
            },
            fit("id", cols.id),
            fit("role", cols.kind)
        ),
        th.header,
    )];
    for (i, r) in rows.iter().enumerate().skip(offset).take(h) {
        let frac = if hi > lo {
            (r.score - lo) / (hi - lo)
        } else {
            1.0
        };
        let mut line = row_line(v, d, q, (i, r), frac, &cols, area.width as usize);
        if i == sel {
            line = line.style(if focused {
                th.selected
            } else {
                th.selected_unfocused
            });
        }
        v.hits.push(
            Rect::new(area.x, area.y + 1 + (i - offset) as u16, area.width, 1),
            Hit::Row { list, index: i },
        );
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// One ranked row: rank and cutoff mark, score with a bar at `frac`, id, role, verdict with the
/// per-test glyphs (giving way so `=n` is never cut) and the tie.
fn row_line(
    v: &View,
    d: &Data,
    q: Option<usize>,
    (i, r): (usize, &RankRow),
    frac: f64,
    cols: &Widths,
    w: usize,
) -> Line<'static> {
    let th = v.theme;
    let b = d.engine.bundle();
    let (kind, own) = role(d, q, r.corpus);
    let rank_st = if r.counted == Counted::Out {
        th.dim
    } else {
        th.accent
    };
    // The cutoff mark says what counts (not colour alone).
    let mut spans = vec![
        Span::styled(format!("{:>3}{}", i + 1, cutoff_mark(r.counted)), rank_st),
        Span::raw(format!(" {:>9.4} ", r.score)),
        Span::styled(bar(frac, cols.bar), th.bar),
        Span::raw(format!(
            "{}{} ",
            if cols.bar > 0 { " " } else { "" },
            fit(&b.corpus[r.corpus].id, cols.id)
        )),
        Span::styled(
            format!("{} ", fit(&kind, cols.kind)),
            if own { Style::default() } else { th.dim },
        ),
    ];
    let tie = (r.tie > 1).then(|| format!("  ={}", r.tie));
    match (r.pass, &r.outcomes) {
        (Some(p), outcomes) => {
            spans.push(Span::styled(
                if p { "  ✓  " } else { "  ✗  " },
                if p { th.good } else { th.bad },
            ));
            match outcomes {
                Some(os) => {
                    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
                    let room = w
                        .saturating_sub(used)
                        .saturating_sub(tie.as_ref().map_or(0, |t| t.chars().count()));
                    let cut = os.len() > room;
                    let keep = if cut {
                        room.saturating_sub(1)
                    } else {
                        os.len()
                    };
                    for o in &os[..keep] {
                        let (g, st) = outcome_glyph(o, v);
                        spans.push(Span::styled(g.to_string(), st));
                    }
                    if cut && room > 0 {
                        spans.push(Span::styled("…", th.dim));
                    }
                }
                None => spans.push(Span::styled("label", th.dim)),
            }
        }
        (None, _) => spans.push(Span::styled("  –  ", th.dim)),
    }
    if let Some(t) = tie {
        spans.push(Span::styled(t, th.warn));
    }
    Line::from(spans)
}

/// Two systems' rankings of the same query side by side; the selected snippet is marked in both.
#[allow(clippy::too_many_arguments)]
pub fn side_by_side(
    f: &mut Frame,
    area: Rect,
    v: &View,
    d: &Data,
    a: (&[RankRow], usize),
    b: (&[RankRow], usize),
    sel: usize,
    list: u8,
) {
    let th = v.theme;
    let bundle = &d.engine.bundle();
    let halves = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
        .spacing(1)
        .split(area);
    let chosen = a.0.get(sel).map(|r| r.corpus);
    let h = area.height.saturating_sub(1) as usize;
    let offset = scroll_offset(sel, h);
    for (side, (rows, sys)) in [a, b].into_iter().enumerate() {
        let rect = halves[side];
        let w = rect.width as usize;
        let id_w = rows
            .iter()
            .map(|r| bundle.corpus[r.corpus].id.chars().count())
            .max()
            .unwrap_or(4)
            .min(w / 3);
        let mut lines = vec![Line::from(vec![Span::styled(
            fit(
                &format!("{:>3} {:>8} {}", "#", "score", v.system_id(sys)),
                w,
            ),
            th.header,
        )])];
        // The right side follows the left side's scroll so the same ranks face each other.
        for (i, r) in rows.iter().enumerate().skip(offset).take(h) {
            let (kind, own) = role(d, Some(v.shared.query), r.corpus);
            let p = r.pass.unwrap_or(false);
            let kw = w.saturating_sub(id_w + 20);
            let mut line = Line::from(vec![
                Span::styled(
                    format!("{:>2}{}", i + 1, cutoff_mark(r.counted)),
                    if r.counted == Counted::Out {
                        th.dim
                    } else {
                        th.accent
                    },
                ),
                Span::raw(format!(
                    " {:>8.4} {} ",
                    r.score,
                    fit(&bundle.corpus[r.corpus].id, id_w)
                )),
                // The role where a few letters of it fit (not a column of lone `…`).
                Span::styled(
                    if kw >= 4 {
                        fit(&kind, kw)
                    } else {
                        String::new()
                    },
                    if own { Style::default() } else { th.dim },
                ),
                Span::styled(
                    if p { " ✓ " } else { " ✗ " },
                    if p { th.good } else { th.bad },
                ),
                Span::styled(
                    if r.tie > 1 {
                        format!("={}", r.tie)
                    } else {
                        String::new()
                    },
                    th.warn,
                ),
            ]);
            if Some(r.corpus) == chosen {
                line = line.style(if side == 0 {
                    th.selected
                } else {
                    th.selected_unfocused
                });
            }
            if side == 0 {
                v.hits.push(
                    Rect::new(rect.x, rect.y + 1 + (i - offset) as u16, rect.width, 1),
                    Hit::Row { list, index: i },
                );
            }
            lines.push(line);
        }
        if side == 1 {
            if let Some(c) = chosen {
                if let Some(pos) = rows.iter().position(|r| r.corpus == c) {
                    if pos < offset || pos >= offset + h {
                        lines.push(Line::styled(
                            format!("  selected snippet is rank {} here", pos + 1),
                            th.dim,
                        ));
                    }
                } else {
                    lines.push(Line::styled(
                        "  selected snippet is below the shown depth",
                        th.dim,
                    ));
                }
            }
        }
        f.render_widget(Paragraph::new(lines), rect);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_keeps_whole_items_and_points_to_help() {
        let full = legend_line(1000);
        assert!(full.contains("=n n-way score tie") && !full.contains("? all"));
        for w in [20, 40, 60, 80, 120] {
            let l = legend_line(w);
            assert!(l.chars().count() <= w, "{w}: {l}");
            assert!(l.ends_with(" · ? all ") || l == " ? all ", "{w}: {l:?}");
            // Only whole items: every shown item is one of the legend's.
            for item in l.trim().trim_end_matches("? all").split(" · ") {
                let item = item.trim();
                if !item.is_empty() {
                    assert!(
                        LEGEND.iter().any(|(g, m)| format!("{g} {m}") == item),
                        "{item:?}"
                    );
                }
            }
        }
    }
}
