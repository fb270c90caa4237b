package dev.ballast.agent.balancer;

import dev.ballast.agent.sim.LocalRoutes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The balancer's HTTP routes (Vert.x, no Quarkus): only a request with the job's token gets loads, plan or status. */
class BalancerHttpTest {
    static final String TOKEN = "s3cret-token";
    LocalRoutes routes;

    @BeforeEach
    void start() throws Exception {
        routes = new LocalRoutes(router -> new BalancerHttp(new BalancerHttp.Snapshots() {
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
        }, new BearerToken(TOKEN, "olmoe")).register(router));
    }

    @AfterEach
    void stop() throws Exception {
        routes.close();
    }

    HttpResponse<String> get(String path, String authorization) throws Exception {
        return routes.get(path, authorization);
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
