package dev.toolregistry;

import java.util.List;
import java.util.Map;

/**
 * What a registry's embedder has done ({@link Registry#embeddingStatus()}).
 *
 * @param embedder the embedder's identity (names the model for the vector cache)
 * @param dim the length of every vector
 * @param ready enabled tools with their vector
 * @param pending enabled tools waiting for it (found by words meanwhile)
 * @param failed tools the embedder failed on (found by words until their text changes)
 * @param embedded vectors computed since the embedder was set (the rest came from the cache)
 * @param warnings the last warnings (a cache file ignored, a batch that failed)
 */
public record EmbeddingStatus(String embedder, int dim, int ready, int pending, int failed, int embedded,
        List<String> warnings) {

    static EmbeddingStatus parse(String json) {
        Object v = Json.parse(json);
        if (!(v instanceof Map)) {
            return null;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return new EmbeddingStatus(Json.str(m, "embedder"), (int) Json.integer(m, "dim"), (int) Json.integer(m, "ready"),
                (int) Json.integer(m, "pending"), (int) Json.integer(m, "failed"), (int) Json.integer(m, "embedded"),
                Json.strings(m.get("warnings")));
    }
}
