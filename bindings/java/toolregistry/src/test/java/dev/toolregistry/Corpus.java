package dev.toolregistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * The conformance corpora of tests/conformance (execute and conversation) run through this
 * binding: the fixture registries with the scripted hosts, one case at a time. Used by the tests
 * and by the cross-language programs (Cross*.java).
 */
final class Corpus {
    private Corpus() {}

    /** The repository's root: the system property toolregistry.repo (set by Maven), else the working directory. */
    static Path repo() {
        return Paths.get(System.getProperty("toolregistry.repo", ".")).toAbsolutePath().normalize();
    }

    static Path execute() {
        return repo().resolve("tests/conformance/execute");
    }

    static Path conversation() {
        return repo().resolve("tests/conformance/conversation");
    }

    static String read(Path p) {
        try {
            String s = Files.readString(p, StandardCharsets.UTF_8);
            return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The corpus' scripted host (tests/conformance/README.md): echo answers {@code NAME <- ARGS},
     * fail fails with "upstream returned 503", panic throws "kaboom". With {@code async}, the same
     * as an AsyncToolFunction completed on another thread.
     */
    static void registerHost(Registry r, String kind, String toolJson, String name, boolean async) {
        ToolFunction fn;
        switch (kind) {
            case "echo":
                fn = args -> name + " <- " + args;
                break;
            case "fail":
                fn = args -> {
                    throw new ToolCallException("upstream returned 503");
                };
                break;
            default:
                fn = args -> {
                    throw new RuntimeException("kaboom");
                };
        }
        if (!async) {
            r.registerFunction(toolJson, fn);
            return;
        }
        r.registerAsyncFunction(toolJson, args -> CompletableFuture.supplyAsync(() -> {
            try {
                return fn.apply(args);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }));
    }

    static Registry fixtureRegistry(Path corpus, boolean async) {
        Map<String, Object> fixture = Json.object(read(corpus.resolve("fixture.json")), Set.of("tool", "discovery"));
        Registry r = new Registry();
        for (Map<String, Object> entry : Json.objects(fixture.get("tools"))) {
            String tool = Json.str(entry, "tool");
            String host = Json.str(entry, "host");
            if (host == null) {
                r.register(tool);
            } else {
                String name = Json.str(Json.object(tool, Set.of()), "name");
                registerHost(r, host, tool, name, async);
            }
        }
        for (Map<String, Object> d : Json.objects(fixture.get("disable"))) {
            r.disable(Json.str(d, "name"), Json.str(d, "reason"));
        }
        String discovery = Json.str(fixture, "discovery");
        Map<String, Object> doc = Json.object(discovery, Set.of());
        r.enableDiscovery("reference".equals(doc.get("profile")) ? DiscoveryOptions.reference() : new DiscoveryOptions());
        return r;
    }

    private static List<String> dirs(Path p) {
        try (Stream<Path> s = Files.list(p)) {
            return s.filter(Files::isDirectory).map(x -> x.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code provider/case} directories of the execute corpus, sorted. */
    static List<String> executeCases(Path corpus) {
        List<String> out = new ArrayList<>();
        for (String provider : dirs(corpus)) {
            for (String c : dirs(corpus.resolve(provider))) {
                if (Files.exists(corpus.resolve(provider).resolve(c).resolve("calls.json"))) {
                    out.add(provider + "/" + c);
                }
            }
        }
        return out;
    }

    static List<String> conversationCases(Path corpus) {
        return dirs(corpus).stream().filter(c -> Files.exists(corpus.resolve(c).resolve("calls.json"))).toList();
    }

    static ExecuteOptions executeOptions(Path dir) {
        Path p = dir.resolve("options.json");
        ExecuteOptions o = new ExecuteOptions();
        if (!Files.exists(p)) {
            return o;
        }
        Map<String, Object> m = Json.object(read(p), Set.of());
        if (m.get("api_format") != null) {
            o.apiFormat(ApiFormat.fromJsonName(Json.str(m, "api_format")));
        }
        if (m.get("include_assistant") != null) {
            o.includeAssistant(Json.bool(m, "include_assistant"));
        }
        return o;
    }

    /** One execute case: through execute, or with {@code steps} through executeAsync (the two steps). */
    static String runExecuteCase(Registry r, Path corpus, String name, boolean steps) throws Exception {
        Path dir = corpus.resolve(name);
        String calls = read(dir.resolve("calls.json"));
        ExecuteOptions o = executeOptions(dir);
        return steps ? r.executeAsync(calls, o).get() : r.execute(calls, o);
    }

    /**
     * One conversation case on a fresh fixture registry, closed before the calls run (the
     * conversation outlives it): the messages and the loaded tools.
     */
    static String[] runConversationCase(Path corpus, String name, boolean steps) throws Exception {
        Path dir = corpus.resolve(name);
        Conversation c;
        try (Registry r = fixtureRegistry(corpus, steps)) {
            c = r.conversation(read(dir.resolve("options.json")));
        }
        try (c) {
            String calls = read(dir.resolve("calls.json"));
            String messages = steps ? c.executeAsync(calls).get() : c.execute(calls);
            return new String[] {messages, c.loadedJson(), c.toolsJson()};
        }
    }
}
