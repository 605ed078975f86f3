//! Test-suite strength (docs/analysis.md, "Suite strength"): per task and per bug-type family,
//! how many of the build's mutants the task's tests kill, which survive (with their diffs), and
//! which survivors change behaviour the query states (suite gaps). Computed from the mutants a
//! build records (`build_report.json`'s `dropped` rows and the kept distractors), so the same
//! rows give the same numbers in the build report, `check` and `report --table suites`.
//!
//! A mutant is *killed* when it fails at least one test (a wrong value, an exception, a
//! timeout), *survives* when it passes them all. The mutation score is killed / (killed +
//! survived), the survival rate (mutmut's) its complement. Mutants that were never executed
//! count apart and in neither: equivalent to the canonical (they cannot be killed), duplicates
//! of another mutant (one program, counted once, as that one), refused by CPython, or not run
//! (a signature edit the query does not state, an oracle error).

mod file;

pub use file::{check_item, from_bundle, parse_report, tasks, with_kept, BUILD_REPORT};

use super::stated::quoted_literal;
use crate::bundle::model::order_bug_types;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What happened to one mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantStatus {
    Killed,
    Survived,
    Equivalent,
    Duplicate,
    NotCompiling,
    NotExecuted,
}

impl MutantStatus {
    /// A build-report row's status: an executed row (it has outcomes) is killed when one
    /// outcome is not `pass`, survived otherwise; an unexecuted one is named by its reason.
    pub fn from_row(reason: &str, outcomes: &[String]) -> MutantStatus {
        if !outcomes.is_empty() {
            return if outcomes.iter().all(|o| o == "pass") {
                MutantStatus::Survived
            } else {
                MutantStatus::Killed
            };
        }
        match reason {
            "equivalent" => MutantStatus::Equivalent,
            "duplicate_mutant" => MutantStatus::Duplicate,
            "does_not_compile" => MutantStatus::NotCompiling,
            _ => MutantStatus::NotExecuted,
        }
    }
}

/// One mutant of one task, as a build records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutantRow {
    pub task_id: String,
    pub bug_type: String,
    pub operator: String,
    /// 1-based line of the edit in the canonical.
    pub line: usize,
    pub before: String,
    pub after: String,
    /// Byte offsets of the edit in the canonical, when the build recorded them.
    pub span: Option<(usize, usize)>,
    pub status: MutantStatus,
}

/// A task (one query of the bundle) the rows are measured against.
#[derive(Clone, Copy, Debug)]
pub struct SuiteTask<'a> {
    pub task_id: &'a str,
    pub query_id: &'a str,
    pub query: &'a str,
    pub canonical: &'a str,
}

/// Counts of mutants by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub mutants: usize,
    pub killed: usize,
    pub survived: usize,
    pub equivalent: usize,
    pub duplicate: usize,
    pub not_compiling: usize,
    pub not_executed: usize,
}

impl Tally {
    fn add(&mut self, s: MutantStatus) {
        self.mutants += 1;
        match s {
            MutantStatus::Killed => self.killed += 1,
            MutantStatus::Survived => self.survived += 1,
            MutantStatus::Equivalent => self.equivalent += 1,
            MutantStatus::Duplicate => self.duplicate += 1,
            MutantStatus::NotCompiling => self.not_compiling += 1,
            MutantStatus::NotExecuted => self.not_executed += 1,
        }
    }

    /// Killed plus survived: the mutants the score is over.
    pub fn scored(&self) -> usize {
        self.killed + self.survived
    }

    /// The mutation score, killed / scored (NaN when nothing was scored).
    pub fn kill_rate(&self) -> f64 {
        rate(self.killed, self.scored())
    }

    /// mutmut's survival rate, survived / scored (NaN when nothing was scored).
    pub fn survival_rate(&self) -> f64 {
        rate(self.survived, self.scored())
    }
}

fn rate(n: usize, d: usize) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        n as f64 / d as f64
    }
}

/// One family's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FamilyStrength {
    pub bug_type: String,
    #[serde(flatten)]
    pub tally: Tally,
}

/// One task's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskStrength {
    pub task_id: String,
    pub query_id: String,
    #[serde(flatten)]
    pub tally: Tally,
    /// Surviving mutants that change a literal the query states.
    pub gaps: usize,
    /// Survivors per family, in report order.
    pub survivors_by_family: Vec<(String, usize)>,
}

/// A surviving mutant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Survivor {
    pub task_id: String,
    pub query_id: String,
    pub bug_type: String,
    pub operator: String,
    pub line: usize,
    pub before: String,
    pub after: String,
    /// The changed lines, `-` before and `+` after (see [`line_diff`]).
    pub diff: String,
    /// Why this is a suite gap (the query states what the edit changes), if it is one.
    pub gap: Option<String>,
}

/// Suite strength of a build.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SuiteStrength {
    pub overall: Tally,
    /// Per family, in report order (`bundle::model::bug_type_key`).
    pub families: Vec<FamilyStrength>,
    /// Per task, weakest first: lowest mutation score, then most survivors, then bundle order;
    /// tasks without a scored mutant last.
    pub tasks: Vec<TaskStrength>,
    /// Every survivor, in task (bundle) order, then by line and operator.
    pub survivors: Vec<Survivor>,
}

impl SuiteStrength {
    /// The suite gaps among the survivors.
    pub fn gaps(&self) -> impl Iterator<Item = &Survivor> {
        self.survivors.iter().filter(|s| s.gap.is_some())
    }
}

/// Suite strength of `rows` against `tasks` (rows of a task not listed are left out: a task
/// the build refused has no suite in the bundle).
pub fn suite_strength(rows: &[MutantRow], tasks: &[SuiteTask]) -> SuiteStrength {
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.task_id, i))
        .collect();
    let mut overall = Tally::default();
    let mut by_family: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_task: Vec<(Tally, BTreeMap<String, usize>, usize)> =
        vec![Default::default(); tasks.len()];
    let mut survivors: Vec<(usize, Survivor)> = Vec::new();
    for r in rows {
        let Some(&ti) = index.get(r.task_id.as_str()) else {
            continue;
        };
        overall.add(r.status);
        by_family
            .entry(r.bug_type.clone())
            .or_default()
            .add(r.status);
        let (tally, fams, gaps) = &mut by_task[ti];
        tally.add(r.status);
        if r.status != MutantStatus::Survived {
            continue;
        }
        *fams.entry(r.bug_type.clone()).or_default() += 1;
        let t = &tasks[ti];
        let gap = quoted_literal(t.query, &r.before);
        *gaps += usize::from(gap.is_some());
        let survivor = Survivor {
            task_id: r.task_id.clone(),
            query_id: t.query_id.to_string(),
            bug_type: r.bug_type.clone(),
            operator: r.operator.clone(),
            line: r.line,
            before: r.before.clone(),
            after: r.after.clone(),
            diff: line_diff(t.canonical, r),
            gap,
        };
        survivors.push((ti, survivor));
    }
    survivors.sort_by(|(a, x), (b, y)| (a, x.line, &x.operator).cmp(&(b, y.line, &y.operator)));
    let families = order_bug_types(by_family.keys().cloned())
        .into_iter()
        .map(|t| FamilyStrength {
            tally: by_family[&t],
            bug_type: t,
        })
        .collect();
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by(|&a, &b| {
        let (ta, tb) = (&by_task[a].0, &by_task[b].0);
        let key = |t: &Tally| (t.scored() == 0, t.kill_rate());
        let (ka, kb) = (key(ta), key(tb));
        ka.0.cmp(&kb.0)
            .then(ka.1.total_cmp(&kb.1))
            .then(tb.survived.cmp(&ta.survived))
            .then(a.cmp(&b))
    });
    let tasks = order
        .into_iter()
        .map(|i| {
            let (tally, fams, gaps) = &by_task[i];
            TaskStrength {
                task_id: tasks[i].task_id.to_string(),
                query_id: tasks[i].query_id.to_string(),
                tally: *tally,
                gaps: *gaps,
                survivors_by_family: order_bug_types(fams.keys().cloned())
                    .into_iter()
                    .map(|f| (f.clone(), fams[&f]))
                    .collect(),
            }
        })
        .collect();
    SuiteStrength {
        overall,
        families,
        tasks,
        survivors: survivors.into_iter().map(|(_, s)| s).collect(),
    }
}

/// The lines an edit changes, as a diff hunk: `@@ -L,n +L,m @@`, then each original line with
/// `-`, each mutated line with `+`. The edit is found by its recorded byte span, or else as the
/// only occurrence of `before` starting on its line; when neither works (an older report whose
/// line holds `before` twice) the diff says `line L: `before` → `after``.
pub fn line_diff(canonical: &str, r: &MutantRow) -> String {
    let located = r
        .span
        .filter(|&(s, e)| canonical.get(s..e) == Some(r.before.as_str()))
        .or_else(|| locate(canonical, r.line, &r.before));
    let Some((start, end)) = located else {
        return format!("line {}: `{}` → `{}`", r.line, r.before, r.after);
    };
    let ls = canonical[..start].rfind('\n').map_or(0, |i| i + 1);
    let le = if end > start && canonical[..end].ends_with('\n') {
        end
    } else {
        canonical[end..]
            .find('\n')
            .map_or(canonical.len(), |i| end + i + 1)
    };
    let old = &canonical[ls..le];
    let new = format!(
        "{}{}{}",
        &canonical[ls..start],
        r.after,
        &canonical[end..le]
    );
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
        (old.lines().collect(), new.lines().collect());
    let line = canonical[..ls].matches('\n').count() + 1;
    let mut out = format!(
        "@@ -{line},{} +{line},{} @@",
        old_lines.len(),
        new_lines.len()
    );
    for l in &old_lines {
        out.push_str(&format!("\n-{l}"));
    }
    for l in &new_lines {
        out.push_str(&format!("\n+{l}"));
    }
    out
}

/// The span of the only occurrence of `before` that starts on 1-based line `line`.
fn locate(canonical: &str, line: usize, before: &str) -> Option<(usize, usize)> {
    let ls = if line <= 1 {
        0
    } else {
        canonical.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let le = canonical[ls..]
        .find('\n')
        .map_or(canonical.len(), |i| ls + i + 1);
    let hits: Vec<usize> = canonical[ls..]
        .match_indices(before)
        .map(|(i, _)| ls + i)
        .take_while(|&i| i < le)
        .collect();
    match hits.as_slice() {
        [s] if !before.is_empty() => Some((*s, s + before.len())),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
