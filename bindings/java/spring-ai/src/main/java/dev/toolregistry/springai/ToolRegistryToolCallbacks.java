package dev.toolregistry.springai;

import dev.toolregistry.DiscoverOptions;
import dev.toolregistry.Discoverer;
import dev.toolregistry.Hit;
import dev.toolregistry.Registry;
import dev.toolregistry.SchemaOptions;
import dev.toolregistry.ToolSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * Spring AI {@link ToolCallback}s over a toolregistry {@link Registry}.
 *
 * <pre>{@code
 * ToolRegistryToolCallbacks tools = new ToolRegistryToolCallbacks(registry);
 * String answer = ChatClient.create(chatModel).prompt(question)
 *         .tools((Object[]) tools.discover(question, 5))   // the tools this question needs
 *         .call().content();
 * }</pre>
 *
 * <p>Spring AI 2.0.1 as served by Maven Central here has no tool-index SPI this class could
 * implement (see bindings/java/README.md, "Spring AI"): {@link #discover} is the per-request
 * selection, and {@link #searchTool()} gives the model the registry's own {@code discover_tools}.
 */
public final class ToolRegistryToolCallbacks implements ToolCallbackProvider {
    private final Registry registry;
    private final Discoverer discoverer;

    /** Callbacks over {@code registry}, discovering with its default ranking (hybrid when it has an embedder). */
    public ToolRegistryToolCallbacks(Registry registry) {
        this(registry, null);
    }

    /** Callbacks over {@code registry}, discovering with {@code discovery}'s ranking. */
    public ToolRegistryToolCallbacks(Registry registry, dev.toolregistry.DiscoveryOptions discovery) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.discoverer = registry.discoverer(discovery);
    }

    /** Every enabled tool (deferred ones included), sorted by name: the {@link ToolCallbackProvider} view. */
    @Override
    public ToolCallback[] getToolCallbacks() {
        return callbacks(registry.toolSchemas(new SchemaOptions()));
    }

    /** The enabled tools that are not deferred: what to send with every request. */
    public ToolCallback[] loaded() {
        return callbacks(registry.toolSchemas(new SchemaOptions().includeDeferred(false)));
    }

    /** Exactly these tools, in this order. */
    public ToolCallback[] named(String... names) {
        return callbacks(registry.toolSchemas(List.of(names)));
    }

    /** The tools a discover finds for {@code query} (top {@code topK}), best first. */
    public ToolCallback[] discover(String query, int topK) {
        return discover(query, new DiscoverOptions().topK(topK));
    }

    /** The tools a discover with these options finds for {@code query}, best first. */
    public ToolCallback[] discover(String query, DiscoverOptions options) {
        Set<String> names = new LinkedHashSet<>();
        for (Hit hit : discoverer.discover(query, options)) {
            names.add(hit.name());
        }
        return names.isEmpty() ? new ToolCallback[0] : callbacks(registry.toolSchemas(new ArrayList<>(names)));
    }

    /**
     * The registry's {@code discover_tools} built-in as a callback (after
     * {@link Registry#enableDiscovery}): the model searches the deferred tools itself and gets
     * their schemas back.
     */
    public ToolCallback searchTool() {
        return new RegistryToolCallback(registry, registry.toolSchemas(List.of("discover_tools")).get(0));
    }

    private ToolCallback[] callbacks(List<ToolSchema> schemas) {
        ToolCallback[] out = new ToolCallback[schemas.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new RegistryToolCallback(registry, schemas.get(i));
        }
        return out;
    }
}
