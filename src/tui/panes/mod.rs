//! The panes (tabs). Each owns its own state, handles the actions the app forwards to it, starts
//! any background work in [`Pane::sync`] and draws itself from a [`View`] (doing nothing else
//! there). The tab list is [`all`]; adding a pane is a [`PaneId`] variant, one line in [`all`]
//! and its keys in `commands.rs` (docs/architecture.md, "Where things go").

pub mod audit;
pub mod browser;
pub mod deception;
pub mod density;
pub mod domains;
pub mod leaderboard;
pub mod pairs;
pub mod suites;

use super::actions::Action;
use super::view::{Data, Settings, Shared, View};
use ratatui::layout::Rect;
use ratatui::Frame;

/// Something a pane asks the app to do beyond its own state.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Switch to the browser on this system and/or query.
    OpenBrowser {
        system: Option<usize>,
        query: Option<usize>,
    },
    /// Enter filter mode (input goes to the active pane).
    StartFilter,
    /// Show a message in the status bar.
    Status(String),
    /// Run the retrieval audit of the current system (pool = top `k`, `visible` self-tests).
    RunAudit { k: usize, visible: usize },
    /// Forget the audit result (its parameters changed).
    ClearAudit,
    /// Hand the terminal to `$EDITOR` on this file (the main loop runs it; the pane hears back
    /// through [`Pane::editor_closed`]).
    RunEditor { file: std::path::PathBuf },
}

/// What a pane may read and change while handling an action.
pub struct Cx<'a> {
    pub data: Option<&'a Data>,
    /// The session's settings: a pane changes the selection (system, compared system), never
    /// the evaluation's (the app re-evaluates for those).
    pub settings: &'a mut Settings,
    pub shared: &'a mut Shared,
    pub effects: &'a mut Vec<Effect>,
}

/// Which pane: the dashboard's tabs as a type (the command registry's pane scopes, the app's
/// tab switches); [`PaneId::as_str`] is its stable id in exported file names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaneId {
    Leaderboard,
    Browser,
    Deception,
    Density,
    Domains,
    Pairs,
    Audit,
}

impl PaneId {
    pub const ALL: [PaneId; 7] = [
        PaneId::Leaderboard,
        PaneId::Browser,
        PaneId::Deception,
        PaneId::Density,
        PaneId::Domains,
        PaneId::Pairs,
        PaneId::Audit,
    ];

    /// The stable id (`leaderboard`, `browser`, …): command scopes and exported file names.
    pub fn as_str(self) -> &'static str {
        match self {
            PaneId::Leaderboard => "leaderboard",
            PaneId::Browser => "browser",
            PaneId::Deception => "deception",
            PaneId::Density => "density",
            PaneId::Domains => "domains",
            PaneId::Pairs => "pairs",
            PaneId::Audit => "audit",
        }
    }

    /// The name exported files carry: the tab's title in lower case (`queries` for the
    /// Queries tab, whatever its internal id).
    pub fn file_stem(self) -> String {
        self.title().to_lowercase()
    }

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            PaneId::Leaderboard => "Leaderboard",
            PaneId::Browser => "Queries",
            PaneId::Deception => "Deception",
            PaneId::Density => "Density",
            PaneId::Domains => "Domains",
            PaneId::Pairs => "Pairs",
            PaneId::Audit => "Audit",
        }
    }
}

/// One tab of the dashboard.
pub trait Pane {
    /// Which pane this is.
    fn kind(&self) -> PaneId;
    /// Stable id, used by the command registry's pane scopes.
    fn id(&self) -> &'static str {
        self.kind().as_str()
    }
    fn title(&self) -> &'static str {
        self.kind().title()
    }
    /// The report tables behind what the pane shows (exported as markdown with the screen).
    fn export_tables(&self, _v: &View) -> Vec<crate::report::Table> {
        Vec::new()
    }
    /// Every glyph the pane draws, with its meaning (the help's "Glyphs on …" section).
    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Handle an action; `false` if the pane ignores it.
    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool;
    fn draw(&self, f: &mut Frame, area: Rect, v: &View);
    /// Text typed while this pane's filter has the keyboard (`None`: the pane has no filter).
    fn filter_input(&mut self, _action: &Action, _cx: &mut Cx) -> Option<bool> {
        None
    }
    /// Whether the pane's input mode keeps the keyboard through Enter and Esc (an inline editor
    /// open): the pane says when it is done by no longer capturing.
    fn captures_input(&self) -> bool {
        false
    }
    /// New data arrived (re-evaluation, anatomy): drop caches.
    fn data_changed(&mut self) {}
    /// Bring the pane's background work in line with the state, after every change the app
    /// makes (an action handled, a job's result): the one place a pane starts or feeds a worker
    /// (the browser's live probe), never `draw`. Called on the active pane.
    fn sync(&mut self, _data: Option<&Data>, _settings: &Settings, _shared: &Shared) {}
    /// Work the pane waits for outside the job queue (a live probe): keep redrawing.
    fn busy(&self) -> bool {
        false
    }
    /// The external editor the pane asked for ([`Effect::RunEditor`]) closed: `Ok` when it
    /// exited cleanly (the file holds the text), else why not.
    fn editor_closed(&mut self, _result: Result<(), String>, _cx: &mut Cx) {}
}

/// The tab list, in tab order.
pub fn all() -> Vec<Box<dyn Pane>> {
    vec![
        Box::new(leaderboard::LeaderboardPane::default()),
        Box::new(browser::BrowserPane::default()),
        Box::new(deception::DeceptionPane::default()),
        Box::new(density::DensityPane::default()),
        Box::new(domains::DomainsPane::default()),
        Box::new(pairs::PairsPane::default()),
        Box::new(audit::AuditPane::default()),
    ]
}

/// Move a selection by an action within `len` items; `page` is the visible height.
pub fn step(sel: usize, len: usize, action: &Action, page: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let last = len - 1;
    let page = page.max(1);
    match action {
        Action::Up | Action::ScrollUp => sel.saturating_sub(1),
        Action::Down | Action::ScrollDown => (sel + 1).min(last),
        Action::PageUp => sel.saturating_sub(page),
        Action::PageDown => (sel + page).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => sel.min(last),
    }
}
