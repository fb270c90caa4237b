package dev.ballast.agent;

import dev.ballast.contracts.env.ProcessEnv;

import java.util.Locale;

/** The two roles of the agent and their default ports (operator contract: docs/protocol.md, "Ports"). */
public enum Role {
    BALANCER,
    SIDECAR;

    /** The first argument wins over BALLAST_ROLE; one of them must name a role. */
    public static Role resolve(String arg, String env) {
        String v = arg != null && !arg.isBlank() ? arg : env;
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("no role: pass 'balancer' or 'sidecar' as the first argument or set " + ProcessEnv.ROLE);
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

    /** The trainer API (sidecar) is for the pod's own trainer; the balancer's HTTP is for the dashboard. */
    public String httpHost() {
        return this == BALANCER ? AgentEnv.bindAddress() : AgentEnv.trainerApiAddress();
    }

    public int httpPort() {
        return this == BALANCER ? AgentEnv.intValue(ProcessEnv.HTTP_PORT_VAR, ProcessEnv.BALANCER_HTTP_PORT)
                : AgentEnv.intValue(ProcessEnv.SIDECAR_PORT_VAR, ProcessEnv.SIDECAR_PORT);
    }
}
