//! The leaderboard forest plot: exec@k per system with its bootstrap interval, tiers marked.

use super::*;

pub(super) fn forest<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let lb = inputs.leaderboard();
    let sig = inputs.significance();
    let k = lb.ks.first().copied().unwrap_or(1);
    let key = MetricKey::exec(k);
    let pts = forest_data(lb, sig, key).context("no exec@k interval to plot")?;
    let n = pts.len();
    let h = 110 + 26 * n as u32;
    let caption = [
        inputs.caption(Some(k)),
        "Bars: 95% percentile-bootstrap intervals; † = not distinguishable from the leader (the report's tier test).".to_string(),
    ];
    let root = open((W, h));
    let main = canvas(&root, &caption)?;
    // Zoom the axis to the data (from 0, up to the widest interval rounded up to 0.05).
    let top = pts
        .iter()
        .map(|p| p.high.max(p.mean))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let xmax = ((top * 1.1 / 0.05).ceil() * 0.05).clamp(0.1, 1.0);
    // The leader at the top.
    let names: Vec<String> = pts
        .iter()
        .rev()
        .map(|p| {
            if p.tied_with_leader {
                format!("{} †", p.system)
            } else {
                p.system.clone()
            }
        })
        .collect();
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("Leaderboard: {key} with 95% intervals"), (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(200)
        .build_cartesian_2d(0f64..xmax, (0..n as i32).into_segmented())
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .x_desc(format!("{key} (fraction of queries)"))
        .y_labels(n.max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .label_style((FONT, 13))
        .draw()
        .map_err(draw_err)?;
    for (i, p) in pts.iter().enumerate() {
        let c = if p.tied_with_leader || i == 0 {
            OKABE_ITO[4]
        } else {
            OKABE_ITO[5]
        };
        let y = || SegmentValue::CenterOf((n - 1 - i) as i32);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(p.low, y()), (p.high, y())],
                c.stroke_width(2),
            )))
            .map_err(draw_err)?;
        chart
            .draw_series(std::iter::once(Circle::new((p.mean, y()), 4, c.filled())))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
