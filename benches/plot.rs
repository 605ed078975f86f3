//! `execscope plot --all` on the embedded benchmark, without process start and bundle load: every
//! figure as SVG and as PNG from fresh inputs (leaderboard, B = 5,000 bootstrap intervals and
//! tiers, anatomy, the funnel's retrieval audit). Baselines in the same run: the same inputs
//! without drawing anything, and every report table those inputs feed, rendered as text (what
//! `report` prints).

use divan::{black_box, Bencher};
use execscope::analysis::significance::SigConfig;
use execscope::cli::{open_engine, EvalArgs};
use execscope::engine::Engine;
use execscope::plot::{render_as, Figure, ImageFormat, PlotInputs};
use execscope::report::{anatomy, audit, leaderboard, pairs};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| open_engine(None, &EvalArgs::default()).expect("embedded bundle"))
}

/// Computes every input the figures draw from.
fn inputs() -> PlotInputs<'static> {
    let i = PlotInputs::new(engine(), SigConfig::default());
    black_box(i.leaderboard());
    black_box(i.significance());
    black_box(i.anatomy());
    black_box(i.audit().expect("funnel audit"));
    i
}

#[divan::bench(sample_count = 5)]
fn plot_all_svg_and_png(b: Bencher) {
    b.bench(|| {
        let i = inputs();
        let mut bytes = 0;
        for f in Figure::ALL {
            for fmt in [ImageFormat::Svg, ImageFormat::Png] {
                bytes += render_as(&i, f, fmt).expect("figure").len();
            }
        }
        bytes
    });
}

#[divan::bench(sample_count = 5)]
fn baseline_inputs_only(b: Bencher) {
    b.bench(|| black_box(inputs()).engine().bundle().queries.len());
}

#[divan::bench(sample_count = 5)]
fn baseline_report_tables(b: Bencher) {
    b.bench(|| {
        let i = inputs();
        let (lb, sig, a) = (i.leaderboard(), i.significance(), i.anatomy());
        let run = i.audit().expect("funnel audit");
        let tables = [
            leaderboard::table(lb, Some(sig)),
            leaderboard::domain_table(lb),
            pairs::pairs_table(engine(), sig, execscope::metrics::MetricKey::exec(1))
                .expect("exec@1"),
            anatomy::density_table(a),
            anatomy::misses_table(a),
            anatomy::bugtypes_table(a),
            anatomy::gaps_table(a),
            anatomy::editsize_table(a),
            audit::funnel_table(&run.audits),
        ];
        tables.iter().map(|t| t.to_text().len()).sum::<usize>()
    });
}
