package dev.toolregistry;

/** The ranking profiles of discovery. */
public enum Profile implements Json.Named {
    /** The Python reference {@code toolregistry} 0.19.0's ranking, bit for bit. */
    REFERENCE("reference"),
    /** The default without an embedder: stemming, identifier splitting, per-field BM25F, ... */
    ENHANCED("enhanced"),
    /** The default with an embedder: enhanced fused with the embeddings' cosine. */
    HYBRID("hybrid");

    private final String jsonName;

    Profile(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The library's name of the profile, e.g. {@code "reference"}. */
    @Override
    public String jsonName() {
        return jsonName;
    }
}
