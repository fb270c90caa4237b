package dev.ballast.agent.dashboard;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonWriter;
import io.fabric8.kubernetes.client.Config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@link AccessReview} by the API server itself, asked with the person's own token: a SelfSubjectReview says who the
 * token belongs to (401 when the API server refuses it) and a SelfSubjectAccessReview whether they may {@code get} the
 * TrainingJob. Every authenticated user may create both (the built-in {@code system:basic-user} role), so the balancer
 * needs no right of its own to check people (docs/dashboard.md, "Who may look"). The token is sent to the API server
 * only, the one party it is meant for.
 */
public final class ApiServerAccessReview implements AccessReview {
    private static final String WHO = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    private static final String MAY = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

    private final URI apiServer;
    private final HttpClient http;

    public ApiServerAccessReview(URI apiServer, SSLContext trust) {
        this.apiServer = apiServer;
        // HTTP/1.1: the API server answers an unaccepted token on HTTP/2 by closing the connection (GOAWAY), not with 401
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trust)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** The API server and the certificates to trust, as the balancer's own client has them (in-cluster or kubeconfig). */
    public static ApiServerAccessReview of(Config config) {
        try {
            return new ApiServerAccessReview(URI.create(config.getMasterUrl()), trust(config));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the API server's CA certificate: " + e.getMessage(), e);
        }
    }

    @Override
    public Answer review(String token, String namespace, String job) {
        var who = post(WHO, token, new JsonWriter().beginObject().field("apiVersion", "authentication.k8s.io/v1")
                .field("kind", "SelfSubjectReview").endObject().toString());
        if (who == null) {
            return Answer.UNAUTHENTICATED;
        }
        String user = string(map(map(who, "status"), "userInfo"), "username");
        var may = post(MAY, token, new JsonWriter().beginObject().field("apiVersion", "authorization.k8s.io/v1")
                .field("kind", "SelfSubjectAccessReview").name("spec").beginObject().name("resourceAttributes")
                .beginObject().field("group", "ballast.dev").field("resource", "trainingjobs").field("verb", "get")
                .field("namespace", namespace).field("name", job).endObject().endObject().endObject().toString());
        if (may == null) {
            return Answer.UNAUTHENTICATED;
        }
        Map<String, Object> status = map(may, "status");
        return new Answer(true, user, Boolean.TRUE.equals(status.get("allowed")), string(status, "reason"));
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

    private static SSLContext trust(Config config) throws IOException, GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        byte[] pem = config.getCaCertData() != null ? Base64.getDecoder().decode(config.getCaCertData().trim())
                : config.getCaCertFile() != null ? Files.readAllBytes(Path.of(config.getCaCertFile())) : null;
        if (pem == null) {
            context.init(null, null, null); // the JVM's trusted authorities
            return context;
        }
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
            store.setCertificateEntry("api-server-ca-" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
