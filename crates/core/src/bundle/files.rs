//! Reading bundle files: whole-file reads with Git LFS detection, JSON Lines with line-accurate
//! errors, typed field access, and the `SHA256SUMS` manifest.

use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::BundleError;
use super::model::sha256_hex;

pub const QUERIES: &str = "data/queries.jsonl";
pub const CORPUS: &str = "data/corpus.jsonl";
pub const DISTRACTORS: &str = "data/distractor_metadata.jsonl";
pub const CACHE: &str = "data/execution_cache.jsonl";
pub const EMBEDDINGS: &str = "embeddings";
pub const INVOCATION: &str = "results/invocation_table.json";
pub const SUMS: &str = "SHA256SUMS";

const LFS_MAGIC: &[u8] = b"version https://git-lfs";

/// What kind of thing a path is, for messages refusing anything but a regular file.
fn file_kind(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// A whole file's bytes: memory-mapped when large (no copy into the process), read otherwise.
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// Files at least this large are mapped by [`map`].
const MAP_FROM: u64 = 1 << 20;

/// [`read`] for large matrix files: the same checks (a regular file, opened without blocking,
/// a Git LFS pointer refused), but the bytes are mapped read-only instead of copied, so hashing
/// and decoding read the page cache directly. The mapping covers the size the file had when
/// opened. Small files are read.
pub fn map(path: &Path) -> Result<FileBytes, BundleError> {
    let file = open_regular(path)?;
    let len = file.metadata().map_err(|e| BundleError::io(path, e))?.len();
    if len < MAP_FROM {
        return read(path).map(FileBytes::Read);
    }
    // SAFETY: the mapping is read-only and private to this process; the bundle's files are not
    // written while it is loaded (a file cut short under the mapping would fault, as `read`
    // of a file cut short would fail).
    let m = unsafe {
        memmap2::MmapOptions::new()
            .len(len as usize)
            .populate()
            .map(&file)
    }
    .map_err(|e| BundleError::io(path, e))?;
    if m.starts_with(LFS_MAGIC) {
        return Err(BundleError::GitLfsPointer {
            path: path.to_path_buf(),
        });
    }
    Ok(FileBytes::Mapped(m))
}

/// Open a regular file without blocking (refusing anything else, also if it was swapped for a
/// FIFO or device between the check and the open).
fn open_regular(path: &Path) -> Result<std::fs::File, BundleError> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(BundleError::Missing {
                path: path.to_path_buf(),
            })
        }
        Err(e) => return Err(BundleError::io(path, e)),
    };
    if !meta.is_file() {
        return Err(BundleError::Refused {
            path: path.to_path_buf(),
            detail: format!("is {}, not a regular file", file_kind(&meta)),
        });
    }
    // O_NONBLOCK: should the path have been swapped for a FIFO since the check, opening it does
    // not wait for a writer; the type is checked again on the open handle.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| BundleError::io(path, e))?;
    let meta = file.metadata().map_err(|e| BundleError::io(path, e))?;
    if !meta.is_file() {
        return Err(BundleError::Refused {
            path: path.to_path_buf(),
            detail: format!("is {}, not a regular file", file_kind(&meta)),
        });
    }
    Ok(file)
}

/// Read a whole regular file, never more than the size it had when opened; a Git LFS pointer is
/// an error of its own. Directories, FIFOs, devices and sockets are refused without being opened
/// (`/dev/zero` is never read), and a file that grows while read (or a `/proc` file, whose size
/// is reported as 0) is refused instead of being read without bound.
pub fn read(path: &Path) -> Result<Vec<u8>, BundleError> {
    use std::io::Read;
    let file = open_regular(path)?;
    let meta = file.metadata().map_err(|e| BundleError::io(path, e))?;
    let len = meta.len();
    let mut bytes = Vec::with_capacity(len.min(1 << 30) as usize);
    file.take(len.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| BundleError::io(path, e))?;
    if bytes.len() as u64 > len {
        return Err(BundleError::Refused {
            path: path.to_path_buf(),
            detail: format!(
                "holds more than the {len} bytes its size says (a growing or special file); not read further"
            ),
        });
    }
    if bytes.starts_with(LFS_MAGIC) {
        return Err(BundleError::GitLfsPointer {
            path: path.to_path_buf(),
        });
    }
    Ok(bytes)
}

/// Why a path named by a bundle may not be used, or the path to read. `rel` must be relative,
/// free of `..`, and resolve (after every symbolic link is followed) to a regular file inside
/// the bundle root. Nothing is opened: only `stat` and `readlink` are used.
pub fn confine(root: &Path, rel: &str) -> Result<PathBuf, ConfineError> {
    use std::path::Component;
    if rel.is_empty() {
        return Err(ConfineError::Refused("the path is empty".into()));
    }
    if rel.contains('\0') {
        return Err(ConfineError::Refused("the path contains a NUL byte".into()));
    }
    let p = Path::new(rel);
    for c in p.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => {
                return Err(ConfineError::Refused(format!(
                    "{rel:?} is an absolute path; a bundle names its files relative to its root"
                )))
            }
            Component::ParentDir => {
                return Err(ConfineError::Refused(format!(
                    "{rel:?} contains `..`; a bundle may not name files outside its root"
                )))
            }
            _ => {}
        }
    }
    let joined = root.join(p);
    match std::fs::symlink_metadata(&joined) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ConfineError::Missing),
        Err(e) => return Err(ConfineError::Refused(format!("{rel:?}: {e}"))),
        Ok(_) => {}
    }
    let canon_root = root
        .canonicalize()
        .map_err(|e| ConfineError::Refused(format!("bundle root: {e}")))?;
    let canon = match joined.canonicalize() {
        Ok(c) => c,
        // A dangling symbolic link.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ConfineError::Missing),
        Err(e) => return Err(ConfineError::Refused(format!("{rel:?}: {e}"))),
    };
    if !canon.starts_with(&canon_root) {
        return Err(ConfineError::Refused(format!(
            "{rel:?} resolves (through a symbolic link) to {}, outside the bundle root",
            canon.display()
        )));
    }
    let meta =
        std::fs::metadata(&canon).map_err(|e| ConfineError::Refused(format!("{rel:?}: {e}")))?;
    if !meta.is_file() {
        return Err(ConfineError::Refused(format!(
            "{rel:?} is {}, not a regular file",
            file_kind(&meta)
        )));
    }
    Ok(canon)
}

/// Why [`confine`] refused a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfineError {
    /// Nothing (or a dangling link) at that path.
    Missing,
    /// The path leaves the bundle or is not a regular file; the text says which.
    Refused(String),
}

/// Read the bundle file `rel` (a fixed name such as `data/queries.jsonl` or a name the bundle
/// lists), confined to `root` as [`confine`] describes and bounded as [`read`] describes.
pub fn read_in(root: &Path, rel: &str) -> Result<Vec<u8>, BundleError> {
    match confine(root, rel) {
        Ok(p) => read(&p).map_err(|e| match e {
            // Name the file as the bundle names it, not as it resolved.
            BundleError::Refused { detail, .. } => BundleError::Refused {
                path: root.join(rel),
                detail,
            },
            other => other,
        }),
        Err(ConfineError::Missing) => Err(BundleError::Missing {
            path: root.join(rel),
        }),
        Err(ConfineError::Refused(detail)) => Err(BundleError::Refused {
            path: root.join(rel),
            detail,
        }),
    }
}

/// The text of a JSON or JSON Lines file: UTF-8 (an invalid byte is an error naming its line
/// and column), without the byte-order mark some Windows tools write, which is not part of the
/// first record. Every JSON file execscope reads goes through here, so all treat a BOM alike.
pub fn json_text<'b>(path: &Path, bytes: &'b [u8]) -> Result<&'b str, BundleError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = good.len() - good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        BundleError::field(
            path,
            line,
            format!(
                "not valid UTF-8 (byte {} at column {column})",
                e.valid_up_to()
            ),
        )
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// One parsed JSON Lines row: its 1-based line number and its object.
pub struct Row {
    pub line: usize,
    pub obj: Map<String, Value>,
}

/// Parse JSON Lines. Blank lines are skipped. A last line without its newline that fails to
/// parse at end of input is reported as truncation; any other failure as invalid JSON at
/// line:column.
pub fn jsonl(path: &Path, bytes: &[u8]) -> Result<Vec<Row>, BundleError> {
    let text = json_text(path, bytes)?;
    let ends_with_newline = text.ends_with('\n');
    let last = text.lines().count();
    let lines: Vec<(usize, &str)> = numbered_lines(text).collect();
    let parsed: Vec<Result<Option<Row>, BundleError>> = lines
        .par_iter()
        .map(|&(line, raw)| match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(obj)) => Ok(Some(Row { line, obj })),
            Ok(other) => Err(BundleError::field(
                path,
                line,
                format!("expected a JSON object, found {}", json_kind(&other)),
            )),
            Err(e) if e.is_eof() && line == last && !ends_with_newline => {
                Err(BundleError::Truncated {
                    path: path.to_path_buf(),
                    line,
                    detail: e.to_string(),
                })
            }
            Err(e) => Err(BundleError::InvalidJson {
                path: path.to_path_buf(),
                line,
                column: e.column(),
                detail: e.to_string(),
            }),
        })
        .collect();
    let mut rows = Vec::with_capacity(parsed.len());
    for r in parsed {
        if let Some(row) = r? {
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The non-blank lines of a JSON Lines text with their 1-based line numbers (`\r\n` endings
/// allowed): the one numbering every JSON Lines reader (bundle files, task files, pools) uses, so
/// the line a message names is the line an editor shows.
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// What a JSON value is, in words for messages (`a string`, `an array`, `null`, …).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Typed access to a row's fields with messages naming file, line and key.
pub struct Fields<'a> {
    pub path: &'a Path,
    pub row: &'a mut Row,
}

impl Fields<'_> {
    fn err(&self, detail: String) -> BundleError {
        BundleError::field(self.path, self.row.line, detail)
    }

    /// Remove and return a required string field.
    pub fn string(&mut self, key: &str) -> Result<String, BundleError> {
        match self.row.obj.remove(key) {
            Some(Value::String(s)) => Ok(s),
            Some(v) => Err(self.err(format!(
                "field `{key}` must be a string, found {}",
                json_kind(&v)
            ))),
            None => Err(self.err(format!("missing field `{key}`"))),
        }
    }

    /// Remove an optional string field (absent and null read as "").
    pub fn opt_string(&mut self, key: &str) -> Result<Option<String>, BundleError> {
        match self.row.obj.remove(key) {
            Some(Value::String(s)) => Ok(Some(s)),
            Some(Value::Null) | None => Ok(None),
            Some(v) => Err(self.err(format!(
                "field `{key}` must be a string, found {}",
                json_kind(&v)
            ))),
        }
    }

    /// Remove the optional `language` field: absent, `null` or `""` is Python; a name no
    /// [`Language`](execscope_record::Language) has is refused, naming the known ones.
    pub fn language(&mut self) -> Result<execscope_record::Language, BundleError> {
        match self.opt_string("language")? {
            None => Ok(execscope_record::Language::default()),
            Some(s) if s.is_empty() => Ok(execscope_record::Language::default()),
            Some(s) => s
                .parse()
                .map_err(|e: execscope_record::language::UnknownLanguage| {
                    self.err(format!("field `language`: {e}"))
                }),
        }
    }

    /// Remove a required list of strings.
    pub fn strings(&mut self, key: &str) -> Result<Vec<String>, BundleError> {
        match self.row.obj.remove(key) {
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s),
                    v => Err(self.err(format!(
                        "field `{key}` item {i} must be a string, found {}",
                        json_kind(&v)
                    ))),
                })
                .collect(),
            Some(v) => Err(self.err(format!(
                "field `{key}` must be a list, found {}",
                json_kind(&v)
            ))),
            None => Err(self.err(format!("missing field `{key}`"))),
        }
    }

    /// Remove an optional value.
    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.row.obj.remove(key)
    }
}

/// Parse `SHA256SUMS` (`<hex>  <path>` or `<hex> *<path>`), returning (path, hex, line).
pub fn parse_sums(path: &Path, bytes: &[u8]) -> Result<Vec<(String, String, usize)>, BundleError> {
    let text = std::str::from_utf8(bytes).map_err(|_| BundleError::field(path, 1, "not UTF-8"))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (hex, rest) = line.split_once(' ').ok_or_else(|| {
            BundleError::field(
                path,
                i + 1,
                format!("not a `<sha256>  <file>` line: {line:?}"),
            )
        })?;
        let name = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('*'))
            .unwrap_or(rest);
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(BundleError::field(
                path,
                i + 1,
                format!("bad digest {hex:?}"),
            ));
        }
        let name = name.trim_start_matches("./").to_string();
        out.push((name, hex.to_ascii_lowercase(), i + 1));
    }
    Ok(out)
}

/// Verify every `SHA256SUMS` entry (in parallel); returns one problem string per missing or
/// mismatching file, each naming it.
pub fn verify_sums(root: &Path) -> Result<Vec<String>, BundleError> {
    verify_sums_with(root, &BTreeMap::new())
}

/// As [`verify_sums`], reusing digests already computed (`known`, by bundle-relative path) so a
/// loader that hashed what it read does not hash it twice.
pub fn verify_sums_with(
    root: &Path,
    known: &BTreeMap<String, String>,
) -> Result<Vec<String>, BundleError> {
    let sums_path = root.join(SUMS);
    let bytes = read_in(root, SUMS)?;
    let entries = parse_sums(&sums_path, &bytes)?;
    let problems: Vec<String> = entries
        .par_iter()
        .filter_map(|(name, want, line)| {
            // Every entry is confined first, even one the loader read: the manifest may not
            // name anything outside the bundle.
            let path = match confine(root, name) {
                Ok(p) => p,
                Err(ConfineError::Missing) => {
                    return Some(format!("{SUMS}:{line}: {name}: listed but missing"))
                }
                Err(ConfineError::Refused(why)) => {
                    return Some(format!("{SUMS}:{line}: entry refused: {why}"))
                }
            };
            let got = match known.get(name) {
                Some(h) => h.clone(),
                None => match read(&path) {
                    Err(e) => return Some(format!("{SUMS}:{line}: {name}: {e}")),
                    Ok(b) => sha256_hex(&b),
                },
            };
            (got != *want).then(|| format!("{SUMS}:{line}: {name}: sha256 {got}, expected {want}"))
        })
        .collect();
    Ok(problems)
}

/// Every regular file under `root`, as sorted bundle-relative paths with `/` separators.
pub fn list_files(root: &Path) -> Result<Vec<String>, BundleError> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), BundleError> {
        let rd = std::fs::read_dir(dir).map_err(|e| BundleError::io(dir, e))?;
        for entry in rd {
            let entry = entry.map_err(|e| BundleError::io(dir, e))?;
            let p: PathBuf = entry.path();
            // Hidden entries (`.git`, editor files, our own `.tmp*` files) are not bundle data.
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let ft = entry.file_type().map_err(|e| BundleError::io(&p, e))?;
            if ft.is_dir() {
                walk(root, &p, out)?;
            } else if ft.is_file() {
                if let Ok(rel) = p.strip_prefix(root) {
                    let parts: Vec<String> = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    out.push(parts.join("/"));
                }
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, root, &mut out)?;
    out.sort();
    Ok(out)
}

/// After execscope itself changed one file of a bundle (e.g. appended execution-cache rows), put
/// that file's new digest into `SHA256SUMS`, when the bundle has one, so the next load verifies.
/// Other entries are kept as they are; the manifest is rewritten atomically.
pub fn refresh_sum(root: &Path, rel: &str) -> Result<(), BundleError> {
    let sums_path = root.join(SUMS);
    if !sums_path.exists() {
        return Ok(());
    }
    let bytes = read_in(root, SUMS)?;
    let mut entries = parse_sums(&sums_path, &bytes)?;
    let digest = sha256_hex(&read_in(root, rel)?);
    match entries.iter_mut().find(|(name, _, _)| name == rel) {
        Some(e) => e.1 = digest,
        None => entries.push((rel.to_string(), digest, 0)),
    }
    let entries: Vec<(String, String)> = entries.into_iter().map(|(n, h, _)| (n, h)).collect();
    write_sums(root, &entries)
}

/// The one writer of `SHA256SUMS`: `(path, hex digest)` entries, sorted by path, one
/// `<hex>  <path>` line each, written atomically.
pub fn write_sums(root: &Path, entries: &[(String, String)]) -> Result<(), BundleError> {
    let sums_path = root.join(SUMS);
    let mut sorted: Vec<&(String, String)> = entries.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let text: String = sorted
        .iter()
        .map(|(name, hex)| format!("{hex}  {name}\n"))
        .collect();
    execscope_record::atomic::write_atomic(&sums_path, text.as_bytes()).map_err(|e| {
        BundleError::Io {
            path: sums_path.clone(),
            source: e,
        }
    })
}
