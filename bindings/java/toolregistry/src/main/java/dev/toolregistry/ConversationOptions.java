package dev.toolregistry;

import java.util.Arrays;
import java.util.List;

/** Options of a {@link Conversation}; members left unset keep the library's defaults. */
public final class ConversationOptions {
    private ApiFormat apiFormat;
    private ConversationMode mode;
    private Boolean serverSearch;
    private List<String> loaded;
    private Boolean strict;
    private Integer deferThresholdTokens;
    private boolean summaryMaxTokensSet;
    private Integer summaryMaxTokens;
    private DiscoveryOptions discovery;
    private Integer topK;
    private Integer maxTokens;
    private List<String> namespaces;
    private List<String> tags;

    /** OpenAI chat, the {@code summaries} mode. */
    public ConversationOptions() {}

    /** The provider format of the conversation (default OpenAI chat). */
    public ConversationOptions apiFormat(ApiFormat apiFormat) {
        this.apiFormat = apiFormat;
        return this;
    }

    /** What each request carries (default {@link ConversationMode#SUMMARIES}). */
    public ConversationOptions mode(ConversationMode mode) {
        this.mode = mode;
        return this;
    }

    /** Native mode: the provider's hosted search tool ({@code "search": "server"}) instead of ours. */
    public ConversationOptions serverSearch(boolean serverSearch) {
        this.serverSearch = serverSearch;
        return this;
    }

    /** Deferred tools already loaded (restores a saved conversation: {@link Conversation#loaded()}). */
    public ConversationOptions loaded(String... names) {
        this.loaded = Arrays.asList(names.clone());
        return this;
    }

    /** OpenAI strict-mode schemas in the tool list. */
    public ConversationOptions strict(boolean strict) {
        this.strict = strict;
        return this;
    }

    /** Auto mode: every tool while they total under this many tokens (default 10,000). */
    public ConversationOptions deferThresholdTokens(int tokens) {
        this.deferThresholdTokens = tokens;
        return this;
    }

    /** Caps the list of deferred tools at this many tokens; {@code null}: no cap. */
    public ConversationOptions summaryMaxTokens(Integer tokens) {
        this.summaryMaxTokensSet = true;
        this.summaryMaxTokens = tokens;
        return this;
    }

    /** The ranking options of the conversation's searches. */
    public ConversationOptions discovery(DiscoveryOptions discovery) {
        this.discovery = discovery;
        return this;
    }

    /** Hits per search. */
    public ConversationOptions topK(int topK) {
        this.topK = topK;
        return this;
    }

    /** Token budget of each search's answer. */
    public ConversationOptions maxTokens(int maxTokens) {
        this.maxTokens = maxTokens;
        return this;
    }

    /** Searches only among tools of these namespaces. */
    public ConversationOptions namespaces(String... namespaces) {
        this.namespaces = Arrays.asList(namespaces.clone());
        return this;
    }

    /** Searches only among tools carrying any of these tags. */
    public ConversationOptions tags(String... tags) {
        this.tags = Arrays.asList(tags.clone());
        return this;
    }

    /** The options as the JSON object the C ABI takes. */
    public String toJson() {
        Json.Obj o = new Json.Obj()
                .put("api_format", apiFormat)
                .put("mode", mode)
                .put("search", serverSearch == null ? null : serverSearch ? "server" : "client")
                .put("loaded", loaded)
                .put("strict", strict)
                .put("defer_threshold_tokens", deferThresholdTokens);
        if (summaryMaxTokensSet) {
            o.map().put("summary_max_tokens", summaryMaxTokens);
        }
        return o.put("discovery", discovery == null ? null : new Json.Raw(discovery.toJson()))
                .put("top_k", topK)
                .put("max_tokens", maxTokens)
                .put("namespaces", namespaces)
                .put("tags", tags)
                .toString();
    }
}
