//! Equivalent and duplicate mutants settled before execution, by Trivial Compiler Equivalence
//! (Papadakis et al., ICSE 2015): CPython compiles the canonical and each mutant (`compile()`
//! runs none of their code), and the compiled code objects are compared with file names and
//! line tables left out. A mutant that compiles to the canonical's code is **equivalent**: it
//! behaves as the canonical on every input, so it can never fail a test and is neither executed
//! nor a distractor. A mutant that compiles to an earlier mutant's code is a **duplicate** of
//! it: the two are one program, executed once (the first). A mutant CPython refuses with a
//! `SyntaxError` (tree-sitter accepts a little more: `break` outside a loop, a bad dedent)
//! would only crash, so it is not executed either.
//!
//! What this does not see: equivalences the compiler does not normalise (`a[0:n]` and `a[:n]`
//! compile differently and behave alike) still reach the oracle, where they pass every test.
//! Everything here is a pure function of the sources and the interpreter, so builds stay
//! reproducible: `python3 -I -S` children (one per core, each a contiguous share of the sources)
//! compile every source of a gate, each under its own CPU and memory limits
//! (`assets/equivalence.py`); when no interpreter runs, nothing is settled and every mutant is
//! executed, as before.

use serde::Serialize;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// The compiler child's script.
const SCRIPT: &str = include_str!("../assets/equivalence.py");

/// What compiling one source said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compiled {
    /// SHA-256 (hex) of the normalised code objects.
    Code(String),
    /// CPython refuses the source (`SyntaxError` and its subclasses), with the message.
    SyntaxError(String),
    /// Not known (the compiler failed otherwise, or did not run): the mutant is executed.
    Unknown(String),
}

/// How a mutant is settled before execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Executed by the oracle (its compiled code is new, or unknown).
    Execute,
    /// Compiles to the canonical's code: never executed, never a distractor.
    Equivalent,
    /// Compiles to the code of the mutant with this index (the first of its group, which is
    /// executed): it gets that mutant's verdict.
    DuplicateOf(usize),
    /// CPython does not compile it (the message): it could only crash, so it is not executed.
    DoesNotCompile(String),
}

/// The interpreter the compiler child runs: `$EXECSCOPE_PYTHON`, else `python3`, as for the
/// oracle.
fn interpreter() -> String {
    std::env::var("EXECSCOPE_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "python3".to_string())
}

/// Compiles every source; results in input order. The sources are split into one contiguous
/// share per core, each compiled by its own child at once (compiling is a pure function of a
/// source, so the split changes no result: it takes the gate's 2 s or so of compiling on one
/// core down to its share per core). `Err` when a child cannot start (no interpreter): then
/// nothing can be settled.
pub fn compile_all(sources: &[&str]) -> Result<Vec<Compiled>, String> {
    const LEAST: usize = 256; // sources per child below which another child's start is not worth it
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let children = cores.min(sources.len().div_ceil(LEAST)).max(1);
    let share = sources.len().div_ceil(children).max(1);
    let parts: Vec<Result<Vec<Compiled>, String>> = std::thread::scope(|s| {
        let running: Vec<_> = sources
            .chunks(share)
            .map(|part| s.spawn(move || compile_in_one_child(part)))
            .collect();
        running
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a compiler thread panicked".to_string()))
            })
            .collect()
    });
    let mut out = Vec::with_capacity(sources.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// Compiles `sources` in one child process; results in input order.
fn compile_in_one_child(sources: &[&str]) -> Result<Vec<Compiled>, String> {
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    let python = interpreter();
    let mut child = Command::new(&python)
        .args(["-I", "-S", "-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin pipe")?;
    let stdout = child.stdout.take().ok_or("no stdout pipe")?;
    let lines: Vec<String> = sources
        .iter()
        .map(|s| serde_json::Value::from(*s).to_string())
        .collect();
    // Written from another thread while this one reads, so neither pipe can fill up and stall.
    let writer = std::thread::spawn(move || {
        for l in &lines {
            if stdin
                .write_all(l.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .is_err()
            {
                break;
            }
        }
    });
    let mut out: Vec<Compiled> = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .take(sources.len())
        .map(|l| parse_line(&l))
        .collect();
    let _ = writer.join();
    let status = child.wait().map_err(|e| e.to_string())?;
    if out.len() < sources.len() {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        let why = format!(
            "the compiler stopped after {} of {} sources ({status}): {}",
            out.len(),
            sources.len(),
            err.lines().last().unwrap_or("")
        );
        out.resize(sources.len(), Compiled::Unknown(why));
    }
    Ok(out)
}

fn parse_line(line: &str) -> Compiled {
    let v: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Compiled::Unknown(format!("unreadable compiler line: {e}")),
    };
    match (v["d"].as_str(), v["e"].as_str(), v["syntax"].as_bool()) {
        (Some(d), _, _) => Compiled::Code(d.to_string()),
        (None, Some(e), Some(true)) => Compiled::SyntaxError(e.to_string()),
        (None, Some(e), _) => Compiled::Unknown(e.to_string()),
        _ => Compiled::Unknown(format!("unexpected compiler line: {line}")),
    }
}

/// Settles each of a canonical's mutants from their compiled forms (pure): see [`Settled`].
/// The representative of a group of duplicates is its first mutant with `first[i]` set (the
/// paper's families), else its first: so adding the catalogue's families never turns one of
/// the paper's mutants into a duplicate, and the paper's set alone settles as before.
pub fn settle(canonical: &Compiled, mutants: &[Compiled], first: &[bool]) -> Vec<Settled> {
    let mut reps: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<usize> = (0..mutants.len()).collect();
    order.sort_by_key(|&i| (!first.get(i).copied().unwrap_or(false), i));
    let mut out = vec![Settled::Execute; mutants.len()];
    for i in order {
        out[i] = match &mutants[i] {
            Compiled::Unknown(_) => Settled::Execute,
            Compiled::SyntaxError(e) => Settled::DoesNotCompile(e.clone()),
            Compiled::Code(d) if *canonical == Compiled::Code(d.clone()) => Settled::Equivalent,
            Compiled::Code(d) => match reps.get(d.as_str()) {
                Some(&j) => Settled::DuplicateOf(j),
                None => {
                    reps.insert(d, i);
                    Settled::Execute
                }
            },
        };
    }
    out
}

/// Whether equivalence was checked in a build, and with what.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Checked {
    pub checked: bool,
    /// The interpreter, or why nothing was settled.
    pub note: String,
}

/// One canonical and its mutants for [`settle_all`]: the codes, and per mutant whether it
/// represents its duplicates first (see [`settle`]).
pub type Group<'a> = (&'a str, Vec<(&'a str, bool)>);

/// The [`Group`] of a canonical and its mutants: a paper-family mutant represents its
/// duplicates first.
pub fn group<'a>(canonical: &'a str, mutants: &'a [crate::mutate::Mutant]) -> Group<'a> {
    let paper = |m: &crate::mutate::Mutant| {
        crate::mutate::Family::from_name(&m.bug_type).is_some_and(|f| f.is_paper())
    };
    let codes = mutants
        .iter()
        .map(|m| (m.code.as_str(), paper(m)))
        .collect();
    (canonical, codes)
}

/// [`settle`] for many canonicals at once, compiled together ([`compile_all`]). Without an
/// interpreter every mutant is executed and the note says why.
pub fn settle_all(groups: &[Group]) -> (Vec<Vec<Settled>>, Checked) {
    let sources: Vec<&str> = groups
        .iter()
        .flat_map(|(c, ms)| std::iter::once(*c).chain(ms.iter().map(|(m, _)| *m)))
        .collect();
    match compile_all(&sources) {
        Ok(compiled) => {
            let mut at = 0;
            let settled = groups
                .iter()
                .map(|(_, ms)| {
                    let first: Vec<bool> = ms.iter().map(|(_, f)| *f).collect();
                    let s = settle(&compiled[at], &compiled[at + 1..at + 1 + ms.len()], &first);
                    at += 1 + ms.len();
                    s
                })
                .collect();
            let note = format!("compiled by {} (-I -S)", interpreter());
            (
                settled,
                Checked {
                    checked: true,
                    note,
                },
            )
        }
        Err(why) => {
            let settled = groups
                .iter()
                .map(|(_, ms)| vec![Settled::Execute; ms.len()])
                .collect();
            let note = format!("not checked: {why}; every mutant executed");
            (
                settled,
                Checked {
                    checked: false,
                    note,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(d: &str) -> Compiled {
        Compiled::Code(d.to_string())
    }

    #[test]
    fn settling_by_hand() {
        let canon = code("c");
        let ms = [
            code("a"),
            code("c"),
            code("a"),
            Compiled::SyntaxError("SyntaxError: 'break' outside loop (line 3)".into()),
            code("b"),
            Compiled::Unknown("RecursionError".into()),
            code("b"),
            code("a"),
        ];
        assert_eq!(
            settle(&canon, &ms, &[false; 8]),
            vec![
                Settled::Execute,
                Settled::Equivalent,
                Settled::DuplicateOf(0),
                Settled::DoesNotCompile("SyntaxError: 'break' outside loop (line 3)".into()),
                Settled::Execute,
                Settled::Execute,
                Settled::DuplicateOf(4),
                Settled::DuplicateOf(0),
            ]
        );
        // an unknown canonical makes no mutant equivalent; duplicates are still found
        let unknown = Compiled::Unknown("x".into());
        assert_eq!(
            settle(&unknown, &[code("c"), code("c")], &[]),
            vec![Settled::Execute, Settled::DuplicateOf(0)]
        );
        // a preferred (paper-family) mutant represents its group even when it comes later
        assert_eq!(
            settle(
                &canon,
                &[code("a"), code("b"), code("a")],
                &[false, false, true]
            ),
            vec![Settled::DuplicateOf(2), Settled::Execute, Settled::Execute]
        );
    }

    /// The sources split between children come back in input order, each with what it
    /// compiles to alone: 700 sources (three shares on a 3-core machine, two on 2 cores),
    /// distinct except for known pairs, a syntax error among them.
    #[test]
    fn a_split_compile_keeps_order_and_results() {
        let mut owned: Vec<String> = (0..700).map(|i| format!("x = {}\n", i % 350)).collect();
        owned[401] = "break\n".to_string();
        let sources: Vec<&str> = owned.iter().map(String::as_str).collect();
        let all = match compile_all(&sources) {
            Ok(all) => all,
            Err(e) => {
                eprintln!("skipped a_split_compile_keeps_order_and_results: {e}");
                return;
            }
        };
        assert_eq!(all.len(), 700);
        assert_eq!(all, compile_in_one_child(&sources).unwrap());
        assert!(matches!(&all[401], Compiled::SyntaxError(e) if e.contains("break")));
        for i in [0, 1, 255, 256, 349, 350, 351, 699] {
            let alone = compile_in_one_child(&sources[i..=i]).unwrap();
            assert_eq!(all[i], alone[0], "source {i}");
            if i != 401 && i + 350 < 700 && i + 350 != 401 {
                assert_eq!(all[i], all[i + 350], "x = {} twice", i % 350);
            }
        }
        assert_ne!(all[0], all[1]);
    }
}
