//! analysis
pub mod density;
