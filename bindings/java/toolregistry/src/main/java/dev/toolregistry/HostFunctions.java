package dev.toolregistry;

import com.sun.jna.CallbackThreadInitializer;
import com.sun.jna.Pointer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bridge between Java host functions and {@code tr_tool_fn} / {@code tr_free_fn}.
 *
 * <p>One static trampoline serves every registration: the library keeps its function pointer, so
 * the callback object lives in a static field and is never collected. Each registration is a
 * number, passed as {@code user_data}, in a static table that holds the Java function; the
 * library's {@code free_user_data} (exactly once per registration: unregistered, replaced,
 * registry freed, registration failed) removes it. The function stays reachable exactly as long
 * as the library can call it. A number rather than a JNA object pointer, so that a library bug (a
 * second free, a call after the free) is counted and reported instead of crashing.
 *
 * <p>Library threads that call the trampolines are attached to the JVM by JNA with a
 * {@link CallbackThreadInitializer}: daemon threads (they never keep the JVM alive), named, kept
 * attached while they run and detached by JNA when they end. The trampoline catches every
 * {@link Throwable}: nothing unwinds into the library.
 */
final class HostFunctions {
    private HostFunctions() {}

    private static final ConcurrentHashMap<Long, HostEntry> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong LAST_ID = new AtomicLong();
    private static final AtomicLong RELEASED = new AtomicLong();
    private static final AtomicLong UNKNOWN_RELEASES = new AtomicLong();

    /** The {@code tr_tool_fn} every registration uses. */
    static final NativeLib.ToolFn INVOKE = new Trampoline();

    /** The {@code tr_free_fn} every registration uses. */
    static final NativeLib.FreeFn RELEASE = new Release();

    private static final class Trampoline implements NativeLib.ToolFn {
        @Override
        public void invoke(Pointer userData, Pointer toolName, Pointer argsJson, Pointer call) {
            HostFunctions.invoke(userData, toolName, argsJson, call);
        }
    }

    private static final class Release implements NativeLib.FreeFn {
        @Override
        public void invoke(Pointer userData) {
            HostFunctions.release(userData);
        }
    }

    static {
        com.sun.jna.Native.setCallbackThreadInitializer(INVOKE, new CallbackThreadInitializer(true, false, "toolregistry-call"));
        com.sun.jna.Native.setCallbackThreadInitializer(RELEASE, new CallbackThreadInitializer(true, false, "toolregistry-release"));
    }

    /** How many registrations the library still holds. */
    static int liveCount() {
        return LIVE.size();
    }

    /** How many registrations the library has released. */
    static long releasedCount() {
        return RELEASED.get();
    }

    /** Releases of a number that was not live (a second free): 0 unless the library is broken. */
    static long unknownReleaseCount() {
        return UNKNOWN_RELEASES.get();
    }

    /**
     * Keeps {@code entry} alive under a new number, to pass as {@code user_data}. The caller hands
     * the number to the library (which then releases it) or calls {@link #forget} if the native
     * call never happened.
     */
    static Pointer add(HostEntry entry) {
        long id = LAST_ID.incrementAndGet();
        LIVE.put(id, entry);
        return new Pointer(id);
    }

    /** Drops a number the library never received. */
    static void forget(Pointer userData) {
        LIVE.remove(Pointer.nativeValue(userData));
    }

    /** The text the model reads when a host function throws anything but {@link ToolCallException}. */
    static String panicMessage(String toolName, Throwable e) {
        return "the host function of \"" + toolName + "\" panicked: " + messageOf(e);
    }

    static String messageOf(Throwable e) {
        String m = e.getMessage();
        return m != null ? m : e.getClass().getName();
    }

    /** The failure inside {@link CompletionException} and {@link ExecutionException} wrappers. */
    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** Waits for an async function's stage on the thread running the call (execute). */
    static String await(CompletionStage<String> stage) throws Exception {
        if (stage == null) {
            return null;
        }
        try {
            return stage.toCompletableFuture().get();
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw new ExecutionException(cause);
        }
    }

    private static void invoke(Pointer userData, Pointer toolName, Pointer argsJson, Pointer call) {
        try {
            String name = toolName == null ? "" : Utf8.copy(toolName);
            HostEntry entry = LIVE.get(Pointer.nativeValue(userData));
            if (entry == null) {
                // Cannot happen while the library keeps its contract (no call after the free).
                fail(call, "the host function of \"" + name + "\" was already released");
                return;
            }
            String result;
            try {
                result = entry.runSync(name, Utf8.copy(argsJson));
            } catch (ToolCallException e) {
                fail(call, messageOf(e));
                return;
            } catch (Throwable e) {
                fail(call, panicMessage(name, e));
                return;
            }
            if (result == null) {
                // No answer: the library tells the model "the host function returned no result".
                return;
            }
            byte[] content;
            try {
                content = Utf8.encode(result, "the result");
            } catch (ToolRegistryException e) {
                fail(call, "the host function of \"" + name + "\" returned unusable text: " + e.getMessage());
                return;
            }
            NativeLib.tr_call_return(call, content);
        } catch (Throwable last) {
            // Nothing may unwind into the library. The call stays unanswered, which the library
            // reports to the model as "the host function returned no result".
        }
    }

    private static void fail(Pointer call, String text) {
        NativeLib.tr_call_fail(call, Utf8.encode(Utf8.sanitize(text == null ? "" : text), "message"));
    }

    private static void release(Pointer userData) {
        try {
            HostEntry entry = LIVE.remove(Pointer.nativeValue(userData));
            if (entry != null) {
                if (entry.index != null) {
                    entry.index.forget(entry);
                }
                RELEASED.incrementAndGet();
            } else {
                UNKNOWN_RELEASES.incrementAndGet();
            }
        } catch (Throwable last) {
            // Nothing may unwind into the library.
        }
    }
}
