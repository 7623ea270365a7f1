package dev.toolregistry;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ranking options (a {@link Discoverer}'s, {@code discover_tools}', a conversation's); members
 * left unset keep the library's defaults. Fluent: {@code new DiscoveryOptions().profile(Profile.REFERENCE)}.
 */
public final class DiscoveryOptions {
    private Profile profile;
    private final Map<String, Double> fieldWeights = new LinkedHashMap<>();
    private Double minScoreRatio;
    private Double maxDfRatio;
    private Double k1;
    private Double b;
    private Double delta;
    private Boolean intents;
    private Boolean usage;
    private Boolean callDeferred;

    /** Options with every member at the library's default. */
    public DiscoveryOptions() {}

    /** Options with the reference profile (exact parity with the Python reference). */
    public static DiscoveryOptions reference() {
        return new DiscoveryOptions().profile(Profile.REFERENCE);
    }

    /** The profile; it sets the defaults of the other options. */
    public DiscoveryOptions profile(Profile profile) {
        this.profile = profile;
        return this;
    }

    /**
     * One field's weight: {@code "name"} (3.0), {@code "description"} (2.0), {@code "search_hint"}
     * (2.0), {@code "tags"} (1.5), {@code "params"} (1.0), {@code "param_docs"} (1.0, enhanced).
     */
    public DiscoveryOptions fieldWeight(String field, double weight) {
        fieldWeights.put(field, weight);
        return this;
    }

    /** Drops hits below this fraction of the best score (default 0.3). */
    public DiscoveryOptions minScoreRatio(double ratio) {
        this.minScoreRatio = ratio;
        return this;
    }

    /** Drops query words found in at least this fraction of the tools (default 0.5). */
    public DiscoveryOptions maxDfRatio(double ratio) {
        this.maxDfRatio = ratio;
        return this;
    }

    /** BM25 term-frequency saturation (default 1.5). */
    public DiscoveryOptions k1(double k1) {
        this.k1 = k1;
        return this;
    }

    /** BM25 length normalisation in [0, 1] (default 0.75). */
    public DiscoveryOptions b(double b) {
        this.b = b;
        return this;
    }

    /** BM25+ lower bound per matched term (0 enhanced, 1.0 reference). */
    public DiscoveryOptions delta(double delta) {
        this.delta = delta;
        return this;
    }

    /**
     * {@code false} ranks every query as one need. By default a query that holds several ("convert
     * 100 dollars to euros and then tell me the weather in Paris") is searched whole and per need,
     * so that one need's near-duplicates do not take every place, and each hit names its need
     * ({@link Hit#intent()}). The reference profile never splits.
     */
    public DiscoveryOptions intents(boolean intents) {
        this.intents = intents;
        return this;
    }

    /**
     * False ranks as if no usage were recorded. By default the answer's best hits bring in the
     * tools they are used with when the recorded usage says so ({@link Hit#broughtIn()}); the
     * reference profile never does.
     */
    public DiscoveryOptions usage(boolean usage) {
        this.usage = usage;
        return this;
    }

    /** {@link Registry#enableDiscovery} only: also register {@code call_deferred} (default true). */
    public DiscoveryOptions callDeferred(boolean callDeferred) {
        this.callDeferred = callDeferred;
        return this;
    }

    Json.Obj toObj() {
        return new Json.Obj()
                .put("profile", profile)
                .put("field_weights", fieldWeights.isEmpty() ? null : fieldWeights)
                .put("min_score_ratio", minScoreRatio)
                .put("max_df_ratio", maxDfRatio)
                .put("k1", k1)
                .put("b", b)
                .put("delta", delta)
                .put("intents", intents)
                .put("usage", usage)
                .put("call_deferred", callDeferred);
    }

    /** The options as the JSON object the C ABI takes. */
    public String toJson() {
        return toObj().toString();
    }
}
