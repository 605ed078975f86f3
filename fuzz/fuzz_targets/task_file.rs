#![no_main]
//! Fuzz target `task_file`: see execscope_build::fuzz::task_file.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::task_file(data);
});
