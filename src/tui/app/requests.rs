//! What the app asks of the main loop, and the answers: work that needs what the app does not
//! own. An export draws the pane with the renderer (`export.rs`, which reads the app); an external
//! editor borrows the terminal (`terminal.rs`). The app only queues a [`Request`]; the main loop
//! (`run::serve`) carries it out and hands back a [`Reply`], so the app never calls a renderer or
//! touches the terminal (gitui's queue of internal events, one level up).

use super::App;
use std::path::PathBuf;

/// Work for the main loop.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Write the active pane as SVG and markdown into the export directory (`x`).
    Export,
    /// Run the external editor on `file`, the terminal handed over; the answer goes back to
    /// the active pane.
    Editor { file: PathBuf },
}

/// The files one export wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    pub svg: PathBuf,
    pub markdown: PathBuf,
}

/// The answer to a [`Request`].
#[derive(Debug)]
pub enum Reply {
    /// The export wrote these files (`None`: nothing to export before the bundle is loaded) in
    /// `secs` seconds, or failed.
    Exported {
        result: std::io::Result<Option<Exported>>,
        secs: f64,
    },
    /// The external editor closed: `Ok` when it exited cleanly, else why not.
    EditorClosed(Result<(), String>),
}

impl App {
    /// Requests to carry out now (the main loop answers each with [`App::on_reply`]).
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// The main loop carried out a request.
    pub fn on_reply(&mut self, reply: Reply) {
        match reply {
            Reply::Exported { result, secs } => {
                let mut msg = match result {
                    Ok(Some(e)) => {
                        let name = |p: &std::path::Path| {
                            p.file_name()
                                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                        };
                        // Both files and the directory they are in, whole.
                        let dir = e.svg.parent().unwrap_or(std::path::Path::new("."));
                        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
                        let md = name(&e.markdown);
                        let ext = md.rsplit('.').next().unwrap_or("md");
                        format!("wrote {} and .{ext} in {}", name(&e.svg), dir.display())
                    }
                    Ok(None) => "nothing to export until the bundle is loaded".to_string(),
                    Err(e) => format!("export failed: {e}"),
                };
                // Past a second the message says how long the export took.
                if secs >= 1.0 {
                    msg.push_str(&format!(" ({secs:.1} s)"));
                }
                self.status = Some(msg);
            }
            Reply::EditorClosed(result) => {
                let mut effects = Vec::new();
                let mut cx = crate::tui::panes::Cx {
                    data: self.data.as_ref(),
                    settings: &mut self.settings,
                    shared: &mut self.shared,
                    effects: &mut effects,
                };
                self.panes[self.tab].editor_closed(result, &mut cx);
                self.apply_effects(effects);
                self.sync_active();
            }
        }
    }
}
