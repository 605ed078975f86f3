#![no_main]
//! Fuzz target `jsonl`: see execscope_build::fuzz::jsonl.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope_build::fuzz::jsonl(data);
});
