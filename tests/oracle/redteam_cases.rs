//! The red team's second round (issue 28): every class of attack that got through when the
//! sandbox still decided parts of a test, each as a case of the suite in `redteam.rs` (so at
//! every level, and again as `nobody`).

use super::{case, marker, needs_case, Case, Expect, Host, Needs};

/// A wrong `root` (always 1.0) whose module patched `math.isclose` to agree with anything.
const PATCHED_ISCLOSE: &str =
    "import math\nmath.isclose = lambda *a, **k: True\ndef root(x):\n    return 1.0\n";

pub(super) fn cases(host: &Host) -> Vec<Case> {
    let sock = host.unix_sock.display().to_string();
    let m = marker();
    let mut v = forged_parts_of_tests();
    v.extend(values_that_lie());
    v.extend(replies_the_judge_cannot_take());
    v.extend([
        case(
            "a loop counter in a function attribute is no proven hang",
            "def f():\n    f.n = 0\n    while f.n < 10 ** 12:\n        f.n += 1\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["TIMEOUT"]),
        ),
        case(
            "a loop counter in a class attribute is no proven hang",
            "class C:\n    n = 0\ndef f():\n    while C.n < 10 ** 12:\n        C.n += 1\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["TIMEOUT"]),
        ),
        case(
            "a function attribute that never changes is a proven hang",
            "def f():\n    f.n = 0\n    while f.n < 10:\n        pass\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["HANG"]),
        ),
        case(
            "a real daemon, double-forked, still alive when the pair ends",
            &format!("import os, time\ndef started():\n    r, w = os.pipe()\n    if os.fork() == 0:\n        os.setsid()\n        if os.fork() == 0:\n            os.close(r)\n            os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 30; true', '{m}'])\n        os._exit(0)\n    os.close(w)\n    time.sleep(0.3)\n    for p in os.listdir('/proc'):\n        try:\n            if b'{m}' in open('/proc/%s/cmdline' % p, 'rb').read():\n                return True\n        except OSError:\n            pass\n    return False\n"),
            &["assert started() is True"],
            Expect::Contained,
        ),
        needs_case(
            "a file left in /run/lock, a host Unix socket",
            Needs::PidNs,
            &format!("import os, socket\ndef quiet():\n    try:\n        open('/run/lock/{m}', 'w').write('x')\n    except OSError:\n        pass\n    try:\n        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n        s.connect({sock:?})\n        return 'reached'\n    except OSError:\n        return 'refused'\n"),
            &["assert quiet() == 'refused'"],
            Expect::Contained,
        ),
        needs_case(
            "nothing of /etc, /opt or /srv beyond what the interpreter and the toolchains read",
            Needs::OwnRoot,
            "import os\ndef view():\n    seen = {d: os.path.exists(d) for d in ('/opt', '/srv', '/home', '/etc/shadow', '/etc/hostname', '/etc/ssh')}\n    etc = set(os.listdir('/etc')) if os.path.isdir('/etc') else set()\n    extra = {e for e in etc if not e.startswith('java-')} - {'ld.so.cache', 'ld.so.conf', 'localtime', 'timezone', 'nsswitch.conf', 'passwd', 'group'}\n    return [d for d, there in seen.items() if there] + sorted(extra)\n",
            &["assert view() == []"],
            Expect::Contained,
        ),
    ]);
    v
}

/// The code deciding a part of a test: a comparison inside `all(...)`, a method of its own
/// object, a patched module function, its own builtin.
fn forged_parts_of_tests() -> Vec<Case> {
    vec![
        case(
            "a comparison inside all(...) answered by the code's __eq__",
            "class Y:\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\ndef f(x):\n    return Y()\n",
            &[
                "assert all(f(x) == y for x, y in [(1, 2), (3, 4)])",
                "assert [f(x) for x in range(3)] == [0, 1, 4]",
            ],
            Expect::NoPass,
        ),
        case(
            "a method of the code's own object answering the test",
            "class S:\n    def startswith(s, *a): return True\n    def __len__(s): return 2\n    def __iter__(s): return iter('cb')\ndef f(s):\n    return S()\n",
            &[
                "assert f('abc').startswith('cb')",
                "assert len(f('abc')) == 2",
                "assert list(f('abc')) == ['c', 'b']",
            ],
            Expect::NoPass,
        ),
        case(
            "a str subclass whose startswith lies",
            "class S(str):\n    def startswith(s, *a): return True\n    def __eq__(s, o): return True\n    __hash__ = str.__hash__\ndef f(s):\n    return S('zz')\n",
            &["assert f('a').startswith('cb')", "assert f('a') == 'cb'"],
            Expect::NoPass,
        ),
        case(
            "math.isclose patched by the code, with and without the test's import",
            PATCHED_ISCLOSE,
            &[
                "import math\nassert math.isclose(root(2), 1.4142135)",
                "assert math.isclose(root(2), 1.4142135)",
            ],
            Expect::NoPass,
        ),
        case(
            "the code's own abs",
            "def abs(x):\n    return 0\ndef f(x):\n    return x + 1\n",
            &["assert abs(f(1) - 1) < 1e-6"],
            Expect::NoPass,
        ),
    ]
}

/// Values rebuilt with semantics other than their types': order lost, a subclass read through
/// its own methods, an exact-type check, `approx` tolerances pytest does not have.
fn values_that_lie() -> Vec<Case> {
    vec![
        case(
            "an OrderedDict in the wrong order",
            "from collections import OrderedDict\ndef f():\n    return OrderedDict([('b', 2), ('a', 1)])\n",
            &["from collections import OrderedDict\nassert f() == OrderedDict([('a', 1), ('b', 2)])"],
            Expect::NoPass,
        ),
        case(
            "a dict subclass with its own keys, items and __getitem__",
            "class D(dict):\n    def keys(s): return ['a']\n    def items(s): return [('a', 1)]\n    def __getitem__(s, k): return 1\n    def __iter__(s): return iter(['a'])\n    def __eq__(s, o): return True\n    __hash__ = None\ndef f():\n    return D(x=5)\n",
            &["assert f() == {'a': 1}", "assert dict(f()) == {'a': 1}"],
            Expect::NoPass,
        ),
        case(
            "an int subclass against type(v) is int",
            "class I(int):\n    pass\ndef f():\n    return I(3)\n",
            &["assert type(f()) is int"],
            Expect::NoPass,
        ),
        case(
            "pytest.approx with abs= alone has no relative tolerance",
            "def f():\n    return 1e9 + 400\n",
            &["import pytest\nassert f() == pytest.approx(1e9, abs=0.5)"],
            Expect::NoPass,
        ),
    ]
}

/// Answers the judge cannot decode, or that would cost it more than a test's budget: each is
/// that test's outcome, and the next pair runs.
fn replies_the_judge_cannot_take() -> Vec<Case> {
    vec![
        case(
            "a forged reply: a Fraction over 0",
            "import sys\ndef f():\n    for m in [m for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('execscope_oracle')]:\n        if hasattr(m, 'encode_value'):\n            setattr(m, 'encode_value', lambda enc, v: ['q', 1, 0])\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["FAIL:Unjudged"]),
        ),
        case(
            "a forged reply: null",
            "import sys\ndef f():\n    for m in [m for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('execscope_oracle')]:\n        if hasattr(m, 'dumps'):\n            setattr(m, 'dumps', lambda o: 'null')\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["FAIL:Unjudged"]),
        ),
        case(
            "a forged reply: 100,000-deep nesting",
            "import sys\ndef f():\n    for m in [m for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('execscope_oracle')]:\n        if hasattr(m, 'dumps'):\n            setattr(m, 'dumps', lambda o: '[' * 100000 + ']' * 100000)\n    return 1\n",
            &["assert f() == 1"],
            Expect::Exactly(&["FAIL:Unjudged"]),
        ),
        case(
            "forged names at the test's start",
            "import sys\nfor m in [m for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('execscope_oracle')]:\n    if hasattr(m, 'dumps'):\n        setattr(m, 'dumps', lambda o: '[' * 100000)\ndef f():\n    return 1\n",
            &["assert f() == 1"],
            Expect::NoPass,
        ),
        case(
            "judge-time bombs: a Fraction of huge terms, colliding hashes",
            "from fractions import Fraction\ndef frac():\n    return Fraction(3 ** 40000, 2 ** 60000 + 1)\ndef same_hash():\n    return {i * (2 ** 61 - 1) for i in range(3000)}\n",
            &["assert frac() == 1", "assert len(same_hash()) == 3000"],
            Expect::Exactly(&["FAIL:Unjudged", "FAIL:Unjudged"]),
        ),
    ]
}
