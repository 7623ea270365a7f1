package dev.toolregistry;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One native object's life: used by calls from any thread, freed exactly once.
 *
 * <p>Every call holds the handle ({@link #acquire}, {@link #release}) for its duration, so a
 * {@link #close} on one thread never frees the object under a call still running on another
 * (or a host function that closes the registry running it): close stops new calls at once and
 * the last holder frees. No lock is taken, so a host function may call back into the same
 * handle. A {@link Cleaner} closes the handle of an owner the program dropped unclosed.
 */
final class NativeHandle {
    static final Cleaner CLEANER = Cleaner.create();

    private final Pointer ptr;
    private final Consumer<Pointer> free;
    private final String kind;
    // Bit 0: closed. The rest: twice the number of holders.
    private final AtomicLong state = new AtomicLong();
    private final AtomicBoolean freed = new AtomicBoolean();

    NativeHandle(Object owner, Pointer ptr, Consumer<Pointer> free, String kind) {
        this.ptr = ptr;
        this.free = free;
        this.kind = kind;
        // The action refers to this handle only, never to the owner: the owner stays collectable.
        CLEANER.register(owner, this::close);
    }

    /** The pointer, held until {@link #release}; {@link IllegalStateException} once closed. */
    Pointer acquire() {
        for (;;) {
            long s = state.get();
            if ((s & 1) != 0) {
                throw new IllegalStateException(kind + " is closed");
            }
            if (state.compareAndSet(s, s + 2)) {
                return ptr;
            }
        }
    }

    /** Lets go of one {@link #acquire}; the last holder of a closed handle frees it. */
    void release() {
        if (state.addAndGet(-2) == 1) {
            freeOnce();
        }
    }

    /** Stops new calls; frees now, or when the last holder releases. Again: nothing. */
    void close() {
        for (;;) {
            long s = state.get();
            if ((s & 1) != 0) {
                return;
            }
            if (state.compareAndSet(s, s | 1)) {
                if (s == 0) {
                    freeOnce();
                }
                return;
            }
        }
    }

    /** A call {@code fn(handle, ..., &out, &err)} whose inputs the lambda holds. */
    interface OutCall {
        int call(Pointer p, PointerByReference out, PointerByReference err);
    }

    /** Runs {@code c} holding the handle; its output string, copied and freed, or the library's error. */
    String get(OutCall c) {
        Pointer p = acquire();
        try {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            return NativeLib.output(c.call(p, out, err), out, err);
        } finally {
            release();
        }
    }

    boolean isClosed() {
        return (state.get() & 1) != 0;
    }

    private void freeOnce() {
        if (freed.compareAndSet(false, true)) {
            free.accept(ptr);
        }
    }
}
