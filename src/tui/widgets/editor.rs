//! A small multi-line text editor for the browser's inline edits (a query text or a snippet's
//! code): cursor movement, newline, backspace / delete, Tab as four spaces and pastes of whole
//! blocks. No auto-indent, so a paste that arrives as typed keys (a terminal without bracketed
//! paste) comes out exactly as it was copied. Columns count characters, not bytes.

use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;
use std::cell::Cell;

/// Spaces a Tab inserts (PEP 8 indentation).
pub const TAB: &str = "    ";

#[derive(Clone, Debug)]
pub struct Editor {
    lines: Vec<String>,
    /// Cursor line.
    row: usize,
    /// Cursor column in characters (0..=line length).
    col: usize,
    /// First line and column shown (kept so the cursor stays in view).
    top: Cell<usize>,
    left: Cell<usize>,
    /// Text lines of the last drawn area.
    page_h: Cell<usize>,
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Byte offset of character `col` in `s` (its length past the end).
fn byte_at(s: &str, col: usize) -> usize {
    s.char_indices().nth(col).map_or(s.len(), |(i, _)| i)
}

impl Editor {
    /// An editor on `text`, the cursor at its start.
    pub fn new(text: &str) -> Editor {
        Editor {
            lines: text.split('\n').map(str::to_string).collect(),
            row: 0,
            col: 0,
            top: Cell::new(0),
            left: Cell::new(0),
            page_h: Cell::new(1),
        }
    }

    /// The edited text (lines joined by `\n`).
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// (line, column) of the cursor, both from 0.
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Insert one character (`\n` splits the line, `\t` inserts [`TAB`], `\r` is dropped).
    pub fn insert(&mut self, c: char) {
        match c {
            '\n' => self.newline(),
            '\t' => TAB.chars().for_each(|c| self.insert(c)),
            '\r' => {}
            c => {
                let line = &mut self.lines[self.row];
                line.insert(byte_at(line, self.col), c);
                self.col += 1;
            }
        }
    }

    /// Insert a pasted block (CRLF and CR line ends become `\n`).
    pub fn paste(&mut self, s: &str) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        for c in s.chars() {
            self.insert(c);
        }
    }

    pub fn newline(&mut self) {
        let line = &mut self.lines[self.row];
        let rest = line.split_off(byte_at(line, self.col));
        self.row += 1;
        self.col = 0;
        self.lines.insert(self.row, rest);
    }

    /// Delete the character before the cursor (at a line start: join with the line above).
    pub fn backspace(&mut self) {
        if self.col > 0 {
            let line = &mut self.lines[self.row];
            let at = byte_at(line, self.col - 1);
            line.remove(at);
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = char_len(&self.lines[self.row]);
            self.lines[self.row].push_str(&line);
        }
    }

    /// Delete the character under the cursor (at a line end: join the next line).
    pub fn delete(&mut self) {
        if self.col < char_len(&self.lines[self.row]) {
            let line = &mut self.lines[self.row];
            let at = byte_at(line, self.col);
            line.remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    pub fn left(&mut self) {
        if self.col > 0 {
            self.col -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.col = char_len(&self.lines[self.row]);
        }
    }

    pub fn right(&mut self) {
        if self.col < char_len(&self.lines[self.row]) {
            self.col += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    /// Up / down by `n` lines, the column clamped to the new line.
    pub fn vertical(&mut self, up: bool, n: usize) {
        self.row = if up {
            self.row.saturating_sub(n)
        } else {
            (self.row + n).min(self.lines.len() - 1)
        };
        self.col = self.col.min(char_len(&self.lines[self.row]));
    }

    pub fn home(&mut self) {
        self.col = 0;
    }

    pub fn end(&mut self) {
        self.col = char_len(&self.lines[self.row]);
    }

    /// Lines that fit the last drawn area (a page for PgUp / PgDn).
    pub fn page(&self) -> usize {
        self.page_h.get().max(1)
    }

    /// Draw with line numbers inside `block`; the cursor is a reversed cell, and the view scrolls
    /// (both ways) to keep it visible.
    pub fn render(&self, f: &mut Frame, area: Rect, block: Block<'_>, th: &Theme) {
        let inner = block.inner(area);
        f.render_widget(block, area);
        let h = inner.height as usize;
        let gutter = char_len(&self.lines.len().to_string()) + 2;
        let w = (inner.width as usize).saturating_sub(gutter).max(1);
        self.page_h.set(h);
        // Scroll so the cursor is inside the view.
        let mut top = self.top.get();
        if self.row < top {
            top = self.row;
        } else if h > 0 && self.row >= top + h {
            top = self.row + 1 - h;
        }
        let mut left = self.left.get();
        if self.col < left {
            left = self.col;
        } else if self.col >= left + w {
            left = self.col + 1 - w;
        }
        self.top.set(top);
        self.left.set(left);
        let cursor = th.selected.add_modifier(Modifier::REVERSED);
        let mut out = Vec::with_capacity(h);
        for (i, line) in self.lines.iter().enumerate().skip(top).take(h) {
            let mut spans = vec![Span::styled(
                format!("{:>n$}  ", i + 1, n = gutter - 2),
                th.dim,
            )];
            let shown: String = line.chars().skip(left).take(w).collect();
            if i == self.row {
                let c = self.col - left;
                let before: String = shown.chars().take(c).collect();
                let at: String = shown.chars().nth(c).map_or(" ".into(), String::from);
                let after: String = shown.chars().skip(c + 1).collect();
                spans.push(Span::raw(before));
                spans.push(Span::styled(at, cursor));
                spans.push(Span::raw(after));
            } else {
                spans.push(Span::raw(shown));
            }
            out.push(Line::from(spans));
        }
        f.render_widget(Paragraph::new(out), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_moving_and_deleting() {
        let mut e = Editor::new("def f(x):\n    return x");
        assert_eq!(e.cursor(), (0, 0));
        e.vertical(false, 1);
        e.end();
        assert_eq!(e.cursor(), (1, 12));
        e.backspace();
        e.insert('y');
        assert_eq!(e.text(), "def f(x):\n    return y");
        // Backspace at a line start joins the lines; Enter splits them again.
        e.home();
        e.backspace();
        assert_eq!(e.text(), "def f(x):    return y");
        assert_eq!(e.cursor(), (0, 9));
        e.newline();
        assert_eq!(e.text(), "def f(x):\n    return y");
        // Delete at a line end joins the next line.
        e.vertical(true, 1);
        e.end();
        e.delete();
        assert_eq!(e.text(), "def f(x):    return y");
        // Left at a line start goes to the end of the line above; right comes back.
        let mut e = Editor::new("ab\ncd");
        e.vertical(false, 1);
        e.left();
        assert_eq!(e.cursor(), (0, 2));
        e.right();
        assert_eq!(e.cursor(), (1, 0));
        // Up / down clamp the column.
        let mut e = Editor::new("long line\nx");
        e.end();
        e.vertical(false, 5);
        assert_eq!(e.cursor(), (1, 1));
    }

    #[test]
    fn tab_paste_and_wide_characters() {
        let mut e = Editor::new("");
        e.insert('\t');
        e.paste("x = 1\r\ny = 'é'\rz");
        assert_eq!(e.text(), "    x = 1\ny = 'é'\nz");
        // Columns are characters: deleting after a multi-byte one does not split it.
        let mut e = Editor::new("é1");
        e.end();
        e.backspace();
        e.backspace();
        assert_eq!(e.text(), "");
        e.backspace();
        e.delete();
        assert_eq!(e.text(), "");
    }
}
