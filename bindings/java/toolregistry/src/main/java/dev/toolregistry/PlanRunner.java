package dev.toolregistry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * {@code executeAsync}: the two steps of the C ABI with the registry's Java functions run in
 * between. Prepare answers a plan; every host call of it is started at once (an async function
 * on the starting thread, a plain one on the executor); a call the plan marks not concurrency
 * safe waits for those before it and holds back those after it; finish turns the results into
 * the messages, byte for byte what {@code execute} gives. Nothing here runs beside the two steps.
 */
final class PlanRunner {
    private PlanRunner() {}

    private static final class DefaultPool {
        static final ExecutorService POOL = Executors.newCachedThreadPool(new java.util.concurrent.ThreadFactory() {
            private final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "toolregistry-host-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            }
        });
    }

    /** The pool plain functions run on by default: daemon threads, one per running call. */
    static ExecutorService defaultPool() {
        return DefaultPool.POOL;
    }

    /**
     * Prepare, the plan's host calls, finish. The future fails with the library's error when
     * prepare or finish does; when it is cancelled (or completed by anyone else) before the
     * results are in, the calls still running are cancelled and nothing is finished.
     */
    static CompletableFuture<String> execute(Supplier<String> prepare, BiFunction<String, String, String> finish,
            HostIndex hosts, Executor executor) {
        CompletableFuture<String> out = new CompletableFuture<>();
        String plan;
        List<HostCall> calls;
        try {
            plan = prepare.get();
            calls = HostCall.fromPlan(plan);
        } catch (Throwable e) {
            out.completeExceptionally(e);
            return out;
        }
        Executor ex = executor != null ? executor : defaultPool();
        CallResult[] results = new CallResult[calls.size()];
        ConcurrentLinkedQueue<CompletableFuture<?>> running = new ConcurrentLinkedQueue<>();
        out.whenComplete((v, e) -> {
            if (e != null) {
                for (CompletableFuture<?> f : running) {
                    f.cancel(true);
                }
            }
        });
        CompletableFuture<Void> barrier = CompletableFuture.completedFuture(null);
        List<CompletableFuture<Void>> group = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            HostCall call = calls.get(i);
            int slot = i;
            if (call.concurrencySafe()) {
                group.add(barrier.thenCompose(v -> runInto(results, slot, call, hosts, ex, out, running)));
            } else {
                group.add(barrier);
                CompletableFuture<Void> before = CompletableFuture.allOf(group.toArray(new CompletableFuture<?>[0]));
                group.clear();
                barrier = before.thenCompose(v -> runInto(results, slot, call, hosts, ex, out, running));
            }
        }
        group.add(barrier);
        CompletableFuture.allOf(group.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            if (out.isDone()) {
                return;
            }
            try {
                out.complete(finish.apply(plan, CallResult.arrayJson(Arrays.asList(results))));
            } catch (Throwable t) {
                out.completeExceptionally(t);
            }
        });
        return out;
    }

    /** Runs one call into its slot; the returned stage never fails. */
    private static CompletableFuture<Void> runInto(CallResult[] results, int slot, HostCall call, HostIndex hosts,
            Executor ex, CompletableFuture<String> out, ConcurrentLinkedQueue<CompletableFuture<?>> running) {
        if (out.isDone()) {
            return CompletableFuture.completedFuture(null);
        }
        HostEntry entry = hosts.lookup(call.name());
        if (entry == null) {
            results[slot] = CallResult.unhandled(call.id());
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<String> stage;
        try {
            stage = start(entry, call, ex);
        } catch (Throwable e) {
            results[slot] = failure(call, e);
            return CompletableFuture.completedFuture(null);
        }
        running.add(stage);
        if (out.isDone()) {
            stage.cancel(true);
        }
        return stage.handle((content, error) -> {
            results[slot] = error != null ? failure(call, error) : result(call, content);
            return null;
        });
    }

    private static CompletableFuture<String> start(HostEntry entry, HostCall call, Executor ex) throws Exception {
        if (entry.async != null) {
            CompletionStage<String> s = entry.async.apply(call.argumentsJson());
            return s == null ? CompletableFuture.completedFuture(null) : s.toCompletableFuture();
        }
        CompletableFuture<String> cf = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                cf.complete(entry.sync.apply(call.name(), call.argumentsJson()));
            } catch (Throwable t) {
                cf.completeExceptionally(t);
            }
        };
        if (ex instanceof ExecutorService) {
            // Cancelling the stage interrupts the thread running the function.
            Future<?> f = ((ExecutorService) ex).submit(task);
            cf.whenComplete((v, e) -> {
                if (cf.isCancelled()) {
                    f.cancel(true);
                }
            });
        } else {
            ex.execute(task);
        }
        return cf;
    }

    private static CallResult failure(HostCall call, Throwable error) {
        Throwable cause = HostFunctions.unwrap(error);
        if (cause instanceof ToolCallException) {
            return CallResult.error(call.id(), HostFunctions.messageOf(cause));
        }
        return CallResult.error(call.id(), HostFunctions.panicMessage(call.name(), cause));
    }

    private static CallResult result(HostCall call, String content) {
        if (content == null) {
            return CallResult.error(call.id(), "the host function returned no result");
        }
        try {
            Utf8.encode(content, "the result");
        } catch (ToolRegistryException e) {
            return CallResult.error(call.id(), "the host function of \"" + call.name() + "\" returned unusable text: " + e.getMessage());
        }
        return CallResult.content(call.id(), content);
    }
}
