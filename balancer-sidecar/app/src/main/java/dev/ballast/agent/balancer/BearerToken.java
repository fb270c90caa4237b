package dev.ballast.agent.balancer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The check of the balancer's HTTP API: a request carries the job's token as {@code Authorization: Bearer <token>}
 * (the same token sidecars present on their stream; Secret {@code <job>-sidecar-auth}, key {@code token}). Pure;
 * the comparison takes constant time.
 */
public final class BearerToken {
    private static final String SCHEME = "Bearer ";
    private final byte[] token;
    private final String secretName;

    public BearerToken(String token, String job) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("the balancer needs the job's token (BALLAST_TOKEN)");
        }
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.secretName = job + "-sidecar-auth";
    }

    /** Null when {@code authorization} (the header's value, or null) carries the job's token; otherwise why not. */
    public String refusal(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            return "no credentials: send the job's token as 'Authorization: Bearer <token>' (Secret " + secretName
                    + ", key token)";
        }
        if (!authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return "unsupported credentials: use the Bearer scheme, 'Authorization: Bearer <token>'";
        }
        byte[] presented = authorization.substring(SCHEME.length()).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(token, presented) ? null
                : "wrong token: this is not the token of the job's Secret " + secretName;
    }
}
