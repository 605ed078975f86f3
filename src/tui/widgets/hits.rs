//! Where a frame drew its clickable regions: each widget records its rows and headers while
//! drawing, and the next mouse click is looked up here.

use crate::tui::actions::Hit;
use ratatui::layout::{Position, Rect};
use std::cell::RefCell;

/// Clickable regions recorded during a draw, looked up on the next click, and the area the
/// panes were last drawn in (the export key renders the pane at that size).
#[derive(Debug, Default)]
pub struct Hits(RefCell<Vec<(Rect, Hit)>>, std::cell::Cell<Rect>);

impl Hits {
    /// Record the panes' area of this frame.
    pub fn set_body(&self, r: Rect) {
        self.1.set(r);
    }

    /// The panes' area of the last frame (empty before the first).
    pub fn body(&self) -> Rect {
        self.1.get()
    }

    pub fn clear(&self) {
        self.0.borrow_mut().clear();
    }

    pub fn push(&self, r: Rect, hit: Hit) {
        if r.width > 0 && r.height > 0 {
            self.0.borrow_mut().push((r, hit));
        }
    }

    /// The last-drawn (topmost) region under a position.
    pub fn at(&self, col: u16, row: u16) -> Option<Hit> {
        self.0
            .borrow()
            .iter()
            .rev()
            .find(|(r, _)| r.contains(Position::new(col, row)))
            .map(|(_, h)| *h)
    }
}
