package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice.Code;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SidecarSessionsTest {
    final SidecarSessions sessions = new SidecarSessions();

    @Test
    void broadcastsReachAuthenticatedSidecarsOnly() {
        BalancerCoreTest.Recorder in = new BalancerCoreTest.Recorder();
        BalancerCoreTest.Recorder waiting = new BalancerCoreTest.Recorder();
        sessions.get(sessions.open(in)).authenticated = true;
        sessions.open(waiting);
        BalancerMessage m = BalancerMessage.getDefaultInstance();
        sessions.broadcast(m);
        assertThat(in.got).containsExactly(m);
        assertThat(waiting.got).isEmpty();
        assertThat(sessions.authenticatedCount()).isEqualTo(1);
        assertThat(sessions.authenticated()).extracting(s -> s.session).containsExactly(in);
    }

    @Test
    void aRefusalClosesTheStreamForgetsItAndCountsRefusedHellos() {
        BalancerCoreTest.Recorder r = new BalancerCoreTest.Recorder();
        long id = sessions.open(r);
        sessions.refuse(id, new Refusal(Code.UNAUTHENTICATED, "wrong token"));
        assertThat(r.closedWith.getFatal()).isTrue();
        assertThat(r.closedWith.getMessage()).isEqualTo("wrong token");
        assertThat(sessions.get(id)).isNull();
        assertThat(sessions.hellosRefused()).isEqualTo(1);
        sessions.refuse(id, new Refusal(Code.UNAUTHENTICATED, "again"));
        assertThat(sessions.hellosRefused()).as("a closed stream is refused once").isEqualTo(1);

        BalancerCoreTest.Recorder warned = new BalancerCoreTest.Recorder();
        SidecarSessions.Sidecar s = sessions.get(sessions.open(warned));
        s.authenticated = true;
        s.warn(new Refusal(Code.BAD_REPORT, "bad counts"));
        assertThat(warned.errors()).singleElement().satisfies(e -> assertThat(e.getFatal()).isFalse());
        sessions.refuse(s.id, new Refusal(Code.NOT_IN_WORLD, "gone"));
        assertThat(sessions.hellosRefused()).as("not a hello").isEqualTo(1);
    }
}
