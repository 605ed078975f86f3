#![no_main]
//! Fuzz target `npy_header`: see execscope_build::fuzz::npy_header.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::npy_header(data);
});
