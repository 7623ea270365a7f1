package dev.toolregistry;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Java binding's cost, in one process and one run (numbers for BENCHMARKS.md, never a test):
 *
 * <ol>
 *   <li>discover on bfcl's catalog, top_k 10, reference profile, three ways interleaved query by
 *       query (their order turning): the bare C call through JNA (answer pointer freed, not
 *       decoded), {@code discoverJson} (the answer as a Java string), {@code discover} (decoded
 *       {@link Hit} records); p50 / p95 of each and the overhead of {@code discover} over the C call;
 *   <li>{@code executeAsync} with 8 async functions that each wait 100 ms, and with 8 plain ones
 *       that sleep 100 ms: the wall time of a batch;
 *   <li>RSS (VmRSS after a GC) every 10,000 of 100,000 iterations of register (a function
 *       replaced), discover and execute.
 * </ol>
 *
 * <pre>
 * bash scripts/test-parts/80-java.sh     # builds the classes and target/lib/jna-*.jar
 * c=bindings/java/toolregistry/target
 * TOOLREGISTRY_LIB=target/release/libtoolregistry.so java -Djna.tmpdir=/tmp/jna \
 *   -cp $c/classes:$c/test-classes:$c/lib/jna-5.19.1.jar dev.toolregistry.JavaBench [CATALOG] [QUERIES] [ITERATIONS]
 * </pre>
 * Defaults: data/bfcl/catalog.json, ../shared/eval/bfcl/queries.jsonl, 100000.
 */
public final class JavaBench {
    private JavaBench() {}

    interface Way {
        void run(int query);
    }

    public static void main(String[] args) throws Exception {
        Path catalog = Paths.get(args.length > 0 ? args[0] : "data/bfcl/catalog.json");
        Path queriesPath = Paths.get(args.length > 1 ? args[1] : "../shared/eval/bfcl/queries.jsonl");
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        List<String> queries = new ArrayList<>();
        for (String line : Files.readAllLines(queriesPath, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                queries.add(Json.str(Json.object(line, Set.of()), "query"));
            }
        }
        System.out.printf("machine: %d CPUs, Java %s, load %.2f%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        discover(catalog, queries);
        async();
        memory(iterations);
    }

    static void discover(Path catalog, List<String> queries) throws Exception {
        try (Registry registry = new Registry(new RegistryOptions().noEmbedding())) {
            registry.register(Files.readString(catalog, StandardCharsets.UTF_8));
            Discoverer d = registry.discoverer(DiscoveryOptions.reference());
            // The bare C call on a discoverer of its own, the same options, through JNA.
            Discoverer raw = registry.discoverer(DiscoveryOptions.reference());
            Pointer rawPtr = rawHandle(raw);
            byte[] options = Utf8.encode("{\"top_k\":10}", "options");
            byte[][] encoded = new byte[queries.size()][];
            for (int i = 0; i < encoded.length; i++) {
                encoded[i] = Utf8.encode(queries.get(i), "query");
            }
            String[] names = {"C call (JNA, not decoded)", "discoverJson", "discover"};
            Way[] ways = {
                q -> {
                    PointerByReference out = new PointerByReference();
                    PointerByReference err = new PointerByReference();
                    if (NativeLib.tr_discoverer_discover(rawPtr, encoded[q], options, out, err) != 0) {
                        throw new IllegalStateException("discover failed");
                    }
                    NativeLib.tr_string_free(out.getValue());
                },
                q -> d.discoverJson(queries.get(q), 10),
                q -> d.discover(queries.get(q), 10),
            };
            for (int round = 0; round < 3; round++) {   // warm-up: the JIT compiles every path
                for (int q = 0; q < queries.size(); q++) {
                    for (Way w : ways) {
                        w.run(q);
                    }
                }
            }
            int rounds = 5;
            double[][] times = new double[ways.length][queries.size() * rounds];
            int n = 0;
            for (int r = 0; r < rounds; r++) {
                for (int q = 0; q < queries.size(); q++, n++) {
                    for (int j = 0; j < ways.length; j++) {
                        int k = (q + r + j) % ways.length;   // the first to see a query pays its cold caches: turn the order
                        long t = System.nanoTime();
                        ways[k].run(q);
                        times[k][n] = (System.nanoTime() - t) / 1000.0;
                    }
                }
            }
            System.out.printf("catalog %s (%d tools), %d queries x %d rounds, top_k 10, reference profile%n", catalog,
                    registry.toolsStatus().size(), queries.size(), rounds);
            System.out.println("| way | p50 µs | p95 µs |\n|---|---|---|");
            for (int j = 0; j < ways.length; j++) {
                System.out.printf("| %s | %.1f | %.1f |%n", names[j], pct(times[j], 0.5), pct(times[j], 0.95));
            }
            double c50 = pct(times[0], 0.5);
            System.out.printf("overhead of discover over the C call (p50): %.1f µs; of discoverJson: %.1f µs%n",
                    pct(times[2], 0.5) - c50, pct(times[1], 0.5) - c50);
            raw.close();
            d.close();
        }
    }

    private static Pointer rawHandle(Discoverer d) throws Exception {
        java.lang.reflect.Field f = Discoverer.class.getDeclaredField("handle");
        f.setAccessible(true);
        NativeHandle h = (NativeHandle) f.get(d);
        Pointer p = h.acquire();
        h.release();
        return p;
    }

    static void async() throws Exception {
        try (Registry registry = new Registry(new RegistryOptions().noEmbedding())) {
            List<String> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                registry.registerAsyncFunction("{\"name\": \"wait_" + i + "\", \"description\": \"Waits 100 ms.\"}",
                        args -> CompletableFuture.supplyAsync(() -> "waited " + n, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)));
                registry.registerFunction("{\"name\": \"sleep_" + i + "\", \"description\": \"Sleeps 100 ms.\"}", args -> {
                    Thread.sleep(100);
                    return "slept " + n;
                });
                calls.add("{\"id\":\"c" + i + "\",\"type\":\"function\",\"function\":{\"name\":\"%s_" + i + "\",\"arguments\":\"{}\"}}");
            }
            for (String kind : new String[] {"wait", "sleep"}) {
                String reply = "{\"role\":\"assistant\",\"tool_calls\":[" + String.format(String.join(",", calls), (Object[]) repeat(kind, 8)) + "]}";
                double[] walls = new double[20];
                registry.executeAsync(reply).get();   // warm-up
                for (int r = 0; r < walls.length; r++) {
                    long t = System.nanoTime();
                    String m = registry.executeAsync(reply).get();
                    walls[r] = (System.nanoTime() - t) / 1e6;
                    if (!m.contains(kind.equals("wait") ? "waited 7" : "slept 7")) {
                        throw new IllegalStateException("wrong answer " + m);
                    }
                }
                System.out.printf("executeAsync, 8 %s x 100 ms, %d batches: p50 %.1f ms, max %.1f ms (one after another: 800 ms)%n",
                        kind.equals("wait") ? "async functions (CompletableFuture, delayed)" : "plain functions (Thread.sleep, default pool)",
                        walls.length, pct(walls, 0.5), Arrays.stream(walls).max().orElse(0));
            }
        }
    }

    private static String[] repeat(String s, int n) {
        String[] out = new String[n];
        Arrays.fill(out, s);
        return out;
    }

    static void memory(int iterations) throws Exception {
        try (Registry registry = new Registry(new RegistryOptions().noEmbedding())) {
            Discoverer d = registry.discoverer();
            System.out.printf("%d iterations of registerFunction (replacing one of 100 tools), discover, execute%n", iterations);
            System.out.println("| iterations | VmRSS MB | Java heap used MB | host functions held |\n|---|---|---|---|");
            for (int i = 1; i <= iterations; i++) {
                int t = i % 100;
                int n = i;
                registry.registerFunction("{\"name\": \"tool_" + t + "\", \"description\": \"Tool number " + t
                        + " counts things.\", \"parameters\": {\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}}}", args -> "counted " + n + " " + args);
                if (d.discover("count things with tool " + t, 5).isEmpty()) {
                    throw new IllegalStateException("no hits");
                }
                String m = registry.execute("{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"tool_" + t
                        + "\",\"arguments\":\"{\\\"n\\\":" + i + "}\"}}]}");
                if (!m.contains("counted " + n)) {
                    throw new IllegalStateException("wrong answer " + m);
                }
                if (i % (iterations / 10) == 0) {
                    System.gc();
                    Thread.sleep(50);
                    Runtime rt = Runtime.getRuntime();
                    System.out.printf("| %,d | %.1f | %.1f | %d |%n", i, rssMb(), (rt.totalMemory() - rt.freeMemory()) / 1e6, HostFunctions.liveCount());
                }
            }
            d.close();
        }
    }

    private static double rssMb() throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1000.0;
            }
        }
        return -1;
    }

    static double pct(double[] a, double p) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.floor(p * s.length))];
    }
}
