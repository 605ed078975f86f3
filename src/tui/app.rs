//! Dashboard state and its only mutator, [`App::handle`]. Headless: tests build an app, feed it
//! actions (or key events through the registry) and render it on a `TestBackend`.

use super::actions::{Action, Hit};
use super::commands;
use super::fuzzy;
use super::jobs::{Job, JobResult};
use super::panes::{self, Cx, Effect, Pane, PaneId};
use super::theme::Theme;
use super::view::{AuditSlot, Data, Hits, Settings, Shared, View};
use crate::engine::{Engine, EngineOptions};
use crate::metrics::{EvalConfig, TiePolicy};
use crossterm::event::KeyEvent;

mod audit;
mod requests;
mod start;
pub use requests::{Exported, Reply, Request};
use std::path::PathBuf;
use std::sync::Arc;

/// Who has the keyboard.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    Normal,
    /// The help overlay, scrolled `scroll` lines down (when the screen is too short for it).
    Help {
        scroll: usize,
    },
    /// The active pane's filter.
    Filter,
    /// Fuzzy system picker (`compare`: picks the browser's compared system).
    Picker {
        compare: bool,
        text: String,
        sel: usize,
    },
    /// Live BM25 query prompt.
    Prompt,
    /// Presenter: the headline numbers in large type (`B`).
    Big,
    /// Presenter: the command palette (Ctrl-P), filtered by `text`, entry `sel` highlighted.
    Palette {
        text: String,
        sel: usize,
    },
}

/// How many live-query results are kept.
pub const LIVE_DEPTH: usize = 200;

pub struct App {
    pub panes: Vec<Box<dyn Pane>>,
    pub tab: usize,
    pub mode: Mode,
    pub data: Option<Data>,
    /// The session's settings (tie policy, ε and cutoffs as the data's engine has them; system,
    /// compared system, cutoff; theme): what every pane reads.
    pub settings: Settings,
    pub shared: Shared,
    /// Bundle directory name (never the absolute path: screens are shared and snapshotted).
    pub bundle_name: String,
    /// Why the bundle did not load.
    pub error: Option<super::jobs::LoadFailure>,
    pub status: Option<String>,
    pub hits: Hits,
    pub quit: bool,
    /// Presenter: the active pane fills the screen (`z`).
    pub zoom: bool,
    jobs: Vec<Job>,
    /// Work asked of the main loop (exports, the external editor).
    requests: Vec<Request>,
    /// Jobs running, with when each started (the status bar shows elapsed time past a second).
    in_flight: Vec<(&'static str, std::time::Instant)>,
    pending_policy: Option<TiePolicy>,
    spinner: usize,
    /// Token of the last audit asked for (results carrying another one are stale).
    audit_token: u64,
    /// Systems scored so far while the bundle loads.
    pub(crate) load_progress: Option<Arc<super::jobs::JobProgress>>,
    /// The data holds a partial engine (systems scored so far) while the bundle loads.
    partial: bool,
    /// The newest partial engine, waiting for the leaderboard of the previous one.
    next_partial: Option<Arc<Engine>>,
    /// The system selected automatically (the leader), while the user has not chosen another.
    auto_system: Option<usize>,
}

impl App {
    fn blank(theme: Theme, bundle_name: String, eval: &EvalConfig) -> App {
        App {
            panes: panes::all(),
            tab: 0,
            mode: Mode::Normal,
            data: None,
            settings: Settings::new(eval.clone(), theme),
            shared: Shared::default(),
            bundle_name,
            error: None,
            status: None,
            hits: Hits::default(),
            quit: false,
            zoom: false,
            jobs: Vec::new(),
            requests: Vec::new(),
            in_flight: Vec::new(),
            pending_policy: None,
            spinner: 0,
            audit_token: 0,
            load_progress: None,
            partial: false,
            next_partial: None,
            auto_system: None,
        }
    }

    /// An app that loads `root` in the background.
    pub fn new(root: PathBuf, opts: EngineOptions, theme: Theme) -> App {
        let name = root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().to_string(),
        );
        let mut app = App::blank(theme, name, &opts.eval);
        // Opened for a talk: on the leader once it is known (app/start.rs). An app made over
        // a loaded engine (tests, benchmarks) keeps the first system.
        app.auto_system = Some(0);
        let progress = Arc::new(super::jobs::JobProgress::default());
        app.load_progress = Some(progress.clone());
        app.jobs.push(Job::Load {
            root,
            opts,
            cache: None,
            progress,
        });
        app
    }

    /// Load through this rank cache (set before the first frame).
    pub fn with_rank_cache(mut self, rank_cache: Option<crate::store::Store>) -> App {
        for job in &mut self.jobs {
            if let Job::Load { cache, .. } = job {
                cache.clone_from(&rank_cache);
            }
        }
        self
    }

    /// An app over an engine already loaded (tests, benchmarks); the leaderboard, anatomy and BM25
    /// index are queued as jobs.
    pub fn with_engine(engine: Engine, theme: Theme) -> App {
        let name = engine
            .bundle()
            .root
            .file_name()
            .map_or_else(|| "bundle".to_string(), |n| n.to_string_lossy().to_string());
        let eval = engine.config();
        let mut app = App::blank(theme, name, &eval);
        let index = super::jobs::CorpusIndex::build(&engine);
        app.install(Arc::new(engine), Arc::new(index));
        app
    }

    /// Show the systems of a loading bundle scored so far: only their leaderboard is built
    /// (the other panes wait for the whole engine). While that leaderboard is being built, a
    /// newer partial engine waits, so every leaderboard that arrives is current.
    fn install_partial(&mut self, engine: Arc<Engine>) {
        if self.data.is_some() && !self.partial {
            return; // the whole engine is in
        }
        if self.in_flight.iter().any(|(l, _)| *l == "leaderboard")
            || self.jobs.iter().any(|j| j.label() == "leaderboard")
        {
            self.next_partial = Some(engine);
            return;
        }
        let gen = self.data.as_ref().map_or(0, |d| d.gen + 1);
        // The previous partial leaderboard stays on screen until this one's is built.
        let lb = self.data.as_mut().and_then(|d| d.lb.take());
        let index = Arc::new(super::jobs::CorpusIndex::build(&engine));
        self.partial = true;
        self.jobs.push(Job::Leaderboard {
            gen,
            engine: engine.clone(),
        });
        self.data = Some(Data {
            lb,
            ..Data::new(engine, index, gen)
        });
    }

    fn install(&mut self, engine: Arc<Engine>, index: Arc<super::jobs::CorpusIndex>) {
        self.settings.compare = usize::from(engine.scores().len() > 1);
        // A fresh generation, so results computed for a partial engine are not taken for it.
        let gen = self.data.as_ref().map_or(0, |d| d.gen + 1);
        self.partial = false;
        self.next_partial = None;
        self.jobs.push(Job::Bm25 {
            engine: engine.clone(),
        });
        self.jobs.push(Job::Suites {
            engine: engine.clone(),
        });
        self.settings.adopt(&engine.config());
        self.data = Some(Data::new(engine, index, gen));
        self.queue_evaluation_jobs();
    }

    /// The leaderboard first: the bootstrap and the anatomy are queued once it is in
    /// ([`App::queue_followup_jobs`]), so they do not compete with it for the cores.
    fn queue_evaluation_jobs(&mut self) {
        if let Some(d) = &self.data {
            self.jobs.push(Job::Leaderboard {
                gen: d.gen,
                engine: d.engine.clone(),
            });
        }
    }

    fn queue_followup_jobs(&mut self) {
        if let Some(d) = &self.data {
            self.jobs.push(Job::Significance {
                gen: d.gen,
                engine: d.engine.clone(),
                base: None,
            });
            self.jobs.push(Job::Anatomy {
                gen: d.gen,
                engine: d.engine.clone(),
            });
            self.jobs.push(Job::Rows {
                engine: d.engine.clone(),
            });
        }
    }

    /// Jobs to start now (the caller runs them and feeds the results to [`App::on_result`]).
    pub fn take_jobs(&mut self) -> Vec<Job> {
        let jobs = std::mem::take(&mut self.jobs);
        let now = std::time::Instant::now();
        self.in_flight.extend(jobs.iter().map(|j| (j.label(), now)));
        jobs
    }

    /// Run every queued job on this thread until none is left (tests, benchmarks).
    pub fn run_jobs_inline(&mut self) {
        loop {
            let jobs = self.take_jobs();
            if jobs.is_empty() {
                break;
            }
            for j in jobs {
                let r = j.run();
                self.on_result(r);
            }
        }
    }

    /// Labels of the jobs still running.
    pub fn busy(&self) -> Vec<&'static str> {
        self.in_flight.iter().map(|(l, _)| *l).collect()
    }

    /// Seconds since the oldest running job started, once past one (`None` before).
    pub fn busy_secs(&self) -> Option<u64> {
        let t = self.in_flight.iter().map(|(_, t)| *t).min()?;
        Some(t.elapsed().as_secs()).filter(|s| *s >= 1)
    }

    fn done(&mut self, label: &str) {
        if let Some(i) = self.in_flight.iter().position(|(l, _)| *l == label) {
            self.in_flight.remove(i);
        }
    }

    /// A job finished.
    pub fn on_result(&mut self, r: JobResult) {
        match r {
            JobResult::Loaded(res) => {
                self.done("loading bundle");
                match *res {
                    Ok((engine, index)) => self.install(engine, index),
                    Err(e) => self.error = Some(e),
                }
            }
            JobResult::Partial(engine) => self.install_partial(engine),
            JobResult::Leaderboard { gen, lb } => {
                self.done("leaderboard");
                if let Some(d) = self.data.as_mut().filter(|d| d.gen == gen) {
                    d.lb = Some(*lb);
                    if !self.partial {
                        self.queue_followup_jobs();
                    }
                }
                self.select_leader_unless_chosen();
                if let Some(e) = self.next_partial.take() {
                    self.install_partial(e);
                }
            }
            JobResult::Significance { gen, sig } => {
                let pairs = sig.pairs.is_some();
                self.done(if pairs {
                    "system pairs"
                } else {
                    "bootstrap intervals"
                });
                if let Some(d) = self.data.as_mut().filter(|d| d.gen == gen) {
                    if !pairs {
                        self.jobs.push(Job::Significance {
                            gen,
                            engine: d.engine.clone(),
                            base: Some(sig.clone()),
                        });
                    }
                    d.sig = Some(sig);
                }
            }
            JobResult::Audit(res) => {
                self.done("retrieval audit");
                let (req, result) = *res;
                if let Some(d) = self.data.as_mut() {
                    let current = matches!(&d.audit, AuditSlot::Running(r, _) if *r == req);
                    if current {
                        d.audit = match result {
                            Ok(a) => AuditSlot::Done(Arc::new(a)),
                            Err(e) => AuditSlot::Failed(req, e),
                        };
                    }
                }
            }
            JobResult::Anatomy { gen, anatomy } => {
                self.done("failure anatomy");
                if let Some(d) = self.data.as_mut().filter(|d| d.gen == gen) {
                    d.anatomy = Some(*anatomy);
                }
            }
            JobResult::Rows(res) => {
                self.done("score rows");
                if let Err(e) = res {
                    self.status = Some(format!("score rows: {e}"));
                }
            }
            JobResult::Suites(s) => {
                self.done("suite strength");
                if let Some(d) = self.data.as_mut() {
                    d.suites = Some(s);
                }
            }
            JobResult::Bm25(idx) => {
                self.done("BM25 index");
                if let Some(d) = self.data.as_mut() {
                    d.bm25 = Some(idx);
                }
                self.rescore_live();
            }
        }
        // What the core repaired on the way (damaged cache entries) is said, not printed over
        // the screen.
        let notices = self
            .data
            .as_ref()
            .map(|d| d.engine.take_notices())
            .unwrap_or_default();
        if !notices.is_empty() {
            self.status = Some(format!("warning: {}", notices.join("; ")));
        }
        for p in &mut self.panes {
            p.data_changed();
        }
        if let Some(p) = self.pending_policy {
            self.apply_policy(p);
        }
        self.sync_active();
    }

    /// Re-evaluate every system under tie policy `p`: the data gets a new engine snapshot
    /// ([`Engine::with_config`], sharing the bundle, truth and scores) and the leaderboard and
    /// anatomy are rebuilt off the UI thread. Jobs still running keep the snapshot they were
    /// given; their results carry the old generation and are dropped.
    fn apply_policy(&mut self, p: TiePolicy) {
        let Some(d) = self.data.as_mut().filter(|_| !self.partial) else {
            self.pending_policy = Some(p);
            self.status = Some(format!("tie policy → {p} once the bundle is loaded"));
            return;
        };
        let cfg = EvalConfig {
            policy: p,
            ..d.engine.config()
        };
        d.engine = Arc::new(d.engine.with_config(&cfg));
        d.gen += 1;
        d.lb = None;
        d.anatomy = None;
        d.sig = None;
        self.settings.adopt(&cfg);
        self.pending_policy = None;
        // An audit belongs to the pool order it was run in.
        self.invalidate_audit();
        self.status = Some(format!("tie policy: {p}"));
        self.queue_evaluation_jobs();
        for pane in &mut self.panes {
            pane.data_changed();
        }
    }

    /// What the help overlay shows: the registry and the active pane's glyphs.
    pub fn help(&self) -> super::help::Help<'_> {
        super::help::Help {
            theme: &self.settings.theme,
            panes: &self.panes,
            tab: self.tab,
        }
    }

    /// The active pane.
    pub fn pane(&self) -> PaneId {
        self.panes[self.tab].kind()
    }

    /// The active pane's stable id (`leaderboard`, `browser`, …).
    pub fn pane_id(&self) -> &'static str {
        self.pane().as_str()
    }

    fn input_mode(&self) -> bool {
        matches!(
            self.mode,
            Mode::Filter | Mode::Picker { .. } | Mode::Prompt | Mode::Palette { .. }
        )
    }

    /// Translate a key through the command registry and handle it.
    pub fn handle_key(&mut self, ev: KeyEvent) {
        if let Some(a) = commands::lookup(&ev, self.pane(), self.input_mode()) {
            self.handle(a);
        }
    }

    /// Systems matching the picker text, best first.
    pub fn picker_items(&self, text: &str) -> Vec<usize> {
        let Some(d) = &self.data else {
            return Vec::new();
        };
        fuzzy::filter(text, d.engine.scores().iter().map(|s| s.id.as_str()))
    }

    /// The command palette's entries on the active pane (the registry's, see
    /// [`commands::palette`]).
    pub fn palette_entries(&self) -> Vec<commands::PaletteEntry> {
        let panes: Vec<(PaneId, &'static str)> =
            self.panes.iter().map(|p| (p.kind(), p.title())).collect();
        commands::palette(self.pane(), &panes, &self.settings.eval().ks)
    }

    /// The palette entries matching `text`, best first (indices into [`App::palette_entries`]).
    pub fn palette_items(&self, text: &str) -> Vec<usize> {
        commands::palette_matches(&self.palette_entries(), text)
    }

    fn rescore_live(&mut self) {
        let (Some(d), Some((text, res))) = (&self.data, self.shared.live.as_mut()) else {
            return;
        };
        res.clear();
        if let Some(bm) = &d.bm25 {
            let scores = bm.score_text(text);
            let row: Vec<f32> = scores.iter().map(|&s| s as f32).collect();
            *res = crate::rank::top_k(&row, LIVE_DEPTH)
                .into_iter()
                .map(|c| (c, scores[c as usize]))
                .collect();
        }
    }

    fn switch_to(&mut self, id: PaneId) {
        if let Some(i) = self.panes.iter().position(|p| p.kind() == id) {
            self.tab = i;
        }
    }

    /// The one place state changes; the active pane then syncs its background work with the
    /// new state ([`Pane::sync`]).
    pub fn handle(&mut self, action: Action) {
        let redraw_only = matches!(action, Action::Tick | Action::Resize(..));
        self.change(action);
        if !redraw_only {
            self.sync_active();
        }
    }

    fn change(&mut self, action: Action) {
        match action {
            Action::Tick => {
                self.spinner = self.spinner.wrapping_add(1);
                return;
            }
            Action::Resize(..) => return,
            _ => {}
        }
        if !matches!(
            action,
            Action::Click(_) | Action::ScrollUp | Action::ScrollDown
        ) {
            self.status = None;
        }
        let mut effects = Vec::new();
        match self.mode.clone() {
            Mode::Help { scroll } => match action {
                Action::Help | Action::Back | Action::Quit | Action::Enter => {
                    self.mode = Mode::Normal
                }
                // The movement keys and the wheel scroll a help taller than the screen.
                a if a.moves_selection() => {
                    let (max, page) = super::help::room(&self.help(), self.hits.body());
                    let scroll = panes::step(scroll.min(max), max + 1, &a, page);
                    self.mode = Mode::Help { scroll };
                }
                _ => {}
            },
            Mode::Picker {
                compare,
                mut text,
                mut sel,
            } => {
                let items = self.picker_items(&text);
                if edit_list_filter(&mut text, &mut sel, &action, items.len()) {
                    self.mode = Mode::Picker { compare, text, sel };
                    return;
                }
                match action {
                    Action::Enter => {
                        if let Some(&s) = items.get(sel) {
                            if compare {
                                self.settings.compare = s;
                            } else {
                                self.settings.system = s;
                            }
                            self.status = Some(format!(
                                "{} system: {}",
                                if compare { "compared" } else { "current" },
                                self.data
                                    .as_ref()
                                    .map_or("", |d| d.engine.scores()[s].id.as_str())
                            ));
                        }
                        self.mode = Mode::Normal;
                        self.invalidate_audit();
                        return;
                    }
                    Action::Back => {
                        self.mode = Mode::Normal;
                        return;
                    }
                    _ => {}
                }
                self.mode = Mode::Picker { compare, text, sel };
            }
            Mode::Big => match action {
                Action::BigNumbers | Action::Back | Action::Enter | Action::Quit => {
                    self.mode = Mode::Normal
                }
                // What the big numbers name can change under them.
                Action::CycleTies | Action::ToggleTheme => self.normal(action, &mut effects),
                _ => {}
            },
            Mode::Palette { mut text, mut sel } => {
                let items = self.palette_items(&text);
                if edit_list_filter(&mut text, &mut sel, &action, items.len()) {
                    self.mode = Mode::Palette { text, sel };
                    return;
                }
                match action {
                    Action::PageUp | Action::PageDown | Action::Top | Action::Bottom => {
                        sel = panes::step(sel, items.len(), &action, 10)
                    }
                    Action::Enter => {
                        self.mode = Mode::Normal;
                        // The entry's action, exactly as its key would send it in normal mode.
                        if let Some(e) = items
                            .get(sel)
                            .map(|&i| self.palette_entries().swap_remove(i))
                        {
                            self.normal(e.action, &mut effects);
                        }
                        self.apply_effects(effects);
                        return;
                    }
                    Action::Back => {
                        self.mode = Mode::Normal;
                        return;
                    }
                    _ => {}
                }
                self.mode = Mode::Palette { text, sel };
            }
            Mode::Prompt => match action {
                Action::Input(_) | Action::Backspace | Action::Paste(_) => {
                    if let Some((t, _)) = self.shared.live.as_mut() {
                        match &action {
                            Action::Input(c) if !c.is_control() => t.push(*c),
                            Action::Input(_) => {}
                            // One line: a pasted newline becomes a space.
                            Action::Paste(s) => t.extend(
                                s.chars()
                                    .map(|c| if c == '\n' { ' ' } else { c })
                                    .filter(|c| !c.is_control()),
                            ),
                            _ => {
                                t.pop();
                            }
                        }
                    }
                    self.rescore_live();
                    // New results: the selection starts again at rank 1.
                    self.forward(&Action::Top, &mut effects);
                }
                Action::Enter => {
                    self.mode = Mode::Normal;
                    self.forward(&Action::Enter, &mut effects);
                }
                Action::Back => {
                    self.shared.live = None;
                    self.mode = Mode::Normal;
                }
                other => self.forward(&other, &mut effects),
            },
            Mode::Filter => {
                let mut cx = Cx {
                    data: self.data.as_ref(),
                    settings: &mut self.settings,
                    shared: &mut self.shared,
                    effects: &mut effects,
                };
                let pane = &mut self.panes[self.tab];
                let was = pane.captures_input();
                let handled = pane.filter_input(&action, &mut cx);
                let now = pane.captures_input();
                // A plain filter ends on Enter / Esc; an inline editor when it stops capturing.
                let ends = if was {
                    !now
                } else {
                    matches!(action, Action::Enter | Action::Back | Action::Apply)
                };
                if handled.is_none() || ends {
                    self.mode = Mode::Normal;
                }
            }
            Mode::Normal => self.normal(action, &mut effects),
        }
        self.apply_effects(effects);
    }

    /// Let the active pane start or feed its background work for the state just reached.
    pub(super) fn sync_active(&mut self) {
        self.panes[self.tab].sync(self.data.as_ref(), &self.settings, &self.shared);
    }

    fn normal(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let n = self.panes.len();
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.mode = Mode::Help { scroll: 0 },
            Action::NextTab => self.tab = (self.tab + 1) % n,
            Action::PrevTab => self.tab = (self.tab + n - 1) % n,
            Action::Tab(i) | Action::Click(Hit::Tab(i)) => {
                if i < n {
                    self.tab = i;
                }
            }
            Action::PickSystem | Action::PickCompare => {
                if self.data.is_some() {
                    self.mode = Mode::Picker {
                        compare: action == Action::PickCompare,
                        text: String::new(),
                        sel: 0,
                    };
                }
            }
            Action::CycleK => {
                if self.data.is_some() {
                    let n = self.settings.eval().ks.len().max(1);
                    self.settings.k_index = (self.settings.k_index + 1) % n;
                    self.status = Some(format!("cutoff k = {}", self.settings.k()));
                }
            }
            Action::CycleTies => {
                let cur = self.pending_policy.unwrap_or(self.settings.policy());
                let i = TiePolicy::ALL.iter().position(|&p| p == cur).unwrap_or(0);
                self.apply_policy(TiePolicy::ALL[(i + 1) % TiePolicy::ALL.len()]);
            }
            Action::SetTies(i) => {
                let cur = self.pending_policy.unwrap_or(self.settings.policy());
                if let Some(&p) = TiePolicy::ALL.get(i).filter(|&&p| p != cur) {
                    self.apply_policy(p);
                }
            }
            Action::SetK(i) => {
                if self.data.is_some() && i < self.settings.eval().ks.len() {
                    self.settings.k_index = i;
                    self.status = Some(format!("cutoff k = {}", self.settings.k()));
                }
            }
            Action::ToggleTheme => self.settings.theme = self.settings.theme.toggled(),
            Action::SetTheme(kind) => {
                self.settings.theme = Theme::new(kind, self.settings.theme.mono)
            }
            Action::Zoom => self.zoom = !self.zoom,
            Action::BigNumbers => self.mode = Mode::Big,
            Action::Palette => {
                self.mode = Mode::Palette {
                    text: String::new(),
                    sel: 0,
                }
            }
            // The main loop draws the export (the app never calls the renderer).
            Action::Export => self.requests.push(Request::Export),
            Action::LiveQuery => {
                if self.data.is_some() {
                    self.shared.live = Some((String::new(), Vec::new()));
                    self.mode = Mode::Prompt;
                    self.switch_to(PaneId::Browser);
                }
            }
            Action::Back if self.shared.live.is_some() => self.shared.live = None,
            Action::Back if self.zoom => self.zoom = false,
            other => self.forward(&other, effects),
        }
    }

    fn forward(&mut self, action: &Action, effects: &mut Vec<Effect>) {
        let mut cx = Cx {
            data: self.data.as_ref(),
            settings: &mut self.settings,
            shared: &mut self.shared,
            effects,
        };
        self.panes[self.tab].handle(action, &mut cx);
    }

    pub(super) fn apply_effects(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::OpenBrowser { system, query } => {
                    if let Some(s) = system {
                        self.settings.system = s;
                    }
                    if let Some(q) = query {
                        self.shared.query = q;
                    }
                    self.shared.live = None;
                    self.switch_to(PaneId::Browser);
                }
                Effect::StartFilter => self.mode = Mode::Filter,
                Effect::Status(s) => self.status = Some(s),
                Effect::RunAudit { k, visible } => self.start_audit(k, visible),
                Effect::RunEditor { file } => self.requests.push(Request::Editor { file }),
                Effect::ClearAudit => {
                    if let Some(d) = self.data.as_mut() {
                        if !matches!(d.audit, AuditSlot::Running(..)) {
                            d.audit = AuditSlot::Idle;
                        }
                    }
                }
            }
        }
        self.invalidate_audit();
    }

    /// A snapshot for drawing.
    pub fn view(&self) -> View<'_> {
        // The settings' evaluation is the data's: every number drawn is computed under it.
        debug_assert!(
            self.data
                .as_ref()
                .is_none_or(|d| d.engine.config() == *self.settings.eval()),
            "the settings and the data's engine disagree"
        );
        const SPIN: [char; 8] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧'];
        View {
            data: self.data.as_ref(),
            settings: &self.settings,
            shared: &self.shared,
            theme: &self.settings.theme,
            hits: &self.hits,
            spinner: SPIN[self.spinner % SPIN.len()],
        }
    }

    /// Whether a tie-policy change is waiting for running jobs.
    pub fn pending_policy(&self) -> Option<TiePolicy> {
        self.pending_policy
    }
}

#[cfg(test)]
mod loading_tests;

/// The typing and moving a fuzzy list (system picker, command palette) shares: text typed,
/// pasted or deleted restarts the highlight at the top; ↑/↓ move it among `n` items. `false`:
/// the action is not one of these.
fn edit_list_filter(text: &mut String, sel: &mut usize, action: &Action, n: usize) -> bool {
    match action {
        Action::Input(c) if !c.is_control() => text.push(*c),
        Action::Paste(s) => text.extend(s.chars().filter(|c| !c.is_control())),
        Action::Backspace => {
            text.pop();
        }
        Action::Up | Action::Down | Action::ScrollUp | Action::ScrollDown => {
            *sel = panes::step(*sel, n, action, 1);
            return true;
        }
        _ => return false,
    }
    *sel = 0;
    true
}
