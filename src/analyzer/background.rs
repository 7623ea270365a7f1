//! A background model of English: how common each word stem is in general text.
//!
//! A tool catalog is a small, odd sample of English. A word every book uses ("good", "want",
//! "latest") can be in few of its tools, so the catalog alone gives it a high IDF and lets it
//! pull up whatever tool happens to say it. The enhanced profile discounts such words by also
//! counting them in general English (see [`crate::index::Bm25Params::background`]); this module
//! holds that English side.
//!
//! The table (`data/english-background/stems.tsv`, 45,836 stems, 544 KB in the binary's read-only
//! data) is derived from SymSpell's English frequency dictionary: Google Books Ngram counts of the
//! SCOWL word list. Its `SOURCE.md` says where it comes from and how `gen.rs` regenerates it.
//! Each line is `stem<TAB>q`, sorted by stem; the stem's share of running English words is
//! `2^(-q/8)`.

use std::cmp::Ordering;
use std::sync::OnceLock;

static TABLE: &str = include_str!("../../data/english-background/stems.tsv");

/// The share of running English text made of words with the Snowball English stem `stem`
/// (`the`: about 4%), or `None` for a stem the table does not know (names, identifiers, numbers,
/// rare words).
///
/// A binary search over the table's sorted lines, in place, within the lines that share the
/// stem's first three letters: only the pages a lookup touches become resident.
pub fn background_rate(stem: &str) -> Option<f64> {
    let table = TABLE.as_bytes();
    let key = stem.as_bytes();
    let b = bucket(key)?;
    let starts = buckets();
    // Lines starting in lo..hi are still candidates; lo is always a line start.
    let (mut lo, mut hi) = (starts[b] as usize, starts[b + 1] as usize);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = table[lo..mid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(lo, |i| lo + i + 1);
        let tab = start + table[start..].iter().position(|&b| b == b'\t')?;
        let end = tab + table[tab..].iter().position(|&b| b == b'\n')?;
        match table[start..tab].cmp(key) {
            Ordering::Equal => {
                let q: u8 = std::str::from_utf8(&table[tab + 1..end])
                    .ok()?
                    .parse()
                    .ok()?;
                return Some((-f64::from(q) / 8.0).exp2());
            }
            Ordering::Less => lo = end + 1,
            Ordering::Greater => hi = start,
        }
    }
    None
}

/// Number of buckets: stems by their first three letters, a shorter stem before its extensions.
const BUCKETS: usize = 26 * 27 * 27;

/// The bucket of a stem by its first three letters: `a`, `aa`, `aaa` .. `aaz`, `ab`, .. in the
/// table's byte order (a stem that ends sorts before its extensions, as its line's tab does).
/// `None` for a stem that does not start with lowercase ASCII letters up to its third byte (or
/// its end): the table holds no other.
fn bucket(stem: &[u8]) -> Option<usize> {
    let letter = |b: u8| b.is_ascii_lowercase().then(|| usize::from(b - b'a'));
    let first = letter(*stem.first()?)?;
    let next = |i: usize| match stem.get(i) {
        None | Some(b'\t') => Some(0),
        Some(&b) => Some(letter(b)? + 1),
    };
    let second = next(1)?;
    let third = if second == 0 { 0 } else { next(2)? };
    Some((first * 27 + second) * 27 + third)
}

/// Where each bucket's lines start in the table (and, last, the table's length): made once, on
/// the first lookup, from one pass over the table (76 KB). A bucket holds a few lines, so a
/// lookup makes a few probes instead of 16 over the whole table.
fn buckets() -> &'static [u32] {
    static STARTS: OnceLock<Vec<u32>> = OnceLock::new();
    STARTS.get_or_init(|| {
        let mut starts = vec![0u32; BUCKETS + 1];
        let mut next = 0;
        let mut at = 0;
        for line in TABLE.split_inclusive('\n') {
            // Every line's stem starts with letters (a test checks it); a line that did not
            // would only be unreachable.
            if let Some(b) = bucket(line.as_bytes()) {
                while next <= b {
                    starts[next] = at as u32;
                    next += 1;
                }
            }
            at += line.len();
        }
        for s in &mut starts[next..] {
            *s = TABLE.len() as u32;
        }
        starts
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_is_found_with_its_value() {
        let mut previous: Option<&str> = None;
        for line in TABLE.lines() {
            let (stem, q) = line.split_once('\t').expect("stem<TAB>q");
            assert!(
                bucket(stem.as_bytes()).is_some(),
                "{stem:?} does not start with letters"
            );
            assert!(previous < Some(stem), "not sorted or repeated at {stem:?}");
            previous = Some(stem);
            let q: u8 = q.parse().expect("q is a byte");
            assert_eq!(background_rate(stem), Some((-f64::from(q) / 8.0).exp2()));
        }
        assert!(TABLE.ends_with('\n'));
    }

    #[test]
    fn unknown_stems_and_neighbours_of_known_ones_are_absent() {
        for stem in [
            "",
            "\t",
            "a\t",
            "aa",
            "zzzzzz",
            "weathe",
            "weatherx",
            "getweath",
            "ü",
            "0day",
            "a1",
            "Weather",
            "we\nather",
        ] {
            assert_eq!(background_rate(stem), None, "{stem:?}");
        }
    }

    #[test]
    fn common_words_are_common_and_domain_words_rare() {
        let rate = |s| background_rate(s).unwrap_or_else(|| panic!("{s} is in the table"));
        assert!(rate("the") > 0.03 && rate("the") < 0.06);
        // Stems, as the analyzer makes them: "information" is `inform`, "thermometer" `thermomet`.
        assert!(rate("want") > 3.0 * rate("weather"));
        assert!(rate("inform") > rate("want"));
        assert!(rate("weather") > 30.0 * rate("thermomet"));
    }
}
