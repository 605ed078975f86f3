#![no_main]
//! Fuzz target `task_file`: see execscope::fuzz::task_file.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::fuzz::task_file(data);
});
