//! "Did you mean": registered names close to a name the model got wrong.
//!
//! The similarity is Python's `difflib.SequenceMatcher.ratio`, ported exactly, because the
//! reference suggests names with `difflib.get_close_matches(name, names, n=3, cutoff=0.5)` over
//! normalized names; the same suggestions keep a model's self-correction working the same way.

use crate::tool::normalize_name;
use std::collections::HashMap;

/// The smallest similarity a suggestion needs, as in the reference.
const CUTOFF: f64 = 0.5;

/// Up to `limit` of `names` close to `requested`, closest first: names equal to it after
/// normalizing (lower case, `/` and `-` read as `_`), then by difflib similarity of the
/// normalized forms (ties: the greater string first, as `heapq.nlargest` orders them).
pub fn suggest_names(requested: &str, names: &[&str], limit: usize) -> Vec<String> {
    if limit == 0 {
        return Vec::new();
    }
    let word = normalize_name(requested);
    let mut out: Vec<String> = names
        .iter()
        .filter(|n| **n != requested && normalize_name(n) == word)
        .take(limit)
        .map(|n| n.to_string())
        .collect();
    // The reference keeps the first registered spelling of each normalized name.
    let mut by_normalized: Vec<(String, &str)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &n in names {
        let key = normalize_name(n);
        if seen.insert(key.clone()) {
            by_normalized.push((key, n));
        }
    }
    let matcher = Matcher::new(&word);
    let mut scored: Vec<(f64, &str, &str)> = by_normalized
        .iter()
        .filter_map(|(key, n)| {
            let r = matcher.ratio_if_at_least(key, CUTOFF)?;
            Some((r, key.as_str(), *n))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(a.1)));
    for (_, _, name) in scored {
        if out.len() == limit {
            break;
        }
        if name != requested && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// `difflib.SequenceMatcher` with a fixed second sequence `b` (the requested name), as
/// `get_close_matches` uses it.
struct Matcher {
    b: Vec<char>,
    /// Positions of each element of `b`, without the "popular" ones (autojunk, `b` of 200+).
    b2j: HashMap<char, Vec<usize>>,
    /// Element counts of `b`, for `quick_ratio`.
    counts: HashMap<char, usize>,
}

impl Matcher {
    fn new(b: &str) -> Self {
        let b: Vec<char> = b.chars().collect();
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (j, &c) in b.iter().enumerate() {
            b2j.entry(c).or_default().push(j);
        }
        let mut counts = HashMap::new();
        for &c in &b {
            *counts.entry(c).or_insert(0) += 1;
        }
        if b.len() >= 200 {
            let ntest = b.len() / 100 + 1;
            b2j.retain(|_, idxs| idxs.len() <= ntest);
        }
        Matcher { b, b2j, counts }
    }

    /// `ratio()` against `a` when it is at least `cutoff` (after the same cheap upper bounds
    /// `get_close_matches` checks first), else `None`.
    fn ratio_if_at_least(&self, a: &str, cutoff: f64) -> Option<f64> {
        let a: Vec<char> = a.chars().collect();
        let total = a.len() + self.b.len();
        let ratio = |m: usize| {
            if total == 0 {
                1.0
            } else {
                2.0 * m as f64 / total as f64
            }
        };
        if ratio(a.len().min(self.b.len())) < cutoff {
            return None;
        }
        let mut avail: HashMap<char, isize> = HashMap::new();
        let mut common = 0;
        for c in &a {
            let left = avail
                .entry(*c)
                .or_insert_with(|| *self.counts.get(c).unwrap_or(&0) as isize);
            if *left > 0 {
                common += 1;
            }
            *left -= 1;
        }
        if ratio(common) < cutoff {
            return None;
        }
        let r = ratio(self.matches(&a));
        (r >= cutoff).then_some(r)
    }

    /// Total size of the matching blocks (`get_matching_blocks`).
    fn matches(&self, a: &[char]) -> usize {
        let mut queue = vec![(0, a.len(), 0, self.b.len())];
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest_match(a, alo, ahi, blo, bhi);
            if k > 0 {
                total += k;
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        total
    }

    /// `find_longest_match` without junk (the reference passes no `isjunk`).
    fn longest_match(
        &self,
        a: &[char],
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> (usize, usize, usize) {
        let b = &self.b;
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
            let mut next: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = self.b2j.get(c) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j.checked_sub(1).and_then(|p| j2len.get(&p)).unwrap_or(&0) + 1;
                    next.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = next;
        }
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }
}

#[cfg(test)]
mod tests {
    use super::{Matcher, suggest_names};

    fn ratio(a: &str, b: &str) -> f64 {
        Matcher::new(b).ratio_if_at_least(a, 0.0).unwrap()
    }

    #[test]
    fn ratios_equal_pythons() {
        // Values printed by Python 3.11: difflib.SequenceMatcher(None, a, b).ratio()
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("send_email", "send_mail"), 0.9473684210526315);
        assert_eq!(ratio("get_weather", "weather_get"), 0.6363636363636364);
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("qabxcd", "abycdf"), 0.6666666666666666);
    }

    #[test]
    fn normalized_equals_come_first_then_similar_names() {
        let names = [
            "Send-Email",
            "send_mail",
            "read_file",
            "sendmail",
            "weather",
        ];
        assert_eq!(
            suggest_names("send_email", &names, 3),
            ["Send-Email", "send_mail", "sendmail"]
        );
        assert!(suggest_names("zzzzzz", &names, 3).is_empty());
        assert_eq!(suggest_names("send_email", &names, 1), ["Send-Email"]);
    }
}
