//! The selected pair in detail: per query, and on every metric and cutoff.

use super::*;

/// Width of the per-query table beside the every-cutoff one (its columns and border).
pub(super) const PER_QUERY_W: u16 = 74;

impl PairsPane {
    /// Systems `a` and `b` compared on every metric cell: the report's results once the
    /// pairs are in (the cells of `execscope report --table pairs --metric …`), else the
    /// counts and Δ from the engine's per-query columns, untested.
    pub fn pair_cells(&self, v: &View, a: usize, b: usize) -> Vec<(MetricKey, PairCell, PairTest)> {
        let Some(d) = v.data else {
            return Vec::new();
        };
        let evals = d.engine.evals();
        if a.max(b) >= evals.len() {
            return Vec::new();
        }
        if let Some(sig) = d.sig.as_ref().filter(|s| s.pairs.is_some()) {
            return sig
                .cells
                .iter()
                .enumerate()
                .filter_map(|(ci, c)| {
                    let result = oriented(sig, ci, a, b)?;
                    Some((
                        c.key,
                        PairCell {
                            result,
                            tested: true,
                        },
                        c.test,
                    ))
                })
                .collect();
        }
        let ks = d.engine.config().ks;
        metrics()
            .into_iter()
            .flat_map(|m| (0..ks.len()).map(move |ki| (m, ki)))
            .map(|(m, ki)| {
                let result = PairResult::untested(&evals[a].column(m, ki), &evals[b].column(m, ki));
                let cell = PairCell {
                    result,
                    tested: false,
                };
                (MetricKey::new(m, ks[ki]), cell, pair_test(evals, m, ki))
            })
            .collect()
    }

    /// The selected pair on every metric and cutoff, the row of the matrix's cell marked.
    pub(super) fn draw_every_cell(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        (a, b): (usize, usize),
        cells: &[(MetricKey, PairCell, PairTest)],
    ) {
        let th = v.theme;
        let title = pair_title(v, "every metric and cutoff", (a, b));
        let inner = framed(f, area, title, false, th);
        if a == b {
            message(
                f,
                inner,
                "a system against itself: pick another column",
                th.dim,
            );
            return;
        }
        let mut t = Table::new("pair_cells", "The selected pair on every metric and cutoff")
            .column("metric", "metric", Align::Left)
            .column("A", "a_rate", Align::Right)
            .column("B", "b_rate", Align::Right)
            .column("Δ (A − B)", "delta", Align::Right)
            .column("Δ 95% CI", "ci95", Align::Left)
            .column("p", "p", Align::Right)
            .column("test", "test", Align::Left);
        for (key, c, test) in cells {
            let r = &c.result;
            t.push(vec![
                ReportCell::text(key.to_string()),
                ReportCell::num(r.a_rate, 3),
                ReportCell::num(r.b_rate, 3),
                ReportCell::num(r.delta, 3),
                ReportCell::text(fmt_ci(c)),
                ReportCell::text(p_text(c)),
                ReportCell::text(test.short()),
            ]);
        }
        let key = self.key(v);
        let order: Vec<usize> = (0..cells.len()).collect();
        TableView {
            selected: cells.iter().position(|(k, _, _)| *k == key),
            ..TableView::plain(&t, &order, 1, EVERY_CELL)
        }
        .render(f, inner, th, v.hits);
    }

    /// Every query's value under the selected pair's systems A and B, its Δ and which side
    /// solves it (success = value > 0, as in the counts).
    pub(super) fn draw_per_query(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        (a, b): (usize, usize),
        (ca, cb): (&[f64], &[f64]),
    ) {
        let th = v.theme;
        let Some(d) = v.data else { return };
        let metric = self.key(v);
        let title = pair_title(v, &format!("{metric} per query"), (a, b));
        let inner = framed(f, area, title, false, th);
        let w = inner.width as usize;
        // query id, A, B, Δ and the mark take 42 columns; the function name what is left.
        let fw = w.saturating_sub(43).min(28);
        let func = |s: &str| {
            if fw >= 4 {
                format!("{} ", fit_pad(s, fw))
            } else {
                String::new()
            }
        };
        let mut lines = vec![Line::styled(
            format!(
                "{:<10}{}{:>7}{:>7}{:>8}  {}",
                "query",
                func("function"),
                "A",
                "B",
                "Δ",
                "solved by"
            ),
            th.header,
        )];
        let bq = &d.engine.bundle().queries;
        let rows = shown_rows(bq.len(), inner.height.saturating_sub(1) as usize);
        for (q, query) in bq.iter().enumerate().take(rows) {
            let (x, y) = (ca[q], cb[q]);
            let (mark, st) = match (x > 0.0, y > 0.0) {
                (true, true) => ("both", th.dim),
                (true, false) => ("A only", th.accent),
                (false, true) => ("B only", th.accent),
                (false, false) => ("neither", th.dim),
            };
            lines.push(Line::from(vec![
                Span::raw(format!("{} ", fit_pad(&query.id, 9))),
                Span::raw(func(&query.function_name)),
                Span::raw(format!("{x:>7.3}{y:>7.3}{:>+8.3}  ", x - y)),
                Span::styled(mark, st),
            ]));
        }
        if rows < bq.len() {
            lines.push(more_line(bq.len() - rows, th));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}
