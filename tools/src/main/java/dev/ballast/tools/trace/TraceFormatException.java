package dev.ballast.tools.trace;

/** A malformed trace; the message starts with "line N:" and names the problem. */
public final class TraceFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int line;

    public TraceFormatException(int line, String problem) {
        super("line " + line + ": " + problem);
        this.line = line;
    }

    public int line() {
        return line;
    }
}
