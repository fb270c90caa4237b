package dev.ballast.contracts.env;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class LocalPortsTest {
    @Test
    void listenPortsLieBelowTheEphemeralRangeWhereNoClientSocketIsGivenThemAndAreFree() throws Exception {
        for (int i = 0; i < 20; i++) {
            int port = LocalPorts.listenPort();
            assertThat(port).isBetween(10_000, LocalPorts.EPHEMERAL_LOW - 1);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", port));
                assertThat(s.getLocalPort()).isEqualTo(port);
            }
        }
    }
}
