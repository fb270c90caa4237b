package dev.ballast.agent.runtime;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** /q/health/ready on the health port: the balancer's readiness probe and the sidecar's startup probe. */
@Readiness
@Singleton
public class AgentReadiness implements HealthCheck {
    @Inject
    AgentLifecycle lifecycle;

    @Override
    public HealthCheckResponse call() {
        boolean ready;
        try {
            ready = lifecycle.ready();
        } catch (RuntimeException e) {
            ready = false;
        }
        return HealthCheckResponse.named("ballast-agent").status(ready).build();
    }
}
