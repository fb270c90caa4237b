package dev.ballast.planner.json;

/** Malformed JSON text; the message names the column (1-based) of the problem. */
public final class JsonException extends RuntimeException {
    public JsonException(String message) {
        super(message);
    }
}
