//! Correct code the third red team found recorded failing (issue 43): an entry point bound to a
//! standard-library function, a class as the entry point, the standard library's dataclass
//! functions on the code's dataclass, a generator checked by its type, an exception's own
//! message under `pytest.raises(match=...)`, the same object returned twice. Every test holds in
//! one Python process and must pass; a wrong variant of each checks the other direction.

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

fn none_pass(name: &str, code: &str, entry: &str, tests: &[&str]) {
    let got = outcomes(code, entry, tests);
    assert!(got.iter().all(|o| o != "pass"), "{name}: {got:?}");
}

/// HumanEval/53's check, as published.
const HUMANEVAL_53: &str = "def check(candidate):\n    import random\n\n    assert candidate(0, 1) == 1\n    assert candidate(1, 0) == 1\n    assert candidate(2, 3) == 5\n    assert candidate(5, 7) == 12\n    assert candidate(7, 5) == 12\n\n    for i in range(100):\n        x, y = random.randint(0, 1000), random.randint(0, 1000)\n        assert candidate(x, y) == x + y\n\ncheck(add)\n";

/// HumanEval/47's check, as published.
const HUMANEVAL_47: &str = "def check(candidate):\n    assert candidate([3, 1, 2, 4, 5]) == 3\n    assert candidate([-10, 4, 6, 1000, 10, 20]) == 8.0\n    assert candidate([5]) == 5\n    assert candidate([6, 5]) == 5.5\n    assert candidate([8, 1, 3, 9, 9, 2, 7]) == 7\n\ncheck(median)\n";

#[test]
fn an_entry_point_bound_to_a_standard_library_function() {
    all_pass(
        "operator.add, HumanEval/53",
        "from operator import add\n",
        "add",
        &[HUMANEVAL_53],
    );
    all_pass(
        "math.gcd, MBPP/498",
        "from math import gcd\n",
        "gcd",
        &[
            "assert gcd(12, 17) == 1",
            "assert gcd(4,6) == 2",
            "assert gcd(2,9) == 1",
        ],
    );
    all_pass(
        "math.lcm, MBPP/876",
        "import math\nlcm = math.lcm\n",
        "lcm",
        &[
            "assert lcm(4,6) == 12",
            "assert lcm(15,17) == 255",
            "assert lcm(2,6) == 6",
        ],
    );
    // The standard library's function is judged as the code's own: it runs in the sandbox.
    all_pass(
        "statistics.median, HumanEval/47",
        "from statistics import median\n",
        "median",
        &[HUMANEVAL_47],
    );
    // Inferred entry points too (no caller names one).
    let job = Job::new(
        "from math import gcd\n",
        vec!["assert gcd(4, 6) == 2".to_string()],
    );
    let r = oracle().run_job(&job).expect("oracle answers");
    assert_eq!(
        r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
        ["pass"],
        "inferred gcd"
    );
    // The wrong direction: a standard-library function that is not the task's.
    none_pass(
        "operator.sub as add",
        "from operator import sub as add\n",
        "add",
        &["assert add(2, 3) == 5"],
    );
}

const STACK: &str = "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n    def peek(self):\n        return self.items[-1]\n    def is_empty(self):\n        return not self.items\n    def contains(self, x):\n        return x in self.items\n    def __len__(self):\n        return len(self.items)\n";

#[test]
fn a_class_as_the_entry_point() {
    all_pass(
        "Stack",
        STACK,
        "Stack",
        &[
            "s = Stack()\nassert s.is_empty()\ns.push(1)\ns.push(2)\nassert not s.is_empty()\nassert len(s) == 2\nassert s.pop() == 2\nassert s.peek() == 1",
            "assert Stack().is_empty() is True",
            "s = Stack()\ns.push('a')\nassert s.items == ['a'] and s.contains('a') and not s.contains('b')",
        ],
    );
    let wrong = STACK.replace("return not self.items", "return True");
    none_pass(
        "a Stack that is always empty",
        &wrong,
        "Stack",
        &["s = Stack()\ns.push(1)\nassert not s.is_empty()"],
    );
}

const POINT: &str = "from dataclasses import dataclass, field\n@dataclass\nclass P:\n    x: int\n    y: int = 0\n    tags: list = field(default_factory=list)\ndef f(a):\n    return P(a, a * 2, ['t'])\n";

#[test]
fn the_standard_librarys_dataclass_functions_on_the_codes_dataclass() {
    all_pass(
        "dataclasses",
        POINT,
        "f",
        &[
            "import dataclasses\nassert dataclasses.is_dataclass(f(1))",
            "import dataclasses\nassert dataclasses.asdict(f(1)) == {'x': 1, 'y': 2, 'tags': ['t']}",
            "import dataclasses\nassert dataclasses.astuple(f(2)) == (2, 4, ['t'])",
            "from dataclasses import fields\nassert [x.name for x in fields(f(1))] == ['x', 'y', 'tags']",
            "assert f(1) == P(1, 2, ['t']) and f(1) != P(1, 3, ['t'])",
        ],
    );
    none_pass("a wrong dataclass", &POINT.replace("a * 2", "a * 3"), "f", &["import dataclasses\nassert dataclasses.asdict(f(1)) == {'x': 1, 'y': 2, 'tags': ['t']}"]);
}

#[test]
fn a_generator_checked_by_its_type() {
    let code = "def gen(n):\n    for i in range(n):\n        yield i\n";
    all_pass(
        "generator",
        code,
        "gen",
        &[
            "import types\nassert isinstance(gen(3), types.GeneratorType)",
            "import inspect\nassert inspect.isgenerator(gen(2))",
            "g = gen(3)\nassert next(g) == 0 and list(g) == [1, 2]",
            "assert sum(gen(4)) == 6",
        ],
    );
    none_pass(
        "a list is no generator",
        "def gen(n):\n    return list(range(n))\n",
        "gen",
        &["import types\nassert isinstance(gen(3), types.GeneratorType)"],
    );
}

const BAD_INPUT: &str = "class BadInput(ValueError):\n    def __init__(self, n):\n        super().__init__(n)\n        self.n = n\n    def __str__(self):\n        return f'bad input: {self.n}'\ndef f(n):\n    if n < 0:\n        raise BadInput(n)\n    return n\n";

#[test]
fn an_exceptions_own_message_under_pytest_raises_match() {
    all_pass(
        "exception message",
        BAD_INPUT,
        "f",
        &[
            "import pytest\nwith pytest.raises(ValueError, match='bad input: -3'):\n    f(-3)",
            "try:\n    f(-2)\nexcept ValueError as e:\n    assert str(e) == 'bad input: -2'\nelse:\n    assert False",
        ],
    );
    none_pass(
        "another message",
        BAD_INPUT,
        "f",
        &["import pytest\nwith pytest.raises(ValueError, match='good input'):\n    f(-3)"],
    );
}

#[test]
fn the_same_object_returned_twice() {
    let code = "_CACHE = [1, 2]\ndef f():\n    return _CACHE\ndef g():\n    return list(_CACHE)\n";
    all_pass(
        "identity",
        code,
        "f",
        &[
            "assert f() is f()",
            "a = f()\nb = f()\nassert a is b and a == [1, 2]",
        ],
    );
    none_pass(
        "copies are not the same object",
        code,
        "g",
        &["assert g() is g()"],
    );
}
