//! The shard of a pair key: a stable hash (first 8 bytes of SHA-256 of "code\ntests", big-endian,
//! modulo n; the expectations below were computed with Python's hashlib), every key in exactly
//! one shard, and `i/n` parsing that names what is wrong.

use execscope::shard::Shard;

#[test]
fn shard_of_key_matches_an_independent_computation() {
    assert_eq!(Shard::of_key("a", "b", 4), 3);
    assert_eq!(Shard::of_key("abc", "def", 3), 0);
    assert_eq!(Shard::of_key("x", "y", 1000), 706);
}

#[test]
fn every_key_is_owned_by_exactly_one_shard_and_shares_are_even() {
    for n in 1..=5u32 {
        let mut counts = vec![0usize; n as usize];
        for k in 0..2000 {
            let (c, t) = (format!("code{k}"), format!("tests{}", k % 7));
            let owners: Vec<u32> = (0..n)
                .filter(|&i| Shard { index: i, count: n }.owns(&c, &t))
                .collect();
            assert_eq!(owners.len(), 1, "{c} {t} of {n}: {owners:?}");
            counts[owners[0] as usize] += 1;
        }
        let expect = 2000 / n as usize;
        for c in counts {
            // 2000 keys: each share within 25% of even.
            assert!(
                c * 4 > expect * 3 && c * 4 < expect * 5,
                "{n}: {c} vs {expect}"
            );
        }
    }
}

#[test]
fn shard_specs_parse_and_bad_ones_are_refused() {
    let s: Shard = "2/4".parse().unwrap();
    assert_eq!((s.index, s.count), (2, 4));
    assert_eq!(s.to_string(), "2/4");
    for bad in ["4/4", "1/0", "1", "a/2", "-1/2", ""] {
        let e = bad.parse::<Shard>().unwrap_err();
        assert!(e.contains("expected i/n"), "{bad}: {e}");
    }
}
