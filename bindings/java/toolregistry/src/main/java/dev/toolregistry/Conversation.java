package dev.toolregistry;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One conversation with a model over a registry ({@code tr_conversation}): the exact tool list
 * of each request, in the provider's shape and laid out so its prompt cache survives, and the
 * model's calls run with the deferred tools it found staying loaded.
 *
 * <pre>{@code
 * try (Conversation c = registry.conversation(new ConversationOptions().apiFormat(ApiFormat.ANTHROPIC)
 *         .mode(ConversationMode.NATIVE))) {
 *     ConversationTools t = c.tools();          // send t.toolsJson(), add t.systemText()
 *     String messages = c.execute(replyJson);   // found tools load into the next tools()
 * }
 * }</pre>
 *
 * <p>It shares the registry's state and functions and keeps working after the registry's close.
 * Thread-safe (the library runs calls on one conversation one at a time). {@link #close()} is
 * idempotent and never frees the handle under a running call.
 */
public final class Conversation implements AutoCloseable {
    private final NativeHandle handle;
    private final HostIndex hosts;

    Conversation(Registry registry, String optionsJson) {
        byte[] o = Utf8.encode(optionsJson, "options");
        Pointer p = registry.handle().acquire();
        try {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_conversation_new(p, o, out, err), err);
            handle = new NativeHandle(this, out.getValue(), NativeLib::tr_conversation_free, "Conversation");
        } finally {
            registry.handle().release();
        }
        hosts = registry.hosts();
    }

    /** Frees the conversation (a call in flight finishes first). Again: nothing. */
    @Override
    public void close() {
        handle.close();
    }

    /** The next request's tools, system text and fingerprint. */
    public ConversationTools tools() {
        return ConversationTools.parse(toolsJson());
    }

    /** {@link #tools()} as the library's JSON: {@code {"tools", "system_text", "fingerprint"}}. */
    public String toolsJson() {
        return get((p, out, err) -> NativeLib.tr_conversation_tools(p, out, err));
    }

    /**
     * Runs the model's calls like {@link Registry#execute(String)}, in the conversation's format,
     * and keeps what the model found: tools a search returned, deferred tools it called.
     */
    public String execute(String callsJson) {
        return execute(callsJson, null);
    }

    /** {@link #execute(String)} with options ({@code api_format}, if given, must be the conversation's). */
    public String execute(String callsJson, ExecuteOptions options) {
        byte[] calls = Utf8.required(callsJson, "callsJson");
        byte[] o = Utf8.encode(options == null ? null : options.toJson(), "options");
        return get((p, out, err) -> NativeLib.tr_conversation_execute(p, calls, o, out, err));
    }

    /**
     * {@link #execute(String)} without blocking, on the two steps (see {@link Registry#executeAsync});
     * a cancelled batch loads nothing.
     */
    public CompletableFuture<String> executeAsync(String callsJson) {
        return executeAsync(callsJson, null);
    }

    /** {@link #executeAsync(String)} with options. */
    public CompletableFuture<String> executeAsync(String callsJson, ExecuteOptions options) {
        Utf8.required(callsJson, "callsJson");
        return PlanRunner.execute(() -> prepareCalls(callsJson, options), this::finishCalls, hosts,
                options == null ? null : options.executor());
    }

    /** {@link Registry#prepareCalls} for this conversation: searches answered in its mode's shape. */
    public String prepareCalls(String callsJson, ExecuteOptions options) {
        byte[] calls = Utf8.required(callsJson, "callsJson");
        byte[] o = Utf8.encode(options == null ? null : options.toJson(), "options");
        return get((p, out, err) -> NativeLib.tr_conversation_prepare_calls(p, calls, o, out, err));
    }

    /** {@link Registry#finishCalls(String, String)} for this conversation; also loads what the calls revealed. */
    public String finishCalls(String planJson, String resultsJson) {
        byte[] plan = Utf8.required(planJson, "planJson");
        byte[] results = Utf8.required(resultsJson, "resultsJson");
        return get((p, out, err) -> NativeLib.tr_conversation_finish_calls(p, plan, results, out, err));
    }

    /** {@link #finishCalls(String, String)} with typed results. */
    public String finishCalls(String planJson, Collection<CallResult> results) {
        return finishCalls(planJson, CallResult.arrayJson(results));
    }

    /** Loads these tools as if the model had found them; all or none ({@link Status#NOT_FOUND} names an unknown one). */
    public void reveal(String... names) {
        reveal(Arrays.asList(names));
    }

    /** Loads these tools as if the model had found them; all or none. */
    public void reveal(Collection<String> names) {
        byte[] n = Utf8.encode(Json.write(names), "names");
        Pointer p = handle.acquire();
        try {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_conversation_reveal(p, n, err), err);
        } finally {
            handle.release();
        }
    }

    /** The deferred tools loaded so far, in load order (restore with {@link ConversationOptions#loaded}). */
    public List<String> loaded() {
        return Json.strings(Json.parse(loadedJson()));
    }

    /** {@link #loaded()} as the library's JSON. */
    public String loadedJson() {
        return get((p, out, err) -> NativeLib.tr_conversation_loaded(p, out, err));
    }

    private String get(NativeHandle.OutCall c) {
        return handle.get(c);
    }
}
