package dev.ballast.contracts.json;

/** Malformed JSON text; the message names the column (1-based) of the problem. */
public final class JsonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JsonException(String message) {
        super(message);
    }
}
