//! The terminal side: set the terminal up (raw mode, alternate screen, mouse), run the event loop,
//! and restore the terminal on exit, on error and on panic.
//!
//! The loop drains every pending input event before drawing, so a burst of keys (or a held arrow
//! key) costs one frame, not one per key. Jobs run on their own threads and report through a
//! channel; the loop wakes every 80 ms while work is in flight to animate the spinner.

use super::app::{App, Reply, Request};
use super::export;
use super::frame;
use super::jobs::JobResult;
use super::terminal::{self, install_panic_hook, restore, setup};
use crate::tui::actions::Action;
use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::backend::Backend;
use ratatui::Terminal;
use std::sync::mpsc;
use std::time::Duration;

/// Run the dashboard until the user quits. The terminal is restored whatever happens.
pub fn run(app: App) -> anyhow::Result<()> {
    install_panic_hook();
    // Syntax definitions load in the background; the first snippet shown will not wait for them.
    std::thread::spawn(super::widgets::code::warm_up);
    let mut terminal = match setup() {
        Ok(t) => t,
        Err(e) => {
            restore();
            return Err(anyhow::anyhow!("cannot set up the terminal: {e}"));
        }
    };
    let result = event_loop(&mut terminal, app);
    restore();
    let _ = terminal.show_cursor();
    result
}

/// Translate a mouse or resize event into an action (keys go through `App::handle_key`, i.e. the
/// command registry).
pub fn to_action(app: &App, ev: Event) -> Option<Action> {
    match ev {
        Event::Mouse(m) => match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                app.hits.at(m.column, m.row).map(Action::Click)
            }
            MouseEventKind::ScrollUp => Some(Action::ScrollUp),
            MouseEventKind::ScrollDown => Some(Action::ScrollDown),
            _ => None,
        },
        Event::Resize(w, h) => Some(Action::Resize(w, h)),
        Event::Paste(s) => Some(Action::Paste(s)),
        _ => None,
    }
}

/// Carry out what the app asked of the main loop (an export, an external editor) and hand it
/// the answers; `true` when another program used the screen, which must then be redrawn whole.
/// `tty`: the dashboard owns a terminal, handed over around an external editor (headless runs,
/// tests, run the editor as it is).
pub fn serve(app: &mut App, tty: bool) -> bool {
    let mut borrowed = false;
    for r in app.take_requests() {
        match r {
            Request::Export => {
                let reply = export::export_active(app);
                app.on_reply(reply);
            }
            Request::Editor { file } => {
                let result = if tty {
                    borrowed = true;
                    terminal::suspended(|| terminal::run_editor(&file))
                } else {
                    terminal::run_editor(&file)
                };
                app.on_reply(Reply::EditorClosed(result));
            }
        }
    }
    borrowed
}

fn event_loop<B: Backend>(terminal: &mut Terminal<B>, mut app: App) -> anyhow::Result<()>
where
    B::Error: Send + Sync + 'static,
{
    let (tx, rx) = mpsc::channel::<JobResult>();
    let mut dirty = true;
    loop {
        for job in app.take_jobs() {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let r = job.run_reporting(&|partial| {
                    let _ = tx.send(partial);
                });
                let _ = tx.send(r);
            });
        }
        while let Ok(r) = rx.try_recv() {
            app.on_result(r);
            dirty = true;
        }
        if let Some(e) = app.error.take() {
            anyhow::bail!("{e}");
        }
        if app.quit {
            return Ok(());
        }
        if serve(&mut app, true) {
            terminal.clear()?;
            dirty = true;
        }
        if dirty {
            terminal.draw(|f| frame::draw(f, &app))?;
            dirty = false;
        }
        let timeout = if app.busy().is_empty() {
            Duration::from_millis(250)
        } else {
            Duration::from_millis(80)
        };
        if event::poll(timeout)? {
            // Drain the whole burst, then draw once.
            loop {
                match event::read()? {
                    Event::Key(k) if k.kind != KeyEventKind::Release => app.handle_key(k),
                    other => {
                        if let Some(a) = to_action(&app, other) {
                            app.handle(a);
                        }
                    }
                }
                if app.quit || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
            dirty = true;
        } else if !app.busy().is_empty() || app.panes.iter().any(|p| p.busy()) {
            app.handle(Action::Tick);
            dirty = true;
        }
    }
}
