package dev.ballast.agent.dashboard;

import dev.ballast.contracts.access.BearerToken;

/**
 * Whether a request may see a job's page, as the HTTP answer it gets (docs/dashboard.md, "Who may look"): 200 with the
 * viewer's name, 401 without a usable Kubernetes token, 403 for a person who may not {@code get} the TrainingJob. Pure.
 */
public record ViewerDecision(int httpStatus, String user, String message) {
    public boolean allowed() {
        return httpStatus == 200;
    }

    /** The answer to a request without a bearer token. */
    static ViewerDecision signInFirst() {
        return new ViewerDecision(401, "", BearerToken.SIGN_IN);
    }

    static ViewerDecision of(AccessReview.Answer answer, String namespace, String job) {
        if (!answer.authenticated()) {
            return new ViewerDecision(401, "", BearerToken.NOT_ACCEPTED);
        }
        if (!answer.allowed()) {
            return new ViewerDecision(403, answer.user(), answer.user() + " may not get trainingjobs.ballast.dev/" + job
                    + " in namespace " + namespace + ": the job's page needs that right (RBAC)"
                    + (answer.reason().isBlank() ? "" : "; the API server says: " + answer.reason()));
        }
        return new ViewerDecision(200, answer.user(), "");
    }
}
