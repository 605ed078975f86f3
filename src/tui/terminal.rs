//! The terminal's set-up and restoration: raw mode, the alternate screen, mouse capture and
//! bracketed paste, on entry, on exit, on panic, and around a program that borrows the terminal
//! (an external editor). Imports nothing of the dashboard: the main loop (`run.rs`) is its only
//! user.

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::{self, Stdout};

/// Put the terminal back the way we found it. Safe to call twice.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        LeaveAlternateScreen,
        DisableMouseCapture,
        DisableBracketedPaste,
        crossterm::cursor::Show
    );
}

/// Restore the terminal before the default panic message prints, so a panic stays readable.
pub fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        prev(info);
    }));
}

/// Raw mode, the alternate screen, mouse capture and bracketed paste (a pasted block arrives
/// whole: the inline editor inserts it as it is).
fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )
}

/// The dashboard's terminal.
pub fn setup() -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    enter()?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

/// Hand the terminal to another program (the screen as the shell had it, cooked mode), run
/// `f`, then take it back; the caller redraws the whole screen afterwards.
pub fn suspended<T>(f: impl FnOnce() -> T) -> T {
    restore();
    let out = f();
    let _ = enter();
    out
}

/// Run `$VISUAL`, else `$EDITOR` (default `vi`), on `file` and wait for it; `Err` says why the
/// edit did not happen. The caller hands it the terminal ([`suspended`]) when it has one.
pub fn run_editor(file: &std::path::Path) -> Result<(), String> {
    let editor = ["VISUAL", "EDITOR"]
        .into_iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    // Through the shell, so an EDITOR with arguments ("code --wait") works; the file is $1.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file)
        .status();
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{editor} exited with {s}")),
        Err(e) => Err(format!("{editor}: {e}")),
    }
}
