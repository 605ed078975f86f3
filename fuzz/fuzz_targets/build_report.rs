#![no_main]
//! Fuzz target `build_report`: see execscope_build::fuzz::build_report.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::build_report(data);
});
