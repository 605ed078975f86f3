//! What a build did: the terminal summary (the paper's Tables 1 and 2 for the built bundle) and
//! `BUNDLE/build_report.json` (the same plus every refusal, drop and collision).

use super::gates::{Admitted, Collision, Dropped, GateLog};
use super::stacked::StackedStats;
use super::task::{Gate, Refusal};
use execscope_core::analysis::suites::{MutantRow, MutantStatus, SuiteStrength};
use execscope_core::bundle::model::{bug_type_key, order_bug_types, Bundle, BUG_TYPES, DOMAINS};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The result of `build`.
#[derive(Clone, Debug, Serialize)]
pub struct BuildReport {
    pub builder: String,
    pub source: String,
    /// The task file's format (`execscope`, `humaneval`, `mbpp`, `evalplus`).
    pub format: String,
    /// Gate 1's rule on the number of tests per task (`3..`, or the paper's `7..10`).
    pub tests_rule: String,
    /// The gate rules applied: the paper's or the benchmark rule ([`crate::rules`]).
    pub rules: crate::rules::Rules,
    /// What the reader left out of kept tasks' suites, and why (EvalPlus inputs).
    pub reader_notes: Vec<crate::formats::tasks::Note>,
    pub seed: u64,
    /// The mutation families (`paper`, `all` or their names, see `mutate::Operators`).
    pub operators: String,
    pub tasks_read: usize,
    pub tasks_kept: usize,
    /// Refusals per gate, every gate listed.
    pub refused_by_gate: BTreeMap<String, usize>,
    pub refusals: Vec<Refusal>,
    pub queries: usize,
    pub corpus: usize,
    /// Table 2: kept distractors by bug type (the paper's six first, all listed; then the
    /// others present, in report order).
    pub distractors_by_bug_type: Vec<(String, usize)>,
    /// Queries keeping 4, 3, 2 and 1 distractors (2 and 1 only under a rule that allows
    /// fewer than the paper's 3, see `rules.min_keep`).
    pub queries_with_4: usize,
    pub queries_with_3: usize,
    pub queries_with_2: usize,
    pub queries_with_1: usize,
    /// Table 1: queries per domain (ten domains, then "" as "unknown" when present).
    pub queries_by_domain: Vec<(String, usize)>,
    /// Kept distractors by how many tests they fail: (tests failed, distractors), ascending.
    pub distractors_by_failing_tests: Vec<(usize, usize)>,
    /// Kept distractors failing exactly one test: their label rests on that one test.
    pub distractors_failing_one_test: usize,
    pub failing_one_test: Vec<SingleTest>,
    /// Kept tasks that carry an `independent` implementation (all of which passed every test).
    pub tasks_with_independent: usize,
    pub mutants_generated: usize,
    /// Mutants settled before execution by their compiled code, per family.
    pub equivalence: Equivalence,
    /// How many mutants each task's tests kill, per family and per task, and the survivors
    /// with their diffs and suite gaps (docs/analysis.md, "Suite strength").
    pub suite_strength: SuiteStrength,
    pub drops_by_reason: BTreeMap<String, usize>,
    pub dropped: Vec<Dropped>,
    pub collisions: Vec<Collision>,
    pub stacked: Option<StackedStats>,
    /// Pairs handed to the oracle, and the rows of the execution cache (pairs whose code the
    /// bundle ships; dropped mutants' outcomes are in `dropped`).
    pub pairs_executed: usize,
    /// Pairs answered from an earlier build's memo instead of the oracle.
    pub pairs_reused: usize,
    pub cache_rows: usize,
    pub oracle_seconds: f64,
    pub pairs_per_second: f64,
    pub isolation: String,
    pub privileges: String,
    pub runner: String,
}

/// What compiled code settled before execution (`equivalence`): whether it ran, and per
/// family (report order) the mutants and how many were equivalent to the canonical, duplicates
/// of another mutant, or refused by CPython.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Equivalence {
    pub checked: bool,
    pub note: String,
    pub by_family: Vec<FamilySettled>,
}

/// One family's row of [`Equivalence`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FamilySettled {
    pub bug_type: String,
    pub mutants: usize,
    pub equivalent: usize,
    pub duplicate: usize,
    pub not_compiling: usize,
}

/// [`Equivalence`] from the gate log: every mutant is a kept distractor or a dropped row.
pub fn equivalence(log: &GateLog, admitted: &[Admitted]) -> Equivalence {
    let kept = admitted
        .iter()
        .flat_map(|a| a.kept.iter().map(|m| (&m.bug_type, "kept")));
    let rows = log.dropped.iter().map(|d| (&d.bug_type, d.reason.as_str()));
    let mut by: BTreeMap<String, FamilySettled> = BTreeMap::new();
    for (t, reason) in kept.chain(rows) {
        let e = by.entry(t.clone()).or_insert_with(|| FamilySettled {
            bug_type: t.clone(),
            ..FamilySettled::default()
        });
        e.mutants += 1;
        match reason {
            "equivalent" => e.equivalent += 1,
            "duplicate_mutant" => e.duplicate += 1,
            "does_not_compile" => e.not_compiling += 1,
            _ => {}
        }
    }
    let order = order_bug_types(by.keys().cloned());
    Equivalence {
        checked: log.equivalence.checked,
        note: log.equivalence.note.clone(),
        by_family: order.iter().filter_map(|t| by.remove(t)).collect(),
    }
}

/// Suite strength of the built bundle: every dropped row and every kept distractor.
pub fn suite_strength(log: &GateLog, bundle: &Bundle) -> SuiteStrength {
    let rows = log
        .dropped
        .iter()
        .map(|d| MutantRow {
            task_id: d.task_id.clone(),
            bug_type: d.bug_type.clone(),
            operator: d.operator.clone(),
            line: d.line,
            before: d.before.clone(),
            after: d.after.clone(),
            span: Some((d.start, d.end)),
            status: MutantStatus::from_row(&d.reason, &d.outcomes),
        })
        .collect();
    execscope_core::analysis::suites::with_kept(bundle, rows)
}

/// A kept distractor that fails exactly one test.
#[derive(Clone, Debug, Serialize)]
pub struct SingleTest {
    pub corpus_id: String,
    pub query_id: String,
    pub task_id: String,
    /// 1-based number of the failing test, and its text.
    pub test: usize,
    pub test_text: String,
}

/// Kept distractors by number of failing tests, and those failing exactly one.
pub struct FailingCounts {
    pub histogram: Vec<(usize, usize)>,
    pub one: Vec<SingleTest>,
}

/// Failing-test counts of the kept distractors; `admitted` is what `bundle` was assembled from
/// (query `i` ↔ `admitted[i]`, paired rows ↔ kept mutants in order).
pub fn failing_counts(admitted: &[Admitted], bundle: &Bundle) -> FailingCounts {
    let mut histogram: BTreeMap<usize, usize> = BTreeMap::new();
    let mut one = Vec::new();
    for (a, q) in admitted.iter().zip(&bundle.queries) {
        for (failing, &row) in a.kept_failing.iter().zip(&q.paired) {
            *histogram.entry(failing.len()).or_default() += 1;
            if let [k] = failing.as_slice() {
                one.push(SingleTest {
                    corpus_id: bundle.corpus[row].id.clone(),
                    query_id: q.id.clone(),
                    task_id: a.task.task_id.clone(),
                    test: *k,
                    test_text: a.task.tests.get(k - 1).cloned().unwrap_or_default(),
                });
            }
        }
    }
    FailingCounts {
        histogram: histogram.into_iter().collect(),
        one,
    }
}

/// Named counts, in report order.
pub type Counts = Vec<(String, usize)>;

/// Table 2 (distractors by bug type) and Table 1 (queries by domain) of a built bundle.
pub fn tables(b: &Bundle) -> (Counts, Counts) {
    let mut by_type: Vec<(String, usize)> = BUG_TYPES.iter().map(|t| (t.to_string(), 0)).collect();
    for s in &b.corpus {
        if let Some(t) = &s.bug_type {
            match by_type.iter_mut().find(|(n, _)| n == t) {
                Some(e) => e.1 += 1,
                None => by_type.push((t.clone(), 1)),
            }
        }
    }
    // The paper's six always (zeros included), then the others in report order.
    by_type.sort_by(|a, b| bug_type_key(&a.0).cmp(&bug_type_key(&b.0)));
    let mut by_domain: Vec<(String, usize)> = DOMAINS.iter().map(|d| (d.to_string(), 0)).collect();
    for q in &b.queries {
        let d = if q.domain.is_empty() {
            "unknown"
        } else {
            &q.domain
        };
        match by_domain.iter_mut().find(|(n, _)| n == d) {
            Some(e) => e.1 += 1,
            None => by_domain.push((d.to_string(), 1)),
        }
    }
    (by_type, by_domain)
}

/// Refusals per gate, with every gate present.
pub fn by_gate(refusals: &[Refusal]) -> BTreeMap<String, usize> {
    Gate::ALL
        .iter()
        .map(|g| {
            (
                g.as_str().to_string(),
                refusals.iter().filter(|r| r.gate == *g).count(),
            )
        })
        .collect()
}

fn pct(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

impl BuildReport {
    /// The read line's tail on the reader's notes: inputs left out (EvalPlus), and tasks whose
    /// tests are HumanEval's Python `check` because their native test could not be translated
    /// (HumanEval-X JavaScript); "" when there is none.
    fn reader_notes_line(&self) -> String {
        let python = self
            .reader_notes
            .iter()
            .filter(|n| {
                n.note
                    .starts_with(crate::formats::humanevalx::PYTHON_CHECK_NOTE)
            })
            .count();
        let inputs = self.reader_notes.len() - python;
        let mut out = String::new();
        if inputs > 0 {
            out.push_str(&format!("; {inputs} inputs left out by the reader"));
        }
        if python > 0 {
            out.push_str(&format!(
                "; {python} tasks tested by HumanEval's Python check, their native test not \
                 translated"
            ));
        }
        if !out.is_empty() {
            out.push_str(&format!(" (reader_notes in {})", crate::REPORT_FILE));
        }
        out
    }

    /// The summary's line on mutants settled by their compiled code.
    fn fmt_equivalence(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.equivalence;
        let sum = |f: fn(&FamilySettled) -> usize| e.by_family.iter().map(f).sum::<usize>();
        let families: Vec<String> = e
            .by_family
            .iter()
            .filter(|r| r.equivalent + r.duplicate + r.not_compiling > 0)
            .map(|r| {
                format!(
                    "{} {}/{}/{}",
                    r.bug_type, r.equivalent, r.duplicate, r.not_compiling
                )
            })
            .collect();
        writeln!(
            f,
            "settled before execution by compiled code ({}): {} equivalent, {} duplicate, {} not \
             compiling{}",
            e.note,
            sum(|r| r.equivalent),
            sum(|r| r.duplicate),
            sum(|r| r.not_compiling),
            if families.is_empty() {
                String::new()
            } else {
                format!(
                    " (equivalent/duplicate/not compiling: {})",
                    families.join(", ")
                )
            }
        )?;
        Ok(())
    }

    /// The summary's suite-strength lines: overall, per family, every suite gap.
    fn fmt_suite_strength(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.suite_strength;
        let weakest: Vec<String> = s
            .tasks
            .iter()
            .filter(|t| t.tally.survived > 0)
            .take(5)
            .map(|t| format!("{} {}/{}", t.task_id, t.tally.killed, t.tally.scored()))
            .collect();
        writeln!(
            f,
            "suite strength: {} of {} scored mutants killed ({:.1}%, survival {:.1}%); weakest: \
             {}; {} suite gaps",
            s.overall.killed,
            s.overall.scored(),
            100.0 * s.overall.kill_rate(),
            100.0 * s.overall.survival_rate(),
            if weakest.is_empty() {
                "none survive".to_string()
            } else {
                weakest.join(", ")
            },
            s.gaps().count()
        )?;
        for r in &s.families {
            writeln!(
                f,
                "  {:<24} {:>5} killed of {:>5}  survival {:>5.1}%",
                r.bug_type,
                r.tally.killed,
                r.tally.scored(),
                100.0 * r.tally.survival_rate()
            )?;
        }
        for g in s.gaps() {
            writeln!(
                f,
                "suite gap: {} line {}: `{}` → `{}` survives; {}",
                g.task_id,
                g.line,
                g.before,
                g.after,
                g.gap.as_deref().unwrap_or("")
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for BuildReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "build {} (seed {}, operators {}): {} tasks read, {} kept, {} refused",
            self.source,
            self.seed,
            self.operators,
            self.tasks_read,
            self.tasks_kept,
            self.refusals.len()
        )?;
        writeln!(
            f,
            "  read as {}; {}{}",
            self.format,
            self.rules,
            self.reader_notes_line()
        )?;
        for g in Gate::ALL {
            writeln!(
                f,
                "  refused at {:<22} {}",
                g.as_str(),
                self.refused_by_gate.get(g.as_str()).copied().unwrap_or(0)
            )?;
        }
        let fewer = match (self.queries_with_2, self.queries_with_1) {
            (0, 0) => String::new(),
            (two, one) => format!(", {two} with 2, {one} with 1"),
        };
        writeln!(
            f,
            "queries {}, corpus {} ({} with 4 distractors, {} with 3{fewer})",
            self.queries, self.corpus, self.queries_with_4, self.queries_with_3
        )?;
        writeln!(f, "Table 1: queries by domain")?;
        for (d, n) in &self.queries_by_domain {
            writeln!(f, "  {d:<22} {n:>5}")?;
        }
        let total: usize = self.distractors_by_bug_type.iter().map(|(_, n)| n).sum();
        writeln!(f, "Table 2: distractors by bug type")?;
        for (t, n) in &self.distractors_by_bug_type {
            writeln!(f, "  {t:<22} {n:>5}  {:>5.1}%", pct(*n, total))?;
        }
        writeln!(f, "  {:<22} {total:>5}  100.0%", "total")?;
        let kept: usize = self
            .distractors_by_failing_tests
            .iter()
            .map(|(_, n)| n)
            .sum();
        writeln!(
            f,
            "distractors failing exactly one test: {} of {kept} ({:.1}%); tasks with an \
             independent implementation: {} of {}",
            self.distractors_failing_one_test,
            pct(self.distractors_failing_one_test, kept),
            self.tasks_with_independent,
            self.tasks_kept
        )?;
        let drops: Vec<String> = self
            .drops_by_reason
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect();
        writeln!(
            f,
            "mutants generated {}; dropped: {}",
            self.mutants_generated,
            if drops.is_empty() {
                "none".to_string()
            } else {
                drops.join(", ")
            }
        )?;
        self.fmt_equivalence(f)?;
        self.fmt_suite_strength(f)?;
        let passing = self
            .collisions
            .iter()
            .filter(|c| c.passes_all_tests)
            .count();
        writeln!(
            f,
            "cross-query name collisions executed {}, passing {}",
            self.collisions.len(),
            passing
        )?;
        if let Some(s) = &self.stacked {
            writeln!(
                f,
                "stacked: {} composed, {} kept (2/3/4 edits: {}/{}/{}), {} passed all tests, \
                 {} queries covered",
                s.composed,
                s.kept,
                s.kept_by_edits[0],
                s.kept_by_edits[1],
                s.kept_by_edits[2],
                s.passed_all,
                s.queries_covered
            )?;
        }
        writeln!(
            f,
            "pairs executed {} (+{} reused from the previous build; {} cache rows) in {:.1} s: \
             {:.1} pairs/s; isolation {} ({})",
            self.pairs_executed,
            self.pairs_reused,
            self.cache_rows,
            self.oracle_seconds,
            self.pairs_per_second,
            self.isolation,
            self.privileges
        )?;
        for r in &self.refusals {
            writeln!(f, "refused: {r}")?;
        }
        Ok(())
    }
}
