package dev.ballast.contracts.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A person's Kubernetes bearer token as a request carries it. Pure. */
public final class BearerToken {
    private static final String SCHEME = "Bearer ";
    /** What a request without a bearer token is told (with 401). */
    public static final String SIGN_IN = "sign in with your Kubernetes token: send 'Authorization: Bearer <token>'"
            + " (for example from 'kubectl create token <service-account>' or your kubeconfig's token)";
    /** What a request with a token the API server refuses is told (with 401). */
    public static final String NOT_ACCEPTED = "the Kubernetes API server does not accept this token (expired,"
            + " revoked or not a token of this cluster): sign in again with a fresh one";

    private BearerToken() {
    }

    /** The token from an Authorization header's value, or null when there is none to check. */
    public static String of(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        String token = authorization.substring(SCHEME.length()).trim();
        return token.isEmpty() ? null : token;
    }

    /** The token's SHA-256 in hex: what a cache keeps instead of the token. */
    public static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
