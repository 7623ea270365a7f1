package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One tool as a framework declares it to a model ({@link Registry#toolSchemas}): what an adapter
 * needs to build a LangChain4j {@code ToolSpecification} or a Spring AI {@code ToolDefinition}.
 *
 * @param name the registered name
 * @param description the description
 * @param parametersJson the parameters' JSON Schema, cleaned as for OpenAI (refs inlined, allOf merged)
 */
public record ToolSchema(String name, String description, String parametersJson) {
    private static final Set<String> RAW = Set.of("parameters");

    static List<ToolSchema> parseChat(String json) {
        List<ToolSchema> out = new ArrayList<>();
        for (Map<String, Object> t : Json.objects(Json.array(json, RAW))) {
            Map<String, Object> f = Json.obj(t, "function");
            if (f != null) {
                String params = Json.str(f, "parameters");
                out.add(new ToolSchema(Json.str(f, "name"), Json.str(f, "description"),
                        params == null ? "{\"type\":\"object\",\"properties\":{}}" : params));
            }
        }
        return Collections.unmodifiableList(out);
    }
}
