package dev.ballast.collectives;

/**
 * A collective or the rendezvous could not complete: a peer is missing, died, timed out, or called a different
 * collective. The message names the call, the rank and the peers concerned. The group is unusable afterwards: ranks
 * may disagree on how far they got, so the trainer exits and the operator forms a new world.
 */
public class CollectiveException extends RuntimeException {
    public CollectiveException(String message) {
        super(message);
    }

    public CollectiveException(String message, Throwable cause) {
        super(message, cause);
    }
}
