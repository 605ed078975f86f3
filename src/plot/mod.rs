//! Publication figures as SVG or PNG, drawn with `plotters` from the same typed rows the report
//! prints (the core's [`crate::view`] and the audit's rows): one source of numbers. A front end like the report and the dashboard; nothing in the core imports
//! it.
//!
//! Each figure has a `*_data` function returning the exact series it draws, so tests can compare
//! them with the matching report table. Text is set in the DejaVu Sans font embedded from
//! `assets/fonts/` (freely licensed, see `DejaVuSans-LICENSE.txt`), so a machine without fonts
//! renders the same PNG.

use crate::analysis::significance::{SigConfig, Significance};
use crate::atomic::write_atomic;
use crate::audit::account::AuditConfig;
use crate::audit::retrieval::{RetrievalSpec, DEFAULT_K, DEFAULT_VISIBLE};
pub use crate::audit::AuditRun;
use crate::engine::Engine;
use crate::metrics::MetricKey;
use crate::view::{AnatomyView, Leaderboard, Snapshot};
use anyhow::{anyhow, bail, Context};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod bars;
mod data;
mod density;
mod forest;
mod funnel;
mod gaps;
mod matrices;
mod scaled;
use bars::{bugtypes, editsize, misses};
pub use data::*;
use density::density;
use forest::forest;
pub use funnel::funnel_data;
use gaps::gaps;
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

    /// Whether the figure is drawn from score rows (the failure anatomy, the funnel's audit),
    /// not from the evaluations alone.
    pub fn reads_rows(self) -> bool {
        match self {
            Figure::Forest | Figure::Domains | Figure::Pairs => false,
            Figure::Density
            | Figure::Bugtypes
            | Figure::Misses
            | Figure::Gaps
            | Figure::Editsize
            | Figure::Funnel => true,
        }
    }

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
            k: DEFAULT_K,
            visible: DEFAULT_VISIBLE,
        }
    }
}

/// The inputs every figure is drawn from: the core's [`Snapshot`] of the evaluation (each part
/// computed at most once) and the funnel's audit.
pub struct PlotInputs<'a> {
    pub view: Snapshot<'a>,
    pub funnel: FunnelSpec,
    /// PNG pixels per figure unit (1: the SVG's size; 2: twice as wide and tall, drawn sharp).
    pub scale: u32,
    audit: OnceLock<Result<AuditRun, String>>,
}

impl<'a> PlotInputs<'a> {
    pub fn new(engine: &'a Engine, sig_cfg: SigConfig) -> Self {
        PlotInputs {
            view: Snapshot::new(engine, sig_cfg),
            funnel: FunnelSpec::default(),
            scale: 1,
            audit: OnceLock::new(),
        }
    }
    /// Compute the inputs `figures` draw from at once, in parallel (each is independent of the
    /// others; the funnel's audit leans on the leaderboard only for its default system).
    pub fn prepare(&self, figures: &[Figure]) {
        let funnel = figures.contains(&Figure::Funnel);
        rayon::scope(|s| {
            s.spawn(|_| {
                self.leaderboard();
                if funnel {
                    let _ = self.audit();
                }
            });
            s.spawn(|_| {
                self.view.significance_with_pairs();
            });
            s.spawn(|_| {
                self.anatomy();
            });
        });
    }

    pub fn engine(&self) -> &'a Engine {
        self.view.engine()
    }
    pub fn leaderboard(&self) -> &Leaderboard {
        self.view.leaderboard()
    }
    /// The significance with its pairs (the pairs figure reads them).
    pub fn significance(&self) -> &Significance {
        self.view.significance_with_pairs()
    }
    pub fn anatomy(&self) -> &AnatomyView {
        self.view.anatomy()
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
                let spec = RetrievalSpec {
                    k: self.funnel.k,
                    visible: self.funnel.visible,
                    ..RetrievalSpec::new(self.funnel_system())
                };
                crate::retrieval_audit::run(
                    self.engine(),
                    &spec,
                    Default::default(),
                    &[],
                    &AuditConfig::default(),
                    &|_, _| {},
                )
                .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow!("the funnel's audit: {e}"))
    }

    /// The settings line every figure carries.
    pub fn caption(&self, k: Option<usize>) -> String {
        let cfg = self.engine().config();
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
            self.view.sig_config().replicates,
            self.view.sig_config().seed,
            self.engine().bundle().queries.len()
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
    Ok(xml_text(&svg))
}

/// An SVG document whose text holds only characters XML allows and a reader sees: plotters
/// escapes `< > & " '` in labels, but a control character (illegal in XML 1.0: the file would
/// not parse), a noncharacter or an invisible bidirectional override in a bundle's names
/// passes through. Each becomes its visible escape (`\u{1}`), as the terminal shows it; tab,
/// line feed and carriage return are XML's own whitespace and stay.
pub fn xml_text(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    for ch in svg.chars() {
        let hidden = matches!(ch as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2069 | 0xFEFF | 0xFFFE | 0xFFFF);
        if (ch.is_control() && !matches!(ch, '\t' | '\n' | '\r')) || hidden {
            out.push_str(&format!("\\u{{{:x}}}", ch as u32));
        } else {
            out.push(ch);
        }
    }
    out
}

/// Render one figure to a PNG file's bytes: an RGB bitmap of the SVG's size times
/// `inputs.scale` (at 2× every primitive is drawn at twice the resolution, see `scaled`).
pub fn render_png(inputs: &PlotInputs<'_>, figure: Figure) -> anyhow::Result<Vec<u8>> {
    let mut rgb: Vec<u8> = Vec::new();
    let size = std::cell::Cell::new((0u32, 0u32));
    let buf = &mut rgb;
    let size_ref = &size;
    let s = inputs.scale.max(1);
    if s == 1 {
        draw(inputs, figure, move |(w, h)| {
            let buf = buf;
            size_ref.set((w, h));
            buf.resize(w as usize * h as usize * 3, 0xFF);
            BitMapBackend::with_buffer(buf.as_mut_slice(), (w, h)).into_drawing_area()
        })?;
    } else {
        draw(inputs, figure, move |(w, h)| {
            let buf = buf;
            let (w, h) = (w * s, h * s);
            size_ref.set((w, h));
            buf.resize(w as usize * h as usize * 3, 0xFF);
            let inner = BitMapBackend::with_buffer(buf.as_mut_slice(), (w, h));
            scaled::Scaled { inner, scale: s }.into_drawing_area()
        })?;
    }
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
    use rayon::prelude::*;
    inputs.prepare(&Figure::ALL);
    let jobs: Vec<(Figure, PathBuf)> = Figure::ALL
        .into_iter()
        .flat_map(|f| {
            formats
                .iter()
                .map(move |fmt| (f, dir.join(format!("{f}.{}", fmt.extension()))))
        })
        .collect();
    // Figures are drawn in parallel (PNG rasterising is the costly part); the first error in
    // figure order is reported.
    jobs.par_iter()
        .map(|(f, p)| write_figure(inputs, *f, p))
        .collect::<Vec<_>>()
        .into_iter()
        .collect::<anyhow::Result<()>>()?;
    Ok(jobs.into_iter().map(|(_, p)| p).collect())
}

/// A numeric tick label: at most three decimals, trailing zeros dropped, and never `-0` (a
/// tick at zero rounds from either side).
pub(crate) fn tick(v: f64) -> String {
    let mut s = format!("{v:.3}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
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
