//! Export to the IR toolbox (`docs/systems.md`): TREC qrels from execscope's PASS truth and one
//! TREC run per system whose scores encode the tie policy's order exactly.
//!
//! trec_eval (and pytrec_eval) read a run's scores at single precision and order equal scores
//! by document id, so cosines written as they are may tie or reorder there. The runs written
//! here carry small descending integers instead: under `row`, `pessimistic` and `optimistic`
//! every snippet gets its own (n, n − 1, …, in the policy's order), so any reader sees exactly
//! execscope's order. Under `expected` no single run can reproduce the metrics: a tie group's
//! expected value is an average over the group's orders, and a tool breaks ties one way (by
//! document id, on this corpus the pessimistic one). The runs are then written in the
//! `pessimistic` order, which they reproduce exactly (`report --ties pessimistic`, the lower
//! bound of the expected value), and `expected/<system>.json` holds the per-query expected
//! values `report` averages, in pytrec_eval's `evaluate()` shape; the manifest says which
//! file reproduces which number.
//!
//! Graded qrels (`qrels.graded.txt`) follow execution-labelled code-retrieval benchmarks: 2 for a
//! snippet that passes the query's tests, 1 for a failing distractor of the query's own task (a
//! paired distractor, or a snippet built from the same task entry), 0 for any other judged pair.
//! Read with pytrec_eval's `relevance_level=2`, the binary measures see exactly the pass qrels;
//! graded measures (nDCG) credit a near miss above an unrelated snippet.

use crate::bundle::{Bundle, Query, Snippet};
use crate::metrics::{EvalConfig, PassSource, SystemEval, TiePolicy, Truth};
use crate::rank::{full_order, ties::snap_row, SystemScores};
use anyhow::{bail, Context};
use serde_json::json;
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::path::Path;

/// File names inside the export directory.
pub const QRELS_PASS: &str = "qrels.pass.txt";
pub const QRELS_RELEVANT: &str = "qrels.relevant.txt";
pub const QRELS_GRADED: &str = "qrels.graded.txt";
pub const LABEL_FALLBACKS: &str = "label-fallbacks.tsv";
pub const MANIFEST: &str = "manifest.json";
pub const RUNS: &str = "runs";
pub const EXPECTED: &str = "expected";

/// What an export wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportSummary {
    /// Files written, relative to the export directory.
    pub files: Vec<String>,
    /// (query, snippet) verdicts in `qrels.pass.txt` that came from the label fallback.
    pub label_fallbacks: usize,
    /// Judged (query, snippet) pairs in `qrels.pass.txt`.
    pub judged: usize,
    /// The order the runs are written in: the policy's own, or `pessimistic` under `expected`
    /// (which has no single order).
    pub run_policy: TiePolicy,
}

/// The order a run is written in under `policy`: its own, or `pessimistic` for `expected`.
pub fn run_policy(policy: TiePolicy) -> TiePolicy {
    match policy {
        TiePolicy::Expected => TiePolicy::Pessimistic,
        p => p,
    }
}

/// trec_eval's names of execscope's per-query values, as pytrec_eval's `evaluate()` keys them
/// (`success_1`, `P_1`, `ndcg_cut_1`, …, `recip_rank`).
fn expected_values(eval: &SystemEval, queries: &[Query], ks: &[usize]) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for (q, v) in queries.iter().zip(&eval.per_query) {
        let mut m = serde_json::Map::new();
        for (ki, k) in ks.iter().enumerate() {
            m.insert(format!("success_{k}"), json!(v.exec[ki]));
            m.insert(format!("P_{k}"), json!(v.execp[ki]));
            m.insert(format!("ndcg_cut_{k}"), json!(v.ndcg[ki]));
        }
        m.insert("recip_rank".into(), json!(v.mrr));
        out.insert(q.id.clone(), serde_json::Value::Object(m));
    }
    serde_json::Value::Object(out)
}

/// A ranking of one query under a policy: corpus rows in order, and each row's integer score.
pub fn policy_run(row: &[f32], targets: &[u32], policy: TiePolicy) -> Vec<(u32, u64)> {
    let n = row.len();
    let is_target = |c: u32| targets.binary_search(&c).is_ok();
    let order: Vec<u32> = match policy {
        TiePolicy::Row | TiePolicy::Expected => full_order(row),
        TiePolicy::Pessimistic | TiePolicy::Optimistic => {
            let first = policy == TiePolicy::Optimistic;
            let mut idx: Vec<u32> = (0..n as u32).collect();
            idx.sort_unstable_by(|&a, &b| {
                row[b as usize]
                    .total_cmp(&row[a as usize])
                    .then_with(|| match (is_target(a), is_target(b)) {
                        (x, y) if x == y => Ordering::Equal,
                        (true, false) if first => Ordering::Less,
                        (false, true) if first => Ordering::Greater,
                        (true, false) => Ordering::Greater,
                        _ => Ordering::Less,
                    })
                    .then_with(|| a.cmp(&b))
            });
            idx
        }
    };
    if policy == TiePolicy::Expected {
        // Number the tie groups from the top; the best group gets the largest integer.
        let mut groups = Vec::with_capacity(n);
        let mut g = 0u64;
        for (i, &c) in order.iter().enumerate() {
            if i > 0 && row[c as usize] != row[order[i - 1] as usize] {
                g += 1;
            }
            groups.push(g);
        }
        let top = g + 1;
        order
            .into_iter()
            .zip(groups)
            .map(|(c, g)| (c, top - g))
            .collect()
    } else {
        order
            .into_iter()
            .enumerate()
            .map(|(i, c)| (c, (n - i) as u64))
            .collect()
    }
}

/// Whether corpus row `c` belongs to the query's own task: one of its paired distractors, or a
/// snippet built from the same task entry.
fn same_task(query: &Query, snippet: &Snippet, c: usize) -> bool {
    query.paired.contains(&c)
        || (!query.entry_id.is_empty() && snippet.source_entry_id == query.entry_id)
}

fn ids_are_plain(bundle: &Bundle) -> anyhow::Result<()> {
    let bad = |s: &str| s.is_empty() || s.chars().any(char::is_whitespace);
    if let Some(q) = bundle.queries.iter().find(|q| bad(&q.id)) {
        bail!(
            "query id {:?} cannot be written in a TREC file (empty or with whitespace)",
            q.id
        );
    }
    if let Some(s) = bundle.corpus.iter().find(|s| bad(&s.id)) {
        bail!(
            "snippet id {:?} cannot be written in a TREC file (empty or with whitespace)",
            s.id
        );
    }
    Ok(())
}

fn write(dir: &Path, rel: &str, text: &str, files: &mut Vec<String>) -> anyhow::Result<()> {
    let path = dir.join(rel);
    execscope_record::atomic::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    files.push(rel.to_string());
    Ok(())
}

/// The run file's name of a system (ids are file stems already; BM25 is `BM25`).
pub fn run_name(id: &str) -> String {
    format!("{RUNS}/{id}.run")
}

/// Write the qrels, the label-fallback side file, one run per system (plus an nDCG run where
/// the policy orders relevant snippets differently from passing ones) and a manifest into
/// `dir`; under `expected` ties, the runs in the pessimistic order and each system's per-query
/// expected values (`evals`, parallel to `scores`, computed under `cfg`) beside them. `depth`
/// cuts every run to its first `depth` snippets per query (all by default).
pub fn export_trec(
    bundle: &Bundle,
    truth: &Truth,
    scores: &[SystemScores],
    evals: &[SystemEval],
    cfg: &EvalConfig,
    dir: &Path,
    depth: Option<usize>,
) -> anyhow::Result<ExportSummary> {
    let policy = run_policy(cfg.policy);
    let expected = cfg.policy == TiePolicy::Expected;
    if expected && evals.len() != scores.len() {
        bail!(
            "{} evaluations for {} systems: the expected values need one per system",
            evals.len(),
            scores.len()
        );
    }
    ids_are_plain(bundle)?;
    if depth == Some(0) {
        bail!("--depth must be at least 1");
    }
    let mut files = Vec::new();
    let (nq, nc) = (bundle.queries.len(), bundle.corpus.len());

    // qrels: every pair with a verdict (cache rows, and label-fallback passes).
    let (mut pass, mut relevant, mut fallback) = (String::new(), String::new(), String::new());
    let mut graded = String::new();
    fallback.push_str("query_id\tcorpus_id\tverdict\n");
    let (mut judged, mut fallbacks) = (0usize, 0usize);
    for (q, query) in bundle.queries.iter().enumerate() {
        for c in 0..nc {
            let cached = truth.source(q, c) == PassSource::Cache;
            let passes = truth.passes(q, c);
            let grade = match (passes, same_task(query, &bundle.corpus[c], c)) {
                (true, _) => Some(2),
                (false, true) => Some(1),
                (false, false) => cached.then_some(0),
            };
            if let Some(g) = grade {
                let _ = writeln!(graded, "{} 0 {} {g}", query.id, bundle.corpus[c].id);
            }
            if cached || passes {
                let _ = writeln!(
                    pass,
                    "{} 0 {} {}",
                    query.id,
                    bundle.corpus[c].id,
                    u8::from(passes)
                );
                judged += 1;
            }
            if !cached && passes {
                fallbacks += 1;
                let _ = writeln!(fallback, "{}\t{}\tpass", query.id, bundle.corpus[c].id);
            }
        }
        for &c in truth.relevant(q) {
            let _ = writeln!(
                relevant,
                "{} 0 {} 1",
                query.id, bundle.corpus[c as usize].id
            );
        }
    }
    write(dir, QRELS_PASS, &pass, &mut files)?;
    write(dir, QRELS_RELEVANT, &relevant, &mut files)?;
    write(dir, QRELS_GRADED, &graded, &mut files)?;
    write(dir, LABEL_FALLBACKS, &fallback, &mut files)?;

    let cut = depth.unwrap_or(nc).min(nc);
    let mut systems = Vec::new();
    for s in scores {
        let tag = s.id.replace(char::is_whitespace, "_");
        let (mut run, mut ndcg_run) = (String::new(), String::new());
        let mut ndcg_differs = false;
        for (q, query) in bundle.queries.iter().enumerate().take(nq) {
            let mut snapped;
            let mut row = s.row(q);
            if cfg.tie_eps > 0.0 {
                snapped = row.to_vec();
                snap_row(&mut snapped, cfg.tie_eps);
                row = &snapped;
            }
            let by_pass = policy_run(row, truth.passing(q), policy);
            // Only the target-aware policies can order relevant snippets differently.
            let by_rel = match policy {
                TiePolicy::Pessimistic | TiePolicy::Optimistic => {
                    policy_run(row, truth.relevant(q), policy)
                }
                TiePolicy::Row | TiePolicy::Expected => Vec::new(),
            };
            ndcg_differs |= !by_rel.is_empty() && by_pass != by_rel;
            for (out, list) in [(&mut run, &by_pass), (&mut ndcg_run, &by_rel)] {
                for (i, &(c, v)) in list.iter().take(cut).enumerate() {
                    let _ = writeln!(
                        out,
                        "{} Q0 {} {} {v} {tag}",
                        query.id,
                        bundle.corpus[c as usize].id,
                        i + 1
                    );
                }
            }
        }
        let name = run_name(&s.id);
        write(dir, &name, &run, &mut files)?;
        let ndcg_name = if ndcg_differs {
            let n = format!("{RUNS}/{}.ndcg.run", s.id);
            write(dir, &n, &ndcg_run, &mut files)?;
            n
        } else {
            name.clone()
        };
        let mut entry = json!({ "id": s.id, "run": name, "ndcg_run": ndcg_name });
        if expected {
            let e = evals
                .iter()
                .find(|e| e.id == s.id)
                .with_context(|| format!("no evaluation of system {}", s.id))?;
            let rel = format!("{EXPECTED}/{}.json", s.id);
            let mut text =
                serde_json::to_string_pretty(&expected_values(e, &bundle.queries, &cfg.ks))?;
            text.push('\n');
            write(dir, &rel, &text, &mut files)?;
            entry["expected"] = json!(rel);
        }
        systems.push(entry);
    }
    let ks: Vec<String> = cfg.ks.iter().map(ToString::to_string).collect();
    let ks = ks.join(",");
    let runs_reproduce = format!(
        "execscope report --ties {policy}{} --ks {}",
        if cfg.tie_eps > 0.0 {
            format!(" --tie-eps {}", cfg.tie_eps)
        } else {
            String::new()
        },
        ks
    );
    let cut = |full: &str| {
        match depth {
        Some(d) => format!("{full} (runs cut at depth {d}: exact for k ≤ {d}; recip_rank is 0 where the first passing snippet lies deeper)"),
        None => full.to_string(),
    }
    };
    let measure = |metric: &str, tool: String, qrels: &str, run: &str, key: &str| {
        let mut m = json!({
            "trec_eval": tool,
            "qrels": qrels,
            "run": run,
            "reproduces": cut(&format!("{metric} of `{runs_reproduce}`, per query and mean")),
        });
        if expected {
            m["report_value"] = json!(format!(
                "{metric} of `execscope report` (ties expected): no single run reproduces it; the \
                 per-query values are the `{key}` entries of the system's expected file"
            ));
        }
        m
    };
    let mut manifest = json!({
        "policy": cfg.policy.as_str(),
        "tie_eps": cfg.tie_eps,
        "ks": cfg.ks,
        "depth": depth,
        "runs": {
            "order": policy.as_str(),
            "reproduce": runs_reproduce,
            "scores": "each snippet's own integer, n down to 1 in the order's ranking, so every tool reads execscope's order",
        },
        "qrels": {
            "pass": QRELS_PASS,
            "relevant": QRELS_RELEVANT,
            "graded": QRELS_GRADED,
        },
        "graded_levels": {
            "2": "passes the query's tests",
            "1": "a failing distractor of the query's own task (paired, or built from the same task entry)",
            "0": "any other judged pair",
            "binary_measures": "read with relevance_level=2, qrels.graded.txt gives the same success, P and recip_rank as qrels.pass.txt",
        },
        "label_fallbacks": {
            "file": LABEL_FALLBACKS,
            "pairs": fallbacks,
            "meaning": "verdicts in qrels.pass.txt decided by the canonical label because the pair was never executed",
        },
        "judged_pairs": judged,
        "measures": {
            "exec@k": measure("exec@k", format!("success.{ks}"), QRELS_PASS, "systems[].run", "success_k"),
            "execp@k": measure("execp@k", format!("P.{ks}"), QRELS_PASS, "systems[].run", "P_k"),
            "mrr": measure("mrr", "recip_rank".into(), QRELS_PASS, "systems[].run", "recip_rank"),
            "ndcg@k": measure("ndcg@k", format!("ndcg_cut.{ks}"), QRELS_RELEVANT, "systems[].ndcg_run", "ndcg_cut_k"),
        },
        "systems": systems,
    });
    if expected {
        manifest["expected_values"] = json!({
            "why": "under expected ties a snippet tied with others counts with its expected value over the tie group's orders, an average no single run can have: trec_eval, pytrec_eval and ranx break each tie one way, so the runs are written in the pessimistic order (the lower bound) and the expected values beside them",
            "dir": EXPECTED,
            "shape": "pytrec_eval's RelevanceEvaluator.evaluate(): {query_id: {measure: value}}, one file per system (systems[].expected)",
            "reproduces": format!("execscope report --ks {ks}: every per-query value, and the leaderboard's numbers as their means"),
        });
    }
    let mut text = serde_json::to_string_pretty(&manifest)?;
    text.push('\n');
    write(dir, MANIFEST, &text, &mut files)?;
    Ok(ExportSummary {
        files,
        label_fallbacks: fallbacks,
        judged,
        run_policy: policy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_encode_each_policy() {
        // rows 0..5; scores 0.9, 0.5, 0.5, 0.5, 0.1; row 2 is the target.
        let row = [0.9f32, 0.5, 0.5, 0.5, 0.1];
        let rows = |p| -> Vec<u32> { policy_run(&row, &[2], p).iter().map(|x| x.0).collect() };
        assert_eq!(rows(TiePolicy::Row), vec![0, 1, 2, 3, 4]);
        assert_eq!(rows(TiePolicy::Pessimistic), vec![0, 1, 3, 2, 4]);
        assert_eq!(rows(TiePolicy::Optimistic), vec![0, 2, 1, 3, 4]);
        let scores: Vec<u64> = policy_run(&row, &[2], TiePolicy::Row)
            .iter()
            .map(|x| x.1)
            .collect();
        assert_eq!(scores, vec![5, 4, 3, 2, 1]);
        let expected: Vec<u64> = policy_run(&row, &[2], TiePolicy::Expected)
            .iter()
            .map(|x| x.1)
            .collect();
        assert_eq!(expected, vec![3, 2, 2, 2, 1]);
    }

    /// A one-query bundle: snippets `(id, source entry)`, the query's task entry `t`, its
    /// canonical row 0 and the given paired distractors.
    fn one_query(snippets: &[(&str, &str)], paired: Vec<usize>) -> Bundle {
        use crate::bundle::Label;
        let snippet = |(id, entry): &(&str, &str)| Snippet {
            id: (*id).into(),
            code: String::new(),
            label: Label::Correct,
            bug_type: None,
            source_entry_id: (*entry).into(),
            language: Default::default(),
            extra: Default::default(),
        };
        Bundle {
            queries: vec![Query {
                id: "q".into(),
                text: String::new(),
                tests: vec![],
                correct: vec![0],
                paired,
                entry_id: "t".into(),
                domain: String::new(),
                function_name: String::new(),
                language: Default::default(),
                metadata: serde_json::Value::Null,
                extra: Default::default(),
            }],
            corpus: snippets.iter().map(snippet).collect(),
            ..Bundle::default()
        }
    }

    /// One system `s` scoring the query's snippets `row`.
    fn system(row: ndarray::Array1<f32>) -> SystemScores {
        SystemScores {
            id: "s".into(),
            similarity: crate::rank::Scoring::Bundle(crate::bundle::Similarity::Score),
            scores: row.insert_axis(ndarray::Axis(0)).into(),
        }
    }

    /// A tie between a relevant snippet that fails and a passing one that is not relevant:
    /// the pessimistic order differs by target set, so an nDCG run of its own is written.
    #[test]
    fn a_separate_ndcg_run_where_the_orders_differ() {
        use std::collections::HashMap;
        let bundle = one_query(&[("a", ""), ("b", ""), ("c", "")], vec![]);
        let truth = Truth::from_parts(vec![HashMap::from([(0, false), (1, true)])], vec![vec![0]]);
        let scores = system(ndarray::array![0.5f32, 0.5, 0.1]);
        let dir = tempfile::tempdir().unwrap();
        let cfg = EvalConfig {
            policy: TiePolicy::Pessimistic,
            ..EvalConfig::default()
        };
        let sum = export_trec(&bundle, &truth, &[scores], &[], &cfg, dir.path(), None).unwrap();
        assert!(sum.files.contains(&"runs/s.ndcg.run".to_string()));
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_eq!(
            read("runs/s.run"),
            "q Q0 a 1 3 s\nq Q0 b 2 2 s\nq Q0 c 3 1 s\n"
        );
        assert_eq!(
            read("runs/s.ndcg.run"),
            "q Q0 b 1 3 s\nq Q0 a 2 2 s\nq Q0 c 3 1 s\n"
        );
        assert_eq!(read("qrels.pass.txt"), "q 0 a 0\nq 0 b 1\n");
        assert_eq!(read("qrels.relevant.txt"), "q 0 a 1\n");
        assert_eq!(sum.label_fallbacks, 0);
    }

    /// Graded qrels by hand: a passes (2); b is the task's own failing mutant and e its paired
    /// distractor with no verdict (1); c is another task's judged failure (0); d has no verdict
    /// and is not of the task (absent).
    #[test]
    fn graded_qrels_grade_passes_near_misses_and_the_rest() {
        use std::collections::HashMap;
        let rows = [("a", "t"), ("b", "t"), ("c", "u"), ("d", "u"), ("e", "v")];
        let bundle = one_query(&rows, vec![4]);
        let verdicts = HashMap::from([(0, true), (1, false), (2, false)]);
        let truth = Truth::from_parts(vec![verdicts], vec![vec![0]]);
        let scores = system(ndarray::array![0.5f32, 0.4, 0.3, 0.2, 0.1]);
        let dir = tempfile::tempdir().unwrap();
        let cfg = EvalConfig {
            policy: TiePolicy::Row,
            ..EvalConfig::default()
        };
        let sum = export_trec(&bundle, &truth, &[scores], &[], &cfg, dir.path(), None).unwrap();
        assert!(sum.files.contains(&QRELS_GRADED.to_string()));
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_eq!(read(QRELS_GRADED), "q 0 a 2\nq 0 b 1\nq 0 c 0\nq 0 e 1\n");
        assert_eq!(read(QRELS_PASS), "q 0 a 1\nq 0 b 0\nq 0 c 0\n");
    }

    /// Under `expected` the runs are written in the pessimistic order and every system's
    /// per-query expected values beside them, the manifest saying which reproduces what.
    #[test]
    fn expected_ties_write_pessimistic_runs_and_the_expected_values() {
        use std::collections::HashMap;
        let bundle = one_query(&[("a", ""), ("b", ""), ("c", "")], vec![]);
        // a and b tie; b passes: exec@1 is 1/2 under expected, 0 under pessimistic.
        let truth = Truth::from_parts(vec![HashMap::from([(0, false), (1, true)])], vec![vec![1]]);
        let scores = system(ndarray::array![0.5f32, 0.5, 0.1]);
        let cfg = EvalConfig::default();
        assert_eq!(cfg.policy, TiePolicy::Expected);
        let evals = crate::metrics::evaluate(&bundle, &truth, &scores, &cfg);
        assert_eq!(evals.per_query[0].exec[0], 0.5);
        let dir = tempfile::tempdir().unwrap();
        let sum =
            export_trec(&bundle, &truth, &[scores], &[evals], &cfg, dir.path(), None).unwrap();
        assert_eq!(sum.run_policy, TiePolicy::Pessimistic);
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_eq!(
            read("runs/s.run"),
            "q Q0 a 1 3 s\nq Q0 b 2 2 s\nq Q0 c 3 1 s\n"
        );
        let e: serde_json::Value = serde_json::from_str(&read("expected/s.json")).unwrap();
        assert_eq!(e["q"]["success_1"], json!(0.5));
        assert_eq!(e["q"]["recip_rank"], json!(0.75));
        let m: serde_json::Value = serde_json::from_str(&read(MANIFEST)).unwrap();
        assert_eq!(m["policy"], "expected");
        assert_eq!(m["runs"]["order"], "pessimistic");
        assert_eq!(m["systems"][0]["expected"], "expected/s.json");
        assert!(m["measures"]["exec@k"]["report_value"]
            .as_str()
            .unwrap()
            .contains("no single run reproduces it"));
    }
}
