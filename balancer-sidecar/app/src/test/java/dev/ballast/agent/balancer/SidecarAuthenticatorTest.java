package dev.ballast.agent.balancer;

import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.agent.proto.ErrorNotice.Code;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.wire.Protocol;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SidecarAuthenticatorTest {
    static final WorldDocument WORLD = BalancerCoreTest.WORLD; // generation 3, pod indexes 0 and 5
    final SidecarAuthenticator auth = new SidecarAuthenticator("j", "ns", "tok");

    static Hello hello(int protocol, String job, String token, int podIndex, long generation) {
        return Hello.newBuilder().setProtocolVersion(protocol).setJob(job).setNamespace("ns").setToken(token)
                .setPodIndex(podIndex).setWorldGeneration(generation).build();
    }

    @Test
    void aPodOfTheWorldWithTheJobsTokenJoins() {
        assertThat(auth.check(hello(Protocol.VERSION, "j", "tok", 5, 3), WORLD)).isNull();
        assertThat(auth.check(hello(Protocol.VERSION, "j", "tok", 0, 0), WORLD)).as("generation unknown to it").isNull();
    }

    @Test
    void eachRefusalNamesItsReason() {
        assertThat(auth.check(hello(Protocol.VERSION + 1, "j", "tok", 0, 3), WORLD))
                .isEqualTo(new Refusal(Code.INCOMPATIBLE_PROTOCOL, "sidecar speaks protocol 2 but this balancer supports 1..1;"
                        + " run the same ballast/agent image version for sidecars and the balancer"));
        assertThat(auth.check(hello(1, "j", "", 0, 3), WORLD))
                .isEqualTo(new Refusal(Code.UNAUTHENTICATED, "no credentials: hello carries no token"));
        assertThat(auth.check(hello(1, "j", "tok2", 0, 3), WORLD))
                .isEqualTo(new Refusal(Code.UNAUTHENTICATED, "wrong token for job ns/j"));
        assertThat(auth.check(hello(1, "k", "tok", 0, 3), WORLD))
                .isEqualTo(new Refusal(Code.WRONG_JOB, "this balancer serves ns/j, not ns/k"));
        assertThat(auth.check(hello(1, "j", "tok", 0, 3), null))
                .isEqualTo(new Refusal(Code.NO_WORLD, "no world committed yet; retry later"));
        assertThat(auth.check(hello(1, "j", "tok", 7, 2), WORLD))
                .isEqualTo(new Refusal(Code.STALE_GENERATION, "pod index 7 of world generation 2 is not part of world generation 3"));
        assertThat(auth.check(hello(1, "j", "tok", 7, 3), WORLD))
                .isEqualTo(new Refusal(Code.NOT_IN_WORLD, "pod index 7 is not part of world generation 3"));
    }

    @Test
    void credentialsAreCheckedBeforeAnythingAboutTheJobIsRevealed() {
        assertThat(auth.check(hello(1, "other", "nope", 7, 1), null).code()).isEqualTo(Code.UNAUTHENTICATED);
    }

    @Test
    void aBalancerWithoutATokenDoesNotStart() {
        assertThatThrownBy(() -> new SidecarAuthenticator("j", "ns", "")).hasMessageContaining("BALLAST_TOKEN");
    }
}
