package dev.toolregistry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Tool calls through execute: the conformance corpus byte for byte, and the callback contracts. */
class ExecuteTest {
    static final String WEATHER = "{\"name\": \"get_weather\", \"description\": \"Current weather for a city.\","
            + " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}";

    static String call(String id, String name, String argsJson) {
        return "{\"id\":\"" + id + "\",\"type\":\"function\",\"function\":{\"name\":\"" + name + "\",\"arguments\":"
                + Json.write(argsJson) + "}}";
    }

    static String reply(String... calls) {
        return "{\"role\":\"assistant\",\"tool_calls\":[" + String.join(",", calls) + "]}";
    }

    @Test
    void executeCorpusByteForByte() throws Exception {
        Path corpus = Corpus.execute();
        List<String> cases = Corpus.executeCases(corpus);
        assertTrue(cases.size() >= 50, "cases: " + cases.size());
        for (boolean steps : new boolean[] {false, true}) {
            try (Registry r = Corpus.fixtureRegistry(corpus, steps)) {
                for (String name : cases) {
                    assertEquals(Corpus.read(corpus.resolve(name).resolve("expected.json")), Corpus.runExecuteCase(r, corpus, name, steps),
                            name + (steps ? " (executeAsync)" : ""));
                }
            }
        }
    }

    @Test
    void conversationCorpusByteForByte() throws Exception {
        Path corpus = Corpus.conversation();
        List<String> cases = Corpus.conversationCases(corpus);
        assertFalse(cases.isEmpty());
        for (boolean steps : new boolean[] {false, true}) {
            for (String name : cases) {
                String[] got = Corpus.runConversationCase(corpus, name, steps);
                Path dir = corpus.resolve(name);
                assertEquals(Corpus.read(dir.resolve("expected.json")), got[0], name + " messages");
                assertEquals(Corpus.read(dir.resolve("loaded.json")), got[1], name + " loaded");
                if (dir.resolve("tools.json").toFile().exists()) {
                    assertEquals(Corpus.read(dir.resolve("tools.json")), got[2], name + " tools");
                }
            }
        }
    }

    @Test
    void failuresBecomeErrorResultsAndNothingCrossesIntoC() {
        try (Registry r = new Registry()) {
            r.registerFunction("{\"name\": \"boom\", \"description\": \"Throws.\"}", args -> {
                throw new IllegalStateException("bad state");
            });
            r.registerFunction("{\"name\": \"refuse\", \"description\": \"Fails.\"}", args -> {
                throw new ToolCallException("quota exceeded");
            });
            r.registerFunction("{\"name\": \"nothing\", \"description\": \"Null.\"}", args -> null);
            r.registerFunction("{\"name\": \"nul\", \"description\": \"NUL.\"}", args -> "a\0b");
            r.registerFunction("{\"name\": \"overflow\", \"description\": \"Error.\"}", args -> {
                throw new StackOverflowError();
            });
            r.registerFunction(WEATHER, args -> "sunny");
            String messages = r.execute(reply(call("1", "boom", "{}"), call("2", "refuse", "{}"), call("3", "nothing", "{}"),
                    call("4", "nul", "{}"), call("5", "overflow", "{}"), call("6", "get_weather", "{\"city\":\"Oslo\"}")));
            assertTrue(messages.contains("\"Error: the host function of \\\"boom\\\" panicked: bad state\""), messages);
            assertTrue(messages.contains("\"Error: quota exceeded\""), messages);
            assertTrue(messages.contains("\"Error: the host function returned no result\""), messages);
            assertTrue(messages.contains("returned unusable text"), messages);
            assertTrue(messages.contains("panicked: java.lang.StackOverflowError"), messages);
            assertTrue(messages.contains("{\"role\":\"tool\",\"tool_call_id\":\"6\",\"content\":\"sunny\"}"), messages);
        }
    }

    @Test
    void threadsSequentialOnTheCallerParallelOnAttachedLibraryThreads() throws Exception {
        try (Registry r = new Registry()) {
            Set<String> threads = ConcurrentHashMap.newKeySet();
            Set<Boolean> daemons = ConcurrentHashMap.newKeySet();
            CyclicBarrier together = new CyclicBarrier(4);
            r.registerFunction(WEATHER, args -> {
                threads.add(Thread.currentThread().getName());
                daemons.add(Thread.currentThread().isDaemon());
                return "ok";
            });
            r.registerFunction("{\"name\": \"meet\", \"description\": \"Waits for three others.\"}", args -> {
                // Returns only when four calls run at once: proof that parallel(4) runs them concurrently.
                together.await(20, TimeUnit.SECONDS);
                return Thread.currentThread().getName();
            });
            r.execute(reply(call("a", "get_weather", "{\"city\":\"x\"}")));
            assertEquals(Set.of(Thread.currentThread().getName()), threads);
            threads.clear();
            daemons.clear();
            String m = r.execute(reply(call("a", "meet", "{}"), call("b", "meet", "{}"), call("c", "meet", "{}"), call("d", "meet", "{}"),
                    call("e", "get_weather", "{\"city\":\"x\"}")), new ExecuteOptions().parallel(4));
            assertFalse(m.contains("Error"), m);
            assertEquals(Set.of("toolregistry-call"), threads);
            assertEquals(Set.of(true), daemons);
        }
        // The library's threads ended; JNA detached them from the JVM.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (attached("toolregistry-call") > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, attached("toolregistry-call"));
    }

    static long attached(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).count();
    }

    @Test
    void noLockIsHeldWhileAFunctionRuns() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (Registry r = new Registry(new RegistryOptions().discovery(new DiscoveryOptions()))) {
                AtomicReference<Registry> self = new AtomicReference<>(r);
                r.registerFunction(WEATHER, args -> "sunny");
                r.registerFunction("{\"name\": \"reenter\", \"description\": \"Calls back into its registry.\"}", args -> {
                    Registry reg = self.get();
                    reg.register("{\"name\": \"made_inside\", \"description\": \"Registered from a host function.\"}");
                    String hit = reg.discoverer().discover("weather", 1).get(0).name();
                    String inner = reg.execute(reply(call("i", "get_weather", "{\"city\":\"Rome\"}")));
                    return hit + " " + inner.contains("sunny");
                });
                for (ExecuteOptions o : new ExecuteOptions[] {new ExecuteOptions(), new ExecuteOptions().parallel(2)}) {
                    String m = r.execute(reply(call("a", "reenter", "{}"), call("b", "reenter", "{}")), o);
                    assertTrue(m.contains("\"content\":\"get_weather true\""), m);
                }
                assertTrue(r.executeAsync(reply(call("a", "reenter", "{}"))).get(20, TimeUnit.SECONDS).contains("get_weather true"));
                assertTrue(r.toolsStatus().stream().anyMatch(t -> t.name().equals("made_inside")));
            }
        });
    }

    @Test
    void aFunctionMayCloseTheRegistryRunningIt() {
        Registry r = new Registry();
        r.registerFunction("{\"name\": \"closer\", \"description\": \"Closes its registry.\"}", args -> {
            return "closed";
        });
        AtomicReference<Registry> self = new AtomicReference<>(r);
        r.registerFunction("{\"name\": \"closer2\", \"description\": \"Closes its registry.\"}", args -> {
            self.get().close();
            return "closed " + self.get().isClosed();
        });
        String m = r.execute(reply(call("a", "closer2", "{}"), call("b", "closer", "{}")));
        assertTrue(m.contains("\"content\":\"closed true\"") && m.contains("\"tool_call_id\":\"b\",\"content\":\"closed\""), m);
        assertTrue(r.isClosed());
    }

    @Test
    void functionsAreReleasedExactlyOnce() {
        int before = HostFunctions.liveCount();
        long releasedBefore = HostFunctions.releasedCount();
        try (Registry r = new Registry()) {
            r.registerFunction(WEATHER, args -> "a");
            r.registerFunction(WEATHER, args -> "b");   // replaced: the first is released
            r.registerFunction("{\"name\": \"x\", \"description\": \"X.\"}", args -> "x");
            r.setFallback((name, args) -> name);
            r.unregister("x");
            assertEquals(before + 2, HostFunctions.liveCount());
            assertEquals(releasedBefore + 2, HostFunctions.releasedCount());
            // A failed registration releases its function at once.
            try {
                r.registerFunction("{\"nope\": 1}", args -> "never");
            } catch (ToolRegistryException expected) {
                assertEquals(Status.INVALID_ARGUMENT, expected.status());
            }
            assertEquals(before + 2, HostFunctions.liveCount());
        }
        assertEquals(before, HostFunctions.liveCount());
        assertEquals(0, HostFunctions.unknownReleaseCount());
    }

    @Test
    void fallbackRunsToolsWithoutAFunction() throws Exception {
        try (Registry r = new Registry()) {
            r.register("{\"name\": \"github-list_issues\", \"description\": \"List issues.\"}");
            r.setFallback((name, args) -> "routed " + name);
            String calls = reply(call("a", "github-list_issues", "{}"));
            assertTrue(r.execute(calls).contains("routed github-list_issues"));
            assertTrue(r.executeAsync(calls).get().contains("routed github-list_issues"));
            r.setFallback(null);
            assertTrue(r.execute(calls).contains("has no host function"));
        }
    }
}
