package dev.toolregistry;

/**
 * A tool's host function: gets the call's arguments and answers the text the model sees.
 *
 * <p>The arguments are compact JSON of an object, already checked against the tool's JSON Schema.
 * Throw {@link ToolCallException} to give the model an error result with its message; any other
 * exception becomes {@code the host function of "NAME" panicked: MESSAGE}. Either way the batch
 * goes on and nothing reaches the library. Returning {@code null} gives the model
 * {@code the host function returned no result}.
 *
 * <p>Threads: {@link Registry#execute} calls it on the calling thread, or with
 * {@code parallel(N)} on library threads (attached to the JVM as daemon threads named
 * {@code toolregistry-call}), several at once; {@link Registry#executeAsync} on the executor of
 * its options. No library lock is held while it runs: it may call the registry.
 */
@FunctionalInterface
public interface ToolFunction {
    /** Runs one call; answers what the model reads. */
    String apply(String argumentsJson) throws Exception;
}
