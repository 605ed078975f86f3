//! Pane 6: pairwise comparisons — for the chosen metric and k, every ordered system pair's
//! discordant counts, mean difference and test result, cells coloured by p.
//!
//! The numbers are the report's: each cell is the core's `view::PairMatrix` of
//! `Significance::pairs`, i.e. exactly what `execscope report --table pairs --metric …` prints.
//! Until the bootstrap job is done the cells show counts and Δ from the engine's per-query
//! columns (`PairResult::untested`), with `…` for p and the interval, and the caption names the
//! test the core will choose (`significance::pair_test`).

use super::{step, Cx, Pane, PaneId};
use crate::analysis::significance::{pair_test, PairTest};
use crate::metrics::{Metric, MetricKey};
use crate::report::{Align, Table, TableCell};
use crate::stats::PairResult;
use crate::tui::actions::Action;
use crate::tui::view::View;
use crate::tui::widgets::chrome::framed;
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::table::TableView;
use crate::tui::widgets::text::{fit, fit_pad, fit_spans, letter, wrap_clip};
use crate::view::pairs::{oriented, PairMatrix};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// One ordered system pair on one metric cell.
#[derive(Clone, Debug, PartialEq)]
pub struct PairCell {
    pub result: PairResult,
    /// `false` while the bootstrap job runs: p and the interval are not known yet.
    pub tested: bool,
}

/// Mouse regions of the every-cutoff table (rows are not clickable: drawn for the record).
const EVERY_CELL: u8 = 60;

/// The metric families `m` cycles through: the registry's metrics with a cutoff.
fn metrics() -> Vec<Metric> {
    Metric::all().filter(|m| m.def().at_k).collect()
}

/// The matrix's row is the session's system, its column the compared system (the leader and
/// the runner-up when the dashboard opens); the lists under the matrix scroll with PgUp/PgDn.
#[derive(Default)]
pub struct PairsPane {
    pub metric: usize,
    /// The first query shown in the lists under the matrix.
    pub list_top: usize,
    /// Rows those lists showed in the last frame (their page).
    list_page: std::cell::Cell<usize>,
    /// Queries those lists hold (the longest).
    list_len: std::cell::Cell<usize>,
}

/// The matrix's selected column: the compared system, or the next one where it is the row's
/// own (a pair is never a system against itself while there are two).
pub fn column(settings: &crate::tui::view::Settings, n: usize) -> usize {
    if settings.compare != settings.system || n < 2 {
        settings.compare.min(n.saturating_sub(1))
    } else {
        (settings.system + 1) % n
    }
}

/// The p-value as a cell shows it: `0.937`, `<.001`, `–` (no test: a continuous metric) or `…`
/// (the bootstrap job still running).
pub fn p_text(c: &PairCell) -> String {
    match c.result.p_value() {
        _ if !c.tested => "…".to_string(),
        Some(p) if p < 0.001 => "<.001".to_string(),
        Some(p) => format!("{p:.3}"),
        None => "–".to_string(),
    }
}

/// The p-value with its name: `p=0.937`, `p<.001`, `p –`, `p …`.
pub fn fmt_p(c: &PairCell) -> String {
    let t = p_text(c);
    match c.result.p_value() {
        Some(_) if c.tested => format!("p{}{t}", if t.starts_with('<') { "" } else { "=" }),
        _ => format!("p {t}"),
    }
}

pub fn fmt_ci(c: &PairCell) -> String {
    if c.tested {
        crate::report::pairs::ci_text(c.result.bootstrap_ci_95)
    } else {
        "…".to_string()
    }
}

/// The matrix of one metric cell and how its p-values were obtained.
pub struct Matrix {
    /// `cells[a][b]` compares system a (row) with b (column).
    pub cells: Vec<Vec<PairCell>>,
    /// The paired test behind the p-values.
    pub test: PairTest,
    /// The significance it came from (`None`: counts only, bootstrap still running).
    pub sig: Option<(usize, usize, u64)>,
}

impl PairsPane {
    /// The metric cell shown: the chosen metric at the current k.
    pub fn key(&self, v: &View) -> MetricKey {
        MetricKey::new(metrics()[self.metric], v.k())
    }

    /// The matrix for the current metric at the current k.
    pub fn matrix(&self, v: &View) -> Option<Matrix> {
        let d = v.data?;
        let e = &d.engine;
        let metric = metrics()[self.metric];
        let ki = v.settings.k_index;
        let key = self.key(v);
        let n = e.evals().len();
        let with_pairs = d.sig.as_ref().filter(|s| s.pairs.is_some());
        let found = with_pairs.and_then(|s| {
            let ci = s.cell_index(key)?;
            Some((s, ci, PairMatrix::of(s, ci)?))
        });
        if let Some((sig, ci, m)) = found {
            let cells = (0..n)
                .map(|a| {
                    (0..n)
                        .map(|b| PairCell {
                            result: m.cells[a][b].unwrap_or_else(|| {
                                let col = e.evals()[a].column(metric, ki);
                                PairResult::untested(&col, &col)
                            }),
                            tested: a != b,
                        })
                        .collect()
                })
                .collect();
            return Some(Matrix {
                cells,
                test: m.test,
                sig: Some((ci, sig.config.replicates, sig.config.seed)),
            });
        }
        let cols: Vec<Vec<f64>> = e.evals().iter().map(|ev| ev.column(metric, ki)).collect();
        let cells = cols
            .iter()
            .map(|a| {
                cols.iter()
                    .map(|b| PairCell {
                        result: PairResult::untested(a, b),
                        tested: false,
                    })
                    .collect()
            })
            .collect();
        Some(Matrix {
            cells,
            test: pair_test(e.evals(), metric, ki),
            sig: None,
        })
    }
}

impl Pane for PairsPane {
    fn kind(&self) -> PaneId {
        PaneId::Pairs
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("+0.123", "row − column: mean difference of the metric"),
            ("p=", "the paired test's p-value (<.001 below 0.001)"),
            ("–", "no test (a continuous metric): the interval decides"),
            ("…", "the bootstrap is still running, or cut to fit"),
            ("·", "a system against itself"),
            (
                "colours",
                "p<.001 / <.01 / <.05 / ≥.05, as on the matrix's bottom border",
            ),
            ("A=", "letters standing for system names that do not fit"),
            (
                "▲ ▼",
                "rows above / below the visible ones (lists: PgUp/PgDn)",
            ),
        ]
    }

    /// The report's pairs table of the metric cell shown (`execscope report --table pairs
    /// --metric …`), once the pairs are computed.
    fn export_tables(&self, v: &View) -> Vec<Table> {
        let Some(d) = v.data else { return Vec::new() };
        d.sig
            .as_deref()
            .filter(|s| s.pairs.is_some())
            .and_then(|sig| crate::report::pairs::pairs_table(&d.engine, sig, self.key(v)))
            .into_iter()
            .collect()
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let n = cx.data.map_or(0, |d| d.engine.evals().len());
        match action {
            Action::CycleMetric => self.metric = (self.metric + 1) % metrics().len(),
            // PgUp/PgDn scroll the query lists under the matrix.
            Action::PageUp | Action::PageDown => {
                let page = self.list_page.get().max(1);
                let last = self.list_len.get().saturating_sub(page);
                self.list_top = if *action == Action::PageUp {
                    self.list_top.saturating_sub(page)
                } else {
                    (self.list_top + page).min(last)
                };
            }
            _ if action.moves_selection() => {
                // Rows follow the one selected system shared by every pane.
                cx.settings.system = step(cx.settings.system, n, action, n);
            }
            // Columns are the compared system, stepping over the diagonal.
            Action::Left | Action::Right => {
                let col = column(cx.settings, n);
                let next = if *action == Action::Left {
                    (0..col).rev().find(|&c| c != cx.settings.system)
                } else {
                    (col + 1..n).find(|&c| c != cx.settings.system)
                };
                if let Some(c) = next {
                    cx.settings.compare = c;
                }
            }
            _ => return false,
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some(m) = self.matrix(v) else {
            message(f, area, "no systems", th.dim);
            return;
        };
        let n = m.cells.len();
        if n == 0 {
            message(f, area, "no systems to compare", th.dim);
            return;
        }
        let labels = Labels::new(v, n, area.width);
        let want = n as u16 * 2 + 3 + labels.legend.len() as u16;
        let top_h = want.min(area.height.saturating_sub(7)).max(5);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(top_h), Constraint::Min(3)]).areas(area);
        let pair = self.draw_matrix(f, top, v, &m, &labels);
        let rest = self.draw_selected(f, bottom, v, &m, pair);
        if let (Some(rest), Some(d)) = (rest, v.data) {
            self.draw_pair_queries(f, rest, v, d, pair);
        }
    }
}

/// How the matrix names its systems: full names when they fit, else letters with a legend
/// (never cut).
struct Labels {
    letters: bool,
    /// Width of the widest label.
    width: usize,
    /// The legend's lines (`A=… B=…`) when letters are used.
    legend: Vec<String>,
}

impl Labels {
    fn new(v: &View, n: usize, area_w: u16) -> Labels {
        let longest = (0..n)
            .map(|s| v.system_id(s).chars().count())
            .max()
            .unwrap_or(1);
        let letters = longest > 14 || longest + 1 > (area_w as usize) / 4;
        let mut l = Labels {
            letters,
            width: 0,
            legend: Vec::new(),
        };
        l.width = (0..n)
            .map(|s| l.label(v, s).chars().count())
            .max()
            .unwrap_or(1);
        if letters {
            let mut line = String::new();
            let w = area_w.saturating_sub(2) as usize;
            for s in 0..n {
                let item = format!("{}={}  ", letter(s), v.system_id(s));
                if !line.is_empty() && line.chars().count() + item.chars().count() > w {
                    l.legend.push(std::mem::take(&mut line));
                }
                line.push_str(&item);
            }
            l.legend.push(line);
        }
        l
    }

    fn label(&self, v: &View, s: usize) -> String {
        if self.letters {
            letter(s)
        } else {
            v.system_id(s).to_string()
        }
    }
}

impl PairsPane {
    /// The matrix of the current metric cell in `area`, scrolled to keep the selected pair in
    /// view; returns the selected (row, column) systems.
    fn draw_matrix(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        m: &Matrix,
        labels: &Labels,
    ) -> (usize, usize) {
        let th = v.theme;
        let cells = &m.cells;
        let n = cells.len();
        let metric = self.key(v);
        let label = |s: usize| labels.label(v, s);
        let (label_w, legend) = (labels.width, &labels.legend);
        let inner = framed(
            f,
            area,
            Line::from(vec![
                Span::styled(format!(" {metric}: row − column "), th.title),
                Span::styled(
                    format!("(ties: {}; m metric, K cutoff, arrows move) ", v.policy()),
                    th.dim,
                ),
            ]),
            true,
            th,
        );
        let avail = (inner.width as usize).saturating_sub(label_w + 1);
        let cell_w = (avail / n.max(1)).clamp(8, 16);
        let with_p = cell_w >= 8;
        let vis_cols = (avail / cell_w).clamp(1, n);
        let (sel_row, sel_col) = (v.settings.system.min(n - 1), column(v.settings, n));
        let col_off = (sel_col + 1).saturating_sub(vis_cols).min(n - vis_cols);
        let body_h = (inner.height as usize).saturating_sub(1 + legend.len());
        // Rows that do not fit leave one line to say how many are above and below.
        let all_rows = 2 * n <= body_h;
        let vis_rows = if all_rows {
            n
        } else {
            (body_h.saturating_sub(1) / 2).clamp(1, n)
        };
        let row_off = (sel_row + 1).saturating_sub(vis_rows).min(n - vis_rows);
        let more_left = col_off > 0;
        let more_right = col_off + vis_cols < n;
        let mut header = vec![Span::raw(format!(
            "{:<w$} ",
            if more_left { "◀" } else { "" },
            w = label_w
        ))];
        for b in col_off..col_off + vis_cols {
            let id = fit(&label(b), cell_w - 1);
            header.push(Span::styled(format!("{id:>cell_w$}"), th.header));
        }
        if more_right {
            header.push(Span::styled("▶", th.dim));
        }
        let mut lines = vec![Line::from(header)];
        for (a, row) in cells.iter().enumerate().skip(row_off).take(vis_rows) {
            let mut spans = vec![Span::styled(
                format!("{} ", fit_pad(&label(a), label_w)),
                th.accent,
            )];
            let mut second = vec![Span::raw(" ".repeat(label_w + 1))];
            for (b, c) in row.iter().enumerate().skip(col_off).take(vis_cols) {
                let sel = a == sel_row && b == sel_col;
                let (t1, t2, st) = if a == b {
                    ("·".to_string(), String::new(), th.dim)
                } else {
                    (
                        format!("{:+.3}", c.result.delta),
                        if with_p { fmt_p(c) } else { String::new() },
                        th.p_value(c.result.p_value()),
                    )
                };
                let st = if sel { st.patch(th.selected) } else { st };
                spans.push(Span::styled(format!("{t1:>cell_w$}"), st));
                second.push(Span::styled(
                    format!("{t2:>cell_w$}"),
                    if sel { st } else { th.dim },
                ));
            }
            lines.push(Line::from(spans));
            lines.push(Line::from(second));
        }
        if !all_rows {
            let below = n - row_off - vis_rows;
            lines.push(Line::styled(
                fit(
                    &format!("▲ {row_off} above · ▼ {below} below (↑/↓ move)"),
                    inner.width as usize,
                ),
                th.dim,
            ));
        }
        for l in legend {
            lines.push(Line::styled(l.clone(), th.dim));
        }
        f.render_widget(Paragraph::new(lines), inner);
        // The cells' colours, each threshold written in its own colour, on the bottom border.
        let key: Vec<Span> = [
            (" p<.001", 0.0005),
            (" <.01", 0.005),
            (" <.05", 0.03),
            (" ≥.05 ", 0.5),
        ]
        .into_iter()
        .map(|(t, p)| Span::styled(t, th.p_value(Some(p))))
        .collect();
        let kw: u16 = key.iter().map(|s| s.content.chars().count() as u16).sum();
        if area.height > 2 && area.width >= kw + 4 {
            f.render_widget(
                Paragraph::new(Line::from(key)),
                Rect::new(area.x + 2, area.bottom() - 1, kw, 1),
            );
        }
        (sel_row, sel_col)
    }
}

/// Which of `n` list rows to draw in `h` rows from row `top` (PgUp/PgDn): all when they fit,
/// else a window one row short, the last row saying how many are above and below it.
fn window(n: usize, h: usize, top: usize) -> std::ops::Range<usize> {
    if n <= h {
        return 0..n;
    }
    let shown = h.saturating_sub(1);
    let top = top.min(n - shown);
    top..top + shown
}

/// The last row of a list cut short: how many rows are above and below the ones shown.
fn more_line(
    n: usize,
    shown: &std::ops::Range<usize>,
    th: &crate::tui::theme::Theme,
) -> Line<'static> {
    Line::styled(
        format!(
            "▲ {} above · ▼ {} below (PgUp/PgDn)",
            shown.start,
            n - shown.end
        ),
        th.dim,
    )
}

/// A panel title naming the selected pair: ` {what}: A = …, B = … ` (fitted by `framed`).
fn pair_title(v: &View, what: &str, (a, b): (usize, usize)) -> Line<'static> {
    Line::styled(
        format!(" {what}: A = {}, B = {} ", v.system_id(a), v.system_id(b)),
        v.theme.title,
    )
}

mod detail;
