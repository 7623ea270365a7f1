package dev.toolregistry;

/**
 * Options of a new {@link Registry}: discovery enabled at once, and the built-in sentence encoder.
 */
public final class RegistryOptions {
    private DiscoveryOptions discovery;
    private boolean embeddingSet;
    private Json.Obj embedding;
    private Json.Obj usage;

    /** No discovery built-ins; the encoder of {@code TOOLREGISTRY_MODEL_DIR}, if set. */
    public RegistryOptions() {}

    /** Registers {@code discover_tools} (and {@code call_deferred}) at once, with these options. */
    public RegistryOptions discovery(DiscoveryOptions discovery) {
        this.discovery = discovery;
        return this;
    }

    /**
     * Loads the built-in sentence encoder from a sentence-transformers model directory (nothing is
     * downloaded); the registry then ranks with {@link Profile#HYBRID} by default.
     *
     * @param modelDir the model directory (config.json, model.safetensors, tokenizer.json)
     * @param cachePath a file that keeps the catalog's vectors across restarts, or null
     * @param threads at most this many cores while embedding the catalog, or null for all
     */
    public RegistryOptions embedding(String modelDir, String cachePath, Integer threads) {
        this.embeddingSet = true;
        this.embedding = new Json.Obj().put("model_dir", modelDir).put("cache_path", cachePath).put("threads", threads);
        return this;
    }

    /** No built-in encoder, even when {@code TOOLREGISTRY_MODEL_DIR} names one. */
    public RegistryOptions noEmbedding() {
        this.embeddingSet = true;
        this.embedding = null;
        return this;
    }

    /**
     * Turns usage (co-use learning) on at once, as {@link Registry#enableUsage(String)} does.
     *
     * @param path the usage file, or null for none
     */
    public RegistryOptions usage(String path) {
        this.usage = new Json.Obj().put("path", path);
        return this;
    }

    String toJson() {
        Json.Obj o = new Json.Obj().put("discovery", discovery == null ? null : new Json.Raw(discovery.toJson()));
        if (usage != null) {
            o.map().put("usage", new Json.Raw(usage.toString()));
        }
        if (embeddingSet) {
            o.map().put("embedding", embedding == null ? null : new Json.Raw(embedding.toString()));
        }
        return o.orNull();
    }
}
