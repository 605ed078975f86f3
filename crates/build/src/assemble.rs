//! Ids and bundle rows for the admitted tasks: `q_0001…` in task-file order, `c_0001…` with each
//! canonical followed by its distractors; then a check that every id resolves and every snippet
//! belongs to exactly one query (the id half of gate 5).

use super::gates::Admitted;
use execscope_core::bundle::model::{Bundle, DistractorMeta, Label, Query, Snippet};
use serde_json::json;
use std::collections::HashMap;

/// Provenance written into every query's `metadata`.
#[derive(Clone, Debug)]
pub struct Provenance {
    pub source: String,
    pub seed: u64,
}

/// `prefix_0001`: four digits, more when needed.
pub fn make_id(prefix: &str, n: usize) -> String {
    format!("{prefix}_{n:04}")
}

/// The bundle for `admitted` (cache and systems left empty).
pub fn assemble(admitted: &[Admitted], prov: &Provenance) -> Bundle {
    let mut b = Bundle::default();
    for (qi, a) in admitted.iter().enumerate() {
        let t = &a.task;
        let qid = make_id("q", qi + 1);
        let canon_row = b.corpus.len();
        let canon_id = make_id("c", canon_row + 1);
        b.corpus.push(Snippet {
            id: canon_id.clone(),
            code: t.canonical.clone(),
            label: Label::Correct,
            bug_type: None,
            source_entry_id: t.task_id.clone(),
            language: t.language,
            extra: Default::default(),
        });
        let mut paired = Vec::new();
        for m in &a.kept {
            let row = b.corpus.len();
            let id = make_id("c", row + 1);
            b.corpus.push(Snippet {
                id: id.clone(),
                code: m.code.clone(),
                label: Label::Incorrect,
                bug_type: Some(m.bug_type.clone()),
                source_entry_id: t.task_id.clone(),
                language: t.language,
                extra: Default::default(),
            });
            b.distractors.push(DistractorMeta {
                corpus_id: id,
                query_id: qid.clone(),
                canonical_id: canon_id.clone(),
                bug_type: m.bug_type.clone(),
                bug_description: m.description.clone(),
                edit: m.edit.clone(),
                operator: m.operator.clone(),
            });
            paired.push(row);
        }
        b.queries.push(Query {
            id: qid,
            text: t.query.clone(),
            tests: t.tests.clone(),
            correct: vec![canon_row],
            paired,
            entry_id: t.task_id.clone(),
            domain: t.domain.clone(),
            function_name: t.function_name.clone(),
            language: t.language,
            metadata: json!({
                "source": prov.source,
                "builder": format!("execscope {}", execscope_record::version()),
                "seed": prov.seed,
            }),
            extra: Default::default(),
        });
    }
    b
}

/// Every query's ids resolve to rows with the right label, and every corpus row is referenced by
/// exactly one query. Returns the problems (empty when sound).
pub fn id_integrity(b: &Bundle) -> Vec<String> {
    let mut problems = Vec::new();
    let index: HashMap<&str, usize> = b
        .corpus
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    if index.len() != b.corpus.len() {
        problems.push("duplicate corpus ids".to_string());
    }
    let mut refs = vec![0usize; b.corpus.len()];
    for q in &b.queries {
        for (&row, want) in q
            .correct
            .iter()
            .map(|r| (r, Label::Correct))
            .chain(q.paired.iter().map(|r| (r, Label::Incorrect)))
        {
            match b.corpus.get(row) {
                Some(s) if index.get(s.id.as_str()) == Some(&row) && s.label == want => {
                    refs[row] += 1
                }
                _ => problems.push(format!("`{}`: row {row} does not resolve", q.id)),
            }
        }
    }
    for (row, n) in refs.iter().enumerate() {
        if *n != 1 {
            problems.push(format!(
                "`{}` is referenced by {n} queries",
                b.corpus[row].id
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_zero_padded() {
        assert_eq!(make_id("q", 1), "q_0001");
        assert_eq!(make_id("c", 12345), "c_12345");
    }
}
