//! The terminal dashboard. It renders the same core results as `execscope report` (the engine
//! and the core's view rows, `crate::view`, with their report tables) and never computes a
//! number of its own that the report also shows.
//!
//! Layout: `app` (state, `App::handle`), `actions` (what can happen), `commands` (the key
//! registry behind the key bar and help), `view` (the state snapshot panes draw from), `jobs`
//! (work off the UI thread), `panes/*` (one per tab), `widgets/*`, `frame` (tab/status/key bars,
//! overlays, presenter mode's zoom, big numbers and command palette), `presenter` (the big
//! numbers' cells and block font), `export` (the `x` key: SVG and markdown), `fuzzy` (the
//! pickers' and filters' matching), `run` (terminal and event loop), `theme`.

pub mod actions;
pub mod app;
pub mod commands;
pub mod export;
pub mod frame;
pub mod fuzzy;
pub mod help;
pub mod jobs;
pub mod panes;
pub mod presenter;
pub mod run;
pub mod terminal;
pub mod theme;
pub mod view;
pub mod widgets;

pub use app::App;
pub use theme::{Theme, ThemeKind};
