//! Publication figures as SVG or PNG, drawn with `plotters` from the same typed rows the report
//! prints (`report::leaderboard`, `report::anatomy`, `report::pairs`, `report::audit`): one
//! source of numbers. A front end like the report and the dashboard; nothing in the core imports
//! it.
//!
//! Each figure has a `*_data` function returning the exact series it draws, so tests can compare
//! them with the matching report table. Text is set in the DejaVu Sans font embedded from
//! `assets/fonts/` (freely licensed, see `DejaVuSans-LICENSE.txt`), so a machine without fonts
//! renders the same PNG.

use crate::analysis::significance::{SigConfig, Significance};
use crate::analysis::Anatomy;
use crate::atomic::write_atomic;
use crate::audit::account::{audit as account, AuditConfig, CohortAudit};
use crate::audit::{retrieval, PoolSet};
use crate::engine::Engine;
use crate::report::leaderboard::{self, Leaderboard};
use anyhow::{anyhow, bail, Context};
use plotters::prelude::*;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

mod data;
pub use data::*;
mod funnel;
pub use funnel::funnel_data;
mod matrices;
use matrices::{domains, pairs};

/// Every figure, in the order `--all` writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Figure {
    Forest,
    Density,
    Bugtypes,
    Misses,
    Domains,
    Pairs,
    Gaps,
    Editsize,
    Funnel,
}

impl Figure {
    pub const ALL: [Figure; 9] = [
        Figure::Forest,
        Figure::Density,
        Figure::Bugtypes,
        Figure::Misses,
        Figure::Domains,
        Figure::Pairs,
        Figure::Gaps,
        Figure::Editsize,
        Figure::Funnel,
    ];

    /// The name on the command line and in file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Figure::Forest => "forest",
            Figure::Density => "density",
            Figure::Bugtypes => "bugtypes",
            Figure::Misses => "misses",
            Figure::Domains => "domains",
            Figure::Pairs => "pairs",
            Figure::Gaps => "gaps",
            Figure::Editsize => "editsize",
            Figure::Funnel => "funnel",
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Figure {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Figure::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = Figure::ALL.iter().map(|f| f.as_str()).collect();
                format!("unknown figure {s:?} (one of: {})", all.join(", "))
            })
    }
}

/// File formats a figure is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ImageFormat {
    Svg,
    Png,
}

impl ImageFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Svg => "svg",
            ImageFormat::Png => "png",
        }
    }

    /// The format an output path asks for by its extension.
    pub fn from_path(path: &Path) -> anyhow::Result<ImageFormat> {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("svg") => Ok(ImageFormat::Svg),
            Some(e) if e.eq_ignore_ascii_case("png") => Ok(ImageFormat::Png),
            _ => bail!(
                "{}: the figure file must end in .svg or .png",
                path.display()
            ),
        }
    }
}

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

/// The embedded font (DejaVu Sans, Bitstream Vera licence with public-domain changes).
static FONT_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Registers the embedded font as `sans-serif` (once per process).
fn ensure_font() -> anyhow::Result<()> {
    static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *DONE
        .get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, FONT_TTF).is_ok());
    if ok {
        Ok(())
    } else {
        bail!("the embedded font assets/fonts/DejaVuSans.ttf could not be read")
    }
}

/// The retrieval audit the funnel figure draws: the system's top `k` per query with `visible`
/// self-tests, pool order under row ties (as `execscope audit` by default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunnelSpec {
    /// System id; `None`: the leaderboard's leader.
    pub system: Option<String>,
    pub k: usize,
    pub visible: usize,
}

impl Default for FunnelSpec {
    fn default() -> Self {
        FunnelSpec {
            system: None,
            k: 10,
            visible: 3,
        }
    }
}

/// An audit run: its pools and accounting.
pub struct AuditRun {
    pub pools: PoolSet,
    pub audits: Vec<CohortAudit>,
}

/// The inputs every figure is drawn from, each computed at most once.
pub struct PlotInputs<'a> {
    pub engine: &'a Engine,
    pub sig_cfg: SigConfig,
    pub funnel: FunnelSpec,
    lb: OnceCell<Leaderboard>,
    sig: OnceCell<Significance>,
    anatomy: OnceCell<Anatomy>,
    audit: OnceCell<Result<AuditRun, String>>,
}

impl<'a> PlotInputs<'a> {
    pub fn new(engine: &'a Engine, sig_cfg: SigConfig) -> Self {
        PlotInputs {
            engine,
            sig_cfg,
            funnel: FunnelSpec::default(),
            lb: OnceCell::new(),
            sig: OnceCell::new(),
            anatomy: OnceCell::new(),
            audit: OnceCell::new(),
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

    /// The system the funnel audits (the leader unless named).
    pub fn funnel_system(&self) -> String {
        self.funnel.system.clone().unwrap_or_else(|| {
            self.leaderboard()
                .rows
                .first()
                .map_or_else(String::new, |r| r.id.clone())
        })
    }

    /// The retrieval audit behind the funnel. Pairs the execution cache lacks run through the
    /// oracle (sandboxed), as in `execscope audit`.
    pub fn audit(&self) -> anyhow::Result<&AuditRun> {
        self.audit
            .get_or_init(|| {
                let oracle = crate::oracle::lazy::LazyOracle::new(Default::default());
                let runner = |jobs: &[(String, Vec<String>)]| oracle.run(jobs, &|_, _| {});
                let system = self.funnel_system();
                let mut pools = retrieval::build(
                    self.engine,
                    &system,
                    self.funnel.k,
                    self.funnel.visible,
                    &runner,
                )
                .map_err(|e| format!("{e:#}"))?;
                pools.provenance.extend(oracle.describe());
                let audits = account(&pools, &AuditConfig::default());
                Ok(AuditRun { pools, audits })
            })
            .as_ref()
            .map_err(|e| anyhow!("the funnel's audit: {e}"))
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
            self.engine.bundle().queries.len()
        )
    }
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the figure: {e:?}")
}

/// The label of category slot `i` when `v` is its centre (`i + 0.5`), else empty: category
/// axes put one tick at every half step and name only the centres.
fn centre_label(v: f64, labels: &[String]) -> String {
    let i = (v - 0.5).round();
    if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
        labels.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// A chart of horizontal bars over counts: one row band per label (the first label at the
/// bottom), the count axis from 0 to `xmax`.
fn count_rows_chart<'b, DB: DrawingBackend>(
    area: &'b Area<DB>,
    title: &str,
    xmax: f64,
    labels: &[String],
    x_desc: &str,
) -> anyhow::Result<
    ChartContext<
        'b,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
> {
    let n = labels.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(200)
        .build_cartesian_2d(0f64..xmax, 0f64..n as f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(x_desc)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_labels(n * 2 + 1)
        .y_label_formatter(&|v| centre_label(*v, labels))
        .label_style((FONT, 13))
        .draw()
        .map_err(draw_err)?;
    Ok(chart)
}

/// Draw one figure on the backend `open` makes for the figure's size.
fn draw<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    figure: Figure,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    ensure_font()?;
    match figure {
        Figure::Forest => forest(inputs, open),
        Figure::Density => density(inputs, open),
        Figure::Bugtypes => bugtypes(inputs, open),
        Figure::Misses => misses(inputs, open),
        Figure::Domains => domains(inputs, open),
        Figure::Pairs => pairs(inputs, open),
        Figure::Gaps => gaps(inputs, open),
        Figure::Editsize => editsize(inputs, open),
        Figure::Funnel => funnel::funnel(inputs, open),
    }
}

/// Render one figure to an SVG document.
pub fn render(inputs: &PlotInputs<'_>, figure: Figure) -> anyhow::Result<String> {
    let mut svg = String::new();
    let out = &mut svg;
    draw(inputs, figure, move |size| {
        let out = out;
        SVGBackend::with_string(out, size).into_drawing_area()
    })?;
    Ok(svg)
}

/// Render one figure to a PNG file's bytes (an RGB bitmap of the SVG's size).
pub fn render_png(inputs: &PlotInputs<'_>, figure: Figure) -> anyhow::Result<Vec<u8>> {
    let mut rgb: Vec<u8> = Vec::new();
    let size = std::cell::Cell::new((0u32, 0u32));
    let buf = &mut rgb;
    let size_ref = &size;
    draw(inputs, figure, move |(w, h)| {
        let buf = buf;
        size_ref.set((w, h));
        buf.resize(w as usize * h as usize * 3, 0xFF);
        BitMapBackend::with_buffer(buf.as_mut_slice(), (w, h)).into_drawing_area()
    })?;
    let (w, h) = size.get();
    let mut png_bytes = Vec::new();
    let mut enc = png::Encoder::new(&mut png_bytes, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().context("encoding the PNG")?;
    writer.write_image_data(&rgb).context("encoding the PNG")?;
    writer.finish().context("encoding the PNG")?;
    Ok(png_bytes)
}

/// Render one figure in a format.
pub fn render_as(
    inputs: &PlotInputs<'_>,
    figure: Figure,
    format: ImageFormat,
) -> anyhow::Result<Vec<u8>> {
    match format {
        ImageFormat::Svg => Ok(render(inputs, figure)?.into_bytes()),
        ImageFormat::Png => render_png(inputs, figure),
    }
}

/// Render one figure and write it atomically to `out`, in the format its extension names
/// (`.svg` or `.png`).
pub fn write_figure(inputs: &PlotInputs<'_>, figure: Figure, out: &Path) -> anyhow::Result<()> {
    let format = ImageFormat::from_path(out)?;
    let bytes = render_as(inputs, figure, format)?;
    write_atomic(out, &bytes).with_context(|| format!("writing {}", out.display()))
}

/// Every figure into `dir` as `<figure>.<ext>` for each format; returns the files written.
pub fn write_all(
    inputs: &PlotInputs<'_>,
    dir: &Path,
    formats: &[ImageFormat],
) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for f in Figure::ALL {
        for &fmt in formats {
            let p = dir.join(format!("{f}.{}", fmt.extension()));
            write_figure(inputs, f, &p)?;
            out.push(p);
        }
    }
    Ok(out)
}

/// A drawing area on any backend (SVG text or an RGB bitmap).
pub(crate) type Area<DB> = DrawingArea<DB, plotters::coord::Shift>;

/// A white canvas with the caption lines (settings first) at the bottom; returns the drawing
/// area above them.
fn canvas<DB: DrawingBackend>(root: &Area<DB>, lines: &[String]) -> anyhow::Result<Area<DB>> {
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
fn side_legend<DB: DrawingBackend>(
    area: &Area<DB>,
    items: &[(String, RGBColor)],
) -> anyhow::Result<Area<DB>> {
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

fn forest<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
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

fn density<DB: DrawingBackend>(
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

/// Grouped bars: one group per bug type, one bar per system.
fn bugtypes<DB: DrawingBackend>(
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
    let root = open((W + LEGEND_W + 140, 480));
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

fn misses<DB: DrawingBackend>(
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

fn gaps<DB: DrawingBackend>(
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
fn editsize<DB: DrawingBackend>(
    inputs: &PlotInputs<'_>,
    open: impl FnOnce((u32, u32)) -> Area<DB>,
) -> anyhow::Result<()> {
    let rows = crate::report::anatomy::editsize_rows(inputs.anatomy());
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
