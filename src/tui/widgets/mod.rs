//! Reusable widgets: the sortable table, bars, syntax-highlighted code and inline diffs.

pub mod bar;
pub mod code;
pub mod diff;
pub mod editor;
pub mod forest;
pub mod histogram;
pub mod ranking;
pub mod table;
pub mod text;
