use super::*;

/// The body of each unit of `tests(test, entry, declaration)`, the semantics and `check`'s frame
/// checked off.
fn bodies(test: &str, entry: &str, declaration: &str) -> Vec<String> {
    tests(test, entry, declaration)
        .unwrap()
        .into_iter()
        .map(|u| {
            let head = format!("{SEMANTICS}\n\ndef check(candidate):\n");
            let tail = format!("\n\n\ncheck({entry})\n");
            assert!(u.starts_with(&head) && u.ends_with(&tail), "{u}");
            u[head.len()..u.len() - tail.len()].to_string()
        })
        .collect()
}

/// A test module around `body`, as HumanEval-X writes them.
fn module(body: &str) -> String {
    format!("\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn test_f() {{\n{body}\n    }}\n\n}}\n")
}

#[test]
fn rust_2_f32_literals_are_the_f32_rust_reads() {
    // HumanEval-X's Rust/2 as published. 1.33, 0.33 and 0.000001 as f32 (hand-checked: 1.33 is
    // 11157299 * 2^-23 = 1.33000004291534423828125, 0.33 is 11072963 * 2^-25 =
    // 0.3300000131130218505859375, 1e-6 is 8589935 * 2^-43 = 9.99999997475242707878e-7); the
    // subtraction is an f32 one.
    let decl = "\nuse std::{slice::Iter, cmp::{max, self}};\nuse rand::Rng;\n\nfn truncate_number(number: &f32) -> f32{\n";
    let test = module("        assert_eq!(truncate_number(&3.5), 0.5);\n        let t1: f32 = 1.33 - 0.33;\n        assert!(truncate_number(&t1) < 0.000001);");
    assert_eq!(
        bodies(&test, "truncate_number", decl),
        [
            "    assert _rs_eq(candidate(3.5), 0.5)",
            "    _v_t1 = _rs_op('-', 1.3300000429153442, 0.33000001311302185, 'f32')\n    assert _rs_bool(_rs_cmp('<', candidate(_v_t1), 9.999999974752427e-7))",
        ]
    );
    // The same literal where an f64 is expected is the f64 one.
    assert_eq!(
        float_literal("0.33", &Ty::Float(64), false).unwrap(),
        "0.33"
    );
    assert_eq!(float_literal("0.1", &Ty::Unknown, true).unwrap(), "-0.1");
    assert_eq!(
        float_literal("0.1f32", &Ty::Unknown, false).unwrap(),
        "0.10000000149011612"
    );
}

#[test]
fn rust_151_loop_push_cast_and_compound_assignment() {
    let decl = "fn double_the_difference(lst: Vec<f32>) -> i64 {\n";
    let test = module("        assert_eq!(double_the_difference(vec![0.2, 3.0]), 9);\n        let mut lst = vec![];\n        let mut odd_sum = 0;\n        for i in -99..100 {\n            lst.push(i as f32);\n            if i > 0 && i % 2 == 1 {\n                odd_sum += i * i;\n            }\n        }\n        assert_eq!(double_the_difference(lst), odd_sum);");
    let b = bodies(&test, "double_the_difference", decl);
    // 0.2 as f32: 13421773 * 2^-26 = 0.20000000298023223876953125.
    assert_eq!(
        b[0],
        "    assert _rs_eq(candidate([0.20000000298023224, 3.0]), 9)"
    );
    assert_eq!(
        b[1],
        "    _v_lst = []\n    _v_odd_sum = 0\n    for _v_i in range(-99, 100):\n        _v_lst.append(_rs_as(_v_i, 'f32'))\n        if _rs_bool((_rs_bool(_rs_cmp('>', _v_i, 0)) and _rs_bool(_rs_eq(_rs_op('%', _v_i, 2, None), 1)))):\n            _v_odd_sum = _rs_op('+', _v_odd_sum, _rs_op('*', _v_i, _v_i, None), None)\n    assert _rs_eq(candidate(_v_lst), _v_odd_sum)"
    );
    assert_eq!(b.len(), 2);
}

#[test]
fn strings_options_tuples_and_maps() {
    let decl = "fn f(xs: Vec<String>, m: HashMap<&str, &str>) -> Option<(i32, char)> {\n";
    let test = module("        assert!(f(vec![\"a\".to_string(), String::from(\"b\\n\")], HashMap::new()) == None);\n        assert_eq!(f(vec![], HashMap::from([(\"k\", \"v\"), (\"k\", \"w\")])), Some((3 + 4 / 2 - 7 % 4, 'x')));\n        assert!(!(f(vec![String::new()], HashMap::from([])) != None), \"message {}\", 1);\n        assert_ne!(f(vec![\"é\".to_owned()], HashMap::new()), Some((-2147483648, '\\'')));");
    assert_eq!(
        bodies(&test, "f", decl),
        [
            "    assert _rs_bool(_rs_eq(candidate([_rs_str('a'), 'b\\n'], {}), None))",
            "    assert _rs_eq(candidate([], dict([('k', 'v'), ('k', 'w')])), (_rs_op('-', _rs_op('+', 3, _rs_op('/', 4, 2, 'i32'), 'i32'), _rs_op('%', 7, 4, 'i32'), 'i32'), 'x'))",
            "    assert _rs_bool((not _rs_bool(((not _rs_eq(candidate([''], dict([])), None))))))",
            "    assert not _rs_eq(candidate(['\\xe9'], {}), (-2147483648, '\\''))",
        ]
    );
}

#[test]
fn literals_are_rust_values() {
    assert_eq!(int_literal("0x1F", &Ty::Unknown, false).unwrap(), "31");
    assert_eq!(
        int_literal("1_000u64", &Ty::Unknown, false).unwrap(),
        "1000"
    );
    assert_eq!(
        int_literal("0b101", &Ty::Int("u8".into()), false).unwrap(),
        "5"
    );
    assert_eq!(
        int_literal("128", &Ty::Int("i8".into()), true).unwrap(),
        "-128"
    );
    // Out of its type's range Rust does not compile the test: not translated.
    assert!(int_literal("128", &Ty::Int("i8".into()), false)
        .unwrap_err()
        .contains("out of range for i8"));
    assert!(int_literal("256u8", &Ty::Unknown, false).is_err());
    assert!(int_literal("3", &Ty::Float(64), false).is_err());
    assert_eq!(
        rust_string(r#""a\"b\n\u{e9}\x41\\""#).unwrap(),
        "a\"b\néA\\"
    );
    assert_eq!(rust_string("\"a\\\n     b\"").unwrap(), "ab");
    assert_eq!(raw_string(r##"r#"a\n"b"#"##).unwrap(), "a\\n\"b");
    assert_eq!(rust_char(r"'\''").unwrap(), "'");
    assert!(rust_char("'ab'").is_err());
    assert_eq!(
        signature(
            "use std::collections::HashMap;\nfn g(a: &[i64], b: [f32; 3], c: (u8, bool), d: &mut Vec<Vec<&str>>) -> HashMap<char, i32>{\n",
            "g"
        )
        .unwrap(),
        Signature {
            params: vec![
                Ty::Vec(Box::new(Ty::Int("i64".into()))),
                Ty::Vec(Box::new(Ty::Float(32))),
                Ty::Tuple(vec![Ty::Int("u8".into()), Ty::Bool]),
                Ty::Vec(Box::new(Ty::Vec(Box::new(Ty::Str)))),
            ],
            ret: Ty::Map(Box::new(Ty::Char), Box::new(Ty::Int("i32".into()))),
        }
    );
}

#[test]
fn forms_not_translated_are_named() {
    let decl = "fn f(x: i32) -> i32 {\n";
    let refused = |body: &str| tests(&module(body), "f", decl).unwrap_err();
    // Rust/53's random inputs.
    assert_eq!(
        refused("        let mut rng = rand::thread_rng();\n        assert!(f(1) == 1);"),
        "calls `rand::thread_rng`, which is not the function under test (f)"
    );
    // Rust/38: a function of the program besides the one under test.
    assert_eq!(
        refused("        assert_eq!(f(g(1)), 1);"),
        "calls `g`, which is not the function under test (f)"
    );
    // Rust/22: values the judge has none for.
    assert_eq!(
        refused("        assert_eq!(f(*Box::new(1)), 1);"),
        "calls `Box::new`, which is not the function under test (f)"
    );
    // Rust/50: a function defined in the test.
    assert_eq!(
        refused("        fn g() -> i32 { 1 }\n        assert_eq!(f(1), 1);"),
        "has a statement this reader does not translate (function_item)"
    );
    assert_eq!(refused("        f(1);"), "holds no assert");
    assert_eq!(
        refused("        println!(\"{}\", 1);\n        assert_eq!(f(1), 1);"),
        "has the macro `println!`"
    );
    assert_eq!(
        refused("        assert_eq!(f(1, 2), 1);"),
        "calls f with 2 arguments where it takes 1"
    );
    assert_eq!(
        refused("        assert_eq!(f(3_000_000_000), 1);"),
        "has the literal 3_000_000_000, out of range for i32"
    );
    // Rust/32: the whole module commented out.
    assert_eq!(
        tests("/*\n#[cfg(test)]\nmod tests {\n}\n*/\n", "f", decl).unwrap_err(),
        "holds no test module"
    );
    assert!(tests(&module("        assert_eq!(f(1), );)"), "f", decl)
        .unwrap_err()
        .contains("does not parse"));
    assert_eq!(
        tests(&module("        assert!(f(1) == 1);"), "h", decl).unwrap_err(),
        "its declaration declares no function `h`"
    );
}

/// The judge-side semantics against values Rust gives (written down by hand from Rust's rules).
#[test]
fn the_semantics_are_rusts() {
    let Ok(out) = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "{SEMANTICS}\n\
def err(f):\n    try:\n        return repr(f())\n    except Exception as e:\n        return type(e).__name__\n\
print('|'.join([\n\
  str([_rs_op('/', -7, 2, 'i32'), _rs_op('%', -7, 2, 'i32'), _rs_op('%', 7, -2, None), _rs_op('/', 7, -2, None)]),\n\
  err(lambda: _rs_op('+', 2**31 - 1, 1, 'i32')), err(lambda: _rs_op('-', 0, 1, 'u32')), err(lambda: _rs_op('/', 1, 0, None)),\n\
  str([_rs_as(-1, 'u8'), _rs_as(300, 'u8'), _rs_as(-1.5, 'i32'), _rs_as(1e10, 'i32'), _rs_as(float('nan'), 'i32'), _rs_as(97, 'char'), _rs_as('a', 'u32'), _rs_as(True, 'i32'), _rs_as(16777217, 'f32')]),\n\
  str([_rs_f32(0.1), _rs_f32(1e39), _rs_op('+', 0.1, 0.2, 'f64'), _rs_op('+', _rs_f32(0.1), _rs_f32(0.2), 'f32'), _rs_op('/', 1.0, 0.0, 'f64'), _rs_op('%', -7.5, 2.0, 'f64')]),\n\
  str([_rs_eq(1, 1.0), _rs_eq(True, 1), _rs_eq([1, 2], (1, 2)), _rs_eq([1, 2], [1, 2]), _rs_eq({{'a': [1]}}, {{'a': [1]}}), _rs_eq(None, None), _rs_eq(None, 0), _rs_eq(float('nan'), float('nan')), _rs_eq('a', 'a')]),\n\
  str([_rs_str(True), _rs_str(-3), _rs_str('x')]), err(lambda: _rs_bool(1)), err(lambda: _rs_cmp('<', 'a', 1)), str(_rs_cmp('<', 'Z', 'a')),\n\
  err(lambda: _rs_op('+', 'a', 1, 'str')), _rs_op('+', 'ab', 'c', 'str'), str(_rs_abs(-3, 'i32')), err(lambda: _rs_neg(-2**31, 'i32')),\n\
]))"
        ))
        .output()
    else {
        eprintln!("skipped: rsnative::the_semantics_are_rusts: no python3");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "[-3, -1, 1, -3]\
         |OverflowError|OverflowError|ZeroDivisionError\
         |[255, 44, -1, 2147483647, 0, 'a', 97, 1, 16777216.0]\
         |[0.10000000149011612, inf, 0.30000000000000004, 0.30000001192092896, inf, -1.5]\
         |[False, False, False, True, True, True, False, False, True]\
         |['true', '-3', 'x']|TypeError|TypeError|True\
         |TypeError|abc|3|OverflowError"
    );
}
