package dev.toolregistry;

import com.sun.jna.CallbackThreadInitializer;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.ByteByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host embedders: a Java {@link Embedder} behind {@code tr_embed_fn} (called by the library), and
 * the pull model's loop ({@link Registry#embedPendingAsync}). Same ownership scheme as
 * {@link HostFunctions}: one static trampoline, a number per registration as {@code user_data}.
 */
final class Embedders {
    private Embedders() {}

    private record Entry(Embedder fn, int dim) {}

    private static final ConcurrentHashMap<Long, Entry> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong LAST_ID = new AtomicLong();

    private static final class Trampoline implements NativeLib.EmbedFn {
        @Override
        public int invoke(Pointer userData, Pointer texts, long count, Pointer vectors, long dim, Pointer error, long errorCap) {
            return Embedders.invoke(userData, texts, count, vectors, dim, error, errorCap);
        }
    }

    private static final class Release implements NativeLib.FreeFn {
        @Override
        public void invoke(Pointer userData) {
            LIVE.remove(Pointer.nativeValue(userData));
        }
    }

    static final NativeLib.EmbedFn EMBED = new Trampoline();
    static final NativeLib.FreeFn RELEASE = new Release();

    static {
        com.sun.jna.Native.setCallbackThreadInitializer(EMBED, new CallbackThreadInitializer(true, false, "toolregistry-embed"));
        com.sun.jna.Native.setCallbackThreadInitializer(RELEASE, new CallbackThreadInitializer(true, false, "toolregistry-release"));
    }

    /** How many embedders the library still holds. */
    static int liveCount() {
        return LIVE.size();
    }

    static void setEmbedder(Registry r, int dim, Embedder fn, String identity, String cachePath) {
        if (fn == null) {
            throw new NullPointerException("fn is null");
        }
        byte[] options = Utf8.encode(new Json.Obj().put("dim", dim).put("identity", identity).put("cache_path", cachePath).toString(), "options");
        r.act(p -> {
            long id = LAST_ID.incrementAndGet();
            LIVE.put(id, new Entry(fn, dim));
            PointerByReference err = new PointerByReference();
            int status;
            try {
                status = NativeLib.tr_registry_set_embedder(p, options, EMBED, new Pointer(id), RELEASE, err);
            } catch (Throwable e) {
                LIVE.remove(id);
                throw e;
            }
            // On failure the library has released the entry already.
            NativeLib.check(status, err);
        });
    }

    static void setPullEmbedder(Registry r, int dim, String identity, String cachePath) {
        byte[] options = Utf8.encode(new Json.Obj().put("dim", dim).put("identity", identity).put("cache_path", cachePath)
                .put("pull", Boolean.TRUE).toString(), "options");
        r.act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_set_embedder(p, options, null, null, null, err), err);
        });
    }

    static boolean waitEmbeddings(Registry r, Duration timeout) {
        long ms = Math.max(0, timeout.toMillis());
        ByteByReference done = new ByteByReference();
        r.act(p -> {
            PointerByReference err = new PointerByReference();
            NativeLib.check(NativeLib.tr_registry_wait_embeddings(p, ms, done, err), err);
        });
        return done.getValue() != 0;
    }

    private static int invoke(Pointer userData, Pointer texts, long count, Pointer vectors, long dim, Pointer error, long errorCap) {
        try {
            Entry entry = LIVE.get(Pointer.nativeValue(userData));
            if (entry == null) {
                return fail(error, errorCap, "the embedder was already released");
            }
            List<String> list = new ArrayList<>((int) count);
            for (long i = 0; i < count; i++) {
                list.add(Utf8.copy(texts.getPointer(i * com.sun.jna.Native.POINTER_SIZE)));
            }
            float[][] out;
            try {
                out = entry.fn().embed(list);
            } catch (Throwable e) {
                return fail(error, errorCap, "the embedder threw " + e.getClass().getSimpleName() + ": " + HostFunctions.messageOf(e));
            }
            if (out == null || out.length != count) {
                return fail(error, errorCap, "the embedder returned " + (out == null ? "null" : out.length + " vectors") + " for " + count + " texts");
            }
            for (int i = 0; i < out.length; i++) {
                if (out[i] == null || out[i].length != dim) {
                    return fail(error, errorCap, "vector " + i + " has " + (out[i] == null ? "no" : String.valueOf(out[i].length)) + " numbers, expected " + dim);
                }
            }
            for (int i = 0; i < out.length; i++) {
                vectors.write((long) i * dim * 4, out[i], 0, (int) dim);
            }
            return 0;
        } catch (Throwable last) {
            try {
                return fail(error, errorCap, "the embedder failed: " + last);
            } catch (Throwable ignored) {
                return 1;
            }
        }
    }

    /** Writes {@code message} into the library's error buffer, cut at a character boundary. */
    private static int fail(Pointer error, long cap, String message) {
        if (error != null && cap > 0) {
            byte[] bytes = Utf8.sanitize(message).getBytes(StandardCharsets.UTF_8);
            int n = (int) Math.min(bytes.length, cap - 1);
            while (n > 0 && n < bytes.length && (bytes[n] & 0xC0) == 0x80) {
                n--;
            }
            error.write(0, bytes, 0, n);
            error.setByte(n, (byte) 0);
        }
        return 1;
    }

    static String vectorsJson(List<EmbeddingJob> jobs, float[][] vectors) {
        if (jobs == null) {
            throw new NullPointerException("jobs is null");
        }
        if (vectors == null || vectors.length != jobs.size()) {
            throw new IllegalArgumentException((vectors == null ? "no vectors" : vectors.length + " vectors") + " for " + jobs.size() + " jobs");
        }
        List<Object> out = new ArrayList<>(jobs.size());
        for (int i = 0; i < vectors.length; i++) {
            if (vectors[i] == null) {
                throw new IllegalArgumentException("vectors[" + i + "] is null");
            }
            out.add(new Json.Obj().put("id", jobs.get(i).id()).put("vector", vectors[i]).map());
        }
        return Json.write(out);
    }

    static String failuresJson(List<EmbeddingJob> jobs, String message) {
        List<Object> out = new ArrayList<>(jobs.size());
        for (EmbeddingJob job : jobs) {
            out.add(new Json.Obj().put("id", job.id()).put("error", Utf8.sanitize(message == null ? "the embedder failed" : message)).map());
        }
        return Json.write(out);
    }

    /** The pull loop: take, embed (awaited), put, until no enabled tool waits. */
    static CompletableFuture<Integer> embedPending(Registry r, AsyncEmbedder embed) {
        if (embed == null) {
            throw new NullPointerException("embed is null");
        }
        CompletableFuture<Integer> out = new CompletableFuture<>();
        step(r, embed, out, 0);
        return out;
    }

    private static void step(Registry r, AsyncEmbedder embed, CompletableFuture<Integer> out, int embedded) {
        if (out.isDone()) {
            return;
        }
        List<EmbeddingJob> jobs;
        try {
            jobs = r.takeEmbeddingJobs(0);
            if (jobs.isEmpty()) {
                EmbeddingStatus status = r.embeddingStatus();
                if (status == null || status.pending() == 0) {
                    out.complete(embedded);
                    return;
                }
                // The embedding thread queues texts a moment after a change: look again soon.
                CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS).execute(() -> step(r, embed, out, embedded));
                return;
            }
        } catch (Throwable e) {
            out.completeExceptionally(e);
            return;
        }
        List<String> texts = new ArrayList<>(jobs.size());
        for (EmbeddingJob j : jobs) {
            texts.add(j.text());
        }
        CompletionStage<float[][]> stage;
        try {
            stage = embed.embed(texts);
            if (stage == null) {
                throw new NullPointerException("the embedder returned no stage");
            }
        } catch (Throwable e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((vectors, e) -> {
            try {
                if (out.isDone()) {
                    r.failEmbeddings(jobs, "cancelled");
                    return;
                }
                String failure = e != null ? "the embedder failed: " + HostFunctions.messageOf(HostFunctions.unwrap(e))
                        : vectors == null || vectors.length != jobs.size()
                                ? "the embedder returned " + (vectors == null ? "null" : vectors.length + " vectors") + " for " + jobs.size() + " texts"
                                : Arrays.stream(vectors).anyMatch(v -> v == null) ? "the embedder returned a null vector" : null;
                if (failure != null) {
                    r.failEmbeddings(jobs, failure);
                    step(r, embed, out, embedded);
                } else {
                    r.putEmbeddings(jobs, vectors);
                    step(r, embed, out, embedded + jobs.size());
                }
            } catch (Throwable t) {
                out.completeExceptionally(t);
            }
        });
    }
}
