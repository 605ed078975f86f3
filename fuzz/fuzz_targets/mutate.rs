#![no_main]
//! Fuzz target `mutate`: see execscope_build::fuzz::mutate.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::mutate(data);
});
