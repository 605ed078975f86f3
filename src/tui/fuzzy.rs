//! A small fuzzy matcher (subsequence match with a score), enough for query ids, function names and
//! system names. Case-insensitive; consecutive and word-start matches score higher.

/// Score of `needle` as a subsequence of `hay`, or `None` when it is not one. Empty needle: 0.
pub fn score(needle: &str, hay: &str) -> Option<i64> {
    if needle.is_empty() {
        return Some(0);
    }
    let hay: Vec<char> = hay.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut score = 0i64;
    let mut pos = 0usize;
    let mut prev: Option<usize> = None;
    for n in needle.chars().map(|c| c.to_ascii_lowercase()) {
        if n == ' ' {
            continue;
        }
        let found = hay[pos..].iter().position(|&h| h == n)? + pos;
        score += 1;
        if prev.is_some_and(|p| p + 1 == found) {
            score += 5;
        }
        if found == 0 || !hay[found - 1].is_ascii_alphanumeric() {
            score += 3;
        }
        score -= (found - pos).min(10) as i64 / 3;
        prev = Some(found);
        pos = found + 1;
    }
    Some(score)
}

/// Indices of `items` matching `needle`, best first (stable among equal scores).
///
/// When some items contain the needle literally (case-insensitive), only those are kept: typing
/// `gcd` should find `gcd`, not every text that happens to hold a g, a c and a d in order. Without
/// a literal hit the subsequence match applies.
pub fn filter<'a>(needle: &str, items: impl Iterator<Item = &'a str>) -> Vec<usize> {
    let items: Vec<&str> = items.collect();
    let lower = needle.trim().to_ascii_lowercase();
    let literal = !lower.is_empty()
        && items
            .iter()
            .any(|s| s.to_ascii_lowercase().contains(&lower));
    let mut hits: Vec<(i64, usize)> = items
        .iter()
        .enumerate()
        .filter(|(_, s)| !literal || s.to_ascii_lowercase().contains(&lower))
        .filter_map(|(i, s)| score(needle, s).map(|sc| (sc, i)))
        .collect();
    if !needle.trim().is_empty() {
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    hits.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsequence_and_ranking() {
        assert!(score("cv", "count_vowels").is_some());
        assert!(score("xyz", "count_vowels").is_none());
        assert_eq!(score("", "abc"), Some(0));
        // Contiguous word-start match beats a scattered one.
        // A literal hit hides scattered subsequence matches; without one they are ranked.
        let order = filter("gcd", ["q_0001 strange_cards", "q_0003 gcd"].into_iter());
        assert_eq!(order, vec![1]);
        let order = filter("gcd", ["q_0001 strange_cards", "q_0003 g_c_d"].into_iter());
        assert_eq!(order, vec![1, 0]);
        assert_eq!(
            filter("pal", ["count", "is_palindrome"].into_iter()),
            vec![1]
        );
    }
}
