package dev.toolregistry;

import java.util.Map;

/**
 * What a registry's usage (co-use) holds ({@link Registry#usageStatus()}).
 *
 * @param recording whether the calls the library runs are recorded ({@link Registry#enableUsage})
 * @param path the usage file, or null
 * @param tasks tasks recorded, loaded ones included
 * @param tools tools with counts
 * @param memoryBytes bytes the counts take in memory, about
 * @param warning why the file was ignored at start (an empty start) or the last write failed, or null
 */
public record UsageStatus(boolean recording, String path, long tasks, long tools, long memoryBytes, String warning) {

    static UsageStatus parse(String json) {
        Object v = Json.parse(json);
        if (!(v instanceof Map)) {
            throw new ToolRegistryException(Status.INTERNAL, "the library's usage status could not be read");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return new UsageStatus(Json.bool(m, "recording"), Json.str(m, "path"), Json.integer(m, "tasks"),
                Json.integer(m, "tools"), Json.integer(m, "memory_bytes"), Json.str(m, "warning"));
    }
}
