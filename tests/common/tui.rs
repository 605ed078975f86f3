//! Driving the dashboard headless on the tiny fixture (shared by the TUI tests).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use execscope::cli::{open_engine, EvalArgs};
use execscope::engine::Engine;
use execscope::metrics::TiePolicy;
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
