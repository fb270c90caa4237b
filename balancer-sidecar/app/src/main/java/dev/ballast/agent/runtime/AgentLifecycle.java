package dev.ballast.agent.runtime;

import dev.ballast.agent.Role;
import dev.ballast.agent.balancer.BalancerHttp;
import dev.ballast.agent.dashboard.DashboardHttp;
import dev.ballast.agent.sidecar.SidecarHttp;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.ext.web.Router;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * Starts the role chosen in {@link dev.ballast.agent.Main} when the HTTP router is created, and registers that
 * role's routes (sidecar: the trainer API on loopback:8470; balancer: plan, loads and status for the job's token, and
 * the job's page for people, on 8472).
 */
@Singleton
public class AgentLifecycle {
    @Inject
    Instance<KubernetesClient> kube;
    @Inject
    MeterRegistry registry;

    private BalancerRuntime balancer;
    private SidecarRuntime sidecar;

    /**
     * Quarkus serves /q/metrics on the management interface (the health port): the balancer's metrics are scraped there
     * (docs/metrics.md); a sidecar's health port serves health only (docs/security.md).
     */
    void managementRoutes(@Observes ManagementInterface management) {
        if (Role.current() != Role.BALANCER) {
            management.router().route("/q/metrics*").order(Integer.MIN_VALUE)
                .handler(rc -> rc.response().setStatusCode(404).end());
        }
    }

    void routes(@Observes Router router) {
        if (Role.current() == Role.BALANCER) {
            balancer = new BalancerRuntime();
            balancer.start(kube::get, registry);
            new BalancerHttp(balancer.core(), balancer.httpToken()).register(router);
            new DashboardHttp(balancer.core()::pageSnapshot, balancer.viewerGate()).register(router);
        } else {
            sidecar = new SidecarRuntime();
            sidecar.start();
            new SidecarHttp(sidecar.core(), sidecar.link()::wake).register(router);
        }
    }

    void stop(@Observes ShutdownEvent e) {
        if (balancer != null) {
            balancer.close();
        }
        if (sidecar != null) {
            sidecar.close();
        }
    }

    /** For the readiness check: the balancer is ready once it serves sidecars and knows the world and spec. */
    public boolean ready() {
        if (balancer != null) {
            return balancer.ready();
        }
        return sidecar != null;
    }
}
