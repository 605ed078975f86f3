//! The command registry: the one list that maps keys to actions and feeds both the key bar and the
//! help overlay, so the screen can never describe a key that does something else.

use super::actions::Action;
use super::panes::PaneId;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Which part of the dashboard a command belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere (normal mode).
    Global,
    /// Only on this pane.
    Pane(PaneId),
    /// While a prompt, filter or picker has the keyboard.
    Input,
}

/// A key as the registry names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Code(KeyCode),
    Ctrl(char),
}

impl Key {
    fn matches(self, ev: &KeyEvent) -> bool {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            Key::Char(c) => !ctrl && ev.code == KeyCode::Char(c),
            Key::Code(code) => ev.code == code,
            Key::Ctrl(c) => ctrl && ev.code == KeyCode::Char(c),
        }
    }
}

/// One command: its keys, the action they send, a short label (key bar) and a help line.
#[derive(Clone, Debug)]
pub struct Command {
    pub keys: &'static [Key],
    /// How the keys are written on screen.
    pub keys_label: &'static str,
    pub action: Action,
    pub label: &'static str,
    pub help: &'static str,
    pub scope: Scope,
    /// Shown in the bottom key bar (the help overlay shows every command).
    pub bar: bool,
}

const fn cmd(
    scope: Scope,
    keys: &'static [Key],
    keys_label: &'static str,
    action: Action,
    label: &'static str,
    help: &'static str,
    bar: bool,
) -> Command {
    Command {
        keys,
        keys_label,
        action,
        label,
        help,
        scope,
        bar,
    }
}

use Key::{Char as C, Code as K};
use Scope::{Global as G, Input as I, Pane as P};

/// Every command of the dashboard. Order is display order.
#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    // Input mode (prompt, filter, picker).
    cmd(I, &[K(KeyCode::Enter)], "Enter", Action::Enter, "accept", "Accept the input / pick the highlighted item.", true),
    cmd(I, &[K(KeyCode::Esc)], "Esc", Action::Back, "cancel", "Leave the prompt (a filter is cleared).", true),
    cmd(I, &[K(KeyCode::Up), Key::Ctrl('p')], "↑", Action::Up, "prev", "Highlight the previous item.", true),
    cmd(I, &[K(KeyCode::Down), Key::Ctrl('n')], "↓", Action::Down, "next", "Highlight the next item.", true),
    cmd(I, &[K(KeyCode::Backspace)], "⌫", Action::Backspace, "delete", "Delete the last character.", false),
    cmd(I, &[Key::Ctrl('s')], "C-s", Action::Apply, "apply", "Inline editor: apply the edit (Enter inserts a newline in code; on a query it applies too).", false),
    // Documentation only: the inline editor's cursor keys are mapped in `lookup` (no key here).
    cmd(I, &[], "←→ Home End Del Tab", Action::Delete, "cursor", "Inline editor: move the cursor (PgUp/PgDn too), delete right, indent four spaces.", false),
    // Global.
    cmd(G, &[C('?')], "?", Action::Help, "help", "Show or hide this help.", true),
    cmd(G, &[C('q'), Key::Ctrl('c')], "q", Action::Quit, "quit", "Quit the dashboard.", true),
    cmd(G, &[K(KeyCode::Tab)], "Tab", Action::NextTab, "next tab", "Next pane (Shift-Tab: previous; 1–9: jump).", false),
    cmd(G, &[K(KeyCode::BackTab)], "S-Tab", Action::PrevTab, "prev tab", "Previous pane.", false),
    cmd(G, &[C('1'), C('2'), C('3'), C('4'), C('5'), C('6'), C('7'), C('8'), C('9')], "1–9", Action::Tab(0), "pane n", "Jump to pane n (or click its tab).", false),
    cmd(G, &[K(KeyCode::Up), C('k')], "↑/k", Action::Up, "up", "Move up.", false),
    cmd(G, &[K(KeyCode::Down), C('j')], "↓/j", Action::Down, "down", "Move down.", false),
    cmd(G, &[K(KeyCode::Left), C('h')], "←/h", Action::Left, "left", "Move left (previous column / focus).", false),
    cmd(G, &[K(KeyCode::Right), C('l')], "→/l", Action::Right, "right", "Move right (next column / focus).", false),
    cmd(G, &[K(KeyCode::PageUp), Key::Ctrl('u')], "PgUp", Action::PageUp, "page up", "One page up.", false),
    cmd(G, &[K(KeyCode::PageDown), Key::Ctrl('d')], "PgDn", Action::PageDown, "page down", "One page down.", false),
    cmd(G, &[C('g'), K(KeyCode::Home)], "g", Action::Top, "top", "First item.", false),
    cmd(G, &[C('G'), K(KeyCode::End)], "G", Action::Bottom, "bottom", "Last item.", false),
    cmd(G, &[K(KeyCode::Esc)], "Esc", Action::Back, "back", "Leave live results / clear the filter / close.", false),
    cmd(G, &[C('s')], "s", Action::PickSystem, "system", "Pick the current system (fuzzy).", true),
    cmd(G, &[C('K')], "K", Action::CycleK, "cutoff k", "Next cutoff k (k alone moves up, vim style).", true),
    cmd(G, &[C('t')], "t", Action::CycleTies, "ties", "Next tie policy: row → expected → pessimistic → optimistic (re-evaluates).", true),
    cmd(G, &[C(':')], ":", Action::LiveQuery, "live query", "Type a query: ranked by BM25 as you type and by every dense system whose model is available (the current system's ranking is shown).", true),
    cmd(G, &[C('T')], "T", Action::ToggleTheme, "theme", "Cycle dark / light / high-contrast (projector) theme.", false),
    cmd(G, &[C('x')], "x", Action::Export, "export", "Export the pane: SVG + markdown.", false),
    // Presenter mode.
    cmd(G, &[C('z')], "z", Action::Zoom, "zoom", "Zoom the pane to the whole screen; z or Esc returns (keys still go to the pane).", true),
    cmd(G, &[C('B')], "B", Action::BigNumbers, "big numbers", "Headline numbers in large type: leader and runner-up exec@1, exec@10, 95% CI, tie policy (B or Esc returns).", false),
    cmd(G, &[Key::Ctrl('p')], "C-p", Action::Palette, "palette", "Command palette: find any action by name (Enter runs it, Esc closes).", false),
    // Leaderboard.
    cmd(P(PaneId::Leaderboard), &[K(KeyCode::Enter)], "Enter", Action::Enter, "queries", "Open the selected system's queries in the browser.", true),
    cmd(P(PaneId::Leaderboard), &[C('r')], "r", Action::ReverseSort, "reverse", "Reverse the sort order (←/→ or a header click picks the column).", true),
    // Browser.
    cmd(P(PaneId::Browser), &[C('/')], "/", Action::Filter, "filter", "Fuzzy-filter the query list (id, domain, function, text).", true),
    cmd(P(PaneId::Browser), &[K(KeyCode::Enter)], "Enter", Action::Enter, "ranking", "Move the focus to the ranking (←/→ also switch focus).", false),
    cmd(P(PaneId::Browser), &[C('d')], "d", Action::ToggleDiff, "diff", "Code ↔ diff of the canonical against the selected snippet.", true),
    cmd(P(PaneId::Browser), &[C('c')], "c", Action::ToggleCompare, "compare", "Side-by-side rankings of the current and the compared system.", true),
    cmd(P(PaneId::Browser), &[C('S')], "S", Action::PickCompare, "compare sys", "Pick the compared system.", false),
    cmd(P(PaneId::Browser), &[C('e')], "e", Action::Edit, "edit", "Edit inline the query text (query list focused) or the selected snippet (ranking focused): every system's score, rank and the tests' verdict before → after.", true),
    cmd(P(PaneId::Browser), &[C('E')], "E", Action::ExternalEdit, "$EDITOR", "Edit the selected snippet in $EDITOR (or $VISUAL) instead.", false),
    cmd(P(PaneId::Browser), &[C('u')], "u", Action::Undo, "undo edit", "Undo the last edit of this query.", false),
    // Deception.
    cmd(P(PaneId::Deception), &[C('v')], "v", Action::ToggleSuites, "suites", "Deception by bug type ↔ test-suite strength: per family killed / survived, tasks weakest first (⚑ suite gap), every surviving mutant with its diff (from build_report.json).", true),
    cmd(P(PaneId::Deception), &[C('L')], "L", Action::ToggleLanguages, "languages", "Deception by bug type ↔ by bug type and language (dense systems pooled) and by language per system, in a bundle of several languages.", true),
    cmd(P(PaneId::Deception), &[K(KeyCode::Enter)], "Enter", Action::Enter, "open query", "Suite strength: open the selected survivor's query in the browser.", false),
    cmd(P(PaneId::Deception), &[K(KeyCode::PageUp), Key::Ctrl('u')], "PgUp", Action::PageUp, "scroll up", "A page up the bug types; suite strength: the task list (↑/↓ move the survivors).", false),
    cmd(P(PaneId::Deception), &[K(KeyCode::PageDown), Key::Ctrl('d')], "PgDn", Action::PageDown, "scroll down", "A page down the bug types; suite strength: the task list.", false),
    // Density.
    cmd(P(PaneId::Density), &[C(' ')], "Space", Action::ToggleSelect, "show/hide", "Show or hide the selected system's line.", true),
    // Domains.
    cmd(P(PaneId::Domains), &[K(KeyCode::Enter)], "Enter", Action::Enter, "open query", "Open the selected unsolved query in the browser.", true),
    // Pairs.
    cmd(P(PaneId::Pairs), &[C('m')], "m", Action::CycleMetric, "metric", "Next metric family (exec, execp, ndcg).", true),
    cmd(P(PaneId::Pairs), &[K(KeyCode::PageUp), Key::Ctrl('u')], "PgUp", Action::PageUp, "lists up", "Scroll the query lists under the matrix up a page (↑/↓ move the row system, ←/→ the compared one).", false),
    cmd(P(PaneId::Pairs), &[K(KeyCode::PageDown), Key::Ctrl('d')], "PgDn", Action::PageDown, "lists down", "Scroll the query lists under the matrix down a page.", false),
    // Audit.
    cmd(P(PaneId::Audit), &[K(KeyCode::Enter)], "Enter", Action::Enter, "run / open", "Run the retrieval audit of the current system; on a task: open its candidates (Esc closes).", true),
    cmd(P(PaneId::Audit), &[C('v')], "v", Action::CycleVisible, "visible m", "Next number of visible self-tests per query (1–5; Enter re-runs).", true),
];

/// The action bound to a key in this context: the active pane's commands first, then global ones.
/// In input mode only input commands apply and any other printable character is typed.
pub fn lookup(ev: &KeyEvent, pane: PaneId, input: bool) -> Option<Action> {
    if input {
        if let Some(c) = COMMANDS
            .iter()
            .filter(|c| c.scope == Scope::Input)
            .find(|c| c.keys.iter().any(|k| k.matches(ev)))
        {
            return Some(c.action.clone());
        }
        return match ev.code {
            KeyCode::Char(ch) if !ev.modifiers.contains(KeyModifiers::CONTROL) => {
                Some(Action::Input(ch))
            }
            // The inline editor's cursor keys (documented by one registry line).
            KeyCode::Left => Some(Action::Left),
            KeyCode::Right => Some(Action::Right),
            KeyCode::Home => Some(Action::Top),
            KeyCode::End => Some(Action::Bottom),
            KeyCode::PageUp => Some(Action::PageUp),
            KeyCode::PageDown => Some(Action::PageDown),
            KeyCode::Delete => Some(Action::Delete),
            KeyCode::Tab => Some(Action::Input('\t')),
            _ => None,
        };
    }
    active(pane, false)
        .find(|c| c.keys.iter().any(|k| k.matches(ev)))
        .map(|c| match (&c.action, ev.code) {
            // One entry serves all digit keys: the digit picks the pane.
            (Action::Tab(_), KeyCode::Char(d @ '1'..='9')) => {
                Action::Tab(d as usize - '1' as usize)
            }
            (a, _) => a.clone(),
        })
}

/// Commands that apply on `pane` in normal mode, pane-specific first.
pub fn active(pane: PaneId, input: bool) -> impl Iterator<Item = &'static Command> {
    let pane_cmds = COMMANDS
        .iter()
        .filter(move |c| !input && c.scope == Scope::Pane(pane));
    let rest = COMMANDS.iter().filter(move |c| {
        if input {
            c.scope == Scope::Input
        } else {
            c.scope == Scope::Global
        }
    });
    pane_cmds.chain(rest)
}

/// The key bar: (keys, label) of the bar commands active here. `several_languages`: the bundle
/// is not all Python (the deception pane's `L` has something to show only then; it stays in
/// the help and the palette either way).
pub fn bar(
    pane: PaneId,
    input: bool,
    several_languages: bool,
) -> Vec<(&'static str, &'static str)> {
    active(pane, input)
        .filter(|c| c.bar && (several_languages || c.action != Action::ToggleLanguages))
        .map(|c| (c.keys_label, c.label))
        .collect()
}

/// The key bar while an inline editor has the keyboard: apply, cancel and the cursor keys.
pub fn editor_bar() -> Vec<(&'static str, &'static str)> {
    COMMANDS
        .iter()
        .filter(|c| {
            c.scope == Scope::Input
                && matches!(c.action, Action::Apply | Action::Back | Action::Delete)
        })
        .map(|c| (c.keys_label, c.label))
        .collect()
}

/// The key bar while the help overlay is open: the movement keys that scroll it, and the key
/// that closes it (every other key does nothing there).
pub fn help_bar() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = COMMANDS
        .iter()
        .filter(|c| c.scope == Scope::Global && c.action.moves_selection())
        .map(|c| (c.keys_label, c.label))
        .collect();
    out.insert(0, ("?/Esc", "close"));
    out
}

/// One entry of the command palette: a registry command (or, for the registry's pane-jump and
/// theme commands, one entry per pane / theme), with the action Enter sends.
#[derive(Clone, Debug)]
pub struct PaletteEntry {
    pub label: String,
    pub keys: String,
    pub help: &'static str,
    pub action: Action,
    /// The registry command this entry comes from.
    pub command: &'static Command,
}

impl PaletteEntry {
    /// What the palette's fuzzy filter matches: the label first, then the help text and keys.
    pub fn haystack(&self) -> String {
        format!("{} — {} ({})", self.label, self.help, self.keys)
    }
}

/// The command palette's entries on `pane`: every command that applies there in normal mode
/// ([`active`], the table the key bar and help read), the pane-jump command as one "go to pane
/// N" entry per pane, and the theme, tie-policy and cutoff commands each followed by one entry
/// per theme, tie policy and cutoff (`ks`, the evaluation's).
pub fn palette(pane: PaneId, panes: &[(PaneId, &'static str)], ks: &[usize]) -> Vec<PaletteEntry> {
    let mut out = Vec::new();
    for c in active(pane, false) {
        let entry = |label: String, keys: String, action: Action| PaletteEntry {
            label,
            keys,
            help: c.help,
            action,
            command: c,
        };
        match c.action {
            Action::Tab(_) => {
                for (i, (_, title)) in panes.iter().enumerate() {
                    out.push(entry(
                        format!("go to pane {} {title}", i + 1),
                        (i + 1).to_string(),
                        Action::Tab(i),
                    ));
                }
            }
            Action::ToggleTheme => {
                out.push(entry(
                    c.label.to_string(),
                    c.keys_label.to_string(),
                    c.action.clone(),
                ));
                for kind in super::theme::ThemeKind::ALL {
                    out.push(entry(
                        format!("theme: {}", kind.as_str()),
                        c.keys_label.to_string(),
                        Action::SetTheme(kind),
                    ));
                }
            }
            Action::CycleTies => {
                out.push(entry(
                    c.label.to_string(),
                    c.keys_label.to_string(),
                    c.action.clone(),
                ));
                for (i, p) in crate::metrics::TiePolicy::ALL.iter().enumerate() {
                    out.push(entry(
                        format!("ties: {p}"),
                        c.keys_label.to_string(),
                        Action::SetTies(i),
                    ));
                }
            }
            Action::CycleK => {
                out.push(entry(
                    c.label.to_string(),
                    c.keys_label.to_string(),
                    c.action.clone(),
                ));
                for (i, k) in ks.iter().enumerate() {
                    out.push(entry(
                        format!("cutoff k = {k}"),
                        c.keys_label.to_string(),
                        Action::SetK(i),
                    ));
                }
            }
            _ => out.push(entry(
                c.label.to_string(),
                c.keys_label.to_string(),
                c.action.clone(),
            )),
        }
    }
    out
}

/// The palette entries matching `text`, best first: matches on the label before matches on
/// the help text or keys only.
pub fn palette_matches(entries: &[PaletteEntry], text: &str) -> Vec<usize> {
    let mut out = super::fuzzy::filter(text, entries.iter().map(|e| e.label.as_str()));
    let hay: Vec<String> = entries.iter().map(PaletteEntry::haystack).collect();
    for i in super::fuzzy::filter(text, hay.iter().map(String::as_str)) {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The bottom line of a zoomed pane: the zoom key, which leaves.
pub fn zoom_bar() -> Vec<(&'static str, &'static str)> {
    COMMANDS
        .iter()
        .filter(|c| c.scope == Scope::Global && c.action == Action::Zoom)
        .map(|c| (c.keys_label, "unzoom"))
        .collect()
}

/// The key bar of the big-numbers view: the key that leaves, and the commands that still work
/// there (the tie policy and the theme change what is shown).
pub fn big_bar() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = COMMANDS
        .iter()
        .filter(|c| {
            c.scope == Scope::Global && matches!(c.action, Action::CycleTies | Action::ToggleTheme)
        })
        .map(|c| (c.keys_label, c.label))
        .collect();
    out.insert(0, ("B/Esc", "back"));
    out
}

/// Help overlay sections: (title, [(keys, help)]).
pub fn help(panes: &[(PaneId, &'static str)]) -> Vec<(String, Vec<(&'static str, &'static str)>)> {
    let pick = |s: Scope| -> Vec<(&'static str, &'static str)> {
        COMMANDS
            .iter()
            .filter(|c| c.scope == s)
            .map(|c| (c.keys_label, c.help))
            .collect()
    };
    let mut out = vec![("Everywhere".to_string(), pick(Scope::Global))];
    for (id, title) in panes {
        let cmds = pick(Scope::Pane(*id));
        if !cmds.is_empty() {
            out.push((title.to_string(), cmds));
        }
    }
    out.push((
        "Prompts, filter and pickers".to_string(),
        pick(Scope::Input),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    /// No key may be bound twice where both bindings are active: that is what lets the key bar and
    /// the help promise exactly one meaning per key.
    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for pane in PaneId::ALL {
            for input in [false, true] {
                let cmds: Vec<&Command> = active(pane, input).collect();
                for (i, a) in cmds.iter().enumerate() {
                    for b in &cmds[i + 1..] {
                        for ka in a.keys {
                            if b.keys.contains(ka) && a.action != b.action {
                                panic!(
                                    "{pane:?}: {ka:?} bound to {:?} and {:?}",
                                    a.action, b.action
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn pane_commands_shadow_global_ones() {
        assert_eq!(
            lookup(&key(KeyCode::Enter), PaneId::Leaderboard, false),
            Some(Action::Enter)
        );
        assert_eq!(
            lookup(&key(KeyCode::Char('d')), PaneId::Browser, false),
            Some(Action::ToggleDiff)
        );
        assert_eq!(lookup(&key(KeyCode::Char('d')), PaneId::Pairs, false), None);
        assert_eq!(
            lookup(&key(KeyCode::Char('k')), PaneId::Pairs, false),
            Some(Action::Up)
        );
        assert_eq!(
            lookup(&key(KeyCode::Char('3')), PaneId::Pairs, false),
            Some(Action::Tab(2))
        );
        assert_eq!(
            lookup(&key(KeyCode::Char('q')), PaneId::Pairs, true),
            Some(Action::Input('q'))
        );
        assert_eq!(
            lookup(&key(KeyCode::Esc), PaneId::Pairs, true),
            Some(Action::Back)
        );
        let bar = bar(PaneId::Browser, false, false);
        assert!(bar.contains(&("/", "filter")) && bar.contains(&("q", "quit")));
    }
}
