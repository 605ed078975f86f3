//! Suite strength of a built bundle, from the `build_report.json` `execscope build` leaves
//! beside it (every mutant that is not a distractor, with its reason and outcomes) and the
//! bundle's own distractor metadata (every kept mutant, killed by construction). The report is
//! not listed in `SHA256SUMS`, so it is read like any untrusted file: confined to the bundle,
//! bounded, and refused with its line and column when it is not what a build writes.

use super::{suite_strength, MutantRow, MutantStatus, SuiteStrength, SuiteTask};
use crate::bundle::check::{CheckItem, CheckStatus};
use crate::bundle::{files, load, Bundle, BundleError, LoadOptions};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// The build report, relative to the bundle root.
pub const BUILD_REPORT: &str = "build_report.json";

#[derive(Deserialize)]
struct ReportFile {
    /// Absent: not a report of `execscope build`.
    dropped: Option<Vec<DroppedRow>>,
}

#[derive(Deserialize)]
struct DroppedRow {
    task_id: String,
    bug_type: String,
    operator: String,
    line: usize,
    before: String,
    after: String,
    reason: String,
    #[serde(default)]
    outcomes: Vec<String>,
    /// Written by builds since suite strength; older reports locate the edit by line.
    start: Option<usize>,
    end: Option<usize>,
}

/// The bundle's queries as the tasks the build measured (a query's `entry_id` is its task id).
pub fn tasks(b: &Bundle) -> Vec<SuiteTask<'_>> {
    b.queries
        .iter()
        .filter_map(|q| {
            let canon = *q.correct.first()?;
            Some(SuiteTask {
                task_id: &q.entry_id,
                query_id: &q.id,
                query: &q.text,
                canonical: &b.corpus[canon].code,
            })
        })
        .collect()
}

/// The kept distractors as killed mutants of their tasks.
fn kept_rows(b: &Bundle) -> Vec<MutantRow> {
    let by_id: HashMap<&str, usize> = b
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    b.distractors
        .iter()
        .filter_map(|d| {
            let q = &b.queries[*by_id.get(d.query_id.as_str())?];
            let canonical = &b.corpus[*q.correct.first()?].code;
            let at = d.edit.start.min(canonical.len());
            Some(MutantRow {
                task_id: q.entry_id.clone(),
                bug_type: d.bug_type.clone(),
                operator: d.operator.clone(),
                line: 1 + canonical.as_bytes()[..at]
                    .iter()
                    .filter(|&&c| c == b'\n')
                    .count(),
                before: d.edit.before.clone(),
                after: d.edit.after.clone(),
                span: Some((d.edit.start, d.edit.end)),
                status: MutantStatus::Killed,
            })
        })
        .collect()
}

/// Suite strength of the bundle `b` from its build report; `None` when it has none (or the
/// file is not a build report).
pub fn from_bundle(b: &Bundle) -> Result<Option<SuiteStrength>, BundleError> {
    let path = b.root.join(BUILD_REPORT);
    let bytes = match files::read_in(&b.root, BUILD_REPORT) {
        Err(BundleError::Missing { .. }) => return Ok(None),
        other => other?,
    };
    Ok(parse_report(&path, &bytes)?.map(|rows| with_kept(b, rows)))
}

/// The mutant rows of a build report's bytes (`path` names it in errors); `None` when it is
/// not a report of `execscope build` (no `dropped`).
pub fn parse_report(path: &Path, bytes: &[u8]) -> Result<Option<Vec<MutantRow>>, BundleError> {
    let text = files::json_text(path, bytes)?;
    let report: ReportFile = serde_json::from_str(text).map_err(|e| BundleError::InvalidJson {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        detail: e.to_string(),
    })?;
    let Some(dropped) = report.dropped else {
        return Ok(None);
    };
    let rows: Vec<MutantRow> = dropped
        .into_iter()
        .map(|d| MutantRow {
            status: MutantStatus::from_row(&d.reason, &d.outcomes),
            span: d.start.zip(d.end),
            task_id: d.task_id,
            bug_type: d.bug_type,
            operator: d.operator,
            line: d.line,
            before: d.before,
            after: d.after,
        })
        .collect();
    Ok(Some(rows))
}

/// Suite strength of the bundle `b` from the rows of its mutants that are not distractors
/// (the build's dropped rows) and its distractors: what the build report holds and what
/// [`from_bundle`] reads back.
pub fn with_kept(b: &Bundle, mut dropped: Vec<MutantRow>) -> SuiteStrength {
    dropped.extend(kept_rows(b));
    suite_strength(&dropped, &tasks(b))
}

/// Tasks named in `check`'s line.
const WEAKEST: usize = 3;

/// `check`'s line for the bundle at `root`: suite strength overall, the weakest tasks, and the
/// suite gaps (a warning when there is one). `None` when the bundle does not load (the other
/// checks say why) or has no build report.
pub fn check_item(root: &Path) -> Option<CheckItem> {
    let opts = LoadOptions {
        verify_checksums: false,
        systems: None,
        skip_embeddings: true,
    };
    let b = load(root, &opts).ok()?;
    let s = match from_bundle(&b) {
        Ok(s) => s?,
        Err(e) => {
            return Some(CheckItem {
                name: "suite strength".into(),
                status: CheckStatus::Warn,
                detail: format!("{BUILD_REPORT} unreadable: {e}"),
            })
        }
    };
    let o = &s.overall;
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let weakest: Vec<String> = s
        .tasks
        .iter()
        .filter(|t| t.tally.survived > 0)
        .take(WEAKEST)
        .map(|t| format!("{} {}/{}", t.task_id, t.tally.killed, t.tally.scored()))
        .collect();
    let gaps: Vec<String> = s
        .gaps()
        .map(|g| {
            format!(
                "{} line {} `{}` → `{}`",
                g.task_id, g.line, g.before, g.after
            )
        })
        .collect();
    let mut detail = format!(
        "{} mutants of {} tasks: {} killed, {} survive (score {}, survival {}); {} equivalent, \
         {} duplicate, {} not compiling, {} not executed",
        o.mutants,
        s.tasks.len(),
        o.killed,
        o.survived,
        pct(o.kill_rate()),
        pct(o.survival_rate()),
        o.equivalent,
        o.duplicate,
        o.not_compiling,
        o.not_executed
    );
    if !weakest.is_empty() {
        detail.push_str(&format!("; weakest: {}", weakest.join(", ")));
    }
    detail.push_str(&format!("; {} suite gaps", gaps.len()));
    if let Some(first) = gaps.first() {
        detail.push_str(&format!(" (first: {first})"));
    }
    Some(CheckItem {
        name: "suite strength".into(),
        status: if gaps.is_empty() {
            CheckStatus::Pass
        } else {
            CheckStatus::Warn
        },
        detail,
    })
}
