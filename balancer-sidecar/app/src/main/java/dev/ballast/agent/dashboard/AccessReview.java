package dev.ballast.agent.dashboard;

/** Asks the cluster who a person's token belongs to and whether that person may get a TrainingJob. */
public interface AccessReview {
    /**
     * What the API server answered for {@code token}: {@code authenticated} false when it refused the token (then the
     * rest is empty); otherwise the user and whether they may {@code get} trainingjobs/{@code job} in
     * {@code namespace}, with the authorizer's reason when it says no (often "").
     */
    record Answer(boolean authenticated, String user, boolean allowed, String reason) {
        public static final Answer UNAUTHENTICATED = new Answer(false, "", false, "");
    }

    /** @throws IllegalStateException when the API server cannot be asked (it is down, or answers what it should not) */
    Answer review(String token, String namespace, String job);
}
