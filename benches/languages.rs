//! Each candidate language through the oracle against its toolchain's own cold compile+run, the
//! floor, measured in the same run (issue 44 item 6: per candidate within 2x of that floor).
//!
//! Workload: HumanEval/53 (`add`), the correct program of the red team
//! (`tests/fixtures/redteam/<language>/honest.*`, as HumanEval-X writes it), in every language
//! whose toolchain is here, and Python's canonical solution beside them.
//!
//! - **the floor**: the same program with a native `main` (HumanEval-X's way: the test compiled
//!   into the program) built and run with the same compiler, flags and runtime options the oracle's
//!   recipe uses (`execscope_oracle/toolchains.py`), with no sandbox, no stub and no judge, in a
//!   fresh directory each time (Go with an empty build cache, as a pair has);
//!   TypeScript is transpiled by the same `transpileModule` in the node process that runs it;
//! - **the oracle**: `Oracle::run_job` of the program with the test `assert add(2, 3) == 5`, one
//!   worker, so each job is one pair child building and running it inside the level's
//!   confinement (`EXECSCOPE_ORACLE_LEVEL`, default `auto`: the strongest that works).
//!
//! The two alternate, `EXECSCOPE_BENCH_ROUNDS` times (default 7) per language; the bench prints
//! the median and the minimum wall time of each and the ratio of the medians. The bench fails
//! when the floor's program or the oracle's job does not pass.
//! Run: `cargo bench --bench languages` (`EXECSCOPE_BENCH_LANGUAGES=cpp,rust` for some languages
//! alone; `EXECSCOPE_PRECOMPILED=1` for the C++ and Rust stubs precompiled once per machine, off by
//! default: without it each pair compiles them from their text).

use execscope::oracle::{Job, Oracle, OracleConfig, Outcome};
use execscope::record::Language;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The program of `language`: HumanEval/53 as HumanEval-X writes it.
fn program(language: Language) -> String {
    if language.is_python() {
        return "def add(x: int, y: int):\n    return x + y\n".into();
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/redteam")
        .join(language.as_str());
    let ext = match language {
        Language::Cpp => "cpp",
        Language::Rust => "rs",
        Language::Go => "go",
        Language::Java => "java",
        Language::JavaScript => "js",
        Language::TypeScript => "ts",
        Language::Python => unreachable!(),
    };
    std::fs::read_to_string(dir.join(format!("honest.{ext}"))).expect("the honest program")
}

fn entry(language: Language) -> &'static str {
    if language == Language::Go {
        "Add"
    } else {
        "add"
    }
}

/// The flags of the oracle's JVM (`toolchains.py`'s `JVM_FLAGS`).
const JVM_FLAGS: &[&str] = &[
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:MaxMetaspaceSize=128m",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:TieredStopAtLevel=1",
    "-XX:CICompilerCount=1",
    "-Xshare:auto",
    "-XX:-UsePerfData",
];

/// The first line `cmd` prints.
fn output(cmd: &mut Command) -> String {
    let out = cmd.output().expect("a toolchain command");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Runs a step of the floor; panics when it fails (the floor must pass).
fn step(cmd: &mut Command) {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The floor's commands for `language` in `dir`: the program and a native test written, then
/// built and run (timed by the caller).
fn floor(language: Language, code: &str, dir: &Path) {
    let w = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    let exe = dir.join("prog");
    match language {
        Language::Python => {
            w("prog.py", format!("{code}\nassert add(2, 3) == 5\n"));
            step(Command::new("python3").arg("-I").arg(dir.join("prog.py")));
        }
        Language::Cpp => {
            w(
                "prog.cpp",
                format!("{code}\nint main() {{ return add(2, 3) == 5 ? 0 : 1; }}\n"),
            );
            step(
                Command::new("g++")
                    .args(["-O0", "-w", "-o"])
                    .arg(&exe)
                    .arg(dir.join("prog.cpp")),
            );
            step(&mut Command::new(&exe));
        }
        Language::Rust => {
            w(
                "prog.rs",
                format!("{code}\nfn main() {{ assert_eq!(add(2, 3), 5); }}\n"),
            );
            let sysroot = output(Command::new("rustc").arg("--print=sysroot"));
            step(
                Command::new(Path::new(&sysroot).join("bin/rustc"))
                    .args(["--edition", "2021", "--cap-lints", "allow"])
                    .args(["-C", "opt-level=0", "-C", "debuginfo=0", "-C"])
                    .args(["strip=debuginfo", "-o"])
                    .arg(&exe)
                    .arg(dir.join("prog.rs")),
            );
            step(&mut Command::new(&exe));
        }
        Language::Go => {
            w(
                "main.go",
                format!("{code}\nfunc main() {{ if Add(2, 3) != 5 {{ panic(\"wrong\") }} }}\n"),
            );
            step(
                Command::new("go")
                    .args(["build", "-o"])
                    .arg(&exe)
                    .args(["-ldflags=-s -w", "main.go"])
                    .current_dir(dir)
                    .env("GOCACHE", dir.join("gocache"))
                    .env("GOPATH", dir.join("gopath"))
                    .env("GO111MODULE", "off")
                    .env("CGO_ENABLED", "0")
                    .env("GOFLAGS", ""),
            );
            step(&mut Command::new(&exe));
        }
        Language::Java => {
            w(
                "Main.java",
                format!(
                    "{code}\npublic class Main {{ public static void main(String[] a) {{ \
                     if (new Solution().add(2, 3) != 5) System.exit(1); }} }}\n"
                ),
            );
            let out = dir.join("classes");
            step(
                Command::new("javac")
                    .args(JVM_FLAGS.iter().map(|f| format!("-J{f}")))
                    .args([
                        "-encoding",
                        "UTF-8",
                        "-nowarn",
                        "-proc:none",
                        "-g:none",
                        "-d",
                    ])
                    .arg(&out)
                    .arg(dir.join("Main.java")),
            );
            step(
                Command::new("java")
                    .args(JVM_FLAGS)
                    .arg("-cp")
                    .arg(&out)
                    .arg("Main"),
            );
        }
        Language::JavaScript => {
            w(
                "prog.js",
                format!("{code}\nif (add(2, 3) !== 5) process.exit(1);\n"),
            );
            step(Command::new("node").arg(dir.join("prog.js")));
        }
        Language::TypeScript => {
            w(
                "prog.ts",
                format!("{code}\nif (add(2, 3) !== 5) process.exit(1);\n"),
            );
            let ts = typescript();
            w(
                "run.js",
                format!(
                    "const ts = require({ts:?}); const fs = require('fs');\n\
                     const js = ts.transpileModule(fs.readFileSync(process.argv[2], 'utf8'), \
                     {{compilerOptions: {{target: ts.ScriptTarget.ES2022, module: \
                     ts.ModuleKind.CommonJS}}}}).outputText;\n\
                     require('vm').runInThisContext(js);\n"
                ),
            );
            step(
                Command::new("node")
                    .arg(dir.join("run.js"))
                    .arg(dir.join("prog.ts")),
            );
        }
    }
}

/// The `typescript` package's directory (as the oracle finds it, or `EXECSCOPE_TYPESCRIPT`).
fn typescript() -> String {
    if let Ok(d) = std::env::var("EXECSCOPE_TYPESCRIPT") {
        return d;
    }
    let root = output(Command::new("npm").args(["root", "-g"]));
    let d = PathBuf::from(root).join("typescript");
    d.to_string_lossy().into_owned()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let rounds: usize = std::env::var("EXECSCOPE_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let isolation = std::env::var("EXECSCOPE_ORACLE_LEVEL")
        .unwrap_or_else(|_| "auto".into())
        .parse()
        .expect("EXECSCOPE_ORACLE_LEVEL");
    let oracle = Oracle::new(OracleConfig {
        workers: 1,
        isolation,
        ..OracleConfig::default()
    })
    .expect("the oracle starts");
    println!(
        "languages: HumanEval/53 per candidate, {rounds} rounds, oracle at {} ({}), one worker",
        oracle.isolation(),
        oracle.privileges()
    );
    println!(
        "{:<11} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "language", "floor med", "floor min", "oracle med", "oracle min", "ratio"
    );
    // `EXECSCOPE_BENCH_LANGUAGES=cpp,rust` measures those alone.
    let only = std::env::var("EXECSCOPE_BENCH_LANGUAGES").ok();
    for language in Language::ALL {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|l| l == language.as_str()))
        {
            continue;
        }
        if let Some(why) = oracle.language_unavailable(language) {
            println!("{:<11} skipped: {why}", language.as_str());
            continue;
        }
        let code = program(language);
        let e = entry(language);
        let job = Job::new(code.clone(), vec![format!("assert {e}(2, 3) == 5")])
            .entry(e)
            .language(language);
        let (mut f, mut o) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let dir = tempfile::tempdir().unwrap();
            let t = Instant::now();
            floor(language, &code, dir.path());
            f.push(t.elapsed());
            drop(dir);
            let t = Instant::now();
            let r = oracle.run_job(&job).expect("the oracle runs the job");
            o.push(t.elapsed());
            assert_eq!(r.outcomes, [Outcome::Pass], "{language}: {:?}", r.outcomes);
        }
        let (fm, om) = (median(f.clone()), median(o.clone()));
        println!(
            "{:<11} {:>8.0}ms {:>8.0}ms {:>8.0}ms {:>8.0}ms {:>6.2}x",
            language.as_str(),
            ms(fm),
            ms(*f.iter().min().unwrap()),
            ms(om),
            ms(*o.iter().min().unwrap()),
            om.as_secs_f64() / fm.as_secs_f64()
        );
    }
}
