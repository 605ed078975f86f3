//! Publication figures as SVG, drawn with `plotters` from the same typed rows the report prints
//! (`report::leaderboard`, `report::anatomy`, `analysis::significance`): one source of numbers.
//! A front end like the report and the dashboard; nothing in the core imports it.
//!
//! Each figure has a `*_data` function returning the exact series it draws, so tests can compare
//! them with the matching report table.

use crate::analysis::significance::{SigConfig, Significance};
use crate::analysis::Anatomy;
use crate::atomic::write_atomic;
use crate::engine::Engine;
use crate::report::anatomy::bugtype_rows;
use crate::report::leaderboard::{self, Leaderboard};
use anyhow::{anyhow, bail, Context};
use plotters::prelude::*;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

/// Every figure `--figure` accepts, in the order `--all` writes them.
pub const FIGURES: [&str; 8] = [
    "forest", "density", "bugtypes", "misses", "domains", "pairs", "gaps", "editsize",
];

/// Okabe–Ito colour-blind-safe palette (black last: used for reference marks).
pub const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xF0, 0xE4, 0x42), // yellow
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x00, 0x00, 0x00), // black
];

/// Colour of series `i` (cycles through the seven non-black Okabe–Ito colours).
pub fn series_colour(i: usize) -> RGBColor {
    OKABE_ITO[i % 7]
}

const FONT: &str = "sans-serif";
const W: u32 = 720;

/// The inputs every figure is drawn from, each computed at most once.
pub struct PlotInputs<'a> {
    pub engine: &'a Engine,
    pub sig_cfg: SigConfig,
    lb: OnceCell<Leaderboard>,
    sig: OnceCell<Significance>,
    anatomy: OnceCell<Anatomy>,
}

impl<'a> PlotInputs<'a> {
    pub fn new(engine: &'a Engine, sig_cfg: SigConfig) -> Self {
        PlotInputs {
            engine,
            sig_cfg,
            lb: OnceCell::new(),
            sig: OnceCell::new(),
            anatomy: OnceCell::new(),
        }
    }
    pub fn leaderboard(&self) -> &Leaderboard {
        self.lb.get_or_init(|| leaderboard::build(self.engine))
    }
    pub fn significance(&self) -> &Significance {
        self.sig
            .get_or_init(|| Significance::compute(self.engine, self.sig_cfg))
    }
    pub fn anatomy(&self) -> &Anatomy {
        self.anatomy.get_or_init(|| Anatomy::compute(self.engine))
    }

    /// The settings line every figure carries.
    pub fn caption(&self, k: Option<usize>) -> String {
        let cfg = self.engine.config();
        let k = match k {
            Some(k) => format!("k = {k}"),
            None => format!(
                "k ∈ {{{}}}",
                cfg.ks
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "ties: {}; {k}; bootstrap B = {}; seed {}; {} queries",
            cfg.policy.as_str(),
            self.sig_cfg.replicates,
            self.sig_cfg.seed,
            self.engine.bundle.queries.len()
        )
    }
}

/// One system's point in the forest plot.
#[derive(Clone, Debug, PartialEq)]
pub struct ForestPoint {
    pub system: String,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// Not distinguishable from the leader (and not level with the best value): the report's †.
    pub tied_with_leader: bool,
}

/// Forest-plot series for `exec@k`, in leaderboard order. `None` when k is not evaluated.
pub fn forest_data(lb: &Leaderboard, sig: &Significance, key: &str) -> Option<Vec<ForestPoint>> {
    let ci = sig.cell_index(key)?;
    let best = lb
        .rows
        .iter()
        .map(|x| x.metric(key))
        .fold(f64::NEG_INFINITY, f64::max);
    let tier = sig.tier(key);
    Some(
        lb.rows
            .iter()
            .map(|r| {
                let iv = &sig.intervals[ci][r.system];
                let mean = r.metric(key);
                ForestPoint {
                    system: r.id.clone(),
                    mean,
                    low: iv.low,
                    high: iv.high,
                    tied_with_leader: tier.is_some_and(|t| t.tied[r.system]) && mean < best,
                }
            })
            .collect(),
    )
}

/// Density curves: per system (anatomy order), expected exec@1 at d = 0, 1, … retained
/// distractors per query.
pub fn density_data(a: &Anatomy) -> Vec<(String, Vec<f64>)> {
    a.systems
        .iter()
        .map(|s| (s.id.clone(), s.density.clone()))
        .collect()
}

/// Deception by bug type: the bug types (the overall row excluded) and, per system (anatomy
/// order), its deception rate (fraction) on each type.
pub fn bugtype_data(a: &Anatomy) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let rows: Vec<_> = bugtype_rows(a)
        .into_iter()
        .filter(|r| r.bug_type.is_some())
        .collect();
    let types = rows.iter().map(|r| r.label().to_string()).collect();
    let series = a
        .systems
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.id.clone(),
                rows.iter().map(|r| r.per_system[i].rate()).collect(),
            )
        })
        .collect();
    (types, series)
}

/// Rank-1 miss composition: per system, (paired-distractor misses, other misses) in queries.
pub fn misses_data(a: &Anatomy) -> Vec<(String, f64, f64)> {
    a.systems
        .iter()
        .map(|s| (s.id.clone(), s.misses.paired_distractor, s.misses.other))
        .collect()
}

/// Per-domain exec@1: the domains and, per system (leaderboard order), its value per domain.
pub fn domain_data(lb: &Leaderboard) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let domains: Vec<String> = lb
        .rows
        .first()
        .map(|r| r.per_domain.keys().cloned().collect())
        .unwrap_or_default();
    let series = lb
        .rows
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                domains
                    .iter()
                    .map(|d| r.per_domain.get(d).copied().unwrap_or(f64::NAN))
                    .collect(),
            )
        })
        .collect();
    (domains, series)
}

/// Score-gap histograms: per system (anatomy order), its gap summary (the gaps table's row) whose
/// `histogram` bins are drawn.
pub fn gap_data(a: &Anatomy) -> Vec<(String, crate::analysis::deception::GapSummary)> {
    a.systems
        .iter()
        .map(|s| (s.id.clone(), s.gap_summary.clone()))
        .collect()
}

/// One cell of the pairwise matrix: row system minus column system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairCell {
    /// Mean per-query difference (row − column).
    pub delta: f64,
    /// The pairs table's p-value (exact or tie-averaged McNemar), when the cell has one.
    pub p: Option<f64>,
}

/// `matrix[row][column]`.
pub type PairMatrix = Vec<Vec<Option<PairCell>>>;

/// Pairwise matrix on one cell (e.g. `exec@1`), systems in leaderboard order; the diagonal is
/// `None`. Built from `report::pairs::named_pairs`, the rows of the pairs table.
pub fn pairs_data(
    engine: &Engine,
    lb: &Leaderboard,
    sig: &Significance,
    key: &str,
) -> Option<(Vec<String>, PairMatrix)> {
    let ci = sig.cell_index(key)?;
    let names: Vec<String> = lb.rows.iter().map(|r| r.id.clone()).collect();
    let pos = |id: &str| names.iter().position(|n| n == id);
    let mut m = vec![vec![None; names.len()]; names.len()];
    for (a, b, r) in crate::report::pairs::named_pairs(engine, sig, ci) {
        let (Some(i), Some(j)) = (pos(a), pos(b)) else {
            continue;
        };
        let p = r.p_value();
        m[i][j] = Some(PairCell { delta: r.delta, p });
        m[j][i] = Some(PairCell { delta: -r.delta, p });
    }
    Some((names, m))
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the figure: {e:?}")
}

/// Render one figure to an SVG document.
pub fn render(inputs: &PlotInputs<'_>, figure: &str) -> anyhow::Result<String> {
    let mut svg = String::new();
    match figure {
        "forest" => forest(inputs, &mut svg)?,
        "density" => density(inputs, &mut svg)?,
        "bugtypes" => bugtypes(inputs, &mut svg)?,
        "misses" => misses(inputs, &mut svg)?,
        "domains" => domains(inputs, &mut svg)?,
        "pairs" => pairs(inputs, &mut svg)?,
        "gaps" => gaps(inputs, &mut svg)?,
        "editsize" => editsize(inputs, &mut svg)?,
        other => bail!("unknown figure {other:?} (one of: {})", FIGURES.join(", ")),
    }
    Ok(svg)
}

/// Check an output path's extension: only `.svg` is written.
pub fn check_extension(path: &Path) -> anyhow::Result<()> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(()),
        Some(e) if e.eq_ignore_ascii_case("png") => bail!(
            "{}: PNG output is not supported (it would need an embedded font); write .svg and convert it (e.g. rsvg-convert)",
            path.display()
        ),
        _ => bail!("{}: the figure file must end in .svg", path.display()),
    }
}

/// Render one figure and write it atomically to `out` (must end in `.svg`).
pub fn write_figure(inputs: &PlotInputs<'_>, figure: &str, out: &Path) -> anyhow::Result<()> {
    check_extension(out)?;
    let svg = render(inputs, figure)?;
    write_atomic(out, svg.as_bytes()).with_context(|| format!("writing {}", out.display()))
}

/// Every figure into `dir` as `<figure>.svg`; returns the files written.
pub fn write_all(inputs: &PlotInputs<'_>, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for f in FIGURES {
        let p = dir.join(format!("{f}.svg"));
        write_figure(inputs, f, &p)?;
        out.push(p);
    }
    Ok(out)
}

type Area<'b> = DrawingArea<SVGBackend<'b>, plotters::coord::Shift>;

/// A white canvas with the caption lines (settings first) at the bottom; returns the drawing
/// area above them.
fn canvas<'b>(root: &Area<'b>, lines: &[String]) -> anyhow::Result<Area<'b>> {
    root.fill(&WHITE).map_err(draw_err)?;
    let (_, h) = root.dim_in_pixel();
    let (main, foot) = root.split_vertically(h - 8 - 17 * lines.len() as u32);
    for (i, line) in lines.iter().enumerate() {
        foot.draw(&Text::new(
            line.clone(),
            (10, 4 + 17 * i as i32),
            (FONT, 12).into_font().color(&RGBColor(0x44, 0x44, 0x44)),
        ))
        .map_err(draw_err)?;
    }
    Ok(main)
}

const LEGEND_W: u32 = 210;

/// Splits off a legend column on the right (so the legend never covers data) and draws the
/// entries into it; returns the plotting area.
fn side_legend<'b>(area: &Area<'b>, items: &[(String, RGBColor)]) -> anyhow::Result<Area<'b>> {
    let (w, _) = area.dim_in_pixel();
    let (plot, leg) = area.split_horizontally(w - LEGEND_W);
    for (i, (label, c)) in items.iter().enumerate() {
        let y = 50 + 22 * i as i32;
        leg.draw(&Rectangle::new([(8, y - 6), (26, y + 6)], c.filled()))
            .map_err(draw_err)?;
        leg.draw(&Text::new(
            label.clone(),
            (32, y - 7),
            (FONT, 13).into_font(),
        ))
        .map_err(draw_err)?;
    }
    Ok(plot)
}

fn forest(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
    let lb = inputs.leaderboard();
    let sig = inputs.significance();
    let k = lb.ks.first().copied().unwrap_or(1);
    let key = format!("exec@{k}");
    let pts = forest_data(lb, sig, &key).context("no exec@k interval to plot")?;
    let n = pts.len();
    let h = 110 + 26 * n as u32;
    let caption = [
        inputs.caption(Some(k)),
        "Bars: 95% percentile-bootstrap intervals; † = not distinguishable from the leader (the report's tier test).".to_string(),
    ];
    let root = SVGBackend::with_string(svg, (W, h)).into_drawing_area();
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

fn density(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
    let series = density_data(inputs.anatomy());
    let width = series.iter().map(|s| s.1.len()).max().unwrap_or(1).max(2);
    let caption = [
        inputs.caption(Some(1)),
        "Exact expectation over every retained subset of each query's own paired distractors."
            .to_string(),
    ];
    let root = SVGBackend::with_string(svg, (W + LEGEND_W, 460)).into_drawing_area();
    let main = canvas(&root, &caption)?;
    let items: Vec<(String, RGBColor)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.0.clone(), series_colour(i)))
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
    for (i, (_, ys)) in series.iter().enumerate() {
        let c = series_colour(i);
        let pts: Vec<(f64, f64)> = ys
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

/// Grouped bars: one group per bug type, one bar per system.
fn bugtypes(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
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
    let root = SVGBackend::with_string(svg, (W + LEGEND_W + 140, 480)).into_drawing_area();
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
        .x_label_formatter(&|v| {
            let i = (v - 0.5).round();
            if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                types.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
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

fn misses(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
    let data = misses_data(inputs.anatomy());
    let n = data.len().max(1);
    let caption = [
        inputs.caption(Some(1)),
        "Queries whose top-1 fails; counts may be fractional under the expected tie policy."
            .to_string(),
    ];
    let xmax = data
        .iter()
        .map(|d| d.1 + d.2)
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.1;
    let h = 130 + 28 * n as u32;
    let root = SVGBackend::with_string(svg, (W + LEGEND_W, h)).into_drawing_area();
    let main = canvas(&root, &caption)?;
    let parts: [(&str, RGBColor); 2] = [
        ("own paired distractor", OKABE_ITO[5]),
        ("other snippet", OKABE_ITO[1]),
    ];
    let items: Vec<(String, RGBColor)> = parts.iter().map(|(l, c)| (l.to_string(), *c)).collect();
    let main = side_legend(&main, &items)?;
    let names: Vec<String> = data.iter().rev().map(|d| d.0.clone()).collect();
    let mut chart = ChartBuilder::on(&main)
        .caption("Rank-1 miss composition", (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(200)
        .build_cartesian_2d(0f64..xmax, 0f64..n as f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("rank-1 misses (queries)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_labels(n * 2 + 1)
        .y_label_formatter(&|v| {
            let i = (v - 0.5).round();
            if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_style((FONT, 13))
        .draw()
        .map_err(draw_err)?;
    for (pi, (_, c)) in parts.into_iter().enumerate() {
        chart
            .draw_series(data.iter().enumerate().map(|(i, d)| {
                let (a, b) = if pi == 0 {
                    (0.0, d.1)
                } else {
                    (d.1, d.1 + d.2)
                };
                let y = (n - 1 - i) as f64;
                Rectangle::new([(a, y + 0.15), (b, y + 0.85)], c.filled())
            }))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

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

fn domains(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
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
    let root = SVGBackend::with_string(svg, (w, h)).into_drawing_area();
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
    let centre = |v: f64, labels: &[String]| {
        let i = (v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
            labels.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("domain")
        .x_labels(nd * 2 + 1)
        .y_labels(ns * 2 + 1)
        .x_label_formatter(&|v| centre(*v, &doms))
        .y_label_formatter(&|v| centre(*v, &sys))
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

fn pairs(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
    let lb = inputs.leaderboard();
    let k = lb.ks.first().copied().unwrap_or(1);
    let key = format!("exec@{k}");
    let (names, m) = pairs_data(inputs.engine, lb, inputs.significance(), &key)
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
    let root = SVGBackend::with_string(svg, (w, h)).into_drawing_area();
    let main = canvas(&root, &caption)?;
    let rows_top: Vec<String> = names.iter().rev().cloned().collect();
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("Pairwise differences on {key}"), (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(215)
        .build_cartesian_2d(0f64..n as f64, 0f64..n as f64)
        .map_err(draw_err)?;
    let centre = |v: f64, labels: &[String]| {
        let i = (v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
            labels.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("column system")
        .y_desc("row system")
        .x_labels(n * 2 + 1)
        .y_labels(n * 2 + 1)
        .x_label_formatter(&|v| centre(*v, &names))
        .y_label_formatter(&|v| centre(*v, &rows_top))
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

fn gaps(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
    let data = gap_data(inputs.anatomy());
    let n = data.len().max(1);
    let caption = [
        inputs.caption(None),
        "gap = s(q, canonical) − max over paired distractors s(q, d), score units of each system (own x range); dashed: 0, left of it the canonical loses.".to_string(),
    ];
    let panel = 150u32;
    let root = SVGBackend::with_string(svg, (W + 120, 60 + panel * n as u32)).into_drawing_area();
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
    for (i, ((id, g), area)) in data.iter().zip(panels.iter()).enumerate() {
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

/// Deception by edit-size bucket (dense systems pooled): the editsize table's own rows.
fn editsize(inputs: &PlotInputs<'_>, svg: &mut String) -> anyhow::Result<()> {
    let rows = crate::report::anatomy::editsize_rows(inputs.anatomy());
    let n = rows.len().max(1);
    let caption = [
        inputs.caption(None),
        "Edit size: characters spanned by the changed regions of a character diff; dense systems pooled; label: pairs in the bucket.".to_string(),
    ];
    let root = SVGBackend::with_string(svg, (W, 420)).into_drawing_area();
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
        .x_label_formatter(&|v| {
            let i = (v - 0.5).round();
            if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
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
