#![no_main]
//! Fuzz target `stacked`: stacked-variant rows checked against the embedded bundle's queries and
//! corpus (loaded once, metadata only).
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn bundle() -> &'static execscope_core::bundle::Bundle {
    static B: OnceLock<execscope_core::bundle::Bundle> = OnceLock::new();
    B.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/bundle");
        let opts = execscope_core::bundle::LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        };
        execscope_core::bundle::load(&root, &opts).expect("the embedded bundle loads")
    })
}

fuzz_target!(|data: &[u8]| {
    let b = bundle();
    execscope_build::fuzz::stacked_rows(data, &b.queries, &b.corpus);
});
