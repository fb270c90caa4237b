package dev.ballast.agent.balancer;

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

/** The balancer's HTTP routes (Vert.x, no Quarkus): only a request with the job's token gets loads, plan or status. */
class BalancerHttpTest {
    static final String TOKEN = "s3cret-token";
    Vertx vertx;
    String url;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        Router router = Router.router(vertx);
        new BalancerHttp(new BalancerHttp.Snapshots() {
            @Override
            public String currentPlanJson() {
                return null;
            }

            @Override
            public String loadsSnapshot() {
                return "{\"step\":7}";
            }

            @Override
            public String statusSnapshot() {
                return "{\"sidecars\":2}";
            }
        }, new BearerToken(TOKEN, "olmoe")).register(router);
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage()
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        url = "http://127.0.0.1:" + server.actualPort();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    HttpResponse<String> get(String path, String authorization) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url + path));
        if (authorization != null) request.header("Authorization", authorization);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theJobsTokenGetsTheSnapshots() throws Exception {
        assertThat(get("/v1/loads", "Bearer " + TOKEN).body()).isEqualTo("{\"step\":7}");
        assertThat(get("/v1/status", "bearer " + TOKEN).body()).isEqualTo("{\"sidecars\":2}");
        var plan = get("/v1/plan", "Bearer " + TOKEN);
        assertThat(plan.statusCode()).isEqualTo(404);
        assertThat(plan.body()).contains("no plan published yet");
    }

    @Test
    void withoutTheTokenEveryRouteAnswers401SayingWhatToSend() throws Exception {
        for (String path : new String[] {"/v1/loads", "/v1/status", "/v1/plan", "/v1/anything"}) {
            var none = get(path, null);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"ballast-balancer\"");
            assertThat(none.body()).as(path).contains("send the job's token as 'Authorization: Bearer <token>'")
                    .contains("olmoe-sidecar-auth");
        }
        var wrong = get("/v1/loads", "Bearer " + TOKEN + "x");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).contains("wrong token").doesNotContain(TOKEN);
        assertThat(get("/v1/loads", "Basic " + TOKEN).body()).contains("use the Bearer scheme");
    }
}
