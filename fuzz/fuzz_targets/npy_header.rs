#![no_main]
//! Fuzz target `npy_header`: see execscope::fuzz::npy_header.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::fuzz::npy_header(data);
});
