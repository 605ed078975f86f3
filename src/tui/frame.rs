//! The frame around the panes: tab bar, status bar, key bar, and the overlays (help, system
//! picker, live-query prompt). The key bar and help read the command registry.

use super::actions::Hit;
use super::app::{App, Mode};
use super::commands;
use super::help;
use super::widgets::chrome::{bold, centered, message};
use super::widgets::text::{clock, fit, fit_spans};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// Draw the whole dashboard.
pub fn draw(f: &mut Frame, app: &App) {
    app.hits.clear();
    if app.mode == Mode::Big {
        return draw_big(f, app);
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
        commands::bar(app.pane(), input)
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

/// A presenter view's screen: cleared in the theme's base style, a body (where clicks land) and
/// a one-line bar below it.
fn presenter_screen(f: &mut Frame, app: &App) -> [Rect; 2] {
    let area = f.area();
    f.render_widget(Block::default().style(app.settings.theme.base), area);
    let [body, bar] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    app.hits.set_body(body);
    [body, bar]
}

/// Presenter zoom (`z`): the active pane on the whole screen, no tab bar; one bottom line says
/// how to leave and which pane this is (the live query's prompt takes it while typing).
fn draw_zoom(f: &mut Frame, app: &App) {
    let th = &app.settings.theme;
    let v = app.view();
    let [body, bar] = presenter_screen(f, app);
    draw_body(f, body, app);
    if app.mode == Mode::Prompt {
        draw_prompt(f, bar, app);
    } else {
        let mut spans = Vec::new();
        for (k, label) in commands::zoom_bar() {
            spans.push(Span::styled(format!(" {k}"), th.accent));
            spans.push(Span::styled(format!(" {label} "), th.dim));
        }
        spans.push(Span::raw("│ "));
        spans.push(Span::styled(
            format!("{} {}", app.tab + 1, app.panes[app.tab].title()),
            th.title,
        ));
        if !app.busy().is_empty() {
            spans.push(Span::styled(
                format!(" │ {} {}", v.spinner, app.busy().join(", ")),
                th.warn,
            ));
        }
        if let Some(s) = &app.status {
            spans.push(Span::styled(format!(" │ {s}"), th.good));
        }
        let spans = fit_spans(spans, bar.width as usize);
        f.render_widget(Paragraph::new(Line::from(spans)), bar);
    }
    draw_overlays(f, body, app);
}

/// Presenter big numbers (`B`): the leader's and the runner-up's headline cells of the
/// leaderboard table ([`crate::tui::presenter::headline`]) in block digits, centred, their names
/// under them; in normal type when the screen is too small for the digits.
fn draw_big(f: &mut Frame, app: &App) {
    use super::presenter::{big_rows, big_width, headline, GLYPH_ROWS};
    let th = &app.settings.theme;
    let v = app.view();
    let [body, bar] = presenter_screen(f, app);
    let mut spans = vec![Span::raw(" ")];
    for (k, label) in commands::big_bar() {
        spans.push(Span::styled(k, th.accent));
        spans.push(Span::styled(format!(" {label}  "), th.dim));
    }
    f.render_widget(
        Paragraph::new(Line::from(fit_spans(spans, bar.width as usize))),
        bar,
    );
    let Some(h) = headline(&v) else {
        let what = if app.data.is_none() {
            format!("loading bundle {}", app.bundle_name)
        } else {
            "computing the leaderboard".to_string()
        };
        message(f, body, &format!("{} {what} …", v.spinner), th.accent);
        return;
    };
    let center = ratatui::layout::Alignment::Center;
    let big = th.accent.add_modifier(Modifier::BOLD);
    let header = Line::styled(
        fit(
            &format!("ties: {} · {} queries", h.policy, h.n_queries),
            body.width as usize,
        ),
        th.title,
    );
    let n = h.systems.len().max(1) as u16;
    let col_w = body.width / n;
    let widest = h
        .systems
        .iter()
        .flat_map(|s| std::iter::once(&s.exec1).chain(s.exec10.as_ref()))
        .map(|t| big_width(t))
        .max()
        .unwrap_or(0) as u16;
    let all_drawable = h.systems.iter().all(|s| {
        big_rows(&s.exec1).is_some() && s.exec10.as_ref().is_none_or(|t| big_rows(t).is_some())
    });
    let has10 = h.systems.iter().any(|s| s.exec10.is_some());
    let rows = GLYPH_ROWS as u16;
    // Header + blank, then per column: label, digits, blank, name, rank/CI, [blank, label, digits].
    let half_h = 2 + 1 + rows + 1 + 1 + 1 + u16::from(has10);
    let full_h = 2 + 1 + rows + 1 + 1 + 1 + 1 + 1 + rows;
    let fits_w = all_drawable && widest + 2 <= col_w;
    let level = if fits_w && has10 && body.height >= full_h {
        2
    } else if fits_w && body.height >= half_h {
        1
    } else {
        0
    };
    let detail = |s: &super::presenter::HeadlineSystem| {
        let mut t = format!("rank {}", s.rank);
        if let Some(ci) = &s.ci {
            t.push_str(&format!(" · 95% CI {ci}"));
        }
        t
    };
    if level == 0 {
        // Normal type: one block per system, stacked.
        let mut lines = vec![header, Line::raw("")];
        for s in &h.systems {
            lines.push(Line::styled(s.id.clone(), bold()));
            let mut nums = format!("exec@1 {}", s.exec1);
            if let Some(e) = &s.exec10 {
                nums.push_str(&format!("  exec@10 {e}"));
            }
            lines.push(Line::styled(nums, big));
            lines.push(Line::styled(detail(s), th.dim));
            lines.push(Line::raw(""));
        }
        let used = (lines.len() as u16).min(body.height);
        let r = centered(body, body.width, used);
        f.render_widget(
            Paragraph::new(lines)
                .alignment(center)
                .wrap(Wrap { trim: true }),
            r,
        );
        return;
    }
    let height = if level == 2 { full_h } else { half_h };
    let r = centered(body, body.width, height);
    f.render_widget(
        Paragraph::new(header).alignment(center),
        Rect::new(r.x, r.y, r.width, 1),
    );
    for (i, s) in h.systems.iter().enumerate() {
        let col = Rect::new(r.x + i as u16 * col_w, r.y + 2, col_w, r.height - 2);
        let mut lines = vec![Line::styled("exec@1", th.dim)];
        let digits = |t: &str| {
            big_rows(t)
                .into_iter()
                .flatten()
                .map(|row| Line::styled(row, big))
                .collect::<Vec<_>>()
        };
        lines.extend(digits(&s.exec1));
        lines.push(Line::raw(""));
        lines.push(Line::styled(fit(&s.id, col_w as usize), bold()));
        lines.push(Line::styled(fit(&detail(s), col_w as usize), th.dim));
        match (&s.exec10, level) {
            (Some(e), 2) => {
                lines.push(Line::raw(""));
                lines.push(Line::styled("exec@10", th.dim));
                lines.extend(digits(e));
            }
            (Some(e), _) => lines.push(Line::styled(format!("exec@10 {e}"), th.dim)),
            (None, _) => {}
        }
        f.render_widget(Paragraph::new(lines).alignment(center), col);
    }
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
        let current =
            matches!(e.action, super::actions::Action::SetTheme(k) if k == app.settings.theme.kind);
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
