package dev.ballast.agent.dashboard;

import dev.ballast.agent.sim.LocalRoutes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The job page's routes (Vert.x, no Quarkus): assets for anyone, the data for whom the gate lets in. */
class DashboardHttpTest {
    LocalRoutes routes;

    @BeforeEach
    void start() throws Exception {
        AccessReview review = (token, ns, job) -> switch (token) {
            case "viewer" -> new AccessReview.Answer(true, "alice", true, "");
            case "down" -> throw new IllegalStateException("cannot reach the Kubernetes API server at https://api:6443");
            default -> AccessReview.Answer.UNAUTHENTICATED;
        };
        routes = new LocalRoutes(router -> new DashboardHttp(() -> "{\"job\":\"olmoe\"}",
                new ViewerGate(review, "ml", "olmoe", System::nanoTime)).register(router));
    }

    @AfterEach
    void stop() throws Exception {
        routes.close();
    }

    HttpResponse<String> get(String path, String token) throws Exception {
        return routes.get(path, token == null ? null : "Bearer " + token);
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
