package dev.ballast.agent.dashboard;

/**
 * Whether a request may see a job's page, as the HTTP answer it gets (docs/dashboard.md, "Who may look"): 200 with the
 * viewer's name, 401 without a usable Kubernetes token, 403 for a person who may not {@code get} the TrainingJob. Pure.
 */
public record ViewerDecision(int httpStatus, String user, String message) {
    static final String SCHEME = "Bearer ";

    public boolean allowed() {
        return httpStatus == 200;
    }

    /** The person's token from an Authorization header's value, or null when there is none to check. */
    static String tokenOf(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        String token = authorization.substring(SCHEME.length()).trim();
        return token.isEmpty() ? null : token;
    }

    /** The answer to a request without a bearer token. */
    static ViewerDecision signInFirst() {
        return new ViewerDecision(401, "", "sign in with your Kubernetes token: send 'Authorization: Bearer <token>'"
                + " (for example from 'kubectl create token <service-account>' or your kubeconfig's token)");
    }

    static ViewerDecision of(AccessReview.Answer answer, String namespace, String job) {
        if (!answer.authenticated()) {
            return new ViewerDecision(401, "", "the Kubernetes API server does not accept this token (expired,"
                    + " revoked or not a token of this cluster): sign in again with a fresh one");
        }
        if (!answer.allowed()) {
            return new ViewerDecision(403, answer.user(), answer.user() + " may not get trainingjobs.ballast.dev/" + job
                    + " in namespace " + namespace + ": the job's page needs that right (RBAC)"
                    + (answer.reason().isBlank() ? "" : "; the API server says: " + answer.reason()));
        }
        return new ViewerDecision(200, answer.user(), "");
    }
}
