//! Hangs cost their budget and no more: once a test of a pair ran out of time, a later test that
//! starts in a fresh child anyway runs under the hang detector first, and a proof there is its
//! `HANG` without spending the budget (docs/threat-model.md "A hang is proven, not assumed").
//! The verdicts are those of the run-then-detect order in every case; only the cost changes.

use execscope::oracle::{Oracle, OracleConfig, SuiteResult};
use std::time::Duration;

fn run(budget: Duration, code: &str, tests: &[&str]) -> SuiteResult {
    let oracle = Oracle::new(OracleConfig {
        timeout: budget,
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
    // A budget well above the detector's backstop (5 s): a test that spends its budget records at
    // least 8,000 ms whatever the load; a HANG proven by the detector before any budget is spent
    // ends within the backstop. Test 0 pays its budget (nothing has hung yet), test 1 does not;
    // test 3 starts in the child test 2 left (it ended normally), so it pays its budget again, and
    // test 4 does not.
    let budget = Duration::from_secs(8);
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
    assert!(
        r.test_ms[0] >= ms,
        "test 0 spends its budget: {:?}",
        r.test_ms
    );
    assert!(r.test_ms[1] < ms, "test 1 is proven first: {:?}", r.test_ms);
    assert!(
        r.test_ms[3] >= ms,
        "test 3 runs in test 2's child: {:?}",
        r.test_ms
    );
    assert!(r.test_ms[4] < ms, "test 4 is proven first: {:?}", r.test_ms);
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

/// The hang detector alone (its source, after the runtime it is embedded with), run on the
/// functions of `code` in a fresh python3: for each `(function, argument)`, how its detection
/// ended ("hang", "giveup", or "none" when 30 s passed first), the traced events and the snapshot
/// work it took, then `[DETECT_EVENTS, DETECT_WORK]`. The counts are deterministic: the clock only
/// cuts a run that went wrong.
fn detect(code: &str, calls: &[(&str, i64)]) -> serde_json::Value {
    const RUNTIME: [&str; 8] = [
        include_str!("../../crates/oracle/assets/codec.py"),
        include_str!("../../crates/oracle/assets/decode.py"),
        include_str!("../../crates/oracle/assets/excs.py"),
        include_str!("../../crates/oracle/assets/peer.py"),
        include_str!("../../crates/oracle/assets/proxy.py"),
        include_str!("../../crates/oracle/assets/engine.py"),
        include_str!("../../crates/oracle/assets/pytest_shim.py"),
        include_str!("../../crates/oracle/assets/detector.py"),
    ];
    let driver = format!(
        r#"
import json, signal, sys
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
    );
    let program = RUNTIME.concat() + &driver;
    let out = std::process::Command::new("python3")
        .args(["-I", "-c", &program])
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
