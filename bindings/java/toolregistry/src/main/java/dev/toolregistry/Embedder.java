package dev.toolregistry;

import java.util.List;

/**
 * A host embedder called by the library ({@link Registry#setEmbedder}): one vector of {@code dim}
 * finite numbers per text (the library normalizes them).
 *
 * <p>Called on the registry's embedding thread (the catalog, in batches of up to 64; a daemon
 * thread named {@code toolregistry-embed} on the JVM side) and on the thread of a hybrid discover
 * (its query), possibly at once. No library lock is held: it may call the registry. An exception,
 * {@code null} or a wrong count or length fails that batch only: its tools are found by words.
 */
@FunctionalInterface
public interface Embedder {
    /** The texts' vectors, in order. */
    float[][] embed(List<String> texts) throws Exception;
}
