//! The BM25F inverted index, kept in step with the registry one tool at a time, and where a query is scored.
//!
//! Documents are identified by their registry slot, which grows with registration order. Posting
//! lists stay sorted by slot, so walking a list visits tools in registration order: that is the
//! order the reference breaks ties in, and it survives any sequence of incremental updates.

mod bm25;
mod bulk;
mod doc;
mod forward;
mod joint;
mod lengths;
mod names;
mod postings;
mod pruned;

pub use bm25::{Bm25Params, DocNorm, LengthStats};
use bm25::{block_bound, doc_norm, field_scale, saturate, tf_norm};
pub use bulk::TokenSink;
pub use doc::DocTokens;
use hashbrown::HashTable;
pub use joint::{MAX_TOGETHER, Together, Wanted};
use lengths::DocLengths;
pub use names::{is_name_term, name_term};
use postings::PostingList;
use std::cell::RefCell;
use std::hash::BuildHasher;

/// Identifies a document: the tool's registry slot.
pub type DocId = u32;

/// The tokens of one document, per field.
pub type FieldTokens<const F: usize> = [Vec<String>; F];

/// One document's occurrences of one term: term frequency per field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting<const F: usize> {
    /// The document.
    pub doc: DocId,
    /// How often the term occurs in each field of the document.
    pub tf: [u32; F],
}

#[derive(Debug, Clone, Default)]
struct TermEntry<const F: usize> {
    postings: PostingList<F>,
    /// The term's text: `Terms::text[at..at + len]`.
    at: u32,
    len: u32,
}

/// Capacity for `len` items and a sixteenth more: what a table filled in bulk keeps, so that the
/// first changes after loading a catalog append instead of copying the whole table to twice its
/// size (milliseconds at 100,000 tools). Room never written is not resident.
pub(crate) const fn with_room(len: usize) -> usize {
    len + len / 16
}

/// A scored document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredDoc {
    /// The document.
    pub doc: DocId,
    /// Its BM25F score.
    pub score: f64,
}

/// An inverted index over documents with `F` fields. Field 0 is the name field.
#[derive(Debug, Clone)]
pub struct Index<const F: usize> {
    /// Term ids, found by hashing the term and comparing with its text in `term_text`: one
    /// arena for every term instead of a heap string and a map key per term (half the terms of
    /// a catalog occur in a single tool, so the dictionary weighs as much as their postings).
    term_ids: HashTable<u32>,
    /// foldhash instead of SipHash: term hashing was a fifth of a bulk build's instructions. It is
    /// seeded per process, so term names chosen by a third party still cannot be aimed at collisions.
    term_hasher: foldhash::fast::RandomState,
    term_text: String,
    /// Bytes of `term_text` whose term is gone; compacted when they are most of it.
    term_garbage: usize,
    terms: Vec<TermEntry<F>>,
    free_term_ids: Vec<u32>,
    /// Field lengths per document slot (none for slots not indexed).
    docs: DocLengths<F>,
    total_lengths: [u64; F],
    doc_count: usize,
    /// During a bulk build (see [`start_bulk`](Self::start_bulk)), by term id: 1 + the term's
    /// position in the document being added, 0 otherwise. Empty outside of one.
    in_doc: Vec<u32>,
    /// During a bulk build, the term frequencies of the document being added (kept between
    /// documents for its allocation). Empty outside of one.
    doc_counts: Vec<(u32, [u32; F])>,
    bulk: bool,
    /// The terms of the documents the co-use step asked about (see [`forward`]).
    forward: forward::Forward,
    /// The name terms, by one of their words (see [`names`]).
    names: names::NameTerms,
}

/// Per-thread buffers reused across queries, so a discover allocates nothing proportional to N.
#[derive(Default)]
struct Scratch {
    scores: Vec<f64>,
    /// 0 when untouched, otherwise 1 + the position in `touched`.
    touch: Vec<u32>,
    touched: Vec<DocId>,
    /// One bit per document slot: reached by the pruned search (it needs no score table; 12.5 KB
    /// at 100,000 tools where `scores` and `touch` take 1.2 MB).
    seen: Vec<u64>,
    /// The pruned search's scored documents with their tie keys, kept (cleared) between queries
    /// so a discover does not grow a fresh vector from empty every time.
    scored: Vec<(ScoredDoc, u64)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Scratch {
    /// Readies `seen` for a pruned search over `slots` document slots.
    fn start_reaching(&mut self, slots: usize) {
        let words = slots.div_ceil(64);
        if self.seen.len() < words {
            self.seen.resize(words, 0);
        }
    }

    /// Marks `doc` reached; false when a search had already reached it.
    #[inline(always)]
    fn first_reach(&mut self, doc: DocId) -> bool {
        let (word, bit) = (doc as usize / 64, 1u64 << (doc % 64));
        if self.seen[word] & bit != 0 {
            return false;
        }
        self.seen[word] |= bit;
        self.touched.push(doc);
        true
    }

    /// Clears what a pruned search reached, for the next one.
    fn forget_reached(&mut self) {
        for &doc in &self.touched {
            self.seen[doc as usize / 64] = 0;
        }
        self.touched.clear();
    }
}

impl<const F: usize> Default for Index<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const F: usize> Index<F> {
    /// An empty index.
    pub fn new() -> Self {
        // A posting's encoding holds a field mask in a u64 and at most 5 bytes per field in a
        // fixed buffer (`postings::codec::ENCODED_MAX`).
        const { assert!(F <= 20, "the index takes at most 20 fields") };
        Index {
            term_ids: HashTable::new(),
            term_hasher: Default::default(),
            term_text: String::new(),
            term_garbage: 0,
            terms: Vec::new(),
            free_term_ids: Vec::new(),
            docs: DocLengths::default(),
            total_lengths: [0; F],
            doc_count: 0,
            in_doc: Vec::new(),
            doc_counts: Vec::new(),
            bulk: false,
            forward: Default::default(),
            names: Default::default(),
        }
    }

    /// Number of indexed documents.
    pub fn doc_count(&self) -> usize {
        self.doc_count
    }

    /// Whether `doc` is indexed.
    pub fn contains(&self, doc: DocId) -> bool {
        self.docs.get(doc).is_some()
    }

    /// Number of documents containing `term` in any field.
    pub fn doc_freq(&self, term: &str) -> usize {
        self.entry(term).map_or(0, |e| e.postings.len())
    }

    /// Number of documents whose name field contains `term`.
    pub fn name_doc_freq(&self, term: &str) -> usize {
        self.entry(term).map_or(0, |e| e.postings.name_df())
    }

    /// The postings of `term`, in registration order (decoded into a new list).
    pub fn postings(&self, term: &str) -> Vec<Posting<F>> {
        self.entry(term).map_or_else(Vec::new, |e| {
            e.postings
                .iter()
                .map(|(doc, tf)| Posting { doc, tf })
                .collect()
        })
    }

    /// The posting of `term` in `doc`, if the document contains the term.
    pub fn posting(&self, term: &str, doc: DocId) -> Option<Posting<F>> {
        let e = self.entry(term)?;
        e.postings.get(doc).map(|tf| Posting { doc, tf })
    }

    /// Field lengths of `doc`, if indexed.
    pub fn doc_lengths(&self, doc: DocId) -> Option<[u32; F]> {
        self.docs.get(doc)
    }

    /// What the index holds, for memory accounting in benchmarks: (terms, postings, blocks,
    /// encoded posting bytes, bytes allocated for postings including block headers).
    #[doc(hidden)]
    pub fn stats(&self) -> (usize, usize, usize, usize, usize) {
        let mut out = (self.term_ids.len(), 0, 0, 0, 0);
        for e in &self.terms {
            out.1 += e.postings.len();
            out.2 += e.postings.blocks().len();
            let (used, held) = e.postings.bytes();
            out.3 += used;
            out.4 += held;
        }
        out
    }

    /// Total length of each field over all indexed documents.
    pub fn total_lengths(&self) -> [u64; F] {
        self.total_lengths
    }

    fn entry(&self, term: &str) -> Option<&TermEntry<F>> {
        self.term_id(term).map(|id| &self.terms[id as usize])
    }

    fn term_id(&self, term: &str) -> Option<u32> {
        let (terms, text) = (&self.terms, &self.term_text);
        self.term_ids
            .find(self.term_hasher.hash_one(term), |&id| {
                term_at(terms, text, id) == term
            })
            .copied()
    }

    /// Indexes `doc`. Adding a document that is already indexed is a logic error and is refused.
    pub fn add<S: AsRef<str>>(&mut self, doc: DocId, fields: &[Vec<S>; F]) -> bool {
        self.add_with(doc, |d| {
            for (f, tokens) in fields.iter().enumerate() {
                for token in tokens {
                    d.push(f, token.as_ref());
                }
            }
        })
    }

    /// Starts a bulk build: [`add`](Self::add) counts frequencies through a table by term id
    /// until [`shrink_to_fit`](Self::shrink_to_fit) ends it and frees the table.
    pub fn start_bulk(&mut self) {
        self.bulk = true;
    }

    /// Gives back the spare capacity that appending leaves in posting lists, and all but a
    /// sixteenth in the tables of terms and lengths; for after a bulk build (the next append to a
    /// list grows it again). Ends a bulk build.
    pub fn shrink_to_fit(&mut self) {
        self.bulk = false;
        self.in_doc = Vec::new();
        self.doc_counts = Vec::new();
        for e in &mut self.terms {
            e.postings.shrink_to_fit();
        }
        self.terms.shrink_to(with_room(self.terms.len()));
        self.term_text.shrink_to(with_room(self.term_text.len()));
        // Slots are appended one by one, so the table of lengths has up to half its size spare.
        self.docs.shrink_to_room();
    }

    /// Removes `doc`, given the same field tokens it was added with. Returns false if it was not indexed.
    pub fn remove<S: AsRef<str>>(&mut self, doc: DocId, fields: &[Vec<S>; F]) -> bool {
        self.remove_with(doc, |push| {
            for tokens in fields {
                for token in tokens {
                    push(token.as_ref());
                }
            }
        })
    }

    fn term_id_or_insert(&mut self, term: &str) -> u32 {
        let hash = self.term_hasher.hash_one(term);
        let (terms, text) = (&self.terms, &self.term_text);
        if let Some(&id) = self
            .term_ids
            .find(hash, |&id| term_at(terms, text, id) == term)
        {
            return id;
        }
        if self.term_garbage > (1 << 16) && self.term_garbage * 2 > self.term_text.len() {
            self.compact_term_text();
        }
        let id = match self.free_term_ids.pop() {
            Some(id) => id,
            None => {
                self.terms.push(TermEntry::default());
                (self.terms.len() - 1) as u32
            }
        };
        self.names.added(term, id);
        let entry = &mut self.terms[id as usize];
        entry.at = u32::try_from(self.term_text.len()).expect("term text under 4 GiB");
        entry.len = term.len() as u32;
        self.term_text.push_str(term);
        let (terms, text, hasher) = (&self.terms, &self.term_text, &self.term_hasher);
        self.term_ids
            .insert_unique(hash, id, |&i| hasher.hash_one(term_at(terms, text, i)));
        id
    }

    /// Rewrites the term arena with the live terms only (after many terms came and went).
    fn compact_term_text(&mut self) {
        let mut text = String::with_capacity(self.term_text.len() - self.term_garbage);
        for &id in self.term_ids.iter() {
            let e = &mut self.terms[id as usize];
            let old = &self.term_text[e.at as usize..(e.at + e.len) as usize];
            e.at = text.len() as u32;
            text.push_str(old);
        }
        self.term_text = text;
        self.term_garbage = 0;
    }

    /// Renumbers documents through `map` (old slot to new slot), which must preserve order.
    /// Used when the registry compacts its slots; posting lists stay sorted.
    pub fn renumber(&mut self, map: &[Option<DocId>]) {
        self.forward.clear();
        self.docs.renumber(map);
        let docs = &self.docs;
        let lengths_of = |d: DocId| docs.of(d);
        for entry in &mut self.terms {
            entry.postings.renumber(map, &lengths_of);
        }
    }

    /// Weighted average document length, 1.0 when every weighted field is empty.
    pub fn weighted_avgdl(&self, weights: &[f64; F]) -> f64 {
        let n = self.doc_count as f64;
        let mut avgdl = 0.0;
        for (w, total) in weights.iter().zip(self.total_lengths) {
            avgdl += w * (total as f64 / n);
        }
        if avgdl == 0.0 { 1.0 } else { avgdl }
    }

    /// The length statistics scoring with `p` needs.
    pub fn length_stats(&self, p: &Bm25Params<F>) -> LengthStats<F> {
        let mut avg = [0.0; F];
        if self.doc_count > 0 {
            for (a, total) in avg.iter_mut().zip(self.total_lengths) {
                *a = total as f64 / self.doc_count as f64;
            }
        }
        LengthStats {
            avgdl: self.weighted_avgdl(&p.weights),
            avg,
        }
    }

    /// BM25 inverse document frequency of a term found in `df` documents.
    pub fn idf(&self, df: usize) -> f64 {
        let n = self.doc_count as f64;
        let df = df as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The IDF query term `term`, found in `df` documents, is scored with: [`idf`](Self::idf),
    /// or, when the background model of `p` knows the term and the term is more common there than
    /// in the catalog, the IDF over the catalog together with as many background documents, each
    /// as long as the catalog's average document. A catalog is too small a sample of its language
    /// to tell a word every text uses ("good", "want") from a rare one it happens to hold in
    /// few tools; a word rarer in general text than in the catalog keeps the catalog's IDF, which
    /// knows its domain. The catalog and the background weigh the same (as many documents each):
    /// no constant to choose.
    ///
    /// A name term ([`name_term`]) is scored with the IDF of its most common word.
    pub fn term_idf(&self, term: &str, df: usize, p: &Bm25Params<F>) -> f64 {
        if is_name_term(term) {
            return names::words(term)
                .map(|w| self.word_idf(w, self.doc_freq(w), p))
                .fold(f64::INFINITY, f64::min)
                // Never above its own IDF: a word the index lacks (splitting ablated) has df 0.
                .min(self.idf(df));
        }
        self.word_idf(term, df, p)
    }

    /// [`term_idf`](Self::term_idf) of a word.
    fn word_idf(&self, term: &str, df: usize, p: &Bm25Params<F>) -> f64 {
        let idf = self.idf(df);
        if self.doc_count == 0 {
            return idf;
        }
        let Some(rate) = p.background.and_then(|rate_of| rate_of(term)) else {
            return idf;
        };
        let n = self.doc_count as f64;
        let avg_len = self.total_lengths.iter().sum::<u64>() as f64 / n;
        // The chance that a background document of the average length holds the term.
        let in_doc = 1.0 - (1.0 - rate).powf(avg_len);
        let df_both = df as f64 + n * in_doc;
        let both = ((2.0 * n - df_both + 0.5) / (df_both + 0.5) + 1.0).ln();
        idf.min(both)
    }

    /// Scores every document sharing a token with the query and returns them best first.
    ///
    /// Each query token (duplicates included) adds `idf * (wtf*(k1+1) / (wtf + k1*(1-b+b*wdl/avgdl)) + delta)`;
    /// with [`Bm25Params::per_field`] `wtf` sums per-field normalized frequencies and the
    /// denominator is `wtf + k1`, and with [`Bm25Params::saturate_query`] each occurrence is
    /// multiplied by [`Bm25Params::query_weight`].
    /// Equal scores keep the order in which scoring first reached the documents: query tokens in
    /// order, and for each token its postings in registration order. At most `top_k` are returned.
    pub fn search<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        top_k: usize,
    ) -> Vec<ScoredDoc> {
        self.search_floored(tokens, p, top_k, 0.0)
    }

    /// [`search`](Self::search) for an answer that keeps only the documents scoring at least
    /// `floor_ratio` times the best score: documents below that floor may be missing (the search
    /// prunes with the floor as well as with the k-th best score); every document at or above it
    /// is there, with the same score and in the same order. `floor_ratio` 0 is `search`.
    pub fn search_floored<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        top_k: usize,
        floor_ratio: f64,
    ) -> Vec<ScoredDoc> {
        if self.doc_count == 0 || top_k == 0 {
            return Vec::new();
        }
        let terms = self.query_terms(tokens);
        if terms.is_empty() {
            return Vec::new();
        }
        self.search_pruned(&terms, p, top_k, floor_ratio)
    }

    /// Bytes of the lists that find name terms by one of their words (the terms themselves are
    /// in [`stats`](Self::stats)).
    #[doc(hidden)]
    pub fn name_terms_bytes(&self) -> usize {
        self.names.bytes()
    }

    /// The name terms ([`name_term`]) every word of which is among `tokens`, sorted.
    pub fn name_terms_within<S: AsRef<str>>(&self, tokens: &[S]) -> Vec<String> {
        // A name term has two words at least: a one-word query, the commonest, covers none.
        if tokens.len() < 2 || self.names.is_empty() {
            return Vec::new();
        }
        let mut words: Vec<&str> = tokens.iter().map(AsRef::as_ref).collect();
        words.sort_unstable();
        words.dedup();
        let (terms, text) = (&self.terms, &self.term_text);
        let mut found: Vec<String> = self
            .names
            .covered(&words, |id| term_at(terms, text, id))
            .into_iter()
            .map(|id| term_at(terms, text, id).to_string())
            .collect();
        found.sort_unstable();
        found
    }

    /// The query tokens that name an indexed term, in query order (duplicates kept), with their
    /// entries.
    fn query_terms<'a, S: AsRef<str>>(
        &'a self,
        tokens: &'a [S],
    ) -> Vec<(&'a str, &'a TermEntry<F>)> {
        tokens
            .iter()
            .filter_map(|t| Some((t.as_ref(), self.entry(t.as_ref())?)))
            .collect()
    }

    /// The scores [`search`](Self::search) gives `docs`, in their order (0 for a document no
    /// query token reaches, or not indexed), bit for bit: for the few documents a caller needs
    /// the score of without ranking everything (a merge of several rankings).
    pub fn score_docs<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        docs: &[DocId],
    ) -> Vec<f64> {
        let terms = self.query_terms(tokens);
        if terms.is_empty() || self.doc_count == 0 {
            return vec![0.0; docs.len()];
        }
        in_doc_order(docs, |sorted| self.score_listed(&terms, p, sorted))
    }

    /// Whether a query token reaches each of `docs` (in their order): exactly whether
    /// [`score_docs`](Self::score_docs) gives it a score above 0, at a fraction of the cost.
    pub fn reaches_docs<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        docs: &[DocId],
    ) -> Vec<bool> {
        let terms = self.query_terms(tokens);
        if terms.is_empty() || self.doc_count == 0 {
            return vec![false; docs.len()];
        }
        if docs.windows(2).all(|w| w[0] < w[1]) {
            // Already in the order the postings are walked in (the co-use step's).
            return self.reaches_listed(&terms, p, docs);
        }
        in_doc_order(docs, |sorted| self.reaches_listed(&terms, p, sorted))
    }

    /// [`reaches_docs`](Self::reaches_docs), answered from each document's own terms, kept
    /// from the first time it is asked about until it changes: for a caller that asks about
    /// the same few documents query after query, most of which no query token reaches.
    /// `tokens_of` hands a document's tokens to the sink, every token it was added with, in any
    /// order and field.
    pub fn reaches_docs_kept<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        docs: &[DocId],
        tokens_of: impl Fn(DocId, &mut dyn FnMut(&str)),
    ) -> Vec<bool> {
        // Otherwise where a term is found matters, and the posting lists tell.
        if !p.every_posting_scores() {
            return self.reaches_docs(tokens, p, docs);
        }
        let mut ids: Vec<u32> = tokens
            .iter()
            .filter_map(|t| self.term_id(t.as_ref()))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return vec![false; docs.len()];
        }
        self.holds_any(&ids, docs, tokens_of)
    }

    /// Scores every document reached by any query token, term at a time. The plain form of
    /// [`search`](Self::search), which answers exactly like it.
    pub fn search_exhaustive<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        top_k: usize,
    ) -> Vec<ScoredDoc> {
        if top_k == 0 {
            return Vec::new();
        }
        let mut hits = self.score_touched(tokens, p);
        rank(&mut hits, top_k);
        hits.into_iter().map(|(h, _)| h).collect()
    }

    /// The score of every document reached by any query token that `keep` keeps: its best `top_k`
    /// first, ranked as [`search`](Self::search) ranks them, then the rest in no particular order.
    /// For a caller that needs the whole distribution (the hybrid fusion), which pruning cannot
    /// give.
    pub fn score_all<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
        top_k: usize,
        keep: impl Fn(&ScoredDoc) -> bool,
    ) -> Vec<ScoredDoc> {
        let mut hits = self.score_touched(tokens, p);
        hits.retain(|h| keep(&h.0));
        let order = |a: &(ScoredDoc, u32), b: &(ScoredDoc, u32)| {
            b.0.score.total_cmp(&a.0.score).then(a.1.cmp(&b.1))
        };
        let head = top_k.min(hits.len());
        if head > 0 && head < hits.len() {
            hits.select_nth_unstable_by(head - 1, order);
        }
        hits[..head].sort_unstable_by(order);
        hits.into_iter().map(|(h, _)| h).collect()
    }

    /// Every reached document's score, with the order in which it was first reached.
    fn score_touched<S: AsRef<str>>(
        &self,
        tokens: &[S],
        p: &Bm25Params<F>,
    ) -> Vec<(ScoredDoc, u32)> {
        if self.doc_count == 0 {
            return Vec::new();
        }
        let stats = self.length_stats(p);
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let s = &mut *s;
            if s.scores.len() < self.docs.len() {
                s.scores.resize(self.docs.len(), 0.0);
                s.touch.resize(self.docs.len(), 0);
            }
            for token in tokens {
                let Some(entry) = self.entry(token.as_ref()) else {
                    continue;
                };
                let times = tokens
                    .iter()
                    .filter(|t| t.as_ref() == token.as_ref())
                    .count();
                let weight =
                    self.term_idf(token.as_ref(), entry.postings.len(), p) * p.query_weight(times);
                for (doc, tf) in entry.postings.iter() {
                    let d = doc as usize;
                    let lengths = self.docs.of(doc);
                    let contribution = weight * tf_norm(tf, &lengths, p, &stats);
                    if s.touch[d] == 0 {
                        s.touched.push(doc);
                        s.touch[d] = s.touched.len() as u32;
                    }
                    s.scores[d] += contribution;
                }
            }
            let hits: Vec<(ScoredDoc, u32)> = s
                .touched
                .iter()
                .map(|&doc| {
                    (
                        ScoredDoc {
                            doc,
                            score: s.scores[doc as usize],
                        },
                        s.touch[doc as usize],
                    )
                })
                .collect();
            for &doc in &s.touched {
                s.scores[doc as usize] = 0.0;
                s.touch[doc as usize] = 0;
            }
            s.touched.clear();
            hits
        })
    }

    /// The BM25+ normalized term frequency of one posting in a document of field lengths `lengths`.
    pub fn tf_norm(&self, posting: &Posting<F>, lengths: &[u32; F], p: &Bm25Params<F>) -> f64 {
        tf_norm(posting.tf, lengths, p, &self.length_stats(p))
    }

    /// What one occurrence in each field of a document of field lengths `lengths` adds to the
    /// weighted frequency: the field weights, divided by each field's length normalization when
    /// [`Bm25Params::per_field`] is on.
    pub fn field_scales(&self, lengths: &[u32; F], p: &Bm25Params<F>) -> [f64; F] {
        doc_norm(lengths, p, &self.length_stats(p)).scale
    }

    /// A canonical, order-independent view of the index, for checking that incremental upkeep
    /// ends where a rebuild from scratch would.
    pub fn canonical(&self) -> CanonicalIndex<F> {
        let mut terms: Vec<(String, Vec<Posting<F>>, u32)> = self
            .term_ids
            .iter()
            .map(|&id| {
                let e = &self.terms[id as usize];
                let postings = e
                    .postings
                    .iter()
                    .map(|(doc, tf)| Posting { doc, tf })
                    .collect();
                let t = term_at(&self.terms, &self.term_text, id);
                (t.to_string(), postings, e.postings.name_df() as u32)
            })
            .collect();
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let docs = self.docs.iter().collect();
        CanonicalIndex {
            terms,
            docs,
            total_lengths: self.total_lengths,
            doc_count: self.doc_count,
        }
    }
}

/// See [`Index::canonical`].
#[derive(Debug, PartialEq, Eq)]
pub struct CanonicalIndex<const F: usize> {
    terms: Vec<(String, Vec<Posting<F>>, u32)>,
    docs: Vec<(DocId, [u32; F])>,
    total_lengths: [u64; F],
    doc_count: usize,
}

/// `per_doc`'s answers for `docs` in their order, asked of them ascending and each once: seeks in
/// postings only go forward.
fn in_doc_order<T: Copy>(docs: &[DocId], per_doc: impl FnOnce(&[DocId]) -> Vec<T>) -> Vec<T> {
    let mut sorted: Vec<DocId> = docs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let answers = per_doc(&sorted);
    docs.iter()
        .map(|d| answers[sorted.binary_search(d).expect("sorted from docs")])
        .collect()
}

/// The text of term `id`.
#[inline]
fn term_at<'a, const F: usize>(terms: &[TermEntry<F>], text: &'a str, id: u32) -> &'a str {
    let e = &terms[id as usize];
    &text[e.at as usize..(e.at + e.len) as usize]
}

/// Sorts best first (score descending, then first touch) and keeps `top_k`.
fn rank<K: Ord>(hits: &mut Vec<(ScoredDoc, K)>, top_k: usize) {
    let order = |a: &(ScoredDoc, K), b: &(ScoredDoc, K)| {
        b.0.score.total_cmp(&a.0.score).then(a.1.cmp(&b.1))
    };
    if hits.len() > top_k {
        hits.select_nth_unstable_by(top_k - 1, order);
        hits.truncate(top_k);
    }
    hits.sort_unstable_by(order);
}

#[cfg(test)]
mod tests;
