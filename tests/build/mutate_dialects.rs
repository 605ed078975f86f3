//! The mutation families in C++, Go, Java, JavaScript, TypeScript and Rust: hand-written sources
//! with the mutants each family must make (and must not: template brackets, patterns, `case`
//! labels, format strings, types, a program the compiler would refuse), and property tests over
//! random functions rendered in every language (each mutant parses, splices back from its one
//! edit, is unique; the list is deterministic; a family alone gives only its own mutants; the
//! paper's families are the default set).

use execscope::mutate::{
    function_names, mutants_in, mutants_of, parses_in, Canonical, Family, Language, Mutant,
    MutateError, Operators,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Every mutant under the whole catalogue, checked like the HumanEval-X sweep.
fn all(lang: Language, src: &str) -> Vec<Mutant> {
    let ms = mutants_in(lang, src, &Operators::all()).unwrap_or_else(|e| panic!("{e}"));
    crate::mutate_languages::check_mutants(lang, "case", src, &ms);
    ms
}

/// (operator, before, after) of each mutant.
fn edits(ms: &[Mutant]) -> BTreeSet<(String, String, String)> {
    ms.iter()
        .map(|m| {
            (
                m.operator.clone(),
                m.edit.before.clone(),
                m.edit.after.clone(),
            )
        })
        .collect()
}

fn has(ms: &[Mutant], op: &str, before: &str, after: &str) -> bool {
    edits(ms).contains(&(op.into(), before.into(), after.into()))
}

#[track_caller]
fn expect(ms: &[Mutant], wanted: &[(&str, &str, &str)]) {
    for (op, before, after) in wanted {
        assert!(
            has(ms, op, before, after),
            "missing {op} `{before}` -> `{after}` among\n{:#?}",
            edits(ms)
        );
    }
}

fn families(ms: &[Mutant]) -> BTreeSet<String> {
    ms.iter().map(|m| m.bug_type.clone()).collect()
}

#[test]
fn javascript_operators_bounds_guards_and_nothing() {
    let src = "const f = (xs, n) => {\n  if (n === 0) return -1;\n  let s = 0;\n  for (let i = 1; i < xs.length; i++) {\n    s += xs[i] * 2;\n  }\n  for (const x of xs) {\n    if (!x) break;\n  }\n  return s > n ? s.toString().toLowerCase() : xs.slice(1, n);\n};\n";
    let ms = all(Language::JavaScript, src);
    expect(
        &ms,
        &[
            ("StrictEq->StrictNotEq", "===", "!=="),
            ("remove_guard", "  if (n === 0) return -1;\n", ""),
            ("int+1", "-1", "0"),
            ("int-1", "-1", "-2"),
            ("AugAdd->AugSub", "+=", "-="),
            ("Mult->Div", "*", "/"),
            ("index+1", "i", "i + 1"),
            ("loop_bound+1", "xs.length", "xs.length + 1"),
            ("loop_bound-1", "xs.length", "xs.length - 1"),
            ("swap_operands(Lt)", "i < xs.length", "xs.length < i"),
            ("Gt->GtE", ">", ">="),
            ("negate(ternary)", "s > n", "!(s > n)"),
            ("remove_not", "!x", "x"),
            ("break->continue", "break", "continue"),
            ("loop_zero", "i < xs.length", "false"),
            ("loop_zero", "xs", "[]"),
            ("loop_reversed", "xs", "[...xs].reverse()"),
            (
                "return->null",
                "s > n ? s.toString().toLowerCase() : xs.slice(1, n)",
                "null",
            ),
            (".toLowerCase->.toUpperCase", "toLowerCase", "toUpperCase"),
            ("slice_bound+1", "n", "n + 1"),
            ("remove_slice(stop)", ", n", ""),
            ("call_args(0,1)", "1, n", "n, 1"),
        ],
    );
    // The loop variable's start and a literal bound are constants, not boundaries; `let s = 0`
    // is a declaration's value, and `null` is no equivalent of 0.
    assert!(!has(&ms, "loop_bound+1", "1", "1 + 1"));
    assert!(has(&ms, "assign->null", "0", "null"));
    // The `for` header's `let i = 1` is no assignment statement.
    assert!(!has(&ms, "assign->null", "1", "null"));
}

#[test]
fn typescript_types_are_never_mutated() {
    let src = "function f(a: Array<number>, n: number): number {\n  const m: Map<string, number> = new Map();\n  return a[n] < 2 ? n : -n;\n}\n";
    let ms = all(Language::TypeScript, src);
    expect(
        &ms,
        &[
            ("Lt->LtE", "<", "<="),
            ("remove_unary(-)", "-n", "n"),
            ("index+1", "n", "n + 1"),
        ],
    );
    // `<` and `>` of `Array<number>` and `Map<string, number>` are type brackets.
    for m in &ms {
        assert!(m.edit.start > src.find("{\n").unwrap(), "{m:?}");
        assert!(
            !m.code.contains("Array<=") && !m.code.contains("Map<="),
            "{m:?}"
        );
    }
    // TypeScript's `substring` needs its start; JavaScript's and `slice` do not.
    let sub = "function g(s: string): string {\n  return s.substring(1) + s.slice(2);\n}\n";
    let ms = all(Language::TypeScript, sub);
    assert!(!ms.iter().any(|m| m.code.contains("substring()")));
    assert!(has(&ms, "remove_slice(start)", "2", ""));
    let ms = all(
        Language::JavaScript,
        "function g(s) {\n  return s.substring(1);\n}\n",
    );
    assert!(has(&ms, "remove_slice(start)", "1", ""));
}

#[test]
fn cpp_templates_case_labels_and_includes_are_left_alone() {
    let src = "#include<vector>\n#include<string>\nusing namespace std;\nint f(vector<int> v, string s, int k){\n    vector<int> out;\n    switch (k) { case 1: return 2; default: break; }\n    for (int i=0;i<v.size();i++) out.push_back(v[i]+1);\n    string t = s + \"ab\";\n    if (s.find(\"x\") != string::npos) return t.length() - 1;\n    return k > 0 ? out.size() : tolower(k);\n}\n";
    let ms = all(Language::Cpp, src);
    expect(
        &ms,
        &[
            ("Lt->LtE", "<", "<="),
            ("index+1", "i", "i + 1"),
            ("loop_bound-1", "v.size()", "v.size() - 1"),
            ("int-1", "1", "0"),
            (".find->.rfind", "find", "rfind"),
            (".tolower->.toupper", "tolower", "toupper"),
            ("return->default", "t.length() - 1", "{}"),
            ("str->empty", "\"ab\"", "\"\""),
            ("Add->Sub", "+", "-"),
        ],
    );
    for m in &ms {
        // Never the `<`/`>` of `vector<int>`, never `#include<...>`, never `case 1`.
        assert!(
            m.code.contains("vector<int> v") && m.code.contains("#include<vector>\n"),
            "{m:?}"
        );
        assert!(m.code.contains("case 1:"), "{m:?}");
    }
    // `s + "ab"` concatenates strings: `-` would not compile.
    assert!(!ms.iter().any(|m| m.code.contains("s - \"ab\"")));
    // `return 2` → `{}` gives 0: fine; but a lambda-free function only.
    assert!(has(&ms, "return->default", "2", "{}"));
}

#[test]
fn java_keeps_flow_rules_and_reference_nulls() {
    let src = "import java.util.*;\n\nclass Solution {\n    public String f(List<String> xs, int n) {\n        int c;\n        c = n * 2;\n        String s = \"\";\n        while (true) {\n            if (c > 10) break;\n            c++;\n        }\n        for (String x : xs) {\n            s = s + x;\n            return s;\n        }\n        switch (n) { case 1: return \"a\"; default: break; }\n        return s.substring(1, n).toUpperCase();\n    }\n}\n";
    let ms = all(Language::Java, src);
    expect(
        &ms,
        &[
            ("Mult->Div", "*", "/"),
            ("return->null", "s", "null"),
            (".toUpperCase->.toLowerCase", "toUpperCase", "toLowerCase"),
            ("remove_slice(stop)", ", n", ""),
            ("delete_statement", "            c++;\n", ""),
            ("negate(if)", "c > 10", "!(c > 10)"),
        ],
    );
    // `c = n * 2` gives `c` its only value: deleting it leaves `c` unassigned (javac refuses).
    assert!(!has(&ms, "delete_statement", "        c = n * 2;\n", ""));
    // `while (true)` is not negated or made `false` (unreachable code does not compile).
    assert!(!ms
        .iter()
        .any(|m| m.code.contains("while (false)") || m.code.contains("while (!")));
    // No `break` after a `return` (unreachable), no `loop_zero` in Java at all.
    assert!(!ms.iter().any(|m| m.operator == "loop_zero"));
    assert!(!ms
        .iter()
        .any(|m| m.code.contains("return s;\n            break;")));
    assert!(has(&ms, "loop_once", "", "\n            break;"));
    // `s + x` is a String concatenation; `case 1` is a label; `int c` has no null.
    assert!(!ms.iter().any(|m| m.code.contains("s - x")));
    assert!(ms.iter().all(|m| m.code.contains("case 1:")));
    assert!(!has(&ms, "assign->null", "n * 2", "null"));
}

#[test]
fn go_never_leaves_a_variable_or_import_unused() {
    let src = "package main\n\nimport (\n    \"math\"\n    \"strings\"\n)\n\nfunc F(xs []int, s string) int {\n    d := math.Sqrt(2.0)\n    t := 0\n    for i := 0; i < len(xs); i++ {\n        t += xs[i]\n    }\n    if strings.HasPrefix(s, \"a\") {\n        return int(d)\n    }\n    m := map[string]int{}\n    m[s] = 1\n    xs = append(xs, t)\n    return t + len(s[1:t]) + m[s]\n}\n";
    let ms = all(Language::Go, src);
    expect(
        &ms,
        &[
            ("loop_bound-1", "len(xs)", "len(xs) - 1"),
            ("AugAdd->AugSub", "+=", "-="),
            (".HasPrefix->.HasSuffix", "HasPrefix", "HasSuffix"),
            ("remove_slice(start)", "1", ""),
            ("slice_bound+1", "t", "t + 1"),
            ("float+1", "2.0", "3.0"),
        ],
    );
    // The guard holds the only read of `d`, and its condition the only use of `strings`.
    assert!(!ms.iter().any(|m| m.operator == "remove_guard"));
    assert!(has(&ms, "loop_zero", "i < len(xs)", "false"));
    // `m[s]` indexes with a string: no `s + 1`; `append`'s arguments are not swapped.
    assert!(!has(&ms, "index+1", "s", "s + 1"));
    assert!(!ms
        .iter()
        .any(|m| m.operator.starts_with("call_args") && m.code.contains("append(t, xs)")));
    // Go has no exceptions and no conditional expression.
    assert!(!families(&ms).contains("wrong_exception_handling"));
}

#[test]
fn rust_patterns_format_strings_and_unsigned_literals() {
    let src = "fn f(v: Vec<usize>, s: &str) -> usize {\n    let mut t: usize = 0;\n    for i in 1..v.len() {\n        t += v[i - 1];\n    }\n    match t { 3 => return 1, _ => {} }\n    if let Some(c) = s.chars().next() { println!(\"{}\", c); }\n    let u = s.to_string() + \"x\";\n    if t > 2 { return u.len(); }\n    &v[1..t].len() + t\n}\n";
    let ms = all(Language::Rust, src);
    expect(
        &ms,
        &[
            ("range_bound+1", "v.len()", "v.len() + 1"),
            (
                "loop_reversed",
                "1..v.len()",
                "(1..v.len()).into_iter().rev()",
            ),
            (
                "loop_zero",
                "1..v.len()",
                "(1..v.len()).into_iter().take(0)",
            ),
            ("remove_slice(start)", "1", ""),
            ("remove_slice(stop)", "t", ""),
            ("negate(if)", "t > 2", "!(t > 2)"),
            ("remove_guard", "    if t > 2 { return u.len(); }\n", ""),
            ("return->default", "u.len()", "Default::default()"),
            (
                "return->default",
                "&v[1..t].len() + t",
                "Default::default()",
            ),
        ],
    );
    for m in &ms {
        // The `3 =>` pattern, `if let`, `"{}"` and `Vec<usize>` are never touched.
        assert!(m.code.contains("match t { 3 =>"), "{m:?}");
        assert!(m.code.contains("println!(\"{}\", c)"), "{m:?}");
        assert!(m.code.contains("if let Some(c)"), "{m:?}");
        assert!(m.code.contains("Vec<usize>"), "{m:?}");
    }
    // `0` typed usize never becomes `-1`; `t = 0` → default is equivalent, not made.
    assert!(!ms
        .iter()
        .any(|m| m.edit.after.starts_with("-1") || m.edit.after == "(-1)"));
    assert!(!has(&ms, "assign->default", "0", "Default::default()"));
    // `String + &str`: no `-`.
    assert!(!ms.iter().any(|m| m.code.contains("s.to_string() - \"x\"")));
}

/// What each compiler refuses that the grammar accepts, found by compiling HumanEval-X's mutants
/// (docs/bundle-format.md): a constant zero divisor (Go, Rust), a constant negative index, slice
/// bound or `make` length (Go), a constant negative array size (C++), a map iterator plus one and an iterator swapped with a value
/// (C++), arguments of different declared types swapped (Java, and every typed language), a
/// local left unread because a same-named variable elsewhere was counted as its read (Go), the
/// assignment that gives `let x;` its value deleted (Rust).
#[test]
fn what_the_compilers_refuse_is_not_made() {
    let go = "package main\n\nfunc F(xs []int, s0 string, s1 string) int {\n    set := map[rune]bool{}\n    for i := range s1 {\n        set[rune(s1[i])] = true\n    }\n    for i := range s0 {\n        if _, ok := set[rune(s0[i])]; !ok {\n            return 0\n        }\n    }\n    ys := make([]int, 0)\n    return len(xs) / 13 + xs[0] + len(ys[0:2])\n}\n";
    let ms = all(Language::Go, go);
    assert!(!ms.iter().any(|m| m.code.contains("/ 0")), "zero divisor");
    for bad in ["make([]int, -1)", "xs[-1]", "ys[-1:2]", "ys[0:-1]"] {
        assert!(!ms.iter().any(|m| m.code.contains(bad)), "{bad}");
    }
    // The guard of the second loop holds the only read of its `i`.
    assert!(!ms.iter().any(|m| m.operator == "remove_guard"));
    assert!(has(&ms, "int-1", "13", "12"));

    let rust = "fn f(n: i32, xs: Vec<i32>, k: usize) -> i32 {\n    let left;\n    left = n % 10;\n    let mut t = 0;\n    t = xs[k] % 7;\n    left + t\n}\n";
    let ms = all(Language::Rust, rust);
    assert!(!has(&ms, "delete_statement", "    left = n % 10;\n", ""));
    assert!(has(&ms, "delete_statement", "    t = xs[k] % 7;\n", ""));
    assert!(!ms.iter().any(|m| m.code.contains("% 0")), "zero divisor");

    let cpp = "#include<map>\n#include<algorithm>\nint f(map<char,int> count, string s, char c){\n    for (auto it = count.begin(); it != count.end(); it++) c++;\n    return find(s.begin(), s.end(), c) - s.begin();\n}\n";
    let ms = all(Language::Cpp, cpp);
    assert!(
        !ms.iter()
            .any(|m| m.edit.after.contains("begin() + 1") || m.edit.after.contains("end() - 1")),
        "{:#?}",
        edits(&ms)
    );
    assert!(!ms
        .iter()
        .any(|m| m.code.contains("find(s.begin(), c, s.end())")));
    let cpp = "int fib(int n){\n    int f[1000];\n    int* g = new int[10];\n    f[0]=0; g[0]=1;\n    return f[n] + g[0];\n}\n";
    let ms = all(Language::Cpp, cpp);
    for bad in ["int f[-1]", "new int[-1]"] {
        assert!(!ms.iter().any(|m| m.code.contains(bad)), "{bad}");
    }
    assert!(has(&ms, "int->0", "1000", "0"));

    let java = "class Solution {\n    double f(List<Double> xs, double begin, double end) {\n        return g(xs, begin) + g(begin, end);\n    }\n}\n";
    let ms = all(Language::Java, java);
    assert!(!ms.iter().any(|m| m.code.contains("g(begin, xs)")));
    assert!(has(&ms, "call_args(0,1)", "begin, end", "end, begin"));
}

#[test]
fn entry_points_and_refusals_name_the_language() {
    let js = "function g(x) { return x + 1; }\nconst f = (a) => g(a) * 2;\n";
    assert_eq!(function_names(Language::JavaScript, js), ["g", "f"]);
    let c = Canonical {
        language: Language::JavaScript,
        source: js,
        entry_point: "h",
    };
    let e = mutants_of(&c, &Operators::paper()).unwrap_err();
    assert!(matches!(e, MutateError::NoEntryPoint { .. }));
    assert_eq!(
        e.to_string(),
        "the JavaScript source defines no function `h` (it defines: g, f)"
    );
    let c = Canonical {
        entry_point: "f",
        ..c
    };
    assert!(!mutants_of(&c, &Operators::paper()).unwrap().is_empty());
    // Python goes through its own rules, unchanged.
    let py = "def f(a):\n    return a + 1\n";
    let c = Canonical {
        language: Language::Python,
        source: py,
        entry_point: "f",
    };
    assert_eq!(
        mutants_of(&c, &Operators::paper()).unwrap(),
        execscope::mutate::mutants(py).unwrap()
    );
    // A source no grammar can read as the function is refused with its language's name.
    let c = Canonical {
        language: Language::Go,
        source: "func F( {",
        entry_point: "F",
    };
    let e = mutants_of(&c, &Operators::all()).unwrap_err().to_string();
    assert!(e.starts_with("Go parse error at line 1"), "{e}");
}

// ---- property tests: random functions rendered in every language ----

#[derive(Clone, Debug)]
enum E {
    Var(&'static str),
    Int(u8),
    Str,
    Bool(bool),
    Bin(Box<E>, &'static str, Box<E>),
    Not(Box<E>),
    Neg(Box<E>),
    Call(Box<E>, Box<E>),
    Index(Box<E>),
    Method(Box<E>),
}

#[derive(Clone, Debug)]
enum S {
    Assign(E),
    AddAssign(E),
    Call(E),
    Return(E),
    If(E, Vec<S>, Vec<S>),
    While(E, Vec<S>),
    For(E, Vec<S>),
    Break,
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["a", "b", "n"]).prop_map(E::Var),
        (0u8..12).prop_map(E::Int),
        Just(E::Str),
        any::<bool>().prop_map(E::Bool),
    ];
    leaf.prop_recursive(3, 20, 2, |inner| {
        let ops = prop::sample::select(vec![
            "+", "-", "*", "/", "%", "<", "<=", ">", "==", "!=", "&&", "||", "&", "<<",
        ]);
        prop_oneof![
            (inner.clone(), ops, inner.clone()).prop_map(|(l, o, r)| E::Bin(
                Box::new(l),
                o,
                Box::new(r)
            )),
            inner.clone().prop_map(|e| E::Not(Box::new(e))),
            inner.clone().prop_map(|e| E::Neg(Box::new(e))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Call(Box::new(a), Box::new(b))),
            inner.clone().prop_map(|e| E::Index(Box::new(e))),
            inner.prop_map(|e| E::Method(Box::new(e))),
        ]
    })
}

fn stmts(depth: u32, in_loop: bool) -> BoxedStrategy<Vec<S>> {
    let mut simple: Vec<BoxedStrategy<S>> = vec![
        expr().prop_map(S::Assign).boxed(),
        expr().prop_map(S::AddAssign).boxed(),
        expr().prop_map(S::Call).boxed(),
        expr().prop_map(S::Return).boxed(),
    ];
    if in_loop {
        simple.push(Just(S::Break).boxed());
    }
    let simple = prop::strategy::Union::new(simple).boxed();
    let one = if depth == 0 {
        simple
    } else {
        prop_oneof![
            3 => simple,
            1 => (expr(), stmts(depth - 1, in_loop), stmts(depth - 1, in_loop))
                .prop_map(|(c, t, e)| S::If(c, t, e)),
            1 => (expr(), stmts(depth - 1, true)).prop_map(|(c, b)| S::While(c, b)),
            1 => (expr(), stmts(depth - 1, true)).prop_map(|(c, b)| S::For(c, b)),
        ]
        .boxed()
    };
    prop::collection::vec(one, 1..4).boxed()
}

/// `e` as `lang` writes it (types need not check: the grammar is all that is tested).
fn render_e(lang: Language, e: &E) -> String {
    let r = |x: &E| render_e(lang, x);
    match e {
        E::Var(v) => v.to_string(),
        E::Int(i) => i.to_string(),
        E::Str => "\"ab\"".into(),
        E::Bool(b) => b.to_string(),
        E::Bin(l, o, rr) => format!("({} {o} {})", r(l), r(rr)),
        E::Not(x) => format!("!({})", r(x)),
        E::Neg(x) => format!("-({})", r(x)),
        E::Call(a, b) => format!("g({}, {})", r(a), r(b)),
        E::Index(i) => format!("xs[{}]", r(i)),
        E::Method(x) => match lang {
            Language::Go => format!("strings.ToLower({})", r(x)),
            Language::Rust => format!("{}.to_lowercase()", r(x)),
            Language::Cpp => format!("s.find({})", r(x)),
            _ => format!("s.toLowerCase({})", r(x)),
        },
    }
}

fn render_s(lang: Language, s: &[S], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let semi = if lang == Language::Go { "" } else { ";" };
    for st in s {
        let e = |x: &E| render_e(lang, x);
        match st {
            S::Assign(x) => out.push_str(&format!("{pad}a = {}{semi}\n", e(x))),
            S::AddAssign(x) => out.push_str(&format!("{pad}n += {}{semi}\n", e(x))),
            S::Call(x) => out.push_str(&format!("{pad}g({}, a){semi}\n", e(x))),
            S::Return(x) => out.push_str(&format!("{pad}return {}{semi}\n", e(x))),
            S::Break => out.push_str(&format!("{pad}break{semi}\n")),
            S::If(c, t, f) => {
                let (open, close) = cond(lang, &e(c));
                out.push_str(&format!("{pad}if {open}{close} {{\n"));
                render_s(lang, t, indent + 4, out);
                out.push_str(&format!("{pad}}} else {{\n"));
                render_s(lang, f, indent + 4, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            S::While(c, b) => {
                let (open, close) = cond(lang, &e(c));
                let kw = if lang == Language::Go { "for" } else { "while" };
                out.push_str(&format!("{pad}{kw} {open}{close} {{\n"));
                render_s(lang, b, indent + 4, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            S::For(c, b) => {
                let head = match lang {
                    Language::Rust => format!("for i in 0..{}", e(c)),
                    Language::Go => format!("for i := 0; i < {}; i++", e(c)),
                    Language::Java | Language::Cpp => format!("for (int i = 0; i < {}; i++)", e(c)),
                    _ => format!("for (let i = 0; i < {}; i++)", e(c)),
                };
                out.push_str(&format!("{pad}{head} {{\n"));
                render_s(lang, b, indent + 4, out);
                out.push_str(&format!("{pad}}}\n"));
            }
        }
    }
}

fn cond(lang: Language, c: &str) -> (String, String) {
    match lang {
        Language::Go | Language::Rust => (c.to_string(), String::new()),
        _ => (format!("({c}"), ")".into()),
    }
}

fn program(lang: Language, body: &[S]) -> String {
    let mut b = String::new();
    render_s(lang, body, 4, &mut b);
    match lang {
        Language::JavaScript => format!("const f = (a, b, n, xs, s) => {{\n{b}}};\n"),
        Language::TypeScript => {
            format!("function f(a: number, b: number, n: number, xs: number[], s: string): number {{\n{b}}}\n")
        }
        Language::Cpp => {
            format!("int f(int a, int b, int n, vector<int> xs, string s) {{\n{b}}}\n")
        }
        Language::Java => {
            format!("class Solution {{\n  int f(int a, int b, int n, int[] xs, String s) {{\n{b}  }}\n}}\n")
        }
        Language::Go => format!(
            "package main\n\nfunc f(a int, b int, n int, xs []int, s string) int {{\n{b}}}\n"
        ),
        _ => format!(
            "fn f(mut a: i64, b: i64, mut n: i64, xs: Vec<i64>, s: &str) -> i64 {{\n{b}}}\n"
        ),
    }
}

const DIALECTS: [Language; 6] = [
    Language::JavaScript,
    Language::TypeScript,
    Language::Cpp,
    Language::Java,
    Language::Go,
    Language::Rust,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_dialect_makes_valid_distinct_deterministic_mutants(body in stmts(2, false)) {
        for lang in DIALECTS {
            let src = program(lang, &body);
            prop_assert!(parses_in(lang, &src), "{lang}:\n{src}");
            let ms = all(lang, &src);
            // Deterministic, in (offset, operator) order.
            prop_assert_eq!(&mutants_in(lang, &src, &Operators::all()).unwrap(), &ms);
            prop_assert!(ms.windows(2).all(|w| (w[0].edit.start, &w[0].operator) <= (w[1].edit.start, &w[1].operator)));
            // The paper's families are the default set; a family alone gives only its own.
            let paper: Vec<Mutant> = ms
                .iter()
                .filter(|m| Family::from_name(&m.bug_type).is_some_and(|f| f.is_paper()))
                .cloned()
                .collect();
            prop_assert_eq!(&mutants_in(lang, &src, &Operators::paper()).unwrap(), &paper);
            for f in [Family::NegateCondition, Family::WrongConstant, Family::OffByOne] {
                let only = mutants_in(lang, &src, &Operators::of(&[f])).unwrap();
                prop_assert!(only.iter().all(|m| m.bug_type == f.as_str()), "{lang} {f}");
            }
        }
    }
}
