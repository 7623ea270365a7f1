package dev.toolregistry;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Tool definitions, their metadata and enabled state, the search index, and the Java functions
 * that run the model's tool calls: the JVM face of {@code tr_registry}.
 *
 * <pre>{@code
 * try (Registry registry = new Registry()) {
 *     registry.register("[{\"name\": \"send_email\", \"description\": \"Send an email.\", \"metadata\": {\"defer\": true}}]");
 *     for (Hit hit : registry.discoverer().discover("email someone", 3)) {
 *         System.out.println(hit.name() + " " + hit.score());
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe: any method may be called from many threads at once; discovers run in parallel
 * in the library, mutations are serialized there. No Java lock is held across a library call, so
 * a host function may call back into its registry. {@link #close()} frees the native registry
 * once no call is running (a call in flight finishes first) and is idempotent; afterwards every
 * method throws {@link IllegalStateException}. Discoverers and conversations made from a registry
 * share its state and keep working after its close. A registry dropped unclosed is freed by a
 * {@link java.lang.ref.Cleaner}, but one whose host functions capture it stays reachable until
 * closed: close registries that have functions.
 *
 * <p>Every failed library call throws {@link ToolRegistryException} with the C status; nothing
 * changed then. A {@code null} where a value is required throws {@link NullPointerException}.
 */
public final class Registry implements AutoCloseable {
    private final NativeHandle handle;
    private final HostIndex hosts = new HostIndex();

    /** An empty registry (the built-in encoder of {@code TOOLREGISTRY_MODEL_DIR}, if set). */
    public Registry() {
        this((String) null);
    }

    /** An empty registry with options (discovery enabled at once, the built-in encoder). */
    public Registry(RegistryOptions options) {
        this(options == null ? null : options.toJson());
    }

    /**
     * An empty registry with the library's options JSON: {@code {"embedding"?: {"model_dir",
     * "cache_path"?, "threads"?} | null, "discovery"?: {...}}}.
     */
    public Registry(String optionsJson) {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        NativeLib.check(NativeLib.tr_registry_new(Utf8.encode(optionsJson, "options"), out, err), err);
        handle = new NativeHandle(this, out.getValue(), NativeLib::tr_registry_free, "Registry");
    }

    /** The loaded library's version, e.g. {@code "0.1.0"}. */
    public static String libraryVersion() {
        return Utf8.copy(NativeLib.tr_version());
    }

    /** The file the native library was loaded from. */
    public static String libraryPath() {
        return NativeLib.LIBRARY.getFile() == null ? NativeLib.LIBRARY.getName() : NativeLib.LIBRARY.getFile().getAbsolutePath();
    }

    NativeHandle handle() {
        return handle;
    }

    HostIndex hosts() {
        return hosts;
    }

    /** Frees the registry (a call in flight finishes first). Again: nothing. */
    @Override
    public void close() {
        handle.close();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return handle.isClosed();
    }

    // ---- tools ----

    /**
     * Registers one tool or a JSON array of tools, all or nothing, in any accepted shape: flat
     * {@code {"name", "description", "parameters"}}, OpenAI chat or Responses, Anthropic
     * {@code input_schema}, MCP {@code inputSchema}; each may add {@code "namespace"} and
     * {@code "metadata": {"defer", "tags", "search_hint"}}. A registered name is replaced in place
     * (and loses its function).
     *
     * @return the registered names, in order
     */
    public List<String> register(String toolsJson) {
        byte[] tools = Utf8.required(toolsJson, "toolsJson");
        Pointer p = handle.acquire();
        try {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            return Json.strings(Json.parse(NativeLib.output(NativeLib.tr_registry_register(p, tools, out, err), out, err)));
        } finally {
            handle.release();
        }
    }

    /**
     * Registers one tool with the Java function that runs its calls in {@link #execute} and
     * {@link #executeAsync}. A tool of the same name is replaced, with its function.
     *
     * @param toolJson the tool's definition, one tool in any shape {@link #register} takes
     * @param fn gets the arguments JSON, answers the text the model reads (see {@link ToolFunction})
     * @return the registered name, in a list of one
     */
    public List<String> registerFunction(String toolJson, ToolFunction fn) {
        if (fn == null) {
            throw new NullPointerException("fn is null");
        }
        return registerHost(toolJson, new HostEntry((name, args) -> fn.apply(args), null, hosts));
    }

    /**
     * Registers one tool with an async Java function: {@link #executeAsync} starts every call of a
     * batch and awaits their stages together; {@link #execute} waits for each stage in turn.
     *
     * @param toolJson the tool's definition, one tool in any shape {@link #register} takes
     * @param fn starts a call and answers a stage of the text the model reads (see {@link AsyncToolFunction})
     * @return the registered name, in a list of one
     */
    public List<String> registerAsyncFunction(String toolJson, AsyncToolFunction fn) {
        if (fn == null) {
            throw new NullPointerException("fn is null");
        }
        return registerHost(toolJson, new HostEntry(null, fn, hosts));
    }

    private List<String> registerHost(String toolJson, HostEntry entry) {
        byte[] tool = Utf8.required(toolJson, "toolJson");
        Pointer p = handle.acquire();
        try {
            Pointer userData = HostFunctions.add(entry);
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            int status;
            try {
                status = NativeLib.tr_registry_register_callable(p, tool, HostFunctions.INVOKE, userData, HostFunctions.RELEASE, out, err);
            } catch (Throwable e) {
                HostFunctions.forget(userData);
                throw e;
            }
            // On failure the library has already released userData.
            List<String> names = Json.strings(Json.parse(NativeLib.output(status, out, err)));
            hosts.add(entry, names.get(0));
            return names;
        } finally {
            handle.release();
        }
    }

    /**
     * Sets the function that runs calls of registered tools without one of their own (a gateway
     * registers definitions only and routes by name); {@code null} removes it.
     */
    public void setFallback(FallbackFunction fn) {
        Pointer p = handle.acquire();
        try {
            PointerByReference err = new PointerByReference();
            if (fn == null) {
                NativeLib.check(NativeLib.tr_registry_set_fallback(p, null, null, null, err), err);
                return;
            }
            HostEntry entry = new HostEntry(fn, null, hosts);
            Pointer userData = HostFunctions.add(entry);
            int status;
            try {
                status = NativeLib.tr_registry_set_fallback(p, HostFunctions.INVOKE, userData, HostFunctions.RELEASE, err);
            } catch (Throwable e) {
                HostFunctions.forget(userData);
                throw e;
            }
            NativeLib.check(status, err);
            hosts.add(entry, null);
        } finally {
            handle.release();
        }
    }

    /** Removes a tool by registered name ({@link Status#NOT_FOUND} if none); removing {@code discover_tools} turns discovery off. */
    public void unregister(String name) {
        byte[] n = Utf8.required(name, "name");
        act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_unregister(p, n, err), err);
        });
    }

    /** Replaces the given metadata fields of a tool: {@code {"defer"?, "tags"?, "search_hint"?}}. */
    public void setMetadata(String name, String metadataJson) {
        byte[] n = Utf8.required(name, "name");
        byte[] m = Utf8.required(metadataJson, "metadataJson");
        act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_set_metadata(p, n, m, err), err);
        });
    }

    /** Replaces the given metadata fields of a tool; a {@code null} argument keeps that field. */
    public void setMetadata(String name, Boolean defer, List<String> tags, String searchHint) {
        setMetadata(name, new Json.Obj().put("defer", defer).put("tags", tags).put("search_hint", searchHint).toString());
    }

    /** Enables or disables a tool, or every tool of a namespace. */
    public void setEnabled(String name, boolean enabled) {
        byte[] n = Utf8.required(name, "name");
        act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_set_enabled(p, n, enabled, err), err);
        });
    }

    /** Enables a tool or namespace again (clears the reason it was disabled). */
    public void enable(String name) {
        setEnabled(name, true);
    }

    /** Disables a tool or namespace. */
    public void disable(String name) {
        disable(name, null);
    }

    /**
     * Disables a tool or namespace, recording why: a model that calls it reads
     * {@code tool "NAME" is disabled: REASON}, and {@link #toolsStatus()} shows it.
     */
    public void disable(String name, String reason) {
        byte[] n = Utf8.required(name, "name");
        byte[] r = Utf8.encode(reason, "reason");
        act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_disable(p, n, r, err), err);
        });
    }

    /** Every registered tool, disabled ones included, sorted by name. */
    public List<ToolStatus> toolsStatus() {
        return ToolStatus.parseList(toolsStatusJson());
    }

    /** {@link #toolsStatus()} as the library's JSON. */
    public String toolsStatusJson() {
        return get((p, out, err) -> NativeLib.tr_registry_tools_status(p, out, err));
    }

    /**
     * Turns usage (co-use learning) on: the tool calls the library runs ({@code execute}, the two
     * steps, conversations) are recorded as tasks, and discovers let their best hits bring in the
     * tools they are used with ({@link Hit#broughtIn()}). With a path the counts are loaded from
     * that file and written back to it atomically (at most every 5 seconds while tasks come, on
     * {@link #saveUsage()}, and on {@link #close()}); a missing or corrupt file is an empty start
     * (a corrupt one's warning is in {@link #usageStatus()}).
     *
     * @param path the usage file, or null for none
     */
    public void enableUsage(String path) {
        if (path != null && path.isEmpty()) {
            throw new IllegalArgumentException("an empty path; pass null for no file");
        }
        byte[] p = Utf8.encode(path, "path");
        act(h -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_enable_usage(h, p, err), err);
        });
    }

    /**
     * Records one task: these tools were used together (for hosts that run tools themselves; it
     * records whether or not usage is enabled). Names of no registered tool, repeats and empty
     * names do not count, nor names past the first 32.
     *
     * @return how many names counted (0: nothing was recorded)
     */
    public int recordUsage(List<String> names) {
        if (names == null) {
            throw new NullPointerException("names");
        }
        return recordUsageJson(Json.write(names));
    }

    /** {@link #recordUsage(List)} with the names as arguments. */
    public int recordUsage(String... names) {
        return recordUsage(List.of(names));
    }

    /**
     * {@link #recordUsage(List)} with the names as a JSON array ({@code ["get_user_token",
     * "add_agenda"]}); anything else is a {@link ToolRegistryException} ({@link Status#INVALID_JSON},
     * {@link Status#INVALID_ARGUMENT} naming the first bad element) and records nothing.
     */
    public int recordUsageJson(String namesJson) {
        byte[] n = Utf8.required(namesJson, "namesJson");
        LongByReference counted = new LongByReference();
        act(h -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_record_usage(h, n, counted, err), err);
        });
        return (int) counted.getValue();
    }

    /**
     * Writes the usage file now, if there is one and something is unsaved ({@link Status#INTERNAL}
     * when it cannot be written: the counts stay in memory).
     */
    public void saveUsage() {
        act(h -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_save_usage(h, err), err);
        });
    }

    /** What usage holds: recording, the file, tasks, tools, memory, the last warning. */
    public UsageStatus usageStatus() {
        return UsageStatus.parse(usageStatusJson());
    }

    /** {@link #usageStatus()} as the library's JSON. */
    public String usageStatusJson() {
        return get((p, out, err) -> NativeLib.tr_registry_usage_status(p, out, err));
    }

    /** The enabled tools' schemas, sorted by name, OpenAI chat format, as a JSON array. */
    public String schemas() {
        return schemas(new SchemaOptions());
    }

    /** The schemas these options choose, cleaned for the provider, as a JSON array. */
    public String schemas(SchemaOptions options) {
        byte[] o = Utf8.encode((options == null ? new SchemaOptions() : options).toJson(false), "options");
        return get((p, out, err) -> NativeLib.tr_registry_get_schemas(p, o, out, err));
    }

    /** The schemas in OpenAI strict mode (OpenAI formats only); tools that cannot be strict are named in the warnings. */
    public StrictSchemas strictSchemas(SchemaOptions options) {
        byte[] o = Utf8.encode((options == null ? new SchemaOptions() : options).toJson(true), "options");
        return StrictSchemas.parse(get((p, out, err) -> NativeLib.tr_registry_get_schemas(p, o, out, err)));
    }

    /**
     * Exactly these tools, in this order (disabled ones included), as a framework declares them:
     * name, description, parameters schema. {@link Status#NOT_FOUND} names an unknown one.
     */
    public List<ToolSchema> toolSchemas(List<String> names) {
        return ToolSchema.parseChat(schemas(new SchemaOptions().names(names.toArray(new String[0]))));
    }

    /** The tools these options choose (enabled ones, sorted by name), as a framework declares them. */
    public List<ToolSchema> toolSchemas(SchemaOptions options) {
        SchemaOptions o = options == null ? new SchemaOptions() : options.copy();
        return ToolSchema.parseChat(schemas(o.apiFormat(ApiFormat.OPENAI_CHAT)));
    }

    /** One line per enabled deferred tool, in registration order, for a system prompt. */
    public List<DeferredSummary> deferredSummaries() {
        return DeferredSummary.parseList(deferredSummariesJson());
    }

    /** {@link #deferredSummaries()} as the library's JSON. */
    public String deferredSummariesJson() {
        return get((p, out, err) -> NativeLib.tr_registry_deferred_summaries(p, out, err));
    }

    // ---- discovery ----

    /** Registers the built-ins {@code discover_tools} and {@code call_deferred} with default ranking. */
    public void enableDiscovery() {
        enableDiscovery(null);
    }

    /** Registers the built-ins {@code discover_tools} and {@code call_deferred} with these ranking options. */
    public void enableDiscovery(DiscoveryOptions options) {
        byte[] o = Utf8.encode(options == null ? null : options.toJson(), "options");
        act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_enable_discovery(p, o, err), err);
        });
    }

    /** Runs a built-in ({@code discover_tools}, {@code call_deferred}) as a model's call would; answers its JSON. */
    public String call(String builtin, String argumentsJson) {
        byte[] n = Utf8.required(builtin, "builtin");
        byte[] a = Utf8.required(argumentsJson, "argumentsJson");
        return get((p, out, err) -> NativeLib.tr_registry_call(p, n, a, out, err));
    }

    /** {@code discover_tools} typed: the model's search, with the options {@link #enableDiscovery} set. */
    public List<Hit> discoverTools(String query, int topK) {
        return Hit.parseList(call("discover_tools", new Json.Obj().put("query", query).put("top_k", topK).toString()));
    }

    /** A discoverer with the default ranking (enhanced; hybrid with an embedder). */
    public Discoverer discoverer() {
        return new Discoverer(this, null);
    }

    /** A discoverer with its own ranking options; it follows every change and outlives {@link #close()}. */
    public Discoverer discoverer(DiscoveryOptions options) {
        return new Discoverer(this, options == null ? null : options.toJson());
    }

    // ---- conversations ----

    /** A conversation with the default options (OpenAI chat, summaries mode). */
    public Conversation conversation() {
        return new Conversation(this, null);
    }

    /** A conversation over this registry (see {@link Conversation}). */
    public Conversation conversation(ConversationOptions options) {
        return new Conversation(this, options == null ? null : options.toJson());
    }

    /** A conversation with the library's options JSON. */
    public Conversation conversation(String optionsJson) {
        return new Conversation(this, optionsJson);
    }

    // ---- the tool loop ----

    /**
     * Runs a batch of the model's tool calls with the registered functions and answers the
     * messages of the next turn (a JSON array), in the provider's shape, one result per call in
     * call order. {@code callsJson} is what the provider returned: an OpenAI chat message or its
     * {@code tool_calls}, a Responses response or its items, an Anthropic message or its blocks, a
     * Gemini {@code Content} or response. A bad call, an unknown or disabled tool, a function that
     * throws: each becomes an error result the model can act on, and the rest still run.
     *
     * @throws ToolRegistryException only when {@code callsJson} is no provider's call list, or the options are bad
     */
    public String execute(String callsJson) {
        return execute(callsJson, null);
    }

    /**
     * Runs one call of a tool as the model made it (for frameworks that hand calls one at a time)
     * and answers the text the model reads: the function's answer, or an error result starting
     * with {@code "Error: "} (arguments that break the schema, an unknown or disabled tool, a
     * function that threw). Through {@link #execute(String)}: the same checks and texts.
     *
     * @param argumentsJson the arguments as the model wrote them (JSON text; null or blank: {@code {}})
     */
    public String callTool(String name, String argumentsJson) {
        if (name == null) {
            throw new NullPointerException("name is null");
        }
        String args = argumentsJson == null || argumentsJson.isBlank() ? "{}" : argumentsJson;
        String call = new Json.Obj().put("id", "call").put("type", "function")
                .put("function", new Json.Obj().put("name", name).put("arguments", args).map()).toString();
        String messages = execute("{\"role\":\"assistant\",\"tool_calls\":[" + call + "]}");
        List<Map<String, Object>> list = Json.objects(Json.parse(messages));
        return list.isEmpty() ? "" : Json.str(list.get(0), "content");
    }

    /** {@link #execute(String)} with options ({@code parallel(N)}: up to N calls at once on library threads). */
    public String execute(String callsJson, ExecuteOptions options) {
        byte[] calls = Utf8.required(callsJson, "callsJson");
        byte[] o = Utf8.encode(options == null ? null : options.toJson(), "options");
        return get((p, out, err) -> NativeLib.tr_registry_execute(p, calls, o, out, err));
    }

    /**
     * {@link #execute(String)} without blocking: the two steps of the C ABI ({@link #prepareCalls},
     * the functions, {@link #finishCalls}) with every call of the batch in flight at once (a call
     * whose tool has metadata {@code "concurrency_safe": false} runs alone). The future completes
     * with the same messages, byte for byte; it fails with {@link ToolRegistryException} when the
     * calls are no provider's call list. Cancelling it (or completing it, e.g. {@code orTimeout})
     * before the results are in cancels the calls still running and finishes nothing.
     */
    public CompletableFuture<String> executeAsync(String callsJson) {
        return executeAsync(callsJson, null);
    }

    /** {@link #executeAsync(String)} with options (format, assistant turn, the executor of plain functions). */
    public CompletableFuture<String> executeAsync(String callsJson, ExecuteOptions options) {
        Utf8.required(callsJson, "callsJson");
        return PlanRunner.execute(() -> prepareCalls(callsJson, options), this::finishCalls, hosts,
                options == null ? null : options.executor());
    }

    /**
     * Step one of the tool loop: reads the model's calls as {@link #execute} does and answers the
     * plan, JSON to hand back unchanged to {@link #finishCalls}, from any thread or process.
     * {@link HostCall#fromPlan} lists the calls the host must run.
     */
    public String prepareCalls(String callsJson, ExecuteOptions options) {
        byte[] calls = Utf8.required(callsJson, "callsJson");
        byte[] o = Utf8.encode(options == null ? null : options.toJson(), "options");
        return get((p, out, err) -> NativeLib.tr_registry_prepare_calls(p, calls, o, out, err));
    }

    /**
     * Step two: the plan and one result per host call, in any order, as a JSON array of
     * {@code {"id", "content"}}, {@code {"id", "error"}} or {@code {"id", "unhandled": true}};
     * answers the messages, byte for byte what {@link #execute} gives for the same outcomes.
     */
    public String finishCalls(String planJson, String resultsJson) {
        byte[] plan = Utf8.required(planJson, "planJson");
        byte[] results = Utf8.required(resultsJson, "resultsJson");
        return get((p, out, err) -> NativeLib.tr_registry_finish_calls(p, plan, results, out, err));
    }

    /** {@link #finishCalls(String, String)} with typed results. */
    public String finishCalls(String planJson, Collection<CallResult> results) {
        return finishCalls(planJson, CallResult.arrayJson(results));
    }

    // ---- embeddings ----

    /**
     * Makes a Java function the registry's embedder: the library calls it on its embedding thread
     * for the catalog and on discovering threads for queries, and ranks with {@link Profile#HYBRID}
     * by default. Replaces any embedder set before; every enabled tool is embedded again.
     *
     * @param dim the length of every vector (1 to 8192)
     * @param fn the embedder (see {@link Embedder})
     * @param identity names the model for the vector cache, or null ({@code "host:DIM"})
     * @param cachePath a file that keeps the vectors across restarts, or null
     */
    public void setEmbedder(int dim, Embedder fn, String identity, String cachePath) {
        Embedders.setEmbedder(this, dim, fn, identity, cachePath);
    }

    /**
     * Makes the host the registry's embedder without a callback (the pull model): tools wait for
     * vectors the host puts back ({@link #embedPendingAsync}, or {@link #takeEmbeddingJobs} and
     * {@link #putEmbeddings}); a hybrid discover ranks with {@link DiscoverOptions#queryVector}.
     */
    public void setPullEmbedder(int dim, String identity, String cachePath) {
        Embedders.setPullEmbedder(this, dim, identity, cachePath);
    }

    /** Waits until every enabled tool has its vector (or failed); false on timeout, true at once without an embedder. */
    public boolean waitEmbeddings(Duration timeout) {
        return Embedders.waitEmbeddings(this, timeout);
    }

    /** What the embedder has done; null without one. */
    public EmbeddingStatus embeddingStatus() {
        return EmbeddingStatus.parse(embeddingStatusJson());
    }

    /** {@link #embeddingStatus()} as the library's JSON ({@code null} without an embedder). */
    public String embeddingStatusJson() {
        return get((p, out, err) -> NativeLib.tr_registry_embedding_status(p, out, err));
    }

    /** The pull model: up to {@code max} texts waiting for a vector (0: 64); empty when none waits now. */
    public List<EmbeddingJob> takeEmbeddingJobs(int max) {
        return EmbeddingJob.parseList(takeEmbeddingJobsJson(max));
    }

    /** {@link #takeEmbeddingJobs(int)} as the library's JSON: {@code [{"id", "text"}]}. */
    public String takeEmbeddingJobsJson(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max must not be negative");
        }
        return get((p, out, err) -> NativeLib.tr_registry_take_embedding_jobs(p, max, out, err));
    }

    /** The pull model: one vector per job, in order; all or none ({@link Status#INVALID_ARGUMENT} for a bad vector). */
    public void putEmbeddings(List<EmbeddingJob> jobs, float[][] vectors) {
        putEmbeddingsJson(Embedders.vectorsJson(jobs, vectors));
    }

    /** The pull model: {@code [{"id", "vector": [...]} | {"id", "error"}]}, all or none. */
    public void putEmbeddingsJson(String resultsJson) {
        byte[] r = Utf8.required(resultsJson, "resultsJson");
        act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_put_embeddings(p, r, err), err);
        });
    }

    /** The pull model: these jobs could not be embedded (their tools are found by words until their text changes). */
    public void failEmbeddings(List<EmbeddingJob> jobs, String message) {
        putEmbeddingsJson(Embedders.failuresJson(jobs, message));
    }

    /**
     * The pull model: embeds every waiting text with {@code embed}, batch by batch (up to 64 texts,
     * each stage awaited), until no enabled tool waits; completes with how many texts got a vector.
     * A batch whose stage fails (or answers a wrong count) is reported failed and the next goes on.
     * Cancelling the future stops after the batch in hand (reported failed).
     */
    public CompletableFuture<Integer> embedPendingAsync(AsyncEmbedder embed) {
        return Embedders.embedPending(this, embed);
    }

    // ---- helpers: every native call holds the handle for its duration ----

    interface Action {
        void run(Pointer p);
    }

    String get(NativeHandle.OutCall c) {
        return handle.get(c);
    }

    void act(Action a) {
        Pointer p = handle.acquire();
        try {
            a.run(p);
        } finally {
            handle.release();
        }
    }
}
