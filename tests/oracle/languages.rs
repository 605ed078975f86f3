//! Values across the judge and a program in each other language (docs/languages.md): each
//! language's program has the same functions, each test an exact expected outcome, hand-written
//! from the mapping: ints by the declared width (a value beyond it is the call's
//! `OverflowError`, never a truncation), a float for an int parameter a `TypeError`, an int for
//! a float parameter converted when exact, strings as UTF-8 (a result that is not is a
//! `UnicodeDecodeError`), sequences, maps, tuples, optionals, NaN and -0.0, a `void` result as
//! None, arguments passed by value (the test's list is never changed), exceptions and panics by
//! their word, a crash or exit as the test's outcome and the next test in a new child, a program
//! that does not compile as `ERROR:CompileError` for every test.

use execscope::oracle::{Job, Oracle, OracleConfig};
use execscope::record::Language;

/// The tests every language's program answers: (test, entry points it calls).
const TESTS: &[&str] = &[
    "assert add(2, 3) == 5",
    "assert add(2**31, 0) == 2**31",
    "assert add(2**63, 0) == 2**63",
    "assert add(2.0, 3) == 5",
    "assert half(3) == 1.5",
    "assert echo('h\u{e9}llo \u{20ac}') == 'h\u{e9}llo \u{20ac}'",
    "assert rev('h\u{e9}llo') == 'oll\u{e9}h'",
    "assert sorted_([3, 1, 2]) == [1, 2, 3]",
    "assert sorted_((3, 1)) == [1, 3]",
    "assert count('aab') == {'a': 2, 'b': 1}",
    "assert square(3) == (3, 9)",
    "assert first([]) is None",
    "assert first([7]) == 7",
    "assert at([1], 5) == 0",
    "assert third(1.0) == 0.3333333432674408",
    "import math\nassert math.isnan(nan_())",
    "import math\nassert math.copysign(1.0, negzero()) == -1.0",
    "assert nothing(1) is None",
    "assert big() == 2**53 + 1",
    "l = [5]\npush(l)\nassert l == [5]",
    "assert crash(1) == 0",
    "assert add(2, 3) == 5",
];

const ENTRIES: &[&str] = &[
    "add", "half", "echo", "rev", "sorted_", "count", "square", "first", "at", "third", "nan_",
    "negzero", "nothing", "big", "push", "crash",
];

const CPP: &str = r#"#include <vector>
#include <string>
#include <map>
#include <optional>
#include <utility>
#include <cmath>
#include <algorithm>
using namespace std;
int add(int a, int b) { return a + b; }
double half(double x) { return x / 2; }
string echo(string s) { return s; }
string rev(string s) { reverse(s.begin(), s.end()); return s; }
vector<int> sorted_(vector<int> v) { sort(v.begin(), v.end()); return v; }
map<char, int> count(const string& s) { map<char, int> m; for (char c : s) m[c]++; return m; }
pair<int, long long> square(int x) { return {x, (long long)x * x}; }
optional<int> first(vector<int> v) { if (v.empty()) return nullopt; return v[0]; }
int at(vector<int> v, int i) { return v.at(i); }
float third(float x) { return x / 3; }
double nan_() { return NAN; }
double negzero() { return -0.0; }
void nothing(int) {}
long long big() { return 9007199254740993LL; }
void push(vector<int>& v) { v.push_back(1); }
int crash(int x) { volatile int* p = nullptr; if (x) return *p; return 0; }
"#;

const RUST: &str = r#"use std::collections::HashMap;
fn add(a: i32, b: i32) -> i32 { a + b }
fn half(x: f64) -> f64 { x / 2.0 }
fn echo(s: &str) -> String { s.to_string() }
fn rev(s: String) -> String { s.chars().rev().collect() }
fn sorted_(mut v: Vec<i32>) -> Vec<i32> { v.sort(); v }
fn count(s: &str) -> HashMap<char, i32> { let mut m = HashMap::new(); for c in s.chars() { *m.entry(c).or_insert(0) += 1; } m }
fn square(x: i32) -> (i32, i64) { (x, x as i64 * x as i64) }
fn first(v: Vec<i32>) -> Option<i32> { v.first().copied() }
fn at(v: Vec<i32>, i: usize) -> i32 { v[i] }
fn third(x: f32) -> f32 { x / 3.0 }
fn nan_() -> f64 { f64::NAN }
fn negzero() -> f64 { -0.0 }
fn nothing(_x: i32) {}
fn big() -> i64 { 9007199254740993 }
fn push(v: &mut Vec<i32>) { v.push(1) }
fn crash(x: i32) -> i32 { if x != 0 { std::process::abort() } 0 }
"#;

const GO: &str = r#"package main

import "os"

func add(a int, b int) int { return a + b }
func half(x float64) float64 { return x / 2 }
func echo(s string) string { return s }
func rev(s string) string { b := []byte(s); for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 { b[i], b[j] = b[j], b[i] }; return string(b) }
func sorted_(v []int) []int { for i := range v { for j := i + 1; j < len(v); j++ { if v[j] < v[i] { v[i], v[j] = v[j], v[i] } } }; return v }
func count(s string) map[string]int { m := map[string]int{}; for _, c := range s { m[string(c)]++ }; return m }
func square(x int) (int, int) { return x, x * x }
func first(v []int) *int { if len(v) == 0 { return nil }; return &v[0] }
func at(v []int, i int) int { return v[i] }
func third(x float32) float32 { return x / 3 }
func nan_() float64 { z := 0.0; return z / z }
func negzero() float64 { z := 0.0; return -z }
func nothing(x int) {}
func big() int64 { return 9007199254740993 }
func push(v []int) { v = append(v, 1) }
func crash(x int) int { if x != 0 { os.Exit(3) }; return 0 }
"#;

const JAVA: &str = r#"import java.util.*;

class Solution {
    public int add(int a, int b) { return a + b; }
    public double half(double x) { return x / 2; }
    public String echo(String s) { return s; }
    public String rev(String s) { return new StringBuilder(s).reverse().toString(); }
    public List<Integer> sorted_(List<Integer> v) { List<Integer> w = new ArrayList<>(v); Collections.sort(w); return w; }
    public Map<Character, Integer> count(String s) { Map<Character, Integer> m = new TreeMap<>(); for (char c : s.toCharArray()) m.merge(c, 1, Integer::sum); return m; }
    public int[] square(int x) { return new int[] {x, x * x}; }
    public Optional<Integer> first(List<Integer> v) { return v.isEmpty() ? Optional.empty() : Optional.of(v.get(0)); }
    public int at(List<Integer> v, int i) { return v.get(i); }
    public float third(float x) { return x / 3; }
    public double nan_() { return Double.NaN; }
    public double negzero() { return -0.0; }
    public void nothing(int x) {}
    public long big() { return 9007199254740993L; }
    public void push(List<Integer> v) { v.add(1); }
    public int crash(int x) { if (x != 0) System.exit(3); return 0; }
}
"#;

const JS: &str = r#"const add = (a, b) => a + b;
const half = (x) => x / 2;
const echo = (s) => s;
const rev = (s) => [...s].reverse().join('');
function sorted_(v) { return [...v].sort((a, b) => a - b); }
function count(s) { const m = {}; for (const c of s) m[c] = (m[c] || 0) + 1; return m; }
const square = (x) => [x, x * x];
const first = (v) => v.length ? v[0] : undefined;
const at = (v, i) => v[i];
const third = (x) => x / 3;
const nan_ = () => NaN;
const negzero = () => -0;
function nothing(x) {}
const big = () => 9007199254740993;
function push(v) { v.push(1); }
function crash(x) { if (x) process.exit(3); return 0; }
"#;

/// Each language's expected outcome of every test of `TESTS`, in order.
fn expected(l: Language) -> Vec<&'static str> {
    let p = "pass";
    match l {
        // int is 32 bits; a float for an int is refused; bytes reversed are not UTF-8; a null
        // read is a segfault.
        Language::Cpp => vec![
            p,
            "FAIL:OverflowError",
            "FAIL:OverflowError",
            "FAIL:TypeError",
            p,
            p,
            "FAIL:UnicodeDecodeError",
            p,
            p,
            p,
            p,
            p,
            p,
            "FAIL:IndexError",
            p,
            p,
            p,
            p,
            p,
            p,
            "ERROR:SIGSEGV",
            p,
        ],
        // i32 overflow checks are on (a debug build); abort is SIGABRT.
        Language::Rust => vec![
            p,
            "FAIL:OverflowError",
            "FAIL:OverflowError",
            "FAIL:TypeError",
            p,
            p,
            p,
            p,
            p,
            p,
            p,
            p,
            p,
            "FAIL:IndexError",
            p,
            p,
            p,
            p,
            p,
            p,
            "ERROR:SIGABRT",
            p,
        ],
        // Go's int is 64 bits; a Go array or several results are a tuple; an exit is an exit.
        Language::Go => vec![
            p,
            p,
            "FAIL:OverflowError",
            "FAIL:TypeError",
            p,
            p,
            "FAIL:UnicodeDecodeError",
            p,
            p,
            p,
            p,
            p,
            p,
            "FAIL:IndexError",
            p,
            p,
            p,
            p,
            p,
            p,
            "ERROR:ProcessExit",
            p,
        ],
        // A Java array is a list, not a tuple.
        Language::Java => vec![
            p,
            "FAIL:OverflowError",
            "FAIL:OverflowError",
            "FAIL:TypeError",
            p,
            p,
            p,
            p,
            p,
            p,
            "FAIL",
            p,
            p,
            "FAIL:IndexError",
            p,
            p,
            p,
            p,
            p,
            p,
            "ERROR:ProcessExit",
            p,
        ],
        // A number is a double: a float argument is taken, 2**63 is not an exact number, an
        // array is a list, an index past the end is undefined (None), x / 3 is a double's, and
        // 2**53 + 1 is not a double.
        Language::JavaScript | Language::TypeScript => vec![
            p,
            p,
            "FAIL:OverflowError",
            p,
            p,
            p,
            p,
            p,
            p,
            p,
            "FAIL",
            p,
            p,
            "FAIL",
            "FAIL",
            p,
            p,
            p,
            "FAIL",
            p,
            "ERROR:ProcessExit",
            p,
        ],
        Language::Python => unreachable!(),
    }
}

fn program(l: Language) -> &'static str {
    match l {
        Language::Cpp => CPP,
        Language::Rust => RUST,
        Language::Go => GO,
        Language::Java => JAVA,
        Language::JavaScript | Language::TypeScript => JS,
        Language::Python => unreachable!(),
    }
}

fn oracle() -> Oracle {
    Oracle::new(OracleConfig {
        workers: 2,
        ..OracleConfig::default()
    })
    .expect("oracle starts")
}

#[test]
fn values_cross_by_each_languages_declared_types() {
    let o = oracle();
    let langs: Vec<Language> = Language::ALL
        .into_iter()
        .filter(|l| !l.is_python())
        .filter(|&l| match o.language_unavailable(l) {
            Some(why) => {
                crate::common::skip(&format!("languages::values ({})", l.as_str()), &why);
                false
            }
            None => true,
        })
        .collect();
    let tests: Vec<String> = TESTS.iter().map(|t| t.to_string()).collect();
    let jobs: Vec<Job> = langs
        .iter()
        .map(|&l| {
            let mut j = Job::new(program(l), tests.clone()).language(l);
            for e in ENTRIES {
                j = j.entry(e);
            }
            j
        })
        .collect();
    let results = o.run_batch(&jobs, &|_| {});
    let mut wrong = Vec::new();
    for (l, r) in langs.iter().zip(results) {
        let r = r.unwrap_or_else(|e| panic!("{l}: {e}"));
        let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
        for ((t, g), w) in TESTS.iter().zip(&got).zip(expected(*l)) {
            if g != w {
                wrong.push(format!("{l}: {t:?} gave {g}, expected {w}"));
            }
        }
        // A test's time is its own, never the build's.
        assert!(
            r.test_ms.iter().all(|&ms| ms < 2000),
            "{l}: {:?}",
            r.test_ms
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_program_that_does_not_compile_is_a_compile_error_for_every_test() {
    let o = oracle();
    let broken = [
        (Language::Cpp, "int add(int a, int b) { return a + ; }"),
        (Language::Rust, "fn add(a: i32, b: i32) -> i32 { a + }"),
        (
            Language::Go,
            "package main\nfunc add(a int, b int) int { return a + }",
        ),
        (
            Language::Java,
            "class Solution { public int add(int a, int b) { return a + ; } }",
        ),
        (
            Language::JavaScript,
            "const add = (a, b) => { return a + ; }",
        ),
        (
            Language::TypeScript,
            "const add = (a: number, b: number): number => { return a + ; }",
        ),
        // A C++ parameter type the stub cannot take still compiles: the call is refused.
        (
            Language::Cpp,
            "struct P { int x; };\nint add(P a, int b) { return a.x + b; }",
        ),
    ];
    for (l, code) in broken {
        if o.language_unavailable(l).is_some() {
            continue;
        }
        let job = Job::new(
            code,
            vec![
                "assert add(1, 2) == 3".into(),
                "assert add(0, 0) == 0".into(),
            ],
        )
        .entry("add")
        .language(l);
        let r = o.run_job(&job).unwrap();
        let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
        let want = if code.contains("struct P") {
            vec!["FAIL:TypeError", "FAIL:TypeError"]
        } else {
            vec!["ERROR:CompileError", "ERROR:CompileError"]
        };
        assert_eq!(got, want, "{l}: {code}");
    }
}

#[test]
fn a_loop_is_a_timeout_and_the_next_test_runs_in_a_new_child() {
    let o = Oracle::new(OracleConfig {
        timeout: std::time::Duration::from_millis(1500),
        workers: 2,
        ..OracleConfig::default()
    })
    .unwrap();
    let loops = [
        (
            Language::Cpp,
            "int f(int x) { volatile int y = 0; while (x) y++; return 0; }",
        ),
        (
            Language::JavaScript,
            "function f(x) { while (x) {} return 0; }",
        ),
    ];
    for (l, code) in loops {
        if o.language_unavailable(l).is_some() {
            continue;
        }
        let job = Job::new(
            code,
            vec!["assert f(1) == 0".into(), "assert f(0) == 0".into()],
        )
        .entry("f")
        .language(l);
        let r = o.run_job(&job).unwrap();
        let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
        assert_eq!(got, ["TIMEOUT", "pass"], "{l}");
    }
}

#[test]
fn a_language_whose_toolchain_is_missing_is_refused_by_name() {
    let o = oracle();
    for l in Language::ALL.into_iter().filter(|l| !l.is_python()) {
        let runner = o.runner_string_for(l);
        match o.language_unavailable(l) {
            Some(why) => {
                let e = o.run_job(&Job::new("x", vec!["assert 1".into()]).language(l));
                assert!(
                    e.unwrap_err().to_string().contains(l.display_name()),
                    "{why}"
                );
            }
            None => assert!(
                runner.contains(l.as_str()) && runner.contains("within 30s"),
                "{runner}"
            ),
        }
    }
    assert_eq!(
        o.runner_string_for(Language::Python),
        o.runner_string(),
        "a Python row's runner is what it was"
    );
}

#[test]
fn a_cpp_entry_named_like_a_c_library_function_is_the_candidates() {
    // HumanEval-X's CPP/23: `int strlen(string)` beside <cstring>'s `strlen(const char*)`. The
    // stub takes the candidate's by its declared type; a wrong one fails, not the build.
    let o = oracle();
    if let Some(why) = o.language_unavailable(Language::Cpp) {
        crate::common::skip(
            "languages::a_cpp_entry_named_like_a_c_library_function",
            &why,
        );
        return;
    }
    let program = |body: &str| {
        format!(
            "#include<stdio.h>\n#include<cstring>\n#include<string>\nusing namespace std;\n\
             // int strlen(const char*) is the C library's\nint strlen(string str){{\n{body}\n}}\n"
        )
    };
    let tests = vec![
        "assert strlen('abc') == 3".to_string(),
        "assert strlen('') == 0".to_string(),
    ];
    let right = Job::new(program("    return str.length();"), tests.clone())
        .entry("strlen")
        .language(Language::Cpp);
    let wrong = Job::new(program("    return str.length() + 1;"), tests)
        .entry("strlen")
        .language(Language::Cpp);
    let got: Vec<Vec<String>> = o
        .run_batch(&[right, wrong], &|_| {})
        .into_iter()
        .map(|r| r.unwrap().outcomes.iter().map(|x| x.to_string()).collect())
        .collect();
    assert_eq!(got[0], ["pass", "pass"]);
    assert_eq!(got[1], ["FAIL", "FAIL"]);
}
