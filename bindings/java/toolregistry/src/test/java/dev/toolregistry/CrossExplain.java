package dev.toolregistry;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One explain over a catalog through the Java binding, printed as JSON (scripts/cross_language.py
 * compares it with the Rust CLI's). The typed {@link Explanation} is checked against the JSON it
 * came from, then the JSON is printed as this package's reader and writer see it.
 * Usage: CrossExplain CATALOG.json QUERY TOOL TOP_K PROFILE
 */
public final class CrossExplain {
    private CrossExplain() {}

    public static void main(String[] args) throws Exception {
        try (Registry r = new Registry()) {
            r.register(Cross.readCatalog(args[0]));
            try (Discoverer d = r.discoverer(new DiscoveryOptions().profile(Profile.valueOf(args[4].toUpperCase(java.util.Locale.ROOT))))) {
                Explanation e = d.explain(args[1], args[2], Integer.parseInt(args[3]));
                if (!e.query().equals(args[1]) || !e.tool().name().equals(args[2]) || e.topK() != Integer.parseInt(args[3])
                        || !intentsAgree(e)) {
                    throw new IllegalStateException("the typed explanation disagrees with its JSON: " + e);
                }
                Cross.print(Json.write(Json.parse(e.json())) + "\n");
            }
        }
    }

    /** Whether the typed needs (the query's and the tool's) are the JSON's, in order. */
    private static boolean intentsAgree(Explanation e) {
        Map<String, Object> doc = Json.object(e.json(), Collections.emptySet());
        List<Map<String, Object>> json = Json.objects(doc.get("intents"));
        if (json.size() != e.intents().size()) {
            return false;
        }
        for (int i = 0; i < json.size(); i++) {
            Explanation.IntentExplanation typed = e.intents().get(i);
            if (!Objects.equals(Json.str(json.get(i), "text"), typed.text())
                    || !Objects.equals(Json.optNum(json.get(i), "relative_score"), typed.relativeScore())
                    || !Objects.equals(Json.optInt(json.get(i), "rank"), typed.rank())) {
                return false;
            }
        }
        return Objects.equals(Json.str(Json.obj(doc, "tool"), "intent"), e.tool().intent());
    }
}
