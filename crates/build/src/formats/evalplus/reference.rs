//! An EvalPlus reference solution's outputs, computed in the sandbox and read back as data.
//!
//! The reference is benchmark code, but it is code: it runs in the sandbox like a candidate. A
//! job per task calls it once per input from the judge, whose trusted setup
//! (`assets/evalplus/reference.py`) writes each output as a Python literal of plain data and
//! reports it through the verdict's `observed` value, which carries at most 200 characters per
//! test: first a head (EvalPlus's `is_floats` flag, the literal's length, its first
//! [`HEAD_BYTES`] bytes), then, for longer literals, one test per [`PART_BYTES`]-byte part,
//! base64 so no character needs escaping. A literal longer than [`MAX_LITERAL`] is not read (its
//! input is left out, and the problem's notes say so).

use super::{PlusTask, RunPhase};
use execscope_oracle::{Job, Outcome, SuiteResult};

/// The trusted setup of a reference job.
pub const SETUP: &str = include_str!("../../../assets/evalplus/reference.py");
/// Bytes of the literal in the head test's report.
pub const HEAD_BYTES: usize = 141;
/// Bytes of the literal in each further report.
pub const PART_BYTES: usize = 147;
/// Longest expected-output literal written into a test (64 KiB).
pub const MAX_LITERAL: usize = 1 << 16;
/// Ends every reference test, so that a change of [`SETUP`] (which the cache key does not
/// cover) comes with a new key.
const MARK: &str = "  # execscope: reference output v2";

/// One expected output: its Python literal, EvalPlus's `is_floats` of it, and the time the
/// reference took on it (ms, the head report's test time: the call and the literal's writing),
/// which EvalPlus's time convention scales into the input's budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub literal: String,
    pub is_floats: bool,
    pub ms: u32,
}

/// Where a task's long outputs were asked for: the phase-2 job, and per long input its place
/// among the task's reported inputs with the index of its first part test.
type Long = (usize, Vec<(usize, usize)>);

/// Per task: per suite, per input, the output or why the input is left out; `Err` when the
/// task's reference could not be run at all.
pub type TaskOutputs = Result<[Vec<Result<Output, String>>; 2], String>;

/// The report test of one input: `part` -1 is the head. The call is handed over unevaluated
/// (a lambda) with the input as its key, so that the pair's tests of one input run the
/// reference once and write its literal once (the setup keeps it for the pair's later parts).
pub fn report_test(t: &PlusTask, args: &str, part: i64) -> String {
    let call = t.expected_of(&format!("{}({args})", t.entry));
    let key = serde_json::to_string(args).unwrap_or_else(|_| "''".into());
    format!("_es_report(lambda: {call}, {part}, {key}){MARK}\n")
}

fn job(t: &PlusTask, tests: Vec<String>) -> Job {
    Job::new(t.program(), tests).entry(&t.entry).setup(SETUP)
}

/// The head of one output, or why there is none.
#[derive(Clone, Debug)]
struct Head {
    is_floats: bool,
    len: usize,
    bytes: Vec<u8>,
}

/// The quoted string of an `observed` value (the judge's repr of a str), unquoted.
fn unquote(obs: Option<&String>) -> Option<&str> {
    let o = obs?;
    let q = o.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    o.strip_prefix(q)?.strip_suffix(q)
}

/// Why a report test gave no data, in words.
fn failure(outcome: &Outcome, observed: Option<&String>) -> String {
    match outcome {
        Outcome::Fail => match unquote(observed) {
            Some(s) if s.starts_with('?') => format!(
                "the reference returns a `{}`, which is not plain data a test can compare with",
                &s[1..]
            ),
            _ => "the reference's output could not be read back".into(),
        },
        Outcome::FailExc(e) => format!("the reference raises {e} on it"),
        Outcome::Error(_) => format!("the reference program does not run ({outcome})"),
        Outcome::Timeout | Outcome::Hang => format!("the reference runs out of time ({outcome})"),
        Outcome::Pass => "the reference's report passed, which it cannot".into(),
        Outcome::NotRun => "the reference's report was not run".into(),
    }
}

/// Outcome and observed value of test `i` of `r` (a missing test reads as an error).
fn test_of(r: &SuiteResult, i: usize) -> (Outcome, Option<&String>) {
    match r.outcomes.get(i) {
        Some(o) => (o.clone(), r.observed.get(i).and_then(Option::as_ref)),
        None => (Outcome::Error("Other".into()), None),
    }
}

fn head_of(r: &SuiteResult, i: usize) -> Result<Head, String> {
    let (o, obs) = test_of(r, i);
    let o = &o;
    let s = match (o, unquote(obs)) {
        (Outcome::Fail, Some(s)) if s.starts_with(['F', 'N']) => s,
        _ => return Err(failure(o, obs)),
    };
    let bad = || "the reference's output could not be read back".to_string();
    let (len, b64) = s[1..].split_once(':').ok_or_else(bad)?;
    let len: usize = len.parse().map_err(|_| bad())?;
    let bytes = b64decode(b64).ok_or_else(bad)?;
    if bytes.len() != len.min(HEAD_BYTES) {
        return Err(bad());
    }
    Ok(Head {
        is_floats: s.starts_with('F'),
        len,
        bytes,
    })
}

/// Number of further parts a literal of `len` bytes needs.
fn parts(len: usize) -> usize {
    len.saturating_sub(HEAD_BYTES).div_ceil(PART_BYTES)
}

/// Every task's reference outputs, through `run` (see the module docs).
pub fn outputs(tasks: &[PlusTask], run: &mut RunPhase<'_>) -> Vec<TaskOutputs> {
    // Phase 1: the head of every output.
    let mut jobs = Vec::new();
    let mut job_of: Vec<Option<usize>> = Vec::with_capacity(tasks.len());
    let mut task_of: Vec<usize> = Vec::new();
    let mut places: Vec<Vec<(usize, usize)>> = Vec::new();
    for (ti, t) in tasks.iter().enumerate() {
        let mut tests = Vec::new();
        let mut place = Vec::new();
        for (k, suite) in t.inputs.iter().enumerate() {
            for (i, args) in suite.iter().enumerate() {
                if let Ok(a) = args {
                    tests.push(report_test(t, a, -1));
                    place.push((k, i));
                }
            }
        }
        if tests.is_empty() || !t.needs_reference() {
            job_of.push(None);
            continue;
        }
        job_of.push(Some(jobs.len()));
        task_of.push(ti);
        jobs.push(job(t, tests));
        places.push(place);
    }
    let heads = if jobs.is_empty() {
        Vec::new()
    } else {
        run("reference outputs", &jobs)
    };
    // Phase 2: the remaining parts of long outputs.
    let mut long_jobs = Vec::new();
    let mut long_of: Vec<Option<Long>> = vec![None; jobs.len()];
    for (j, r) in heads.iter().enumerate() {
        let Ok(r) = r else { continue };
        let t = &tasks[task_of[j]];
        let mut tests = Vec::new();
        let mut spans = Vec::new();
        for (n, &(k, i)) in places[j].iter().enumerate() {
            let Ok(h) = head_of(r, n) else { continue };
            if h.len <= HEAD_BYTES || h.len > MAX_LITERAL {
                continue;
            }
            let args = t.inputs[k][i].as_ref().expect("only inputs with arguments");
            spans.push((n, tests.len()));
            for p in 0..parts(h.len) {
                tests.push(report_test(t, args, p as i64));
            }
        }
        if !tests.is_empty() {
            long_of[j] = Some((long_jobs.len(), spans));
            long_jobs.push(job(t, tests));
        }
    }
    let rests = if long_jobs.is_empty() {
        Vec::new()
    } else {
        run("reference outputs, long", &long_jobs)
    };
    tasks
        .iter()
        .zip(&job_of)
        .map(|(t, j)| match j {
            None if t.needs_reference() => Ok(unasked(t)),
            None => Ok(placeholders(t)),
            Some(j) => assemble(t, &places[*j], &heads[*j], long_of[*j].as_ref(), &rests),
        })
        .collect()
}

/// Every input of `t` as not yet reported (an input without arguments keeps its reason).
fn unasked(t: &PlusTask) -> [Vec<Result<Output, String>>; 2] {
    [0, 1].map(|k| {
        t.inputs[k]
            .iter()
            .map(|a| match a {
                Err(e) => Err(e.clone()),
                Ok(_) => Err("the reference was not asked for it".to_string()),
            })
            .collect()
    })
}

/// A task judged without expected outputs (HumanEval's `find_zero`): every input has one.
fn placeholders(t: &PlusTask) -> [Vec<Result<Output, String>>; 2] {
    let none = || Output {
        literal: "None".into(),
        is_floats: false,
        ms: 0,
    };
    [
        t.inputs[0].iter().map(|_| Ok(none())).collect(),
        t.inputs[1].iter().map(|_| Ok(none())).collect(),
    ]
}

fn assemble(
    t: &PlusTask,
    places: &[(usize, usize)],
    head: &Result<SuiteResult, String>,
    long: Option<&Long>,
    rests: &[Result<SuiteResult, String>],
) -> TaskOutputs {
    let head = head
        .as_ref()
        .map_err(|e| format!("its reference outputs could not be computed: {e}"))?;
    if let Some(Outcome::Error(_)) = head.outcomes.first() {
        if head.outcomes.iter().all(|o| matches!(o, Outcome::Error(_))) {
            return Err(format!(
                "the reference program does not run ({}): prompt + canonical_solution",
                head.outcomes[0]
            ));
        }
    }
    let mut out = unasked(t);
    for (n, &(k, i)) in places.iter().enumerate() {
        out[k][i] = read_one(n, head, long, rests);
    }
    Ok(out)
}

/// The output of input `n` of a task: its head, and its parts when it is long.
fn read_one(
    n: usize,
    head: &SuiteResult,
    long: Option<&Long>,
    rests: &[Result<SuiteResult, String>],
) -> Result<Output, String> {
    let h = head_of(head, n)?;
    if h.len > MAX_LITERAL {
        return Err(format!(
            "the reference's output is {} characters as a Python literal, more than the {} a \
             test carries",
            h.len, MAX_LITERAL
        ));
    }
    let mut bytes = h.bytes;
    if h.len > HEAD_BYTES {
        let (j, spans) = long.ok_or("the rest of the reference's output was not read")?;
        let r = rests[*j]
            .as_ref()
            .map_err(|e| format!("the rest of the reference's output could not be read: {e}"))?;
        let first = spans
            .iter()
            .find(|(m, _)| *m == n)
            .map(|(_, f)| *f)
            .ok_or("the rest of the reference's output was not read")?;
        for p in first..first + parts(h.len) {
            let (o, obs) = test_of(r, p);
            let part = match (&o, unquote(obs)) {
                (Outcome::Fail, Some(s)) => b64decode(s),
                _ => None,
            };
            bytes.extend(part.ok_or_else(|| failure(&o, obs))?);
        }
    }
    let literal = String::from_utf8(bytes)
        .ok()
        .filter(|l| l.len() == h.len && l.is_ascii() && super::is_expression(l))
        .ok_or("the reference's output could not be read back")?;
    Ok(Output {
        literal,
        is_floats: h.is_floats,
        ms: head.test_ms.get(n).copied().unwrap_or(0),
    })
}

/// Standard base64 (with padding) decoded; `None` for anything else.
pub fn b64decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (q, chunk) in b.chunks(4).enumerate() {
        let last = q + 1 == b.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = (n << 6) | val(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_python_writes_it() {
        // base64.b64encode(b"[1, 2]") == b"WzEsIDJd"; b"ab" -> "YWI="; b"a" -> "YQ=="
        assert_eq!(b64decode("WzEsIDJd").unwrap(), b"[1, 2]");
        assert_eq!(b64decode("YWI=").unwrap(), b"ab");
        assert_eq!(b64decode("YQ==").unwrap(), b"a");
        assert_eq!(b64decode("").unwrap(), b"");
        assert!(b64decode("YQ=").is_none());
        assert!(b64decode("Y===").is_none());
        assert!(b64decode("YQ==YQ==").is_none());
        assert!(b64decode("Y'Q=").is_none());
    }

    #[test]
    fn parts_cover_the_literal() {
        assert_eq!(parts(10), 0);
        assert_eq!(parts(HEAD_BYTES), 0);
        assert_eq!(parts(HEAD_BYTES + 1), 1);
        assert_eq!(parts(HEAD_BYTES + PART_BYTES), 1);
        assert_eq!(parts(HEAD_BYTES + PART_BYTES + 1), 2);
        // A head report fits the judge's 200-character observed value: flag, up to 6 digits
        // of length, ':', base64 of 141 bytes (188 characters), two quotes.
        assert!(1 + 6 + 1 + HEAD_BYTES.div_ceil(3) * 4 + 2 <= 200);
        assert!(PART_BYTES.div_ceil(3) * 4 + 2 <= 200);
    }
}
