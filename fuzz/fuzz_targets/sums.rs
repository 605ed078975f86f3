#![no_main]
//! Fuzz target `sums`: see execscope::fuzz::sums.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::fuzz::sums(data);
});
