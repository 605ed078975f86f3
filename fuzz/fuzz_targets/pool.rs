#![no_main]
//! Fuzz target `pool`: see execscope::fuzz::pool.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::fuzz::pool(data);
});
