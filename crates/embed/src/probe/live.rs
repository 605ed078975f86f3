//! The dashboard's probing service: a background thread that owns the embedding worker, the
//! corpus matrices and the oracle, and answers the newest [`ProbeRequest`] with [`probe`] (the
//! same function as `execscope probe`). The UI thread submits requests and reads the latest
//! state without ever waiting: a model that is still loading shows as "loading model …".
//!
//! The worker, the matrices and the oracle are created on first use; the embedding environment is
//! never created from here (that is `execscope embed`'s job, with its multi-GB download), so a
//! machine without it ranks with the stored vectors and BM25 and names the missing models.

use super::{probe, Encode, ProbeReport, ProbeRequest, Prober};
use crate::{EmbedEnv, Worker};
use execscope_core::engine::Engine;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the UI shows for the newest request.
#[derive(Clone, Debug, Default)]
pub struct LiveState {
    /// Sequence number of the request the state belongs to (0: none yet).
    pub seq: u64,
    /// The request answered (or being answered).
    pub request: Option<ProbeRequest>,
    /// Work in progress ("loading model all-mpnet-base-v2", "running the tests"), if any.
    pub busy: Option<String>,
    pub report: Option<ProbeReport>,
    pub error: Option<String>,
    /// Wall time of the last answer.
    pub elapsed: Option<Duration>,
    /// When the current work note (`busy`) began, so the dashboard shows its elapsed time.
    pub busy_since: Option<Instant>,
}

/// Handle to the service thread (dropping it ends the thread and its worker).
pub struct LiveProbe {
    tx: Sender<(u64, Arc<Engine>, ProbeRequest)>,
    state: Arc<Mutex<LiveState>>,
    seq: u64,
}

impl LiveProbe {
    /// Start the service. `env`: where to find the embedding environment (None:
    /// `EmbedEnv::locate()`).
    pub fn start(env: Option<EmbedEnv>) -> LiveProbe {
        let (tx, rx) = channel();
        let state = Arc::new(Mutex::new(LiveState::default()));
        let st = state.clone();
        std::thread::spawn(move || serve(env, rx, st));
        LiveProbe { tx, state, seq: 0 }
    }

    /// Ask for a probe of `engine` (held only while the request is answered, so the dashboard
    /// can re-evaluate it in place afterwards); an older request still waiting is dropped.
    pub fn submit(&mut self, engine: Arc<Engine>, req: ProbeRequest) {
        self.seq += 1;
        if let Ok(mut s) = self.state.lock() {
            s.seq = self.seq;
            s.request = Some(req.clone());
            // The previous answer belongs to the previous request: a view asking for this one
            // must never draw it (an edited query showed the last live query's ranking).
            s.report = None;
            s.error = None;
            s.busy = Some("ranking".into());
            s.busy_since = Some(Instant::now());
        }
        let _ = self.tx.send((self.seq, engine, req));
    }

    /// The current state (cheap clone of small data).
    pub fn state(&self) -> LiveState {
        self.state.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Whether an answer is still pending.
    pub fn busy(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.busy.is_some())
    }

    /// Wait (tests, benchmarks) until the newest request is answered or `limit` passes.
    pub fn wait(&self, limit: Duration) -> LiveState {
        let t0 = Instant::now();
        while self.busy() && t0.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.state()
    }
}

/// One encoder shared by the thread: the worker once started, with a note of what it is doing.
struct Lazy {
    env: Option<EmbedEnv>,
    worker: Option<Worker>,
    /// The worker failed to start for request `.0` (retried on a later request).
    failed: Option<(u64, String)>,
    state: Arc<Mutex<LiveState>>,
    seq: u64,
    loaded: std::collections::HashSet<String>,
}

impl Encode for Lazy {
    fn encode(
        &mut self,
        spec: &crate::ModelSpec,
        role: crate::Role,
        texts: &[String],
    ) -> anyhow::Result<ndarray::Array2<f32>> {
        if let Some((_, f)) = self.failed.as_ref().filter(|(s, _)| *s == self.seq) {
            anyhow::bail!("{f}");
        }
        if self.worker.is_none() {
            // Looked up again on every request: an environment set up while the dashboard
            // runs is used from the next query on, without a restart. The caller names the
            // model; this says only why it cannot run.
            let env = match self.env.clone() {
                Some(e) => e,
                None => EmbedEnv::locate()?,
            };
            if !env.is_ready() {
                anyhow::bail!("{}", env.absence());
            }
            self.note(&format!("loading model {}", spec.model));
            match Worker::spawn(&env) {
                Ok(w) => self.worker = Some(w),
                Err(e) => {
                    self.failed = Some((self.seq, format!("{e:#}")));
                    return Err(e);
                }
            }
        }
        if !self.loaded.contains(&spec.model) {
            self.note(&format!("loading model {}", spec.model));
        }
        let out = self
            .worker
            .as_mut()
            .expect("started above")
            .encode(spec, role, texts);
        if out.is_ok() {
            self.loaded.insert(spec.model.clone());
        }
        out
    }
}

impl Lazy {
    fn note(&self, what: &str) {
        if let Ok(mut s) = self.state.lock() {
            if s.seq == self.seq && s.busy.as_deref() != Some(what) {
                s.busy = Some(what.to_string());
                s.busy_since = Some(Instant::now());
            }
        }
    }
}

fn serve(
    env: Option<EmbedEnv>,
    rx: Receiver<(u64, Arc<Engine>, ProbeRequest)>,
    state: Arc<Mutex<LiveState>>,
) {
    let mut prober: Option<Result<Prober, String>> = None;
    let mut oracle: Option<Result<execscope_oracle::Oracle, String>> = None;
    let mut enc = Lazy {
        env,
        worker: None,
        failed: None,
        state: state.clone(),
        seq: 0,
        loaded: Default::default(),
    };
    while let Ok(mut next) = rx.recv() {
        // Only the newest request matters.
        while let Ok(newer) = rx.try_recv() {
            next = newer;
        }
        let (seq, engine, req) = next;
        enc.seq = seq;
        let t0 = Instant::now();
        if prober.is_none() {
            enc.note("reading the corpus matrices");
            prober = Some(Prober::new(&engine).map_err(|e| format!("{e:#}")));
        }
        if !req.replace.is_empty() && oracle.is_none() {
            enc.note("starting the oracle");
            oracle = Some(
                execscope_oracle::Oracle::new(execscope_oracle::OracleConfig::default())
                    .map_err(|e| e.to_string()),
            );
        }
        let result = match prober.as_ref().expect("set above") {
            Err(e) => Err(e.clone()),
            Ok(p) => {
                let o = oracle.as_ref().and_then(|o| o.as_ref().ok());
                probe(&engine, p, Some(&mut enc), o, &req).map_err(|e| format!("{e:#}"))
            }
        };
        drop(engine);
        if let Ok(mut s) = state.lock() {
            if s.seq == seq {
                s.busy = None;
                s.elapsed = Some(t0.elapsed());
                match result {
                    Ok(r) => {
                        s.report = Some(r);
                        s.error = None;
                    }
                    Err(e) => {
                        s.report = None;
                        s.error = Some(e);
                    }
                }
            }
        }
    }
}
