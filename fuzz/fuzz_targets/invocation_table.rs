#![no_main]
//! Fuzz target `invocation_table`: see execscope_build::fuzz::invocation_table.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::invocation_table(data);
});
