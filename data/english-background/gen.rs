//! Regenerates `stems.tsv` (the enhanced profile's background model of English word use, see
//! `src/analyzer/background.rs`) from SymSpell's English frequency dictionary:
//!
//! ```sh
//! pip download --no-deps symspellpy==6.10.1 && unzip -o symspellpy-6.10.1-py3-none-any.whl 'symspellpy/*.txt'
//! cargo run --release --example gen_background -- symspellpy/frequency_dictionary_en_82_765.txt \
//!     > data/english-background/stems.tsv
//! ```
//!
//! Each input line is `word count`. Words of letters a-z only are kept (the dictionary's 65
//! contractions are left out: the analyzer splits them), reduced to their Snowball English stem
//! with the crate the analyzer uses, and their counts summed per stem. Each output line is
//! `stem<TAB>q`, sorted by stem, where the stem's share of all kept words is `2^(-q/8)`.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::BTreeMap;
use std::io::Write;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: gen_background FREQUENCY_DICTIONARY");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let stemmer = Stemmer::create(Algorithm::English);
    let mut counts: BTreeMap<String, f64> = BTreeMap::new();
    let mut total = 0.0;
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(word), Some(count)) = (fields.next(), fields.next()) else {
            continue;
        };
        let word = word.to_lowercase();
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase()) {
            continue;
        }
        let count: f64 = count.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
        total += count;
        *counts.entry(stemmer.stem(&word).into_owned()).or_default() += count;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (stem, count) in &counts {
        let q = (-8.0 * (count / total).log2()).round().clamp(0.0, 255.0) as u8;
        writeln!(out, "{stem}\t{q}").expect("write");
    }
}
