//! Hangs cost their budget and no more (docs/threat-model.md "A hang is proven, not assumed"): a
//! test whose code holds the ball for a share of its budget (`PROBE_SHARE`) is probed (its
//! child's earlier tests replayed in a detector child, the test traced there), and once a test of
//! a pair ran out of time or hung, a later test that starts in a fresh child anyway runs under
//! the detector first. A proof is the test's `HANG` without the rest of its budget. When a probe
//! comes changes what a test costs, never its verdict.

use execscope::oracle::{Oracle, OracleConfig, SuiteResult, PROBE_SHARE};
use std::time::Duration;

fn run(budget: Duration, code: &str, tests: &[&str]) -> SuiteResult {
    run_probed(budget, None, code, tests)
}

/// `run` with the probe at `probe` seconds of the code's time (None: `PROBE_SHARE` of the budget).
fn run_probed(
    budget: Duration,
    probe: Option<Duration>,
    code: &str,
    tests: &[&str],
) -> SuiteResult {
    let oracle = Oracle::new(OracleConfig {
        timeout: budget,
        probe,
        workers: 1,
        ..OracleConfig::default()
    })
    .expect("an oracle at some level");
    let tests: Vec<String> = tests.iter().map(|s| s.to_string()).collect();
    oracle.run(code, &tests).expect("oracle answers")
}

fn words(r: &SuiteResult) -> Vec<String> {
    r.outcomes.iter().map(|o| o.to_string()).collect()
}

#[test]
fn later_hangs_are_proven_without_their_budget() {
    // A budget well above the detector's backstop (5 s) whose `PROBE_SHARE` is 1 s: a test that
    // spends its budget records at least that budget whatever the load. Test 0 is probed after
    // 1 s and proven; test 1 starts in a fresh child after a hang, so it is proven first, at
    // once; test 3 starts in the child test 2 left (it ended normally), so it is probed after
    // 1 s, with test 2 replayed first; test 4 is proven first. No test spends its budget.
    let budget = Duration::from_secs_f64(1.0 / PROBE_SHARE);
    assert!(budget >= Duration::from_secs(8), "{budget:?}");
    let code = "def f(x):\n    while x:\n        pass\n    return 0\n";
    let r = run(
        budget,
        code,
        &[
            "assert f(1) == 0",
            "assert f(2) == 0",
            "assert f(0) == 1",
            "assert f(3) == 0",
            "assert f(4) == 0",
        ],
    );
    assert_eq!(words(&r), ["HANG", "HANG", "FAIL", "HANG", "HANG"]);
    let ms = budget.as_millis() as u32;
    let share = budget.mul_f64(PROBE_SHARE).as_millis() as u32;
    assert_eq!(share, 1000);
    for t in [0, 3] {
        let took = r.test_ms[t];
        assert!(
            (share..ms).contains(&took),
            "test {t} is probed after its share of the budget: {:?}",
            r.test_ms
        );
    }
    for t in [1, 4] {
        let took = r.test_ms[t];
        assert!(took < share, "test {t} is proven first: {:?}", r.test_ms);
    }
}

#[test]
fn a_probe_without_proof_keeps_the_ordinary_verdicts() {
    // After the first HANG every later test in a fresh child is probed: a test that ends under
    // the detector is run again as usual (its verdict is the ordinary run's), a loop whose proof
    // the clock prevents is TIMEOUT (run, out of time, no second detection), a proven one HANG.
    // (The clock is reached through `__import__`: a module of the code's globals outside the
    // detector's fixed list would void every proof, the HANGs' too.)
    let code = "def f(x):\n    \
                    if x == 1:\n        while True:\n            pass\n    \
                    if x == 2:\n        while __import__('time').time() > 0:\n            pass\n    \
                    return x\n";
    let r = run(
        Duration::from_secs(1),
        code,
        &[
            "assert f(1) == 1",
            "assert f(5) == 5",
            "assert f(2) == 2",
            "assert f(1) == 1",
            "assert f(2) == 2",
            "assert f(6) == 0",
            "assert f(7) == 7",
        ],
    );
    assert_eq!(
        words(&r),
        ["HANG", "pass", "TIMEOUT", "HANG", "TIMEOUT", "FAIL", "pass"]
    );
}

#[test]
fn when_a_probe_comes_changes_no_verdict() {
    // One suite probed at 50 ms of the code's time, at the default share of the budget, and
    // never (the probe after the budget: every hang detected after its whole budget): a hang
    // that depends on what the earlier tests of its child left in a module (proven in that
    // state: the detector child replays them first), a later test in a fresh child, a slow test
    // that ends (probed at 50 ms with the test before it replayed, traced until the detection
    // gives up, then run again with its whole budget: it passes), a loop on the clock (no proof:
    // TIMEOUT), a failure. The same verdicts every time.
    let code = "import string\n\
                def f():\n    \
                    string.turns = getattr(string, 'turns', 0) + 1\n    \
                    while string.turns == 3:\n        pass\n    \
                    return string.turns\n\
                def slow(n):\n    s = 0\n    for i in range(n):\n        s += i * i % 7\n    return s\n\
                def clock():\n    while __import__('time').time() > 0:\n        pass\n";
    let tests = [
        "assert f() == 1",
        "assert f() == 2",
        "assert f() == 3",
        "assert f() == 1",
        "assert slow(2000000) == 3999997",
        "assert clock()",
        "assert f() == 5",
    ];
    let want = ["pass", "pass", "HANG", "pass", "pass", "TIMEOUT", "FAIL"];
    let budget = Duration::from_secs(2);
    let mut took = vec![];
    let mut slow = vec![];
    for probe in [Some(Duration::from_millis(50)), None, Some(budget * 10)] {
        let r = run_probed(budget, probe, code, &tests);
        assert_eq!(words(&r), want, "probe {probe:?}: {:?}", r.test_ms);
        took.push(r.test_ms[2]);
        slow.push(r.test_ms[4]);
    }
    // The state-dependent hang costs less than its budget when probed, all of it when not.
    let ms = budget.as_millis() as u32;
    assert!(took[0] < ms && took[1] < ms && took[2] >= ms, "{took:?}");
    // The slow test that passes records the time of the run its verdict comes from, probed or
    // not: not the probe, the traced detection and the replay before it (about 3x its own run
    // when they were counted; the build gate's speed check reads this time).
    let own = slow[2];
    assert!(
        slow[..2].iter().all(|&t| t <= 2 * own + 50),
        "probed (50 ms, default share) vs never: {slow:?}"
    );
}

/// The hang detector alone (the oracle's package imported from `crates/oracle/python`), run on
/// the functions of `code` in a fresh python3: for each `(function, argument)`, how its detection
/// ended ("hang", "giveup", or "none" when 30 s passed first), the traced events and the snapshot
/// work it took, then `[DETECT_EVENTS, DETECT_WORK]`. The counts are deterministic: the clock only
/// cuts a run that went wrong.
fn detect(code: &str, calls: &[(&str, i64)]) -> serde_json::Value {
    let driver = format!(
        r#"
import json, signal, sys
sys.path.insert(0, {package})
from execscope_oracle.detector import DETECT_EVENTS, DETECT_WORK, Detector
class Stop(BaseException):
    pass
def run(fn, arg):
    res = {{}}
    def hang():
        res["r"] = "hang"; raise Stop()
    def giveup():
        res["r"] = "giveup"; raise Stop()
    det = Detector(hang, giveup)
    def late(*_):
        raise Stop()
    signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, 30)  # a regression fails in 30 s, not in minutes
    det.arm(); det.active = True
    try:
        fn(arg)
    except Stop:
        pass
    finally:
        det.dead = True; sys.settrace(None); sys.setprofile(None)
        signal.setitimer(signal.ITIMER_REAL, 0)
    return [res.get("r", "none"), det.events, det.work]
ns = {{}}
exec(compile({code}, "<code>", "exec"), ns)
print(json.dumps([run(ns[f], a) for f, a in {calls}] + [[DETECT_EVENTS, DETECT_WORK]]))
"#,
        code = serde_json::to_string(code).unwrap(),
        calls = serde_json::to_string(calls).unwrap(),
        package =
            serde_json::to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/crates/oracle/python"))
                .unwrap(),
    );
    let out = std::process::Command::new("python3")
        .args(["-I", "-c", &driver])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the driver's JSON")
}

#[test]
fn a_state_that_cannot_repeat_ends_the_detection_by_its_work_bound() {
    // Neither loop ever comes back to a state: the first's integer grows at every turn, the
    // second's list is too large to snapshot (every visit is opaque). Without a bound on the
    // detector's work, each would spend its detection on ever longer keys or on 20,000-value walks
    // that cannot be compared, turn after turn, until the event bound (tens of seconds for the
    // first) or the backstop; with it, each gives up after a few thousand turns, by its work and
    // long before the event bound. A real hang is still proven within a few events.
    let code = "def grow(n):\n    while True:\n        n = n * 3 + 1\n\n\
                def big(n):\n    xs = list(range(30000))\n    while True:\n        xs[0] += n\n\n\
                def spin(x):\n    while x:\n        pass\n";
    let got = detect(code, &[("grow", 1), ("big", 1), ("spin", 1)]);
    let (events_max, work_max) = (got[3][0].as_u64().unwrap(), got[3][1].as_u64().unwrap());
    for (i, name) in ["grow", "big"].iter().enumerate() {
        let r = &got[i];
        assert_eq!(r[0], "giveup", "{name}: {got}");
        assert!(
            r[1].as_u64().unwrap() < events_max / 10,
            "{name}, by its work: {got}"
        );
        assert!(r[2].as_u64().unwrap() > work_max, "{name}: {got}");
    }
    assert_eq!(got[2][0], "hang", "{got}");
    assert!(got[2][1].as_u64().unwrap() < 20, "{got}");
}
