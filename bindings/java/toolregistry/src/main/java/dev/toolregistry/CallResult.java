package dev.toolregistry;

import java.util.Collection;

/**
 * The host's answer to one {@link HostCall}, for {@link Registry#finishCalls(String, Collection)}:
 * content (what the model reads), an error (the model reads {@code "Error: "} and the message), or
 * unhandled (no function for that tool: the library's "has no host function" error, as from execute).
 */
public final class CallResult {
    private final String json;

    private CallResult(String json) {
        this.json = json;
    }

    /** A successful call's text. */
    public static CallResult content(String id, String content) {
        return new CallResult(new Json.Obj().put("id", required(id, "id")).put("content", required(content, "content")).toString());
    }

    /** A failed call: the model reads {@code "Error: "} and {@code message}. */
    public static CallResult error(String id, String message) {
        return new CallResult(new Json.Obj().put("id", required(id, "id"))
                .put("error", Utf8.sanitize(message == null ? "" : message)).toString());
    }

    /** The host has no function for the call's tool. */
    public static CallResult unhandled(String id) {
        return new CallResult(new Json.Obj().put("id", required(id, "id")).put("unhandled", Boolean.TRUE).toString());
    }

    /** The JSON object {@code finishCalls} reads. */
    public String toJson() {
        return json;
    }

    @Override
    public String toString() {
        return json;
    }

    static String arrayJson(Collection<CallResult> results) {
        StringBuilder sb = new StringBuilder("[");
        for (CallResult r : results) {
            if (r == null) {
                throw new NullPointerException("results contains null");
            }
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append(r.json);
        }
        return sb.append(']').toString();
    }

    private static String required(String s, String what) {
        if (s == null) {
            throw new NullPointerException(what + " is null");
        }
        return s;
    }
}
