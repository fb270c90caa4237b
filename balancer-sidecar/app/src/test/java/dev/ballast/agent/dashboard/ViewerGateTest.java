package dev.ballast.agent.dashboard;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Who may see a job's page, decided from what a mocked API server answers (the real one: e2e DashboardTest). */
class ViewerGateTest {
    final List<String> asked = new ArrayList<>();
    final AtomicLong now = new AtomicLong();

    ViewerGate gate(AccessReview.Answer answer) {
        return new ViewerGate((token, ns, job) -> {
            asked.add(token + " " + ns + "/" + job);
            return answer;
        }, "ml", "olmoe", now::get);
    }

    @Test
    void noBearerTokenIsAskedToSignInWithoutAskingTheApiServer() {
        ViewerGate gate = gate(new AccessReview.Answer(true, "alice", true, ""));
        for (String header : new String[] {null, "", "Bearer ", "Basic YWxpY2U6cHc="}) {
            ViewerDecision d = gate.decide(header);
            assertThat(d.httpStatus()).as(header).isEqualTo(401);
            assertThat(d.message()).contains("Authorization: Bearer <token>").contains("kubectl create token");
        }
        assertThat(asked).isEmpty();
    }

    @Test
    void aTokenTheApiServerRefusesIsUnauthenticated() {
        ViewerDecision d = gate(AccessReview.Answer.UNAUTHENTICATED).decide("Bearer expired");
        assertThat(d.httpStatus()).isEqualTo(401);
        assertThat(d.message()).contains("does not accept this token");
        assertThat(asked).containsExactly("expired ml/olmoe");
    }

    @Test
    void aPersonWithoutGetOnTheJobIsForbiddenAndToldWhichRight() {
        ViewerDecision d = gate(new AccessReview.Answer(true, "system:serviceaccount:ml:intern", false, "no RBAC policy matched"))
                .decide("bearer t0ken");
        assertThat(d.httpStatus()).isEqualTo(403);
        assertThat(d.message()).isEqualTo("system:serviceaccount:ml:intern may not get trainingjobs.ballast.dev/olmoe in"
                + " namespace ml: the job's page needs that right (RBAC); the API server says: no RBAC policy matched");
    }

    @Test
    void aPersonWhoMayGetTheJobIsLetInAndTheAnswerIsReusedForThirtySeconds() {
        ViewerGate gate = gate(new AccessReview.Answer(true, "alice", true, ""));
        assertThat(gate.decide("Bearer a")).isEqualTo(new ViewerDecision(200, "alice", ""));
        now.addAndGet(dev.ballast.contracts.access.TokenCache.TTL_NANOS - 1);
        assertThat(gate.decide("Bearer a").allowed()).isTrue();
        assertThat(asked).hasSize(1);
        gate.decide("Bearer b");
        assertThat(asked).as("another token is asked about").hasSize(2);
        now.addAndGet(1);
        gate.decide("Bearer a");
        assertThat(asked).as("after the TTL, asked again (a revoked right takes effect)").hasSize(3);
    }

    @Test
    void anApiServerThatCannotBeAskedIsNotADecision() {
        ViewerGate gate = new ViewerGate((t, ns, j) -> {
            throw new IllegalStateException("cannot reach the Kubernetes API server");
        }, "ml", "olmoe", now::get);
        assertThatThrownBy(() -> gate.decide("Bearer a")).hasMessageContaining("cannot reach");
    }
}
