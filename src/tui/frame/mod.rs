//! The frame around the panes: tab bar, status bar, key bar, and the overlays (help, system
//! picker, live-query prompt). The key bar and help read the command registry.

use super::actions::Hit;
use super::app::{App, Mode};
use super::commands;
use super::help;
use super::widgets::chrome::{centered, message};
use super::widgets::text::{clock, fit, fit_spans};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

mod presenter;
use presenter::{draw_big, draw_zoom};

/// The smallest terminal the tabbed dashboard and a zoomed pane are laid out for.
pub const MIN_SIZE: (u16, u16) = (80, 20);

/// Draw the whole dashboard.
pub fn draw(f: &mut Frame, app: &App) {
    app.hits.clear();
    if app.mode == Mode::Big {
        // The big numbers fall back to normal type on any screen.
        return draw_big(f, app);
    }
    let area = f.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        return draw_too_small(f, app, area);
    }
    if app.zoom {
        return draw_zoom(f, app);
    }
    let v = app.view();
    let th = &app.settings.theme;
    let area = f.area();
    f.render_widget(Block::default().style(th.base), area);
    let [tabs, body, status, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    app.hits.set_body(body);
    draw_tabs(f, tabs, app);
    draw_body(f, body, app);
    draw_status(f, status, app, v.spinner);
    if app.mode == Mode::Prompt {
        draw_prompt(f, keys, app);
    } else {
        draw_keys(f, keys, app);
    }
    draw_overlays(f, body, app);
}

/// A terminal smaller than [`MIN_SIZE`]: what it is, what the dashboard needs, and the keys
/// that still help (every key still works).
fn draw_too_small(f: &mut Frame, app: &App, area: Rect) {
    let th = &app.settings.theme;
    app.hits.set_body(Rect::default());
    f.render_widget(Block::default().style(th.base), area);
    let (w, h) = MIN_SIZE;
    let text = format!(
        "terminal too small: {}×{}; the dashboard needs {w}×{h}. Enlarge the window or make the \
         font smaller; B shows the headline numbers at any size; q quits.",
        area.width, area.height
    );
    message(f, area, &text, th.warn);
}

/// The active pane in `body` (or the load error, or the loading message).
fn draw_body(f: &mut Frame, body: Rect, app: &App) {
    let th = &app.settings.theme;
    let v = app.view();
    if let Some(e) = &app.error {
        let p = Paragraph::new(format!("error: {e}"))
            .style(th.bad)
            .wrap(Wrap { trim: false });
        f.render_widget(p, body);
    } else if app.data.is_none() {
        message(
            f,
            body,
            &format!("{} loading bundle {} …", v.spinner, app.bundle_name),
            th.accent,
        );
    } else {
        app.panes[app.tab].draw(f, body, &v);
    }
}

/// The live query's prompt line (in place of the key bar).
fn draw_prompt(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.settings.theme;
    let text = app.shared.live.as_ref().map_or("", |l| l.0.as_str());
    let line = Line::from(vec![
        Span::styled(" live BM25 query: ", th.accent),
        Span::raw(text.to_string()),
        Span::styled("▏", th.accent),
    ]);
    f.render_widget(Paragraph::new(line), area);
}

/// The overlay of the current mode (help, pickers, palette) over the panes' area.
fn draw_overlays(f: &mut Frame, body: Rect, app: &App) {
    match &app.mode {
        Mode::Help { scroll } => help::draw(f, body, &app.help(), *scroll),
        Mode::Picker { compare, text, sel } => draw_picker(f, body, app, *compare, text, *sel),
        Mode::Palette { text, sel } => draw_palette(f, body, app, text, *sel),
        _ => {}
    }
}

fn draw_tabs(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.settings.theme;
    // Full titles when they fit; else without the name; else full titles packed closer (80
    // columns); else the active tab's title and the others' numbers (a tab is never cut in the
    // middle of its title).
    #[derive(Clone, Copy, PartialEq)]
    enum Tabs {
        Full,
        Packed,
        Numbers,
    }
    let label = |i: usize, how: Tabs| match how {
        Tabs::Full => format!(" {} {} ", i + 1, app.panes[i].title()),
        Tabs::Packed => format!(" {} {}", i + 1, app.panes[i].title()),
        Tabs::Numbers if i == app.tab => format!(" {} {} ", i + 1, app.panes[i].title()),
        Tabs::Numbers => format!(" {} ", i + 1),
    };
    let width = |brand: bool, how: Tabs| {
        (0..app.panes.len())
            .map(|i| label(i, how).chars().count() + 1)
            .sum::<usize>()
            + if brand { 11 } else { 0 }
    };
    let fits = |brand, how| width(brand, how) <= area.width as usize + 1;
    let (brand, how) = if fits(true, Tabs::Full) {
        (true, Tabs::Full)
    } else if fits(false, Tabs::Full) {
        (false, Tabs::Full)
    } else if fits(false, Tabs::Packed) {
        (false, Tabs::Packed)
    } else {
        (fits(true, Tabs::Numbers), Tabs::Numbers)
    };
    let mut spans = Vec::new();
    let mut x = area.x;
    if brand {
        spans.push(Span::styled(" execscope ", th.title));
        x += 11;
    }
    for i in 0..app.panes.len() {
        let label = label(i, how);
        let w = label.chars().count() as u16;
        let st = if i == app.tab { th.tab_active } else { th.dim };
        app.hits
            .push(Rect::new(x, area.y, w, 1).intersection(area), Hit::Tab(i));
        spans.push(Span::styled(label, st));
        spans.push(Span::raw(" "));
        x += w + 1;
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_status(f: &mut Frame, area: Rect, app: &App, spin: char) {
    let th = &app.settings.theme;
    let v = app.view();
    let mut spans = vec![Span::styled(format!(" {} ", app.bundle_name), th.accent)];
    if let Some(d) = &app.data {
        let b = &d.engine.bundle();
        spans.push(Span::styled(
            format!("{}q×{}c │ ", b.queries.len(), b.corpus.len()),
            th.dim,
        ));
        spans.push(Span::raw("system "));
        // No selection while systems are still being scored (it would flip between them).
        let system = if app.loading_systems() {
            "…".to_string()
        } else {
            v.system_id(app.settings.system).to_string()
        };
        spans.push(Span::styled(system, th.accent));
        spans.push(Span::raw(format!(" │ k={} │ ties ", v.k())));
        spans.push(Span::styled(app.settings.policy().as_str(), th.accent));
        if let Some(p) = app.pending_policy() {
            spans.push(Span::styled(format!("→{p}"), th.warn));
        }
        spans.push(Span::raw(" │"));
    }
    if !app.busy().is_empty() {
        spans.push(Span::styled(
            format!(" {spin} {}", app.busy().join(", ")),
            th.warn,
        ));
        // Elapsed time past a second, with the audit's progress and ETA when known.
        let secs = app.busy_secs();
        if let Some(s) = secs {
            spans.push(Span::styled(format!(" {}", clock(s)), th.warn));
        }
        if let Some(p) = app.audit_progress(secs) {
            spans.push(Span::styled(format!(" ({p})"), th.warn));
        }
    }
    if let Some(s) = &app.status {
        spans.push(Span::styled(format!(" {s}"), th.good));
    }
    // A long message is shortened at a word boundary with `…`, never cut at the edge mid-word.
    let spans = fit_spans(spans, area.width as usize);
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_keys(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.settings.theme;
    let input = matches!(
        app.mode,
        Mode::Filter | Mode::Picker { .. } | Mode::Palette { .. }
    );
    let mut spans = vec![Span::raw(" ")];
    // Whole entries only: the ones that do not fit are left to the help (`?`), never cut.
    let mut used = 1;
    let entries = if matches!(app.mode, Mode::Help { .. }) {
        commands::help_bar()
    } else if input && app.panes[app.tab].captures_input() {
        commands::editor_bar()
    } else {
        let view = app.view();
        let several = view
            .data
            .and_then(|d| d.lb.as_ref())
            .is_some_and(|lb| lb.multilingual());
        commands::bar(app.pane(), input, several)
    };
    for (k, label) in entries {
        let w = k.chars().count() + label.chars().count() + 1;
        if used + w > area.width as usize {
            break;
        }
        used += w + 2;
        spans.push(Span::styled(k, th.accent));
        spans.push(Span::styled(format!(" {label}  "), th.dim));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_picker(f: &mut Frame, area: Rect, app: &App, compare: bool, text: &str, sel: usize) {
    let th = &app.settings.theme;
    let Some(d) = &app.data else { return };
    let items = app.picker_items(text);
    let h = (items.len() as u16 + 3).min(area.height);
    let r = centered(area, 48, h);
    f.render_widget(Clear, r);
    let mut lines = vec![Line::from(vec![
        Span::styled("› ", th.accent),
        Span::raw(text.to_string()),
        Span::styled("▏", th.accent),
    ])];
    let current = if compare {
        app.settings.compare
    } else {
        app.settings.system
    };
    for (i, &s) in items.iter().enumerate() {
        let sys = &d.engine.scores()[s];
        let mark = if s == current { "●" } else { " " };
        let origin = crate::systems::origin(d.engine.bundle(), &sys.id)
            .map_or(String::new(), |(m, _)| format!(", {m}"));
        let mut line = Line::from(format!("{mark} {} ({}{origin})", sys.id, sys.similarity));
        if i == sel {
            line = line.style(th.selected);
        }
        lines.push(line);
    }
    let title = if compare {
        " compare with "
    } else {
        " system "
    };
    f.render_widget(
        Paragraph::new(lines)
            .style(th.base)
            .block(Block::bordered().title(title).border_style(th.accent)),
        r,
    );
}

/// Presenter command palette (Ctrl-P): every command of the active pane by name, keys and help
/// (the registry's, [`commands::palette`]), fuzzy-filtered; the picker's overlay style.
fn draw_palette(f: &mut Frame, area: Rect, app: &App, text: &str, sel: usize) {
    let th = &app.settings.theme;
    let entries = app.palette_entries();
    let items = app.palette_items(text);
    let w = area.width.min(76);
    let h = (items.len() as u16 + 3).min(area.height);
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    let inner_w = w.saturating_sub(2) as usize;
    let mut lines = vec![Line::from(vec![
        Span::styled("› ", th.accent),
        Span::raw(text.to_string()),
        Span::styled("▏", th.accent),
    ])];
    let room = h.saturating_sub(3) as usize;
    let top = sel.saturating_sub(room.saturating_sub(1));
    let label_w = entries
        .iter()
        .map(|e| e.label.chars().count())
        .max()
        .unwrap_or(0)
        .min(24);
    let keys_w = entries
        .iter()
        .map(|e| e.keys.chars().count())
        .max()
        .unwrap_or(0)
        .min(8);
    for (i, &e) in items.iter().enumerate().skip(top).take(room) {
        let e = &entries[e];
        // The current theme, tie policy and cutoff are marked.
        let current = match e.action {
            super::actions::Action::SetTheme(k) => k == app.settings.theme.kind,
            super::actions::Action::SetTies(i) => {
                crate::metrics::TiePolicy::ALL.get(i) == Some(&app.settings.policy())
            }
            super::actions::Action::SetK(i) => i == app.settings.k_index,
            _ => false,
        };
        let mark = if current { "●" } else { " " };
        let head = format!(
            "{mark} {:<label_w$} {:<keys_w$} ",
            fit(&e.label, label_w),
            fit(&e.keys, keys_w)
        );
        let rest = inner_w.saturating_sub(head.chars().count());
        let mut line = Line::from(vec![
            Span::raw(head),
            Span::styled(fit(e.help, rest), th.dim),
        ]);
        if i == sel {
            line = line.style(th.selected);
        }
        lines.push(line);
    }
    let title = format!(" commands on {} ", app.panes[app.tab].title());
    f.render_widget(
        Paragraph::new(lines)
            .style(th.base)
            .block(Block::bordered().title(title).border_style(th.accent)),
        r,
    );
}
