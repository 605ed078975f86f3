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

/// A stored member is read in place from the archive's bytes; its CRC-32 is still checked, and
/// a member whose stated size runs past the end of the file is refused, both naming the member.
#[test]
fn stored_members_are_checked_in_place() {
    let m = Array2::from_shape_fn((64, 32), |(r, c)| (r * 32 + c) as f32 * 0.5);
    let mut buf = std::io::Cursor::new(Vec::new());
    write_npz(&mut buf, &[("corpus", NpzItem::F32(&m))]).unwrap();
    let good = buf.into_inner();
    assert_eq!(
        Npz::open(Path::new("good.npz"), &good)
            .unwrap()
            .matrix("corpus")
            .unwrap(),
        m
    );
    // One bit flipped inside the payload (past the 128-byte npy header), the zip directory
    // untouched: only the CRC can tell.
    let mut bad = good.clone();
    let at = bad.windows(6).position(|w| w == b"\x93NUMPY").unwrap() + 128 + 100;
    bad[at] ^= 0x01;
    let e = Npz::open(Path::new("flipped.npz"), &bad)
        .unwrap()
        .matrix("corpus")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("flipped.npz") && e.contains("corpus") && e.contains("CRC-32"),
        "{e}"
    );
    // The headers are still readable (they do not need the whole member).
    assert_eq!(
        Npz::open(Path::new("flipped.npz"), &bad)
            .unwrap()
            .headers()
            .unwrap()[0]
            .shape,
        vec![64, 32]
    );
}

/// Files from 1 MiB up are memory-mapped instead of read: the same bytes, the same refusals.
#[test]
fn large_files_are_mapped_with_the_same_checks() {
    use execscope::bundle::files::{map, read, FileBytes};
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.bin");
    let bytes: Vec<u8> = (0..(3 << 20) + 7).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(&big, &bytes).unwrap();
    let got = map(&big).unwrap();
    assert!(matches!(got, FileBytes::Mapped(_)));
    assert_eq!(&got[..], &bytes[..]);
    assert_eq!(&got[..], &read(&big).unwrap()[..]);
    let small = dir.path().join("small.bin");
    std::fs::write(&small, b"abc").unwrap();
    assert!(matches!(map(&small).unwrap(), FileBytes::Read(ref v) if v == b"abc"));
    // A Git LFS pointer padded past the threshold is still named as one.
    let lfs = dir.path().join("lfs.npz");
    let mut p = b"version https://git-lfs.github.com/spec/v1\n".to_vec();
    p.resize(2 << 20, b' ');
    std::fs::write(&lfs, &p).unwrap();
    let e = map(&lfs).err().unwrap().to_string();
    assert!(
        e.contains("lfs.npz") && e.to_lowercase().contains("lfs"),
        "{e}"
    );
    // Directories and missing files are refused without being mapped.
    let e = map(dir.path()).err().unwrap().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    assert!(map(&dir.path().join("nope")).is_err());
}
