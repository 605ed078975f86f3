//! `execscope plot`: every figure's series equals the matching report table, the SVGs are
//! well-formed, carry the settings caption and are written atomically; bad input gives clear errors.

mod common;

use execscope::analysis::significance::{SigConfig, Significance};
use execscope::analysis::Anatomy;
use execscope::engine::{Engine, EngineOptions};
use execscope::plot::{self, PlotInputs, FIGURES};
use execscope::report::{anatomy, leaderboard, Table};
use std::path::Path;
use std::process::Command;

const TINY: &str = "tests/fixtures/tiny";

fn engine() -> Engine {
    Engine::open(Path::new(TINY), &EngineOptions::default()).expect("tiny fixture loads")
}

fn cfg() -> SigConfig {
    SigConfig {
        replicates: 300,
        seed: 7,
    }
}

/// The numeric value of the cell in row `row`, column keyed `key`.
fn cell(t: &Table, row: usize, key: &str) -> f64 {
    let c = t
        .keys
        .iter()
        .position(|k| k == key)
        .unwrap_or_else(|| panic!("table {} has no column {key}", t.name));
    t.rows[row][c]
        .value
        .unwrap_or_else(|| panic!("{}[{row}].{key} has no value", t.name))
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12
}

#[test]
fn forest_matches_leaderboard_rows_and_json() {
    let e = engine();
    let lb = leaderboard::build(&e);
    let sig = Significance::compute(&e, cfg());
    let pts = plot::forest_data(&lb, &sig, "exec@1").unwrap();
    let table = leaderboard::table(&lb, Some(&sig));
    let json = leaderboard::json(&e, &lb, Some(&sig));
    assert_eq!(pts.len(), table.rows.len());
    assert!(pts.len() >= 2);
    let exec_col = table.keys.iter().position(|k| k == "exec@1").unwrap();
    for (i, p) in pts.iter().enumerate() {
        assert_eq!(table.rows[i][1].text, p.system);
        assert!(same(cell(&table, i, "exec@1"), p.mean));
        // The † mark of the report table.
        assert_eq!(
            table.rows[i][exec_col].mark, p.tied_with_leader,
            "{}",
            p.system
        );
        // The interval text of the table and the JSON's numbers.
        let ci_col = table.keys.iter().position(|k| k == "exec@1_ci95").unwrap();
        assert!(
            table.rows[i][ci_col]
                .text
                .starts_with(&format!("[{:.3}, {:.3}]", p.low, p.high)),
            "{} vs [{}, {}]",
            table.rows[i][ci_col].text,
            p.low,
            p.high
        );
        let js = &json["systems"][i];
        assert_eq!(js["id"], p.system.as_str());
        let iv = &js["intervals"]["exec@1"];
        assert!(same(iv["ci95_low"].as_f64().unwrap(), p.low));
        assert!(same(iv["ci95_high"].as_f64().unwrap(), p.high));
        assert!(p.low <= p.mean + 1e-12 && p.mean <= p.high + 1e-12);
    }
    assert!(plot::forest_data(&lb, &sig, "exec@2").is_none());
}

#[test]
fn anatomy_figures_match_report_tables() {
    let e = engine();
    let a = Anatomy::compute(&e);

    let dens = plot::density_data(&a);
    let dt = anatomy::density_table(&a);
    assert_eq!(dens.len(), dt.rows.len());
    for (i, (id, ys)) in dens.iter().enumerate() {
        assert_eq!(&dt.rows[i][0].text, id);
        for (d, &y) in ys.iter().enumerate() {
            assert!(same(cell(&dt, i, &format!("d{d}")), y), "{id} d={d}");
        }
    }

    let (types, series) = plot::bugtype_data(&a);
    let bt = anatomy::bugtypes_table(&a);
    // Table rows: the bug types in the same order, then `overall` (not drawn).
    assert_eq!(bt.rows.len(), types.len() + 1);
    assert_eq!(bt.rows.last().unwrap()[0].text, "overall");
    for (ti, ty) in types.iter().enumerate() {
        assert_eq!(&bt.rows[ti][0].text, ty);
        for (id, vals) in &series {
            // The table shows percentages.
            assert!(same(cell(&bt, ti, id) / 100.0, vals[ti]), "{id} {ty}");
        }
    }

    let m = plot::misses_data(&a);
    let mt = anatomy::misses_table(&a);
    assert_eq!(m.len(), mt.rows.len());
    for (i, (id, paired, other)) in m.iter().enumerate() {
        assert_eq!(&mt.rows[i][0].text, id);
        assert!(same(cell(&mt, i, "paired_distractor"), *paired));
        assert!(same(cell(&mt, i, "other"), *other));
        assert!(same(cell(&mt, i, "misses"), paired + other));
    }
}

#[test]
fn domain_heatmap_matches_domain_table() {
    let e = engine();
    let lb = leaderboard::build(&e);
    let (doms, series) = plot::domain_data(&lb);
    let t = leaderboard::domain_table(&lb);
    assert!(!doms.is_empty());
    assert_eq!(series.len(), t.rows.len());
    for (i, (id, vals)) in series.iter().enumerate() {
        assert_eq!(&t.rows[i][0].text, id);
        for (d, v) in doms.iter().zip(vals) {
            assert!(same(cell(&t, i, d), *v), "{id} {d}");
        }
    }
}

/// Tags balance (a small XML check: elements nest and close, one root `<svg>`).
fn assert_well_formed(svg: &str) {
    let body = svg.trim();
    let body = match body.strip_prefix("<?xml") {
        Some(rest) => &rest[rest.find("?>").expect("xml declaration ends") + 2..],
        None => body,
    };
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = body.trim_start();
    while let Some(lt) = rest.find('<') {
        let gt = rest[lt..].find('>').expect("tag closes") + lt;
        let tag = &rest[lt + 1..gt];
        assert!(!tag.contains('<'), "stray < in tag {tag:?}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.starts_with('!') {
            let name = tag.split_whitespace().next().unwrap().trim_end_matches('/');
            if stack.is_empty() {
                roots += 1;
                assert_eq!(name, "svg");
            }
            if !tag.ends_with('/') {
                stack.push(name.to_string());
            }
        }
        // Text content must not hold a raw '&' that is not an entity.
        let text_end = rest[gt + 1..].find('<').map_or(rest.len(), |i| i + gt + 1);
        let text = &rest[gt + 1..text_end];
        for (i, _) in text.match_indices('&') {
            let ent = &text[i..];
            assert!(ent.find(';').is_some_and(|j| j < 8), "bare & in {text:?}");
        }
        rest = &rest[gt + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1);
}

#[test]
fn every_figure_renders_well_formed_with_caption() {
    let e = engine();
    let inputs = PlotInputs::new(&e, cfg());
    for f in FIGURES {
        let svg = plot::render(&inputs, f).unwrap();
        assert_well_formed(&svg);
        assert!(
            svg.contains("ties: expected;") && svg.contains("bootstrap B = 300; seed 7"),
            "{f}: no settings caption"
        );
        assert!(
            svg.contains("k = 1") || svg.contains("k ∈ {1, 3, 5, 10}"),
            "{f}"
        );
    }
    // The forest plot names every system and the x axis has units.
    let svg = plot::render(&inputs, "forest").unwrap();
    for r in &inputs.leaderboard().rows {
        assert!(svg.contains(&r.id), "forest lacks {}", r.id);
    }
    assert!(svg.contains("exec@1 (fraction of queries)"));
    let err = plot::render(&inputs, "pie").unwrap_err().to_string();
    assert!(
        err.contains("unknown figure \"pie\"") && err.contains("forest"),
        "{err}"
    );
}

fn bin() -> Command {
    common::execscope()
}

#[test]
fn binary_writes_all_figures_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("figs");
    std::fs::create_dir_all(&out).unwrap();
    // An older file of the same name is replaced whole.
    std::fs::write(out.join("forest.svg"), "old").unwrap();
    let o = bin()
        .args([
            "plot",
            TINY,
            "--all",
            "--bootstrap",
            "300",
            "--seed",
            "7",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = FIGURES.iter().map(|f| format!("{f}.svg")).collect();
    want.sort();
    // No temporary files left behind.
    assert_eq!(names, want);
    for n in &names {
        let svg = std::fs::read_to_string(out.join(n)).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("bootstrap B = 300; seed 7"), "{n}");
    }
    // The same figure from the library and from the binary.
    let e = engine();
    let lib = plot::render(&PlotInputs::new(&e, cfg()), "density").unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("density.svg")).unwrap(),
        lib
    );
}

#[test]
fn binary_single_figure_and_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("one.svg");
    let o = bin()
        .args([
            "plot",
            TINY,
            "--figure",
            "misses",
            "--bootstrap",
            "50",
            "--out",
        ])
        .arg(&f)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_well_formed(&std::fs::read_to_string(&f).unwrap());

    let run = |args: &[&str], out: &Path| {
        let o = bin().args(args).arg("--out").arg(out).output().unwrap();
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let keep = dir.path().join("keep.svg");
    std::fs::write(&keep, "mine").unwrap();
    let err = run(&["plot", TINY, "--figure", "pie"], &keep);
    assert!(
        err.contains("unknown figure \"pie\"") && err.contains("density"),
        "{err}"
    );
    let err = run(
        &["plot", TINY, "--figure", "forest"],
        &dir.path().join("x.png"),
    );
    assert!(err.contains("x.png") && err.contains("PNG"), "{err}");
    let err = run(
        &["plot", TINY, "--figure", "forest"],
        &dir.path().join("x.pdf"),
    );
    assert!(err.contains("x.pdf") && err.contains(".svg"), "{err}");
    let err = run(&["plot", TINY], &keep);
    assert!(err.contains("--figure") && err.contains("--all"), "{err}");
    // Failed runs leave an existing file alone and write nothing else.
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "mine");
    assert!(!dir.path().join("x.png").exists() && !dir.path().join("x.pdf").exists());
}

#[test]
fn pairs_matrix_matches_pairs_table() {
    let e = engine();
    let lb = leaderboard::build(&e);
    let sig = Significance::compute(&e, cfg());
    let (names, m) = plot::pairs_data(&e, &lb, &sig, "exec@1").unwrap();
    let t = execscope::report::pairs::pairs_table(&e, &sig, "exec@1").unwrap();
    let n = names.len();
    assert_eq!(t.rows.len(), n * (n - 1) / 2);
    let pcol = t
        .keys
        .iter()
        .position(|k| k == "mcnemar_tie_averaged_p" || k == "mcnemar_exact_p")
        .unwrap();
    for (ri, row) in t.rows.iter().enumerate() {
        let i = names.iter().position(|x| *x == row[0].text).unwrap();
        let j = names.iter().position(|x| *x == row[1].text).unwrap();
        let c = m[i][j].unwrap();
        assert!(same(c.delta, cell(&t, ri, "delta")));
        assert!(same(m[j][i].unwrap().delta, -c.delta));
        assert_eq!(c.p, row[pcol].value, "{} vs {}", row[0].text, row[1].text);
    }
    for (i, row) in m.iter().enumerate() {
        assert!(row[i].is_none());
    }
}

#[test]
fn gap_histograms_match_gaps_table() {
    let e = engine();
    let a = Anatomy::compute(&e);
    let g = plot::gap_data(&a);
    let t = anatomy::gaps_table(&a);
    assert_eq!(g.len(), t.rows.len());
    for (i, (id, s)) in g.iter().enumerate() {
        assert_eq!(&t.rows[i][0].text, id);
        assert!(same(cell(&t, i, "queries"), s.n as f64));
        assert!(same(cell(&t, i, "median"), s.median));
        assert!(same(cell(&t, i, "below_zero") / 100.0, s.below_zero));
        // The drawn bins hold every query with a gap.
        assert_eq!(s.histogram.iter().map(|b| b.2).sum::<usize>(), s.n, "{id}");
    }
}

#[test]
fn editsize_figure_rows_are_the_editsize_table() {
    let e = engine();
    let a = Anatomy::compute(&e);
    let rows = anatomy::editsize_rows(&a);
    let t = anatomy::editsize_table(&a, None);
    assert_eq!(rows.len(), t.rows.len());
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(t.rows[i][0].text, r.bucket);
        assert!(same(cell(&t, i, "pairs"), r.pairs as f64));
        assert!(same(cell(&t, i, "deception") / 100.0, r.deception.rate()));
    }
    let svg = plot::render(&PlotInputs::new(&e, cfg()), "editsize").unwrap();
    for r in rows.iter().filter(|r| r.deception.rate().is_finite()) {
        assert!(
            svg.contains(&format!("({} pairs)", r.pairs)),
            "{}",
            r.bucket
        );
    }
}
