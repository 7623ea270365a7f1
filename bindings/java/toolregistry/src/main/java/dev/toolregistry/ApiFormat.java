package dev.toolregistry;

/** The provider formats of schemas, tool calls and results. */
public enum ApiFormat implements Json.Named {
    /** OpenAI Chat Completions: {@code {"type": "function", "function": {...}}} (the default). */
    OPENAI_CHAT("openai-chat"),
    /** OpenAI Responses: {@code {"type": "function", "name", ...}}. */
    OPENAI_RESPONSES("openai-responses"),
    /** Anthropic Messages: {@code {"name", "description", "input_schema"}}. */
    ANTHROPIC("anthropic"),
    /** Gemini function declarations. */
    GEMINI("gemini");

    private final String jsonName;

    ApiFormat(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The format the library calls {@code name} (e.g. {@code "anthropic"}). */
    public static ApiFormat fromJsonName(String name) {
        for (ApiFormat f : values()) {
            if (f.jsonName.equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown api format " + name);
    }

    /** The library's name of the format, e.g. {@code "openai-chat"}. */
    @Override
    public String jsonName() {
        return jsonName;
    }
}
