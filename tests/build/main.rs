//! The construction pipeline: mutation operators, selection and stacking, the gates, builds and their resume, shards and merges, and the fuzz entry points.
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod agreement;
mod audit_resume;
mod build_bundle;
mod build_catalogue;
mod build_gates;
mod build_resume;
mod build_rules;
mod embedded_tasks;
mod equivalence;
mod formats;
mod formats_mbxp;
mod formats_x;
mod fuzz_smoke;
mod mutants_compile;
mod mutate_catalogue;
mod mutate_cpython;
mod mutate_dialects;
mod mutate_embedded;
mod mutate_humaneval;
mod mutate_languages;
mod mutate_operators;
mod mutate_props;
mod mutate_select;
mod mutate_stack;
mod shard_audit;
mod shard_keys;
mod shard_merge;
