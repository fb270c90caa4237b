package dev.ballast.contracts.env;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A port for a listener that others on the same host dial, perhaps before it listens: the MASTER_PORT of a world whose
 * pods share one host (the reference trainer's local simulation, {@code bin/ballast commbench}, tests), or a port a
 * test hands to an agent, kubectl port-forward or Prometheus.
 *
 * <p>Why not a port from {@code bind(0)}: the kernel hands those out of its ephemeral range, the same range it takes
 * client source ports from. Between closing the probe and the listener's bind, any outbound connection on the host may
 * be given that port; a client that dials it before the listener is up may even be given it as its own source port,
 * and Linux then connects the socket to itself (a TCP simultaneous open). Either way the listener's bind fails with
 * "Address already in use" (it did in CI, in the collectives' tests). No client socket is ever given a port below the
 * ephemeral range, so a port drawn there is lost only to another listener. In a cluster pods use MASTER_PORT 29500,
 * below it too.
 */
public final class LocalPorts {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final int TRIES = 200;
    /** The first port of the kernel's ephemeral range: a host setting, read once. */
    static final int EPHEMERAL_LOW = readEphemeralLow();

    private LocalPorts() {
    }

    /**
     * An unused port below the ephemeral range, drawn at random (so that concurrent test JVMs rarely draw the same one)
     * and checked by binding it on every address. Falls back to {@code bind(0)} where the range leaves no room.
     */
    public static int listenPort() {
        for (int t = 0; EPHEMERAL_LOW > LOWEST && t < TRIES; t++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_LOW);
            if (free(port)) return port;
        }
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free TCP port on this host", e);
        }
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Linux's default where the file cannot be read. */
    private static int readEphemeralLow() {
        // a reader, not Files.readString: /proc files report size 0, and JDK 17 then reads a single byte
        try (BufferedReader r = Files.newBufferedReader(EPHEMERAL_RANGE)) {
            return Integer.parseInt(r.readLine().trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
