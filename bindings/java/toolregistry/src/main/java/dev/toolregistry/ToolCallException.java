package dev.toolregistry;

/**
 * The failure path of a host function: throw it and the model gets an error result whose text is
 * exactly the message ({@code "Error: "} and the message; Anthropic's {@code is_error}, Gemini's
 * {@code error}). The batch goes on.
 *
 * <p>Any other exception a host function throws is a bug in the host, not an answer: the model
 * then reads {@code the host function of "NAME" panicked: MESSAGE}, the text every binding of
 * this library gives for a panic or an exception caught in a host function.
 */
public class ToolCallException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Fails the current tool call with {@code message} as the model's error text. */
    public ToolCallException(String message) {
        super(message);
    }

    /** The same, keeping the exception that caused the failure. */
    public ToolCallException(String message, Throwable cause) {
        super(message, cause);
    }
}
