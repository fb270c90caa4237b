package dev.ballast.agent;

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
}
