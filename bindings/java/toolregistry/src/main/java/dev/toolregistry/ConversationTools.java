package dev.toolregistry;

import java.util.Map;
import java.util.Set;

/**
 * The next request's tools ({@link Conversation#tools()}).
 *
 * @param toolsJson the exact {@code tools} array to send, as JSON text, in the conversation's format
 * @param systemText text to add to the system prompt ({@code ""} when none)
 * @param fingerprint SHA-256 (hex) of the tools and system text: it changes exactly when those
 *     bytes do (a prompt-cache break)
 */
public record ConversationTools(String toolsJson, String systemText, String fingerprint) {
    private static final Set<String> RAW = Set.of("tools");

    static ConversationTools parse(String json) {
        Map<String, Object> m = Json.object(json, RAW);
        return new ConversationTools(Json.str(m, "tools"), Json.str(m, "system_text"), Json.str(m, "fingerprint"));
    }
}
