package dev.toolregistry;

import java.util.Arrays;
import java.util.List;

/**
 * The options of one discover; members left unset keep the library's defaults. The filters
 * ({@link #namespaces}, {@link #tags}, {@link #deferred}) choose the tools that may answer before
 * ranking; scores are the same as without them.
 */
public final class DiscoverOptions {
    private Integer topK;
    private ApiFormat apiFormat;
    private Boolean strict;
    private Integer maxTokens;
    private List<String> namespaces;
    private List<String> tags;
    private Boolean deferred;
    private float[] queryVector;

    /** Options with every member at the library's default (top 10). */
    public DiscoverOptions() {}

    /** At most this many hits (default 10; at least 1). */
    public DiscoverOptions topK(int topK) {
        this.topK = topK;
        return this;
    }

    /** The format of the hits' schemas (default OpenAI chat). */
    public DiscoverOptions apiFormat(ApiFormat apiFormat) {
        this.apiFormat = apiFormat;
        return this;
    }

    /** OpenAI strict-mode schemas (OpenAI formats only); a hit that cannot be strict gets a warning. */
    public DiscoverOptions strict(boolean strict) {
        this.strict = strict;
        return this;
    }

    /** Caps the answer at this many tokens (its UTF-8 bytes / 4): schemas, then summaries, then stop. */
    public DiscoverOptions maxTokens(int maxTokens) {
        this.maxTokens = maxTokens;
        return this;
    }

    /** Only tools registered under one of these namespaces. */
    public DiscoverOptions namespaces(String... namespaces) {
        this.namespaces = Arrays.asList(namespaces.clone());
        return this;
    }

    /** Only tools carrying any of these tags. */
    public DiscoverOptions tags(String... tags) {
        this.tags = Arrays.asList(tags.clone());
        return this;
    }

    /** Only deferred tools (true) or only loaded ones (false). */
    public DiscoverOptions deferred(boolean deferred) {
        this.deferred = deferred;
        return this;
    }

    /** Hybrid ranking with this query vector (a pull embedder's query), instead of words alone. */
    public DiscoverOptions queryVector(float[] vector) {
        this.queryVector = vector == null ? null : vector.clone();
        return this;
    }

    DiscoverOptions copy() {
        DiscoverOptions o = new DiscoverOptions();
        o.topK = topK;
        o.apiFormat = apiFormat;
        o.strict = strict;
        o.maxTokens = maxTokens;
        o.namespaces = namespaces;
        o.tags = tags;
        o.deferred = deferred;
        o.queryVector = queryVector;
        return o;
    }

    /** The options as the JSON object the C ABI takes. */
    public String toJson() {
        return new Json.Obj()
                .put("top_k", topK)
                .put("api_format", apiFormat)
                .put("strict", strict)
                .put("max_tokens", maxTokens)
                .put("namespaces", namespaces)
                .put("tags", tags)
                .put("deferred", deferred)
                .put("query_vector", queryVector)
                .toString();
    }
}
