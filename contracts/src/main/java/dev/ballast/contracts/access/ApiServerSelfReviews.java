package dev.ballast.contracts.access;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonWriter;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@link SelfReviews} by the API server over HTTPS (java.net.http). Every authenticated user may create both reviews
 * (the built-in {@code system:basic-user} role), so the asking process needs no right of its own (docs/dashboard.md,
 * "Who may look"). The token goes to the API server only, the one party it is meant for.
 */
public final class ApiServerSelfReviews implements SelfReviews {
    private static final String WHO = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    private static final String MAY = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

    private final URI apiServer;
    private final HttpClient http;

    public ApiServerSelfReviews(URI apiServer, SSLContext trust) {
        this.apiServer = apiServer;
        // HTTP/1.1: the API server answers an unaccepted token on HTTP/2 by closing the connection (GOAWAY), not with 401
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trust)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public String user(String token) {
        var who = post(WHO, token, new JsonWriter().beginObject().field("apiVersion", "authentication.k8s.io/v1")
                .field("kind", "SelfSubjectReview").endObject().toString());
        return who == null ? null : string(map(map(who, "status"), "userInfo"), "username");
    }

    @Override
    public Access may(String token, String verb, String namespace, String name) {
        var may = post(MAY, token, new JsonWriter().beginObject().field("apiVersion", "authorization.k8s.io/v1")
                .field("kind", "SelfSubjectAccessReview").name("spec").beginObject().name("resourceAttributes")
                .beginObject().field("group", "ballast.dev").field("resource", "trainingjobs").field("verb", verb)
                .field("namespace", namespace).field("name", name).endObject().endObject().endObject().toString());
        if (may == null) {
            return null;
        }
        Map<String, Object> status = map(may, "status");
        return new Access(Boolean.TRUE.equals(status.get("allowed")), string(status, "reason"));
    }

    /** The created review, or null when the API server refused the token (401). */
    private Map<String, Object> post(String path, String token, String body) {
        HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(apiServer.resolve(path)).timeout(Duration.ofSeconds(10))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach the Kubernetes API server at " + apiServer + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the Kubernetes API server", e);
        }
        if (r.statusCode() == 401) {
            return null;
        }
        if (r.statusCode() != 200 && r.statusCode() != 201) {
            throw new IllegalStateException("the Kubernetes API server answered " + r.statusCode() + " to " + path + ": "
                    + r.body());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) Json.parse(r.body());
        return doc;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String key) {
        return m.get(key) instanceof Map<?, ?> inner ? (Map<String, Object>) inner : Map.of();
    }

    private static String string(Map<String, Object> m, String key) {
        return m.get(key) instanceof String s ? s : "";
    }

    /**
     * TLS trusting the API server's CA as a client configuration names it: base64 PEM data, else a PEM file, else
     * (both null) the JVM's authorities.
     */
    public static SSLContext trusting(String caCertData, String caCertFile) {
        try {
            byte[] pem = caCertData != null ? Base64.getDecoder().decode(caCertData.trim())
                    : caCertFile != null ? Files.readAllBytes(Path.of(caCertFile)) : null;
            SSLContext context = SSLContext.getInstance("TLS");
            if (pem == null) {
                context.init(null, null, null);
                return context;
            }
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(
                    new ByteArrayInputStream(pem))) {
                store.setCertificateEntry("api-server-ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the API server's CA certificate: " + e.getMessage(), e);
        }
    }
}
