package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One text waiting for its vector, from {@link Registry#takeEmbeddingJobs(int)} (the pull embedder).
 *
 * @param id the job's id, named in the result
 * @param text the text to embed
 */
public record EmbeddingJob(long id, String text) {

    static List<EmbeddingJob> parseList(String json) {
        List<EmbeddingJob> out = new ArrayList<>();
        for (Map<String, Object> m : Json.objects(Json.parse(json))) {
            out.add(new EmbeddingJob(Json.integer(m, "id"), Json.str(m, "text")));
        }
        return Collections.unmodifiableList(out);
    }
}
