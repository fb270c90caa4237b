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
     * Where to listen: BALLAST_BIND_ADDRESS if set; else the pod IP when it is a loopback address (the e2e suite's
     * process kubelet gives every pod its own 127.x address on one host); else all interfaces, so that the trainer
     * reaches its sidecar on 127.0.0.1 in a real pod.
     */
    public static String bindAddress() {
        String explicit = get(ProcessEnv.BIND_ADDRESS, null);
        if (explicit != null) {
            return explicit;
        }
        String podIp = get(ProcessEnv.POD_IP, "");
        return podIp.startsWith("127.") ? podIp : "0.0.0.0";
    }
}
