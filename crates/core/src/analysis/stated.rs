//! Does a query state something? The text rules the build's gate 4 uses to tell a signature
//! edit the query states from one it does not (docs/task-file.md), and that suite strength
//! uses to flag a surviving mutant whose edit changes behaviour the query states (a suite
//! gap, docs/analysis.md). Pure string functions: no parse, no execution.

/// Characters around a stated default within which the word "default" must occur.
pub const DEFAULT_WINDOW: usize = 60;

/// Byte offsets of `needle` in `hay` as a whole token: not inside a longer identifier or number.
pub fn token_matches(hay: &str, needle: &str) -> Vec<usize> {
    token_matches_with(hay, needle, false)
}

/// [`token_matches`]; with `unit`, letters may follow (`5` in `5s`, `30` in `30kg`), digits not.
pub fn token_matches_with(hay: &str, needle: &str, unit: bool) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    hay.match_indices(needle)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = hay[..i].chars().next_back();
            let mut after = hay[i + needle.len()..].chars();
            let (a1, a2) = (after.next(), after.next());
            let starts_word = needle.chars().next().is_some_and(word);
            let ends_word = needle.chars().next_back().is_some_and(word);
            let glued_before = starts_word && before.is_some_and(word);
            // `4` inside `4.5`, `-1` preceded by a digit, ...
            let glued_after = ends_word
                && (a1.is_some_and(|c| {
                    if unit {
                        c.is_numeric() || c == '_'
                    } else {
                        word(c)
                    }
                }) || (a1 == Some('.') && a2.is_some_and(|c| c.is_ascii_digit())));
            !glued_before && !glued_after
        })
        .collect()
}

/// Does the query state this default: the literal as a whole token with the word "default" (any
/// form) at most [`DEFAULT_WINDOW`] characters before or after it?
pub fn states_default(query: &str, value: &str) -> bool {
    // ASCII lower-casing keeps byte offsets.
    let lower = query.to_ascii_lowercase();
    let defaults: Vec<usize> = lower.match_indices("default").map(|(i, _)| i).collect();
    let chars_between = |a: usize, b: usize| query[a.min(b)..a.max(b)].chars().count();
    token_matches(query, value).into_iter().any(|v| {
        defaults.iter().any(|&d| {
            let gap = if d < v {
                chars_between(d + "default".len(), v)
            } else {
                chars_between(v + value.len(), d)
            };
            gap <= DEFAULT_WINDOW
        })
    })
}

/// `Some(why)` when `before` (an edit's original text) is a literal the query states: a string
/// the query gives verbatim or whose content it puts between quotes or backticks; `True`,
/// `False` or `None` as a whole token; a number the query states as a default
/// ([`states_default`]), or any other number than 0, 1 and -1 as a whole token (those three
/// appear in most queries for other reasons: "1-based", "0 when empty"). A mutant that changes
/// such a literal and still passes every test changes behaviour the query states that no test
/// checks.
pub fn quoted_literal(query: &str, before: &str) -> Option<String> {
    let b = before.trim();
    let digits = b.strip_prefix('-').unwrap_or(b);
    let number = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.chars().any(|c| c.is_ascii_digit());
    if number {
        if states_default(query, b) {
            return Some(format!("the query states the default `{b}`"));
        }
        let common = matches!(b, "0" | "1" | "-1");
        return (!common && !token_matches(query, b).is_empty())
            .then(|| format!("the query states `{b}`"));
    }
    let content = string_content(b);
    if !(content.is_some() || matches!(b, "True" | "False" | "None")) {
        return None;
    }
    if !token_matches(query, b).is_empty() {
        return Some(format!("the query states `{b}`"));
    }
    let c = content.filter(|c| !c.is_empty())?;
    ["'", "\"", "`"]
        .iter()
        .any(|q| query.contains(&format!("{q}{c}{q}")))
        .then(|| format!("the query quotes \"{c}\""))
}

/// The content of a plain string literal (`'x'`, `"x"`, with an `r`/`b`/`u` prefix; not an
/// f-string, not triple-quoted).
fn string_content(s: &str) -> Option<&str> {
    let body = s.trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U']);
    if body.len() < 2 || body.len() + 2 < s.len() {
        return None;
    }
    let q = body.chars().next()?;
    if !matches!(q, '\'' | '"') || !body.ends_with(q) || body.starts_with(&q.to_string().repeat(3))
    {
        return None;
    }
    Some(&body[1..body.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stated_defaults() {
        // The literal as a whole token, "default" within 60 characters either side.
        assert!(states_default("at least n characters (default 8)", "8"));
        assert!(states_default("Defaults: sep is ' ', n is 4.", "' '"));
        assert!(states_default("8 characters by default", "8"));
        assert!(states_default("origin (default (0, 0))", "(0, 0)"));
        // Not the token: 18, 8.5, n8; no "default"; too far away.
        assert!(!states_default("default 18", "8"));
        assert!(!states_default("default 8.5", "8"));
        assert!(!states_default("default n8", "8"));
        assert!(!states_default("at least 8 characters", "8"));
        let far = format!("8{}default", " ".repeat(DEFAULT_WINDOW + 1));
        assert!(!states_default(&far, "8"));
        let near = format!("8{}default", " ".repeat(DEFAULT_WINDOW));
        assert!(states_default(&near, "8"));
        // A negative literal is its own token; non-ASCII text keeps offsets straight.
        assert!(states_default("offset (default -1)", "-1"));
        assert!(states_default("größe — default 4", "4"));
    }

    #[test]
    fn quoted_literals() {
        let q = "Return 'member' when x is in s; when s is empty return empty (default 'none'); \
                 at most 8 items, `-1` when absent, \"ok\" or True.";
        assert!(quoted_literal(q, "'none'").is_some());
        assert!(
            quoted_literal(q, "\"member\"").is_some(),
            "the content, quoted"
        );
        assert!(quoted_literal(q, " 8 ").is_some());
        // 0, 1 and -1 only as a stated default
        assert_eq!(quoted_literal("`-1` when absent", "-1"), None);
        assert!(
            quoted_literal(q, "-1").is_some(),
            "within 60 characters of \"default\""
        );
        assert_eq!(quoted_literal("returns 0 when empty", "0"), None);
        assert_eq!(
            quoted_literal("at least n (default 1)", "1").as_deref(),
            Some("the query states the default `1`")
        );
        assert!(quoted_literal(q, "'ok'").is_some());
        assert!(quoted_literal(q, "True").is_some());
        // not quoted, not a literal, or only inside a longer token
        assert_eq!(quoted_literal(q, "'other'"), None);
        assert_eq!(quoted_literal(q, "<"), None);
        assert_eq!(quoted_literal(q, "x"), None);
        assert_eq!(quoted_literal(q, "'em'"), None);
        assert_eq!(quoted_literal("at most 18 items", "8"), None);
        assert_eq!(quoted_literal(q, "f'{x}'"), None);
        assert_eq!(quoted_literal(q, "''"), None);
    }
}
