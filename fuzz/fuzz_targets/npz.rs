#![no_main]
//! Fuzz target `npz`: see execscope::bundle::fuzz::npz.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::bundle::fuzz::npz(data);
});
