//! Tests of the index: scoring, ties, pruned against exhaustive search, upkeep, the term arena.

use super::*;

fn fields(name: &str, desc: &str) -> FieldTokens<2> {
    [
        name.split_whitespace().map(String::from).collect(),
        desc.split_whitespace().map(String::from).collect(),
    ]
}

const P: Bm25Params<2> = Bm25Params {
    weights: [3.0, 2.0],
    k1: 1.5,
    b: 0.75,
    delta: 1.0,
    per_field: false,
    saturate_query: false,
    background: None,
};

#[test]
fn scores_follow_the_formula() {
    let mut idx = Index::<2>::new();
    idx.add(0, &fields("read file", "read a file"));
    idx.add(1, &fields("send email", "send a message"));
    let hits = idx.search(&["file"], &P, 10);
    assert_eq!(hits.len(), 1);
    // N=2, df=1: idf = ln(1.5/1.5 + 1) = ln 2; wtf = 3+2 = 5; wdl = 6+6 = 12; avgdl = 3*2 + 2*3 = 12
    let expected = 2f64.ln() * (5.0 * 2.5 / (5.0 + 1.5) + 1.0);
    assert!((hits[0].score - expected).abs() < 1e-12);
}

#[test]
fn per_field_normalization_and_query_saturation_follow_the_formula() {
    let mut idx = Index::<2>::new();
    idx.add(0, &fields("read file", "read a file"));
    idx.add(1, &fields("send email now", "send a long message"));
    let p = Bm25Params {
        delta: 0.0,
        per_field: true,
        ..P
    };
    // avg name 2.5, avg description 3.5: each field normalized by its own average.
    let wtf = 3.0 / (0.25 + 0.75 * 2.0 / 2.5) + 2.0 / (0.25 + 0.75 * 3.0 / 3.5);
    let tf_norm = wtf * 2.5 / (wtf + 1.5);
    let hits = idx.search(&["file"], &p, 10);
    assert!((hits[0].score - 2f64.ln() * tf_norm).abs() < 1e-12);
    // A token given twice counts 2 * 2.5 / 3.5 times with saturation, twice without.
    let q = Bm25Params {
        saturate_query: true,
        background: None,
        ..p
    };
    let twice = idx.search(&["file", "file"], &q, 10);
    assert!((twice[0].score - 2f64.ln() * tf_norm * 2.0 * 2.5 / 3.5).abs() < 1e-12);
    let plain = idx.search(&["file", "file"], &p, 10);
    assert!((plain[0].score - 2.0 * 2f64.ln() * tf_norm).abs() < 1e-12);
    assert_eq!(q.query_weight(1), 1.0);
}

#[test]
fn ties_keep_first_touch_order() {
    let mut idx = Index::<2>::new();
    idx.add(0, &fields("a", "x"));
    idx.add(1, &fields("b", "y"));
    idx.add(2, &fields("c", "x"));
    // "y" touches doc 1 first, then "x" touches 0 and 2 with the same score.
    let hits: Vec<DocId> = idx
        .search(&["y", "x"], &P, 10)
        .iter()
        .map(|h| h.doc)
        .collect();
    assert_eq!(hits[0], 1);
    assert_eq!(&hits[1..], &[0, 2]);
}

#[test]
fn pruned_search_answers_like_exhaustive() {
    // Small vocabulary, Zipf-ish: common words, rare words, repeated tokens and many ties.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let r = x % (n * n);
        (r as f64).sqrt() as u64 // skewed toward large values, squared down below
    };
    let word = |i: u64| format!("w{}", 40 - i.min(40));
    let mut idx = Index::<2>::new();
    let mut docs = Vec::new();
    for d in 0..600u32 {
        let name: Vec<String> = (0..1 + next(3)).map(|_| word(next(40))).collect();
        let desc: Vec<String> = (0..next(12)).map(|_| word(next(40))).collect();
        idx.add(d, &[name.clone(), desc.clone()]);
        docs.push([name, desc]);
    }
    for d in (0..600u32).step_by(7) {
        assert!(idx.remove(d, &docs[d as usize]));
    }
    for q in 0..400 {
        let tokens: Vec<String> = (0..2 + q % 5).map(|_| word(next(40))).collect();
        for top_k in [1, 3, 10, 1000] {
            let a = idx.search(&tokens, &P, top_k);
            let b = idx.search_exhaustive(&tokens, &P, top_k);
            assert_eq!(a.len(), b.len(), "{tokens:?} top_k {top_k}");
            for (ha, hb) in a.iter().zip(&b) {
                assert_eq!(ha.doc, hb.doc, "{tokens:?} top_k {top_k}");
                assert_eq!(ha.score.to_bits(), hb.score.to_bits());
            }
        }
    }
}

#[test]
fn frequencies_of_255_and_more_are_kept_in_full() {
    let many = |n: usize| vec!["x".to_string(); n];
    let mut idx = Index::<2>::new();
    idx.add(0, &[vec!["a".into()], many(254)]);
    idx.add(1, &[vec!["b".into()], many(255)]);
    idx.add(2, &[many(300), many(70_000)]);
    idx.add(3, &[vec!["x".to_string()], vec![]]);
    let tfs: Vec<[u32; 2]> = idx.postings("x").iter().map(|p| p.tf).collect();
    assert_eq!(tfs, [[0, 254], [0, 255], [300, 70_000], [1, 0]]);
    assert_eq!(idx.posting("x", 2).map(|p| p.tf), Some([300, 70_000]));
    let pruned = idx.search(&["x", "a"], &P, 10);
    let exhaustive = idx.search_exhaustive(&["x", "a"], &P, 10);
    assert_eq!(pruned, exhaustive);
    assert!(idx.remove(1, &[vec!["b".into()], many(255)]));
    assert_eq!(idx.posting("x", 2).map(|p| p.tf), Some([300, 70_000]));
    idx.renumber(&[Some(0), None, Some(1), Some(2)]);
    assert_eq!(idx.posting("x", 1).map(|p| p.tf), Some([300, 70_000]));
    let mut fresh = Index::<2>::new();
    fresh.add(0, &[vec!["a".into()], many(254)]);
    fresh.add(1, &[many(300), many(70_000)]);
    fresh.add(2, &[vec!["x".to_string()], vec![]]);
    assert_eq!(idx.canonical(), fresh.canonical());
}

/// The background's rates of the test below: "want" is very common in general text, "file" rare.
fn test_background(term: &str) -> Option<f64> {
    match term {
        "want" => Some(0.2),
        "file" => Some(1e-6),
        _ => None,
    }
}

#[test]
fn background_discounts_only_words_more_common_in_general_text() {
    let mut idx = Index::<2>::new();
    idx.add(0, &fields("read file", "read a file i want"));
    idx.add(1, &fields("send email", "send a message"));
    idx.add(2, &fields("list files", "list the files"));
    let p = Bm25Params {
        background: Some(test_background),
        ..P
    };
    let plain = idx.idf(1);
    // 3 documents of 17 tokens in all. A background document of 17/3 words holds "want" with
    // probability 1 - 0.8^(17/3); over 6 documents, "want" is in 1 + 3 * that.
    let df = 1.0 + 3.0 * (1.0 - 0.8f64.powf(17.0 / 3.0));
    let both = ((6.0 - df + 0.5) / (df + 0.5) + 1.0).ln();
    assert!(both < plain);
    assert!((idx.term_idf("want", 1, &p) - both).abs() < 1e-12);
    // Rarer in general text than in the catalog, or unknown: the catalog's IDF.
    assert_eq!(idx.term_idf("file", 1, &p), plain);
    assert_eq!(idx.term_idf("read", 1, &p), plain);
    assert_eq!(idx.term_idf("want", 1, &P), plain);
    // And the search scores with it.
    let hits = idx.search(&["want"], &p, 10);
    let unscaled = idx.search(&["want"], &P, 10);
    assert_eq!(hits[0].doc, 0);
    assert!((hits[0].score / unscaled[0].score - both / plain).abs() < 1e-12);
}

#[test]
fn remove_then_add_equals_fresh() {
    let mut a = Index::<2>::new();
    a.add(0, &fields("a b", "c"));
    a.add(1, &fields("b", "c d"));
    a.add(2, &fields("e", "f"));
    assert!(a.remove(1, &fields("b", "c d")));
    assert!(!a.remove(1, &fields("b", "c d")));
    let mut b = Index::<2>::new();
    b.add(2, &fields("e", "f"));
    b.add(0, &fields("a b", "c"));
    assert_eq!(a.canonical(), b.canonical());
    assert_eq!(a.doc_freq("d"), 0);
    assert_eq!(a.name_doc_freq("b"), 1);
}

mod block_max_tests {
    use super::super::*;

    /// A background model for the words `w0`..`w299`: a third common in general text (most of
    /// them discounted), a third rare there (not discounted), a third unknown.
    fn zipf_background(term: &str) -> Option<f64> {
        let rank: u32 = term.strip_prefix('w')?.parse().ok()?;
        match rank % 3 {
            0 => Some(0.3 / f64::from(rank + 1).sqrt()),
            1 => Some(1e-7),
            _ => None,
        }
    }

    /// Block-max pruning over many blocks, with removals, middle insertions and compaction,
    /// answers exactly like the exhaustive scorer for a spread of weights, k1, b and delta, with
    /// name terms in the documents and the queries that cover them.
    #[test]
    fn block_max_search_answers_like_exhaustive_for_any_parameters() {
        let mut x: u64 = 0x1234_5678_9ABC_DEF1;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        // Zipf-like word ranks: a few very common words, a long tail.
        let word = |rnd: &mut dyn FnMut(u64) -> u64| {
            let r = rnd(1 << 20) as f64 / f64::from(1 << 20);
            format!("w{}", (300f64.powf(r) as u64).min(299))
        };
        let mut idx = Index::<3>::new();
        let mut docs: Vec<Option<[Vec<String>; 3]>> = Vec::new();
        for d in 0..4000u32 {
            let mut f = |n: u64| -> Vec<String> { (0..rnd(n)).map(|_| word(&mut rnd)).collect() };
            let mut doc = [f(4), f(30), f(6)];
            // A name of two or more words is a name term too, which leads first.
            let name = name_term(&doc[0]);
            doc[0].extend(name);
            if d % 11 == 0 {
                // Long repeats: frequencies of 255 and more.
                let mut doc = doc;
                doc[1].extend(std::iter::repeat_n("w1".to_string(), 300));
                idx.add(d, &doc);
                docs.push(Some(doc));
            } else {
                idx.add(d, &doc);
                docs.push(Some(doc));
            }
        }
        // Remove a third, re-add some in the middle (blocks rewritten, bounds left stale).
        for (d, slot) in docs.iter_mut().enumerate() {
            if rnd(3) == 0 {
                let doc = slot.take().unwrap();
                assert!(idx.remove(d as DocId, &doc));
                if rnd(4) == 0 {
                    idx.add(d as DocId, &doc);
                    *slot = Some(doc);
                }
            }
        }
        // (weights, k1, b, delta, per-field normalization, query saturation, background model)
        let p = |weights, k1, b, delta, per_field, saturate_query, background| Bm25Params {
            weights,
            k1,
            b,
            delta,
            per_field,
            saturate_query,
            background,
        };
        let zipf = Some(zipf_background as fn(&str) -> Option<f64>);
        let params = [
            p([3.0, 2.0, 1.0], 1.5, 0.75, 1.0, false, false, None),
            p([3.0, 2.0, 1.0], 1.2, 0.75, 0.0, false, false, None),
            p([0.0, 1.0, 0.0], 0.0, 1.0, 0.0, false, false, None),
            p([5.0, 0.0, 2.5], 3.0, 0.0, 0.5, false, false, None),
            p([1.0, 1.0, 1.0], 0.5, 1.0, 2.0, false, false, None),
            // The enhanced profile's switches: per-field normalization, query-term saturation.
            p([3.0, 2.0, 1.0], 1.5, 0.75, 0.0, true, true, None),
            p([0.0, 1.0, 4.0], 0.8, 1.0, 0.5, true, false, None),
            p([2.0, 2.0, 1.0], 2.0, 0.3, 0.0, false, true, None),
            // A background model that knows common and rare words, above and below their share
            // of the catalog: some IDFs discounted, some not.
            p([3.0, 2.0, 1.0], 1.5, 0.75, 0.0, true, true, zipf),
            p([1.0, 3.0, 0.5], 1.2, 0.75, 1.0, false, false, zipf),
        ];
        // The background really discounts some words and leaves others.
        let discounted = (0..300)
            .map(|r| format!("w{r}"))
            .filter(|w| idx.doc_freq(w) > 0)
            .map(|w| idx.term_idf(&w, idx.doc_freq(&w), &params[8]) < idx.idf(idx.doc_freq(&w)))
            .fold(
                (0, 0),
                |(yes, no), d| if d { (yes + 1, no) } else { (yes, no + 1) },
            );
        assert!(discounted.0 > 20 && discounted.1 > 20, "{discounted:?}");
        // Queries that cover some document's name term (the test would not see name terms else).
        let covering = std::cell::Cell::new(0usize);
        let check =
            |idx: &Index<3>, held: &[Option<[Vec<String>; 3]>], rnd: &mut dyn FnMut(u64) -> u64| {
                for q in 0..300 {
                    let n = 1 + q % 5;
                    let w = |rnd: &mut dyn FnMut(u64) -> u64| {
                        let r = rnd(1 << 20) as f64 / f64::from(1 << 20);
                        format!("w{}", (300f64.powf(r) as u64).min(299))
                    };
                    let mut tokens: Vec<String> = (0..n).map(|_| w(rnd)).collect();
                    let names = idx.name_terms_within(&tokens);
                    covering.set(covering.get() + usize::from(!names.is_empty()));
                    tokens.extend(names);
                    let p = &params[q % params.len()];
                    // Scores looked up for a few documents, in any order, agree to the bit; a
                    // document no token reaches (or removed, or never added) scores 0.
                    let all = idx.search_exhaustive(&tokens, p, usize::MAX);
                    let mut sample: Vec<(DocId, u64)> = all
                        .iter()
                        .rev()
                        .step_by(3)
                        .map(|h| (h.doc, h.score.to_bits()))
                        .collect();
                    for _ in 0..5 {
                        let d = rnd(4200) as DocId;
                        if !all.iter().any(|h| h.doc == d) {
                            sample.push((d, 0.0f64.to_bits()));
                        }
                    }
                    let docs: Vec<DocId> = sample.iter().map(|s| s.0).collect();
                    let got: Vec<u64> = idx
                        .score_docs(&tokens, p, &docs)
                        .iter()
                        .map(|s| s.to_bits())
                        .collect();
                    let want: Vec<u64> = sample.iter().map(|s| s.1).collect();
                    assert_eq!(got, want, "{tokens:?} {p:?}");
                    // Reached exactly where scored above 0.
                    let reached = idx.reaches_docs(&tokens, p, &docs);
                    let positive: Vec<bool> =
                        sample.iter().map(|s| f64::from_bits(s.1) > 0.0).collect();
                    assert_eq!(reached, positive, "{tokens:?} {p:?}");
                    // And from the documents' kept terms, made the first time (asked twice: made,
                    // then kept), from the tokens each was added with.
                    let tokens_of = |d: DocId, push: &mut dyn FnMut(&str)| {
                        for t in held[d as usize].iter().flatten().flatten() {
                            push(t);
                        }
                    };
                    for _ in 0..2 {
                        let kept = idx.reaches_docs_kept(&tokens, p, &docs, tokens_of);
                        assert_eq!(kept, positive, "{tokens:?} {p:?} kept");
                    }
                    for top_k in [1, 5, 10, 100] {
                        let a = idx.search(&tokens, p, top_k);
                        let b = idx.search_exhaustive(&tokens, p, top_k);
                        assert_eq!(a.len(), b.len(), "{tokens:?} top_k {top_k}");
                        for (ha, hb) in a.iter().zip(&b) {
                            assert_eq!(ha.doc, hb.doc, "{tokens:?} top_k {top_k} {p:?}");
                            assert_eq!(ha.score.to_bits(), hb.score.to_bits());
                        }
                        // With a score floor: the same hits at or above it.
                        for ratio in [0.3, 0.75, 1.0] {
                            let above = |hits: Vec<ScoredDoc>| -> Vec<(DocId, u64)> {
                                let floor = hits.first().map_or(0.0, |h| h.score * ratio);
                                hits.iter()
                                    .filter(|h| h.score >= floor)
                                    .map(|h| (h.doc, h.score.to_bits()))
                                    .collect()
                            };
                            let a = above(idx.search_floored(&tokens, p, top_k, ratio));
                            assert_eq!(
                                a,
                                above(b.clone()),
                                "{tokens:?} top_k {top_k} ratio {ratio}"
                            );
                            // Searched together with other rankings (of the query's tokens and
                            // others), each answers the same at or above its cut, and every listed
                            // document comes with its score in each ranking, bit for bit.
                            let others: Vec<Vec<String>> = (0..1 + q % 3)
                                .map(|i| {
                                    let mut t: Vec<String> =
                                        tokens.iter().skip(i).step_by(2).cloned().collect();
                                    t.push(w(rnd));
                                    t
                                })
                                .collect();
                            let depth = 1 + top_k / 2;
                            let wanted: Vec<Wanted<'_, String>> = std::iter::once(Wanted {
                                tokens: &tokens[..],
                                top_k,
                                floor_ratio: ratio,
                                follows_first: false,
                            })
                            .chain(others.iter().enumerate().map(|(i, t)| Wanted {
                                tokens: &t[..],
                                top_k: depth,
                                floor_ratio: ratio * 0.5,
                                follows_first: i % 2 == 0,
                            }))
                            .collect();
                            let found = idx.search_together(&wanted, p);
                            assert_eq!(found.hits.len(), wanted.len());
                            let first = &b;
                            let share = match (first.first(), first.get(top_k - 1)) {
                                (Some(best), Some(kth)) if best.score > 0.0 => {
                                    kth.score / best.score * (1.0 - 1e-9)
                                }
                                _ => 0.0,
                            };
                            for (l, want) in wanted.iter().enumerate() {
                                let exact = idx.search_exhaustive(want.tokens, p, want.top_k);
                                let cut_ratio = if want.follows_first {
                                    want.floor_ratio.max(share)
                                } else {
                                    want.floor_ratio
                                };
                                let cut = |hits: &[ScoredDoc]| -> Vec<(DocId, u64)> {
                                    let floor = hits.first().map_or(0.0, |h| h.score * cut_ratio);
                                    hits.iter()
                                        .filter(|h| h.score >= floor)
                                        .map(|h| (h.doc, h.score.to_bits()))
                                        .collect()
                                };
                                assert_eq!(
                                    cut(&found.hits[l]),
                                    cut(&exact),
                                    "{tokens:?} ranking {l} top_k {top_k} ratio {ratio}"
                                );
                            }
                            if wanted.len() > 1 {
                                let mut listed: Vec<DocId> =
                                    found.hits.iter().flatten().map(|h| h.doc).collect();
                                listed.sort_unstable();
                                listed.dedup();
                                let docs: Vec<DocId> = found.scores.iter().map(|s| s.0).collect();
                                assert_eq!(docs, listed, "{tokens:?}");
                                for (l, want) in wanted.iter().enumerate() {
                                    let want_scores: Vec<u64> = idx
                                        .score_docs(want.tokens, p, &docs)
                                        .iter()
                                        .map(|s| s.to_bits())
                                        .collect();
                                    let got: Vec<u64> =
                                        found.scores.iter().map(|s| s.1[l].to_bits()).collect();
                                    assert_eq!(got, want_scores, "{tokens:?} ranking {l}");
                                }
                            }
                        }
                    }
                }
            };
        check(&idx, &docs, &mut rnd);
        assert!(
            covering.get() > 30,
            "{} queries cover a name term",
            covering.get()
        );
        // Compaction renumbers and re-encodes every list.
        let mut map = vec![None; docs.len()];
        let mut next = 0;
        for (d, doc) in docs.iter().enumerate() {
            if doc.is_some() {
                map[d] = Some(next);
                next += 1;
            }
        }
        idx.renumber(&map);
        let mut fresh = Index::<3>::new();
        for doc in docs.iter().flatten().enumerate() {
            fresh.add(doc.0 as DocId, doc.1);
        }
        assert_eq!(idx.canonical(), fresh.canonical());
        // The kept terms were of the old slots: renumbering drops them.
        let renumbered: Vec<Option<[Vec<String>; 3]>> =
            docs.iter().flatten().cloned().map(Some).collect();
        check(&idx, &renumbered, &mut rnd);
    }
}

mod forward_tests {
    use super::super::*;

    /// A document's kept terms are dropped when it is removed or added again: asked after, the
    /// answer is its new text's.
    #[test]
    fn kept_terms_follow_a_document_that_changes() {
        let doc = |words: &[&str]| -> [Vec<String>; 2] {
            [
                words.iter().map(|w| w.to_string()).collect(),
                vec!["common".into()],
            ]
        };
        let mut idx = Index::<2>::new();
        let mut held = vec![doc(&["alpha", "beta"]), doc(&["gamma"]), doc(&["delta"])];
        for (d, fields) in held.iter().enumerate() {
            idx.add(d as DocId, fields);
        }
        let p = Bm25Params {
            weights: [2.0, 1.0],
            k1: 1.2,
            b: 0.75,
            delta: 0.0,
            per_field: false,
            saturate_query: false,
            background: None,
        };
        let ask = |idx: &Index<2>, held: &[[Vec<String>; 2]], query: &[&str]| {
            idx.reaches_docs_kept(query, &p, &[0, 1, 2, 7], |d, push| {
                for t in held[d as usize].iter().flatten() {
                    push(t);
                }
            })
        };
        assert_eq!(ask(&idx, &held, &["beta"]), [true, false, false, false]);
        // Removed: no longer reached (and never asked about a slot not indexed).
        assert!(idx.remove(0, &held[0]));
        assert_eq!(ask(&idx, &held, &["beta"]), [false, false, false, false]);
        // Added again with other words: its new words, not its kept old ones.
        held[1] = doc(&["beta"]);
        assert!(idx.remove(1, &doc(&["gamma"])));
        idx.add(1, &held[1]);
        assert_eq!(ask(&idx, &held, &["beta"]), [false, true, false, false]);
        assert_eq!(ask(&idx, &held, &["gamma"]), [false, false, false, false]);
        // A word no document holds, and a word every one does.
        assert_eq!(ask(&idx, &held, &["omega"]), [false; 4]);
        assert_eq!(ask(&idx, &held, &["common"]), [false, true, true, false]);
    }
}

mod dictionary_tests {
    use super::super::*;

    /// Terms that come and go leave garbage in the term arena; once it is most of the arena it
    /// is compacted, and every live term is still found.
    #[test]
    fn the_term_arena_is_compacted_and_terms_stay_found() {
        let doc = |i: usize| -> [Vec<String>; 2] {
            [
                vec![format!("name{i}"), "common".into()],
                vec![format!("a_fairly_long_unique_description_word_{i}")],
            ]
        };
        let mut idx = Index::<2>::new();
        idx.add(0, &doc(0));
        for i in 1..20_000 {
            idx.add(i as DocId, &doc(i));
            if i % 10 != 0 {
                assert!(idx.remove(i as DocId, &doc(i)));
            }
        }
        assert!(idx.term_text.len() < 40 * 20_000 / 2, "compacted");
        let mut fresh = Index::<2>::new();
        fresh.add(0, &doc(0));
        for i in (10..20_000).step_by(10) {
            fresh.add(i as DocId, &doc(i));
        }
        assert_eq!(idx.canonical(), fresh.canonical());
        assert_eq!(idx.doc_freq("common"), 2_000);
        assert_eq!(idx.name_doc_freq("name1990"), 1);
        assert_eq!(idx.doc_freq("name1991"), 0);
        let hits = idx.search(&["a_fairly_long_unique_description_word_19990"], &P2, 3);
        assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), [19_990]);
    }

    const P2: Bm25Params<2> = Bm25Params {
        weights: [3.0, 2.0],
        k1: 1.5,
        b: 0.75,
        delta: 1.0,
        per_field: false,
        saturate_query: false,
        background: None,
    };
}

#[test]
fn a_name_term_adds_no_length_weighs_its_most_common_word_and_leaves_with_its_documents() {
    let name = name_term(&["meet", "delet"]).unwrap();
    let mut idx = Index::<2>::new();
    idx.add(
        0,
        &[
            vec!["delet", "meet", "deletemeet", name.as_str()],
            vec!["cancel"],
        ],
    );
    idx.add(1, &[vec!["add", "meet"], vec!["meet"]]);
    idx.add(2, &[vec!["weather"], vec![]]);
    assert_eq!(idx.doc_lengths(0), Some([3, 1]));
    assert_eq!(idx.total_lengths(), [6, 2]);
    let p = Bm25Params::<2> {
        weights: [2.0, 1.0],
        k1: 1.2,
        b: 0.75,
        delta: 0.0,
        per_field: true,
        saturate_query: false,
        background: None,
    };
    // "meet" is in two documents, "delet" in one: the term weighs as "meet".
    let meet = idx.term_idf("meet", idx.doc_freq("meet"), &p);
    assert_eq!(idx.term_idf(&name, idx.doc_freq(&name), &p), meet);
    assert!(meet < idx.term_idf("delet", 1, &p));
    assert_eq!(
        idx.name_terms_within(&["reserv", "meet", "delet"]),
        std::slice::from_ref(&name)
    );
    assert!(idx.name_terms_within(&["meet"]).is_empty());
    // Scored like any term: the query holding the whole name ranks its tool first.
    let tokens = ["meet".to_string(), "delet".to_string(), name.clone()];
    assert_eq!(idx.search(&tokens, &p, 3)[0].doc, 0);
    assert!(idx.remove(
        0,
        &[
            vec!["delet", "meet", "deletemeet", name.as_str()],
            vec!["cancel"]
        ]
    ));
    assert!(idx.name_terms_within(&["meet", "delet"]).is_empty());
    assert_eq!(idx.name_terms_bytes(), 0);
    assert_eq!(idx.total_lengths(), [3, 1]);
}
