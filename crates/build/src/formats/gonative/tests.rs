use super::*;

/// The body of each unit of `tests(test, entry, sig)`, the semantics and `check`'s frame checked
/// off.
fn bodies(test: &str, entry: &str, sig: &Signature) -> Vec<String> {
    tests(test, entry, sig)
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

fn sig(params: &[&str], result: &str) -> Signature {
    Signature {
        params: params.iter().map(|p| p.to_string()).collect(),
        result: result.into(),
    }
}

#[test]
fn signatures_are_read_from_the_program() {
    let prog = "import \"math\"\n\nfunc helper(x int) int { return x }\n\nfunc F(a, b []float64, s string, m map[rune]int, r byte) [2]interface{} {\n    return [2]interface{}{nil, 1}\n}\n";
    assert_eq!(
        signature(prog, "F").unwrap(),
        sig(
            &["[]float64", "[]float64", "string", "map[int32]int", "uint8"],
            "[2]interface{}"
        )
    );
    assert_eq!(
        signature("func G(x int) (int, error) {\n    return x, nil\n}\n", "G").unwrap_err(),
        "tests a function that answers more than one value"
    );
    assert_eq!(
        signature("func H(xs ...int) int {\n    return 0\n}\n", "H").unwrap_err(),
        "tests a variadic function"
    );
}

#[test]
fn go_0_and_2_equal_with_types_and_math_abs() {
    // Go/0's first assert and Go/2's three, as published.
    let test0 = "func TestHasCloseElements(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(true, HasCloseElements([]float64{11.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.3))\n}\n";
    assert_eq!(
        bodies(test0, "HasCloseElements", &sig(&["[]float64", "float64"], "bool")),
        ["    assert _go_equal('bool', True, 'bool', _go_ans('bool', candidate([_go_conv('float64', 11.0), _go_conv('float64', 2.0), _go_conv('float64', 3.9), _go_conv('float64', 4.0), _go_conv('float64', 5.0), _go_conv('float64', 2.2)], _go_conv('float64', 0.3))))"]
    );
    let test2 = "func TestTruncateNumber(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(0.5, TruncateNumber(3.5))\n    assert.Equal(true, math.Abs(TruncateNumber(1.33)-0.33) < 1e-6)\n}\n";
    assert_eq!(
        bodies(test2, "TruncateNumber", &sig(&["float64"], "float64")),
        [
            "    assert _go_equal('float64', _go_conv('float64', 0.5), 'float64', _go_ans('float64', candidate(_go_conv('float64', 3.5))))",
            "    assert _go_equal('bool', True, 'bool', _go_bin('<', 'float64', _go_abs(_go_bin('-', 'float64', _go_ans('float64', candidate(_go_conv('float64', 1.33))), _go_conv('float64', 0.33))), _go_conv('float64', 1e-6)))",
        ]
    );
}

#[test]
fn go_44_and_151_statements_are_setup() {
    let test44 = "func TestChangeBase(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(\"22\", ChangeBase(8, 3))\n    for i := 2; i < 8; i++ {\n        assert.Equal(strconv.Itoa(i), ChangeBase(i, i+1))\n    }\n}\n";
    assert_eq!(
        bodies(test44, "ChangeBase", &sig(&["int", "int"], "string")),
        [
            "    assert _go_equal('string', '22', 'string', _go_ans('string', candidate(_go_conv('int', 8), _go_conv('int', 3))))",
            "    _v_i = _go_conv('int', 2)\n    while _go_bin('<', 'int', _v_i, _go_conv('int', 8)):\n        assert _go_equal('string', str(_v_i), 'string', _go_ans('string', candidate(_v_i, _go_bin('+', 'int', _v_i, _go_conv('int', 1)))))\n        _v_i = _go_bin('+', 'int', _v_i, 1)",
        ]
    );
    let test151 = "func TestDoubleTheDifference(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(0, DoubleTheDifference([]float64{}))\n    lst := make([]float64, 0)\n    odd_sum := 0\n    var i float64\n    for i = -99; i < 100; i+= 2 {\n        lst = append(lst, float64(i))\n        if math.Mod(i, 2) != 0 && i > 0 {\n            odd_sum +=int(math.Pow(i, 2))\n        }\n    }\n    assert.Equal(odd_sum, DoubleTheDifference(lst))\n}\n";
    let b = bodies(test151, "DoubleTheDifference", &sig(&["[]float64"], "int"));
    assert_eq!(
        b[0],
        "    assert _go_equal('int', _go_conv('int', 0), 'int', _go_ans('int', candidate([])))"
    );
    assert_eq!(
        b[1],
        "    _v_lst = ([0.0] * _go_conv('int', 0))\n    _v_odd_sum = _go_conv('int', 0)\n    _v_i = 0.0\n    _v_i = _go_conv('float64', (-99))\n    while _go_bin('<', 'float64', _v_i, _go_conv('float64', 100)):\n        _v_lst = (_v_lst + [_go_conv('float64', _v_i)])\n        if (_go_bin('!=', 'float64', _go_mod(_v_i, _go_conv('float64', 2)), _go_conv('float64', 0)) and _go_bin('>', 'float64', _v_i, _go_conv('float64', 0))):\n            _v_odd_sum = _go_bin('+', 'int', _v_odd_sum, _go_conv('int', _go_pow(_v_i, _go_conv('float64', 2))))\n        _v_i = _go_bin('+', 'float64', _v_i, _go_conv('float64', 2))\n    assert _go_equal('int', _v_odd_sum, 'int', _go_ans('int', candidate(_v_lst)))"
    );
}

#[test]
fn composites_nil_runes_and_maps_keep_their_go_types() {
    // Go/87 (arrays in a slice, inner types left out), /111 (rune keys), /136 (nil in an
    // interface{} array), /12 (an untyped nil expected).
    let b = bodies(
        "func TestGetRow(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal([][2]int{{0, 0}, {1, 4}}, GetRow([][]int{{}, {1}}, 1))\n    assert.Equal([][2]int{}, GetRow([][]int{{1}}, 2))\n}\n",
        "GetRow",
        &sig(&["[][]int", "int"], "[][2]int"),
    );
    assert_eq!(b[1], "    assert _go_equal('[][2]int', [], '[][2]int', _go_ans('[][2]int', candidate([[_go_conv('int', 1)]], _go_conv('int', 2))))");
    assert!(b[0].starts_with("    assert _go_equal('[][2]int', [(_go_conv('int', 0), _go_conv('int', 0)), (_go_conv('int', 1), _go_conv('int', 4))], "), "{}", b[0]);
    let b = bodies(
        "func TestHistogram(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(map[rune]int{'a':2,'\\n': 1}, Histogram(`a\\b`))\n}\n",
        "Histogram",
        &sig(&["string"], "map[int32]int"),
    );
    assert_eq!(b[0], "    assert _go_equal('map[int32]int', {_go_conv('int32', 97): _go_conv('int', 2), _go_conv('int32', 10): _go_conv('int', 1)}, 'map[int32]int', _go_ans('map[int32]int', candidate('a\\\\b')))");
    let b = bodies(
        "func TestL(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal([2]interface{}{nil, -1}, L([]int{}))\n    assert.Equal(nil, L([]int{}))\n}\n",
        "L",
        &sig(&["[]int"], "[2]interface{}"),
    );
    assert_eq!(b[0], "    assert _go_equal('[2]interface{}', (None, (-1)), '[2]interface{}', _go_ans('[2]interface{}', candidate([])))");
    assert_eq!(b[1], "    assert _go_equal('nil', None, '[2]interface{}', _go_ans('[2]interface{}', candidate([])))");
}

#[test]
fn literals_are_go_values() {
    assert_eq!(int_value("0x1F").unwrap(), "31");
    assert_eq!(int_value("017").unwrap(), "15");
    assert_eq!(int_value("0o17").unwrap(), "15");
    assert_eq!(int_value("0b101").unwrap(), "5");
    assert_eq!(int_value("1_000").unwrap(), "1000");
    assert_eq!(int_value("0").unwrap(), "0");
    assert_eq!(float_value("1e-6").unwrap(), "1e-6");
    assert_eq!(float_value(".5").unwrap(), "0.5");
    assert_eq!(float_value("3.").unwrap(), "3.0");
    assert!(float_value("0x1p-2").unwrap_err().contains("hexadecimal"));
    assert_eq!(rune_value("'a'").unwrap(), 97);
    assert_eq!(rune_value(r"'\n'").unwrap(), 10);
    assert_eq!(rune_value(r"'\''").unwrap(), 39);
    assert_eq!(rune_value(r"'\xff'").unwrap(), 255);
    assert_eq!(rune_value(r"'\u00e9'").unwrap(), 0xe9);
    assert_eq!(rune_value("'é'").unwrap(), 0xe9);
    assert_eq!(
        string_value(r#""a\tb\"\u00e9\x41\101""#).unwrap(),
        "a\tb\"\u{e9}AA"
    );
    assert_eq!(string_value("`a\\n\"`").unwrap(), "a\\n\"");
    assert!(string_value(r#""\xff""#).unwrap_err().contains("not UTF-8"));
}

#[test]
fn forms_not_translated_are_named() {
    let s = sig(&["[]int"], "[]int");
    let closure = "func TestS(t *testing.T) {\n    assert := assert.New(t)\n\tsame := func(a []int, b []int) bool {\n\t\treturn true\n\t}\n\tassert.Equal(true, same([]int{1}, S([]int{1})))\n}\n";
    assert_eq!(
        tests(closure, "S", &s).unwrap_err(),
        "defines a function literal"
    );
    let random = "func TestS(t *testing.T) {\n    assert := assert.New(t)\n    x := rand.Int31n(1000)\n    assert.Equal([]int{}, S([]int{int(x)}))\n}\n";
    assert!(tests(random, "S", &s)
        .unwrap_err()
        .contains("`rand.Int31n`"));
    let other = "func TestS(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal([]int{}, S(T([]int{})))\n}\n";
    assert_eq!(
        tests(other, "S", &s).unwrap_err(),
        "calls `T`, which is not the function under test (S)"
    );
    // Go/22: a rune where an interface{} takes it crosses as an int (its type lost).
    let runes = "func TestF(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal([]int{3}, F([]interface{}{3, 'c'}))\n}\n";
    assert!(tests(runes, "F", &sig(&["[]interface{}"], "[]int"))
        .unwrap_err()
        .starts_with("puts a rune in an interface{}"));
    let nil_slice = "func TestS(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal([]int{}, S(nil))\n}\n";
    assert!(tests(nil_slice, "S", &s)
        .unwrap_err()
        .contains("uses nil as a []int"));
    // Go/80's literal messages are left out (bodies() checks the rest); a call is refused.
    let message = "func TestS(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal([]int{}, S([]int{}), \"msg\")\n}\n";
    assert_eq!(
        bodies(message, "S", &s),
        ["    assert _go_equal('[]int', [], '[]int', _go_ans('[]int', candidate([])))"]
    );
    let called = message.replace("\"msg\"", "S([]int{1})");
    assert_eq!(
        tests(&called, "S", &s).unwrap_err(),
        "calls assert.Equal with a message that is not a literal"
    );
    let helper = "func helper() int { return 1 }\n\nfunc TestS(t *testing.T) {\n    assert.Equal(t, 1, 1)\n}\n";
    assert_eq!(
        tests(helper, "S", &s).unwrap_err(),
        "defines the function helper beside its test"
    );
    assert_eq!(
        tests("func TestS(t *testing.T) {\n    S([]int{})\n}\n", "S", &s).unwrap_err(),
        "has a statement that is no assert: `S([]int{})`"
    );
    assert!(tests(
        "func TestS(t *testing.T) {\n    assert.Equal(t, 1, \n}\n",
        "S",
        &s
    )
    .unwrap_err()
    .contains("does not parse"));
}

#[test]
fn package_asserts_take_the_test_first() {
    let b = bodies(
        "func TestS(t *testing.T) {\n    assert.True(t, S(1) > 0)\n    assert.InDelta(t, 0.5, S(2), 1e-9)\n    assert.NotEqual(t, 1.0, S(3))\n}\n",
        "S",
        &sig(&["int"], "float64"),
    );
    assert_eq!(
        b,
        [
            "    assert _go_bin('>', 'float64', _go_ans('float64', candidate(_go_conv('int', 1))), _go_conv('float64', 0))",
            "    assert _go_indelta('float64', _go_conv('float64', 0.5), 'float64', _go_ans('float64', candidate(_go_conv('int', 2))), 'float64', _go_conv('float64', 1e-9))",
            "    assert not _go_equal('float64', _go_conv('float64', 1.0), 'float64', _go_ans('float64', candidate(_go_conv('int', 3))))",
        ]
    );
}

/// The judge-side semantics against values Go and testify give (written down by hand from the
/// Go specification and testify's ObjectsAreEqual).
#[test]
fn the_semantics_are_gos() {
    let Ok(out) = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "{SEMANTICS}\nprint('|'.join(str(x) for x in [\n  [_go_equal('int', 3, 'float64', 3.0), _go_equal('int', 3, 'int', 3), _go_equal('float64', 3.0, 'interface{{}}', 3), _go_equal('nil', None, 'interface{{}}', None), _go_equal('nil', None, '[]int', []), _go_equal('[]int', [1, 2], '[]int', [1, 2]), _go_equal('[]int', [1], '[]int', [1, 2]), _go_equal('float64', float('nan'), 'float64', float('nan')), _go_equal('float64', 0.0, 'float64', -0.0), _go_equal('[2]interface{{}}', (None, 1), '[2]interface{{}}', (None, 1)), _go_equal('[2]interface{{}}', (None, 1), '[2]interface{{}}', (None, 1.0)), _go_equal('map[int32]int', {{97: 2}}, 'map[int32]int', {{97: 2}}), _go_equal('map[int32]int', {{97: 2}}, 'map[int32]int', {{97: 2, 98: 1}}), _go_equal('int', 1, 'bool', True), _go_equal('[]string', ['a'], 'interface{{}}', ['a']), _go_equal('[]string', ['a'], 'interface{{}}', [1])],\n  [_go_bin('/', 'int', -7, 2), _go_bin('%', 'int', -7, 2), _go_bin('/', 'untyped int', 7, 2), _go_bin('/', 'untyped float', 2, 4), _go_bin('+', 'int', 2**63 - 1, 1), _go_bin('*', 'int32', 2**30, 4), _go_bin('/', 'float64', 1.0, 0.0), _go_bin('<', 'string', 'Z', 'a')],\n  [_go_conv('int', 2.7), _go_conv('int', -2.7), _go_conv('string', 233), _go_conv('string', [104, 105]), _go_conv('[]int32', 'hé'), _go_len('hé'), _go_conv('uint8', 300), _go_pow(0.0, 0.0), _go_mod(-7.0, 2.0)],\n]))"
        ))
        .output()
    else {
        eprintln!("skipped: gonative::the_semantics_are_gos: no python3");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "[False, True, False, True, False, True, False, False, True, True, False, True, False, False, True, False]\
         |[-3, -1, 3, 0.5, -9223372036854775808, 0, inf, True]\
         |[2, -2, 'é', 'hi', [104, 233], 3, 44, 1.0, -1.0]"
    );
    // An answer that is not of the declared type fails the test.
    let bad = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!("{SEMANTICS}\n_go_ans('[]int', [1, 2.0])\n"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a Go int"));
}
