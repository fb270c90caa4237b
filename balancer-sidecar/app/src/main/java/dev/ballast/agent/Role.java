package dev.ballast.agent;

import java.util.Locale;

/** The two roles of the agent and their default ports (operator contract: docs/protocol.md, "Ports"). */
public enum Role {
    BALANCER,
    SIDECAR;

    /** The first argument wins over BALLAST_ROLE; one of them must name a role. */
    public static Role resolve(String arg, String env) {
        String v = arg != null && !arg.isBlank() ? arg : env;
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("no role: pass 'balancer' or 'sidecar' as the first argument or set BALLAST_ROLE");
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "balancer" -> BALANCER;
            case "sidecar" -> SIDECAR;
            default -> throw new IllegalArgumentException("unknown role '" + v + "' (balancer or sidecar)");
        };
    }

    /** The current process's role (set by {@link Main}); SIDECAR when started otherwise, e.g. in tests. */
    public static Role current() {
        String r = System.getProperty("ballast.role");
        return r == null ? SIDECAR : Role.valueOf(r);
    }

    public int httpPort() {
        return this == BALANCER ? AgentEnv.intValue("BALLAST_HTTP_PORT", 8472) : AgentEnv.intValue("BALLAST_SIDECAR_PORT", 8470);
    }
}
