//! The browser's edits: `e` on the query list edits the query text inline, `e` on the ranking
//! the selected snippet (in `$EDITOR`); each changed text becomes an [`Edit`] of the session.

use super::*;

impl BrowserPane {
    /// The scratch-file names of an edit: (query id, "query" or the corpus id).
    pub(super) fn edit_ids(d: &Data) -> impl Fn(&Edit) -> (String, String) + '_ {
        move |e: &Edit| {
            let b = &d.engine.bundle();
            (
                b.queries[e.query].id.clone(),
                match e.target {
                    Target::Query => "query".to_string(),
                    Target::Snippet(c) => b.corpus[c].id.clone(),
                },
            )
        }
    }

    /// `e` on the ranking: the selected snippet's current code in `$EDITOR` (a scratch file of the
    /// session); a changed text becomes an edit.
    pub(super) fn edit_snippet(&mut self, cx: &mut Cx, d: &Data) {
        let q = cx.shared.query;
        let rows = self.rows(d, cx.shared);
        let Some(r) = rows.get(self.rank_sel.min(rows.len().saturating_sub(1))) else {
            return;
        };
        let c = r.corpus;
        let b = &d.engine.bundle();
        let current = self
            .session
            .current(q, &Target::Snippet(c))
            .unwrap_or(&b.corpus[c].code)
            .to_string();
        let file = self
            .session
            .dir()
            .join(format!("{}-{}.py", b.queries[q].id, b.corpus[c].id));
        let edited = crate::atomic::write_atomic(&file, current.as_bytes())
            .map_err(|e| e.to_string())
            .and_then(|()| run_editor(&file))
            .and_then(|()| std::fs::read_to_string(&file).map_err(|e| e.to_string()));
        self.full_redraw.set(true);
        match edited {
            Ok(text) if text != current => {
                let e = Edit {
                    query: q,
                    target: Target::Snippet(c),
                    text,
                };
                let res = self.session.push(e, &Self::edit_ids(d));
                cx.effects.push(Effect::Status(match res {
                    Ok(()) => format!("edited {} (u undoes)", b.corpus[c].id),
                    Err(e) => format!("edit kept, scratch file not written: {e}"),
                }));
            }
            Ok(_) => cx.effects.push(Effect::Status("no change".into())),
            Err(e) => cx.effects.push(Effect::Status(format!("editor: {e}"))),
        }
    }

    /// Input while the query text is edited inline; `false` when no edit is open.
    pub(super) fn edit_input(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(buf) = self.editing.as_mut() else {
            return false;
        };
        match action {
            Action::Input(c) => buf.push(*c),
            Action::Backspace => {
                buf.pop();
            }
            Action::Back => self.editing = None,
            Action::Enter => {
                let text = self.editing.take().unwrap_or_default();
                let Some(d) = cx.data else {
                    return true;
                };
                let q = cx.shared.query;
                let now = self
                    .session
                    .current(q, &Target::Query)
                    .unwrap_or(&d.engine.bundle().queries[q].text);
                if text != now {
                    let e = Edit {
                        query: q,
                        target: Target::Query,
                        text,
                    };
                    if let Err(e) = self.session.push(e, &Self::edit_ids(d)) {
                        cx.effects
                            .push(Effect::Status(format!("scratch file not written: {e}")));
                    }
                }
            }
            _ => {}
        }
        true
    }
}

/// Run `$EDITOR` (default `vi`) on `file`, with the terminal handed over while it runs.
pub(super) fn run_editor(file: &std::path::Path) -> Result<(), String> {
    use std::io::IsTerminal;
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|e| !e.trim().is_empty())
        })
        .unwrap_or_else(|| "vi".to_string());
    let tty = std::io::stdout().is_terminal();
    if tty {
        crate::tui::run::restore();
    }
    // Through the shell, so an EDITOR with arguments ("code --wait") works; the file is $1.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file)
        .status();
    if tty {
        let _ = crossterm::terminal::enable_raw_mode();
        let _ = crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::event::EnableMouseCapture
        );
    }
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{editor} exited with {s}")),
        Err(e) => Err(format!("{editor}: {e}")),
    }
}
