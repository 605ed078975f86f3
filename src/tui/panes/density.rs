//! Pane 4: pool density — expected exec@1 against the number of retained paired distractors, one
//! line per shown system, with the report's density table beside the chart.

use super::{step, Cx, Pane, PaneId};
use crate::report::anatomy as atab;
use crate::tui::actions::{Action, Hit};
use crate::tui::view::View;
use crate::tui::widgets::axis::{LineChart, Series};
use crate::tui::widgets::chrome::framed;
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::table::TableView;
use crate::tui::widgets::text::wrap_clip;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::collections::BTreeSet;

const LIST: u8 = 40;
const MISSES: u8 = 41;
const LINE_COLORS: [Color; 6] = [
    Color::Cyan,
    Color::Magenta,
    Color::Yellow,
    Color::Green,
    Color::Red,
    Color::Blue,
];
const MARKERS: [&str; 6] = ["●", "◆", "▲", "■", "✚", "✱"];

#[derive(Default)]
pub struct DensityPane {
    pub selected: usize,
    /// Systems (table rows) whose line is hidden.
    pub hidden: BTreeSet<usize>,
    /// The rank-1 miss table's column ←/→ brought into view (0: none focused).
    pub col: usize,
}

impl Pane for DensityPane {
    fn kind(&self) -> PaneId {
        PaneId::Density
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[
            (
                "● ◆ ▲ ■ ✚ ✱",
                "a system's line: at its last point and beside its table row",
            ),
            ("·", "the line is hidden (Space shows it)"),
            ("┬ ┤", "ticks, drawn in the column / row of their value"),
        ]
    }

    fn export_tables(&self, v: &View) -> Vec<crate::report::Table> {
        v.data
            .and_then(|d| d.anatomy.as_ref())
            .map(atab::density_table)
            .into_iter()
            .collect()
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let n = cx
            .data
            .and_then(|d| d.anatomy.as_ref())
            .map_or(0, |a| a.density.len());
        match action {
            _ if action.moves_selection() => {
                self.selected = step(self.selected, n, action, n);
            }
            Action::Left => self.col = self.col.saturating_sub(1),
            Action::Right => {
                let ncol = cx
                    .data
                    .and_then(|d| d.anatomy.as_ref())
                    .map_or(0, |a| atab::misses_table(a).headers.len());
                self.col = (self.col + 1).min(ncol.saturating_sub(1));
            }
            Action::ToggleSelect => {
                if !self.hidden.remove(&self.selected) {
                    self.hidden.insert(self.selected);
                }
            }
            Action::Click(Hit::Row { list: LIST, index }) => {
                if self.selected == *index && !self.hidden.remove(index) {
                    self.hidden.insert(*index);
                }
                self.selected = *index;
            }
            _ => return false,
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some(a) = v.data.and_then(|d| d.anatomy.as_ref()) else {
            message(f, area, &v.pending("density ablation"), th.accent);
            return;
        };
        let (density, misses) = (atab::density_table(a), atab::misses_table(a));
        let table = &density;
        let wide = area.width >= 110;
        let table_h = table.rows.len() as u16 + 3;
        let (chart_area, table_area) = if wide {
            let [c, right] =
                Layout::horizontal([Constraint::Percentage(55), Constraint::Min(30)]).areas(area);
            // Under the density table (with its caption), when the column is tall: the rank-1
            // miss composition, the misses the retained distractors cause.
            let misses_h = misses.rows.len() as u16 + 6;
            let dens_h = table_h + 7;
            if right.height >= dens_h + misses_h {
                let [tb, m] =
                    Layout::vertical([Constraint::Length(dens_h), Constraint::Min(misses_h)])
                        .areas(right);
                self.draw_misses(f, m, v, &misses);
                (c, tb)
            } else {
                (c, right)
            }
        } else {
            let [c, tb] =
                Layout::vertical([Constraint::Min(8), Constraint::Length(table_h + 2)]).areas(area);
            (c, tb)
        };
        self.draw_chart(f, chart_area, v, a);
        self.draw_table(f, table_area, v, table);
    }
}

/// A system's line colour (none in monochrome).
fn color(th: &crate::tui::theme::Theme, i: usize) -> Style {
    if th.mono {
        Style::default()
    } else {
        Style::default().fg(LINE_COLORS[i % LINE_COLORS.len()])
    }
}

impl DensityPane {
    /// Expected exec@1 against the retained distractors, one line per shown system.
    fn draw_chart(&self, f: &mut Frame, chart_area: Rect, v: &View, a: &crate::view::AnatomyView) {
        let th = v.theme;
        let color = |i: usize| color(th, i);
        // The density table's own typed rows (the report's and the figure's).
        let rows = &a.density;
        let points: Vec<Vec<(f64, f64)>> = rows
            .iter()
            .map(|s| {
                s.density
                    .iter()
                    .enumerate()
                    .map(|(d, &y)| (d as f64, y))
                    .collect()
            })
            .collect();
        let max_d = points
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(1)
            .saturating_sub(1)
            .max(1);
        let inner = framed(
            f,
            chart_area,
            Line::from(vec![
                Span::styled(" Expected exec@1 vs retained distractors ", th.title),
                Span::styled(format!("(ties: {}) ", a.policy()), th.dim),
            ]),
            false,
            th,
        );
        // Ticks where their values are drawn (widgets::axis): whole distractor counts on x,
        // quarters of exec@1 on y when the plot is tall enough to keep them apart.
        let y_ticks = if inner.height >= 12 {
            vec![0.0, 0.25, 0.5, 0.75, 1.0]
        } else {
            vec![0.0, 0.5, 1.0]
        };
        LineChart {
            series: rows
                .iter()
                .enumerate()
                .filter(|(i, _)| !self.hidden.contains(i))
                .map(|(i, _)| Series {
                    points: &points[i],
                    style: color(i),
                    marker: MARKERS[i % MARKERS.len()],
                })
                .collect(),
            x: [0.0, max_d as f64],
            y: [0.0, 1.0],
            x_ticks: (0..=max_d).map(|d| d as f64).collect(),
            y_ticks,
            axis: th.dim,
        }
        .render(f, inner, th);
    }

    /// The report's density table beside the chart, each row's line marker and visibility.
    fn draw_table(&self, f: &mut Frame, table_area: Rect, v: &View, table: &crate::report::Table) {
        let th = v.theme;
        let color = |i: usize| color(th, i);
        let inner = framed(
            f,
            table_area,
            Line::styled(" Density table (Space: show/hide line) ", th.title),
            true,
            th,
        );
        let [marks, tbl] =
            Layout::horizontal([Constraint::Length(3), Constraint::Min(10)]).areas(inner);
        let mut ml = vec![Line::raw("")];
        for i in 0..table.rows.len() {
            let shown = !self.hidden.contains(&i);
            ml.push(Line::styled(
                if shown {
                    format!("{} ", MARKERS[i % MARKERS.len()])
                } else {
                    "· ".to_string()
                },
                color(i),
            ));
        }
        f.render_widget(Paragraph::new(ml), marks);
        let order: Vec<usize> = (0..table.rows.len()).collect();
        TableView {
            table,
            order: &order,
            selected: Some(self.selected.min(order.len().saturating_sub(1))),
            focused: true,
            sort: None,
            frozen: 1,
            focus_col: None,
            cell_style: None,
            list: LIST,
        }
        .render(f, tbl, th, v.hits);
        let cap_y = tbl.y + table.rows.len() as u16 + 1;
        if cap_y < tbl.bottom() {
            let cap = Rect::new(tbl.x, cap_y, tbl.width, tbl.bottom() - cap_y);
            caption(f, cap, &table.caption, th.dim);
        }
    }
}

impl DensityPane {
    /// The report's rank-1 miss composition table, with its caption.
    fn draw_misses(&self, f: &mut Frame, area: Rect, v: &View, t: &crate::report::Table) {
        let th = v.theme;
        let inner = framed(
            f,
            area,
            Line::styled(format!(" {} ", t.title), th.title),
            false,
            th,
        );
        let order: Vec<usize> = (0..t.rows.len()).collect();
        let h = (t.rows.len() as u16 + 1).min(inner.height);
        // ←/→ bring the columns that do not fit into view.
        TableView {
            focus_col: (self.col > 0).then_some(self.col),
            ..TableView::plain(t, &order, 1, MISSES)
        }
        .render(f, Rect::new(inner.x, inner.y, inner.width, h), th, v.hits);
        let cap_y = inner.y + h + 1;
        if cap_y < inner.bottom() {
            let cap = Rect::new(inner.x, cap_y, inner.width, inner.bottom() - cap_y);
            caption(f, cap, &t.caption, th.dim);
        }
    }
}

/// A table's caption in `area`, wrapped; what does not fit ends in `…`, never mid-sentence.
fn caption(f: &mut Frame, area: Rect, text: &str, style: Style) {
    let lines = wrap_clip(
        &[(text.to_string(), style)],
        area.width as usize,
        area.height as usize,
    );
    f.render_widget(Paragraph::new(lines), area);
}
