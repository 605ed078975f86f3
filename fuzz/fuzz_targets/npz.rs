#![no_main]
//! Fuzz target `npz`: see execscope_build::fuzz::npz.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::npz(data);
});
