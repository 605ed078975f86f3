//! Pane 6: pairwise comparisons — for the chosen metric and k, every ordered system pair's
//! discordant counts, mean difference and test result, cells coloured by p.
//!
//! The numbers come through [`PairStats`], the seam where the stats module plugs in: the lead
//! implements it with `stats::pairwise` (exact McNemar + paired bootstrap). Until then [`Interim`]
//! counts the 2×2 table from the engine's per-query columns and computes the exact McNemar p
//! itself, and the bootstrap interval stays `…`.

use super::{message, step, Cx, Pane};
use crate::metrics::{Metric, TiePolicy};
use crate::tui::actions::Action;
use crate::tui::frame::block;
use crate::tui::view::View;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// One system pair on one metric cell (the fields of `stats::PairResult`).
#[derive(Clone, Debug, PartialEq)]
pub struct PairCell {
    pub a_only: u64,
    pub b_only: u64,
    pub both: u64,
    pub neither: u64,
    pub a_rate: f64,
    pub b_rate: f64,
    /// Mean of the per-query differences A − B.
    pub delta: f64,
    /// Exact McNemar p (binary metrics only).
    pub p: Option<f64>,
    /// Paired bootstrap 95% interval of `delta`, when computed.
    pub ci95: Option<[f64; 2]>,
}

/// Where pair statistics come from.
pub trait PairStats {
    /// Compare per-query vectors `a` and `b` (same query order); `binary` enables McNemar.
    fn pair(&self, a: &[f64], b: &[f64], binary: bool) -> PairCell;
    /// Named on screen, so a reader knows which test produced the colours.
    fn describe(&self) -> &'static str;
}

/// Counts and exact McNemar computed here until `stats` is merged.
pub struct Interim;

/// Two-sided exact McNemar p: min(1, 2 · P(X ≤ min(b, c))), X ~ Binomial(b + c, ½).
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // Sum C(n, i) / 2^n in log space (n can reach the number of queries).
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_c = 0.0f64;
    let mut sum = 0.0f64;
    for i in 0..=k {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        sum += (ln_c + ln_half_n).exp();
    }
    (2.0 * sum).min(1.0)
}

impl PairStats for Interim {
    fn pair(&self, a: &[f64], b: &[f64], binary: bool) -> PairCell {
        let (mut a_only, mut b_only, mut both, mut neither) = (0, 0, 0, 0);
        for (&x, &y) in a.iter().zip(b) {
            match (x > 0.0, y > 0.0) {
                (true, true) => both += 1,
                (true, false) => a_only += 1,
                (false, true) => b_only += 1,
                (false, false) => neither += 1,
            }
        }
        let n = a.len().max(1) as f64;
        let a_rate = a.iter().sum::<f64>() / n;
        let b_rate = b.iter().sum::<f64>() / n;
        PairCell {
            a_only,
            b_only,
            both,
            neither,
            a_rate,
            b_rate,
            delta: a.iter().zip(b).map(|(x, y)| x - y).sum::<f64>() / n,
            p: binary.then(|| mcnemar_exact(a_only, b_only)),
            ci95: None,
        }
    }

    fn describe(&self) -> &'static str {
        "exact McNemar on discordant queries (interim, until the stats module); bootstrap CI pending"
    }
}

const METRICS: [Metric; 3] = [Metric::Exec, Metric::ExecP, Metric::Ndcg];

pub struct PairsPane {
    pub metric: usize,
    pub row: usize,
    pub col: usize,
    pub stats: Box<dyn PairStats>,
}

impl Default for PairsPane {
    fn default() -> Self {
        PairsPane {
            metric: 0,
            row: 0,
            col: 1,
            stats: Box::new(Interim),
        }
    }
}

fn fmt_p(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 0.001 => "p<.001".to_string(),
        Some(p) => format!("p={p:.3}"),
        None => "p –".to_string(),
    }
}

impl PairsPane {
    /// The matrix for the current metric: cells[a][b] compares system a (row) with b (column).
    pub fn matrix(&self, v: &View) -> Option<(Vec<Vec<PairCell>>, bool)> {
        let d = v.data?;
        let e = &d.engine;
        let metric = METRICS[self.metric];
        let ki = v.shared.k_index;
        let binary = metric.is_binary() && v.policy != TiePolicy::Expected;
        let cols: Vec<Vec<f64>> = e.evals.iter().map(|ev| ev.column(metric, ki)).collect();
        let cells = cols
            .iter()
            .map(|a| cols.iter().map(|b| self.stats.pair(a, b, binary)).collect())
            .collect();
        Some((cells, binary))
    }
}

impl Pane for PairsPane {
    fn id(&self) -> &'static str {
        "pairs"
    }

    fn title(&self) -> &'static str {
        "Pairs"
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let n = cx.data.map_or(0, |d| d.engine.evals.len());
        match action {
            Action::CycleMetric => self.metric = (self.metric + 1) % METRICS.len(),
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::ScrollUp
            | Action::ScrollDown
            | Action::PageUp
            | Action::PageDown => self.row = step(self.row, n, action, n),
            Action::Left => self.col = self.col.saturating_sub(1),
            Action::Right => self.col = (self.col + 1).min(n.saturating_sub(1)),
            _ => return false,
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some((cells, binary)) = self.matrix(v) else {
            message(f, area, "no systems", th.dim);
            return;
        };
        let n = cells.len();
        if n == 0 {
            message(f, area, "no systems to compare", th.dim);
            return;
        }
        let metric = METRICS[self.metric].key(v.k());
        let [top, bottom] =
            Layout::vertical([Constraint::Length(n as u16 * 2 + 4), Constraint::Min(3)])
                .areas(area);
        let blk = block(
            Line::from(vec![
                Span::styled(format!(" {metric}: row − column "), th.title),
                Span::styled(format!("(ties: {}; m metric, K cutoff) ", v.policy), th.dim),
            ]),
            true,
            th,
        );
        let inner = blk.inner(top);
        f.render_widget(blk, top);
        let label_w = (0..n)
            .map(|s| v.system_id(s).chars().count())
            .max()
            .unwrap_or(6)
            .min(24);
        let avail = (inner.width as usize).saturating_sub(label_w + 1);
        let cell_w = (avail / n.max(1)).clamp(7, 16);
        let with_p = cell_w >= 14;
        let name = |s: usize, w: usize| -> String {
            let id = v.system_id(s);
            let t: String = id.chars().take(w).collect();
            format!("{t:<w$}")
        };
        let mut header = vec![Span::raw(" ".repeat(label_w + 1))];
        for b in 0..n {
            let id: String = v.system_id(b).chars().take(cell_w - 1).collect();
            header.push(Span::styled(format!("{id:>cell_w$}"), th.header));
        }
        let mut lines = vec![Line::from(header)];
        for (a, row) in cells.iter().enumerate() {
            let mut spans = vec![Span::styled(format!("{} ", name(a, label_w)), th.accent)];
            let mut second = vec![Span::raw(" ".repeat(label_w + 1))];
            for (b, c) in row.iter().enumerate() {
                let sel = a == self.row && b == self.col;
                let (t1, t2, st) = if a == b {
                    ("·".to_string(), String::new(), th.dim)
                } else {
                    (
                        format!("{:+.3}", c.delta),
                        if with_p { fmt_p(c.p) } else { String::new() },
                        th.p_value(c.p),
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
        f.render_widget(Paragraph::new(lines), inner);
        // Details of the selected pair.
        let (a, b) = (self.row.min(n - 1), self.col.min(n - 1));
        let c = &cells[a][b];
        let mut text = vec![
            Line::from(vec![
                Span::styled(v.system_id(a).to_string(), th.accent),
                Span::raw(" vs "),
                Span::styled(v.system_id(b).to_string(), th.accent),
                Span::raw(format!(" on {metric}")),
            ]),
            Line::from(format!(
                "only A {} · only B {} · both {} · neither {}   (success = value > 0)",
                c.a_only, c.b_only, c.both, c.neither
            )),
            Line::from(format!(
                "mean A {:.3} · mean B {:.3} · Δ {:+.3} · {} · 95% CI {}",
                c.a_rate,
                c.b_rate,
                c.delta,
                fmt_p(c.p),
                c.ci95
                    .map_or("…".to_string(), |[l, h]| format!("[{l:+.3}, {h:+.3}]"))
            )),
        ];
        if !binary {
            text.push(Line::styled(
                "McNemar needs 0/1 outcomes: choose exec with a row/pessimistic/optimistic tie policy (t).",
                th.warn,
            ));
        }
        text.push(Line::styled(
            format!(
                "Test: {}. Colour: p<.001 / <.01 / <.05 / larger.",
                self.stats.describe()
            ),
            th.dim,
        ));
        f.render_widget(
            Paragraph::new(text)
                .block(block(" Selected pair ", false, th))
                .wrap(Wrap { trim: true }),
            bottom,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scipy.stats.binomtest(2, 10, 0.5).pvalue = 0.109375 (= 2 · 56/1024).
    #[test]
    fn mcnemar_by_hand() {
        assert!((mcnemar_exact(2, 8) - 0.109375).abs() < 1e-12);
        assert!((mcnemar_exact(8, 2) - 0.109375).abs() < 1e-12);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        // 0 vs 5: 2 / 32.
        assert!((mcnemar_exact(0, 5) - 0.0625).abs() < 1e-12);
    }

    #[test]
    fn interim_counts() {
        let c = Interim.pair(&[1.0, 1.0, 0.0, 0.0, 1.0], &[1.0, 0.0, 1.0, 0.0, 0.0], true);
        assert_eq!((c.a_only, c.b_only, c.both, c.neither), (2, 1, 1, 1));
        assert!((c.delta - 0.2).abs() < 1e-12);
        assert_eq!(c.p, Some(1.0));
    }
}
