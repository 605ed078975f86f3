//! The app's input: keys through the command registry, then the action handled by the mode
//! that has the keyboard (help, pickers, palette, live prompt, a pane's filter, normal), the
//! pane's effects applied. The one place state changes ([`App::handle`]).

use super::{App, Mode, Request, LIVE_DEPTH};
use crate::metrics::TiePolicy;
use crate::tui::actions::{Action, Hit};
use crate::tui::commands;
use crate::tui::fuzzy;
use crate::tui::panes::{self, Cx, Effect, PaneId};
use crate::tui::theme::Theme;
use crate::tui::view::AuditSlot;
use crossterm::event::KeyEvent;

impl App {
    pub(super) fn input_mode(&self) -> bool {
        matches!(
            self.mode,
            Mode::Filter | Mode::Picker { .. } | Mode::Prompt | Mode::Palette { .. }
        )
    }

    /// Translate a key through the command registry and handle it.
    pub fn handle_key(&mut self, ev: KeyEvent) {
        if let Some(a) = commands::lookup(&ev, self.pane(), self.input_mode()) {
            self.handle(a);
        }
    }

    /// Systems matching the picker text, best first.
    pub fn picker_items(&self, text: &str) -> Vec<usize> {
        let Some(d) = &self.data else {
            return Vec::new();
        };
        fuzzy::filter(text, d.engine.scores().iter().map(|s| s.id.as_str()))
    }

    /// The command palette's entries on the active pane (the registry's, see
    /// [`commands::palette`]).
    pub fn palette_entries(&self) -> Vec<commands::PaletteEntry> {
        let panes: Vec<(PaneId, &'static str)> =
            self.panes.iter().map(|p| (p.kind(), p.title())).collect();
        commands::palette(self.pane(), &panes, &self.settings.eval().ks)
    }

    /// The palette entries matching `text`, best first (indices into [`App::palette_entries`]).
    pub fn palette_items(&self, text: &str) -> Vec<usize> {
        commands::palette_matches(&self.palette_entries(), text)
    }

    pub(super) fn rescore_live(&mut self) {
        let (Some(d), Some((text, res))) = (&self.data, self.shared.live.as_mut()) else {
            return;
        };
        res.clear();
        if let Some(bm) = &d.bm25 {
            let scores = bm.score_text(text);
            let row: Vec<f32> = scores.iter().map(|&s| s as f32).collect();
            *res = crate::rank::top_k(&row, LIVE_DEPTH)
                .into_iter()
                .map(|c| (c, scores[c as usize]))
                .collect();
        }
    }

    fn switch_to(&mut self, id: PaneId) {
        if let Some(i) = self.panes.iter().position(|p| p.kind() == id) {
            self.tab = i;
        }
    }

    /// The one place state changes; the active pane then syncs its background work with the
    /// new state ([`Pane::sync`](crate::tui::panes::Pane::sync)).
    pub fn handle(&mut self, action: Action) {
        let redraw_only = matches!(action, Action::Tick | Action::Resize(..));
        self.change(action);
        if !redraw_only {
            self.sync_active();
        }
    }

    fn change(&mut self, action: Action) {
        match action {
            Action::Tick => {
                self.spinner = self.spinner.wrapping_add(1);
                return;
            }
            Action::Resize(..) => return,
            _ => {}
        }
        if !matches!(
            action,
            Action::Click(_) | Action::ScrollUp | Action::ScrollDown
        ) {
            self.status = None;
        }
        let mut effects = Vec::new();
        match self.mode.clone() {
            Mode::Help { scroll } => self.in_help(scroll, action),
            Mode::Picker { compare, text, sel } => self.in_picker(compare, text, sel, action),
            Mode::Big => match action {
                Action::BigNumbers | Action::Back | Action::Enter | Action::Quit => {
                    self.mode = Mode::Normal
                }
                // What the big numbers name can change under them.
                Action::CycleTies | Action::ToggleTheme => self.normal(action, &mut effects),
                _ => {}
            },
            Mode::Palette { text, sel } => self.in_palette(text, sel, action, &mut effects),
            Mode::Prompt => self.in_prompt(action, &mut effects),
            Mode::Filter => self.in_filter(action, &mut effects),
            Mode::Normal => self.normal(action, &mut effects),
        }
        self.apply_effects(effects);
    }

    /// The help overlay: the movement keys and the wheel scroll a help taller than the screen.
    fn in_help(&mut self, scroll: usize, action: Action) {
        match action {
            Action::Help | Action::Back | Action::Quit | Action::Enter => self.mode = Mode::Normal,
            a if a.moves_selection() => {
                let (max, page) = crate::tui::help::room(&self.help(), self.hits.body());
                let scroll = panes::step(scroll.min(max), max + 1, &a, page);
                self.mode = Mode::Help { scroll };
            }
            _ => {}
        }
    }

    /// The system picker (`s`, `S`): typing filters, Enter picks.
    fn in_picker(&mut self, compare: bool, mut text: String, mut sel: usize, action: Action) {
        let items = self.picker_items(&text);
        if edit_list_filter(&mut text, &mut sel, &action, items.len()) {
            self.mode = Mode::Picker { compare, text, sel };
            return;
        }
        match action {
            Action::Enter => {
                if let Some(&s) = items.get(sel) {
                    if compare {
                        self.settings.compare = s;
                    } else {
                        self.settings.system = s;
                    }
                    self.status = Some(format!(
                        "{} system: {}",
                        if compare { "compared" } else { "current" },
                        self.data
                            .as_ref()
                            .map_or("", |d| d.engine.scores()[s].id.as_str())
                    ));
                }
                self.mode = Mode::Normal;
            }
            Action::Back => self.mode = Mode::Normal,
            _ => self.mode = Mode::Picker { compare, text, sel },
        }
    }

    /// The command palette (Ctrl-P): typing filters, Enter runs the entry's action as its key
    /// would in normal mode.
    fn in_palette(
        &mut self,
        mut text: String,
        mut sel: usize,
        action: Action,
        effects: &mut Vec<Effect>,
    ) {
        let items = self.palette_items(&text);
        if edit_list_filter(&mut text, &mut sel, &action, items.len()) {
            self.mode = Mode::Palette { text, sel };
            return;
        }
        match action {
            Action::PageUp | Action::PageDown | Action::Top | Action::Bottom => {
                sel = panes::step(sel, items.len(), &action, 10);
                self.mode = Mode::Palette { text, sel };
            }
            Action::Enter => {
                self.mode = Mode::Normal;
                if let Some(e) = items
                    .get(sel)
                    .map(|&i| self.palette_entries().swap_remove(i))
                {
                    self.normal(e.action, effects);
                }
            }
            Action::Back => self.mode = Mode::Normal,
            _ => self.mode = Mode::Palette { text, sel },
        }
    }

    /// The live query's prompt (`:`): BM25 ranks the text as it is typed; Enter sends it to
    /// every system.
    fn in_prompt(&mut self, action: Action, effects: &mut Vec<Effect>) {
        match action {
            Action::Input(_) | Action::Backspace | Action::Paste(_) => {
                if let Some((t, _)) = self.shared.live.as_mut() {
                    match &action {
                        Action::Input(c) if !c.is_control() => t.push(*c),
                        Action::Input(_) => {}
                        // One line: a pasted newline becomes a space.
                        Action::Paste(s) => t.extend(
                            s.chars()
                                .map(|c| if c == '\n' { ' ' } else { c })
                                .filter(|c| !c.is_control()),
                        ),
                        _ => {
                            t.pop();
                        }
                    }
                }
                self.rescore_live();
                // New results: the selection starts again at rank 1.
                self.forward(&Action::Top, effects);
            }
            Action::Enter => {
                self.mode = Mode::Normal;
                self.forward(&Action::Enter, effects);
            }
            Action::Back => {
                self.shared.live = None;
                self.mode = Mode::Normal;
            }
            other => self.forward(&other, effects),
        }
    }

    /// The active pane's filter or inline editor has the keyboard.
    fn in_filter(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let mut cx = Cx {
            data: self.data.as_ref(),
            settings: &mut self.settings,
            shared: &mut self.shared,
            effects,
        };
        let pane = &mut self.panes[self.tab];
        let was = pane.captures_input();
        let handled = pane.filter_input(&action, &mut cx);
        let now = pane.captures_input();
        // A plain filter ends on Enter / Esc; an inline editor when it stops capturing.
        let ends = if was {
            !now
        } else {
            matches!(action, Action::Enter | Action::Back | Action::Apply)
        };
        if handled.is_none() || ends {
            self.mode = Mode::Normal;
        }
    }

    /// Let the active pane start or feed its background work for the state just reached.
    pub(super) fn sync_active(&mut self) {
        self.panes[self.tab].sync(self.data.as_ref(), &self.settings, &self.shared);
    }

    fn normal(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let n = self.panes.len();
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.mode = Mode::Help { scroll: 0 },
            Action::NextTab => self.tab = (self.tab + 1) % n,
            Action::PrevTab => self.tab = (self.tab + n - 1) % n,
            Action::Tab(i) | Action::Click(Hit::Tab(i)) => {
                if i < n {
                    self.tab = i;
                }
            }
            Action::PickSystem | Action::PickCompare => {
                if self.data.is_some() {
                    self.mode = Mode::Picker {
                        compare: action == Action::PickCompare,
                        text: String::new(),
                        sel: 0,
                    };
                }
            }
            Action::CycleK => {
                if self.data.is_some() {
                    let n = self.settings.eval().ks.len().max(1);
                    self.settings.k_index = (self.settings.k_index + 1) % n;
                    self.status = Some(format!("cutoff k = {}", self.settings.k()));
                }
            }
            Action::CycleTies => {
                let cur = self.pending_policy.unwrap_or(self.settings.policy());
                let i = TiePolicy::ALL.iter().position(|&p| p == cur).unwrap_or(0);
                self.apply_policy(TiePolicy::ALL[(i + 1) % TiePolicy::ALL.len()]);
            }
            Action::SetTies(i) => {
                let cur = self.pending_policy.unwrap_or(self.settings.policy());
                if let Some(&p) = TiePolicy::ALL.get(i).filter(|&&p| p != cur) {
                    self.apply_policy(p);
                }
            }
            Action::SetK(i) => {
                if self.data.is_some() && i < self.settings.eval().ks.len() {
                    self.settings.k_index = i;
                    self.status = Some(format!("cutoff k = {}", self.settings.k()));
                }
            }
            Action::ToggleTheme => self.settings.theme = self.settings.theme.toggled(),
            Action::SetTheme(kind) => {
                self.settings.theme = Theme::new(kind, self.settings.theme.mono)
            }
            Action::Zoom => self.zoom = !self.zoom,
            Action::BigNumbers => self.mode = Mode::Big,
            Action::Palette => {
                self.mode = Mode::Palette {
                    text: String::new(),
                    sel: 0,
                }
            }
            // The main loop draws the export (the app never calls the renderer).
            Action::Export => self.requests.push(Request::Export),
            Action::LiveQuery => {
                if self.data.is_some() {
                    self.shared.live = Some((String::new(), Vec::new()));
                    self.mode = Mode::Prompt;
                    self.switch_to(PaneId::Browser);
                }
            }
            Action::Back if self.shared.live.is_some() => self.shared.live = None,
            Action::Back if self.zoom => self.zoom = false,
            other => self.forward(&other, effects),
        }
    }

    fn forward(&mut self, action: &Action, effects: &mut Vec<Effect>) {
        let mut cx = Cx {
            data: self.data.as_ref(),
            settings: &mut self.settings,
            shared: &mut self.shared,
            effects,
        };
        self.panes[self.tab].handle(action, &mut cx);
    }

    pub(super) fn apply_effects(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::OpenBrowser { system, query } => {
                    if let Some(s) = system {
                        self.settings.system = s;
                    }
                    if let Some(q) = query {
                        self.shared.query = q;
                    }
                    self.shared.live = None;
                    self.switch_to(PaneId::Browser);
                }
                Effect::StartFilter => self.mode = Mode::Filter,
                Effect::Status(s) => self.status = Some(s),
                Effect::RunAudit { k, visible } => self.start_audit(k, visible),
                Effect::RunEditor { file } => self.requests.push(Request::Editor { file }),
                Effect::ClearAudit => {
                    if let Some(d) = self.data.as_mut() {
                        if !matches!(d.audit, AuditSlot::Running(..)) {
                            d.audit = AuditSlot::Idle;
                        }
                    }
                }
            }
        }
        self.invalidate_audit();
    }
}

/// The typing and moving a fuzzy list (system picker, command palette) shares: text typed,
/// pasted or deleted restarts the highlight at the top; ↑/↓ move it among `n` items. `false`:
/// the action is not one of these.
fn edit_list_filter(text: &mut String, sel: &mut usize, action: &Action, n: usize) -> bool {
    match action {
        Action::Input(c) if !c.is_control() => text.push(*c),
        Action::Paste(s) => text.extend(s.chars().filter(|c| !c.is_control())),
        Action::Backspace => {
            text.pop();
        }
        Action::Up | Action::Down | Action::ScrollUp | Action::ScrollDown => {
            *sel = panes::step(*sel, n, action, 1);
            return true;
        }
        _ => return false,
    }
    *sel = 0;
    true
}
