package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 * @param intent the need of the query this tool answers, in the query's words, when the query
 *     holds several ("convert 100 dollars to euros and then tell me the weather in Paris"); null
 *     for a query that is one need, and with {@link DiscoveryOptions#intents(boolean) intents(false)}
 * @param broughtIn why the tool is in the answer when the query did not rank it there: a hit it is
 *     used with brought it in ("used with `add_agenda` in 12 of its 15 tasks"; see
 *     {@link Registry#recordUsage(List)}); null otherwise
 */
public record Hit(String name, String description, double score, String namespace, boolean deferred,
        String schemaJson, String warning, String intent, String broughtIn) {

    /** A hit without an intent: the record's shape before intents, kept so code built on it compiles. */
    public Hit(String name, String description, double score, String namespace, boolean deferred,
            String schemaJson, String warning) {
        this(name, description, score, namespace, deferred, schemaJson, warning, null, null);
    }

    /** A hit that was not brought in: the record's shape before usage, kept so code built on it compiles. */
    public Hit(String name, String description, double score, String namespace, boolean deferred,
            String schemaJson, String warning, String intent) {
        this(name, description, score, namespace, deferred, schemaJson, warning, intent, null);
    }

    /**
     * The hits of a discover answer, read in one pass without building maps. Fields this binding
     * does not know are skipped, so a library that adds one to its hits breaks nothing.
     */
    static List<Hit> parseList(String json) {
        try {
            Json.Reader r = new Json.Reader(json, Set.of());
            List<Hit> hits = new ArrayList<>();
            r.expect('[');
            if (!r.consume(']')) {
                do {
                    hits.add(parseOne(r));
                } while (r.consume(','));
                r.expect(']');
            }
            return Collections.unmodifiableList(hits);
        } catch (Json.ParseException e) {
            throw new ToolRegistryException(Status.INTERNAL, "the library's discover answer could not be read: " + e.getMessage());
        }
    }

    private static Hit parseOne(Json.Reader r) {
        String name = null;
        String description = null;
        double score = 0;
        String namespace = null;
        boolean deferred = false;
        String schema = null;
        String warning = null;
        String intent = null;
        String broughtIn = null;
        r.expect('{');
        if (!r.consume('}')) {
            do {
                switch (r.key()) {
                    case "name": name = r.stringOrNull(); break;
                    case "description": description = r.stringOrNull(); break;
                    case "score": score = r.doubleValue(); break;
                    case "namespace": namespace = r.stringOrNull(); break;
                    case "deferred": deferred = r.bool(); break;
                    case "schema": schema = r.raw(); break;
                    case "warning": warning = r.stringOrNull(); break;
                    case "intent": intent = r.stringOrNull(); break;
                    case "brought_in": broughtIn = r.stringOrNull(); break;
                    default: r.skipValue();
                }
            } while (r.consume(','));
            r.expect('}');
        }
        return new Hit(name, description, score, namespace, deferred, schema, warning, intent, broughtIn);
    }
}
