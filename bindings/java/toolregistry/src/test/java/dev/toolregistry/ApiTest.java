package dev.toolregistry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ApiTest {
    static final String TOOLS = "[{\"name\": \"send_email\", \"description\": \"Send an email to a recipient.\", \"metadata\": {\"defer\": true, \"tags\": [\"mail\"]}},"
            + " {\"name\": \"read_file\", \"description\": \"Read a file from disk.\", \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}},"
            + " {\"name\": \"list_issues\", \"namespace\": \"github\", \"description\": \"List the issues of a repository.\", \"metadata\": {\"defer\": true}}]";

    @Test
    void registerDiscoverAndReadHits() {
        try (Registry r = new Registry()) {
            assertEquals(List.of("send_email", "read_file", "github-list_issues"), r.register(TOOLS));
            List<Hit> hits = r.discoverer(DiscoveryOptions.reference()).discover("email someone", 3);
            assertEquals(1, hits.size());
            Hit h = hits.get(0);
            assertEquals("send_email", h.name());
            assertTrue(h.score() > 0);
            assertTrue(h.deferred());
            assertNull(h.namespace());
            assertTrue(h.schemaJson().startsWith("{\"type\":\"function\""), h.schemaJson());
            // Exact name: score 1, with its schema.
            Hit exact = r.discoverer().discover("read_file", 5).get(0);
            assertEquals(1.0, exact.score());
            assertEquals("read_file", exact.name());
            assertNotNull(exact.schemaJson());
            // select: in the given order, namespace read back.
            List<Hit> selected = r.discoverer().discover("select:github-list_issues,send_email", 5);
            assertEquals("github-list_issues", selected.get(0).name());
            assertEquals("github", selected.get(0).namespace());
            assertEquals("send_email", selected.get(1).name());
        }
    }

    @Test
    void hitsIgnoreFieldsTheBindingDoesNotKnow() {
        List<Hit> hits = Hit.parseList("[{\"name\":\"a\",\"description\":\"d\",\"score\":2.5,\"namespace\":null,\"deferred\":false,"
                + "\"plan\":{\"index\":0,\"text\":\"x\"},\"future\":[1,2,{\"k\":null}]}]");
        assertEquals(new Hit("a", "d", 2.5, null, false, null, null), hits.get(0));
    }

    @Test
    void rawMembersKeepTheirTextExactly() {
        String schema = "{\"a\":[1,{\"b\":\"x\\\"]}\"},null,true],\"c\":{}}";
        List<Hit> hits = Hit.parseList("[{\"name\":\"n\",\"schema\":" + schema + ",\"score\":1e-3},{\"name\":\"m\",\"schema\":null,\"score\":2}]");
        assertEquals(schema, hits.get(0).schemaJson());
        assertEquals(0.001, hits.get(0).score());
        assertNull(hits.get(1).schemaJson());
        assertEquals(Map.of("k", new Json.Raw("12.5")), Json.object("{\"k\": 12.5}", java.util.Set.of("k")));
    }

    @Test
    void discoverOptionsFilterAndFormat() {
        try (Registry r = new Registry()) {
            r.register(TOOLS);
            Discoverer d = r.discoverer();
            List<Hit> github = d.discover("list issues", new DiscoverOptions().namespaces("github").topK(5));
            assertEquals(List.of("github-list_issues"), github.stream().map(Hit::name).toList());
            assertTrue(d.discover("list issues", new DiscoverOptions().tags("mail")).stream().allMatch(h -> h.name().equals("send_email")));
            Hit anthropic = d.discover("send_email", new DiscoverOptions().apiFormat(ApiFormat.ANTHROPIC)).get(0);
            assertTrue(anthropic.schemaJson().contains("\"input_schema\""), anthropic.schemaJson());
            String json = d.discoverJson("email", new DiscoverOptions().topK(1));
            assertTrue(json.startsWith("[{\"name\":\"send_email\""), json);
            assertTrue(d.discover("read_file", new DiscoverOptions().strict(true)).get(0).schemaJson().contains("\"strict\":true"));
        }
    }

    @Test
    void explainTyped() {
        try (Registry r = new Registry()) {
            r.register(TOOLS);
            Explanation e = r.discoverer(DiscoveryOptions.reference()).explain("read a file", "read_file", 5);
            assertEquals("reference", e.profile());
            assertEquals("read_file", e.tool().name());
            assertEquals("ranked", e.tool().outcome());
            assertEquals(Integer.valueOf(1), e.tool().rank());
            assertFalse(e.tool().terms().isEmpty());
            double sum = e.tool().terms().stream().mapToDouble(Explanation.TermScore::score).sum();
            assertEquals(e.tool().score(), sum, 1e-9);
            assertTrue(e.json().contains("\"outcome\":\"ranked\""));
            ToolRegistryException nf = assertThrows(ToolRegistryException.class, () -> r.discoverer().explain("x", "nope"));
            assertEquals(Status.NOT_FOUND, nf.status());
        }
    }

    @Test
    void summariesStatusSchemasMetadata() {
        try (Registry r = new Registry()) {
            r.register(TOOLS);
            assertEquals("- send_email: Send an email to a recipient.", r.deferredSummaries().get(0).toString());
            r.setMetadata("read_file", true, List.of("fs"), "open load");
            ToolStatus rf = r.toolsStatus().stream().filter(t -> t.name().equals("read_file")).findFirst().orElseThrow();
            assertTrue(rf.deferred());
            assertEquals(List.of("fs"), rf.tags());
            assertFalse(rf.callable());
            r.disable("github", "rate limited");
            ToolStatus gh = r.toolsStatus().get(0);
            assertEquals("github-list_issues", gh.name());
            assertFalse(gh.enabled());
            assertEquals("rate limited", gh.reason());
            assertFalse(r.schemas().contains("list_issues"));
            r.enable("github");
            assertTrue(r.schemas(new SchemaOptions().apiFormat(ApiFormat.GEMINI)).contains("list_issues"));
            assertFalse(r.schemas(new SchemaOptions().includeDeferred(false)).contains("send_email"));
            StrictSchemas strict = r.strictSchemas(new SchemaOptions().names("read_file"));
            assertTrue(strict.toolsJson().contains("\"strict\":true"));
            assertTrue(strict.warnings().isEmpty());
            r.setEnabled("send_email", false);
            assertTrue(r.discoverer().discover("email", 5).stream().noneMatch(h -> h.name().equals("send_email")));
            r.unregister("send_email");
            assertEquals(2, r.toolsStatus().size());
        }
    }

    @Test
    void builtInsRunAsTheModelWould() {
        try (Registry r = new Registry(new RegistryOptions().discovery(DiscoveryOptions.reference()))) {
            r.register(TOOLS);
            assertTrue(r.call("discover_tools", "{\"query\": \"email someone\"}").contains("send_email"));
            assertEquals("send_email", r.discoverTools("email someone", 2).get(0).name());
            assertTrue(r.schemas().contains("discover_tools"));
        }
    }

    @Test
    void errorsCarryTheCStatus() {
        try (Registry r = new Registry()) {
            ToolRegistryException e = assertThrows(ToolRegistryException.class, () -> r.unregister("nope"));
            assertEquals(Status.NOT_FOUND, e.status());
            assertEquals(5, e.code());
            assertEquals(5, e.status().code());
            assertTrue(e.getMessage().contains("nope"), e.getMessage());
            assertEquals(Status.INVALID_JSON, assertThrows(ToolRegistryException.class, () -> r.register("[{")).status());
            e = assertThrows(ToolRegistryException.class, () -> r.register("[{\"description\": \"x\"}]"));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("tools[0].name"), e.getMessage());
            r.register(TOOLS);
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(ToolRegistryException.class, () -> r.discoverer().discover("  ", 3)).status());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(ToolRegistryException.class, () -> r.discoverer().discover("x", 0)).status());
            // Strings C cannot take are refused, not cut or altered.
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(ToolRegistryException.class, () -> r.unregister("a\0b")).status());
            assertEquals(Status.INVALID_UTF8, assertThrows(ToolRegistryException.class, () -> r.unregister("a\ud800")).status());
            assertThrows(NullPointerException.class, () -> r.register(null));
            assertThrows(ToolRegistryException.class, () -> new Registry("{\"nope\": 1}"));
            // Nothing changed by the failures.
            assertEquals(3, r.toolsStatus().size());
        }
    }

    @Test
    void closeIsIdempotentAndDiscoverersOutliveTheRegistry() {
        Registry r = new Registry();
        r.register(TOOLS);
        Discoverer d = r.discoverer();
        r.close();
        r.close();
        assertTrue(r.isClosed());
        assertThrows(IllegalStateException.class, () -> r.register(TOOLS));
        assertEquals("send_email", d.discover("email", 1).get(0).name());
        d.close();
        d.close();
        assertThrows(IllegalStateException.class, () -> d.discover("email", 1));
    }

    @Test
    void discoversFromManyThreadsAtOnce() throws Exception {
        try (Registry r = new Registry()) {
            r.register(TOOLS);
            Discoverer d = r.discoverer();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<String>> futures = new java.util.ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    futures.add(pool.submit(() -> d.discover("read a file", 3).get(0).name()));
                }
                for (Future<String> f : futures) {
                    assertEquals("read_file", f.get());
                }
            } finally {
                pool.shutdown();
            }
        }
    }

    @Test
    void libraryVersionAndPath() {
        assertEquals("0.1.0", Registry.libraryVersion());
        assertTrue(Registry.libraryPath().endsWith("libtoolregistry.so"), Registry.libraryPath());
    }
}
