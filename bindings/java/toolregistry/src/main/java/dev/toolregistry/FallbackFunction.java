package dev.toolregistry;

/**
 * Runs calls of registered tools that have no function of their own ({@link Registry#setFallback}):
 * a gateway registers definitions only and routes by name. Same rules as {@link ToolFunction}.
 */
@FunctionalInterface
public interface FallbackFunction {
    /** Runs one call of {@code toolName}; answers what the model reads. */
    String apply(String toolName, String argumentsJson) throws Exception;
}
