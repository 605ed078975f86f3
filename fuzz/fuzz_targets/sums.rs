#![no_main]
//! Fuzz target `sums`: see execscope::bundle::fuzz::sums.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::bundle::fuzz::sums(data);
});
