//! One sortable table widget for every table on screen. It draws a report [`Table`] — the very
//! cells `execscope report` prints — so the dashboard cannot format a number differently.
//!
//! Columns that do not fit scroll horizontally behind the frozen leading columns, keeping the
//! focused column in view; rows scroll to keep the selection in view.

use super::hits::Hits;
use crate::report::{Align, Table, TableCell};
use crate::tui::actions::Hit;
use crate::tui::theme::Theme;
use crate::tui::widgets::scroll_offset;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Sort column and direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SortState {
    pub col: Option<usize>,
    pub desc: bool,
}

impl SortState {
    /// Sort by `col`; the same column again flips the direction. Numbers start descending.
    pub fn click(&mut self, col: usize) {
        if self.col == Some(col) {
            self.desc = !self.desc;
        } else {
            self.col = Some(col);
            self.desc = true;
        }
    }
}

/// Row order of `t` under `sort` (stable; cells without a number sort by text; NaN last).
pub fn sorted_order(t: &Table, sort: &SortState) -> Vec<usize> {
    let mut order: Vec<usize> = (0..t.rows.len()).collect();
    let Some(col) = sort.col.filter(|&c| c < t.headers.len()) else {
        return order;
    };
    let key = |r: usize| -> (bool, f64, &str) {
        let c = &t.rows[r][col];
        match c.value {
            Some(v) if v.is_finite() => (false, v, c.text.as_str()),
            Some(_) => (true, 0.0, c.text.as_str()),
            None => (false, 0.0, c.text.as_str()),
        }
    };
    order.sort_by(|&a, &b| {
        let (na, va, ta) = key(a);
        let (nb, vb, tb) = key(b);
        let ord = va.total_cmp(&vb).then_with(|| ta.cmp(tb));
        na.cmp(&nb)
            .then(if sort.desc { ord.reverse() } else { ord })
    });
    order
}

/// The text a cell shows (a mark adds `†`, as in `Table::to_text`).
pub fn shown(c: &TableCell) -> String {
    if c.mark {
        format!("{}†", c.text)
    } else {
        c.text.clone()
    }
}

/// Extra style of a cell from (table row, column, cell).
pub type CellStyle<'a> = dyn Fn(usize, usize, &TableCell) -> Style + 'a;

/// Everything one table draw needs.
pub struct TableView<'a> {
    pub table: &'a Table,
    /// Display order of the table's rows.
    pub order: &'a [usize],
    /// Selected position in `order`.
    pub selected: Option<usize>,
    pub focused: bool,
    pub sort: Option<SortState>,
    /// Leading columns that never scroll away.
    pub frozen: usize,
    /// Column kept in view (and underlined in the header).
    pub focus_col: Option<usize>,
    /// Extra style per (table row, column, cell), e.g. heat-map colours.
    pub cell_style: Option<&'a CellStyle<'a>>,
    /// Mouse regions are recorded under this list id.
    pub list: u8,
}

/// `s` aligned in exactly `w` columns; a longer text is shortened with `…`, never cut silently.
fn pad(s: &str, w: usize, align: Align) -> String {
    let n = s.chars().count();
    if n >= w {
        return super::text::fit(s, w);
    }
    match align {
        Align::Left => format!("{s}{}", " ".repeat(w - n)),
        Align::Right => format!("{}{s}", " ".repeat(w - n)),
    }
}

impl<'a> TableView<'a> {
    /// A read-only view: no selection, focus, sort or cell styles; `frozen` leading columns.
    pub fn plain(table: &'a Table, order: &'a [usize], frozen: usize, list: u8) -> Self {
        TableView {
            table,
            order,
            selected: None,
            focused: false,
            sort: None,
            frozen,
            focus_col: None,
            cell_style: None,
            list,
        }
    }
}

impl TableView<'_> {
    /// Draw into `area` (header on the first line). Returns the first visible row position.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme, hits: &Hits) -> usize {
        let t = self.table;
        let ncol = t.headers.len();
        if area.height == 0 || area.width == 0 || ncol == 0 {
            return 0;
        }
        let arrow = |c: usize| match self.sort {
            Some(s) if s.col == Some(c) => {
                if s.desc {
                    "▼"
                } else {
                    "▲"
                }
            }
            _ => "",
        };
        let mut width: Vec<usize> = (0..ncol)
            .map(|c| t.headers[c].chars().count() + arrow(c).chars().count())
            .collect();
        for r in &t.rows {
            for (c, cell) in r.iter().enumerate().take(ncol) {
                width[c] = width[c].max(shown(cell).chars().count());
            }
        }
        let (cols, hidden_left, hidden_right) = self.columns(&mut width, area.width as usize);
        let frozen = self.frozen.min(ncol);
        // Header.
        let mut spans = Vec::new();
        let mut x = area.x;
        for (i, &c) in cols.iter().enumerate() {
            let label = format!("{}{}", t.headers[c], arrow(c));
            let mut st = theme.header;
            if self.focus_col == Some(c) {
                st = st.add_modifier(ratatui::style::Modifier::REVERSED);
            }
            spans.push(Span::styled(pad(&label, width[c], t.align[c]), st));
            hits.push(
                Rect::new(x, area.y, width[c] as u16, 1).intersection(area),
                Hit::Header {
                    list: self.list,
                    col: c,
                },
            );
            x = x.saturating_add(width[c] as u16 + 2);
            if i + 1 < cols.len() {
                spans.push(Span::raw("  "));
            }
            if hidden_left && i + 1 == frozen {
                spans.push(Span::styled("‹ ", theme.dim));
                x = x.saturating_add(2);
            }
        }
        if hidden_right {
            spans.push(Span::styled(" ›", theme.dim));
        }
        let mut lines = vec![Line::from(spans)];
        // Rows.
        let body = area.height.saturating_sub(1) as usize;
        let offset = self.selected.map_or(0, |s| scroll_offset(s, body));
        for (pos, &r) in self.order.iter().enumerate().skip(offset).take(body) {
            let row = &t.rows[r];
            let selected = self.selected == Some(pos);
            let mut spans = Vec::new();
            for (i, &c) in cols.iter().enumerate() {
                let cell = &row[c];
                let mut st = Style::default();
                if cell.best {
                    st = st.patch(theme.best);
                }
                if let Some(f) = self.cell_style {
                    st = st.patch(f(r, c, cell));
                }
                spans.push(Span::styled(pad(&shown(cell), width[c], t.align[c]), st));
                if i + 1 < cols.len() {
                    spans.push(Span::raw(if hidden_left && i + 1 == frozen {
                        "    "
                    } else {
                        "  "
                    }));
                }
            }
            let mut line = Line::from(spans);
            if selected {
                line = line.style(if self.focused {
                    theme.selected
                } else {
                    theme.selected_unfocused
                });
            }
            let y = area.y + 1 + (pos - offset) as u16;
            hits.push(
                Rect::new(area.x, y, area.width, 1),
                Hit::Row {
                    list: self.list,
                    index: pos,
                },
            );
            lines.push(line);
        }
        f.render_widget(Paragraph::new(lines), area);
        offset
    }

    /// The columns shown in `avail` columns: the frozen ones, then a window that holds the
    /// focused column; whether columns are hidden on the left / right. A frozen column, or a
    /// lone one too wide for the room, gives way (`width` shrinks: its texts end in `…`).
    fn columns(&self, width: &mut [usize], avail: usize) -> (Vec<usize>, bool, bool) {
        let t = self.table;
        let ncol = t.headers.len();
        // Choose visible columns: frozen ones, then a window that contains the focus column.
        let frozen = self.frozen.min(ncol);
        // Frozen columns wider than the area: the widest left-aligned one gives way (its
        // texts are then shortened with `…`).
        while width[..frozen].iter().map(|w| w + 2).sum::<usize>() > avail + 2 {
            let Some(c) = (0..frozen)
                .filter(|&c| t.align[c] == Align::Left && width[c] > 4)
                .max_by_key(|&c| width[c])
            else {
                break;
            };
            width[c] -= 1;
        }
        let used: usize = width[..frozen].iter().map(|w| w + 2).sum();
        let mut start = frozen;
        let fits = |start: usize, upto: usize| -> bool {
            used + width[start..=upto].iter().map(|w| w + 2).sum::<usize>() <= avail
        };
        if let Some(fc) = self.focus_col.filter(|&c| c >= frozen && c < ncol) {
            while start < fc && !fits(start, fc) {
                start += 1;
            }
        }
        let mut cols: Vec<usize> = (0..frozen).collect();
        let all_fit = used + width[frozen..].iter().map(|w| w + 2).sum::<usize>() <= avail + 2;
        // Leave room for the "›" marker when columns are cut on the right.
        let budget = if all_fit {
            avail
        } else {
            avail.saturating_sub(2)
        };
        let mut total = used;
        for (c, w) in width.iter().enumerate().skip(start) {
            if total + w > budget {
                break;
            }
            total += w + 2;
            cols.push(c);
        }
        // A column too wide to fit even alone beside the frozen ones is shown shortened (its
        // texts end in `…`) rather than not at all.
        if cols.len() == frozen && start < ncol {
            let room = budget.saturating_sub(total + if start > frozen { 2 } else { 0 });
            if room >= 4 {
                width[start] = room;
                cols.push(start);
            }
        }
        let hidden_left = start > frozen;
        let hidden_right = cols.last().is_some_and(|&c| c + 1 < ncol);
        (cols, hidden_left, hidden_right)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A focused column wider than the room beside the frozen ones is shown shortened with
    /// `…`, not left out (the header read `domain ‹ ›` with no column at all).
    #[test]
    fn a_column_too_wide_for_the_room_is_shortened() {
        let mut t = Table::new("t", "t")
            .column("domain", "d", Align::Left)
            .column("a", "a", Align::Right)
            .column("multilingual-e5-small", "m", Align::Right);
        t.push(vec![
            TableCell::text("geometry"),
            TableCell::num(0.5, 3),
            TableCell::num(0.25, 3),
        ]);
        let order = [0];
        let view = TableView {
            focus_col: Some(2),
            ..TableView::plain(&t, &order, 1, 0)
        };
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(22, 2)).unwrap();
        let theme = Theme::new(crate::tui::theme::ThemeKind::Dark, true);
        let hits = Hits::default();
        term.draw(|f| {
            view.render(f, f.area(), &theme, &hits);
        })
        .unwrap();
        let buf = term.backend().buffer();
        let line = |y: u16| (0..22).map(|x| buf[(x, y)].symbol()).collect::<String>();
        assert_eq!(line(0), "domain    ‹ multili…  ");
        assert_eq!(line(1), "geometry       0.250  ");
    }

    #[test]
    fn sorts_by_value_then_text_nan_last() {
        let mut t =
            Table::new("t", "t")
                .column("a", "a", Align::Left)
                .column("v", "v", Align::Right);
        t.push(vec![TableCell::text("x"), TableCell::num(0.5, 3)]);
        t.push(vec![TableCell::text("y"), TableCell::num(f64::NAN, 3)]);
        t.push(vec![TableCell::text("z"), TableCell::num(0.9, 3)]);
        let mut s = SortState::default();
        assert_eq!(sorted_order(&t, &s), vec![0, 1, 2]);
        s.click(1);
        assert_eq!(sorted_order(&t, &s), vec![2, 0, 1]);
        s.click(1);
        assert_eq!(sorted_order(&t, &s), vec![0, 2, 1]);
        s.click(0);
        assert_eq!(sorted_order(&t, &s), vec![2, 1, 0]);
    }
}
