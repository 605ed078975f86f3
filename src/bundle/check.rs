//! `check`: run every validation on a bundle directory and record each result, never stopping at
//! the first failure (the analogue of the release's sanity script).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use super::derive::encoding;
use super::embed::{load_system, parse_similarity, Expect};
use super::error::BundleError;
use super::files::{self, CACHE, CORPUS, DISTRACTORS, INVOCATION, QUERIES, SUMS};
use super::load::{derive_fields, detect_encoding, invocation_table, npz_files, optional_rows};
use super::model::{code_sha256, DistractorMeta, ExecRecord, Label, Query, Similarity, Snippet};
use super::parse;

/// Outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Pass => "PASS",
            CheckStatus::Warn => "WARN",
            CheckStatus::Fail => "FAIL",
        }
    }
}

/// One recorded check.
#[derive(Clone, Debug)]
pub struct CheckItem {
    pub name: String,
    pub status: CheckStatus,
    pub detail: String,
}

/// Every check run on a bundle, in order.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    pub root: PathBuf,
    pub items: Vec<CheckItem>,
}

impl CheckReport {
    /// True when no check failed (warnings allowed).
    pub fn is_ok(&self) -> bool {
        self.items.iter().all(|i| i.status != CheckStatus::Fail)
    }

    /// The item of a check by name.
    pub fn get(&self, name: &str) -> Option<&CheckItem> {
        self.items.iter().find(|i| i.name == name)
    }

    fn push(&mut self, name: impl Into<String>, status: CheckStatus, detail: impl Into<String>) {
        self.items.push(CheckItem {
            name: name.into(),
            status,
            detail: detail.into(),
        });
    }

    /// Record pass when `problems` is empty, else `bad` with the first few problems.
    fn list(&mut self, name: &str, bad: CheckStatus, ok: String, problems: Vec<String>) {
        if problems.is_empty() {
            self.push(name, CheckStatus::Pass, ok);
        } else {
            let mut d = format!("{} problem(s): ", problems.len());
            d.push_str(
                &problems
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; "),
            );
            if problems.len() > 5 {
                d.push_str(&format!("; … {} more", problems.len() - 5));
            }
            self.push(name, bad, d);
        }
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .items
            .iter()
            .map(|i| i.name.chars().count())
            .max()
            .unwrap_or(0);
        writeln!(f, "bundle check: {}", self.root.display())?;
        for i in &self.items {
            writeln!(
                f,
                "{:<4}  {:<width$}  {}",
                i.status.as_str(),
                i.name,
                i.detail
            )?;
        }
        let count = |s| self.items.iter().filter(|i| i.status == s).count();
        write!(
            f,
            "{} checks: {} pass, {} warn, {} fail",
            self.items.len(),
            count(CheckStatus::Pass),
            count(CheckStatus::Warn),
            count(CheckStatus::Fail)
        )
    }
}

/// Run every check on the bundle at `root`.
pub fn check(root: &Path) -> CheckReport {
    let mut r = CheckReport {
        root: root.to_path_buf(),
        items: Vec::new(),
    };
    use CheckStatus::*;

    // Presence.
    let missing_req: Vec<&str> = [QUERIES, CORPUS]
        .into_iter()
        .filter(|f| !root.join(f).is_file())
        .collect();
    let missing_opt: Vec<&str> = [DISTRACTORS, CACHE, INVOCATION, SUMS]
        .into_iter()
        .filter(|f| !root.join(f).is_file())
        .collect();
    let systems = npz_files(root).unwrap_or_default();
    if !missing_req.is_empty() {
        r.push(
            "files present",
            Fail,
            format!("missing: {}", missing_req.join(", ")),
        );
    } else if !missing_opt.is_empty() || systems.is_empty() {
        let mut m = missing_opt.join(", ");
        if systems.is_empty() {
            m.push_str(if m.is_empty() {
                "embeddings/*.npz"
            } else {
                ", embeddings/*.npz"
            });
        }
        r.push("files present", Warn, format!("optional files absent: {m}"));
    } else {
        r.push(
            "files present",
            Pass,
            format!("all files present, {} systems", systems.len()),
        );
    }

    // Checksums.
    if root.join(SUMS).is_file() {
        match files::verify_sums(root) {
            Ok(p) => {
                let listed: HashSet<String> = std::fs::read(root.join(SUMS))
                    .ok()
                    .and_then(|b| files::parse_sums(&root.join(SUMS), &b).ok())
                    .map(|v| v.into_iter().map(|(n, _, _)| n).collect())
                    .unwrap_or_default();
                let n = listed.len();
                let unlisted: Vec<String> = files::list_files(root)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|f| {
                        // Only the bundle layout's directories; notes beside the data are not data.
                        ["data/", "embeddings/", "results/", "tests/"]
                            .iter()
                            .any(|d| f.starts_with(d))
                            && !listed.contains(f)
                    })
                    .collect();
                if p.is_empty() && !unlisted.is_empty() {
                    r.push(
                        "sha256 sums",
                        Warn,
                        format!("{n} files verified; not listed: {}", unlisted.join(", ")),
                    );
                } else {
                    r.list("sha256 sums", Fail, format!("{n} files verified"), p);
                }
            }
            Err(e) => r.push("sha256 sums", Fail, e.to_string()),
        }
    } else {
        r.push(
            "sha256 sums",
            Warn,
            format!("no {SUMS}; integrity not verified"),
        );
    }

    // Parse the jsonl tables.
    let mut sha = BTreeMap::new();
    let qpath = root.join(QUERIES);
    let cpath = root.join(CORPUS);
    let raw_q = match files::read(&qpath)
        .and_then(|b| files::jsonl(&qpath, &b))
        .and_then(|rows| parse::queries(&qpath, rows))
    {
        Ok(q) => {
            r.push(
                format!("parse {QUERIES}"),
                Pass,
                format!("{} queries", q.len()),
            );
            Some(q)
        }
        Err(e) => {
            r.push(format!("parse {QUERIES}"), Fail, e.to_string());
            None
        }
    };
    let corpus = match files::read(&cpath)
        .and_then(|b| files::jsonl(&cpath, &b))
        .and_then(|rows| parse::corpus(&cpath, rows))
    {
        Ok(c) => {
            r.push(
                format!("parse {CORPUS}"),
                Pass,
                format!("{} snippets", c.len()),
            );
            Some(c)
        }
        Err(e) => {
            r.push(format!("parse {CORPUS}"), Fail, e.to_string());
            None
        }
    };
    let distractors: Vec<DistractorMeta> = optional_typed(&mut r, root, DISTRACTORS, &mut sha);
    let cache: Vec<ExecRecord> = optional_typed(&mut r, root, CACHE, &mut sha);
    let table = match invocation_table(root, &mut sha) {
        Ok(t) => {
            if root.join(INVOCATION).is_file() {
                r.push(
                    format!("parse {INVOCATION}"),
                    Pass,
                    format!("{} entries", t.len()),
                );
            }
            t
        }
        Err(e) => {
            r.push(format!("parse {INVOCATION}"), Fail, e.to_string());
            HashMap::new()
        }
    };

    if let Some(raw_q) = &raw_q {
        let dups = parse::duplicate_queries(&qpath, raw_q);
        r.list(
            "unique query ids",
            Fail,
            format!("{} ids", raw_q.len()),
            strings(dups),
        );
    }
    let (Some(raw_q), Some(corpus_rows)) = (raw_q, corpus) else {
        return r;
    };
    let (index, dups) = parse::corpus_index(&cpath, &corpus_rows);
    r.list(
        "unique corpus ids",
        Fail,
        format!("{} ids", corpus_rows.len()),
        strings(dups),
    );
    let (mut queries, errs) = parse::resolve(&qpath, &raw_q, &corpus_rows, &index);
    let (dangling, labels): (Vec<_>, Vec<_>) = errs
        .into_iter()
        .partition(|e| matches!(e, BundleError::DanglingId { .. }));
    r.list(
        "dangling ids",
        Fail,
        "every listed id exists".into(),
        strings(dangling),
    );
    r.list(
        "labels",
        Fail,
        "correct ids labelled correct, distractors incorrect".into(),
        strings(labels),
    );
    let corpus: Vec<Snippet> = corpus_rows.into_iter().map(|(_, s)| s).collect();
    derive_fields(&mut queries, &corpus);
    relations(&mut r, &queries);
    let no_domain = queries.iter().filter(|q| q.domain.is_empty()).count();
    let no_fn = queries
        .iter()
        .filter(|q| q.function_name.is_empty())
        .count();
    if no_domain + no_fn > 0 {
        r.push(
            "domain and function name",
            Warn,
            format!("{no_domain} queries without a domain, {no_fn} without a function name"),
        );
    } else {
        r.push(
            "domain and function name",
            Pass,
            "every query has both".to_string(),
        );
    }
    if root.join(DISTRACTORS).is_file() {
        distractor_meta(&mut r, &queries, &corpus, &index, &distractors);
    }
    if root.join(CACHE).is_file() {
        cache_rows(&mut r, &cache);
        cache_coverage(&mut r, &queries, &corpus, &cache);
    }

    // Systems.
    let query_ids: Vec<String> = queries.iter().map(|q| q.id.clone()).collect();
    let corpus_ids: Vec<String> = corpus.iter().map(|s| s.id.clone()).collect();
    let expect = Expect {
        query_ids: &query_ids,
        corpus_ids: &corpus_ids,
    };
    let mut widths = HashMap::new();
    for (id, path) in &systems {
        let inv = table.get(id);
        let sim = inv
            .and_then(|i| parse_similarity(i.similarity.as_deref()).ok())
            .unwrap_or(Similarity::Cos);
        match load_system(path, id, inv, sim, &expect) {
            Ok(l) => {
                let d = l.system.queries.ncols();
                widths.insert(id.clone(), d);
                let mut detail = format!(
                    "d = {d}, {}, {} × {} rows",
                    sim.as_str(),
                    query_ids.len(),
                    corpus_ids.len()
                );
                if !l.notes.is_empty() {
                    detail.push_str(&format!(" ({})", l.notes.join("; ")));
                }
                r.push(format!("system {id}"), Pass, detail);
            }
            Err(e) => r.push(format!("system {id}"), Fail, e.to_string()),
        }
    }
    if root.join(INVOCATION).is_file() {
        let mut problems = Vec::new();
        let mut ids: Vec<&String> = table.keys().collect();
        ids.sort();
        for id in ids {
            let inv = &table[id];
            if !inv.file.is_empty() && !root.join(&inv.file).is_file() {
                problems.push(format!("`{id}`: file {} does not exist", inv.file));
            }
            if !systems.iter().any(|(s, _)| s == id) {
                problems.push(format!("`{id}`: no embeddings/{id}.npz"));
            }
            if let (Some(want), Some(got)) = (inv.dims, widths.get(id)) {
                if want != *got {
                    problems.push(format!(
                        "`{id}`: dims {want} but the arrays have {got} columns"
                    ));
                }
            }
        }
        let unlisted: Vec<&str> = systems
            .iter()
            .map(|(s, _)| s.as_str())
            .filter(|s| !table.contains_key(*s))
            .collect();
        if problems.is_empty() && !unlisted.is_empty() {
            r.push(
                "invocation table",
                Warn,
                format!("no entry (cosine assumed) for: {}", unlisted.join(", ")),
            );
        } else {
            r.list(
                "invocation table",
                Fail,
                format!("{} entries match their files", table.len()),
                problems,
            );
        }
    }
    r
}

fn strings(errs: Vec<BundleError>) -> Vec<String> {
    errs.into_iter().map(|e| e.to_string()).collect()
}

fn optional_typed<T: serde::de::DeserializeOwned>(
    r: &mut CheckReport,
    root: &Path,
    rel: &str,
    sha: &mut BTreeMap<String, String>,
) -> Vec<T> {
    match optional_rows(root, rel, sha).and_then(|rows| match rows {
        Some(rows) => parse::typed(&root.join(rel), rows).map(Some),
        None => Ok(None),
    }) {
        Ok(Some(v)) => {
            r.push(
                format!("parse {rel}"),
                CheckStatus::Pass,
                format!("{} rows", v.len()),
            );
            v
        }
        Ok(None) => Vec::new(),
        Err(e) => {
            r.push(format!("parse {rel}"), CheckStatus::Fail, e.to_string());
            Vec::new()
        }
    }
}

fn relations(r: &mut CheckReport, queries: &[Query]) {
    let problems: Vec<String> = queries
        .iter()
        .filter_map(|q| {
            let bad_c = q.correct.is_empty();
            let bad_p = !(3..=4).contains(&q.paired.len());
            (bad_c || bad_p).then(|| {
                format!(
                    "`{}`: {} correct, {} paired distractors",
                    q.id,
                    q.correct.len(),
                    q.paired.len()
                )
            })
        })
        .collect();
    r.list(
        "query relations",
        CheckStatus::Warn,
        "each query: ≥1 correct, 3–4 paired distractors".into(),
        problems,
    );
}

fn distractor_meta(
    r: &mut CheckReport,
    queries: &[Query],
    corpus: &[Snippet],
    index: &HashMap<String, usize>,
    metas: &[DistractorMeta],
) {
    let qindex: HashMap<&str, &Query> = queries.iter().map(|q| (q.id.as_str(), q)).collect();
    let mut problems = Vec::new();
    let mut covered = HashSet::new();
    for (i, m) in metas.iter().enumerate() {
        let at = format!("{DISTRACTORS}:{} `{}`", i + 1, m.corpus_id);
        let (Some(&row), Some(q)) = (index.get(&m.corpus_id), qindex.get(m.query_id.as_str()))
        else {
            problems.push(format!(
                "{at}: unknown corpus_id or query_id `{}`",
                m.query_id
            ));
            continue;
        };
        covered.insert(row);
        let s = &corpus[row];
        if s.bug_type.as_deref().unwrap_or("") != m.bug_type {
            problems.push(format!(
                "{at}: bug_type {:?} but the corpus says {:?}",
                m.bug_type, s.bug_type
            ));
        }
        if !q.paired.contains(&row) {
            problems.push(format!("{at}: not a paired distractor of `{}`", q.id));
        }
        let canon = q.correct.first().map(|&c| &corpus[c]);
        match canon {
            Some(c) if c.id == m.canonical_id => {
                let e = &m.edit;
                let code = &c.code;
                let ok_range = e.start <= e.end
                    && e.end <= code.len()
                    && code.is_char_boundary(e.start)
                    && code.is_char_boundary(e.end);
                if !ok_range || code[e.start..e.end] != e.before {
                    problems.push(format!(
                        "{at}: edit {}..{} does not cover {:?} in the canonical",
                        e.start, e.end, e.before
                    ));
                } else if format!("{}{}{}", &code[..e.start], e.after, &code[e.end..]) != s.code {
                    problems.push(format!("{at}: applying the edit to the canonical does not give the distractor's code"));
                }
            }
            _ => problems.push(format!(
                "{at}: canonical_id `{}` is not the query's correct id",
                m.canonical_id
            )),
        }
    }
    let without = queries
        .iter()
        .flat_map(|q| q.paired.iter())
        .filter(|p| !covered.contains(*p))
        .count();
    if problems.is_empty() && without > 0 {
        r.push(
            "distractor metadata",
            CheckStatus::Warn,
            format!(
                "{} rows consistent; {without} paired distractors have no row",
                metas.len()
            ),
        );
    } else {
        r.list(
            "distractor metadata",
            CheckStatus::Fail,
            format!("{} rows consistent with corpus and queries", metas.len()),
            problems,
        );
    }
}

/// Each cache row on its own: known outcome strings, `passes_all_tests` agreeing with them.
fn cache_rows(r: &mut CheckReport, cache: &[ExecRecord]) {
    let mut problems = Vec::new();
    for (i, rec) in cache.iter().enumerate() {
        let at = format!("{CACHE}:{}", i + 1);
        if let Some(bad) = rec
            .outcomes
            .iter()
            .find(|o| o.parse::<crate::oracle::outcome::Outcome>().is_err())
        {
            problems.push(format!("{at}: unknown outcome {bad:?}"));
        }
        let all = rec.outcomes.iter().all(|o| o == "pass");
        if all != rec.passes_all_tests {
            problems.push(format!(
                "{at}: passes_all_tests is {} but the outcomes say {all}",
                rec.passes_all_tests
            ));
        }
    }
    r.list(
        "cache rows",
        CheckStatus::Fail,
        format!("{} rows well-formed", cache.len()),
        problems,
    );
}

fn cache_coverage(
    r: &mut CheckReport,
    queries: &[Query],
    corpus: &[Snippet],
    cache: &[ExecRecord],
) {
    let (enc, note) = detect_encoding(queries, cache);
    let Some(enc) = enc.as_deref().and_then(encoding) else {
        r.push(
            "cache encoding",
            CheckStatus::Fail,
            note.unwrap_or_else(|| "empty cache".into()),
        );
        return;
    };
    r.push(
        "cache encoding",
        CheckStatus::Pass,
        note.unwrap_or_default(),
    );
    let map: HashMap<(&str, &str), &ExecRecord> = cache
        .iter()
        .map(|c| ((c.code_sha256.as_str(), c.tests_sha256.as_str()), c))
        .collect();
    let mut problems = Vec::new();
    let mut severe = false;
    let mut pairs = 0;
    for q in queries {
        let key = super::model::sha256_hex((enc.encode)(&q.tests).as_bytes());
        for &row in q.correct.iter().chain(&q.paired) {
            pairs += 1;
            let s = &corpus[row];
            match map.get(&(code_sha256(&s.code).as_str(), key.as_str())) {
                None => problems.push(format!("`{}` × `{}`: no cache row", q.id, s.id)),
                Some(rec) => {
                    let want = s.label == Label::Correct;
                    if rec.passes_all_tests != want {
                        severe |= want;
                        problems.push(format!(
                            "`{}` × `{}`: {} {}",
                            q.id,
                            s.id,
                            if want { "canonical" } else { "distractor" },
                            if rec.passes_all_tests {
                                "passes"
                            } else {
                                "fails"
                            }
                        ));
                    }
                    if rec.outcomes.len() != q.tests.len() {
                        problems.push(format!(
                            "`{}` × `{}`: {} outcomes for {} tests",
                            q.id,
                            s.id,
                            rec.outcomes.len(),
                            q.tests.len()
                        ));
                    }
                }
            }
        }
    }
    // A failing canonical breaks the benchmark; gaps and passing distractors are worth a look.
    let status = if severe {
        CheckStatus::Fail
    } else {
        CheckStatus::Warn
    };
    r.list(
        "cache coverage",
        status,
        format!("{pairs} (query, own snippet) pairs cached; canonicals pass, distractors fail"),
        problems,
    );
}
