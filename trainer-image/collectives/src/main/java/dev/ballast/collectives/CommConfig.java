package dev.ballast.collectives;

import dev.ballast.contracts.env.ProcessEnv;
import java.time.Duration;
import java.util.Map;

/**
 * How one pod joins its group.
 *
 * @param masterAddr where the node-rank-0 pod's rendezvous store listens (MASTER_ADDR)
 * @param masterPort its port (MASTER_PORT); the node-rank-0 pod serves everything on it
 * @param nnodes pods in the world (NNODES)
 * @param nodeRank this pod's node rank (NODE_RANK)
 * @param localRanks ranks (threads) this pod runs (NPROC_PER_NODE)
 * @param generation the world generation (BALLAST_WORLD_GENERATION); pods of other generations are refused
 * @param bindHost the address this pod listens on
 * @param advertiseHost the address peers reach this pod at; empty: the address the store sees the registration from
 * @param port the port a pod other than node rank 0 listens on; 0 picks a free one
 * @param name this pod's name, for error messages (HOSTNAME, which Kubernetes sets to the pod name)
 * @param rendezvousTimeout how long the store waits for every pod to register
 * @param timeout how long one rank waits for one collective's messages before it fails
 */
public record CommConfig(String masterAddr, int masterPort, int nnodes, int nodeRank, int localRanks, long generation,
                         String bindHost, String advertiseHost, int port, String name, Duration rendezvousTimeout,
                         Duration timeout) {

    /** Optional: the collective timeout in seconds (default 300). */
    public static final String TIMEOUT_SECONDS = "BALLAST_COMM_TIMEOUT_SECONDS";
    /** Optional: the rendezvous timeout in seconds (default 600: pods of one world may start minutes apart). */
    public static final String RENDEZVOUS_TIMEOUT_SECONDS = "BALLAST_RENDEZVOUS_TIMEOUT_SECONDS";
    /** Optional: the port of a pod other than node rank 0 (default 0: any free port; the peer table carries it). */
    public static final String PORT = "BALLAST_COMM_PORT";

    public CommConfig {
        if (masterAddr == null || masterAddr.isBlank()) throw new IllegalArgumentException("MASTER_ADDR is empty");
        if (masterPort < 1 || masterPort > 65535) {
            throw new IllegalArgumentException("MASTER_PORT " + masterPort + " is not a TCP port");
        }
        if (nnodes < 1) throw new IllegalArgumentException("NNODES is " + nnodes + "; a world has at least one pod");
        if (nodeRank < 0 || nodeRank >= nnodes) {
            throw new IllegalArgumentException("NODE_RANK " + nodeRank + " is outside 0.." + (nnodes - 1)
                + " (NNODES=" + nnodes + ")");
        }
        if (localRanks < 1) {
            throw new IllegalArgumentException("NPROC_PER_NODE is " + localRanks + "; a pod runs at least one rank");
        }
        if (port < 0 || port > 65535) throw new IllegalArgumentException(PORT + " " + port + " is not a TCP port");
        if (rendezvousTimeout.isNegative() || rendezvousTimeout.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the rendezvous and collective timeouts must be positive");
        }
    }

    /** The configuration the operator's env gives a worker pod (docs/collectives.md, "Configuration"). */
    public static CommConfig fromEnv(Map<String, String> env) {
        String advertise = env.getOrDefault(ProcessEnv.POD_IP, "");
        String bind = env.getOrDefault(ProcessEnv.BIND_ADDRESS, advertise.isEmpty() ? "0.0.0.0" : advertise);
        return new CommConfig(
            required(env, ProcessEnv.MASTER_ADDR),
            integer(env, ProcessEnv.MASTER_PORT_VAR, ProcessEnv.MASTER_PORT),
            integer(env, ProcessEnv.NNODES, null),
            integer(env, ProcessEnv.NODE_RANK, null),
            integer(env, ProcessEnv.NPROC_PER_NODE, null),
            Long.parseLong(required(env, ProcessEnv.WORLD_GENERATION).trim()),
            bind,
            advertise,
            integer(env, PORT, 0),
            env.getOrDefault("HOSTNAME", "node-rank-" + env.getOrDefault(ProcessEnv.NODE_RANK, "?")),
            Duration.ofSeconds(integer(env, RENDEZVOUS_TIMEOUT_SECONDS, 600)),
            Duration.ofSeconds(integer(env, TIMEOUT_SECONDS, 300)));
    }

    /** The port this pod listens on: MASTER_PORT for node rank 0, which hosts the rendezvous store there. */
    int listenPort() {
        return nodeRank == 0 ? masterPort : port;
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is not set; the operator sets it in every worker pod");
        }
        return v;
    }

    private static int integer(Map<String, String> env, String name, Integer fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            if (fallback == null) required(env, name);
            return fallback;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + v + " is not an integer");
        }
    }
}
