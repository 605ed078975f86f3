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
                TableCell::text(key.to_string()),
                TableCell::num(r.a_rate, 3),
                TableCell::num(r.b_rate, 3),
                TableCell::num(r.delta, 3),
                TableCell::text(fmt_ci(c)),
                TableCell::text(p_text(c)),
                TableCell::text(test.short()),
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
        let page = inner.height.saturating_sub(1) as usize;
        self.list_page.set(page.saturating_sub(1).max(1));
        let rows = window(bq.len(), page, self.list_top);
        for (q, query) in bq.iter().enumerate().skip(rows.start).take(rows.len()) {
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
        if rows.len() < bq.len() {
            lines.push(more_line(bq.len(), &rows, th));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}

impl PairsPane {
    /// The selected pair's counts, means, p-value, interval and test in `area` (as much as
    /// fits); returns the room left under them for its queries, when there is some.
    pub(super) fn draw_selected(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        m: &Matrix,
        (a, b): (usize, usize),
    ) -> Option<Rect> {
        let bottom = area;
        let th = v.theme;
        let metric = self.key(v);
        let c = &m.cells[a][b];
        let r = &c.result;
        let mut text = vec![
            Line::from(vec![
                Span::styled(v.system_id(a).to_string(), th.accent),
                Span::raw(" vs "),
                Span::styled(v.system_id(b).to_string(), th.accent),
                Span::raw(format!(" on {metric}")),
            ]),
            Line::from(format!(
                "only A {} · only B {} · both {} · neither {}   ({})",
                r.a_only,
                r.b_only,
                r.both,
                r.neither,
                if v.policy() == crate::metrics::TiePolicy::Expected {
                    // The counts are of queries with any chance; the means weigh the chance.
                    "success: any chance, value > 0"
                } else {
                    "success = value > 0"
                }
            )),
            Line::from(format!(
                "mean A {:.3} · mean B {:.3} · Δ {:+.3} · {} · Δ 95% CI {}",
                r.a_rate,
                r.b_rate,
                r.delta,
                fmt_p(c),
                fmt_ci(c)
            )),
        ];
        let test = match m.sig {
            Some((_, reps, seed)) => format!(
                "{}; Δ interval: paired bootstrap, {reps} replicates, seed {seed}",
                m.test.describe()
            ),
            None => format!(
                "{} bootstrap running: counts only, p and interval …",
                v.spinner
            ),
        };
        if let (true, Some(share)) = (
            m.test == PairTest::TieAveragedMcNemar && a != b,
            r.tie_orders_rejecting,
        ) {
            text.push(Line::from(format!(
                "p is averaged over tie orders; {:.0}% of tie orders give p ≤ 0.05",
                share * 100.0
            )));
        }
        text.push(Line::styled(
            format!("Test: {test}. Cell colours: the matrix's bottom border."),
            th.dim,
        ));
        // The details take what they need; the rest lists the queries only one side solves.
        let inner_w = bottom.width.saturating_sub(2).max(1) as usize;
        let need = text
            .iter()
            .map(|l| l.width().div_ceil(inner_w).max(1) as u16)
            .sum::<u16>()
            + 2;
        let (details, rest) = if a != b && bottom.height >= need + 5 {
            let [d, r] =
                Layout::vertical([Constraint::Length(need), Constraint::Min(0)]).areas(bottom);
            (d, Some(r))
        } else {
            (bottom, None)
        };
        // What does not fit the box ends in `…` (never cut mid-sentence at its border).
        let inner = framed(f, details, " Selected pair ", false, th);
        let (w, h) = (inner.width as usize, inner.height as usize);
        let mut lines = Vec::new();
        let mut text = text.into_iter();
        if let Some(head) = text.next().filter(|_| h > 0) {
            lines.push(Line::from(fit_spans(head.spans, w)));
        }
        let paras: Vec<(String, Style)> = text.map(|l| (l.to_string(), l.style)).collect();
        lines.extend(wrap_clip(&paras, w, h.saturating_sub(1)));
        f.render_widget(Paragraph::new(lines), inner);
        rest
    }

    /// The queries only one side of the selected pair solves, every query's value under both,
    /// and the pair on every metric and cutoff, as the room allows.
    pub(super) fn draw_pair_queries(
        &self,
        f: &mut Frame,
        rest: Rect,
        v: &View,
        d: &crate::tui::view::Data,
        (a, b): (usize, usize),
    ) {
        let th = v.theme;
        let metric = metrics()[self.metric];
        let ki = v.settings.k_index;
        self.list_len.set(d.engine.bundle().queries.len());
        let (ca, cb) = (
            d.engine.evals()[a].column(metric, ki),
            d.engine.evals()[b].column(metric, ki),
        );
        // The "only" lists take what they need; under them, when there is room, every
        // query's value under both systems (where the counts and Δ come from).
        let only =
            |w: &[f64], l: &[f64]| (0..w.len()).filter(|&q| w[q] > 0.0 && l[q] <= 0.0).count();
        let need = only(&ca, &cb).max(only(&cb, &ca)).max(1) as u16 + 2;
        let list_h = need.min(rest.height / 2).max(3);
        let below = rest.height.saturating_sub(list_h);
        let table_h = (ca.len() as u16 + 3).min(below);
        // The pair on every metric and cutoff, where there is room for it: under the
        // per-query table when both fit whole, else beside it on a wide screen.
        let cells = self.pair_cells(v, a, b);
        let cells_h = cells.len() as u16 + 3;
        let [lists, lower] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(rest);
        let (per_query, every) = if table_h < 4 {
            (None, None)
        } else if table_h + cells_h <= below {
            let [t, c, _] = Layout::vertical([
                Constraint::Length(table_h),
                Constraint::Length(cells_h),
                Constraint::Min(0),
            ])
            .areas(lower);
            (Some(t), Some(c))
        } else if lower.width >= 140 {
            let [t, c] = Layout::horizontal([Constraint::Length(PER_QUERY_W), Constraint::Min(0)])
                .areas(lower);
            let top = |r: Rect, h: u16| Rect::new(r.x, r.y, r.width, h.min(r.height));
            (Some(top(t, table_h)), Some(top(c, cells_h)))
        } else {
            (Some(lower), None)
        };
        if let Some(t) = per_query {
            let t = Rect::new(t.x, t.y, t.width, t.height.min(table_h));
            self.draw_per_query(f, t, v, (a, b), (&ca, &cb));
        }
        if let Some(c) = every {
            self.draw_every_cell(f, c, v, (a, b), &cells);
        }
        let rest = if per_query.is_some() { lists } else { rest };
        let halves: [Rect; 2] =
            Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(rest);
        for (side, (win, lose, area)) in [(a, b, halves[0]), (b, a, halves[1])]
            .into_iter()
            .enumerate()
        {
            let (cw, cl) = if side == 0 { (&ca, &cb) } else { (&cb, &ca) };
            // Success = value > 0, as in the counts above.
            let qs: Vec<usize> = (0..cw.len())
                .filter(|&q| cw[q] > 0.0 && cl[q] <= 0.0)
                .collect();
            let title = format!(
                " {} only: {} ",
                fit(v.system_id(win), (area.width as usize / 2).max(4)),
                qs.len()
            );
            let inner = framed(f, area, Line::styled(title, th.title), false, th);
            let w = inner.width as usize;
            let b = &d.engine.bundle();
            if per_query.is_none() {
                self.list_page
                    .set((inner.height as usize).saturating_sub(1).max(1));
            }
            let rows = window(qs.len(), inner.height as usize, self.list_top);
            let mut lines: Vec<Line> = qs[rows.clone()]
                .iter()
                .map(|&q| {
                    let query = &b.queries[q];
                    Line::from(vec![
                        Span::raw(format!("{} ", fit_pad(&query.id, 9.min(w)))),
                        Span::styled(fit(&query.function_name, w.saturating_sub(10)), th.accent),
                    ])
                })
                .collect();
            if rows.len() < qs.len() {
                lines.push(more_line(qs.len(), &rows, th));
            }
            if qs.is_empty() {
                lines.push(Line::styled(
                    fit(
                        &format!(
                            "no query solved by {} but not by {}",
                            v.system_id(win),
                            v.system_id(lose)
                        ),
                        w,
                    ),
                    th.dim,
                ));
            }
            f.render_widget(Paragraph::new(lines), inner);
        }
    }
}
