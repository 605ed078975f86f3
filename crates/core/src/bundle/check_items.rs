//! The relational checks of `check`: query relations, distractor metadata against corpus and
//! queries (including the edit splice), cache rows and cache coverage.

use std::collections::{HashMap, HashSet};

use super::check::{CheckReport, CheckStatus};
use super::files::DISTRACTORS;
use super::load::detect_encoding;
use super::model::{code_sha256, DistractorMeta, ExecRecord, Label, Query, Snippet};

pub(super) fn relations(r: &mut CheckReport, queries: &[Query]) {
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

pub(super) fn distractor_meta(
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

pub(super) fn cache_coverage(
    r: &mut CheckReport,
    queries: &[Query],
    corpus: &[Snippet],
    cache: &[ExecRecord],
) {
    let (enc, note) = detect_encoding(queries, cache);
    let Some(enc) = enc else {
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
        let key = enc.key(&q.tests);
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
                        // The outcomes belong to another suite: every number from them is wrong.
                        severe = true;
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
