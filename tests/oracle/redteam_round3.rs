//! The red team's third round (issue 43): classes neither earlier round tried, each as a case of
//! the suite in `redteam.rs` (so at every level, and again as `nobody`). Written from the classes
//! the issue names: answers the judge still asked the sandbox for, secrets left in the memory a
//! pair inherits, the judge stopped by a value, a pair spoiling the next, and verdicts that
//! depend on the machine.

use super::{case, ipc_key, marker, needs_case, Case, Expect, Needs};

/// A wrong `truncate_number` (HumanEval/2: the decimal part of a float) whose value is an
/// instance of a standard-library class patched to say every difference is zero.
const PATCHED_STDLIB: &str = "import statistics\nstatistics.NormalDist.__sub__ = lambda self, other: 0.0\nstatistics.NormalDist.__rsub__ = lambda self, other: 0.0\nstatistics.NormalDist.__abs__ = lambda self: 0.0\nstatistics.NormalDist.__lt__ = lambda self, other: True\ndef truncate_number(number):\n    return statistics.NormalDist(0, 1)\n";

/// HumanEval/2's own check, as published.
const HUMANEVAL_2: &str = "def check(candidate):\n    assert candidate(3.5) == 0.5\n    assert abs(candidate(1.33) - 0.33) < 1e-6\n    assert abs(candidate(123.456) - 0.456) < 1e-6\n\ncheck(truncate_number)\n";

pub(super) fn cases() -> Vec<Case> {
    let mut v = answers_the_sandbox_gave();
    v.extend(secrets_in_inherited_memory());
    v.extend(values_that_stop_the_judge());
    v.extend(pairs_that_spoil_the_next());
    v.extend(verdicts_that_depend_on_the_machine());
    v
}

/// Class 1: an operation the test applies to a value the code returned, answered by the code
/// (a method, an attribute, an operator, a field list) and deciding the verdict.
fn answers_the_sandbox_gave() -> Vec<Case> {
    vec![
        case(
            "a method of the code's own class answering 1 or 'yes'",
            "class S:\n    def startswith(self, *a):\n        return 1\n    def endswith(self, *a):\n        return 'yes'\n    def isdigit(self):\n        return [0]\ndef f(s):\n    return S()\n",
            &[
                "assert f('abc').startswith('cb')",
                "assert f('abc').endswith('zz')",
                "assert f('abc').startswith('cb') == 1",
                "assert f('abc').endswith('zz') in ('yes',)",
                "assert [f('abc').startswith(p) for p in 'xyz'] == [1, 1, 1]",
            ],
            Expect::NoPass,
        ),
        case(
            "a function, a namespace or a module carrying a test's method names",
            "import operator, types\ndef ns(s):\n    return types.SimpleNamespace(startswith=operator.truth, upper=lambda *a: 'CB')\ndef fn(s):\n    def h():\n        pass\n    h.startswith = lambda *a: True\n    return h\ndef mod(s):\n    m = types.ModuleType('fake')\n    m.startswith = operator.truth\n    return m\n",
            &[
                "assert ns('abc').startswith('cb')",
                "assert ns('abc').startswith('cb') == True",
                "assert fn('abc').startswith('cb')",
                "assert mod('abc').startswith('cb')",
                "assert ns('abc').upper('x') == 'CB'",
            ],
            Expect::NoPass,
        ),
        case(
            "a str subclass whose instance attributes shadow str's methods",
            "class S(str):\n    pass\ndef f(s):\n    r = S('zz')\n    r.startswith = lambda *a: True\n    r.upper = lambda *a: 'ABC'\n    return r\n",
            &[
                "assert f('abc').startswith('cb')",
                "assert f('abc').upper() == 'ABC'",
            ],
            Expect::NoPass,
        ),
        case(
            "a patched standard-library class: HumanEval/2's check",
            PATCHED_STDLIB,
            &[
                "assert abs(truncate_number(3.5) - 0.5) < 1e-6",
                "assert abs(truncate_number(1.33) - 0.33) < 1e-6",
                "assert truncate_number(1.33) - 0.33 < 1e-6",
                HUMANEVAL_2,
            ],
            Expect::NoPass,
        ),
        case(
            "a patched pure-Python class of collections answering a method",
            "import collections\ncollections.UserString.startswith = lambda self, *a: 1\ndef f(s):\n    return collections.UserString('zz')\n",
            &["assert f('abc').startswith('cb')"],
            Expect::NoPass,
        ),
        case(
            "a dataclass whose compared fields change after it crossed",
            "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: int\n    def __post_init__(self):\n        if self.x == 5:\n            for fl in type(self).__dataclass_fields__.values():\n                fl.compare = False\ndef f(a):\n    return P(a + 1, a + 1)\n",
            &["assert f(1) != P(9, 9) and f(4) == P(4, 4)"],
            Expect::NoPass,
        ),
        case(
            "a dataclass whose field list was emptied before it crossed",
            "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\nP.__dataclass_fields__.clear()\ndef f(a):\n    return P(a + 1)\n",
            &["assert f(1) == P(1)"],
            Expect::NoPass,
        ),
    ]
}

/// Class 2: another pair's code left in the memory the next pair's process inherits. The first
/// pair (`prior`) holds a secret in its code (a reference solution, as EvalPlus's expected outputs
/// are computed); the next one scans its own memory for the secret's prefix and returns what
/// follows it. The test, which alone knows the secret, checks it is not among them.
fn secrets_in_inherited_memory() -> Vec<Case> {
    let secret = format!("{:032x}", rand::random::<u128>());
    let test: &'static str =
        Box::leak(format!("assert '{secret}' not in leaked()").into_boxed_str());
    vec![Case {
        prior: Some((
            // Long, as a reference solution with its literals is: memory the allocator takes from
            // the system and hands out again without clearing it.
            format!(
                "def f():\n    return 'EXECSCOPE-REFSOL-{secret}'\n# {}\n",
                "x".repeat(200_000)
            ),
            vec!["assert f() != ''".to_string()],
        )),
        ..case(
            "another pair's code read from the memory the next pair inherits",
            SCAN_MEMORY,
            &[test],
            Expect::Contained,
        )
    }]
}

/// Scans this process's readable memory for `EXECSCOPE-REFSOL-` and 32 hex digits after it
/// (`/proc/self/maps` + `/proc/self/mem`): the digits found.
const SCAN_MEMORY: &str = "import ctypes, re\ndef leaked():\n    ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # dumpable again: /proc/self/mem is ours to read\n    pat = re.compile(rb'EXECSCOPE-REFSOL-([0-9a-f]{32})')\n    found = set()\n    with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:\n        for line in maps:\n            parts = line.split()\n            if 'r' not in parts[1] or (len(parts) > 5 and parts[5] in ('[vvar]', '[vsyscall]')):\n                continue\n            lo, hi = (int(x, 16) for x in parts[0].split('-'))\n            if hi - lo > 256 << 20:\n                continue\n            try:\n                mem.seek(lo)\n                chunk = mem.read(hi - lo)\n            except (OSError, ValueError, OverflowError):\n                continue\n            found.update(m.decode() for m in pat.findall(chunk))\n    return sorted(found)\n";

/// Class 3: values that cost the judge work it cannot interrupt.
fn values_that_stop_the_judge() -> Vec<Case> {
    vec![
        case(
            "a shared tuple DAG in a set: 2^64 hash steps for the judge, one for the code",
            "class T(tuple):\n    def __hash__(self):\n        return 0\ndef f():\n    t = T()\n    for _ in range(64):\n        t = T((t, t))\n    return {t}\ndef g():\n    t = ()\n    for _ in range(64):\n        t = (t, t)\n    return [t]\n",
            &["assert f() == set()", "assert g() == g()"],
            Expect::Exactly(&["FAIL:Unjudged", "FAIL:Unjudged"]),
        ),
        case(
            "a shared list DAG compared with an equal one",
            "def f():\n    t = []\n    for _ in range(60):\n        t = [t, t]\n    return t\n",
            &["assert f() == f()"],
            Expect::Exactly(&["FAIL:Unjudged"]),
        ),
    ]
}

/// Class 4: what a pair leaves behind for the next pair (`prior` leaves it; the case looks).
fn pairs_that_spoil_the_next() -> Vec<Case> {
    let key = ipc_key();
    vec![
        Case {
            prior: Some((
                format!("import ctypes\ndef grab():\n    libc = ctypes.CDLL(None, use_errno=True)\n    shm = libc.shmget({key}, 1 << 20, 0o1000 | 0o666)\n    sem = libc.semget({key}, 1, 0o1000 | 0o666)\n    msg = libc.msgget({key}, 0o1000 | 0o666)\n    return [shm >= 0, sem >= 0, msg >= 0]\n"),
                vec!["assert grab() == [True, True, True]".to_string()],
            )),
            ..case(
                "System V shared memory, semaphores and queues left for the next pair",
                &format!("import ctypes\ndef left():\n    libc = ctypes.CDLL(None, use_errno=True)\n    return [libc.shmget({key}, 0, 0) >= 0, libc.semget({key}, 0, 0) >= 0, libc.msgget({key}, 0, 0) >= 0]\n"),
                &["assert left() == [False, False, False]"],
                Expect::Contained,
            )
        },
        Case {
            prior: Some((
                format!("import ctypes, os\ndef grab():\n    rt = ctypes.CDLL('librt.so.1', use_errno=True)\n    return rt.mq_open(b'/{m}', os.O_CREAT | os.O_RDWR, 0o666, None) >= 0\n", m = marker()),
                vec!["assert grab() is True".to_string()],
            )),
            ..case(
                "a POSIX message queue left for the next pair",
                &format!("import ctypes, os\ndef left():\n    rt = ctypes.CDLL('librt.so.1', use_errno=True)\n    return rt.mq_open(b'/{m}', os.O_RDONLY) >= 0\n", m = marker()),
                &["assert left() is False"],
                Expect::Contained,
            )
        },
        // (At `rlimits` as an ordinary user, /dev/shm is the host's and the pair's files are that
        // user's: the level does not promise it, docs/threat-model.md.)
        Case {
            prior: Some((
                format!("import os\ndef grab():\n    return os.open('/dev/shm/{m}', os.O_CREAT | os.O_RDWR, 0o666) >= 0\n", m = marker()),
                vec!["assert grab() is True".to_string()],
            )),
            ..needs_case(
                "a POSIX shared-memory object left for the next pair",
                Needs::OwnScratch,
                &format!("import os\ndef left():\n    return os.path.exists('/dev/shm/{m}')\n", m = marker()),
                &["assert left() is False"],
                Expect::Contained,
            )
        },
    ]
}

/// Class 5: programs that end, recorded as hangs; verdicts that depend on when a probe came.
fn verdicts_that_depend_on_the_machine() -> Vec<Case> {
    vec![
        case(
            "a loop whose counter lives in a standard-library function's attribute ends",
            "import statistics\ndef f():\n    statistics.mean.n = 0\n    while statistics.mean.n < 1000000:\n        statistics.mean.n += 1\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["pass"]),
        ),
        case(
            "a loop whose counter lives in a standard-library class's attribute ends",
            "import fractions\ndef f():\n    fractions.Fraction.n = 0\n    while fractions.Fraction.n < 1000000:\n        fractions.Fraction.n += 1\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["pass"]),
        ),
        case(
            "a loop over an iterator kept in a module ends",
            "import math\ndef f():\n    math.it = iter(range(1000000))\n    while next(math.it, None) is not None:\n        pass\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["pass"]),
        ),
        case(
            "the processes of a correct program count against its own pair's limit only",
            "import os, time\ndef f():\n    pids = []\n    for _ in range(24):\n        pid = os.fork()\n        if pid == 0:\n            time.sleep(0.3)\n            os._exit(0)\n        pids.append(pid)\n    for p in pids:\n        os.waitpid(p, 0)\n    return len(pids)\n",
            &["assert f() == 24"],
            Expect::Exactly(&["pass"]),
        ),
        needs_case(
            "a replayed test finds the scratch space as it was",
            Needs::CappedTmp,
            "import os, time\ndef bump():\n    p = '/tmp/execscope_count'\n    n = int(open(p).read()) if os.path.exists(p) else 0\n    open(p, 'w').write(str(n + 1))\n    return n\ndef slow():\n    t = time.monotonic()\n    while time.monotonic() - t < 0.3:\n        pass\n    return bump()\n",
            &["assert bump() == 0", "assert slow() == 1"],
            Expect::Exactly(&["pass", "pass"]),
        ),
    ]
}
