package dev.toolregistry;

/**
 * The outcome of a library call: the C ABI's {@code tr_status} values, with the same numbers
 * (part of the ABI, never renumbered).
 */
public enum Status {
    /** {@code TR_STATUS_OK} (0): success. Never carried by an exception. */
    OK(0),
    /** {@code TR_STATUS_NULL_ARGUMENT} (1): a required argument was missing. */
    NULL_ARGUMENT(1),
    /** {@code TR_STATUS_INVALID_UTF8} (2): a string was not valid Unicode (a lone surrogate). */
    INVALID_UTF8(2),
    /** {@code TR_STATUS_INVALID_JSON} (3): malformed JSON, or nested too deeply. */
    INVALID_JSON(3),
    /** {@code TR_STATUS_INVALID_ARGUMENT} (4): well-formed input with wrong content. */
    INVALID_ARGUMENT(4),
    /** {@code TR_STATUS_NOT_FOUND} (5): an unknown tool, namespace or built-in. */
    NOT_FOUND(5),
    /** {@code TR_STATUS_TOO_LARGE} (6): an input over a documented size limit. */
    TOO_LARGE(6),
    /** {@code TR_STATUS_INTERNAL} (7): a broken invariant in the library. */
    INTERNAL(7),
    /** {@code TR_STATUS_PANIC} (8): a panic was caught at the boundary. */
    PANIC(8),
    /** A value this binding does not know (a newer library). */
    UNKNOWN(-1);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C value of this status, e.g. 5 for {@code TR_STATUS_NOT_FOUND}. */
    public int code() {
        return code;
    }

    /** The C name, e.g. {@code "TR_STATUS_NOT_FOUND"}. */
    public String cName() {
        return this == UNKNOWN ? "TR_STATUS_UNKNOWN" : "TR_STATUS_" + name();
    }

    /** The status with this C value; {@link #UNKNOWN} for any other. */
    public static Status of(int code) {
        for (Status s : values()) {
            if (s.code == code && s != UNKNOWN) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
