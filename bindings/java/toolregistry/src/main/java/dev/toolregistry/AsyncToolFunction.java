package dev.toolregistry;

import java.util.concurrent.CompletionStage;

/**
 * A tool's host function that answers later: {@link Registry#executeAsync} starts every call of a
 * batch and waits for all their stages at once (8 calls of 100 ms take about 100 ms).
 *
 * <p>{@code apply} is called on the thread of {@code executeAsync} (or the thread that finished a
 * call the plan orders before it); it should start the work and return, not block. The stage's
 * text is what the model reads; a stage that fails with {@link ToolCallException} gives the model
 * an error result with its message, any other failure (a cancellation too) {@code the host
 * function of "NAME" panicked: MESSAGE}. When the caller cancels the batch's future, the stages
 * still running are cancelled ({@code toCompletableFuture().cancel(true)}).
 *
 * <p>{@link Registry#execute} waits for the stage on the thread that runs the call.
 */
@FunctionalInterface
public interface AsyncToolFunction {
    /** Starts one call; its stage completes with what the model reads. */
    CompletionStage<String> apply(String argumentsJson) throws Exception;
}
