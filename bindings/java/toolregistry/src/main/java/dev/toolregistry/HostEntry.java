package dev.toolregistry;

/**
 * One host function the library holds: a plain one ({@link #sync}, called with the tool's name)
 * or an async one ({@link #async}), and the index of its registry (null for embedders).
 */
final class HostEntry {
    final FallbackFunction sync;
    final AsyncToolFunction async;
    final HostIndex index;
    // Guarded by the index's lock.
    String name;
    boolean released;

    HostEntry(FallbackFunction sync, AsyncToolFunction async, HostIndex index) {
        this.sync = sync;
        this.async = async;
        this.index = index;
    }

    /** Runs one call on this thread: a plain function directly, an async one waited for. */
    String runSync(String name, String args) throws Exception {
        if (async != null) {
            return HostFunctions.await(async.apply(args));
        }
        return sync.apply(name, args);
    }
}
