//! Each pair on its own, and the same verdict on every run: a pair finds the scratch space an
//! earlier pair filled empty again, and identical code gets identical values from two oracles
//! (one string-hash seed everywhere), while another seed does change them (so the check can
//! fail).

use crate::common::oracle::oracle;
use execscope::oracle::{IsolationLevel, Job, Oracle, OracleConfig};

fn job(code: &str, tests: &[&str], entry: &str) -> Job {
    Job::new(code, tests.iter().map(|s| s.to_string()).collect()).entry(entry)
}

#[test]
fn a_pair_finds_the_scratch_space_an_earlier_pair_filled_empty() {
    let o = oracle();
    if o.isolation() == IsolationLevel::Rlimits {
        eprintln!("skipped: rlimits has no private /tmp to wipe (each pair has its own work dir)");
        return;
    }
    // 25 files of 10 MiB (the per-file cap) nearly fill the 256 MiB /tmp.
    let fill = "import os\ndef fill():\n    n = 0\n    for i in range(25):\n        try:\n            with open('/tmp/fill-%d' % i, 'wb') as f:\n                f.write(b'0' * (10 << 20))\n            n += 1\n        except OSError:\n            break\n    open('/dev/shm/left', 'w').write('x')\n    return n\n";
    let r = o
        .run_job(&job(fill, &["assert fill() > 20"], "fill"))
        .unwrap();
    assert!(r.passes_all(), "the filler filled: {:?}", r.outcomes);
    // A correct candidate that needs scratch space, and sees nothing left behind.
    let later = "import os\ndef work():\n    with open('/tmp/mine', 'wb') as f:\n        f.write(b'1' * (8 << 20))\n    return os.path.getsize('/tmp/mine')\ndef left():\n    names = set(os.listdir('/tmp')) - {'execscope', 'mine'}\n    return sorted(names) + sorted(os.listdir('/dev/shm'))\n";
    let r = o
        .run_job(&job(
            later,
            &["assert work() == 8 << 20", "assert left() == []"],
            "work",
        ))
        .unwrap();
    assert!(r.passes_all(), "{:?} {:?}", r.outcomes, r.observed);
}

#[test]
fn identical_code_gets_identical_values_on_every_run() {
    let code =
        "def order():\n    return list({'apple', 'banana', 'cherry', 'date', 'elderberry'})\n";
    let tests = ["assert order() == []"];
    let seen = |o: &Oracle| {
        let r = o.run_job(&job(code, &tests, "order")).unwrap();
        r.observed[0].clone().expect("the compared value")
    };
    let first = seen(oracle());
    let again = Oracle::new(OracleConfig {
        workers: 1,
        ..OracleConfig::default()
    })
    .unwrap();
    assert_eq!(seen(&again), first, "a second oracle, the same seed");
    // Another seed orders the set otherwise (the fixed seed is what makes runs agree).
    let other = Oracle::new(OracleConfig {
        workers: 1,
        hash_seed: 1,
        ..OracleConfig::default()
    })
    .unwrap();
    assert_ne!(seen(&other), first, "PYTHONHASHSEED reaches the sandbox");
    assert!(other.runner_string().contains("PYTHONHASHSEED=1"));
}
