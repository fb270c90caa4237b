package dev.ballast.agent;

import dev.ballast.contracts.env.ProcessEnv;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * One image, two roles: {@code balancer} (one per TrainingJob) or {@code sidecar} (one per worker pod), chosen by
 * the first argument or BALLAST_ROLE. The role decides the ports before Quarkus reads its configuration.
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
        if (System.getProperty("quarkus.http.port") == null) {
            System.setProperty("quarkus.http.port", Integer.toString(role.httpPort()));
        }
        if (System.getProperty("quarkus.http.host") == null) {
            System.setProperty("quarkus.http.host", AgentEnv.bindAddress());
        }
        Quarkus.run(args);
    }
}
