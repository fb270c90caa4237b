package dev.ballast.agent.dashboard;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reviews on fabric8's mock API server: asked with the person's token (never the balancer's), the answers read
 * into {@link AccessReview.Answer}. The real API server's answers: e2e DashboardTest.
 */
@EnableKubernetesMockClient(https = false)
class ApiServerAccessReviewTest {
    static final String WHO = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    static final String MAY = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void asksWhoAndMayWithThePersonsToken() throws Exception {
        server.expect().post().withPath(WHO).andReturn(201,
                "{\"kind\":\"SelfSubjectReview\",\"status\":{\"userInfo\":{\"username\":\"alice\"}}}").once();
        server.expect().post().withPath(MAY).andReturn(201,
                "{\"kind\":\"SelfSubjectAccessReview\",\"status\":{\"allowed\":false,\"reason\":\"no\"}}").once();
        AccessReview.Answer a = ApiServerAccessReview.of(client.getConfiguration()).review("persons-token", "ml", "olmoe");
        assertThat(a).isEqualTo(new AccessReview.Answer(true, "alice", false, "no"));
        var who = server.takeRequest();
        assertThat(who.getPath()).isEqualTo(WHO);
        assertThat(who.getHeader("Authorization")).isEqualTo("Bearer persons-token");
        var may = server.takeRequest();
        assertThat(may.getHeader("Authorization")).isEqualTo("Bearer persons-token");
        assertThat(may.getBody().readUtf8()).contains("\"resourceAttributes\":{\"group\":\"ballast.dev\","
                + "\"resource\":\"trainingjobs\",\"verb\":\"get\",\"namespace\":\"ml\",\"name\":\"olmoe\"}");
    }

    @Test
    void aRefusedTokenIsUnauthenticatedAndAnyOtherFailureSaysWhat() {
        server.expect().post().withPath(WHO).andReturn(401, "{\"kind\":\"Status\",\"code\":401}").once();
        var review = ApiServerAccessReview.of(client.getConfiguration());
        assertThat(review.review("bad", "ml", "olmoe")).isEqualTo(AccessReview.Answer.UNAUTHENTICATED);
        server.expect().post().withPath(WHO).andReturn(500, "etcd is down").once();
        assertThatThrownBy(() -> review.review("t", "ml", "olmoe"))
                .hasMessageContaining("answered 500").hasMessageContaining("etcd is down");
    }
}
