//! The in-memory model of a benchmark bundle (see `docs/bundle-format.md`).
//!
//! Relations between queries and snippets are stored as corpus *row indices*, resolved once by the
//! loader from the id lists, so nothing downstream ever infers a relation from an id's number.

use ndarray::Array2;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub use execscope_record::keys::{
    code_sha256, python_json_compact, sha256_hex, tests_key, tests_key_fn, tests_sha256,
    TestsEncoding,
};
pub use execscope_record::{ExecRecord, Language};

/// The ten ExecRetrieval domains, in the order reports list them.
pub const DOMAINS: [&str; 10] = [
    "bit_manipulation",
    "collections",
    "data_transformation",
    "date_time",
    "geometry",
    "math_numerical",
    "sorting_searching",
    "state_machines",
    "string_processing",
    "validation",
];

/// The six mechanical bug types of the paper, in the order reports list them.
pub const BUG_TYPES: [&str; 6] = [
    "off_by_one",
    "off_by_one_boundary",
    "remove_edge_case_check",
    "swap_arguments",
    "wrong_comparison",
    "wrong_operator",
];

/// The mutation catalogue's further families (`execscope build --operators all`), in the order
/// reports list them after the paper's six (docs/bundle-format.md, "Bug types"). The names are
/// stable: bundles store them in `bug_type`.
pub const MORE_BUG_TYPES: [&str; 9] = [
    "negate_condition",
    "delete_statement",
    "remove_slice_index",
    "wrong_loop_iterations",
    "value_to_none",
    "wrong_string_method",
    "wrong_exception_handling",
    "wrong_constant",
    "remove_unary_operator",
];

/// Where a bug type goes in every table and figure that groups by bug type: the paper's six in
/// [`BUG_TYPES`] order, then the catalogue's in [`MORE_BUG_TYPES`] order, then any other name a
/// bundle carries (sorted by name), and `unknown` (a distractor without a bug type) last. Sort
/// by this key, so a bundle with new families needs no code change to be reported.
pub fn bug_type_key(bug_type: &str) -> (u8, usize, &str) {
    if let Some(i) = BUG_TYPES.iter().position(|t| *t == bug_type) {
        (0, i, "")
    } else if let Some(i) = MORE_BUG_TYPES.iter().position(|t| *t == bug_type) {
        (1, i, "")
    } else if bug_type == "unknown" {
        (3, 0, "")
    } else {
        (2, 0, bug_type)
    }
}

/// `types` without repeats, in report order ([`bug_type_key`]).
pub fn order_bug_types<I, S>(types: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut v: Vec<String> = types.into_iter().map(Into::into).collect();
    v.sort_by(|a, b| bug_type_key(a).cmp(&bug_type_key(b)));
    v.dedup();
    v
}

/// A snippet's label in the corpus file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Correct,
    Incorrect,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Correct => "correct",
            Label::Incorrect => "incorrect",
        }
    }
}

/// One natural-language query with its test suite and its relations into the corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub id: String,
    pub text: String,
    /// Single-line `assert` statements, in order.
    pub tests: Vec<String>,
    /// Corpus rows of `correct_corpus_ids` (normally one canonical).
    pub correct: Vec<usize>,
    /// Corpus rows of `paired_distractor_corpus_ids`.
    pub paired: Vec<usize>,
    pub entry_id: String,
    /// One of [`DOMAINS`], or "" when unknown (explicit field, else derived from `entry_id`).
    pub domain: String,
    /// Explicit field, else the canonical's first top-level `def`; "" when neither exists.
    pub function_name: String,
    /// The language its snippets are written in (`language`; absent: Python).
    pub language: Language,
    /// The `metadata` object as read (kept verbatim).
    pub metadata: serde_json::Value,
    /// Keys the loader did not recognise, kept so a rewrite loses nothing.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One corpus snippet.
#[derive(Clone, Debug, PartialEq)]
pub struct Snippet {
    pub id: String,
    pub code: String,
    pub label: Label,
    /// `None` on canonicals; an absent key and "" both read as `None`.
    pub bug_type: Option<String>,
    pub source_entry_id: String,
    /// The language of `code` (`language`; absent: Python).
    pub language: Language,
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The byte-range edit that turns a canonical into a distractor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub before: String,
    pub after: String,
}

/// One row of `data/distractor_metadata.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistractorMeta {
    pub corpus_id: String,
    pub query_id: String,
    pub canonical_id: String,
    pub bug_type: String,
    pub bug_description: String,
    pub edit: Edit,
    pub operator: String,
}

/// How a dense system compares vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Similarity {
    /// Cosine: both sides L2-normalised, then dot product.
    Cos,
    /// Raw inner product.
    Dot,
    /// Precomputed scores (an imported or fused system, see `docs/systems.md`): the system's
    /// `corpus` matrix holds the score matrix transposed (row c = snippet c's score for every
    /// query) and its `queries` matrix is n_queries × 0; the ranking reads the scores as they are.
    Score,
}

impl Default for Similarity {
    /// A system that names no similarity is compared by cosine.
    fn default() -> Self {
        Similarity::Cos
    }
}

/// The invocation table's `similarity` value (a string, `null` or absent) as a [`Similarity`]
/// (read by `bundle::dense::parse_similarity`, the one parser of the names); an unknown name is a
/// JSON error at its line and column.
fn similarity_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Similarity, D::Error> {
    let name: Option<String> = Option::deserialize(d)?;
    super::dense::parse_similarity(name.as_deref()).map_err(serde::de::Error::custom)
}

impl Similarity {
    pub fn as_str(self) -> &'static str {
        match self {
            Similarity::Cos => "cos",
            Similarity::Dot => "dot",
            Similarity::Score => "score",
        }
    }
}

/// One entry of `results/invocation_table.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Invocation {
    pub id: String,
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub dims: Option<usize>,
    /// `cos` (also when absent) or `dot`; read leniently (`bundle::dense::parse_similarity`).
    #[serde(default, deserialize_with = "similarity_name")]
    pub similarity: Similarity,
    #[serde(default)]
    pub query_prefix: String,
    #[serde(default)]
    pub passage_prefix: String,
    #[serde(default)]
    pub dtype: String,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub notes: String,
    /// Where the system came from (absent in tables written before provenance was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// Where a system came from, recorded in its invocation-table entry (`docs/systems.md`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Provenance {
    /// Vectors from an embedding model (`model` when known).
    Embedded {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A TREC run file imported with `execscope import --run`.
    ImportedRun {
        /// The file name as given (its base name only).
        file: String,
        /// SHA-256 of the run file's bytes.
        sha256: String,
        /// Run lines read.
        lines: usize,
        /// The most snippets the run lists for one query.
        depth: usize,
        /// The run's tag (sixth column), when every line has the same one.
        #[serde(default)]
        tag: String,
    },
    /// A dense score matrix imported with `execscope import --scores`.
    ImportedScores { file: String, sha256: String },
    /// A hybrid made by `execscope fuse` from systems of the same bundle.
    Fused {
        /// `rrf`, `combsum` or `combmnz`.
        method: String,
        /// The fused systems, in the order given.
        parts: Vec<String>,
        /// Score normalisation (`minmax`, `zscore`) of CombSUM / CombMNZ.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        norm: Option<String>,
        /// RRF's k.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        k: Option<f64>,
        /// CombMNZ's depth (a part "retrieves" a snippet ranked within it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth: Option<usize>,
    },
}

impl Provenance {
    /// One line for `check`, reports and the dashboard's detail views.
    pub fn describe(&self) -> String {
        match self {
            Provenance::Embedded { model: None } => "embedded".to_string(),
            Provenance::Embedded { model: Some(m) } => format!("embedded with model {m}"),
            Provenance::ImportedRun {
                file, lines, depth, ..
            } => format!("imported run {file} ({lines} lines, up to {depth} per query)"),
            Provenance::ImportedScores { file, .. } => format!("imported scores {file}"),
            Provenance::Fused {
                method,
                parts,
                norm,
                k,
                depth,
            } => {
                let mut s = format!("fused: {method} of {}", parts.join(" + "));
                if let Some(n) = norm {
                    s.push_str(&format!(", {n} normalised"));
                }
                if let Some(k) = k {
                    s.push_str(&format!(", k = {k}"));
                }
                if let Some(d) = depth {
                    s.push_str(&format!(", depth {d}"));
                }
                s
            }
        }
    }

    /// A short mark for lists (system picker, leaderboard): `emb`, `run`, `mat`, `rrf`, `sum`, `mnz`.
    pub fn mark(&self) -> &'static str {
        match self {
            Provenance::Embedded { .. } => "emb",
            Provenance::ImportedRun { .. } => "run",
            Provenance::ImportedScores { .. } => "mat",
            Provenance::Fused { method, .. } => match method.as_str() {
                "rrf" => "rrf",
                "combsum" => "sum",
                _ => "mnz",
            },
        }
    }
}

impl DenseSystem {
    /// Where the system came from: its recorded provenance, else (vectors without a record)
    /// embedded by an unnamed model.
    pub fn provenance(&self) -> Provenance {
        self.invocation
            .as_ref()
            .and_then(|i| i.provenance.clone())
            .unwrap_or(Provenance::Embedded { model: None })
    }
}

/// One dense embedding system: query and corpus matrices, rows in file order, as float32.
#[derive(Clone, Debug)]
pub struct DenseSystem {
    /// The npz file stem.
    pub id: String,
    pub similarity: Similarity,
    /// n_queries × d.
    pub queries: Array2<f32>,
    /// n_corpus × d.
    pub corpus: Array2<f32>,
    pub invocation: Option<Invocation>,
}

/// One row of `data/stacked_distractors.jsonl` (paper Appendix G.2): 2–4 kept single edits of a
/// canonical composed into one variant that still fails the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct StackedVariant {
    pub id: String,
    /// Query row.
    pub query: usize,
    /// Corpus rows of the single-edit distractors it composes.
    pub parts: Vec<usize>,
    pub n_edits: usize,
    pub bug_types: Vec<String>,
    pub code: String,
}

/// A loaded bundle. Built by `bundle::load`, or by hand in tests.
#[derive(Clone, Debug, Default)]
pub struct Bundle {
    pub root: PathBuf,
    pub queries: Vec<Query>,
    pub corpus: Vec<Snippet>,
    pub distractors: Vec<DistractorMeta>,
    pub cache: Vec<ExecRecord>,
    pub systems: Vec<DenseSystem>,
    /// SHA-256 of every file read, keyed by bundle-relative path.
    pub sha256: BTreeMap<String, String>,
    /// Which encoding of `tests_sha256` matched the cache ("python-json-compact", …), if any did.
    pub tests_key_encoding: Option<TestsEncoding>,
    /// Non-fatal findings of the loader, shown by `check` and in reports.
    pub notes: Vec<String>,
    /// Stacked variants, when the bundle carries `data/stacked_distractors.jsonl`.
    pub stacked: Vec<StackedVariant>,
    /// Per dense system id: the passage vectors of `stacked` (npz array `stacked`), rows aligned.
    pub stacked_vectors: BTreeMap<String, Array2<f32>>,
}

impl Bundle {
    /// The oracle job of snippet row `c` against query row `q`: its code, the query's tests, and
    /// the query's function under test as the entry point (so a test's use of that name reaches
    /// the snippet even where it is a builtin's, and no other builtin does).
    pub fn job(&self, q: usize, c: usize) -> execscope_record::Job {
        let query = &self.queries[q];
        execscope_record::Job::new(self.corpus[c].code.clone(), query.tests.clone())
            .entry(&query.function_name)
    }

    /// Row of a corpus id, by linear search (use a map for bulk lookups).
    pub fn corpus_row(&self, id: &str) -> Option<usize> {
        self.corpus.iter().position(|s| s.id == id)
    }

    /// Row of a query id.
    pub fn query_row(&self, id: &str) -> Option<usize> {
        self.queries.iter().position(|q| q.id == id)
    }

    /// The languages of the queries, in [`Language::ALL`] order (Python alone for a bundle that
    /// names none).
    pub fn languages(&self) -> Vec<Language> {
        Language::ALL
            .into_iter()
            .filter(|l| self.queries.iter().any(|q| q.language == *l))
            .collect()
    }

    /// Domains present, in [`DOMAINS`] order first, then any others sorted; "" excluded.
    pub fn domains(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for d in DOMAINS {
            if self.queries.iter().any(|q| q.domain == d) {
                seen.push(d.to_string());
            }
        }
        let mut others: Vec<String> = self
            .queries
            .iter()
            .filter(|q| !q.domain.is_empty() && !DOMAINS.contains(&q.domain.as_str()))
            .map(|q| q.domain.clone())
            .collect();
        others.sort();
        others.dedup();
        seen.extend(others);
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bug_types_order_paper_first_then_catalogue_then_names_then_unknown() {
        let got = order_bug_types([
            "unknown",
            "zz_custom",
            "wrong_constant",
            "wrong_operator",
            "negate_condition",
            "a_custom",
            "off_by_one",
            "wrong_operator",
        ]);
        assert_eq!(
            got,
            [
                "off_by_one",
                "wrong_operator",
                "negate_condition",
                "wrong_constant",
                "a_custom",
                "zz_custom",
                "unknown"
            ]
        );
        // The full catalogue comes out in its own order, each name once.
        let all: Vec<&str> = BUG_TYPES.iter().chain(&MORE_BUG_TYPES).copied().collect();
        let mut shuffled = all.clone();
        shuffled.reverse();
        assert_eq!(order_bug_types(shuffled), all);
        let distinct: std::collections::HashSet<&str> = all.iter().copied().collect();
        assert_eq!(distinct.len(), all.len());
    }
}
