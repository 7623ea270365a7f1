package dev.toolregistry;

import static dev.toolregistry.ExecuteTest.call;
import static dev.toolregistry.ExecuteTest.reply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** executeAsync on the two steps: concurrency, order, failures, cancellation; the steps themselves. */
class AsyncTest {
    static String tool(String name, boolean concurrencySafe) {
        return "{\"name\": \"" + name + "\", \"description\": \"A tool.\"" + (concurrencySafe ? "" : ", \"metadata\": {\"concurrency_safe\": false}") + "}";
    }

    @Test
    void everyCallOfTheBatchIsInFlightAtOnce() throws Exception {
        try (Registry r = new Registry()) {
            List<CompletableFuture<String>> pending = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                r.registerAsyncFunction(tool("wait_" + i, true), args -> {
                    CompletableFuture<String> f = new CompletableFuture<>();
                    pending.add(f);
                    return f.thenApply(x -> x + n);
                });
            }
            List<String> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(call("c" + i, "wait_" + i, "{}"));
            }
            CompletableFuture<String> out = r.executeAsync(reply(calls.toArray(new String[0])));
            // All eight started before any finished: nothing waits for another.
            assertEquals(8, pending.size());
            assertFalse(out.isDone());
            for (int i = 7; i >= 0; i--) {
                pending.get(i).complete("done ");
            }
            String m = out.get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 8; i++) {
                assertTrue(m.contains("{\"role\":\"tool\",\"tool_call_id\":\"c" + i + "\",\"content\":\"done " + i + "\"}"), m);
            }
        }
    }

    @Test
    void sameBytesAsExecute() throws Exception {
        try (Registry r = new Registry()) {
            r.registerAsyncFunction(ExecuteTest.WEATHER, args -> CompletableFuture.supplyAsync(() -> "sunny " + args));
            r.registerFunction(tool("plain", true), args -> "plain");
            r.registerAsyncFunction(tool("fails", true), args -> CompletableFuture.failedFuture(new ToolCallException("no")));
            r.registerAsyncFunction(tool("throws", true), args -> {
                throw new IllegalArgumentException("early");
            });
            r.registerAsyncFunction(tool("cancelled", true), args -> {
                CompletableFuture<String> f = new CompletableFuture<>();
                f.cancel(false);
                return f;
            });
            r.registerAsyncFunction(tool("nullstage", true), args -> null);
            String calls = reply(call("a", "get_weather", "{\"city\":\"Lima\"}"), call("b", "plain", "{}"), call("c", "fails", "{}"),
                    call("d", "throws", "{}"), call("e", "cancelled", "{}"), call("f", "nullstage", "{}"), call("g", "unknown_tool", "{}"),
                    call("h", "get_weather", "{}"));
            String async = r.executeAsync(calls).get(10, TimeUnit.SECONDS);
            assertEquals(r.execute(calls), async);
            assertTrue(async.contains("sunny {\\\"city\\\":\\\"Lima\\\"}"), async);
            assertTrue(async.contains("\"Error: no\""), async);
            assertTrue(async.contains("panicked: early"), async);
            assertTrue(async.contains("panicked: java.util.concurrent.CancellationException"), async);
            assertTrue(async.contains("the host function returned no result"), async);
        }
    }

    @Test
    void aCallThatIsNotConcurrencySafeRunsAlone() throws Exception {
        try (Registry r = new Registry()) {
            AtomicInteger running = new AtomicInteger();
            List<String> log = new CopyOnWriteArrayList<>();
            for (String name : List.of("a", "b", "solo", "c")) {
                r.registerAsyncFunction(tool(name, !name.equals("solo")), args -> CompletableFuture.supplyAsync(() -> {
                    int now = running.incrementAndGet();
                    log.add(name + ":" + now);
                    try {
                        Thread.sleep(30);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    running.decrementAndGet();
                    return name;
                }));
            }
            r.executeAsync(reply(call("1", "a", "{}"), call("2", "b", "{}"), call("3", "solo", "{}"), call("4", "c", "{}")))
                    .get(10, TimeUnit.SECONDS);
            assertTrue(log.contains("solo:1"), log.toString());
            assertTrue(log.indexOf("solo:1") == 2 && log.get(3).equals("c:1"), log.toString());
        }
    }

    @Test
    void cancellingTheFutureCancelsRunningCallsAndFinishesNothing() throws Exception {
        try (Registry r = new Registry()) {
            CompletableFuture<String> never = new CompletableFuture<>();
            CountDownLatch plainStarted = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            r.registerAsyncFunction(tool("slow", true), args -> never);
            r.registerFunction(tool("blocking", true), args -> {
                plainStarted.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
                return "late";
            });
            CompletableFuture<String> out = r.executeAsync(reply(call("a", "slow", "{}"), call("b", "blocking", "{}")));
            assertTrue(plainStarted.await(10, TimeUnit.SECONDS));
            assertTrue(out.cancel(true));
            assertThrows(CancellationException.class, out::join);
            assertTrue(never.isCancelled(), "the async function's stage is cancelled");
            assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the plain function's thread is interrupted");
        }
    }

    @Test
    void aCancelledConversationBatchLoadsNothing() throws Exception {
        try (Registry r = new Registry()) {
            r.registerAsyncFunction("{\"name\": \"send_email\", \"description\": \"Send an email.\", \"metadata\": {\"defer\": true}}",
                    args -> new CompletableFuture<>());
            try (Conversation c = r.conversation()) {
                CompletableFuture<String> out = c.executeAsync(reply(call("a", "send_email", "{}")));
                out.cancel(true);
                assertTrue(c.loaded().isEmpty());
                // A timeout completes the future too: the same, nothing finished.
                CompletableFuture<String> timed = c.executeAsync(reply(call("b", "send_email", "{}"))).orTimeout(50, TimeUnit.MILLISECONDS);
                ExecutionException e = assertThrows(ExecutionException.class, timed::get);
                assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause());
                assertTrue(c.loaded().isEmpty());
            }
        }
    }

    @Test
    void badCallsFailTheFutureWithTheCStatus() {
        try (Registry r = new Registry()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> r.executeAsync("{\"not\": \"calls\"}").get());
            assertEquals(Status.INVALID_ARGUMENT, ((ToolRegistryException) e.getCause()).status());
            e = assertThrows(ExecutionException.class, () -> r.executeAsync("[{").get());
            assertEquals(Status.INVALID_JSON, ((ToolRegistryException) e.getCause()).status());
        }
    }

    @Test
    void theTwoStepsByHand() {
        try (Registry r = new Registry()) {
            r.register(ExecuteTest.WEATHER);
            String calls = reply(call("a", "get_weather", "{\"city\":\"Oslo\"}"), call("b", "nope", "{}"));
            String plan = r.prepareCalls(calls, null);
            List<HostCall> host = HostCall.fromPlan(plan);
            assertEquals(List.of(new HostCall("a", "get_weather", "{\"city\":\"Oslo\"}", true)), host);
            String messages = r.finishCalls(plan, List.of(CallResult.content("a", "snow")));
            assertTrue(messages.contains("\"content\":\"snow\""), messages);
            assertTrue(messages.contains("\"tool_call_id\":\"b\",\"content\":\"Error: "), messages);
            assertTrue(r.finishCalls(plan, List.of(CallResult.unhandled("a"))).contains("has no host function"));
            assertTrue(r.finishCalls(plan, List.of(CallResult.error("a", "down"))).contains("Error: down"));
            ToolRegistryException missing = assertThrows(ToolRegistryException.class, () -> r.finishCalls(plan, "[]"));
            assertEquals(Status.INVALID_ARGUMENT, missing.status());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(ToolRegistryException.class, () -> HostCall.fromPlan("{}")).status());
        }
    }
}
