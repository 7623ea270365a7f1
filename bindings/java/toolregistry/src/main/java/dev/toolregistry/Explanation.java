package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Why a query ranks a tool where it does ({@link Discoverer#explain}): the analyzed query, the
 * tool's score taken apart per word and field, its rank, or why it is not in the answer.
 *
 * @param query the query as given
 * @param profile the profile that ranked it
 * @param exactMatch the tool the query names exactly, or null
 * @param tokens the analyzed query words, kept or dropped
 * @param scoredTokens the words that scored
 * @param analyzedTokenCount how many words the analysis made (over the limit: only the first are used)
 * @param truncated a sentence when the query was cut to the limit, else null
 * @param topK the answer's size
 * @param bestScore the best hit's score, or null
 * @param scoreFloor the lowest score that stays in the answer, or null
 * @param resultCount how many hits the answer has
 * @param tool the tool's side
 * @param hybrid the fusion's side (hybrid profile), or null
 * @param intents the query's needs in query order when it holds several (then the tool's score and
 *     rank are the merged ones); empty for a query that is one need
 * @param json the library's whole answer
 */
public record Explanation(String query, String profile, String exactMatch, List<QueryToken> tokens,
        List<String> scoredTokens, int analyzedTokenCount, String truncated, int topK, Double bestScore,
        Double scoreFloor, int resultCount, ToolExplanation tool, HybridExplanation hybrid,
        List<IntentExplanation> intents, String json) {

    /**
     * One analyzed word of the query.
     *
     * @param token the word as analyzed
     * @param df how many tools have it
     * @param dfRatio the fraction of tools that have it
     * @param kept whether it scores
     * @param reason why it was dropped (a stopword, a filler), or null
     */
    public record QueryToken(String token, long df, double dfRatio, boolean kept, String reason) {}

    /**
     * The tool's side.
     *
     * @param name the tool
     * @param outcome {@code ranked}, {@code exact_match}, {@code other_exact_match}, {@code disabled},
     *     {@code no_query_tokens}, {@code no_common_token}, {@code below_top_k} or {@code below_score_floor}
     * @param reason the outcome in a sentence
     * @param indexed whether the tool is in the index
     * @param score its score, or null
     * @param rank its rank, or null
     * @param intent the need of the query it answers (as {@link Hit#intent()}), or null when the
     *     query is one need or no need's ranking holds it
     * @param terms its score per query word
     */
    public record ToolExplanation(String name, String outcome, String reason, boolean indexed, Double score,
            Integer rank, String intent, List<TermScore> terms) {}

    /**
     * One need of a query that holds several, and how that need's own ranking placed the tool.
     *
     * @param text the need, as the query words it
     * @param relativeScore the tool's score in the need's ranking over that ranking's best (1 for
     *     its best tool), or null when the need's ranking does not hold it
     * @param rank the tool's 1-based place in the need's ranking, or null when it is not there
     */
    public record IntentExplanation(String text, Double relativeScore, Integer rank) {}

    /**
     * One query word's share of the score.
     *
     * @param token the word
     * @param df how many tools have it
     * @param idf its IDF as scored
     * @param catalogIdf its IDF in the catalog alone
     * @param weightedTf its term frequency weighted by field
     * @param tfNorm the saturated, length-normalised term frequency
     * @param queryWeight its weight in the query (below 1 for a repeated word)
     * @param score {@code idf × queryWeight × tfNorm}
     * @param fields the score per field
     */
    public record TermScore(String token, long df, double idf, double catalogIdf, double weightedTf, double tfNorm,
            double queryWeight, double score, List<FieldScore> fields) {}

    /**
     * One field's share of a word's score.
     *
     * @param field the field ({@code name}, {@code description}, ...)
     * @param tf the word's count in it
     * @param weight the field's weight
     * @param score its share
     */
    public record FieldScore(String field, long tf, double weight, double score) {}

    /**
     * The hybrid fusion's side.
     *
     * @param lexicalScore the word ranking's score, or null
     * @param lexicalRank its rank there, or null
     * @param cosine the cosine of the query's and the tool's vectors, or null
     * @param semanticRank its rank by cosine, or null
     * @param fusedScore the fused score, or null
     * @param fusedRank the fused rank, or null
     * @param phraseScore what the query's phrases in the tool's text added, or null
     * @param embedded whether the tool has its vector
     * @param note a sentence about the fusion, or null
     */
    public record HybridExplanation(Double lexicalScore, Integer lexicalRank, Double cosine, Integer semanticRank,
            Double fusedScore, Integer fusedRank, Double phraseScore, boolean embedded, String note) {}

    static Explanation parse(String json) {
        Map<String, Object> m = Json.object(json, Collections.emptySet());
        List<QueryToken> tokens = new ArrayList<>();
        for (Map<String, Object> t : Json.objects(m.get("tokens"))) {
            tokens.add(new QueryToken(Json.str(t, "token"), Json.integer(t, "df"), Json.num(t, "df_ratio"),
                    Json.bool(t, "kept"), Json.str(t, "reason")));
        }
        Map<String, Object> t = Json.obj(m, "tool");
        ToolExplanation tool = null;
        if (t != null) {
            List<TermScore> terms = new ArrayList<>();
            for (Map<String, Object> term : Json.objects(t.get("terms"))) {
                List<FieldScore> fields = new ArrayList<>();
                for (Map<String, Object> f : Json.objects(term.get("fields"))) {
                    fields.add(new FieldScore(Json.str(f, "field"), Json.integer(f, "tf"), Json.num(f, "weight"), Json.num(f, "score")));
                }
                terms.add(new TermScore(Json.str(term, "token"), Json.integer(term, "df"), Json.num(term, "idf"),
                        Json.num(term, "catalog_idf"), Json.num(term, "weighted_tf"), Json.num(term, "tf_norm"),
                        Json.num(term, "query_weight"), Json.num(term, "score"), Collections.unmodifiableList(fields)));
            }
            tool = new ToolExplanation(Json.str(t, "name"), Json.str(t, "outcome"), Json.str(t, "reason"),
                    Json.bool(t, "indexed"), Json.optNum(t, "score"), Json.optInt(t, "rank"), Json.str(t, "intent"),
                    Collections.unmodifiableList(terms));
        }
        List<IntentExplanation> intents = new ArrayList<>();
        for (Map<String, Object> i : Json.objects(m.get("intents"))) {
            intents.add(new IntentExplanation(Json.str(i, "text"), Json.optNum(i, "relative_score"), Json.optInt(i, "rank")));
        }
        Map<String, Object> h = Json.obj(m, "hybrid");
        HybridExplanation hybrid = h == null ? null : new HybridExplanation(Json.optNum(h, "lexical_score"),
                Json.optInt(h, "lexical_rank"), Json.optNum(h, "cosine"), Json.optInt(h, "semantic_rank"),
                Json.optNum(h, "fused_score"), Json.optInt(h, "fused_rank"), Json.optNum(h, "phrase_score"),
                Json.bool(h, "embedded"), Json.str(h, "note"));
        return new Explanation(Json.str(m, "query"), Json.str(m, "profile"), Json.str(m, "exact_match"),
                Collections.unmodifiableList(tokens), Json.strings(m.get("scored_tokens")),
                (int) Json.integer(m, "analyzed_token_count"), Json.str(m, "truncated"), (int) Json.integer(m, "top_k"),
                Json.optNum(m, "best_score"), Json.optNum(m, "score_floor"), (int) Json.integer(m, "result_count"),
                tool, hybrid, Collections.unmodifiableList(intents), json);
    }
}
