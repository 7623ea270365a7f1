package dev.toolregistry.langchain4j;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.Json;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.toolregistry.DiscoveryOptions;
import dev.toolregistry.Discoverer;
import dev.toolregistry.Hit;
import dev.toolregistry.Registry;
import dev.toolregistry.ToolSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A LangChain4j {@link ToolProvider} over a toolregistry {@link Registry}: for each user message
 * it gives the model the tools a discover finds for that message (top k; hybrid ranking when the
 * registry has an embedder or a model), plus the tools named as always included, and runs the
 * model's calls of them through the registry ({@link Registry#callTool}: arguments checked
 * against the schema, the registry's Java functions, error results the model can act on).
 *
 * <pre>{@code
 * Assistant assistant = AiServices.builder(Assistant.class)
 *         .chatModel(model)
 *         .toolProvider(ToolRegistryToolProvider.builder(registry).topK(5).build())
 *         .build();
 * }</pre>
 */
public final class ToolRegistryToolProvider implements ToolProvider {
    private final Registry registry;
    private final Discoverer discoverer;
    private final int topK;
    private final List<String> alwaysInclude;
    private final ToolExecutor executor;

    private ToolRegistryToolProvider(Builder b) {
        this.registry = b.registry;
        this.discoverer = registry.discoverer(b.discovery);
        this.topK = b.topK;
        this.alwaysInclude = List.copyOf(b.alwaysInclude);
        this.executor = (request, memoryId) -> registry.callTool(request.name(), request.arguments());
    }

    /** A builder over {@code registry} (top 5, the registry's default ranking). */
    public static Builder builder(Registry registry) {
        return new Builder(registry);
    }

    /** The tools for this request: discovered for its user message, plus the ones always included. */
    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        Set<String> names = new LinkedHashSet<>(alwaysInclude);
        String query = text(request.userMessage());
        if (!query.isBlank()) {
            for (Hit hit : discoverer.discover(query, topK)) {
                names.add(hit.name());
            }
        }
        ToolProviderResult.Builder result = ToolProviderResult.builder();
        if (names.isEmpty()) {
            return result.build();
        }
        for (ToolSchema schema : registry.toolSchemas(new ArrayList<>(names))) {
            result.add(specification(schema), executor);
        }
        return result.build();
    }

    /** True: the tools change with every user message. */
    @Override
    public boolean isDynamic() {
        return true;
    }

    /** A registry tool as a LangChain4j {@link ToolSpecification}. */
    @SuppressWarnings("unchecked")
    public static ToolSpecification specification(ToolSchema schema) {
        Map<String, Object> parameters = Json.fromJson(schema.parametersJson(), Map.class);
        JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(parameters);
        ToolSpecification.Builder b = ToolSpecification.builder().name(schema.name()).description(schema.description());
        if (element instanceof JsonObjectSchema) {
            b.parameters((JsonObjectSchema) element);
        }
        return b.build();
    }

    private static String text(UserMessage message) {
        if (message == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (Content c : message.contents()) {
            if (c instanceof TextContent) {
                if (sb.length() > 0) {
                    sb.append('\n');
                }
                sb.append(((TextContent) c).text());
            }
        }
        return sb.toString();
    }

    /** Options of a {@link ToolRegistryToolProvider}. */
    public static final class Builder {
        private final Registry registry;
        private DiscoveryOptions discovery;
        private int topK = 5;
        private final List<String> alwaysInclude = new ArrayList<>();

        private Builder(Registry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /** At most this many discovered tools per request (default 5). */
        public Builder topK(int topK) {
            if (topK < 1) {
                throw new IllegalArgumentException("topK must be at least 1");
            }
            this.topK = topK;
            return this;
        }

        /** The ranking options (default: the registry's; hybrid when it has an embedder). */
        public Builder discovery(DiscoveryOptions discovery) {
            this.discovery = discovery;
            return this;
        }

        /** Tools sent with every request, found or not (the core tools). */
        public Builder alwaysInclude(String... names) {
            alwaysInclude.addAll(List.of(names));
            return this;
        }

        /** The provider. */
        public ToolRegistryToolProvider build() {
            return new ToolRegistryToolProvider(this);
        }
    }
}
