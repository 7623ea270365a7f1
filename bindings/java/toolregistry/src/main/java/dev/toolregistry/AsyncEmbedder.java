package dev.toolregistry;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A host embedder on the pull model ({@link Registry#embedPendingAsync}, {@link Discoverer#discoverAsync}):
 * no library thread calls it; the binding takes the waiting texts and awaits the stage (an HTTP
 * embedding API, say).
 */
@FunctionalInterface
public interface AsyncEmbedder {
    /** The texts' vectors, in order. */
    CompletionStage<float[][]> embed(List<String> texts) throws Exception;
}
