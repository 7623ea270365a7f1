package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Schemas in OpenAI strict mode ({@link Registry#strictSchemas(SchemaOptions)}).
 *
 * @param toolsJson the tools, strict where they can be, as a JSON array
 * @param warnings each tool sent non-strict, and why
 * @param json the library's whole answer
 */
public record StrictSchemas(String toolsJson, List<Warning> warnings, String json) {
    private static final Set<String> RAW = Set.of("tools");

    /**
     * A tool whose schema could not be made strict.
     *
     * @param name the tool
     * @param reason why
     */
    public record Warning(String name, String reason) {}

    static StrictSchemas parse(String json) {
        Map<String, Object> m = Json.object(json, RAW);
        List<Warning> warnings = new ArrayList<>();
        for (Map<String, Object> w : Json.objects(m.get("warnings"))) {
            warnings.add(new Warning(Json.str(w, "name"), Json.str(w, "reason")));
        }
        return new StrictSchemas(Json.str(m, "tools"), Collections.unmodifiableList(warnings), json);
    }
}
