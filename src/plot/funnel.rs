//! The audit funnel: candidates retrieved → admitted → returned → passing, one group of bars per
//! admission predicate, from the audit's own typed rows (`report::audit::funnel_rows`).

use super::*;
use crate::report::audit::FunnelRow;

/// The funnel rows of the figure's audit (one per cohort and predicate).
pub fn funnel_data(inputs: &PlotInputs<'_>) -> anyhow::Result<Vec<FunnelRow>> {
    Ok(crate::report::audit::funnel_rows(&inputs.audit()?.audits))
}

pub(super) fn funnel<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let rows = funnel_data(inputs)?;
    let spec = &inputs.funnel;
    let n = rows.len().max(1);
    let stages = 4usize;
    let caption = [
        format!(
            "{}; audit of {}: top {} per query, {} visible self-tests, row tie order",
            inputs.caption(None),
            inputs.funnel_system(),
            spec.k,
            spec.visible
        ),
        "Candidates: in the pools; admitted by the predicate (top-k: all; V: passing the visible tests); returned by the first-admitted selector; returned and passing the whole suite.".to_string(),
    ];
    let h = 120 + (24 * stages as u32 + 18) * n as u32;
    let root = open((W + LEGEND_W, h));
    let main = canvas(&root, &caption)?;
    let names = ["retrieved", "admitted", "returned", "passing"];
    let items: Vec<(String, RGBColor)> = names
        .iter()
        .enumerate()
        .map(|(i, l)| (l.to_string(), funnel_colour(i)))
        .collect();
    let main = side_legend(&main, &items)?;
    let xmax = rows.iter().map(|r| r.retrieved).max().unwrap_or(1).max(1) as f64 * 1.18;
    // One band per predicate, leader at the top; inside a band the stages top to bottom.
    let labels: Vec<String> = rows
        .iter()
        .rev()
        .map(|r| format!("{} · {}", r.cohort, r.predicate))
        .collect();
    let mut chart = count_rows_chart(&main, "Audit funnel", xmax, &labels, "candidates (count)")?;
    let band = 0.84 / stages as f64;
    for (i, r) in rows.iter().enumerate() {
        let top = (n - i) as f64 - 0.08;
        for (si, (_, v)) in r.stages().into_iter().enumerate() {
            let y1 = top - si as f64 * band;
            let y0 = y1 - band * 0.86;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y0), (v as f64, y1)],
                    funnel_colour(si).filled(),
                )))
                .map_err(draw_err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    v.to_string(),
                    (v as f64 + xmax * 0.01, y1 - band * 0.15),
                    (FONT, 12).into_font(),
                )))
                .map_err(draw_err)?;
        }
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

/// Stage colours: blue shades darkening to the passing stage (bluish green).
fn funnel_colour(stage: usize) -> RGBColor {
    [OKABE_ITO[1], OKABE_ITO[4], OKABE_ITO[6], OKABE_ITO[2]][stage.min(3)]
}
