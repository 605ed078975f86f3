//! The dashboard through `TestBackend`: every pane's snapshot, the statistics it shows, the inline editor and live probes.
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod bug_types;
mod charts;
mod editor;
mod export_numbers;
mod fit;
mod languages;
mod panes;
mod presenter;
mod probe;
mod start;
mod stats;
mod suites;
mod walk;
