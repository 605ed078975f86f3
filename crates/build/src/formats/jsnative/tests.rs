use super::*;

/// The body of each unit of `tests(test, entry)`, the semantics and `check`'s frame checked off.
fn bodies(test: &str, entry: &str) -> Vec<String> {
    tests(test, entry)
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

#[test]
fn javascript_2_abs_and_its_misplaced_parenthesis() {
    // HumanEval-X's JavaScript/2 as published: its third assert takes `Math.abs` of the
    // comparison (a bug of the translation), which JavaScript and the judge both evaluate so.
    let test = "const testTruncateNumber = () => {\n  console.assert(truncateNumber(3.5) === 0.5)\n\n  console.assert(Math.abs(truncateNumber(1.33) - 0.33) < 1e-6)\n\n  console.assert(Math.abs(truncateNumber(123.456 - 0.456) < 1e-6))\n}\n\ntestTruncateNumber()\n";
    assert_eq!(
        bodies(test, "truncateNumber"),
        [
            "    assert _js_truthy(_js_seq(candidate(3.5), 0.5))",
            "    assert _js_truthy(_js_cmp('<', _js_abs(_js_arith('-', candidate(1.33), 0.33)), 1e-6))",
            "    assert _js_truthy(_js_abs(_js_cmp('<', candidate(_js_arith('-', 123.456, 0.456)), 1e-6)))",
        ]
    );
}

#[test]
fn javascript_87_comma_operator_literals_are_their_last_operand() {
    // Two asserts of JavaScript/87: `[(2, 2)]` is `[2]` in JavaScript.
    let test = "const testGetRow = () => {\n  console.assert(JSON.stringify(getRow([[1]], 2)) === JSON.stringify([]))\n  console.assert(\n    JSON.stringify(getRow([[], [1], [1, 2, 3]], 3)) === JSON.stringify([(2, 2)])\n  )\n}\n\ntestGetRow()\n";
    assert_eq!(
        bodies(test, "getRow"),
        [
            "    assert _js_truthy(_js_seq(_js_json(candidate([[1]], 2)), _js_json([])))",
            "    assert _js_truthy(_js_seq(_js_json(candidate([[], [1], [1, 2, 3]], 3)), _js_json([2])))",
        ]
    );
}

#[test]
fn javascript_44_and_151_loops_are_translated_with_their_setup() {
    let test44 = "const testChangeBase = () => {\n  console.assert(changeBase(8, 3) === '22')\n\n  for (let i = 2; i < 8; i++) {\n    console.assert(changeBase(i, i + 1) === i.toString())\n  }\n}\n\ntestChangeBase()\n";
    assert_eq!(
        bodies(test44, "changeBase"),
        [
            "    assert _js_truthy(_js_seq(candidate(8, 3), '22'))",
            "    _v_i = 2\n    while _js_truthy(_js_cmp('<', _v_i, 8)):\n        assert _js_truthy(_js_seq(candidate(_v_i, _js_arith('+', _v_i, 1)), _js_str(_v_i)))\n        _v_i = _js_arith('+', _v_i, 1)",
        ]
    );
    // JavaScript/151's end: the declarations and the loop that builds the input are the last
    // assert's setup (they hold no assert, so they are no unit of their own).
    let test151 = "const testDoubleTheDifference = () => {\n  console.assert(doubleTheDifference([]) === 0)\n  let lst = []\n  let odd_sum = 0\n  for (let i = -99; i < 100; i += 2) {\n    if (i % 2 != 0 && i > 0) { odd_sum += i * i }\n    lst.push(i)\n  }\n  console.assert(doubleTheDifference(lst) === odd_sum)\n}\ntestDoubleTheDifference()\n";
    let b = bodies(test151, "doubleTheDifference");
    assert_eq!(b[0], "    assert _js_truthy(_js_seq(candidate([]), 0))");
    assert_eq!(
        b[1],
        "    _v_lst = []\n    _v_odd_sum = 0\n    _v_i = -99\n    while _js_truthy(_js_cmp('<', _v_i, 100)):\n        if _js_truthy(_js_and((not _js_leq(_js_arith('%', _v_i, 2), 0)), lambda: _js_cmp('>', _v_i, 0))):\n            _v_odd_sum = _js_arith('+', _v_odd_sum, _js_arith('*', _v_i, _v_i))\n        _v_lst.append(_v_i)\n        _v_i = _js_arith('+', _v_i, 2)\n    assert _js_truthy(_js_seq(candidate(_v_lst), _v_odd_sum))"
    );
}

#[test]
fn literals_are_javascript_values() {
    assert_eq!(number("3").unwrap(), "3");
    assert_eq!(number("3.0").unwrap(), "3");
    assert_eq!(number("0.5").unwrap(), "0.5");
    assert_eq!(number("1e-6").unwrap(), "1e-6");
    assert_eq!(number("0x1F").unwrap(), "31");
    assert_eq!(number("010").unwrap(), "8");
    // JavaScript/114's -9999999999999999 is the double 1e16: beyond 2^53, a float.
    assert_eq!(number("9999999999999999").unwrap(), "1e16");
    assert!(number("10n").unwrap_err().contains("BigInt"));
    assert_eq!(js_string(r#"'a\'b\n\u00e9\x41'"#).unwrap(), "a'b\néA");
    assert_eq!(py_str("a'b\n\u{e9}\\"), r"'a\'b\n\xe9\\'");
    let b = bodies(
        "function t() {\n  console.assert(f({ p: 'x', 5: null, \"q r\": undefined }) === -0)\n  console.assert(!f([true, false], NaN))\n}\nt()\n",
        "f",
    );
    assert_eq!(
        b,
        [
            "    assert _js_truthy(_js_seq(candidate({'p': 'x', '5': None, 'q r': None}), -0.0))",
            "    assert _js_truthy((not _js_truthy(candidate([True, False], _es_math.nan))))",
        ]
    );
}

#[test]
fn forms_not_translated_are_named() {
    let helper =
        "const t = () => {\n  const g = (x) => x + 1\n  console.assert(f(g(1)) === 2)\n}\nt()\n";
    assert_eq!(
        tests(helper, "f").unwrap_err(),
        "has an expression this reader does not translate (arrow_function)"
    );
    let other = "const t = () => {\n  console.assert(decode(encode('a')) === 'a')\n}\nt()\n";
    assert_eq!(
        tests(other, "decode").unwrap_err(),
        "calls `encode`, which is not the function under test (decode)"
    );
    let random = "const t = () => {\n  console.assert(f(Math.random()) === 1)\n}\nt()\n";
    assert!(tests(random, "f").unwrap_err().contains("`Math.random`"));
    assert_eq!(
        tests("const t = () => {\n  f(1)\n}\nt()\n", "f").unwrap_err(),
        "holds no console.assert"
    );
    assert_eq!(
        tests("console.assert(f(1))\n", "f").unwrap_err(),
        "defines no test function"
    );
    assert!(tests(
        "const t = () => {\n  console.assert(f(1) ===)\n}\nt()\n",
        "f"
    )
    .unwrap_err()
    .contains("does not parse"));
}

/// The judge-side semantics against values JavaScript gives (node's, written down by hand).
#[test]
fn the_semantics_are_javascripts() {
    let Ok(out) = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "{SEMANTICS}\nprint('|'.join([\n  _js_json([1.0, None, 'a\"b\\n', {{'x': 2.5}}, True, float('nan'), 1e21, 1e-7, 123.456, 1e-6, 100.0, 0.000001234, 12345678901234567890.0, -0.0, 2**60]),\n  str([_js_seq(3, 3.0), _js_seq(True, 1), _js_leq(True, 1), _js_leq('1,2', [1, 2]), _js_seq([1], [1]), _js_leq(None, 0), _js_leq('', 0)]),\n  str([_js_truthy(x) for x in (0, 0.0, float('nan'), '', [], {{}}, 'a', -1, None)]),\n  _js_str([1, None, [2.5, 'x']]), str(_js_arith('/', 1, 0)), str(_js_arith('%', -7, 3)), str(_js_arith('+', 'a', 1.0)), str(_js_tonum(' 12 ')),\n  str([_js_cmp('<', 'b', 'ab'), _js_cmp('<', '10', 9), _js_cmp('<=', float('nan'), 1)]),\n]))"
        ))
        .output()
    else {
        eprintln!("skipped: jsnative::the_semantics_are_javascripts: no python3");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "[1,null,\"a\\\"b\\n\",{\"x\":2.5},true,null,1e+21,1e-7,123.456,0.000001,100,0.000001234,12345678901234567000,0,1152921504606847000]\
         |[True, False, True, True, False, False, True]\
         |[False, False, False, False, True, True, True, True, False]\
         |1,,2.5,x|inf|-1|a1|12\
         |[False, False, False]"
    );
}
