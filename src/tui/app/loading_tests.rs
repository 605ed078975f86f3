//! The dashboard's loading, tested end to end: partial leaderboards while a bundle loads.
use super::*;
use crate::bundle::{synthetic, write, SynthSpec};
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
            .map(|l| l.1.rows.len())
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
