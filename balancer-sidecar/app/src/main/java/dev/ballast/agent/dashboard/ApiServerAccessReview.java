package dev.ballast.agent.dashboard;

import dev.ballast.contracts.access.ApiServerSelfReviews;
import dev.ballast.contracts.access.SelfReviews;
import io.fabric8.kubernetes.client.Config;

import java.net.URI;
import javax.net.ssl.SSLContext;

/**
 * {@link AccessReview} by the API server itself, asked with the person's own token ({@link ApiServerSelfReviews}): who
 * the token belongs to, and whether they may {@code get} the TrainingJob (docs/dashboard.md, "Who may look").
 */
public final class ApiServerAccessReview implements AccessReview {
    private final SelfReviews reviews;

    public ApiServerAccessReview(URI apiServer, SSLContext trust) {
        this.reviews = new ApiServerSelfReviews(apiServer, trust);
    }

    /** The API server and the certificates to trust, as the balancer's own client has them (in-cluster or kubeconfig). */
    public static ApiServerAccessReview of(Config config) {
        return new ApiServerAccessReview(URI.create(config.getMasterUrl()),
                ApiServerSelfReviews.trusting(config.getCaCertData(), config.getCaCertFile()));
    }

    @Override
    public Answer review(String token, String namespace, String job) {
        String user = reviews.user(token);
        if (user == null) {
            return Answer.UNAUTHENTICATED;
        }
        SelfReviews.Access may = reviews.may(token, "get", namespace, job);
        return may == null ? Answer.UNAUTHENTICATED : new Answer(true, user, may.allowed(), may.reason());
    }
}
