//! Tables of the failure anatomy (definitions: `docs/analysis.md`): misses, density, bug types,
//! deception by domain, edit size, gaps and difficulty, formatted from the core's rows
//! ([`crate::view::anatomy`]).

use super::table::{Align, Table, TableCell};
use crate::analysis::deception::Rate;
use crate::view::anatomy::{AnatomyView, MissRow};

/// A fraction shown as a percentage with one decimal (`12.5%`; `—` when undefined): the one
/// formatter of rates shared by the report and the dashboard.
pub fn pct_text(v: f64) -> String {
    if v.is_finite() {
        format!("{:.1}%", v * 100.0)
    } else {
        "—".to_string()
    }
}

fn pct(v: f64) -> TableCell {
    TableCell::pct(v, 1)
}

fn rate_cell(r: &Rate) -> TableCell {
    let mut c = pct(r.rate());
    c.text = format!("{} ({}/{})", c.text, r.deceived, r.total);
    c
}

/// Rank-1 miss composition per system.
pub fn misses_table(a: &AnatomyView) -> Table {
    let mut t = Table::new("misses", "Rank-1 miss composition")
        .column("system", "system", Align::Left)
        .column("queries", "queries", Align::Right)
        .column("rank-1 misses", "misses", Align::Right)
        .column("paired distractor", "paired_distractor", Align::Right)
        .column("other snippet", "other", Align::Right)
        .column("paired share", "paired_share", Align::Right);
    for MissRow { system, misses: m } in &a.misses {
        t.push(vec![
            TableCell::text(system),
            TableCell::int(m.queries),
            TableCell::num(m.misses(), 1),
            TableCell::num(m.paired_distractor, 1),
            TableCell::num(m.other, 1),
            pct(m.paired_share()),
        ]);
    }
    t.caption(format!(
        "Among queries whose top-1 fails: is it one of the query's own paired distractors? Counts may be fractional under the `{}` tie policy.",
        a.policy()
    ))
}

/// Expected exec@1 by number of retained paired distractors.
pub fn density_table(a: &AnatomyView) -> Table {
    let rows = &a.density;
    let width = rows.iter().map(|s| s.density.len()).max().unwrap_or(0);
    let mut t = Table::new(
        "density",
        "Pool-density ablation: expected exec@1 by retained distractors",
    )
    .column("system", "system", Align::Left);
    for d in 0..width {
        t = t.column(&format!("d={d}"), &format!("d{d}"), Align::Right);
    }
    t = t.column("1-clone drop", "one_clone_drop", Align::Right);
    for s in rows {
        let mut row = vec![TableCell::text(&s.system)];
        for d in 0..width {
            row.push(TableCell::num(
                s.density.get(d).copied().unwrap_or(f64::NAN),
                3,
            ));
        }
        row.push(pct(s.one_clone_drop()));
        t.push(row);
    }
    let cols: Vec<usize> = (1..=width).collect();
    t.mark_best(&cols);
    t.caption(format!(
        "Exact expectation over all retained subsets of each query's own paired distractors; the rest of the corpus unchanged. The last density column is the full pool (= exec@1). Ties: `{}`.",
        a.policy()
    ))
}

/// Figure 5 as a table: deception by bug type (columns: systems pooled, then each system).
pub fn bugtypes_table(a: &AnatomyView) -> Table {
    let mut t = Table::new("bugtypes", "Deception by bug type")
        .column("bug type", "bug_type", Align::Left)
        .column("dense pooled", "dense_pooled", Align::Right)
        .column("tie share", "dense_pooled_tie_share", Align::Right);
    for s in &a.anatomy.systems {
        t = t.column(&s.id, &s.id, Align::Right);
    }
    for r in &a.bugtypes {
        let mut row = vec![
            TableCell::text(r.label()),
            rate_cell(&r.pooled),
            pct(r.pooled.tie_share()),
        ];
        row.extend(r.per_system.iter().map(|x| pct(x.rate())));
        t.push(row);
    }
    t.caption(
        "A (query, paired distractor, system) triple is deceived when s(q, d) ≥ s(q, canonical); an exact tie deceives (tie share shown). Pooled over the dense systems.",
    )
}

/// Deception per domain per system.
pub fn domain_deception_table(a: &AnatomyView) -> Table {
    let domains = &a.deception_domains.domains;
    let mut t = Table::new("deception_domains", "Deception by domain").column(
        "system",
        "system",
        Align::Left,
    );
    for d in domains {
        t = t.column(d, d, Align::Right);
    }
    for s in &a.deception_domains.rows {
        let mut row = vec![TableCell::text(&s.system)];
        row.extend(s.by_domain.iter().map(|(_, r)| pct(r.rate())));
        t.push(row);
    }
    t.caption("Share of (query, paired distractor) pairs scored at least as high as the canonical.")
}

/// Deception per language per system.
pub fn language_deception_table(a: &AnatomyView) -> Table {
    let d = &a.deception_languages;
    let mut t = Table::new("deception_languages", "Deception by language").column(
        "system",
        "system",
        Align::Left,
    );
    for l in &d.languages {
        t = t.column(l.display_name(), l.as_str(), Align::Right);
    }
    for s in &d.rows {
        let mut row = vec![TableCell::text(&s.system)];
        row.extend(s.by_language.iter().map(|(_, r)| pct(r.rate())));
        t.push(row);
    }
    t.caption("Share of (query, paired distractor) pairs scored at least as high as the canonical, by the query's language.")
}

/// Deception by bug type in each language, pooled over the dense systems.
pub fn bugtypes_languages_table(a: &AnatomyView) -> Table {
    let mut t = Table::new("bugtypes_languages", "Deception by bug type and language").column(
        "bug type",
        "bug_type",
        Align::Left,
    );
    let languages = &a.deception_languages.languages;
    for l in languages {
        t = t.column(l.display_name(), l.as_str(), Align::Right);
    }
    for r in &a.bugtypes_languages {
        let mut row = vec![TableCell::text(r.label())];
        row.extend(r.per_language.iter().map(|(_, x)| rate_cell(x)));
        t.push(row);
    }
    t.caption(
        "Deception of each bug type's (query, paired distractor) pairs in each language, pooled over the dense systems (deceived/pairs in parentheses); a family a language has no mutant of is empty (docs/bundle-format.md, \"Bug types in other languages\").",
    )
}

/// Deception by edit-size bucket, pooled over dense systems, with the Spearman ρ.
pub fn editsize_table(a: &AnatomyView) -> Table {
    let mut t = Table::new("editsize", "Deception by edit size")
        .column("edit size", "bucket", Align::Left)
        .column("pairs", "pairs", Align::Right)
        .column("deception (dense pooled)", "deception", Align::Right);
    for r in &a.editsize.rows {
        t.push(vec![
            TableCell::text(&r.bucket),
            TableCell::int(r.pairs),
            rate_cell(&r.deception),
        ]);
    }
    let rho = a
        .editsize
        .spearman
        .map_or("undefined".to_string(), |r| format!("{r:+.3}"));
    t.caption(format!(
        "Edit size: characters spanned by the non-equal regions of a character-level diff (each run counts max(deleted, inserted)). Tie-aware Spearman ρ between edit size and per-pair deception averaged over the dense systems: {rho}."
    ))
}

/// §5.4: canonical-vs-best-distractor gap per system.
pub fn gaps_table(a: &AnatomyView) -> Table {
    let mut t = Table::new("gaps", "Canonical vs best paired distractor")
        .column("system", "system", Align::Left)
        .column("queries", "queries", Align::Right)
        .column("gap < 0", "below_zero", Align::Right)
        .column("gap = 0", "zero", Align::Right)
        .column("median gap", "median", Align::Right)
        .column("mean gap", "mean", Align::Right);
    for r in &a.gaps {
        let g = &r.summary;
        t.push(vec![
            TableCell::text(&r.system),
            TableCell::int(g.n),
            pct(g.below_zero),
            pct(g.zero),
            TableCell::num(g.median, 4),
            TableCell::num(g.mean, 4),
        ]);
    }
    t.caption("gap = s(q, canonical) − max over paired distractors s(q, d); below zero, the canonical loses.")
}

/// Appendix C: how many systems solve each query at rank 1.
pub fn difficulty_table(a: &AnatomyView) -> Table {
    let mut t = Table::new("difficulty", "Per-query difficulty")
        .column("systems solving at rank 1", "systems", Align::Right)
        .column("queries", "queries", Align::Right);
    let d = &a.difficulty;
    let fractional = a.policy() == crate::metrics::TiePolicy::Expected;
    for r in &d.rows {
        let label = difficulty_bin(r.systems, d.rows.len(), fractional);
        t.push(vec![
            TableCell {
                text: label,
                value: Some(r.systems as f64),
                integer: true,
                ..TableCell::default()
            },
            TableCell::int(r.queries),
        ]);
    }
    let names: Vec<&str> = d.unsolved.iter().take(12).map(|u| u.id.as_str()).collect();
    t.caption(format!(
        "{} of {} queries solved by no system{}{}; median {:.1} systems per query (fractional under `{}` ties: a row n–n+1 holds the queries solved by n or more but fewer than n+1 systems in expectation, so \"<1\" holds the unsolved ones and those some system solves only inside a score tie).",
        d.unsolved.len(),
        d.queries,
        if names.is_empty() { "" } else { ": " },
        names.join(", ") + if d.unsolved.len() > 12 { ", …" } else { "" },
        d.median,
        a.policy()
    ))
}

/// The label of the difficulty row of `systems` systems out of `rows` rows: the number itself
/// when every count is whole, else the interval the bin spans (`<1`, `1–2`, …; the last bin,
/// every system, is whole), so the `<1` row is never read as "solved by no system".
pub fn difficulty_bin(systems: usize, rows: usize, fractional: bool) -> String {
    match (fractional, systems) {
        (false, n) => n.to_string(),
        (true, n) if n + 1 == rows => n.to_string(),
        (true, 0) => "<1".to_string(),
        (true, n) => format!("{n}–{}", n + 1),
    }
}

/// Deception by number of stacked mutations on the matched queries.
pub fn stacked_table(s: &crate::analysis::stacked::StackedDeception, replicates: usize) -> Table {
    let mut t = Table::new("stacked", "Deception vs number of stacked mutations")
        .column("mutations", "n_edits", Align::Right)
        .column("variants", "variants", Align::Right)
        .column("deception", "deception", Align::Right)
        .column("Δ vs 1 (pp)", "delta", Align::Right)
        .column("95% CI (pp)", "delta_ci95_pp", Align::Left);
    for r in &s.rows {
        let (d, ci) = match r.delta {
            Some((d, lo, hi)) => (
                TableCell {
                    percent: true,
                    ..TableCell::num(d * 100.0, 1)
                },
                TableCell::text(format!("[{:+.1}, {:+.1}]", lo * 100.0, hi * 100.0)),
            ),
            None => (TableCell::text("—"), TableCell::text("—")),
        };
        t.push(vec![
            TableCell::int(r.n_edits),
            TableCell::int(r.variants),
            pct(r.deception),
            d,
            ci,
        ]);
    }
    t.caption(format!(
        "Matched subset: {} queries with variants at every count; per-query means averaged over {} dense system(s) ({}); n = 1 is the single-edit paired distractors. Δ: paired query-level bootstrap, {} replicates.",
        s.matched_queries,
        s.systems.len(),
        s.systems.join(", "),
        replicates
    ))
}
