package dev.toolregistry;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Finds a registry's tools by exact name, {@code select:a,b}, or a natural-language query, with
 * its own ranking options ({@code tr_discoverer}).
 *
 * <p>It follows every change of its registry at once, shares its state and keeps working after
 * the registry's {@link Registry#close()}. Thread-safe: discovers from many threads run in
 * parallel. {@link #close()} is idempotent; a discoverer dropped unclosed is freed by a cleaner.
 */
public final class Discoverer implements AutoCloseable {
    private static final byte[][] TOP_K = new byte[65][];

    static {
        for (int k = 1; k < TOP_K.length; k++) {
            TOP_K[k] = Utf8.encode("{\"top_k\":" + k + "}", "options");
        }
    }

    private final NativeHandle handle;

    Discoverer(Registry registry, String optionsJson) {
        byte[] o = Utf8.encode(optionsJson, "options");
        Pointer p = registry.handle().acquire();
        try {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_discoverer_new(p, o, out, err), err);
            handle = new NativeHandle(this, out.getValue(), NativeLib::tr_discoverer_free, "Discoverer");
        } finally {
            registry.handle().release();
        }
    }

    /** Frees the discoverer. Again: nothing. */
    @Override
    public void close() {
        handle.close();
    }

    /**
     * Up to {@code topK} tools for {@code query}, best first. A query equal to a tool's name
     * answers that tool alone (score 1.0, with its schema); {@code select:a,b} answers those tools
     * in that order.
     *
     * @throws ToolRegistryException {@link Status#INVALID_ARGUMENT} for an empty query or {@code topK} below 1
     */
    public List<Hit> discover(String query, int topK) {
        byte[] o = topK >= 1 && topK < TOP_K.length ? TOP_K[topK] : Utf8.encode("{\"top_k\":" + topK + "}", "options");
        return Hit.parseList(discoverRaw(Utf8.required(query, "query"), o));
    }

    /** {@link #discover(String, int)} with filters, format, strict mode, a token budget or a query vector. */
    public List<Hit> discover(String query, DiscoverOptions options) {
        return Hit.parseList(discoverJson(query, options));
    }

    /** The answer of {@link #discover(String, int)} as the library's JSON (what a model reads). */
    public String discoverJson(String query, int topK) {
        byte[] o = topK >= 1 && topK < TOP_K.length ? TOP_K[topK] : Utf8.encode("{\"top_k\":" + topK + "}", "options");
        return discoverRaw(Utf8.required(query, "query"), o);
    }

    /** The answer of {@link #discover(String, DiscoverOptions)} as the library's JSON. */
    public String discoverJson(String query, DiscoverOptions options) {
        return discoverRaw(Utf8.required(query, "query"), Utf8.encode(options == null ? null : options.toJson(), "options"));
    }

    private String discoverRaw(byte[] q, byte[] o) {
        return handle.get((p, out, err) -> NativeLib.tr_discoverer_discover(p, q, o, out, err));
    }

    /**
     * Embeds {@code query} with {@code embed} (the pull model: no library thread calls it) and
     * discovers with that vector ({@link DiscoverOptions#queryVector}): hybrid ranking on a
     * registry with a pull embedder. The future fails when the embedder does.
     */
    public CompletableFuture<List<Hit>> discoverAsync(String query, AsyncEmbedder embed, DiscoverOptions options) {
        if (query == null || embed == null) {
            throw new NullPointerException(query == null ? "query is null" : "embed is null");
        }
        CompletionStage<float[][]> stage;
        try {
            stage = embed.embed(List.of(query));
        } catch (Throwable e) {
            return CompletableFuture.failedFuture(e);
        }
        if (stage == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("the embedder returned no stage"));
        }
        DiscoverOptions base = options == null ? new DiscoverOptions() : options.copy();
        return stage.toCompletableFuture().thenApply(vectors -> {
            if (vectors == null || vectors.length != 1 || vectors[0] == null) {
                throw new IllegalStateException("the embedder returned no vector for the query");
            }
            return discover(query, base.queryVector(vectors[0]));
        });
    }

    /** Why {@code query} ranks {@code toolName} where it does among the top 10, or why it is not there. */
    public Explanation explain(String query, String toolName) {
        return explain(query, toolName, 10);
    }

    /** Why {@code query} ranks {@code toolName} where it does among the top {@code topK}. */
    public Explanation explain(String query, String toolName, int topK) {
        return Explanation.parse(explainJson(query, toolName, topK));
    }

    /** {@link #explain(String, String, int)} as the library's JSON. */
    public String explainJson(String query, String toolName, int topK) {
        byte[] q = Utf8.required(query, "query");
        byte[] t = Utf8.required(toolName, "toolName");
        byte[] o = Utf8.encode("{\"top_k\":" + topK + "}", "options");
        return handle.get((p, out, err) -> NativeLib.tr_discoverer_explain(p, q, t, o, out, err));
    }

    /** Rebuilds the search index (never needed: it is kept in step; changes no answer). */
    public void rebuildIndex() {
        Pointer p = handle.acquire();
        try {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_discoverer_rebuild_index(p, err), err);
        } finally {
            handle.release();
        }
    }
}
