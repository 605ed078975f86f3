#![no_main]
//! Fuzz target `pool`: see execscope_build::fuzz::pool.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::pool(data);
});
