//! Everything the dashboard can be asked to do, as data.
//!
//! Keys and mouse events become [`Action`]s (through the command registry in `commands.rs`), and
//! `App::handle` is the only place that changes state, so a test can drive the app with the same
//! values a keyboard produces, without a terminal.

use serde::Deserialize;

/// A clickable region recorded while drawing; a mouse click resolves to one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Hit {
    /// A tab in the tab bar (index into the tab list).
    Tab(usize),
    /// A column header of a pane's table.
    Header { list: u8, col: usize },
    /// A row of a pane's list or table (index into the list as displayed).
    Row { list: u8, index: usize },
}

/// One user intent.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub enum Action {
    Quit,
    Help,
    NextTab,
    PrevTab,
    /// Jump to the tab at this 0-based index.
    Tab(usize),
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Left,
    Right,
    Enter,
    /// Leave the current mode / overlay / focus.
    Back,
    /// Fuzzy-filter the current list (`/`).
    Filter,
    /// Pick the current system (fuzzy).
    PickSystem,
    /// Pick the system compared side by side in the browser.
    PickCompare,
    /// Next cutoff k of the evaluation.
    CycleK,
    /// Next tie policy (re-evaluates every system).
    CycleTies,
    /// This tie policy (an index into `TiePolicy::ALL`; the command palette's entries).
    SetTies(usize),
    /// This cutoff (an index into the evaluation's cutoffs; the command palette's entries).
    SetK(usize),
    ToggleTheme,
    /// Switch to this palette (the command palette's theme entries).
    SetTheme(super::theme::ThemeKind),
    /// Presenter: the active pane on the whole screen, and back.
    Zoom,
    /// Presenter: the headline numbers in large type, and back.
    BigNumbers,
    /// Presenter: the command palette (every action by name).
    Palette,
    /// Open the live BM25 query prompt (`:`).
    LiveQuery,
    /// Browser: code view ↔ diff against the canonical.
    ToggleDiff,
    /// Browser: side-by-side rankings of two systems.
    ToggleCompare,
    /// Browser: edit the query text or the selected snippet (counterfactual probe).
    Edit,
    /// Browser: edit the selected snippet in `$EDITOR` instead of inline.
    ExternalEdit,
    /// Browser: undo the last edit.
    Undo,
    /// Apply the text being edited (the inline editor's Ctrl-S).
    Apply,
    /// Delete the character under the cursor (the inline editor).
    Delete,
    /// A block of text pasted into the terminal (bracketed paste).
    Paste(String),
    /// Reverse the sort order of the current table.
    ReverseSort,
    /// Pairs: next metric family.
    CycleMetric,
    /// Audit: next number of visible tests (1..5).
    CycleVisible,
    /// Deception: switch between deception by bug type and test-suite strength.
    ToggleSuites,
    /// Deception: switch between deception by bug type and by bug type and language (a bundle
    /// of several languages).
    ToggleLanguages,
    /// Toggle the selected item (e.g. a system's line in the density chart).
    ToggleSelect,
    /// Write the current pane as SVG (colours kept) and markdown, for slides.
    Export,
    /// A character typed into a prompt or filter.
    Input(char),
    Backspace,
    /// A mouse click on a recorded region.
    Click(Hit),
    ScrollUp,
    ScrollDown,
    Resize(u16, u16),
    /// Time passed (spinner).
    Tick,
}

impl Action {
    /// Whether the action moves a list's selection: up/down, a page, the first/last item, or the
    /// mouse wheel (every pane moves its selection with [`crate::tui::panes::step`] on these).
    pub fn moves_selection(&self) -> bool {
        matches!(
            self,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Bottom
                | Action::ScrollUp
                | Action::ScrollDown
        )
    }
}
