//! The headless CLI: `report` tables and formats, settings, shell completions and man page, figures, systems import and TREC export, the audit command.
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod audit_cli;
mod audit_formats;
mod audit_languages;
mod cli_errors;
mod cli_report;
mod cli_settings;
mod cli_shell;
mod cli_shortform;
mod cli_suites;
mod latex;
mod plot;
mod reference_memo;
mod systems_import;
mod systems_trec;
