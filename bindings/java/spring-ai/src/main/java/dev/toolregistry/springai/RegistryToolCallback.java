package dev.toolregistry.springai;

import dev.toolregistry.Registry;
import dev.toolregistry.ToolSchema;
import java.util.Objects;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * One registry tool as a Spring AI {@link ToolCallback}: its definition (name, description, the
 * parameters' JSON Schema as the registry cleans it) and a call that runs through the registry
 * ({@link Registry#callTool}): the arguments checked against the schema, the registry's Java
 * function (or fallback), and an error result starting with {@code "Error: "} the model can act
 * on instead of an exception (a disabled or unknown tool, bad arguments, a function that threw).
 */
public final class RegistryToolCallback implements ToolCallback {
    private final Registry registry;
    private final ToolDefinition definition;

    /** The callback of {@code schema}'s tool, run through {@code registry}. */
    public RegistryToolCallback(Registry registry, ToolSchema schema) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.definition = ToolDefinition.builder()
                .name(schema.name())
                .description(schema.description() == null ? "" : schema.description())
                .inputSchema(schema.parametersJson())
                .build();
    }

    @Override
    public ToolDefinition getToolDefinition() {
        return definition;
    }

    /** Runs the call through the registry; answers the text the model reads. */
    @Override
    public String call(String toolInput) {
        return registry.callTool(definition.name(), toolInput);
    }
}
