//! What the Queries pane exports with its screen (`x`): the query list with each query's exec@k
//! under the current system, and the ranking shown beside it, both under the session's settings
//! (their captions name the system, k and the tie policy). The first is the leaderboard's
//! exec@k query by query: its mean is the cell `execscope report` prints.

use super::ranking::{role, RankRow};
use super::BrowserPane;
use crate::report::{Align, Table, TableCell};
use crate::tui::view::{Data, View};
use crate::view::ranking::{order_note, Counted};

/// Every query of the bundle (the filter does not apply) with its exec@k under the current system.
pub fn queries_table(d: &Data, v: &View) -> Table {
    let (s, k) = (v.settings.system, v.k());
    let ki = v.settings.k_index;
    let key = format!("exec@{k}");
    let mut t = Table::new("queries", "Queries")
        .column("query", "query", Align::Left)
        .column("function", "function", Align::Left)
        .column("domain", "domain", Align::Left)
        .column(&key, &key, Align::Right);
    let b = d.engine.bundle();
    for (q, query) in b.queries.iter().enumerate() {
        let val = d.engine.evals()[s]
            .per_query
            .get(q)
            .map_or(f64::NAN, |e| e.exec[ki]);
        t.push(vec![
            TableCell::text(&query.id),
            TableCell::text(&query.function_name),
            TableCell::text(&query.domain),
            TableCell::num(val, 3),
        ]);
    }
    t.caption(format!(
        "{key} of each query under {} with `{}` ties (their mean is the leaderboard's {key}).",
        v.system_id(s),
        v.policy()
    ))
}

/// The ranking shown, one row per rank: score, snippet, role, verdict, whether the tie policy
/// counts it inside the cutoff, and its tie.
pub fn ranking_table(d: &Data, v: &View, title: &str, rows: &[RankRow]) -> Table {
    let mut t = Table::new("ranking", title)
        .column("rank", "rank", Align::Right)
        .column("score", "score", Align::Right)
        .column("snippet", "snippet", Align::Left)
        .column("role", "role", Align::Left)
        .column("pass", "pass", Align::Left)
        .column(&format!("in top {}", v.k()), "counted", Align::Right)
        .column("tie", "tie", Align::Right);
    let b = d.engine.bundle();
    let q = v.shared.live.is_none().then_some(v.shared.query);
    for (i, r) in rows.iter().enumerate() {
        t.push(vec![
            TableCell::int(i + 1),
            TableCell::num(r.score, 4),
            TableCell::text(&b.corpus[r.corpus].id),
            TableCell::text(role(d, q, r.corpus).0),
            TableCell::text(match r.pass {
                Some(true) => "pass",
                Some(false) => "fail",
                None => "–",
            }),
            match r.counted {
                Counted::In => TableCell::text("yes"),
                Counted::Out => TableCell::text("no"),
                Counted::Share(x) => TableCell::num(x, 3),
            },
            TableCell::int(r.tie),
        ]);
    }
    t.caption(format!(
        "Shown in the order of the `{}` tie policy ({}); \"in top {}\": counted inside the cutoff (under expected ties, a row of a tie straddling it by the share of orders that put it inside).",
        v.policy(),
        order_note(v.policy()),
        v.k()
    ))
}

impl BrowserPane {
    /// The pane's export: the query list's numbers, then the ranking on screen.
    pub(super) fn tables(&self, v: &View) -> Vec<Table> {
        let Some(d) = v.data.filter(|d| !d.engine.scores().is_empty()) else {
            return Vec::new();
        };
        let rows = self.rows(d, v.settings, v.shared);
        let what = match &v.shared.live {
            Some((text, _)) => format!("Ranking of \"{text}\""),
            None => format!(
                "Ranking of {}{} under {}",
                d.engine.bundle().queries[v.shared.query].id,
                if self.session.count(v.shared.query) > 0 {
                    " (edited)"
                } else {
                    ""
                },
                v.system_id(v.settings.system)
            ),
        };
        vec![queries_table(d, v), ranking_table(d, v, &what, &rows)]
    }
}
