//! Reports: tables built from core results and rendered as text, JSON, CSV, markdown or LaTeX.

pub mod anatomy;
pub mod audit;
pub mod fusion;
pub mod leaderboard;
pub mod pairs;
pub mod results;
pub mod table;

pub use table::{Align, Cell, Format, Table};
