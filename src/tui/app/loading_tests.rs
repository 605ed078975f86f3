//! The dashboard's loading, tested end to end: partial leaderboards while a bundle loads.
use super::*;
use crate::bundle::{synthetic, write, SynthSpec};
use crate::store::Store;
use crate::tui::jobs::JobResult;
use crate::tui::theme::ThemeKind;

/// While a bundle loads, partial engines arrive before the whole one; the app shows their
/// leaderboard, then the whole engine's, whose numbers are the plain open's.
#[test]
fn leaderboard_rows_arrive_before_the_whole_engine() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("b");
    let spec = SynthSpec {
        n_queries: 40,
        n_corpus_extra: 10,
        distractors_per_query: 3,
        dims: vec![8, 16, 12, 6],
        seed: 5,
        tie_rate: 0.2,
    };
    write(&synthetic(&spec), &root).unwrap();
    let opts = EngineOptions::default();
    let mut app = App::new(
        root.clone(),
        opts.clone(),
        Theme::new(ThemeKind::Dark, false),
    );
    let jobs = app.take_jobs();
    assert_eq!(jobs.len(), 1);
    let sent = std::sync::Mutex::new(Vec::new());
    let last = jobs.into_iter().next().unwrap().run_reporting(&|r| {
        sent.lock().unwrap().push(r);
    });
    let sent = sent.into_inner().unwrap();
    assert!(!sent.is_empty(), "the first scored system is sent at once");
    let whole = Engine::open(&root, &opts).unwrap();
    for r in sent {
        let JobResult::Partial(e) = &r else {
            panic!("only partial engines before the end")
        };
        assert!(e.scores().len() < whole.scores().len());
        for (s, ev) in e.scores().iter().zip(e.evals()) {
            let i = whole.system_index(&s.id).unwrap();
            assert_eq!(ev.per_query, whole.evals()[i].per_query, "{}", s.id);
        }
        app.on_result(r);
    }
    assert!(app.partial);
    app.run_jobs_inline();
    let rows = |a: &App| {
        a.data
            .as_ref()
            .and_then(|d| d.lb.as_ref())
            .map(|l| l.rows.len())
    };
    let partial_rows = rows(&app).expect("a partial leaderboard");
    assert!(partial_rows >= 1 && partial_rows < whole.scores().len());
    app.on_result(last);
    assert!(!app.partial);
    app.run_jobs_inline();
    assert_eq!(rows(&app), Some(whole.scores().len()));
    let e = &app.data.as_ref().unwrap().engine;
    for (a, b) in e.evals().iter().zip(whole.evals()) {
        assert_eq!(a.per_query, b.per_query);
    }
}

/// After a headless report (which stores evaluations, no score matrix), the dashboard opens
/// warm, and its background jobs bring every system's score matrix into memory (computed again
/// from the bundle, the same bits as a plain open) before a pane asks for a row.
#[test]
fn rows_are_brought_in_after_a_report_stored_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("b");
    let spec = SynthSpec {
        n_queries: 30,
        n_corpus_extra: 5,
        distractors_per_query: 3,
        dims: vec![8, 12],
        seed: 9,
        tie_rate: 0.1,
    };
    write(&synthetic(&spec), &root).unwrap();
    std::thread::sleep(crate::store::memo::SETTLED * 2);
    let cache = Store::new(dir.path().join("cache"));
    let mut lean = EngineOptions::default();
    lean.rank.keep_rows = false;
    Engine::open_with(&root, &lean, Some(&cache), &|_| {}).unwrap();
    assert!(!cache.dir.join("scores").exists());
    let mut app = App::new(
        root.clone(),
        EngineOptions::default(),
        Theme::new(ThemeKind::Dark, false),
    )
    .with_rank_cache(Some(cache.clone()));
    app.run_jobs_inline();
    let e = &app.data.as_ref().unwrap().engine;
    assert!(
        e.bundle().systems.iter().all(|s| s.corpus.ncols() == 0),
        "opened warm"
    );
    let whole = Engine::open(&root, &EngineOptions::default()).unwrap();
    for (s, w) in e.scores().iter().zip(whole.scores()) {
        assert!(s.scores.is_loaded(), "{} not brought in", s.id);
        let bits = |m: &crate::rank::SystemScores| -> Vec<u32> {
            m.scores.matrix().iter().map(|v| v.to_bits()).collect()
        };
        assert_eq!(bits(s), bits(w), "{}", s.id);
    }
}
