package dev.toolregistry;

/** What a conversation's requests carry (see docs/conversations.md). */
public enum ConversationMode implements Json.Named {
    /** The reference's: deferred tools listed in the built-ins' descriptions (the default). */
    SUMMARIES("summaries"),
    /** Fixed built-ins, the deferred list in the system text: prompt-cache friendly. */
    STABLE("stable"),
    /** Anthropic's and OpenAI Responses' own deferred loading. */
    NATIVE("native"),
    /** Every tool while they are few, else {@link #STABLE}. */
    AUTO("auto");

    private final String jsonName;

    ConversationMode(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The library's name of the mode. */
    @Override
    public String jsonName() {
        return jsonName;
    }
}
