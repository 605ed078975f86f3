//! Dashboard render cost on the real MBPP bundle (read-only, from the external data
//! `../shared/data/mbpp-bundle`, `$EXECSCOPE_SHARED_DATA/mbpp-bundle` or $EXECSCOPE_BENCH_BUNDLE): one full frame of each pane at 200×60 on a TestBackend, against
//! a baseline frame that only clears the screen, plus the first frame after start (the loading
//! screen, before the engine is ready). Skipped with a message when the bundle is absent.

#[path = "../tests/common/shared.rs"]
mod shared;

use execscope::cli::{open_engine, EvalArgs};
use execscope::tui::{frame, App, Theme, ThemeKind};
use ratatui::backend::TestBackend;
use ratatui::widgets::Block;
use ratatui::Terminal;
use std::cell::RefCell;
use std::path::PathBuf;

fn bundle() -> Option<PathBuf> {
    let p = std::env::var_os("EXECSCOPE_BENCH_BUNDLE")
        .map_or_else(|| shared::data_dir().join("mbpp-bundle"), PathBuf::from);
    p.join("data/queries.jsonl").is_file().then_some(p)
}

thread_local! {
    static APP: RefCell<Option<App>> = const { RefCell::new(None) };
}

fn with_app<R>(f: impl FnOnce(&mut App) -> R) -> Option<R> {
    APP.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let root = bundle()?;
            let engine = open_engine(Some(&root), &EvalArgs::default()).ok()?;
            let mut app = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
            app.run_jobs_inline();
            execscope::tui::widgets::code::warm_up();
            *slot = Some(app);
        }
        slot.as_mut().map(f)
    })
}

fn main() {
    if bundle().is_none() {
        shared::skip(
            "benches/tui",
            "needs the external data mbpp-bundle (set EXECSCOPE_SHARED_DATA or EXECSCOPE_BENCH_BUNDLE)",
        );
        return;
    }
    divan::main();
}

/// Baseline: a 200×60 frame that only paints an empty block.
#[divan::bench]
fn baseline_empty_frame(b: divan::Bencher) {
    let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
    b.bench_local(|| {
        t.draw(|f| f.render_widget(Block::bordered(), f.area()))
            .unwrap();
    });
}

/// One full frame of each pane (1 = leaderboard … 6 = pairs), the browser also in diff and
/// side-by-side modes.
#[divan::bench(args = ["1", "2", "2d", "2c", "3", "4", "5", "6"])]
fn pane_frame(b: divan::Bencher, pane: &str) {
    let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
    with_app(|app| {
        let reset = app.panes.len();
        let _ = reset;
        for c in pane.chars() {
            app.handle_key(crossterm::event::KeyEvent::new(
                crossterm::event::KeyCode::Char(c),
                crossterm::event::KeyModifiers::NONE,
            ));
        }
        // Move the ranking selection to rank 2 so the diff has a distractor to show.
        app.handle(execscope::tui::actions::Action::Right);
        app.handle(execscope::tui::actions::Action::Down);
        b.bench_local(|| {
            t.draw(|f| frame::draw(f, app)).unwrap();
        });
        // Undo toggles so the next argument starts clean.
        for c in pane.chars().skip(1) {
            app.handle_key(crossterm::event::KeyEvent::new(
                crossterm::event::KeyCode::Char(c),
                crossterm::event::KeyModifiers::NONE,
            ));
        }
        app.handle(execscope::tui::actions::Action::Left);
    });
}

/// Start-up to first frame: build the app (bundle load queued, not run) and draw the loading
/// screen. The engine then loads on a worker thread.
#[divan::bench(sample_count = 20)]
fn first_frame(b: divan::Bencher) {
    let root = bundle().unwrap();
    b.bench_local(|| {
        let opts = EvalArgs::default().engine_options().unwrap();
        let app = App::new(root.clone(), opts, Theme::new(ThemeKind::Dark, false));
        let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
        t.draw(|f| frame::draw(f, &app)).unwrap();
        app
    });
}

/// Loading the engine and every background result (what the spinner waits for).
#[divan::bench(sample_count = 2, sample_size = 1)]
fn load_all_results() {
    let root = bundle().unwrap();
    let opts = EvalArgs::default().engine_options().unwrap();
    let mut app = App::new(root, opts, Theme::new(ThemeKind::Dark, false));
    app.run_jobs_inline();
    divan::black_box(&app);
}
