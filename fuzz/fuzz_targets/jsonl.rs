#![no_main]
//! Fuzz target `jsonl`: see execscope::fuzz::jsonl.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::fuzz::jsonl(data);
});
