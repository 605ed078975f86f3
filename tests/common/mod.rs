//! Helpers shared by integration tests.
#![allow(dead_code)]

pub mod oracle;
pub mod shared;
pub mod tiny;
pub mod tui;

#[allow(unused_imports)]
pub use shared::{require_data, require_python, shared_data, skip};
