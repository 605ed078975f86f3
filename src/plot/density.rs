//! The pool-density ablation curves: expected exec@1 against retained paired distractors.

use super::*;

pub(super) fn density<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let series = density_data(inputs.anatomy());
    let width = series
        .iter()
        .map(|s| s.density.len())
        .max()
        .unwrap_or(1)
        .max(2);
    let caption = [
        inputs.caption(Some(1)),
        "Exact expectation over every retained subset of each query's own paired distractors."
            .to_string(),
    ];
    let root = open((W + LEGEND_W, 460));
    let main = canvas(&root, &caption)?;
    let items: Vec<(String, RGBColor)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.system.clone(), series_colour(i)))
        .collect();
    let main = side_legend(&main, &items)?;
    let mut chart = ChartBuilder::on(&main)
        .caption("Pool-density ablation", (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.2f64..(width - 1) as f64 + 0.2, 0f64..1.05f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("retained paired distractors per query (count)")
        .y_desc("expected exec@1 (fraction)")
        .x_labels(width)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .label_style((FONT, 13))
        .draw()
        .map_err(draw_err)?;
    for (i, row) in series.iter().enumerate() {
        let c = series_colour(i);
        let pts: Vec<(f64, f64)> = row
            .density
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(d, &v)| (d as f64, v))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(draw_err)?;
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
