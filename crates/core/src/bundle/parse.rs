//! Turning JSON Lines rows into model records, and the relational integrity checks between
//! queries and corpus (duplicate ids, dangling ids, label mismatches).
//!
//! The integrity checks return *all* problems: `load` stops at the first, `check` lists them all.

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

use super::error::BundleError;
use super::files::{Fields, Row};
use super::model::{ExecRecord, Label, Query, Snippet};

/// A query as read, before its id lists are resolved to corpus rows.
#[derive(Clone, Debug)]
pub struct RawQuery {
    pub line: usize,
    pub id: String,
    pub text: String,
    pub tests: Vec<String>,
    pub correct_ids: Vec<String>,
    pub paired_ids: Vec<String>,
    pub entry_id: String,
    pub domain: Option<String>,
    pub function_name: Option<String>,
    pub language: execscope_record::Language,
    pub metadata: Value,
    pub extra: serde_json::Map<String, Value>,
}

pub fn queries(path: &Path, rows: Vec<Row>) -> Result<Vec<RawQuery>, BundleError> {
    rows.into_iter()
        .map(|mut row| {
            let line = row.line;
            let mut f = Fields {
                path,
                row: &mut row,
            };
            let q = RawQuery {
                line,
                id: f.string("query_id")?,
                text: f.string("query")?,
                tests: {
                    let t = f.strings("test_suite")?;
                    if t.is_empty() {
                        return Err(BundleError::field(
                            path,
                            line,
                            "field `test_suite` is empty; a query needs at least one test",
                        ));
                    }
                    t
                },
                correct_ids: f.strings("correct_corpus_ids")?,
                // Absent or null: a query without distractors (check warns).
                paired_ids: match f.row.obj.get("paired_distractor_corpus_ids") {
                    None | Some(Value::Null) => {
                        f.take("paired_distractor_corpus_ids");
                        Vec::new()
                    }
                    Some(_) => f.strings("paired_distractor_corpus_ids")?,
                },
                entry_id: f.opt_string("entry_id")?.unwrap_or_default(),
                domain: f.opt_string("domain")?.filter(|s| !s.is_empty()),
                function_name: f.opt_string("function_name")?.filter(|s| !s.is_empty()),
                language: f.language()?,
                metadata: f.take("metadata").unwrap_or(Value::Null),
                extra: std::mem::take(&mut row.obj),
            };
            Ok(q)
        })
        .collect()
}

/// Snippets, each with its line number.
pub fn corpus(path: &Path, rows: Vec<Row>) -> Result<Vec<(usize, Snippet)>, BundleError> {
    rows.into_iter()
        .map(|mut row| {
            let line = row.line;
            let mut f = Fields {
                path,
                row: &mut row,
            };
            let id = f.string("corpus_id")?;
            let code = f.string("code")?;
            let label = match f.string("label")?.as_str() {
                "correct" => Label::Correct,
                "incorrect" => Label::Incorrect,
                other => {
                    return Err(BundleError::field(
                        path,
                        line,
                        format!(
                        "snippet `{id}`: label {other:?} is neither \"correct\" nor \"incorrect\""
                    ),
                    ))
                }
            };
            let bug_type = f.opt_string("bug_type")?.filter(|s| !s.is_empty());
            let source_entry_id = f.opt_string("source_entry_id")?.unwrap_or_default();
            let language = f.language()?;
            Ok((
                line,
                Snippet {
                    id,
                    code,
                    label,
                    bug_type,
                    source_entry_id,
                    language,
                    extra: std::mem::take(&mut row.obj),
                },
            ))
        })
        .collect()
}

/// Rows deserialised into a serde type (distractor metadata, cache records).
pub fn typed<T: DeserializeOwned>(path: &Path, rows: Vec<Row>) -> Result<Vec<T>, BundleError> {
    rows.into_iter()
        .map(|row| {
            serde_json::from_value(Value::Object(row.obj))
                .map_err(|e| BundleError::field(path, row.line, e.to_string()))
        })
        .collect()
}

/// As [`typed`], keeping each row's line number.
pub fn typed_lines<T: DeserializeOwned>(
    path: &Path,
    rows: Vec<Row>,
) -> Result<Vec<(usize, T)>, BundleError> {
    rows.into_iter()
        .map(|row| {
            serde_json::from_value(Value::Object(row.obj))
                .map(|v| (row.line, v))
                .map_err(|e| BundleError::field(path, row.line, e.to_string()))
        })
        .collect()
}

/// True for a SHA-256 digest as the cache writes it: 64 lowercase hexadecimal digits.
pub fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Every problem of the execution cache's rows on their own and between each other: digests of
/// 64 lowercase hex digits, known outcome strings, `passes_all_tests` agreeing with the outcomes,
/// and one verdict per (code, tests) key (a conflicting repeat names both lines; an identical
/// repeat is harmless). The lengths against the query suites are checked where the suites are
/// known (`check`'s cache coverage).
pub fn cache_problems(path: &Path, rows: &[(usize, ExecRecord)]) -> Vec<BundleError> {
    let mut errors = Vec::new();
    let mut seen: HashMap<(&str, &str), (usize, &ExecRecord)> = HashMap::with_capacity(rows.len());
    for (line, rec) in rows {
        let line = *line;
        let bad = |d: String| BundleError::field(path, line, d);
        for (key, v) in [
            ("code_sha256", &rec.code_sha256),
            ("tests_sha256", &rec.tests_sha256),
        ] {
            if !is_digest(v) {
                errors.push(bad(format!(
                    "`{key}` {v:?} is not a SHA-256 digest (64 lowercase hex digits)"
                )));
            }
        }
        if let Some((i, o)) = rec
            .outcomes
            .iter()
            .enumerate()
            .find(|(_, o)| o.parse::<execscope_record::Outcome>().is_err())
        {
            errors.push(bad(format!(
                "outcome {} is {o:?}, not one of pass, FAIL, FAIL:<exception>, ERROR:<exception>, TIMEOUT, HANG",
                i + 1
            )));
        }
        let all = rec.outcomes.iter().all(|o| o == "pass");
        if all != rec.passes_all_tests {
            errors.push(bad(format!(
                "passes_all_tests is {} but the outcomes say {all}",
                rec.passes_all_tests
            )));
        }
        let key = (rec.code_sha256.as_str(), rec.tests_sha256.as_str());
        match seen.get(&key) {
            Some(&(first, prev))
                if prev.outcomes != rec.outcomes
                    || prev.passes_all_tests != rec.passes_all_tests =>
            {
                errors.push(bad(format!(
                    "conflicting verdict for the (code, tests) pair of line {first}: {} here, {} there",
                    verdict(rec),
                    verdict(prev)
                )));
            }
            Some(_) => {}
            None => {
                seen.insert(key, (line, rec));
            }
        }
    }
    errors
}

fn verdict(r: &ExecRecord) -> String {
    format!(
        "[{}] ({})",
        r.outcomes.join(" "),
        if r.passes_all_tests {
            "passes"
        } else {
            "fails"
        }
    )
}

/// Map of corpus id → row, with every duplicate reported.
pub fn corpus_index(
    path: &Path,
    corpus: &[(usize, Snippet)],
) -> (HashMap<String, usize>, Vec<BundleError>) {
    let mut map: HashMap<String, usize> = HashMap::with_capacity(corpus.len());
    let mut errors = Vec::new();
    for (row, (line, s)) in corpus.iter().enumerate() {
        if let Some(&first) = map.get(&s.id) {
            errors.push(BundleError::DuplicateId {
                path: path.to_path_buf(),
                line: *line,
                id: s.id.clone(),
                first_line: corpus[first].0,
            });
        } else {
            map.insert(s.id.clone(), row);
        }
    }
    (map, errors)
}

/// Duplicate query ids.
pub fn duplicate_queries(path: &Path, queries: &[RawQuery]) -> Vec<BundleError> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(queries.len());
    let mut errors = Vec::new();
    for q in queries {
        if let Some(&first_line) = seen.get(q.id.as_str()) {
            errors.push(BundleError::DuplicateId {
                path: path.to_path_buf(),
                line: q.line,
                id: q.id.clone(),
                first_line,
            });
        } else {
            seen.insert(&q.id, q.line);
        }
    }
    errors
}

/// Resolve id lists to rows; report dangling ids and label mismatches (all of them).
pub fn resolve(
    path: &Path,
    raw: &[RawQuery],
    corpus: &[(usize, Snippet)],
    index: &HashMap<String, usize>,
) -> (Vec<Query>, Vec<BundleError>) {
    let mut errors = Vec::new();
    let mut out = Vec::with_capacity(raw.len());
    for q in raw {
        let mut lists: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        for (which, (ids, list)) in [
            (&q.correct_ids, "correct_corpus_ids"),
            (&q.paired_ids, "paired_distractor_corpus_ids"),
        ]
        .into_iter()
        .enumerate()
        {
            for id in ids {
                match index.get(id) {
                    None => errors.push(BundleError::DanglingId {
                        path: path.to_path_buf(),
                        line: q.line,
                        query_id: q.id.clone(),
                        id: id.clone(),
                        list,
                    }),
                    Some(&row) => {
                        let (cline, s) = &corpus[row];
                        let bad = match (which, s.label) {
                            (0, Label::Incorrect) => {
                                Some("a correct id labelled \"incorrect\"".to_string())
                            }
                            (1, Label::Correct) => {
                                Some("a paired distractor labelled \"correct\"".to_string())
                            }
                            // A query's snippets are judged in its language.
                            _ if s.language != q.language => Some(format!(
                                "a {} snippet of a {} query",
                                s.language, q.language
                            )),
                            _ => None,
                        };
                        if let Some(what) = bad {
                            errors.push(BundleError::LabelMismatch {
                                path: path.to_path_buf(),
                                line: q.line,
                                query_id: q.id.clone(),
                                detail: format!(
                                    "`{id}` in `{list}` is {what} (data/corpus.jsonl:{cline})"
                                ),
                            });
                        }
                        lists[which].push(row);
                    }
                }
            }
        }
        let [correct, paired] = lists;
        out.push(Query {
            id: q.id.clone(),
            text: q.text.clone(),
            tests: q.tests.clone(),
            correct,
            paired,
            entry_id: q.entry_id.clone(),
            domain: q.domain.clone().unwrap_or_default(),
            function_name: q.function_name.clone().unwrap_or_default(),
            language: q.language,
            metadata: q.metadata.clone(),
            extra: q.extra.clone(),
        });
    }
    (out, errors)
}
