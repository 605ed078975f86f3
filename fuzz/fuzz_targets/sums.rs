#![no_main]
//! Fuzz target `sums`: see execscope_build::fuzz::sums.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::sums(data);
});
