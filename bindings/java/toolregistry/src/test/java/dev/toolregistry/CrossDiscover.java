package dev.toolregistry;

import java.time.Duration;

/**
 * One query over a catalog through the Java binding, printed as JSON (scripts/cross_language.py).
 * Usage: CrossDiscover CATALOG.json QUERY TOP_K [PROFILE [USAGE]]. With PROFILE "hybrid" the
 * registry gets the fake embedder every language implements alike, as a callback embedder on the
 * library's embedding thread, and waits for the catalog's vectors. USAGE holds tasks recorded
 * before the query, one JSON array of tool names a line.
 */
public final class CrossDiscover {
    private CrossDiscover() {}

    public static void main(String[] args) throws Exception {
        String profile = args.length > 3 ? args[3] : "reference";
        try (Registry r = new Registry()) {
            r.register(Cross.readCatalog(args[0]));
            if (profile.equals("hybrid")) {
                r.setEmbedder(64, Cross::fakeEmbed, null, null);
                if (!r.waitEmbeddings(Duration.ofMinutes(2))) {
                    throw new IllegalStateException("embedding timed out");
                }
            }
            for (String task : (args.length > 4 ? args[4] : "").split("\n")) {
                if (!task.isEmpty()) {
                    r.recordUsageJson(task);
                }
            }
            try (Discoverer d = r.discoverer(new DiscoveryOptions().profile(Profile.valueOf(profile.toUpperCase(java.util.Locale.ROOT))))) {
                Cross.print(Cross.hitsJson(d.discover(args[1], Integer.parseInt(args[2]))) + "\n");
            }
        }
    }
}
