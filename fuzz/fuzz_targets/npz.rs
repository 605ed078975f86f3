#![no_main]
//! Fuzz target `npz`: see execscope::fuzz::npz.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::fuzz::npz(data);
});
