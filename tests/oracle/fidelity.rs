//! Correct code recorded as correct (issue 28's fidelity probes): values keep their types'
//! semantics across the two halves of the oracle, and a test is any Python the field writes.
//! Each case is code that is right and tests that hold in one Python process; every test must
//! pass. A few wrong variants check the same semantics in the other direction.

use crate::common::oracle::oracle;
use execscope::oracle::Job;

fn outcomes(code: &str, entry: &str, tests: &[&str]) -> Vec<String> {
    let job = Job::new(code, tests.iter().map(|s| s.to_string()).collect()).entry(entry);
    let r = oracle().run_job(&job).expect("oracle answers");
    r.outcomes.iter().map(|o| o.to_string()).collect()
}

fn all_pass(name: &str, code: &str, entry: &str, tests: &[&str]) {
    let got = outcomes(code, entry, tests);
    assert!(got.iter().all(|o| o == "pass"), "{name}: {got:?}");
}

#[test]
fn nan_inside_lists_compares_by_identity_first() {
    let code = "import math\ndef f():\n    return [math.nan, 1]\ndef g():\n    return [float('nan')]\ndef same(x):\n    return x\n";
    all_pass(
        "nan",
        code,
        "f",
        &[
            "import math\nassert f() == [math.nan, 1]",
            "import math\nassert g() != [math.nan]",
            "x = float('nan')\nassert same([x]) == [x]",
            "x = [1]\nassert same(x) is x",
        ],
    );
}

#[test]
fn counters_ordered_and_default_dicts_and_deques_keep_their_semantics() {
    let code = "from collections import Counter, OrderedDict, defaultdict, deque\ndef c():\n    return Counter(a=1, b=0)\ndef o():\n    return OrderedDict([('b', 1), ('a', 2)])\ndef d():\n    x = defaultdict(list)\n    x['k'].append(1)\n    return x\ndef q():\n    x = deque(maxlen=2)\n    x.extend([1, 2, 3])\n    return x\n";
    all_pass(
        "collections",
        code,
        "c",
        &[
            "from collections import Counter\nassert c() == Counter(a=1)",
            "from collections import OrderedDict\nassert o() == OrderedDict([('b', 1), ('a', 2)]) and o() != OrderedDict([('a', 2), ('b', 1)])",
            "assert o() == {'a': 2, 'b': 1}",
            "x = d()\nassert x['k'] == [1] and x['new'] == [] and 'new' in x",
            "from collections import deque\nassert q() == deque([2, 3]) and q().maxlen == 2",
        ],
    );
}

#[test]
fn itertools_objects_and_generators_iterate() {
    let code = "import itertools\ndef count():\n    return itertools.count(3)\ndef chain():\n    return itertools.chain([1], [2, 3])\ndef gen(n):\n    for i in range(n):\n        yield i\n";
    all_pass(
        "iterators",
        code,
        "count",
        &[
            "import itertools\nassert list(itertools.islice(count(), 3)) == [3, 4, 5]",
            "assert list(chain()) == [1, 2, 3]",
            "it = count()\nassert next(it) == 3 and next(it) == 4",
            "assert sum(gen(10000)) == 49995000",
        ],
    );
}

#[test]
fn datetimes_fractions_and_decimals() {
    let code = "import datetime\nfrom fractions import Fraction\nfrom decimal import Decimal\ndef when():\n    return datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))\ndef day():\n    return datetime.date(2024, 2, 29) + datetime.timedelta(days=1)\ndef third():\n    return Fraction(1, 3)\ndef nan():\n    return Decimal('NaN')\n";
    all_pass(
        "datetime",
        code,
        "when",
        &[
            "import datetime\nassert when() == datetime.datetime(2024, 1, 2, 1, 4, 5, tzinfo=datetime.timezone.utc)",
            "import datetime\nassert day() == datetime.date(2024, 3, 1) and day().isoformat() == '2024-03-01'",
            "assert when().utcoffset().total_seconds() == 7200",
            "from fractions import Fraction\nassert third() == Fraction(2, 6) and third() * 3 == 1",
            "assert nan() != nan() and str(nan()) == 'NaN'",
        ],
    );
}

#[test]
fn dataclasses_named_tuples_enums_and_str_of_an_object() {
    let code = "from dataclasses import dataclass\nfrom collections import namedtuple\nimport enum\n@dataclass\nclass P:\n    x: int\n    y: int\nT = namedtuple('T', 'a b')\nclass C(enum.Enum):\n    R = 1\n    G = 2\nclass N:\n    def __init__(s, v):\n        s.v = v\n    def __str__(s):\n        return 'N(%d)' % s.v\ndef p():\n    return P(1, 2)\ndef t():\n    return T(1, 2)\ndef c():\n    return C.R\ndef n(v):\n    return N(v)\n";
    all_pass(
        "objects",
        code,
        "p",
        &[
            "assert p() == P(1, 2) and p() != P(2, 1) and p().x == 1",
            "assert t() == (1, 2) and t().a == 1 and t() == T(1, 2)",
            "assert c() == C.R and c() != C.G and c().value == 1",
            "assert str(n(3)) == 'N(3)' and n(4).v == 4",
        ],
    );
}

#[test]
fn isinstance_and_type_with_the_codes_own_class() {
    let code = "class Node:\n    def __init__(s, d):\n        s.data = d\n        s.next = None\ndef mk(d):\n    return Node(d)\n";
    all_pass(
        "classes",
        code,
        "mk",
        &[
            "assert isinstance(mk(1), Node)",
            "assert type(mk(1)) is Node",
            "n = Node(5)\nassert n.data == 5 and n.next is None",
        ],
    );
}

#[test]
fn pytest_approx_exactly_as_pytest_defines_it() {
    let code = "def f(x):\n    return x * 1.0000001\ndef big():\n    return 1e9 + 400\n";
    all_pass(
        "approx",
        code,
        "f",
        &[
            "import pytest\nassert f(1.0) == pytest.approx(1.0)",
            "import pytest\nassert big() != pytest.approx(1e9, abs=0.5)",
            "import pytest\nassert big() == pytest.approx(1e9, abs=0.5, rel=1e-6)",
            "from pytest import approx\nassert [f(1.0), f(2.0)] == approx([1.0, 2.0])",
            "from pytest import approx\nassert {'a': f(1.0)} == approx({'a': 1.0})",
            "import pytest, math\nassert math.nan == pytest.approx(math.nan, nan_ok=True)",
        ],
    );
}

#[test]
fn tests_of_several_statements_loops_try_and_check_functions() {
    let code = "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x * 2\ndef srt(l):\n    l.sort()\n";
    all_pass(
        "statements",
        code,
        "f",
        &[
            "a = f(1)\nb = f(2)\nassert a + b == 6",
            "try:\n    f(-1)\n    assert False\nexcept ValueError as e:\n    assert str(e) == 'negative'",
            "import pytest\nwith pytest.raises(ValueError, match='neg'):\n    f(-1)",
            "for i in range(5):\n    assert f(i) == 2 * i",
            "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(3) == 6\ncheck(f)",
            "l = [3, 1, 2]\nsrt(l)\nassert l == [1, 2, 3]",
        ],
    );
}

#[test]
fn a_test_hands_the_code_functions_of_its_own() {
    let code = "def bisect(g, a, b):\n    for _ in range(60):\n        m = (a + b) / 2\n        if g(a) * g(m) <= 0:\n            b = m\n        else:\n            a = m\n    return a\ndef apply(g, xs):\n    return [g(x) for x in xs]\n";
    all_pass(
        "callbacks",
        code,
        "bisect",
        &[
            "assert round(bisect(lambda x: x * x - 2, 0, 2), 6) == 1.414214",
            "assert apply(lambda x: x + 1, (x for x in range(3))) == [1, 2, 3]",
        ],
    );
}

#[test]
fn wrong_values_still_fail_with_the_same_semantics() {
    let code = "from collections import OrderedDict\ndef o():\n    return OrderedDict([('a', 2), ('b', 1)])\ndef wrong_day():\n    import datetime\n    return datetime.date(2024, 3, 2)\n";
    assert_eq!(
        outcomes(
            code,
            "o",
            &[
                "from collections import OrderedDict\nassert o() == OrderedDict([('b', 1), ('a', 2)])",
                "import datetime\nassert wrong_day() == datetime.date(2024, 3, 1)",
            ]
        ),
        ["FAIL", "FAIL"]
    );
}

/// With no entry point named, the judge infers it from the names a test calls or hands to a
/// call: in HumanEval's form (`check(f)`) beside `abs(...)`, the entry is `f`, so `abs` is the
/// judge's own and the code's `abs` decides nothing.
#[test]
fn an_inferred_entry_counts_the_function_handed_to_check() {
    let test = "def check(candidate):\n    assert abs(candidate(1) - 1) < 1e-6\ncheck(f)";
    let run = |code: &str| {
        let job = Job::new(code, vec![test.to_string()]);
        let r = oracle().run_job(&job).expect("oracle answers");
        r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(
        run("def abs(x):\n    return 0\ndef f(x):\n    return x + 1\n"),
        ["FAIL"]
    );
    assert_eq!(run("def f(x):\n    return x\n"), ["pass"]);
}
