//! `report --table suites | suite-tasks | survivors`: test-suite strength of a built bundle
//! (rows from `analysis::suites`, read from its build report), formatted, never recomputed.

use super::table::{Align, Table, TableCell};
use crate::analysis::suites::{SuiteStrength, Tally};

const CAPTION: &str = "A mutant is killed when it fails at least one of its task's tests (a wrong value, an exception or a timeout) and survives when it passes them all; mutation score = killed / (killed + survived), survival rate = survived / (killed + survived) (mutmut's). Equivalent (compiles to the canonical's code), duplicate (compiles to another mutant's), not compiling and not executed (a signature edit the query does not state, an oracle error) mutants are counted apart and in neither. Mutants of the build's operator families (build_report.json).";

/// The tally's count columns and rates, after the first column.
fn tally_columns(t: Table) -> Table {
    t.column("mutants", "mutants", Align::Right)
        .column("killed", "killed", Align::Right)
        .column("survived", "survived", Align::Right)
        .column("mutation score", "mutation_score", Align::Right)
        .column("survival rate", "survival_rate", Align::Right)
        .column("equivalent", "equivalent", Align::Right)
        .column("duplicate", "duplicate", Align::Right)
        .column("not compiling", "not_compiling", Align::Right)
        .column("not executed", "not_executed", Align::Right)
}

fn tally_cells(t: &Tally) -> Vec<TableCell> {
    vec![
        TableCell::int(t.mutants),
        TableCell::int(t.killed),
        TableCell::int(t.survived),
        TableCell::pct(t.kill_rate(), 1),
        TableCell::pct(t.survival_rate(), 1),
        TableCell::int(t.equivalent),
        TableCell::int(t.duplicate),
        TableCell::int(t.not_compiling),
        TableCell::int(t.not_executed),
    ]
}

/// Per family (the paper's six first, then the catalogue's), then overall.
pub fn suites_table(s: &SuiteStrength) -> Table {
    let mut t = tally_columns(
        Table::new("suites", "Test-suite strength by bug type").column(
            "bug type",
            "bug_type",
            Align::Left,
        ),
    );
    for f in &s.families {
        let mut row = vec![TableCell::text(&f.bug_type)];
        row.extend(tally_cells(&f.tally));
        t.push(row);
    }
    let mut row = vec![TableCell::text("overall")];
    row.extend(tally_cells(&s.overall));
    t.push(row);
    t.caption(CAPTION)
}

/// Per task, weakest first.
pub fn suite_tasks_table(s: &SuiteStrength) -> Table {
    let mut t = tally_columns(
        Table::new("suite_tasks", "Test-suite strength by task, weakest first")
            .column("task", "task_id", Align::Left)
            .column("query", "query_id", Align::Left),
    )
    .column("suite gaps", "suite_gaps", Align::Right)
    .column(
        "survivors by bug type",
        "survivors_by_bug_type",
        Align::Left,
    );
    for r in &s.tasks {
        let mut row = vec![TableCell::text(&r.task_id), TableCell::text(&r.query_id)];
        row.extend(tally_cells(&r.tally));
        row.push(TableCell::int(r.gaps));
        let fams: Vec<String> = r
            .survivors_by_family
            .iter()
            .map(|(f, n)| format!("{f} {n}"))
            .collect();
        row.push(TableCell::text(fams.join(", ")));
        t.push(row);
    }
    t.caption(format!(
        "{CAPTION} Tasks are ordered by mutation score (lowest first), then by survivors (most first); tasks without a scored mutant come last. A suite gap is a surviving mutant that changes a literal the query states."
    ))
}

/// One line of a diff cell: the hunk's lines joined by ` ⏎ `, indentation collapsed.
fn diff_line(diff: &str) -> String {
    if !diff.starts_with("@@") {
        return diff.to_string(); // an edit the report could not locate, named
    }
    diff.lines()
        .filter(|l| !l.starts_with("@@"))
        .map(|l| {
            let (sign, rest) = l.split_at(l.chars().next().map_or(0, char::len_utf8));
            format!("{sign} {}", rest.trim())
        })
        .collect::<Vec<_>>()
        .join(" ⏎ ")
}

/// Every surviving mutant, by task then line, with its diff and whether it is a suite gap.
pub fn survivors_table(s: &SuiteStrength) -> Table {
    let mut t = Table::new("survivors", "Mutants every test lets through")
        .column("task", "task_id", Align::Left)
        .column("query", "query_id", Align::Left)
        .column("bug type", "bug_type", Align::Left)
        .column("operator", "operator", Align::Left)
        .column("line", "line", Align::Right)
        .column("diff", "diff", Align::Left)
        .column("suite gap", "suite_gap", Align::Left);
    for v in &s.survivors {
        t.push(vec![
            TableCell::text(&v.task_id),
            TableCell::text(&v.query_id),
            TableCell::text(&v.bug_type),
            TableCell::text(&v.operator),
            TableCell::int(v.line),
            TableCell::text(diff_line(&v.diff)),
            TableCell::text(v.gap.as_deref().unwrap_or("")),
        ]);
    }
    t.caption(
        "diff: the changed lines of the canonical, - before and + after (⏎ separates lines). A suite gap: the query states the literal the mutant changes (as a whole token, or a string's content in quotes), yet no test fails; build_report.json holds each survivor's full diff.",
    )
}
