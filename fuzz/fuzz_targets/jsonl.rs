#![no_main]
//! Fuzz target `jsonl`: see execscope::bundle::fuzz::jsonl.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    execscope::bundle::fuzz::jsonl(data);
});
