//! `report --table fusion`: each hybrid beside its parts (rows from `systems::table`).

use super::table::{Align, Table, TableCell};
use crate::systems::table::{FusionRow, Role};

/// The fusion table at the cutoffs `ks`.
pub fn fusion_table(rows: &[FusionRow], ks: &[usize]) -> Table {
    let mut t = Table::new("fusion", "Hybrids beside their parts")
        .column("hybrid", "hybrid", Align::Left)
        .column("system", "system", Align::Left)
        .column("role", "role", Align::Left);
    for k in ks {
        let key = format!("exec@{k}");
        t = t.column(&key, &key, Align::Right);
    }
    t = t
        .column("deceived", "deceived", Align::Right)
        .column("canonical loses", "canonical_loses", Align::Right)
        .column("fusion", "fusion", Align::Left);
    let opt = |c: Option<TableCell>| c.unwrap_or_else(|| TableCell::text("—"));
    for r in rows {
        let mut cells = vec![
            TableCell::text(&r.hybrid),
            TableCell::text(&r.system),
            TableCell::text(match r.role {
                Role::Hybrid => "hybrid",
                Role::Part => "part",
            }),
        ];
        cells.extend(r.exec.iter().map(|v| opt(v.map(|v| TableCell::num(v, 3)))));
        cells.push(opt(r.deception.map(|d| {
            let mut c = TableCell::pct(d.rate(), 1);
            c.text = format!("{} ({}/{})", c.text, d.deceived, d.total);
            c
        })));
        cells.push(opt(r.canonical_loses.map(|v| TableCell::pct(v, 1))));
        cells.push(TableCell::text(&r.how));
        t.push(cells);
    }
    t.caption(if rows.is_empty() {
        "No fused systems in this bundle (make one with `execscope fuse`).".to_string()
    } else {
        "exec@k: mean over queries under the chosen tie policy. deceived: (query, paired distractor) pairs scored at least as high as the canonical. canonical loses: queries whose canonical scores below its best paired distractor.".to_string()
    })
}
