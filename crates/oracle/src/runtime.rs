//! The oracle's Python, embedded so the binary is self-contained: the package `execscope_oracle`
//! (`crates/oracle/python/execscope_oracle/`, one module per concern, each importing what it
//! uses) and `boot.py`, which starts a process from those sources held in memory. The judge and
//! the harness each load the modules they need, lowest first, then run their `main()`.

use std::sync::LazyLock;

/// The bootstrap: installs the package from the sources it is given, then runs one module's
/// `main()`.
const BOOT: &str = include_str!("../python/boot.py");

macro_rules! modules {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../python/execscope_oracle/", $name, ".py")))),*]
    };
}

/// The modules both halves load: the package, the value codec and its decoder, the exception
/// names, the RPC peer, the stand-ins for the other side's objects, the test engine, the pytest
/// shim.
const SHARED: [(&str, &str); 8] = modules!(
    "__init__",
    "codec",
    "decode",
    "excs",
    "peer",
    "proxy",
    "engine",
    "pytest_shim"
);

/// The harness's own modules: the hang detector, the pair child, the server.
const HARNESS_OWN: [(&str, &str); 3] = modules!("detector", "sandbox", "harness");

/// The judge's own module: the zygote.
const JUDGE_OWN: [(&str, &str); 1] = modules!("judge");

/// The program text that starts one half: the bootstrap and its call with the modules' sources
/// (a JSON array of `[name, source]` pairs, which is also a Python literal).
fn program(own: &[(&str, &str)], main: &str) -> String {
    let files: Vec<[&str; 2]> = SHARED
        .iter()
        .chain(own)
        .map(|&(name, source)| [name, source])
        .collect();
    let files = serde_json::to_string(&files).expect("strings serialise");
    let main = serde_json::to_string(main).expect("a string serialises");
    format!("{BOOT}\nboot({files}, {main})\n")
}

/// The harness (run as `python3 -s -P /dev/fd/3 --server|--once CONFIG`).
pub static HARNESS: LazyLock<String> = LazyLock::new(|| program(&HARNESS_OWN, "harness"));

/// The judge (run as `python3 -s -P -c JUDGE`).
pub static JUDGE: LazyLock<String> = LazyLock::new(|| program(&JUDGE_OWN, "judge"));

#[cfg(test)]
mod tests {
    use super::*;

    /// Each half's program names every module it loads exactly once, and no module of the other
    /// half: the sandbox never holds the judge's code, the judge never the harness's.
    #[test]
    fn each_half_loads_its_own_modules() {
        let loads = |p: &str, m: &str| p.contains(&format!("[\"{m}\","));
        for m in ["codec", "engine", "pytest_shim"] {
            assert!(loads(&HARNESS, m) && loads(&JUDGE, m), "{m}");
        }
        for m in ["detector", "sandbox", "harness"] {
            assert!(loads(&HARNESS, m) && !loads(&JUDGE, m), "{m}");
        }
        assert!(loads(&JUDGE, "judge") && !loads(&HARNESS, "judge"));
        assert!(HARNESS.ends_with("\"harness\")\n") && JUDGE.ends_with("\"judge\")\n"));
    }
}
