package dev.ballast.agent.dashboard;

import dev.ballast.contracts.access.BearerToken;
import dev.ballast.contracts.access.TokenCache;

import java.util.function.LongSupplier;

/**
 * Decides who may see this job's page, asking the API server once per token and 30 s ({@link TokenCache}). Thread-safe.
 */
public final class ViewerGate {
    private final AccessReview review;
    private final String namespace;
    private final String job;
    private final TokenCache<ViewerDecision> recent;

    public ViewerGate(AccessReview review, String namespace, String job, LongSupplier nanoClock) {
        this.review = review;
        this.namespace = namespace;
        this.job = job;
        this.recent = new TokenCache<>(nanoClock);
    }

    /** The decision for a request with this Authorization header (null: none). Blocks while asking the API server. */
    public ViewerDecision decide(String authorization) {
        String token = BearerToken.of(authorization);
        if (token == null) {
            return ViewerDecision.signInFirst();
        }
        return recent.get(token, t -> ViewerDecision.of(review.review(t, namespace, job), namespace, job));
    }
}
