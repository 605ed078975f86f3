//! Retrieval pools: a system's top k per query (rank order, row ties), the first m tests of the
//! query's suite as the "self-tests", and the whole suite as the independent oracle.
//!
//! Predicates: `top-k` admits every pool candidate (its first-admitted return is plain exec@1
//! under the row tie rule) and `V` admits candidates passing the visible tests (its return is
//! exec-verified@1). One full-suite execution per pair answers both: its first m outcomes are the
//! visible result. The bundle's execution cache answers the pairs it holds; the rest run through
//! the runner (the oracle), and the provenance says how many.

use super::generated::Runner;
use super::AuditError;
use super::{Candidate, Cohort, Mode, PoolSet, TaskPool, TestRun, Verdict};
use crate::engine::Engine;
use crate::metrics::TiePolicy;
use crate::rank;
use execscope_record::Outcome;
use std::collections::HashMap;

pub const EVIDENCE: [&str; 2] = ["V", "P+"];
pub const PREDICATES: [&str; 2] = ["top-k", "V"];

/// `pass` or the first failing test among `outcomes` (numbered from `offset + 1`).
fn first_failure(outcomes: &[Outcome], what: &str) -> (bool, String) {
    match outcomes.iter().position(|o| !o.is_pass()) {
        None => (true, "pass".into()),
        Some(i) => (false, format!("{} on {what} test {}", outcomes[i], i + 1)),
    }
}

/// The pool size of a retrieval audit unless asked otherwise: the system's top 10 per query.
pub const DEFAULT_K: usize = 10;
/// The self-tests of a retrieval audit unless asked otherwise: the first 3 tests of each suite.
pub const DEFAULT_VISIBLE: usize = 3;

/// What a retrieval audit audits: `system`'s top `k` per query, the first `visible` tests of
/// each suite as self-tests, the pool ordered inside score ties by `ties`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetrievalSpec {
    pub system: String,
    pub k: usize,
    pub visible: usize,
    pub ties: TiePolicy,
}

impl RetrievalSpec {
    /// The defaults: [`DEFAULT_K`], [`DEFAULT_VISIBLE`], row ties (the release's order).
    pub fn new(system: impl Into<String>) -> RetrievalSpec {
        RetrievalSpec {
            system: system.into(),
            k: DEFAULT_K,
            visible: DEFAULT_VISIBLE,
            ties: TiePolicy::Row,
        }
    }

    /// The pools this spec asks for ([`build_with_ties`]).
    pub fn pools(&self, engine: &Engine, runner: &Runner<'_>) -> Result<PoolSet, AuditError> {
        build_with_ties(
            engine,
            &self.system,
            self.k,
            self.visible,
            self.ties,
            runner,
        )
    }
}

/// The pool of query `q` in system `s`'s retrieval audit: its first `k` snippets, ordered inside
/// score ties by `policy` (`row`: corpus row; `optimistic` / `pessimistic`: snippets passing the
/// whole suite first / last, as the metrics place them). `None` under `expected`, which averages
/// over every order and so has no single pool.
pub fn pool_order(
    engine: &Engine,
    s: usize,
    q: usize,
    k: usize,
    policy: TiePolicy,
) -> Option<Vec<u32>> {
    let row = engine.scores()[s].row(q);
    match policy {
        TiePolicy::Optimistic | TiePolicy::Pessimistic => Some(rank::ties::top_k_by_verdict(
            row,
            k,
            engine.truth().passing(q),
            policy == TiePolicy::Optimistic,
        )),
        TiePolicy::Row => Some(rank::top_k(row, k)),
        TiePolicy::Expected => None,
    }
}

/// What the audit says when asked for `expected` ties (the front ends say it too).
pub const NO_SINGLE_ORDER: &str = "the audit needs one pool order: use --ties row, pessimistic or optimistic (the order-sensitivity tables cover every order)";

/// Builds the pools of `system` at cutoff `k` with `visible` self-tests per query.
pub fn build(
    engine: &Engine,
    system: &str,
    k: usize,
    visible: usize,
    runner: &Runner<'_>,
) -> Result<PoolSet, AuditError> {
    build_with_ties(engine, system, k, visible, TiePolicy::Row, runner)
}

/// [`build`] with the pool order inside score ties chosen by a tie policy: `row` (the release's
/// order), `optimistic` / `pessimistic` (snippets that pass the whole suite first / last). The
/// `expected` policy has no single order; the audit's order-sensitivity tables cover all orders.
pub fn build_with_ties(
    engine: &Engine,
    system: &str,
    k: usize,
    visible: usize,
    policy: TiePolicy,
    runner: &Runner<'_>,
) -> Result<PoolSet, AuditError> {
    if policy == TiePolicy::Expected {
        return Err(AuditError::Settings(NO_SINGLE_ORDER.into()));
    }
    let s = engine.system_index(system).ok_or_else(|| {
        let names: Vec<&str> = engine.scores().iter().map(|s| s.id.as_str()).collect();
        AuditError::Settings(format!("no system {system:?} (have: {})", names.join(", ")))
    })?;
    if k == 0 {
        return Err(AuditError::Settings("--k must be at least 1".into()));
    }
    let bundle = &engine.bundle();
    let tops: Vec<Vec<u32>> = (0..bundle.queries.len())
        .map(|q| pool_order(engine, s, q, k, policy).unwrap_or_default())
        .collect();
    // Per (query, rank): cached outcomes, or the index of a job to run.
    let mut jobs: Vec<execscope_record::Job> = Vec::new();
    let mut job_of: HashMap<(usize, u32), usize> = HashMap::new();
    let mut outcomes: HashMap<(usize, u32), Vec<Outcome>> = HashMap::new();
    let mut hits = 0usize;
    for (q, top) in tops.iter().enumerate() {
        let query = &bundle.queries[q];
        for &c in top {
            match engine.cache_index().outcomes(bundle, q, c as usize) {
                Some(o) if o.len() == query.tests.len() => {
                    let parsed = o
                        .iter()
                        .map(|x| x.parse::<Outcome>())
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|msg| AuditError::Cache {
                            query: query.id.clone(),
                            msg,
                        })?;
                    outcomes.insert((q, c), parsed);
                    hits += 1;
                }
                _ => {
                    job_of.insert((q, c), jobs.len());
                    jobs.push(bundle.job(q, c as usize));
                }
            }
        }
    }
    let ran = super::generated::run_checked(runner, &jobs)?;
    let positions: Vec<i64> = (1..=k.min(bundle.corpus.len()) as i64).collect();
    let mut tasks = Vec::with_capacity(bundle.queries.len());
    for (q, top) in tops.iter().enumerate() {
        let query = &bundle.queries[q];
        let m = visible.min(query.tests.len());
        let candidates = top
            .iter()
            .enumerate()
            .map(|(r, &c)| {
                let outs = match job_of.get(&(q, c)) {
                    Some(&j) => ran[j].outcomes.clone(),
                    None => outcomes[&(q, c)].clone(),
                };
                let (v_ok, v_why) = first_failure(&outs[..m], "visible");
                let (p_ok, p_why) = first_failure(&outs, "suite");
                let snippet = &bundle.corpus[c as usize];
                Candidate {
                    position: r,
                    label: format!("rank {} {}", r + 1, snippet.id),
                    line: None,
                    code: snippet.code.clone(),
                    self_tests: query.tests[..m].join("\n"),
                    evidence: vec![Verdict::new(v_ok, v_why), Verdict::new(p_ok, p_why)],
                    admitted: vec![true, v_ok],
                    pass: p_ok,
                    tests: query
                        .tests
                        .iter()
                        .zip(outs)
                        .enumerate()
                        .map(|(i, (t, o))| TestRun {
                            suite: if i < m { "visible" } else { "hidden" },
                            test: t.clone(),
                            outcome: o,
                            capped: false,
                        })
                        .collect(),
                }
            })
            .collect();
        tasks.push(TaskPool {
            task_id: query.id.clone(),
            function_name: query.function_name.clone(),
            language: query.language,
            candidates,
        });
    }
    tasks.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    Ok(PoolSet {
        mode: Mode::Retrieval {
            system: system.to_string(),
            k,
            visible,
            ties: policy,
        },
        evidence_names: EVIDENCE.iter().map(|s| s.to_string()).collect(),
        predicates: PREDICATES.iter().map(|s| s.to_string()).collect(),
        time_convention: super::TimeConvention::Execscope,
        contrasts: vec![(0, 1)],
        cohorts: vec![Cohort {
            name: system.to_string(),
            positions,
            tasks,
        }],
        provenance: vec![format!(
            "{} pool pairs: {hits} from the execution cache, {} run by the oracle",
            hits + jobs.len(),
            jobs.len()
        )],
        rejected: Vec::new(),
        missing_tasks: Vec::new(),
        task_count: bundle.queries.len(),
        plus_tasks: 0,
        sanitized: Vec::new(),
        task_format: String::new(),
    })
}
