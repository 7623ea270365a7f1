package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One line about a deferred tool, for a system prompt.
 *
 * @param name the registered name
 * @param description the first sentence of its description
 * @param namespace its namespace, or null
 */
public record DeferredSummary(String name, String description, String namespace) {

    static List<DeferredSummary> parseList(String json) {
        List<DeferredSummary> out = new ArrayList<>();
        for (Map<String, Object> m : Json.objects(Json.parse(json))) {
            out.add(new DeferredSummary(Json.str(m, "name"), Json.str(m, "description"), Json.str(m, "namespace")));
        }
        return Collections.unmodifiableList(out);
    }

    /** {@code - name: description}, as a system prompt lists it. */
    @Override
    public String toString() {
        return "- " + name + ": " + description;
    }
}
