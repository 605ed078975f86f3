//! The bar figures: deception by bug type (grouped), rank-1 miss composition (stacked) and
//! deception by edit size.

use super::*;

/// Grouped bars: one group per bug type, one bar per system.
pub(super) fn bugtypes<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let (types, series) = bugtype_data(inputs.anatomy());
    let caption = [
        inputs.caption(None),
        "Deceived: s(q, distractor) ≥ s(q, canonical); an exact tie deceives.".to_string(),
    ];
    let ymax = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .clamp(0.05, 0.95)
        + 0.05;
    // Room for every group's label: the paper's six fit the standard width, a catalogue
    // bundle's fifteen families widen the figure.
    let groups_w = (types.len() as u32 * 120).max(W);
    let root = open((groups_w + LEGEND_W + 140, 480));
    let main = canvas(&root, &caption)?;
    let items: Vec<(String, RGBColor)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.0.clone(), series_colour(i)))
        .collect();
    let main = side_legend(&main, &items)?;
    let nt = types.len().max(1);
    let mut chart = ChartBuilder::on(&main)
        .caption("Deception by bug type", (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0f64..nt as f64, 0f64..ymax)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("bug type")
        .y_desc("deception rate (%)")
        .y_label_formatter(&|v| format!("{:.0}", v * 100.0))
        .x_labels(nt * 2 + 1)
        .x_label_formatter(&|v| centre_label(*v, &types))
        .label_style((FONT, 12))
        .draw()
        .map_err(draw_err)?;
    let ns = series.len().max(1) as f64;
    let bw = 0.8 / ns;
    for (si, (_, vals)) in series.iter().enumerate() {
        let c = series_colour(si);
        let x0 = |ti: usize| ti as f64 + 0.1 + si as f64 * bw;
        chart
            .draw_series(
                vals.iter()
                    .enumerate()
                    .filter(|(_, v)| v.is_finite())
                    .map(|(ti, &v)| {
                        Rectangle::new([(x0(ti), 0.0), (x0(ti) + bw * 0.92, v)], c.filled())
                    }),
            )
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

pub(super) fn misses<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let data = misses_data(inputs.anatomy());
    let n = data.len().max(1);
    let caption = [
        inputs.caption(Some(1)),
        "Queries whose top-1 fails; counts may be fractional under the expected tie policy."
            .to_string(),
    ];
    let xmax = data
        .iter()
        .map(|r| r.misses.misses())
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.1;
    let h = 130 + 28 * n as u32;
    let root = open((W + LEGEND_W, h));
    let main = canvas(&root, &caption)?;
    let parts: [(&str, RGBColor); 2] = [
        ("own paired distractor", OKABE_ITO[5]),
        ("other snippet", OKABE_ITO[1]),
    ];
    let items: Vec<(String, RGBColor)> = parts.iter().map(|(l, c)| (l.to_string(), *c)).collect();
    let main = side_legend(&main, &items)?;
    let names: Vec<String> = data.iter().rev().map(|d| d.system.clone()).collect();
    let mut chart = count_rows_chart(
        &main,
        "Rank-1 miss composition",
        xmax,
        &names,
        "rank-1 misses (queries)",
    )?;
    for (pi, (_, c)) in parts.into_iter().enumerate() {
        chart
            .draw_series(data.iter().enumerate().map(|(i, d)| {
                let m = &d.misses;
                let (a, b) = if pi == 0 {
                    (0.0, m.paired_distractor)
                } else {
                    (m.paired_distractor, m.misses())
                };
                let y = (n - 1 - i) as f64;
                Rectangle::new([(a, y + 0.15), (b, y + 0.85)], c.filled())
            }))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

/// Deception by edit-size bucket (dense systems pooled): the editsize table's own rows.
pub(super) fn editsize<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let rows = &inputs.anatomy().editsize.rows;
    let n = rows.len().max(1);
    let caption = [
        inputs.caption(None),
        "Edit size: characters spanned by the changed regions of a character diff; dense systems pooled; label: pairs in the bucket.".to_string(),
    ];
    let root = open((W, 420));
    let main = canvas(&root, &caption)?;
    let labels: Vec<String> = rows.iter().map(|r| r.bucket.clone()).collect();
    let mut chart = ChartBuilder::on(&main)
        .caption("Deception by edit size", (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0f64..n as f64, 0f64..1.08f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_desc("edit size (characters)")
        .y_desc("deception rate (%)")
        .y_label_formatter(&|v| format!("{:.0}", v * 100.0))
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|v| centre_label(*v, &labels))
        .label_style((FONT, 13))
        .draw()
        .map_err(draw_err)?;
    for (i, r) in rows.iter().enumerate() {
        let v = r.deception.rate();
        if !v.is_finite() {
            continue;
        }
        let x = i as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x + 0.2, 0.0), (x + 0.8, v)],
                OKABE_ITO[4].filled(),
            )))
            .map_err(draw_err)?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!(
                    "{} ({} pairs)",
                    crate::report::anatomy::pct_text(v),
                    r.pairs
                ),
                (x + 0.22, v + 0.05),
                (FONT, 12).into_font(),
            )))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
