//! Live probing: rank a typed query, an edited query or an edited snippet under every system, and
//! run the oracle on edited code. One core function, [`probe`], answers `execscope probe` and the
//! dashboard's live query and edits, so the two cannot disagree.
//!
//! What "before" and "after" mean: for a stored query, *before* is the stored ranking (the
//! engine's score row); *after* is the ranking once the query text and/or some snippets are
//! replaced. Unchanged texts keep their stored vectors (an unedited query's *after* row is its
//! stored row, bit for bit); edited texts are embedded by the system's own model through the
//! embedding worker ([`crate`]) and scored exactly as stored vectors are
//! ([`execscope_core::rank::dense_scores`]); BM25 re-indexes the edited corpus. The tie policy, near-tie
//! ε and cutoff of the engine's configuration apply to both rankings.

use crate::{spec_for_system, ModelSpec, Role, Worker};
use execscope_core::bundle::dense::{load_system, Expect};
use execscope_core::bundle::{DenseSystem, Similarity};
use execscope_core::engine::Engine;
use execscope_core::metrics::{eval_query, EvalConfig, TiePolicy};
use execscope_core::rank::bm25::Bm25Index;
use execscope_core::rank::{dense_scores, ties::snap_row, top_k};
use ndarray::{Array2, Axis};
use serde::Serialize;

pub mod live;
pub mod session;

/// Something that embeds texts with a model: the worker, in practice.
pub trait Encode {
    fn encode(
        &mut self,
        spec: &ModelSpec,
        role: Role,
        texts: &[String],
    ) -> anyhow::Result<Array2<f32>>;
}

impl Encode for Worker {
    fn encode(
        &mut self,
        spec: &ModelSpec,
        role: Role,
        texts: &[String],
    ) -> anyhow::Result<Array2<f32>> {
        Worker::encode(self, spec, role, texts)
    }
}

/// A dense system as live probing needs it: its corpus matrix (which the engine frees after
/// scoring) and the model that embeds new text for it.
pub struct LiveSystem {
    pub id: String,
    /// Index into `Engine::scores`.
    pub score_index: usize,
    pub similarity: Similarity,
    /// The corpus matrix as scored: rows L2-normalised under cosine, as stored under dot.
    pub corpus: Array2<f32>,
    /// The model, or why none can run here (which model would be needed).
    pub model: Result<ModelSpec, String>,
}

impl LiveSystem {
    /// Scores of one query vector against every corpus row: the dot product with the query
    /// L2-normalised (cosine) or as given (dot).
    pub fn score_vector(&self, q: ndarray::ArrayView1<f32>) -> Vec<f32> {
        let q = self.unit(q.insert_axis(Axis(0)));
        self.corpus.dot(&q.row(0)).to_vec()
    }

    /// Rows as this system scores them (normalised under cosine).
    pub fn unit(&self, m: ndarray::ArrayView2<f32>) -> Array2<f32> {
        match self.similarity {
            Similarity::Cos => execscope_core::rank::normalized(m),
            // A score system has no vectors: it never gets a live text (see `Prober::new`).
            Similarity::Dot | Similarity::Score => m.to_owned(),
        }
    }
}

/// Everything [`probe`] needs besides the engine: every dense system's corpus matrix and the BM25
/// index of the stored corpus.
pub struct Prober {
    pub systems: Vec<LiveSystem>,
    bm25: Option<Bm25Index>,
}

impl Prober {
    /// Read the corpus matrices of the engine's dense systems from the bundle's npz files.
    pub fn new(engine: &Engine) -> anyhow::Result<Prober> {
        let b = &engine.bundle();
        let query_ids: Vec<String> = b.queries.iter().map(|q| q.id.clone()).collect();
        let corpus_ids: Vec<String> = b.corpus.iter().map(|s| s.id.clone()).collect();
        let expect = Expect {
            query_ids: &query_ids,
            corpus_ids: &corpus_ids,
        };
        let mut systems = Vec::new();
        for (si, s) in engine.scores().iter().enumerate() {
            if !s.is_dense() {
                continue;
            }
            let Some(sys) = b.systems.iter().find(|d| d.id == s.id) else {
                continue;
            };
            if sys.similarity == Similarity::Score {
                // Imported or fused: scores only, no vectors to place a new text among.
                systems.push(LiveSystem {
                    id: sys.id.clone(),
                    score_index: si,
                    similarity: sys.similarity,
                    corpus: Array2::zeros((0, 0)),
                    model: Err(format!(
                        "{} is a score system (imported or fused): it has no vectors, so a new \
                         text cannot be ranked by it",
                        sys.id
                    )),
                });
                continue;
            }
            let corpus = if sys.corpus.nrows() == b.corpus.len() {
                sys.corpus.clone()
            } else {
                let path = b.root.join("embeddings").join(format!("{}.npz", sys.id));
                load_system(
                    &path,
                    &sys.id,
                    sys.invocation.as_ref(),
                    sys.similarity,
                    &expect,
                )?
                .system
                .corpus
            };
            let mut live = LiveSystem {
                id: sys.id.clone(),
                score_index: si,
                similarity: sys.similarity,
                corpus: Array2::zeros((0, 0)),
                model: spec_for_system(&sys.id, sys.invocation.as_ref()),
            };
            live.corpus = live.unit(corpus.view());
            systems.push(live);
        }
        let bm25 = engine
            .includes_bm25()
            .then(|| Bm25Index::of_corpus(&b.corpus));
        Ok(Prober { systems, bm25 })
    }
}

/// Which query to rank.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeQuery {
    /// A free text (no tests, no stored ranking to compare with).
    Text(String),
    /// A stored query (row), with its text optionally replaced.
    Stored { row: usize, text: Option<String> },
}

/// One probe.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeRequest {
    pub query: ProbeQuery,
    /// (corpus row, new code): snippets replaced for this probe only.
    pub replace: Vec<(usize, String)>,
    /// Systems to rank with (ids; `None` = all).
    pub systems: Option<Vec<String>>,
    /// Cutoff of exec@k before/after.
    pub k: usize,
    /// How many results per system are listed.
    pub depth: usize,
}

/// The probe's answer (what `probe --format json` prints and the dashboard draws).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProbeReport {
    pub query_id: Option<String>,
    pub query_text: String,
    pub query_edited: bool,
    pub k: usize,
    pub ties: String,
    pub tie_eps: f32,
    pub systems: Vec<SystemProbe>,
    /// The oracle's verdict on every replaced snippet (stored queries only).
    pub verdicts: Vec<EditVerdict>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SystemProbe {
    pub id: String,
    /// "dense" or "bm25".
    pub kind: String,
    /// "ok", or "unavailable" (with `reason`: which model would be needed, or what failed).
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The top k after the edits, in rank order (row rule; tie groups marked).
    pub top: Vec<ProbeHit>,
    /// Tie groups of `top`: (first 1-based rank, size over the whole corpus).
    pub tie_groups: Vec<(usize, usize)>,
    /// The query's own snippets (canonical, paired distractors) and every replaced snippet.
    pub tracked: Vec<Tracked>,
    /// exec@k of the query under the tie policy, before and after (stored queries only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec_before: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec_after: Option<f64>,
}

/// One snippet of a system's top k for a probe.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProbeHit {
    pub rank: usize,
    pub corpus_id: String,
    #[serde(skip)]
    pub row: usize,
    pub score: f32,
    /// Size of its tie group (1 = untied).
    pub tie: usize,
    pub replaced: bool,
    /// Whether it passes the query's tests (None for a free text).
    pub pass: Option<bool>,
}

/// Where one snippet stands before and after.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Tracked {
    pub corpus_id: String,
    #[serde(skip)]
    pub row: usize,
    /// "canonical", "distractor" or "other".
    pub role: String,
    pub replaced: bool,
    pub score_before: f32,
    pub score_after: f32,
    /// Rank in the whole corpus under the tie policy (expected: mean of the tie group's span).
    pub rank_before: f64,
    pub rank_after: f64,
    /// Rank among the query's pool (its canonical and paired distractors, plus replaced rows).
    pub pool_rank_before: f64,
    pub pool_rank_after: f64,
    /// Tie group sizes in the corpus.
    pub tie_before: usize,
    pub tie_after: usize,
}

/// The oracle's verdict on an edited snippet against the query's tests.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EditVerdict {
    pub corpus_id: String,
    /// Per test: `pass`, `FAIL`, `FAIL:<Exc>`, `TIMEOUT`, `HANG`, `ERROR:<Exc>`; empty when the oracle could not run.
    pub outcomes: Vec<String>,
    pub passes_all: bool,
    /// The cached outcomes of the snippet's original code, when the cache has them.
    pub stored_outcomes: Option<Vec<String>>,
    /// The cached outcomes of exactly the new code on this suite (e.g. when it is another
    /// snippet's code), when the cache has them.
    pub cached_outcomes: Option<Vec<String>>,
    /// Isolation level the oracle ran at, or the error that kept it from running.
    pub runner: String,
}

/// Rank of row `c` in `row` under a tie policy, and its tie group size.
pub fn policy_rank(row: &[f32], c: usize, policy: TiePolicy) -> (f64, usize) {
    policy_rank_in(row, c, policy, 0..row.len())
}

fn policy_rank_in(
    row: &[f32],
    c: usize,
    policy: TiePolicy,
    among: impl IntoIterator<Item = usize>,
) -> (f64, usize) {
    let v = row[c];
    let (mut above, mut ties, mut before) = (0usize, 0usize, 0usize);
    for i in among {
        let s = row[i];
        if s > v {
            above += 1;
        } else if s == v {
            ties += 1;
            if i < c {
                before += 1;
            }
        }
    }
    let best = above + 1;
    let worst = above + ties.max(1);
    let r = match policy {
        TiePolicy::Row => (above + before + 1) as f64,
        TiePolicy::Optimistic => best as f64,
        TiePolicy::Pessimistic => worst as f64,
        TiePolicy::Expected => (best + worst) as f64 / 2.0,
    };
    (r, ties.max(1))
}

/// Run one probe. `encoder` embeds edited text (None: no embedding environment, so dense systems
/// that need new vectors are reported unavailable); `oracle` judges replaced code (None: no
/// verdicts).
pub fn probe(
    engine: &Engine,
    prober: &Prober,
    encoder: Option<&mut dyn Encode>,
    oracle: Option<&execscope_oracle::Oracle>,
    req: &ProbeRequest,
) -> anyhow::Result<ProbeReport> {
    let b = &engine.bundle();
    let cfg = engine.config();
    let (q, text, edited) = match &req.query {
        ProbeQuery::Text(t) => (None, t.clone(), true),
        ProbeQuery::Stored { row, text } => {
            let Some(query) = b.queries.get(*row) else {
                anyhow::bail!("query row {row} out of range");
            };
            match text {
                Some(t) => (Some(*row), t.clone(), *t != query.text),
                None => (Some(*row), query.text.clone(), false),
            }
        }
    };
    for (c, _) in &req.replace {
        if *c >= b.corpus.len() {
            anyhow::bail!("corpus row {c} out of range");
        }
    }
    let replaced_rows: Vec<usize> = req.replace.iter().map(|r| r.0).collect();
    let replaced_codes: Vec<String> = req.replace.iter().map(|r| r.1.clone()).collect();
    // Verdicts first: they decide the `pass` of replaced rows.
    let mut verdicts = Vec::new();
    if let Some(q) = q {
        for (c, code) in &req.replace {
            let stored = engine
                .cache_index()
                .outcomes(b, q, *c)
                .map(<[String]>::to_vec);
            let code_hash = execscope_core::bundle::code_sha256(code);
            let tests_hash = &engine.cache_index().tests_hash[q];
            let cached = b
                .cache
                .iter()
                .rev()
                .find(|r| r.code_sha256 == code_hash && r.tests_sha256 == *tests_hash)
                .map(|r| r.outcomes.clone());
            let v = match oracle {
                None => EditVerdict {
                    corpus_id: b.corpus[*c].id.clone(),
                    outcomes: Vec::new(),
                    passes_all: false,
                    stored_outcomes: stored.clone(),
                    cached_outcomes: cached.clone(),
                    runner: "no oracle".into(),
                },
                Some(o) => match o.run(code, &b.queries[q].tests) {
                    Ok(r) => EditVerdict {
                        corpus_id: b.corpus[*c].id.clone(),
                        outcomes: r.outcomes.iter().map(ToString::to_string).collect(),
                        passes_all: r.passes_all(),
                        stored_outcomes: stored.clone(),
                        cached_outcomes: cached.clone(),
                        runner: o.runner_string(),
                    },
                    Err(e) => EditVerdict {
                        corpus_id: b.corpus[*c].id.clone(),
                        outcomes: Vec::new(),
                        passes_all: false,
                        stored_outcomes: stored.clone(),
                        cached_outcomes: cached.clone(),
                        runner: format!("oracle error: {e}"),
                    },
                },
            };
            verdicts.push(v);
        }
    }
    let pass_after = |q: usize, c: usize| -> bool {
        match replaced_rows.iter().position(|&r| r == c) {
            Some(i) => verdicts.get(i).is_some_and(|v| v.passes_all),
            None => engine.truth().passes(q, c),
        }
    };
    let wanted = |id: &str| {
        req.systems
            .as_ref()
            .is_none_or(|l| l.iter().any(|s| s.eq_ignore_ascii_case(id)))
    };
    let mut encoder = encoder;
    let mut systems = Vec::new();
    for (si, s) in engine.scores().iter().enumerate() {
        if !wanted(&s.id) {
            continue;
        }
        let before: Option<Vec<f32>> = q.map(|q| {
            let mut r = s.row(q).to_vec();
            snap_row(&mut r, cfg.tie_eps);
            r
        });
        let after: Result<Vec<f32>, String> = if s.is_dense() {
            match prober.systems.iter().find(|l| l.score_index == si) {
                None => Err("its corpus matrix could not be read".into()),
                Some(live) => dense_after(
                    engine,
                    live,
                    q,
                    edited.then_some(text.as_str()),
                    &replaced_rows,
                    &replaced_codes,
                    encoder.as_mut().map(|e| &mut **e as &mut dyn Encode),
                ),
            }
        } else {
            Ok(bm25_after(
                engine,
                prober,
                &text,
                &replaced_rows,
                &replaced_codes,
            ))
        };
        let mut sp = SystemProbe {
            id: s.id.clone(),
            kind: if s.is_dense() { "dense" } else { "bm25" }.into(),
            status: "ok".into(),
            reason: None,
            top: Vec::new(),
            tie_groups: Vec::new(),
            tracked: Vec::new(),
            exec_before: None,
            exec_after: None,
        };
        let mut after = match after {
            Ok(a) => a,
            Err(why) => {
                sp.status = "unavailable".into();
                sp.reason = Some(why);
                systems.push(sp);
                continue;
            }
        };
        snap_row(&mut after, cfg.tie_eps);
        let order = top_k(&after, req.depth);
        let sizes = execscope_core::rank::ties::group_sizes(&after, &order);
        for (i, (&c, tie)) in order.iter().zip(&sizes).enumerate() {
            let c = c as usize;
            sp.top.push(ProbeHit {
                rank: i + 1,
                corpus_id: b.corpus[c].id.clone(),
                row: c,
                score: after[c],
                tie: *tie,
                replaced: replaced_rows.contains(&c),
                pass: q.map(|q| pass_after(q, c)),
            });
        }
        sp.tie_groups = execscope_core::rank::ties::groups_of_prefix(&after, &order)
            .into_iter()
            .filter(|g| g.len > 1)
            .map(|g| (g.start + 1, g.len))
            .collect();
        if let (Some(q), Some(before)) = (q, before.as_ref()) {
            let query = &b.queries[q];
            let mut rows: Vec<(usize, &str)> = Vec::new();
            for &c in &query.correct {
                rows.push((c, "canonical"));
            }
            for &c in &query.paired {
                rows.push((c, "distractor"));
            }
            for &c in &replaced_rows {
                if !rows.iter().any(|r| r.0 == c) {
                    rows.push((c, "other"));
                }
            }
            let pool: Vec<usize> = rows.iter().map(|r| r.0).collect();
            for &(c, role) in &rows {
                let (rb, tb) = policy_rank(before, c, cfg.policy);
                let (ra, ta) = policy_rank(&after, c, cfg.policy);
                sp.tracked.push(Tracked {
                    corpus_id: b.corpus[c].id.clone(),
                    row: c,
                    role: role.into(),
                    replaced: replaced_rows.contains(&c),
                    score_before: before[c],
                    score_after: after[c],
                    rank_before: rb,
                    rank_after: ra,
                    pool_rank_before: policy_rank_in(before, c, cfg.policy, pool.iter().copied()).0,
                    pool_rank_after: policy_rank_in(&after, c, cfg.policy, pool.iter().copied()).0,
                    tie_before: tb,
                    tie_after: ta,
                });
            }
            let one = EvalConfig {
                ks: vec![req.k.max(1)],
                policy: cfg.policy,
                tie_eps: 0.0,
            };
            let passing_before = engine.truth().passing(q);
            let mut passing_after: Vec<u32> = passing_before
                .iter()
                .copied()
                .filter(|&c| !replaced_rows.contains(&(c as usize)))
                .collect();
            for &c in &replaced_rows {
                if pass_after(q, c) {
                    passing_after.push(c as u32);
                }
            }
            passing_after.sort_unstable();
            let rel = engine.truth().relevant(q);
            sp.exec_before = Some(eval_query(before, passing_before, rel, &one).exec[0]);
            sp.exec_after = Some(eval_query(&after, &passing_after, rel, &one).exec[0]);
        }
        systems.push(sp);
    }
    Ok(ProbeReport {
        query_id: q.map(|q| b.queries[q].id.clone()),
        query_text: text,
        query_edited: edited && q.is_some(),
        k: req.k,
        ties: cfg.policy.to_string(),
        tie_eps: cfg.tie_eps,
        systems,
        verdicts,
    })
}

/// A dense system's score row after the edits. A replacement whose text is byte-identical to a
/// stored snippet takes that snippet's stored vector (so its score is the stored one), not a
/// fresh encoding: the model run here can differ from the one that built the bundle in the last
/// digits, and the same text must rank the same. Only new texts reach the model.
fn dense_after(
    engine: &Engine,
    live: &LiveSystem,
    q: Option<usize>,
    new_text: Option<&str>,
    rows: &[usize],
    codes: &[String],
    encoder: Option<&mut dyn Encode>,
) -> Result<Vec<f32>, String> {
    let corpus = &engine.bundle().corpus;
    let twin = |code: &str| corpus.iter().position(|s| s.code == code);
    let twins: Vec<Option<usize>> = codes.iter().map(|c| twin(c)).collect();
    let fresh: Vec<String> = codes
        .iter()
        .zip(&twins)
        .filter(|(_, t)| t.is_none())
        .map(|(c, _)| c.clone())
        .collect();
    let with_twins = |base: Vec<f32>, fresh_scores: Vec<f32>| -> Vec<f32> {
        let mut row = base.clone();
        let mut fresh_scores = fresh_scores.into_iter();
        for (&c, t) in rows.iter().zip(&twins) {
            row[c] = match t {
                Some(j) => base[*j],
                None => fresh_scores.next().expect("one score per fresh text"),
            };
        }
        row
    };
    if new_text.is_none() && fresh.is_empty() {
        let q = q.expect("an unedited probe is of a stored query");
        let base = engine.scores()[live.score_index].row(q).to_vec();
        return Ok(with_twins(base, Vec::new()));
    }
    let spec = live.model.clone()?;
    let Some(enc) = encoder else {
        return Err(format!(
            "model {} is not loaded (no embedding environment)",
            spec.model
        ));
    };
    let fail = |e: anyhow::Error| format!("model {}: {e:#}", spec.model);
    let qv: Array2<f32> = match (new_text, q) {
        (Some(t), _) => enc
            .encode(&spec, Role::Query, &[t.to_string()])
            .map_err(fail)?,
        (None, Some(q)) => {
            let sys = engine
                .bundle()
                .systems
                .iter()
                .find(|s| s.id == live.id)
                .ok_or("no query matrix")?;
            sys.queries.row(q).insert_axis(Axis(0)).to_owned()
        }
        (None, None) => return Err("nothing to rank".into()),
    };
    if qv.ncols() != live.corpus.ncols() {
        return Err(format!(
            "model {} gives {} dimensions, the stored matrix has {}",
            spec.model,
            qv.ncols(),
            live.corpus.ncols()
        ));
    }
    // Fresh rows: scored like stored ones (the tiled product of the ranking code).
    let fresh_scores = if fresh.is_empty() {
        Vec::new()
    } else {
        let nr = enc.encode(&spec, Role::Passage, &fresh).map_err(fail)?;
        dense_scores(&DenseSystem {
            id: live.id.clone(),
            similarity: live.similarity,
            queries: qv.clone(),
            corpus: nr,
            invocation: None,
        })
        .row(0)
        .to_vec()
    };
    let base = match (new_text, q) {
        // Query unchanged: its stored row.
        (None, Some(q)) => engine.scores()[live.score_index].row(q).to_vec(),
        _ => live.score_vector(qv.row(0)),
    };
    Ok(with_twins(base, fresh_scores))
}

/// BM25's score row after the edits (the corpus re-indexed when snippets changed).
fn bm25_after(
    engine: &Engine,
    prober: &Prober,
    text: &str,
    rows: &[usize],
    codes: &[String],
) -> Vec<f32> {
    let fresh;
    let index = match (&prober.bm25, rows.is_empty()) {
        (Some(ix), true) => ix,
        _ => {
            let mut docs: Vec<&str> = engine
                .bundle()
                .corpus
                .iter()
                .map(|c| c.code.as_str())
                .collect();
            for (&c, code) in rows.iter().zip(codes) {
                docs[c] = code;
            }
            let languages: Vec<_> = engine.bundle().corpus.iter().map(|c| c.language).collect();
            fresh = Bm25Index::with_languages(&docs, &languages);
            &fresh
        }
    };
    index
        .score_text(text)
        .into_iter()
        .map(|s| s as f32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_under_each_policy() {
        // Scores: row 1 alone on top, rows 0, 2, 3 tied, row 4 last.
        let row = [0.5f32, 0.9, 0.5, 0.5, 0.1];
        assert_eq!(policy_rank(&row, 2, TiePolicy::Row), (3.0, 3));
        assert_eq!(policy_rank(&row, 2, TiePolicy::Optimistic), (2.0, 3));
        assert_eq!(policy_rank(&row, 2, TiePolicy::Pessimistic), (4.0, 3));
        assert_eq!(policy_rank(&row, 2, TiePolicy::Expected), (3.0, 3));
        assert_eq!(policy_rank(&row, 1, TiePolicy::Expected), (1.0, 1));
        assert_eq!(policy_rank(&row, 4, TiePolicy::Row), (5.0, 1));
        // Among a pool of rows 2 and 4 only.
        assert_eq!(policy_rank_in(&row, 4, TiePolicy::Row, [2, 4]).0, 2.0);
    }
}
