//! The toolchains of the candidate languages other than Python, found once per process: what the
//! harness runs to build and start a program (`execscope_oracle/toolchains.py`), the directories
//! that must be readable inside every sandbox root for that (a rustup toolchain under `/root`,
//! the `/etc` files a Debian JDK links to), and each toolchain's version for the runner string.
//! A language whose toolchain is missing is refused per pair, by name, with how to install it.

use execscope_record::Language;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// One language's toolchain: the paths the harness's recipe reads (a JSON object) and what must
/// be visible in the sandbox for them.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub language: Language,
    /// The recipe's settings (`cxx`, `rustc`, `home`, `goroot`, `node`, `typescript`).
    pub settings: serde_json::Value,
    /// Directories the toolchain needs that may lie outside the system directories.
    pub roots: Vec<PathBuf>,
    /// The command whose first line of output names the version.
    version_cmd: Vec<PathBuf>,
}

/// Every language's toolchain found on this machine (Python's is the oracle's interpreter).
#[derive(Clone, Debug, Default)]
pub struct Toolchains {
    pub found: Vec<Toolchain>,
    /// Why a language has none, for the refusal.
    pub missing: Vec<(Language, String)>,
}

impl Toolchains {
    pub fn get(&self, language: Language) -> Option<&Toolchain> {
        self.found.iter().find(|t| t.language == language)
    }

    /// The recipes' settings by language, for the harness's configuration.
    pub fn settings(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for t in &self.found {
            m.insert(t.language.as_str().to_string(), t.settings.clone());
        }
        serde_json::Value::Object(m)
    }

    /// Every directory a toolchain needs, once each, none inside another.
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = self.found.iter().flat_map(|t| t.roots.clone()).collect();
        all.sort();
        all.dedup();
        let keep: Vec<PathBuf> = all
            .iter()
            .filter(|p| !all.iter().any(|q| q != *p && p.starts_with(q)))
            .cloned()
            .collect();
        keep
    }

    /// Why `language` cannot run here (None: it can).
    pub fn why_missing(&self, language: Language) -> Option<&str> {
        self.missing
            .iter()
            .find(|(l, _)| *l == language)
            .map(|(_, w)| w.as_str())
    }
}

/// The toolchains of this machine, found on first use.
pub fn toolchains() -> &'static Toolchains {
    static T: OnceLock<Toolchains> = OnceLock::new();
    T.get_or_init(discover)
}

/// A program's path on `PATH` (the caller's, then `/usr/bin:/bin`), as found (a rustup proxy
/// must keep its name).
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    for dir in path
        .split(':')
        .chain(["/usr/bin", "/bin", "/usr/local/bin"])
    {
        let p = Path::new(dir).join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    None
}

/// A program's real path (links resolved): where its installation is.
fn real(name: &str) -> Option<PathBuf> {
    which(name).and_then(|p| std::fs::canonicalize(p).ok())
}

/// The first line a command prints (stdout, else stderr), within a few seconds.
fn first_line(cmd: &[PathBuf], arg: &str) -> Option<String> {
    let mut c = Command::new(cmd.first()?);
    c.args(&cmd[1..])
        .arg(arg)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = c.spawn().ok()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = rx.recv_timeout(Duration::from_secs(20)).ok()?.ok()?;
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    let s = String::from_utf8_lossy(&text)
        .lines()
        .next()?
        .trim()
        .to_string();
    (!s.is_empty()).then_some(s)
}

const INSTALL: &str = "apt-get install -y";

fn discover() -> Toolchains {
    let mut t = Toolchains::default();
    let mut add = |r: Result<Toolchain, (Language, String)>| match r {
        Ok(x) => t.found.push(x),
        Err(m) => t.missing.push(m),
    };
    add(cpp());
    add(rust());
    add(java());
    add(go());
    add(node(Language::JavaScript));
    add(node(Language::TypeScript));
    t
}

fn cpp() -> Result<Toolchain, (Language, String)> {
    let cxx = std::env::var_os("EXECSCOPE_CXX")
        .map(PathBuf::from)
        .or_else(|| real("g++"))
        .ok_or((
            Language::Cpp,
            format!("no g++ on PATH ({INSTALL} g++, or set EXECSCOPE_CXX)"),
        ))?;
    let mut settings = serde_json::json!({ "cxx": cxx, "std_header": super::pch::std_header() });
    let mut roots = vec![root_of(&cxx, 2)];
    // The stub's standard headers precompiled once per machine, outside any sandbox, and
    // visible read-only in every root (crates/oracle/src/pch.rs).
    let version = first_line(std::slice::from_ref(&cxx), "--version").unwrap_or_default();
    if let Some(dir) = super::pch::precompiled(&cxx, &version) {
        settings["pch"] = serde_json::json!(dir.join(super::pch::HEADER));
        roots.push(dir);
    }
    Ok(Toolchain {
        language: Language::Cpp,
        settings,
        roots,
        version_cmd: vec![cxx],
    })
}

/// The directory `levels` above `p` (`/usr/bin/g++` at 2: `/usr`).
fn root_of(p: &Path, levels: usize) -> PathBuf {
    let mut r = p.to_path_buf();
    for _ in 0..levels {
        if let Some(up) = r.parent() {
            r = up.to_path_buf();
        }
    }
    r
}

fn rust() -> Result<Toolchain, (Language, String)> {
    let miss = |why: &str| (Language::Rust, why.to_string());
    // rustup's `rustc` is a proxy that picks a toolchain from the environment and the working
    // directory: the real compiler is the sysroot's, asked for once (from `/`).
    let rustc = std::env::var_os("EXECSCOPE_RUSTC")
        .map(PathBuf::from)
        .or_else(|| which("rustc"))
        .ok_or(miss(
            "no rustc on PATH (https://rustup.rs, or set EXECSCOPE_RUSTC)",
        ))?;
    let sysroot = first_line(std::slice::from_ref(&rustc), "--print=sysroot")
        .map(PathBuf::from)
        .filter(|p| p.join("bin/rustc").is_file())
        .ok_or(miss("rustc --print=sysroot names no toolchain"))?;
    let rustc = sysroot.join("bin/rustc");
    // The linker by its real path: `cc` is a link into /etc/alternatives on Debian, which no
    // sandbox root holds.
    let linker = real("cc").ok_or(miss("no C linker `cc` on PATH (apt-get install -y gcc)"))?;
    let mut settings = serde_json::json!({ "rustc": rustc, "sysroot": sysroot, "linker": linker });
    let mut roots = vec![sysroot, root_of(&linker, 2)];
    // The stub compiled once per machine as a library, outside any sandbox, visible read-only
    // in every root (crates/oracle/src/pch.rs).
    let version = first_line(std::slice::from_ref(&rustc), "--version").unwrap_or_default();
    if let Some(dir) = super::pch::rust_stub(&rustc, &version) {
        settings["stub_rlib"] = serde_json::json!(dir.join(super::pch::RUST_RLIB));
        roots.push(dir);
    }
    Ok(Toolchain {
        language: Language::Rust,
        settings,
        roots,
        version_cmd: vec![rustc],
    })
}

fn java() -> Result<Toolchain, (Language, String)> {
    let javac = std::env::var_os("EXECSCOPE_JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/javac"))
        .or_else(|| real("javac"))
        .filter(|p| p.is_file())
        .ok_or((
            Language::Java,
            format!(
                "no javac on PATH ({INSTALL} default-jdk-headless, or set EXECSCOPE_JAVA_HOME)"
            ),
        ))?;
    let home = root_of(&javac, 2);
    let mut roots = vec![home.clone()];
    // A Debian JDK's configuration (`lib/jvm.cfg`, `conf/...`) links into /etc/java-*.
    for sub in ["lib", "conf", "conf/security"] {
        let Ok(rd) = std::fs::read_dir(home.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            if let Ok(target) = std::fs::read_link(e.path()) {
                let mut c = target.components();
                if target.is_absolute() && target.starts_with("/etc") {
                    c.next();
                    c.next();
                    if let Some(d) = c.next() {
                        roots.push(Path::new("/etc").join(d.as_os_str()));
                    }
                }
            }
        }
    }
    Ok(Toolchain {
        language: Language::Java,
        settings: serde_json::json!({ "home": home }),
        roots,
        version_cmd: vec![home.join("bin/java")],
    })
}

fn go() -> Result<Toolchain, (Language, String)> {
    let go = std::env::var_os("EXECSCOPE_GOROOT")
        .map(|h| PathBuf::from(h).join("bin/go"))
        .or_else(|| real("go"))
        .filter(|p| p.is_file())
        .ok_or((
            Language::Go,
            format!("no go on PATH ({INSTALL} golang-go, or set EXECSCOPE_GOROOT)"),
        ))?;
    let goroot = root_of(&go, 2);
    Ok(Toolchain {
        language: Language::Go,
        settings: serde_json::json!({ "goroot": goroot }),
        roots: vec![goroot],
        version_cmd: vec![go, PathBuf::from("version")],
    })
}

fn node(language: Language) -> Result<Toolchain, (Language, String)> {
    let node = std::env::var_os("EXECSCOPE_NODE")
        .map(PathBuf::from)
        .or_else(|| real("node"))
        .ok_or((
            language,
            format!("no node on PATH ({INSTALL} nodejs, or set EXECSCOPE_NODE)"),
        ))?;
    let mut roots = vec![root_of(&node, 2)];
    let mut settings = serde_json::json!({ "node": node });
    if language == Language::TypeScript {
        // The `typescript` package (its `transpileModule`), installed globally beside node.
        let ts = std::env::var_os("EXECSCOPE_TYPESCRIPT")
            .map(PathBuf::from)
            .or_else(|| {
                [root_of(&node, 2).join("lib/node_modules/typescript")]
                    .into_iter()
                    .chain([PathBuf::from("/usr/local/lib/node_modules/typescript")])
                    .find(|p| p.join("package.json").is_file())
            })
            .ok_or((
                language,
                "no typescript package beside node (npm install -g typescript, or set \
                 EXECSCOPE_TYPESCRIPT to its directory)"
                    .to_string(),
            ))?;
        roots.push(ts.clone());
        settings["typescript"] = serde_json::json!(ts);
    }
    Ok(Toolchain {
        language,
        settings,
        roots,
        version_cmd: vec![node],
    })
}

impl Toolchain {
    /// The toolchain's version line (`g++ (Debian 12.2.0-14) 12.2.0`, `rustc 1.95.0 ...`).
    pub fn version(&self) -> String {
        static CACHE: OnceLock<std::sync::Mutex<Vec<(Language, String)>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some((_, v)) = cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(l, _)| *l == self.language)
        {
            return v.clone();
        }
        let (cmd, arg) = match self.language {
            Language::Go => (&self.version_cmd[..1], "version"),
            Language::Java => (&self.version_cmd[..], "-version"),
            _ => (&self.version_cmd[..], "--version"),
        };
        let mut v = first_line(cmd, arg).unwrap_or_else(|| "unknown version".into());
        if self.language == Language::TypeScript {
            let pkg = self.settings["typescript"].as_str().unwrap_or("");
            let ts = std::fs::read_to_string(Path::new(pkg).join("package.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|j| j["version"].as_str().map(String::from))
                .unwrap_or_else(|| "?".into());
            v = format!("node {v}, typescript {ts}");
        }
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((self.language, v.clone()));
        v
    }
}

/// The flags a language's program is built and run with, in words (the runner string; the
/// recipes are `execscope_oracle/toolchains.py`).
pub fn build_flags(language: Language) -> &'static str {
    match language {
        Language::Python => "",
        Language::Cpp => {
            "g++ -O0, the stub's standard headers first (precompiled), the candidate's main renamed"
        }
        Language::Rust => {
            "rustc --edition 2021 -C opt-level=0 (overflow checks on), the candidate in a module"
        }
        Language::Java => {
            "javac -proc:none, java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
        }
        Language::Go => "go build (GO111MODULE=off, CGO_ENABLED=0), the candidate's main renamed",
        Language::JavaScript => "node, the candidate a classic script",
        Language::TypeScript => "typescript's transpileModule (syntax only), then node",
    }
}
