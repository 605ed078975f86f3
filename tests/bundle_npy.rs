//! The npz reader on arrays numpy wrote (tests/fixtures/npy/variants.npz, made with numpy 2.4):
//! float16/32/64, both byte orders, Fortran order, unicode arrays; and the writer read back.

use execscope::bundle::npy::{write_npz, Dtype, Npz, NpzItem};
use ndarray::Array2;
use std::path::Path;

const VARIANTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/npy/variants.npz"
);

fn expected() -> Array2<f32> {
    // np.arange(12).reshape(3, 4) / 4 - 1: exact in every float width.
    Array2::from_shape_fn((3, 4), |(r, c)| (r * 4 + c) as f32 / 4.0 - 1.0)
}

#[test]
fn numpy_float_variants_decode_exactly() {
    let bytes = std::fs::read(VARIANTS).unwrap();
    let path = Path::new(VARIANTS);
    let mut npz = Npz::open(path, &bytes).unwrap();
    for name in ["f16_fortran", "f64_big", "f32_fortran", "f16_big"] {
        assert_eq!(npz.matrix(name).unwrap(), expected(), "{name}");
    }
    let headers = npz.headers().unwrap();
    let h = headers.iter().find(|h| h.name == "f16_big").unwrap();
    assert_eq!(
        h.dtype,
        Dtype::Float {
            bytes: 2,
            big: true
        }
    );
    assert_eq!(h.shape, vec![3, 4]);
    assert!(
        headers
            .iter()
            .find(|h| h.name == "f16_fortran")
            .unwrap()
            .fortran_order
    );
}

#[test]
fn numpy_unicode_arrays_decode() {
    let bytes = std::fs::read(VARIANTS).unwrap();
    let mut npz = Npz::open(Path::new(VARIANTS), &bytes).unwrap();
    assert_eq!(npz.strings("ids").unwrap(), ["q_1", "é_ü", "long_id_x"]);
    assert_eq!(npz.strings("ids_big").unwrap(), ["ab", "c"]);
    // Object arrays (pickles) are refused with the array's name, never unpickled.
    let e = npz.strings("obj").unwrap_err().to_string();
    assert!(
        e.contains("variants.npz") && e.contains("`obj`") && e.contains("|O"),
        "{e}"
    );
    let e = npz.matrix("ids").unwrap_err().to_string();
    assert!(e.contains("`ids`") && e.contains("expected 2-D"), "{e}");
}

#[test]
fn writer_output_reads_back() {
    let m = expected();
    let ids: Vec<String> = vec!["a".into(), "bé".into(), "".into()];
    let mut buf = std::io::Cursor::new(Vec::new());
    write_npz(
        &mut buf,
        &[
            ("queries", NpzItem::F32(&m)),
            ("query_ids", NpzItem::Strings(&ids)),
        ],
    )
    .unwrap();
    let bytes = buf.into_inner();
    let mut npz = Npz::open(Path::new("mem.npz"), &bytes).unwrap();
    assert_eq!(npz.matrix("queries").unwrap(), m);
    assert_eq!(npz.strings("query_ids").unwrap(), ids);
    let names: Vec<String> = npz
        .headers()
        .unwrap()
        .into_iter()
        .map(|h| h.descr)
        .collect();
    assert_eq!(names, ["<f4", "<U2"]);
}
