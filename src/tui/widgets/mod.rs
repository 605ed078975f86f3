//! Reusable widgets: the sortable table, bars, syntax-highlighted code and inline diffs.

pub mod axis;
pub mod bar;
pub mod chrome;
pub mod code;
pub mod diff;
pub mod editor;
pub mod forest;
pub mod histogram;
pub mod hits;
pub mod table;
pub mod text;

/// The first row to show so that row `sel` is in a window of `visible` rows: the window stays at
/// the top until the selection passes its bottom, then keeps the selection on its last row.
pub fn scroll_offset(sel: usize, visible: usize) -> usize {
    if visible > 0 && sel >= visible {
        sel + 1 - visible
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn scroll_offset_by_hand() {
        use super::scroll_offset;
        assert_eq!(scroll_offset(0, 5), 0);
        assert_eq!(scroll_offset(4, 5), 0);
        assert_eq!(scroll_offset(5, 5), 1);
        assert_eq!(scroll_offset(9, 5), 5);
        // No room: nothing scrolls.
        assert_eq!(scroll_offset(3, 0), 0);
    }
}
