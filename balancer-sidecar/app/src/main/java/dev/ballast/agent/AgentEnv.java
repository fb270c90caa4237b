package dev.ballast.agent;

import dev.ballast.contracts.env.ProcessEnv;

/** Environment lookups with defaults and clear errors (the operator sets these; docs/protocol.md lists them). */
public final class AgentEnv {
    private AgentEnv() {
    }

    public static String get(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    public static String require(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is required");
        }
        return v.trim();
    }

    public static int intValue(String name, int dflt) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variable " + name + " must be an integer, got '" + v + "'");
        }
    }

    /**
     * Where the listeners other pods and the kubelet reach bind (health, the balancer's gRPC and HTTP):
     * BALLAST_BIND_ADDRESS, else every interface of the pod.
     */
    public static String bindAddress() {
        return get(ProcessEnv.BIND_ADDRESS, ProcessEnv.ALL_INTERFACES);
    }

    /** Where the sidecar's trainer API binds: BALLAST_TRAINER_API_ADDRESS, else the pod's loopback only. */
    public static String trainerApiAddress() {
        return get(ProcessEnv.TRAINER_API_ADDRESS, ProcessEnv.LOOPBACK);
    }

    public static int healthPort() {
        return intValue(ProcessEnv.HEALTH_PORT_VAR, ProcessEnv.HEALTH_PORT);
    }
}
