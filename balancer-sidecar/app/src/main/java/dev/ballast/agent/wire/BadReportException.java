package dev.ballast.agent.wire;

/** A load report refused before anything of it is stored; the message names the field at fault. */
public final class BadReportException extends Exception {
    private final int httpStatus;

    public BadReportException(int httpStatus, String message) {
        super(message);
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
