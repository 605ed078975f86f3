//! Driving the dashboard headless on the tiny fixture (shared by the TUI tests).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use execscope::cli::{open_engine, EvalArgs};
use execscope::engine::Engine;
use execscope::metrics::TiePolicy;
use execscope::tui::panes::PaneId;
use execscope::tui::{frame, App, Theme, ThemeKind};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::path::Path;

pub fn tiny() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny"))
}

pub fn engine(policy: TiePolicy) -> Engine {
    let args = EvalArgs {
        ties: policy,
        ..EvalArgs::default()
    };
    open_engine(Some(tiny()), &args).expect("tiny fixture loads")
}

/// The dashboard on the tiny fixture with every background job already run.
pub fn app_with(policy: TiePolicy) -> App {
    let mut app = App::with_engine(engine(policy), Theme::new(ThemeKind::Dark, false));
    app.run_jobs_inline();
    app
}

/// One key, then what the main loop would do next: the jobs it queued, run here, and what it
/// asked of the loop (an export, an external editor), carried out headless.
pub fn key(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    app.run_jobs_inline();
    execscope::tui::run::serve(app, false);
    app.run_jobs_inline();
}

pub fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The screen as text, one line per row, trailing spaces trimmed.
pub fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| frame::draw(f, app)).expect("draw");
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Draws until the browser's probe is answered (bounded at 300 s: the oracle, and the models when
/// present, run for real), then returns the screen.
pub fn settle(app: &App, w: u16, h: u16) -> String {
    let t0 = std::time::Instant::now();
    loop {
        let _ = screen(app, w, h);
        if !app.panes[1].busy() || t0.elapsed() > std::time::Duration::from_secs(300) {
            return screen(app, w, h);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The dashboard on the tiny fixture under expected ties.
pub fn app() -> App {
    app_with(TiePolicy::Expected)
}

/// The dashboard on the embedded bundle (the paper-shaped data), every job run.
pub fn embedded_app() -> App {
    embedded_app_with(TiePolicy::Expected)
}

/// [`embedded_app`] under another tie policy (the retrieval audit needs one pool order: `row`,
/// the release's, where every pair of the top 10 is in the execution cache).
pub fn embedded_app_with(ties: TiePolicy) -> App {
    let args = EvalArgs {
        ties,
        ..EvalArgs::default()
    };
    let engine = open_engine(None, &args).expect("embedded bundle");
    let mut a = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    a.run_jobs_inline();
    a
}

pub fn line_with<'a>(s: &'a str, needle: &str) -> Option<&'a str> {
    s.lines().find(|l| l.contains(needle))
}

/// Every word the dashboard may show whole: system, query, function, domain, bug-type and
/// label names of the bundle.
pub fn vocabulary(a: &App) -> Vec<String> {
    let d = a.data.as_ref().expect("loaded");
    let b = d.engine.bundle();
    let mut v: Vec<String> = d.engine.scores().iter().map(|s| s.id.clone()).collect();
    for q in &b.queries {
        v.extend([q.id.clone(), q.function_name.clone(), q.domain.clone()]);
    }
    for c in &b.corpus {
        v.push(c.id.clone());
        v.extend(c.bug_type.clone());
        v.push(c.label.as_str().to_string());
    }
    v.sort();
    v.dedup();
    v
}

/// No word cut mid-way: no name-like screen token is a proper prefix (3+ characters) of a
/// bundle name it is not itself, unless it says so with `…`; and no text runs off the right edge
/// of the screen (bars and lines without a border).
pub fn assert_no_clipped_words(s: &str, w: u16, vocab: &[String], what: &str) {
    let n = s.lines().count();
    for (li, line) in s.lines().enumerate() {
        let is_bar = li + 2 >= n;
        for tok in line.split(|c: char| c.is_whitespace() || "│┌┐└┘─├┤()[],:;·".contains(c))
        {
            // Plain words ("sort", "interval") are English, not cut names: only name-like
            // tokens (with `_`, `-` or a digit) are checked.
            let namelike = tok.contains(|c: char| c == '_' || c == '-' || c.is_ascii_digit());
            if tok.chars().count() < 3
                || !namelike
                || tok.ends_with('…')
                || vocab.iter().any(|v| v == tok)
            {
                continue;
            }
            if let Some(full) = vocab.iter().find(|v| v.starts_with(tok)) {
                panic!("{what}: {tok:?} is {full:?} cut off\n{s}");
            }
        }
        let chars: Vec<char> = line.chars().collect();
        // The status and key bars (the last two lines) never wrap: a letter in the last column
        // is a cut word.
        if is_bar && chars.len() == w as usize && chars.last().is_some_and(|c| c.is_alphanumeric())
        {
            panic!("{what}: text runs off the right edge: {line:?}\n{s}");
        }
    }
}

/// The last text row of the full-width box whose top border carries `title`.
pub fn last_row_of_box<'a>(s: &'a str, title: &str) -> Option<&'a str> {
    let lines: Vec<&str> = s.lines().collect();
    let top = lines.iter().position(|l| l.contains(title))?;
    let bottom = (top + 1..lines.len()).find(|&i| lines[i].starts_with('└'))?;
    Some(lines[bottom - 1])
}

/// Switch to each pane in tab order (by its number key) and call `f` with its id.
pub fn each_pane(a: &mut App, mut f: impl FnMut(&mut App, usize, PaneId)) {
    for (i, id) in PaneId::ALL.into_iter().enumerate() {
        keys(a, &(i + 1).to_string());
        assert_eq!(a.pane_id(), id.as_str());
        f(a, i, id);
    }
}
