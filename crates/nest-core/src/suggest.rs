//! "Did you mean …?" for a misspelt key, value or name: the closest of the words expected by
//! edit distance, when close enough, is suggested (the scenario's keys and names in nest-config,
//! a fio job's values in nest-workload).

/// Edit distance with insertions, deletions, substitutions and transpositions of neighbours
/// (optimal string alignment), on chars: `idael` is one edit from `ideal`, as a typist sees it.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j], three rows kept.
    let mut prev2 = vec![0usize; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if within a third of its length (at least 1, at most 3 edits).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates.into_iter().map(|c| (distance(word, c), c)).filter(|&(d, _)| d <= limit).min_by_key(|&(d, _)| d).map(|(_, c)| c)
}

/// "; did you mean `c`?" for the candidate closest to `word`, or "" when none is close: to
/// append to a message that names an unknown thing.
pub fn hint<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default()
}

/// A serde message `unknown field|variant `x`, expected one of `a`, `b`` (or `expected `a` or
/// `b``) with ", did you mean `a`?" appended when one is close; other messages unchanged.
pub fn with_hint(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `").or_else(|| message.strip_prefix("unknown variant `")) else {
        return message.to_string();
    };
    let Some((word, expected)) = rest.split_once('`') else { return message.to_string() };
    format!("{message}{}", hint(word, expected.split('`').skip(1).step_by(2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_words_are_suggested_and_far_ones_not() {
        assert_eq!(distance("kitten", "sitting"), 3);
        let m = "unknown field `durration`, expected one of `seed`, `duration`, `warmup`";
        assert_eq!(with_hint(m), format!("{m}; did you mean `duration`?"));
        let m = "unknown variant `posson`, expected `poisson` or `constant`";
        assert!(with_hint(m).ends_with("did you mean `poisson`?"), "{}", with_hint(m));
        let m = "unknown field `colour`, expected one of `seed`, `duration`";
        assert_eq!(with_hint(m), m, "nothing close");
        assert_eq!(with_hint("invalid type: string \"x\", expected u32"), "invalid type: string \"x\", expected u32");
        assert_eq!(closest("w", ["ios", "x"]), Some("x"), "one edit allowed even for short words");
        assert_eq!((distance("idael", "ideal"), distance("ab", "ba"), distance("", "abc")), (1, 1, 3), "a swap of neighbours is one edit");
        let m = "unknown variant `idael`, expected one of `ideal`, `ssd`, `pm`";
        assert!(with_hint(m).ends_with("did you mean `ideal`?"), "{}", with_hint(m));
    }
}
