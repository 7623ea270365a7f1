package dev.toolregistry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The golden vectors of ../shared/golden (the Python reference toolregistry 0.19.0's answers):
 * every scenario replayed with the reference profile, each discover through discover_tools and a
 * discoverer; same names in the same order, scores equal to 1e-9, namespace, deferred, schema.
 */
class GoldenTest {
    static Path golden() {
        String dir = System.getenv("TOOLREGISTRY_GOLDEN_DIR");
        return dir != null ? Path.of(dir) : Corpus.repo().resolveSibling("shared").resolve("golden");
    }

    @TestFactory
    Stream<DynamicTest> scenarios() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(golden())) {
            files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no golden files in " + golden());
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> replay(f)));
    }

    static String toolJson(Map<String, Object> tool) {
        Json.Obj t = new Json.Obj().put("name", tool.get("name")).put("description", tool.get("description"))
                .put("parameters", tool.get("parameters")).put("namespace", tool.get("namespace"));
        Json.Obj meta = new Json.Obj().put("defer", tool.get("defer")).put("tags", tool.get("tags")).put("search_hint", tool.get("search_hint"));
        return t.put("metadata", meta.isEmpty() ? null : meta.map()).toString();
    }

    static DiscoveryOptions options(Map<String, Object> step) {
        DiscoveryOptions o = DiscoveryOptions.reference();
        Map<String, Object> weights = Json.obj(step, "field_weights");
        if (weights != null) {
            weights.forEach((k, v) -> o.fieldWeight(k, ((Number) v).doubleValue()));
        }
        if (step.get("min_score_ratio") != null) {
            o.minScoreRatio(Json.num(step, "min_score_ratio"));
        }
        if (step.get("max_df_ratio") != null) {
            o.maxDfRatio(Json.num(step, "max_df_ratio"));
        }
        return o;
    }

    static void replay(Path file) throws IOException {
        Map<String, Object> scenario = Json.object(Files.readString(file), Set.of());
        Registry r = new Registry(new RegistryOptions().noEmbedding());
        Discoverer d = null;
        int discovers = 0;
        try {
            for (Map<String, Object> step : Json.objects(scenario.get("steps"))) {
                String op = Json.str(step, "op");
                switch (op) {
                    case "register" -> r.register(toolJson(Json.obj(step, "tool")));
                    case "unregister" -> r.unregister(Json.str(step, "name"));
                    case "disable" -> r.setEnabled(Json.str(step, "name"), false);
                    case "enable" -> r.setEnabled(Json.str(step, "name"), true);
                    case "set_metadata" -> r.setMetadata(Json.str(step, "name"), Json.write(step.get("metadata")));
                    case "enable_discovery" -> {
                        r.enableDiscovery(options(step));
                        if (d != null) {
                            d.close();
                        }
                        d = r.discoverer(options(step));
                    }
                    case "discover" -> {
                        String query = Json.str(step, "query");
                        int topK = (int) Json.integer(step, "top_k");
                        for (String via : new String[] {"discover_tools", "Discoverer"}) {
                            Discoverer dd = d;
                            if (step.containsKey("expect_error")) {
                                ToolRegistryException e = assertThrows(ToolRegistryException.class,
                                        () -> {
                                            if (via.equals("Discoverer")) {
                                                dd.discover(query, topK);
                                            } else {
                                                r.discoverTools(query, topK);
                                            }
                                        });
                                assertEquals(Status.INVALID_ARGUMENT, e.status());
                                continue;
                            }
                            List<Hit> got = via.equals("Discoverer") ? dd.discover(query, topK) : r.discoverTools(query, topK);
                            compare(file.getFileName() + " " + via + " " + query, Json.objects(step.get("expect")), got);
                        }
                        discovers++;
                    }
                    default -> throw new IllegalStateException("unknown op " + op);
                }
            }
        } finally {
            r.close();
            if (d != null) {
                d.close();
            }
        }
        assertTrue(discovers > 0, file + " has no discover");
    }

    static void compare(String what, List<Map<String, Object>> expect, List<Hit> got) {
        List<String> names = got.stream().map(Hit::name).toList();
        assertEquals(expect.stream().map(e -> Json.str(e, "name")).toList(), names, what);
        for (int i = 0; i < got.size(); i++) {
            Map<String, Object> e = expect.get(i);
            Hit g = got.get(i);
            double es = Json.num(e, "score");
            assertTrue(Math.abs(es - g.score()) <= 1e-9 * Math.max(Math.abs(es), Math.abs(g.score())), what + " rank " + i + ": " + es + " != " + g.score());
            assertEquals(Json.str(e, "namespace"), g.namespace(), what);
            assertEquals(Json.bool(e, "deferred"), g.deferred(), what);
            assertEquals(Json.bool(e, "has_schema"), g.schemaJson() != null, what);
        }
    }
}
