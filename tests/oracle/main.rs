//! The execution oracle: verdicts, outcomes, the cache, `exec verify`, every entry point, and the red-team suite of hostile snippets at every isolation level.
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod budgets;
mod cache;
mod entry_points;
mod fidelity;
mod fidelity_round3;
mod forgers;
mod go_native;
mod hangs;
mod hostile;
mod isolation;
mod js_native;
mod languages;
mod outcomes;
mod redteam;
mod rs_native;
mod stopping;
mod verdicts;
mod verify;
