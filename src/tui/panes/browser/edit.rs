//! The browser's edits: `e` opens the inline editor on the query text (query list focused) or
//! on the selected snippet's code (ranking focused); `E` hands the snippet to `$EDITOR` instead.
//! Each changed text becomes an [`Edit`] of the session.

use super::*;
use crate::tui::widgets::editor::Editor;

/// A snippet handed to the external editor: the file the main loop opens it in.
pub struct External {
    pub query: usize,
    pub snippet: usize,
    pub file: std::path::PathBuf,
}

/// The inline editor open on one text of one query.
pub struct Editing {
    pub query: usize,
    pub target: Target,
    pub editor: Editor,
}

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

    /// `E` on the ranking: the selected snippet's current code written to a scratch file of the
    /// session, and the main loop asked to hand the terminal to `$EDITOR` on it
    /// ([`Effect::RunEditor`]); [`BrowserPane::editor_closed`] reads the text back.
    pub(super) fn edit_external(&mut self, cx: &mut Cx, d: &Data) {
        let q = cx.shared.query;
        let Some(c) = self.selected_snippet(d, cx.settings, cx.shared) else {
            return;
        };
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
        match crate::atomic::write_atomic(&file, current.as_bytes()) {
            Ok(()) => {
                self.external = Some(External {
                    query: q,
                    snippet: c,
                    file: file.clone(),
                });
                cx.effects.push(Effect::RunEditor { file });
            }
            Err(e) => cx.effects.push(Effect::Status(format!("editor: {e}"))),
        }
    }

    /// The external editor the main loop ran for [`BrowserPane::edit_external`] closed: a
    /// changed text becomes an edit of the query it was opened on.
    pub(super) fn external_closed(&mut self, result: Result<(), String>, cx: &mut Cx) {
        let Some(ext) = self.external.take() else {
            return;
        };
        let Some(d) = cx.data else { return };
        let text =
            result.and_then(|()| std::fs::read_to_string(&ext.file).map_err(|e| e.to_string()));
        match text {
            Ok(_) if ext.query != cx.shared.query => {}
            Ok(text) => self.commit(cx, d, Target::Snippet(ext.snippet), text),
            Err(e) => cx.effects.push(Effect::Status(format!("editor: {e}"))),
        }
    }

    /// The corpus row of the selected ranking row.
    pub(super) fn selected_snippet(
        &self,
        d: &Data,
        settings: &Settings,
        shared: &Shared,
    ) -> Option<usize> {
        let rows = self.rows(d, settings, shared);
        rows.get(self.rank_sel.min(rows.len().saturating_sub(1)))
            .map(|r| r.corpus)
    }

    /// The text `target` of the current query has now (the latest edit's, or the bundle's).
    fn current_text(&self, d: &Data, q: usize, target: &Target) -> String {
        let b = d.engine.bundle();
        self.session
            .current(q, target)
            .unwrap_or(match target {
                Target::Query => &b.queries[q].text,
                Target::Snippet(c) => &b.corpus[*c].code,
            })
            .to_string()
    }

    /// `e`: open the inline editor on the query text (query list focused) or on the selected
    /// snippet's code (ranking focused).
    pub(super) fn start_edit(&mut self, cx: &mut Cx, d: &Data) {
        let q = cx.shared.query;
        let target = if self.focus == Focus::Ranking {
            match self.selected_snippet(d, cx.settings, cx.shared) {
                Some(c) => Target::Snippet(c),
                None => return,
            }
        } else {
            Target::Query
        };
        let text = self.current_text(d, q, &target);
        self.editing = Some(Editing {
            query: q,
            target,
            editor: Editor::new(&text),
        });
        cx.effects.push(Effect::StartFilter);
    }

    /// A finished edit: a changed text becomes an edit of the session (mirrored to its scratch
    /// file); the probe then shows what it changes.
    fn commit(&mut self, cx: &mut Cx, d: &Data, target: Target, text: String) {
        let q = cx.shared.query;
        if text == self.current_text(d, q, &target) {
            cx.effects.push(Effect::Status("no change".into()));
            return;
        }
        let name = match &target {
            Target::Query => format!("{} query", d.engine.bundle().queries[q].id),
            Target::Snippet(c) => d.engine.bundle().corpus[*c].id.clone(),
        };
        let e = Edit {
            query: q,
            target,
            text,
        };
        let res = self.session.push(e, &Self::edit_ids(d));
        cx.effects.push(Effect::Status(match res {
            Ok(()) => format!("edited {name} (u undoes)"),
            Err(e) => format!("edit kept, scratch file not written: {e}"),
        }));
    }

    /// Input while the inline editor is open; `false` when it is not. Enter inserts a newline in
    /// code and applies a query text; Ctrl-S applies either; Esc cancels.
    pub(super) fn edit_input(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(ed) = self.editing.as_mut() else {
            return false;
        };
        let code = matches!(ed.target, Target::Snippet(_));
        let e = &mut ed.editor;
        let apply = match action {
            Action::Input(c) => {
                e.insert(*c);
                false
            }
            Action::Paste(s) => {
                e.paste(s);
                false
            }
            Action::Backspace => {
                e.backspace();
                false
            }
            Action::Delete => {
                e.delete();
                false
            }
            Action::Left => {
                e.left();
                false
            }
            Action::Right => {
                e.right();
                false
            }
            Action::Up | Action::ScrollUp => {
                e.vertical(true, 1);
                false
            }
            Action::Down | Action::ScrollDown => {
                e.vertical(false, 1);
                false
            }
            Action::PageUp => {
                let n = e.page();
                e.vertical(true, n);
                false
            }
            Action::PageDown => {
                let n = e.page();
                e.vertical(false, n);
                false
            }
            Action::Top => {
                e.home();
                false
            }
            Action::Bottom => {
                e.end();
                false
            }
            Action::Enter if code => {
                e.newline();
                false
            }
            Action::Enter | Action::Apply => true,
            Action::Back => {
                self.editing = None;
                cx.effects
                    .push(Effect::Status("edit cancelled".to_string()));
                return true;
            }
            _ => false,
        };
        if apply {
            let Some(ed) = self.editing.take() else {
                return true;
            };
            let Some(d) = cx.data else {
                return true;
            };
            // The edit belongs to the query it was opened on.
            if ed.query == cx.shared.query {
                let text = ed.editor.text();
                self.commit(cx, d, ed.target, text);
            }
        }
        true
    }

    /// The inline editor, in the code panel's place.
    pub(super) fn draw_editor(&self, f: &mut Frame, area: Rect, v: &View, d: &Data, ed: &Editing) {
        let th = v.theme;
        let b = d.engine.bundle();
        let what = match ed.target {
            Target::Query => format!("{} query text", b.queries[ed.query].id),
            Target::Snippet(c) => b.corpus[c].id.clone(),
        };
        // The longest key hint that fits the border whole (the key bar lists them too).
        let hints: &[&str] = match ed.target {
            Target::Query => &[
                "Enter/Ctrl-S apply · Esc cancel",
                "Enter apply · Esc cancel",
            ],
            Target::Snippet(_) => &[
                "Ctrl-S apply · Esc cancel · Enter newline · Tab indent",
                "Ctrl-S apply · Esc cancel",
                "C-s apply",
            ],
        };
        let room = (area.width as usize).saturating_sub(what.chars().count() + 10);
        let keys = hints
            .iter()
            .find(|h| h.chars().count() <= room)
            .copied()
            .unwrap_or("");
        let (row, col) = ed.editor.cursor();
        let title = Line::from(vec![
            Span::styled(format!(" edit {what} "), th.warn),
            Span::styled(format!("{keys} "), th.accent),
        ]);
        let blk = block(title, true, th).title_bottom(Line::styled(
            format!(" line {} col {} ", row + 1, col + 1),
            th.dim,
        ));
        ed.editor.render(f, area, blk, th);
    }
}
