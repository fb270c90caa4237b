package dev.ballast.contracts.access;

/**
 * The API server's self reviews, asked with a person's own token: a SelfSubjectReview says who the token belongs to,
 * a SelfSubjectAccessReview whether they may do something to TrainingJobs (docs/dashboard.md, "Who may look").
 */
public interface SelfReviews {
    /** Whether the authorizer allows it, with its reason when it says no (often ""). */
    record Access(boolean allowed, String reason) {
    }

    /**
     * The token's user name, or null when the API server refuses the token (401).
     *
     * @throws IllegalStateException when the API server cannot be asked (it is down, or answers what it should not)
     */
    String user(String token);

    /**
     * Whether the token's user may {@code verb} trainingjobs.ballast.dev named {@code name} ("" for any) in
     * {@code namespace} ("" for every namespace), or null when the API server refuses the token (401).
     *
     * @throws IllegalStateException when the API server cannot be asked
     */
    Access may(String token, String verb, String namespace, String name);
}
