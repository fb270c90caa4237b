package dev.ballast.agent.dashboard;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The job page's routes (Vert.x, no Quarkus): assets for anyone, the data for whom the gate lets in. */
class DashboardHttpTest {
    Vertx vertx;
    String url;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        Router router = Router.router(vertx);
        AccessReview review = (token, ns, job) -> switch (token) {
            case "viewer" -> new AccessReview.Answer(true, "alice", true, "");
            case "down" -> throw new IllegalStateException("cannot reach the Kubernetes API server at https://api:6443");
            default -> AccessReview.Answer.UNAUTHENTICATED;
        };
        new DashboardHttp(() -> "{\"job\":\"olmoe\"}", new ViewerGate(review, "ml", "olmoe", System::nanoTime))
                .register(router);
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage()
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        url = "http://127.0.0.1:" + server.actualPort();
    }

    @AfterEach
    void stop() {
        vertx.close();
    }

    HttpResponse<String> get(String path, String token) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url + path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theAssetsAreServedFromTheJarWithAStrictContentSecurityPolicy() throws Exception {
        var index = get("/dashboard/", null);
        assertThat(index.statusCode()).isEqualTo(200);
        assertThat(index.body()).contains("<script src=\"dashboard.js\"");
        assertThat(index.headers().firstValue("Content-Security-Policy")).hasValue(
                "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
        assertThat(get("/dashboard/dashboard.js", null).headers().firstValue("Content-Type"))
                .hasValue("text/javascript; charset=utf-8");
        assertThat(get("/dashboard/other.js", null).statusCode()).isEqualTo(404);
        var root = get("/", null);
        assertThat(root.statusCode()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location")).hasValue("/dashboard/");
    }

    @Test
    void theDataAnswers401403Or503WithTheReasonAnd200WithTheViewer() throws Exception {
        var none = get("/dashboard/api/job", null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"ballast-dashboard\"");
        assertThat(none.body()).contains("sign in with your Kubernetes token");
        assertThat(get("/dashboard/api/job", "stale").body()).contains("does not accept this token");
        var down = get("/dashboard/api/job", "down");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.body()).contains("cannot reach the Kubernetes API server at https://api:6443");
        var ok = get("/dashboard/api/job", "viewer");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("{\"job\":\"olmoe\"}");
        assertThat(ok.headers().firstValue("Ballast-Viewer")).hasValue("alice");
        assertThat(ok.headers().firstValue("Cache-Control")).hasValue("no-store");
    }
}
