package dev.toolregistry;

/**
 * A library call failed: {@link #status()} is the C ABI's status and the message its one-line
 * explanation (what was wrong and where, e.g. the JSON path {@code tools[1].name}). A failed
 * call changed nothing.
 *
 * <p>Unchecked, like {@link IllegalArgumentException}: most callers let it propagate.
 */
public class ToolRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final int code;

    /** An exception with the library's status and message. */
    public ToolRegistryException(Status status, String message) {
        this(status.code(), message);
    }

    /** An exception with a raw C status value (kept as is when this binding does not know it). */
    public ToolRegistryException(int code, String message) {
        super(message);
        this.code = code;
        this.status = Status.of(code);
    }

    /** The status of the failed call, e.g. {@link Status#NOT_FOUND}. */
    public Status status() {
        return status;
    }

    /** The raw C status value, e.g. 5 for {@code TR_STATUS_NOT_FOUND}. */
    public int code() {
        return code;
    }
}
