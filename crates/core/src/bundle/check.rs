//! `check`: run every validation on a bundle directory and record each result, never stopping at
//! the first failure (the analogue of the release's sanity script).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use super::check_items::{cache_coverage, distractor_meta, relations};
use super::dense::{load_system, Expect};
use super::error::BundleError;
use super::files::{self, CACHE, CORPUS, DISTRACTORS, INVOCATION, QUERIES, SUMS};
use super::load::{derive_fields, invocation_table, npz_entries, optional_rows, NpzEntry};
use super::model::{DistractorMeta, ExecRecord, Invocation, Query, Similarity, Snippet};
use super::parse;
use super::parse::RawQuery;
use super::stacked::STACKED;

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

    pub(super) fn push(
        &mut self,
        name: impl Into<String>,
        status: CheckStatus,
        detail: impl Into<String>,
    ) {
        self.items.push(CheckItem {
            name: name.into(),
            status,
            detail: detail.into(),
        });
    }

    /// Record pass when `problems` is empty, else `bad` with the first few problems.
    pub(super) fn list(&mut self, name: &str, bad: CheckStatus, ok: String, problems: Vec<String>) {
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

/// Run every check on the bundle at `root`, in order: files present, checksums, the tables
/// parsed, ids and relations, the cache, each system, the stacked variants, the invocation table.
pub fn check(root: &Path) -> CheckReport {
    let mut r = CheckReport {
        root: root.to_path_buf(),
        items: Vec::new(),
    };
    let (systems, refused_systems) = presence(&mut r, root);
    checksums(&mut r, root);
    let (tables, table) = parse_tables(&mut r, root);
    let Some((queries, corpus)) = relations_and_cache(&mut r, root, tables) else {
        return r;
    };
    let widths = system_checks(
        &mut r,
        &systems,
        &refused_systems,
        &table,
        &queries,
        &corpus,
    );
    if std::fs::symlink_metadata(root.join(STACKED)).is_ok() {
        let loaded: Vec<(String, PathBuf, usize)> = systems
            .iter()
            .filter_map(|(id, p)| widths.get(id).map(|&w| (id.clone(), p.clone(), w)))
            .collect();
        stacked_checks(&mut r, root, &queries, &corpus, &loaded);
    }
    if root.join(INVOCATION).is_file() {
        invocation_checks(&mut r, root, &table, &systems, &widths);
        fused_parts(&mut r, &table, &systems);
    }
    r
}

/// Whether the required and optional files are there (and the dense systems under
/// `embeddings/`, returned with the entries refused there).
fn presence(r: &mut CheckReport, root: &Path) -> (Vec<NpzEntry>, Vec<BundleError>) {
    use CheckStatus::*;
    let missing_req: Vec<&str> = [QUERIES, CORPUS]
        .into_iter()
        .filter(|f| !root.join(f).is_file())
        .collect();
    let missing_opt: Vec<&str> = [DISTRACTORS, CACHE, INVOCATION, SUMS]
        .into_iter()
        .filter(|f| !root.join(f).is_file())
        .collect();
    let (systems, refused_systems) = npz_entries(root).unwrap_or_default();
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

    (systems, refused_systems)
}

/// `SHA256SUMS` verified, and the bundle files it does not list.
fn checksums(r: &mut CheckReport, root: &Path) {
    use CheckStatus::*;
    if root.join(SUMS).is_file() {
        match files::verify_sums(root) {
            Ok(p) => {
                let listed: HashSet<String> = files::read_in(root, SUMS)
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
}

/// The bundle's tables as parsed (each parse recorded): what the later checks read.
struct Tables {
    raw_q: Option<Vec<RawQuery>>,
    corpus: Option<Vec<(usize, Snippet)>>,
    distractors: Vec<DistractorMeta>,
    cache_lines: Vec<(usize, ExecRecord)>,
}

/// Parse the jsonl tables and the invocation table, recording each.
fn parse_tables(r: &mut CheckReport, root: &Path) -> (Tables, HashMap<String, Invocation>) {
    use CheckStatus::*;
    let mut sha = BTreeMap::new();
    let qpath = root.join(QUERIES);
    let cpath = root.join(CORPUS);
    let raw_q = match files::read_in(root, QUERIES)
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
    let corpus = match files::read_in(root, CORPUS)
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
    let distractors: Vec<DistractorMeta> = optional_typed(r, root, DISTRACTORS, &mut sha);
    let cache_lines: Vec<(usize, ExecRecord)> = optional_typed_lines(r, root, CACHE, &mut sha);
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

    let tables = Tables {
        raw_q,
        corpus,
        distractors,
        cache_lines,
    };
    (tables, table)
}

/// Unique ids, dangling ids, labels, the queries' relations and derived fields, the distractor
/// metadata and the execution cache; the resolved queries and corpus (`None` when the queries
/// or the corpus did not parse: nothing further can be checked).
fn relations_and_cache(
    r: &mut CheckReport,
    root: &Path,
    t: Tables,
) -> Option<(Vec<Query>, Vec<Snippet>)> {
    use CheckStatus::*;
    let (qpath, cpath) = (root.join(QUERIES), root.join(CORPUS));
    let Tables {
        raw_q,
        corpus,
        distractors,
        cache_lines,
    } = t;
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
        return None;
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
    relations(r, &queries);
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
        distractor_meta(r, &queries, &corpus, &index, &distractors);
    }
    if root.join(CACHE).is_file() {
        let problems = parse::cache_problems(&root.join(CACHE), &cache_lines);
        r.list(
            "cache rows",
            Fail,
            format!(
                "{} rows well-formed, one verdict per pair",
                cache_lines.len()
            ),
            strings(problems),
        );
        let cache: Vec<ExecRecord> = cache_lines.into_iter().map(|(_, c)| c).collect();
        cache_coverage(r, &queries, &corpus, &cache);
    }

    Some((queries, corpus))
}

/// Each dense system loaded against the queries and corpus (and every refused
/// `embeddings/` entry); the width of each system that loaded.
fn system_checks(
    r: &mut CheckReport,
    systems: &[NpzEntry],
    refused_systems: &[BundleError],
    table: &HashMap<String, Invocation>,
    queries: &[Query],
    corpus: &[Snippet],
) -> HashMap<String, usize> {
    use CheckStatus::*;
    let query_ids: Vec<String> = queries.iter().map(|q| q.id.clone()).collect();
    let corpus_ids: Vec<String> = corpus.iter().map(|s| s.id.clone()).collect();
    let expect = Expect {
        query_ids: &query_ids,
        corpus_ids: &corpus_ids,
    };
    let mut widths = HashMap::new();
    for e in refused_systems {
        r.push("embeddings entry", Fail, e.to_string());
    }
    for (id, path) in systems {
        let inv = table.get(id);
        let sim = inv.map_or(Similarity::default(), |i| i.similarity);
        match load_system(path, id, inv, sim, &expect) {
            Ok(l) => {
                let d = l.system.queries.ncols();
                widths.insert(id.clone(), d);
                let mut detail = match l.system.similarity {
                    Similarity::Score => {
                        format!("score matrix {} × {}", query_ids.len(), corpus_ids.len())
                    }
                    s => format!(
                        "d = {d}, {}, {} × {} rows",
                        s.as_str(),
                        query_ids.len(),
                        corpus_ids.len()
                    ),
                };
                if let Some(p) = l
                    .system
                    .invocation
                    .as_ref()
                    .and_then(|i| i.provenance.as_ref())
                {
                    detail.push_str(&format!("; {}", p.describe()));
                }
                if !l.notes.is_empty() {
                    detail.push_str(&format!(" ({})", l.notes.join("; ")));
                }
                // Rows without ids load in jsonl order (the documented rule), but unverified.
                let status = if l.unverified.is_empty() { Pass } else { Warn };
                r.push(format!("system {id}"), status, detail);
            }
            Err(e) => r.push(format!("system {id}"), Fail, e.to_string()),
        }
    }
    widths
}

/// The invocation table against the files: each entry's file, npz and width; systems it lacks.
fn invocation_checks(
    r: &mut CheckReport,
    root: &Path,
    table: &HashMap<String, Invocation>,
    systems: &[NpzEntry],
    widths: &HashMap<String, usize>,
) {
    use CheckStatus::*;
    let mut problems = Vec::new();
    let mut ids: Vec<&String> = table.keys().collect();
    ids.sort();
    for id in ids {
        let inv = &table[id];
        if !inv.file.is_empty() {
            match files::confine(root, &inv.file) {
                Ok(_) => {}
                Err(files::ConfineError::Missing) => {
                    problems.push(format!("`{id}`: file {} does not exist", inv.file))
                }
                Err(files::ConfineError::Refused(why)) => {
                    problems.push(format!("`{id}`: file refused: {why}"))
                }
            }
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

/// Fused systems whose parts are gone.
fn fused_parts(r: &mut CheckReport, table: &HashMap<String, Invocation>, systems: &[NpzEntry]) {
    use CheckStatus::*;
    // A hybrid whose parts are gone still ranks (its scores are stored), but can no
    // longer be remade or set beside them.
    let mut orphans = Vec::new();
    let mut ids: Vec<&String> = table.keys().collect();
    ids.sort();
    for id in ids {
        if let Some(super::model::Provenance::Fused { parts, .. }) = &table[id].provenance {
            let gone: Vec<&str> = parts
                .iter()
                .map(String::as_str)
                .filter(|p| *p != "BM25" && !systems.iter().any(|(s, _)| s == p))
                .collect();
            if !gone.is_empty() {
                orphans.push(format!(
                    "`{id}` was fused from {}, no longer in the bundle",
                    gone.join(", ")
                ));
            }
        }
    }
    if !orphans.is_empty() {
        r.list("fused systems' parts", Warn, String::new(), orphans);
    }
}

/// The stacked file's rows (every rule the stacked analysis relies on) and each system's
/// `stacked` / `stacked_ids` arrays against them.
fn stacked_checks(
    r: &mut CheckReport,
    root: &Path,
    queries: &[super::model::Query],
    corpus: &[Snippet],
    widths: &[(String, PathBuf, usize)],
) {
    let path = root.join(STACKED);
    let parsed = files::read_in(root, STACKED)
        .and_then(|bytes| super::stacked::rows(&path, &bytes, queries, corpus));
    let (variants, errors) = match parsed {
        Ok(v) => v,
        Err(e) => {
            r.push(format!("parse {STACKED}"), CheckStatus::Fail, e.to_string());
            return;
        }
    };
    let n_bad = errors.len();
    r.list(
        "stacked variants",
        CheckStatus::Fail,
        format!(
            "{} rows consistent with queries, corpus and their outcomes",
            variants.len()
        ),
        strings(errors),
    );
    if n_bad > 0 {
        return;
    }
    let ids: Vec<String> = variants.into_iter().map(|v| v.id).collect();
    for (id, npz, width) in widths {
        match super::stacked::vectors(npz, &ids, *width) {
            Ok(Some(_)) => r.push(
                format!("stacked vectors {id}"),
                CheckStatus::Pass,
                format!("{} rows × {width}", ids.len()),
            ),
            Ok(None) => {}
            Err(e) => r.push(
                format!("stacked vectors {id}"),
                CheckStatus::Fail,
                e.to_string(),
            ),
        }
    }
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
    optional_typed_lines(r, root, rel, sha)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

fn optional_typed_lines<T: serde::de::DeserializeOwned>(
    r: &mut CheckReport,
    root: &Path,
    rel: &str,
    sha: &mut BTreeMap<String, String>,
) -> Vec<(usize, T)> {
    match optional_rows(root, rel, sha).and_then(|rows| match rows {
        Some(rows) => parse::typed_lines(&root.join(rel), rows).map(Some),
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
