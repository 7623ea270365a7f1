package dev.toolregistry;

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
                if (!e.query().equals(args[1]) || !e.tool().name().equals(args[2]) || e.topK() != Integer.parseInt(args[3])) {
                    throw new IllegalStateException("the typed explanation disagrees with its JSON: " + e);
                }
                Cross.print(Json.write(Json.parse(e.json())) + "\n");
            }
        }
    }
}
