package dev.ballast.agent;

import dev.ballast.contracts.env.ProcessEnv;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * One image, two roles: {@code balancer} (one per TrainingJob) or {@code sidecar} (one per worker pod), chosen by
 * the first argument or BALLAST_ROLE. The role decides the listeners before Quarkus reads its configuration: the
 * role's HTTP (the sidecar's trainer API on loopback, the balancer's dashboard API) and health on its own port.
 */
@QuarkusMain
public final class Main {
    private Main() {
    }

    public static void main(String... args) {
        Role role;
        try {
            role = Role.resolve(args.length > 0 ? args[0] : null, System.getenv(ProcessEnv.ROLE));
        } catch (IllegalArgumentException e) {
            System.err.println("ballast agent: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.setProperty("ballast.role", role.name());
        setIfAbsent("quarkus.http.port", Integer.toString(role.httpPort()));
        setIfAbsent("quarkus.http.host", role.httpHost());
        // health and readiness: the management interface, a listener of its own that serves nothing else
        setIfAbsent("quarkus.management.port", Integer.toString(AgentEnv.healthPort()));
        setIfAbsent("quarkus.management.host", AgentEnv.bindAddress());
        Quarkus.run(args);
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}
