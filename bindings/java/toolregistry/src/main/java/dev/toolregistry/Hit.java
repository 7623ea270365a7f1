package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One tool a discover found, best first.
 *
 * @param name the registered name (with its namespace prefix)
 * @param description the tool's description (its first sentence when a token budget cut the hit)
 * @param score the ranking score (1.0 for an exact name or a {@code select:} hit)
 * @param namespace the tool's namespace, or null
 * @param deferred whether the tool is deferred
 * @param schemaJson the tool's schema in the requested format, as JSON text; null when the answer
 *     carries none (a loaded tool found by a query, or a hit cut to its summary)
 * @param warning why a strict-mode schema could not be strict, or null
 */
public record Hit(String name, String description, double score, String namespace, boolean deferred,
        String schemaJson, String warning) {

    private static final Set<String> RAW = Set.of("schema");

    /**
     * The hits of a discover answer. Fields this binding does not know are ignored, so a library
     * that adds one to its hits breaks nothing.
     */
    static List<Hit> parseList(String json) {
        List<Object> array = Json.array(json, RAW);
        List<Hit> hits = new ArrayList<>(array.size());
        for (Map<String, Object> h : Json.objects(array)) {
            hits.add(new Hit(Json.str(h, "name"), Json.str(h, "description"), Json.num(h, "score"),
                    Json.str(h, "namespace"), Json.bool(h, "deferred"), Json.str(h, "schema"), Json.str(h, "warning")));
        }
        return Collections.unmodifiableList(hits);
    }
}
