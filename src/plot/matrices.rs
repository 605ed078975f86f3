//! The two matrix figures: the per-domain heat map and the pairwise significance matrix.

use super::*;

/// Light-to-dark blue ramp (readable without hue discrimination); values are also printed.
fn heat(v: f64, max: f64) -> RGBColor {
    let t = if v.is_finite() && max > 0.0 {
        (v / max).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    RGBColor(lerp(0xF7, 0x08), lerp(0xFB, 0x30), lerp(0xFF, 0x6B))
}

pub(super) fn domains<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let (doms, series) = domain_data(inputs.leaderboard());
    let (nd, ns) = (doms.len().max(1), series.len().max(1));
    let vmax = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let caption = [
        inputs.caption(Some(1)),
        format!("Cell: mean exec@1 over the domain's queries; shade runs from 0 to the largest cell ({vmax:.3})."),
    ];
    let cell_w = 90u32;
    let w = (260 + cell_w * nd as u32).max(W);
    let h = 150 + 30 * ns as u32;
    let root = open((w, h));
    let main = canvas(&root, &caption)?;
    // Row 0 (the leader) at the top.
    let sys: Vec<String> = series.iter().rev().map(|s| s.0.clone()).collect();
    let mut chart = ChartBuilder::on(&main)
        .caption("Per-domain exec@1", (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(200)
        .build_cartesian_2d(0f64..nd as f64, 0f64..ns as f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("domain")
        .x_labels(nd * 2 + 1)
        .y_labels(ns * 2 + 1)
        .x_label_formatter(&|v| centre_label(*v, &doms))
        .y_label_formatter(&|v| centre_label(*v, &sys))
        .label_style((FONT, 12))
        .draw()
        .map_err(draw_err)?;
    for (si, (_, vals)) in series.iter().enumerate() {
        let y = (ns - 1 - si) as f64;
        chart
            .draw_series(vals.iter().enumerate().map(|(di, &v)| {
                Rectangle::new(
                    [(di as f64, y), (di as f64 + 1.0, y + 1.0)],
                    heat(v, vmax).filled(),
                )
            }))
            .map_err(draw_err)?;
        chart
            .draw_series(vals.iter().enumerate().map(|(di, &v)| {
                let txt = if v.is_finite() {
                    format!("{v:.2}")
                } else {
                    "—".to_string()
                };
                let colour = if v.is_finite() && vmax > 0.0 && v / vmax > 0.55 {
                    WHITE
                } else {
                    BLACK
                };
                Text::new(
                    txt,
                    (di as f64 + 0.4, y + 0.6),
                    (FONT, 12).into_font().color(&colour),
                )
            }))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

pub(super) fn pairs<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let lb = inputs.leaderboard();
    let k = lb.ks.first().copied().unwrap_or(1);
    let key = MetricKey::exec(k);
    let (names, m) = pairs_data(lb, inputs.significance(), key)
        .context("no exec@k cell for the pairwise matrix")?;
    let n = names.len().max(1);
    let caption = [
        inputs.caption(Some(k)),
        format!("Cell: {key} of the row system minus the column system, and the pairs table's McNemar p."),
        "Blue: row better, orange: column better, at p ≤ 0.05 (unadjusted); grey otherwise.".to_string(),
    ];
    let cell = 110u32;
    let w = (220 + cell * n as u32 + 40).max(W);
    let h = 150 + 44 * n as u32;
    let root = open((w, h));
    let main = canvas(&root, &caption)?;
    let rows_top: Vec<String> = names.iter().rev().cloned().collect();
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("Pairwise differences on {key}"), (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(215)
        .build_cartesian_2d(0f64..n as f64, 0f64..n as f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("column system")
        .y_desc("row system")
        .x_labels(n * 2 + 1)
        .y_labels(n * 2 + 1)
        .x_label_formatter(&|v| centre_label(*v, &names))
        .y_label_formatter(&|v| centre_label(*v, &rows_top))
        .label_style((FONT, 11))
        .draw()
        .map_err(draw_err)?;
    let grey = RGBColor(0xEE, 0xEE, 0xEE);
    for (i, row) in m.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        for (j, c) in row.iter().enumerate() {
            let x = j as f64;
            let (fill, text) = match c {
                None => (WHITE, String::new()),
                Some(c) => {
                    let sig = c.p.is_some_and(|p| p <= 0.05);
                    let fill = match (sig, c.delta > 0.0) {
                        (true, true) => OKABE_ITO[1],
                        (true, false) => OKABE_ITO[0],
                        _ => grey,
                    };
                    let p = c.p.map_or("p n/a".to_string(), |p| format!("p={p:.3}"));
                    (fill, format!("{:+.3} {p}", c.delta))
                }
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x + 0.02, y + 0.04), (x + 0.98, y + 0.96)],
                    fill.filled(),
                )))
                .map_err(draw_err)?;
            if !text.is_empty() {
                chart
                    .draw_series(std::iter::once(Text::new(
                        text,
                        (x + 0.06, y + 0.62),
                        (FONT, 11).into_font(),
                    )))
                    .map_err(draw_err)?;
            }
        }
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
