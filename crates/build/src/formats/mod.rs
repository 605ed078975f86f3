//! The field's benchmark files, read as they are: HumanEval (`HumanEval.jsonl.gz`), MBPP
//! (`mbpp.jsonl`, `sanitized-mbpp.json`), EvalPlus's HumanEval+ and MBPP+, HumanEval-X, MBXP and
//! execscope's own task file (docs/formats.md has every field mapping).
//!
//! A file is JSON Lines (`.jsonl`), gzip-compressed JSON Lines (recognised by its magic bytes,
//! whatever its name) or one JSON array (`.json`). Its format is found from the first record's
//! fields, or named (`--from`). Each record becomes a [`Problem`]: the function under test, the
//! request, the reference program and its tests as trusted Python the judge runs — a HumanEval
//! `check(candidate)` split into units ([`pysrc::check_units`]), MBPP asserts with their setup
//! code, EvalPlus inputs compared by EvalPlus's rules with expected outputs the reference
//! solution computed in the sandbox ([`evalplus`]). A record that cannot be read is an
//! [`Unread`] naming its line and why; the rest of the file is still read.

pub mod audit;
pub mod evalplus;
pub mod gonative;
pub mod humaneval;
pub mod humanevalx;
pub mod jsnative;
pub mod mbpp;
pub mod mbxp;
pub mod pools;
pub mod pyjson;
pub mod pysrc;
pub mod rsnative;
pub mod tasks;

use execscope_core::bundle::BundleError;
use pyjson::J;
use serde::Serialize;
use std::path::Path;

/// A benchmark file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// execscope's own task file (docs/task-file.md), or an audit task file.
    Execscope,
    /// OpenAI's HumanEval: `prompt`, `canonical_solution`, `test`, `entry_point`.
    HumanEval,
    /// Google's MBPP: `text`/`prompt`, `code`, `test_list`, `test_setup_code`/`test_imports`.
    Mbpp,
    /// EvalPlus's HumanEval+ / MBPP+: `base_input`, `plus_input`, `atol`.
    EvalPlus,
    /// HumanEval-X (C++, Go, Java, JavaScript, Rust, Python): `declaration`,
    /// `canonical_solution`, a `task_id` whose prefix names the language, no `entry_point`.
    HumanEvalX,
    /// MBXP (C++, Java, JavaScript, TypeScript, Go, Python): `language`, `description`,
    /// `entry_point`, `prompt`, `test`, `canonical_solution` (null for some records).
    Mbxp,
}

impl Format {
    /// A benchmark file as published (HumanEval, MBPP, EvalPlus): built under the benchmark
    /// rule ([`crate::rules`]); execscope's own task file keeps the paper's.
    pub fn is_benchmark(self) -> bool {
        self != Format::Execscope
    }

    pub const ALL: [Format; 6] = [
        Format::Execscope,
        Format::HumanEval,
        Format::Mbpp,
        Format::EvalPlus,
        Format::HumanEvalX,
        Format::Mbxp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Execscope => "execscope",
            Format::HumanEval => "humaneval",
            Format::Mbpp => "mbpp",
            Format::EvalPlus => "evalplus",
            Format::HumanEvalX => "humaneval-x",
            Format::Mbxp => "mbxp",
        }
    }

    /// The format a record's fields say, if any.
    pub fn of_record(rec: &J) -> Option<Format> {
        let has = |k: &str| rec.get(k).is_some();
        if has("base_input") || has("plus_input") {
            Some(Format::EvalPlus)
        } else if has("declaration") && has("canonical_solution") && !has("entry_point") {
            Some(Format::HumanEvalX)
        } else if mbxp::is_record(&has) {
            Some(Format::Mbxp)
        } else if has("test") && has("entry_point") && has("prompt") {
            Some(Format::HumanEval)
        } else if has("test_list") {
            Some(Format::Mbpp)
        } else if ["canonical", "base_tests", "function_name", "tests", "query"]
            .iter()
            .any(|k| has(k))
        {
            Some(Format::Execscope)
        } else {
            None
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s.to_ascii_lowercase())
            .ok_or_else(|| {
                format!("unknown format {s:?}: expected humaneval, humaneval-x, mbpp, mbxp, evalplus or execscope")
            })
    }
}

/// One benchmark task, read: everything a build or an audit needs, tests as trusted Python.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// 1-based line of the record (of its first character, in a JSON array file).
    pub line: usize,
    pub task_id: String,
    /// The function under test.
    pub entry: String,
    /// The request in plain language.
    pub query: String,
    /// Benchmark text a generated completion is joined to (HumanEval's and EvalPlus's prompt);
    /// "" when candidates are whole programs.
    pub prompt: String,
    /// The reference program, as the benchmark runs it (prompt and solution joined).
    pub canonical: String,
    /// The base suite (HumanEval's `check` units, MBPP's `test_list`, EvalPlus's base inputs).
    pub base: Vec<String>,
    /// The added suite (MBPP's `challenge_test_list`, EvalPlus's plus inputs).
    pub plus: Vec<String>,
    /// What the reader left out of the suites, and why (e.g. an EvalPlus input whose reference
    /// output is too large to judge).
    pub notes: Vec<String>,
    /// The language of `canonical` (HumanEval-X: from the `task_id`'s prefix; else Python).
    pub language: execscope_record::Language,
    /// Per test (base, then plus), the reference's time on its input in ms (EvalPlus files,
    /// for EvalPlus's time convention); empty for other formats.
    pub reference_ms: Vec<u32>,
}

impl Problem {
    /// Every test: base, then plus.
    pub fn tests(&self) -> Vec<String> {
        self.base.iter().chain(&self.plus).cloned().collect()
    }
}

/// A record no problem could be made of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unread {
    pub line: usize,
    /// "" when the record has no readable `task_id`.
    pub task_id: String,
    pub reason: String,
}

/// A record as parsed: the line it starts on, and the value or why it is not JSON.
pub type Item = (usize, Result<J, String>);

/// The records of a benchmark file, parsed, with the line each starts on.
#[derive(Clone, Debug)]
pub struct Records {
    pub format: Format,
    pub items: Vec<Item>,
}

impl Records {
    /// Each record through `problem` (its line and value): the problems, and the records that
    /// are no JSON object or that `problem` refuses, each with its line, `task_id` and why.
    pub fn problems(
        &self,
        mut problem: impl FnMut(usize, &J) -> Result<Problem, String>,
    ) -> (Vec<Problem>, Vec<Unread>) {
        let mut out = Vec::new();
        let mut unread = Vec::new();
        for (line, rec) in &self.items {
            let got = match rec {
                Ok(r) => problem(*line, r).map_err(|e| (task_id(r).unwrap_or_default(), e)),
                Err(e) => Err((String::new(), e.clone())),
            };
            match got {
                Ok(p) => out.push(p),
                Err((task_id, reason)) => unread.push(Unread {
                    line: *line,
                    task_id,
                    reason,
                }),
            }
        }
        (out, unread)
    }
}

/// Most bytes a gzip-compressed file may decompress to (far above any benchmark; a bound so a
/// small bomb cannot exhaust memory).
pub const MAX_DECOMPRESSED: u64 = 1 << 31;

/// The bytes of a benchmark file: read as every input file is (regular file, bounded), and
/// decompressed when it starts with gzip's magic bytes.
pub fn file_bytes(path: &Path) -> Result<Vec<u8>, BundleError> {
    use std::io::Read;
    let bytes = execscope_core::bundle::files::read(path)?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(&bytes[..]).take(MAX_DECOMPRESSED + 1);
    dec.read_to_end(&mut out)
        .map_err(|e| BundleError::Invalid {
            path: path.to_path_buf(),
            detail: format!("is gzip-compressed but does not decompress: {e}"),
        })?;
    if out.len() as u64 > MAX_DECOMPRESSED {
        return Err(BundleError::Invalid {
            path: path.to_path_buf(),
            detail: format!("decompresses to more than {MAX_DECOMPRESSED} bytes; not read"),
        });
    }
    Ok(out)
}

/// The text of a benchmark file (UTF-8, byte-order mark ignored, gzip undone).
pub fn file_text(path: &Path) -> Result<String, BundleError> {
    let bytes = file_bytes(path)?;
    Ok(execscope_core::bundle::files::json_text(path, &bytes)?.to_string())
}

/// Parses `text` into records: one JSON array (a file whose first character is `[`), else one
/// record per non-blank line. A line that is not JSON is kept as an `Err` for its record.
pub fn parse_records(path: &Path, text: &str) -> Result<Vec<Item>, BundleError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let offset = text.len() - trimmed.len();
        let items = pyjson::parse_array_items(trimmed).map_err(|detail| BundleError::Field {
            path: path.to_path_buf(),
            line: 1,
            detail: format!("not a JSON array of records: {detail}"),
        })?;
        return Ok(items
            .into_iter()
            .map(|(at, v)| (line_of(text, offset + at), Ok(v)))
            .collect());
    }
    Ok(execscope_core::bundle::files::numbered_lines(text)
        .map(|(n, l)| (n, pyjson::parse(l)))
        .collect())
}

fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Reads a benchmark file and tells its format: `from` when given, else the first record that
/// is an object says (a file without one is read as execscope's own, whose reader refuses its
/// lines one by one). An unreadable file, or one whose first object has fields of no known
/// format, is an error naming the file, the line and what to do.
pub fn read_records(path: &Path, from: Option<Format>) -> Result<Records, BundleError> {
    let text = file_text(path)?;
    let items = parse_records(path, &text)?;
    let format = match from {
        Some(f) => f,
        None => detect(path, &items)?.unwrap_or(Format::Execscope),
    };
    Ok(Records { format, items })
}

fn detect(path: &Path, items: &[Item]) -> Result<Option<Format>, BundleError> {
    let Some((line, rec)) = items.iter().find_map(|(n, r)| {
        r.as_ref()
            .ok()
            .filter(|j| matches!(j, J::Obj(_)))
            .map(|j| (*n, j))
    }) else {
        return Ok(None);
    };
    Format::of_record(rec).map(Some).ok_or_else(|| {
        let J::Obj(m) = rec else { unreachable!() };
        let keys: Vec<String> = m.iter().take(8).map(|(k, _)| pyjson::text_of(k)).collect();
        BundleError::Field {
            path: path.to_path_buf(),
            line,
            detail: format!(
                "cannot tell the format from this record's fields ({}); name it with --from \
                 humaneval|humaneval-x|mbpp|mbxp|evalplus|execscope",
                keys.join(", ")
            ),
        }
    })
}

/// A record's string field, or why not.
pub(crate) fn field(rec: &J, key: &str) -> Result<String, String> {
    match rec.get(key) {
        None => Err(format!("missing field `{key}`")),
        Some(J::Str(s)) => Ok(pyjson::text_of(s)),
        Some(v) => Err(format!("field `{key}` must be a string, got {}", v.kind())),
    }
}

/// A record's list-of-strings field (absent: `None`), or why not.
pub(crate) fn string_list(rec: &J, key: &str) -> Result<Option<Vec<String>>, String> {
    match rec.get(key) {
        None | Some(J::Null) => Ok(None),
        Some(J::Arr(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_text().ok_or_else(|| {
                    format!("`{key}` item {} must be a string, got {}", i + 1, v.kind())
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(v) => Err(format!(
            "field `{key}` must be a list of strings, got {}",
            v.kind()
        )),
    }
}

/// A record's `task_id` as text: a string as it is, an integer as its digits.
pub(crate) fn task_id(rec: &J) -> Option<String> {
    match rec.get("task_id")? {
        J::Str(s) => Some(pyjson::text_of(s)),
        J::Num(n) => Some(n.clone()),
        _ => None,
    }
}

/// Python source with Windows line endings made `\n` (MBPP's code has `\r\n`; Python reads both
/// alike, so nothing the tests see changes).
pub(crate) fn unix_lines(src: &str) -> String {
    src.replace("\r\n", "\n")
}

/// The problems of a benchmark file in one of the formats that need no execution to read
/// (HumanEval, MBPP), with the records that could not be read. EvalPlus needs its reference
/// outputs first ([`evalplus::read`]); execscope's own file has its own reader.
pub fn problems(records: &Records) -> (Vec<Problem>, Vec<Unread>) {
    let mut out = Vec::new();
    let mut unread = Vec::new();
    for (line, rec) in &records.items {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                unread.push(Unread {
                    line: *line,
                    task_id: String::new(),
                    reason: e.clone(),
                });
                continue;
            }
        };
        let got = match records.format {
            Format::HumanEval => humaneval::problem(*line, rec),
            Format::Mbpp => mbpp::problem(*line, rec),
            Format::EvalPlus | Format::Execscope | Format::HumanEvalX | Format::Mbxp => {
                Err(format!("a {} record needs its own reader", records.format))
            }
        };
        match got {
            Ok(p) => out.push(p),
            Err(reason) => unread.push(Unread {
                line: *line,
                task_id: task_id(rec).unwrap_or_default(),
                reason,
            }),
        }
    }
    (out, unread)
}
