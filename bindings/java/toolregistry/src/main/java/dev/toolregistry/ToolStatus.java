package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One registered tool's state ({@link Registry#toolsStatus()}).
 *
 * @param name the registered name
 * @param namespace its namespace, or null
 * @param enabled whether it is enabled (its namespace too)
 * @param reason why it was disabled, or null
 * @param deferred whether it is deferred
 * @param tags its tags
 * @param callable whether a call would reach a host function (its own or the fallback)
 * @param embedding with an embedder: {@code "ready"}, {@code "pending"}, {@code "failed"} or
 *     {@code "none"}; null without one
 */
public record ToolStatus(String name, String namespace, boolean enabled, String reason, boolean deferred,
        List<String> tags, boolean callable, String embedding) {

    static List<ToolStatus> parseList(String json) {
        List<ToolStatus> out = new ArrayList<>();
        for (Map<String, Object> m : Json.objects(Json.parse(json))) {
            out.add(new ToolStatus(Json.str(m, "name"), Json.str(m, "namespace"), Json.bool(m, "enabled"),
                    Json.str(m, "reason"), Json.bool(m, "deferred"), Json.strings(m.get("tags")),
                    Json.bool(m, "callable"), Json.str(m, "embedding")));
        }
        return Collections.unmodifiableList(out);
    }
}
