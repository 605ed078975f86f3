//! The score-gap histograms: canonical against the best paired distractor, one panel per system.

use super::*;

pub(super) fn gaps<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let data = gap_data(inputs.anatomy());
    let n = data.len().max(1);
    let caption = [
        inputs.caption(None),
        "gap = s(q, canonical) − max over paired distractors s(q, d), score units of each system (own x range); dashed: 0, left of it the canonical loses.".to_string(),
    ];
    let panel = 150u32;
    let root = open((W + 120, 60 + panel * n as u32));
    let main = canvas(&root, &caption)?;
    let (title, body) = main.split_vertically(30);
    title
        .draw(&Text::new(
            "Canonical vs best paired distractor: score gap",
            (220, 6),
            (FONT, 18).into_font(),
        ))
        .map_err(draw_err)?;
    let panels = body.split_evenly((n, 1));
    for (i, (row, area)) in data.iter().zip(panels.iter()).enumerate() {
        let (id, g) = (&row.system, &row.summary);
        let c = series_colour(i);
        let (lo, hi) = match (g.histogram.first(), g.histogram.last()) {
            (Some(a), Some(b)) => (a.0.min(0.0), b.1.max(0.0)),
            _ => (-1.0, 1.0),
        };
        let pad = ((hi - lo) * 0.03).max(1e-6);
        let ymax = g.histogram.iter().map(|b| b.2).max().unwrap_or(1).max(1) as f64 * 1.1;
        let mut chart = ChartBuilder::on(area)
            .margin(6)
            .x_label_area_size(if i + 1 == n { 38 } else { 20 })
            .y_label_area_size(60)
            .caption(
                format!(
                    "{id}: {} below 0, median {:.4}",
                    crate::report::anatomy::pct_text(g.below_zero),
                    g.median
                ),
                (FONT, 13),
            )
            .build_cartesian_2d(lo - pad..hi + pad, 0f64..ymax)
            .map_err(draw_err)?;
        let mut mesh = chart.configure_mesh();
        mesh.light_line_style(WHITE)
            .x_label_formatter(&|v| tick(*v))
            .y_labels(3)
            .y_label_formatter(&|v| format!("{v:.0}"))
            .y_desc("queries")
            .label_style((FONT, 11));
        if i + 1 == n {
            mesh.x_desc("score gap (system's score units)");
        }
        mesh.draw().map_err(draw_err)?;
        chart
            .draw_series(
                g.histogram.iter().map(|&(a, b, k)| {
                    Rectangle::new([(a, 0.0), (b, k as f64)], c.mix(0.85).filled())
                }),
            )
            .map_err(draw_err)?;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0.0, 0.0), (0.0, ymax)],
                5,
                4,
                BLACK.stroke_width(1),
            ))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
