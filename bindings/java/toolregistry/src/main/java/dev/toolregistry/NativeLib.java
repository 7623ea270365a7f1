package dev.toolregistry;

import com.sun.jna.Callback;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.ByteByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.File;
import java.io.IOException;

/**
 * Every entry point of libtoolregistry (include/toolregistry.h), bound with JNA's direct mapping.
 *
 * <p>Strings go in as NUL-terminated UTF-8 {@code byte[]} ({@link Utf8#encode}). Strings the
 * library allocates come back through {@link PointerByReference} and are copied and freed with
 * {@code tr_string_free} ({@link Utf8#take}): declaring them as {@code String} would let JNA
 * free Rust memory with another allocator, or never free it. {@code tr_status} is an {@code int};
 * {@code size_t} is a {@code long} (64-bit platforms).
 *
 * <p>Which library: the file named by the system property {@code toolregistry.lib} or the
 * environment variable {@code TOOLREGISTRY_LIB}; else {@code libtoolregistry.so} on
 * {@code jna.library.path} when that property is set; else the copy this jar carries under
 * {@code linux-x86-64/} (JNA unpacks it into {@code jna.tmpdir}); else the system's.
 */
final class NativeLib {
    private NativeLib() {}

    /** The library this class is bound to. */
    static final NativeLibrary LIBRARY = load();

    static {
        com.sun.jna.Native.register(NativeLib.class, LIBRARY);
    }

    private static NativeLibrary load() {
        String explicit = System.getProperty("toolregistry.lib");
        if (explicit == null || explicit.isEmpty()) {
            explicit = System.getenv("TOOLREGISTRY_LIB");
        }
        if (explicit != null && !explicit.isEmpty()) {
            return NativeLibrary.getInstance(new File(explicit).getAbsolutePath());
        }
        String searchPath = System.getProperty("jna.library.path");
        if (searchPath == null || searchPath.isEmpty()) {
            String resource = com.sun.jna.Platform.RESOURCE_PREFIX + "/libtoolregistry.so";
            if (NativeLib.class.getClassLoader() != null && NativeLib.class.getClassLoader().getResource(resource) != null) {
                try {
                    File file = com.sun.jna.Native.extractFromResourcePath("toolregistry", NativeLib.class.getClassLoader());
                    return NativeLibrary.getInstance(file.getAbsolutePath());
                } catch (IOException e) {
                    throw new UnsatisfiedLinkError("cannot unpack " + resource + " from the jar: " + e.getMessage());
                }
            }
        }
        return NativeLibrary.getInstance("toolregistry");
    }

    // ---- the callback types (tr_tool_fn, tr_free_fn, tr_embed_fn) ----

    /** {@code tr_tool_fn}: runs one tool call, on the caller's thread or a library thread. */
    public interface ToolFn extends Callback {
        /** The callback. */
        void invoke(Pointer userData, Pointer toolName, Pointer argsJson, Pointer call);
    }

    /** {@code tr_free_fn}: releases a registration's {@code user_data}, exactly once, any thread. */
    public interface FreeFn extends Callback {
        /** The callback. */
        void invoke(Pointer userData);
    }

    /** {@code tr_embed_fn}: embeds a batch, on the embedding thread or a discovering one. */
    public interface EmbedFn extends Callback {
        /** The callback. */
        int invoke(Pointer userData, Pointer texts, long count, Pointer vectors, long dim, Pointer error, long errorCap);
    }

    // ---- library and strings ----

    static native Pointer tr_version();

    static native Pointer tr_status_name(int status);

    static native void tr_string_free(Pointer s);

    // ---- registry ----

    static native int tr_registry_new(byte[] options, PointerByReference out, PointerByReference err);

    static native void tr_registry_free(Pointer r);

    static native int tr_registry_register(Pointer r, byte[] tools, PointerByReference names, PointerByReference err);

    static native int tr_registry_unregister(Pointer r, byte[] name, PointerByReference err);

    static native int tr_registry_set_metadata(Pointer r, byte[] name, byte[] metadata, PointerByReference err);

    static native int tr_registry_set_enabled(Pointer r, byte[] name, boolean enabled, PointerByReference err);

    static native int tr_registry_disable(Pointer r, byte[] name, byte[] reason, PointerByReference err);

    static native int tr_registry_get_schemas(Pointer r, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_registry_deferred_summaries(Pointer r, PointerByReference out, PointerByReference err);

    static native int tr_registry_tools_status(Pointer r, PointerByReference out, PointerByReference err);

    static native int tr_registry_enable_usage(Pointer r, byte[] path, PointerByReference err);

    static native int tr_registry_record_usage(Pointer r, byte[] names, LongByReference counted, PointerByReference err);

    static native int tr_registry_save_usage(Pointer r, PointerByReference err);

    static native int tr_registry_usage_status(Pointer r, PointerByReference out, PointerByReference err);

    static native int tr_registry_enable_discovery(Pointer r, byte[] options, PointerByReference err);

    static native int tr_registry_call(Pointer r, byte[] tool, byte[] args, PointerByReference out, PointerByReference err);

    // ---- discoverer ----

    static native int tr_discoverer_new(Pointer r, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_discoverer_discover(Pointer d, byte[] query, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_discoverer_explain(Pointer d, byte[] query, byte[] tool, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_discoverer_rebuild_index(Pointer d, PointerByReference err);

    static native void tr_discoverer_free(Pointer d);

    // ---- tool calls ----

    static native int tr_call_return(Pointer call, byte[] content);

    static native int tr_call_fail(Pointer call, byte[] message);

    static native int tr_registry_register_callable(Pointer r, byte[] tool, ToolFn fn, Pointer userData, FreeFn free, PointerByReference names, PointerByReference err);

    static native int tr_registry_set_fallback(Pointer r, ToolFn fn, Pointer userData, FreeFn free, PointerByReference err);

    static native int tr_registry_execute(Pointer r, byte[] calls, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_registry_prepare_calls(Pointer r, byte[] calls, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_registry_finish_calls(Pointer r, byte[] plan, byte[] results, PointerByReference out, PointerByReference err);

    // ---- conversations ----

    static native int tr_conversation_new(Pointer r, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_conversation_tools(Pointer c, PointerByReference out, PointerByReference err);

    static native int tr_conversation_execute(Pointer c, byte[] calls, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_conversation_prepare_calls(Pointer c, byte[] calls, byte[] options, PointerByReference out, PointerByReference err);

    static native int tr_conversation_finish_calls(Pointer c, byte[] plan, byte[] results, PointerByReference out, PointerByReference err);

    static native int tr_conversation_reveal(Pointer c, byte[] names, PointerByReference err);

    static native int tr_conversation_loaded(Pointer c, PointerByReference out, PointerByReference err);

    static native void tr_conversation_free(Pointer c);

    // ---- embeddings ----

    static native int tr_registry_set_embedder(Pointer r, byte[] options, EmbedFn fn, Pointer userData, FreeFn free, PointerByReference err);

    static native int tr_registry_wait_embeddings(Pointer r, long timeoutMs, ByteByReference done, PointerByReference err);

    static native int tr_registry_embedding_status(Pointer r, PointerByReference out, PointerByReference err);

    static native int tr_registry_take_embedding_jobs(Pointer r, long max, PointerByReference out, PointerByReference err);

    static native int tr_registry_put_embeddings(Pointer r, byte[] results, PointerByReference err);

    // ---- the one place a status becomes an exception ----

    /**
     * Throws the library's error for a failed status. Frees {@code err}'s string whatever the
     * status, so no path leaks or double-frees an error message.
     */
    static void check(int status, PointerByReference err) {
        String message = Utf8.take(err.getValue());
        if (status == 0) {
            return;
        }
        if (message == null || message.isEmpty()) {
            message = Utf8.copy(tr_status_name(status));
        }
        throw new ToolRegistryException(status, message);
    }

    /** {@link #check} then the output string, copied and freed. */
    static String output(int status, PointerByReference out, PointerByReference err) {
        check(status, err);
        return Utf8.take(out.getValue());
    }
}
