package dev.ballast.agent.balancer;

import dev.ballast.agent.runtime.BalancerRuntime;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** The balancer's HTTP side for the dashboard (docs/protocol.md, "Balancer HTTP"): current plan, recent loads, status. */
public final class BalancerHttp {
    private final BalancerRuntime runtime;

    public BalancerHttp(BalancerRuntime runtime) {
        this.runtime = runtime;
    }

    public void register(Router router) {
        // Snapshots refreshed by the balancer loop (plan: at publish; loads and status: every second).
        router.get("/v1/plan").handler(rc -> answer(rc, runtime.core().currentPlanJson(), "no plan published yet"));
        router.get("/v1/loads").handler(rc -> answer(rc, runtime.core().loadsSnapshot(), ""));
        router.get("/v1/status").handler(rc -> answer(rc, runtime.core().statusSnapshot(), ""));
    }

    private void answer(RoutingContext rc, String body, String whenNull) {
        if (body == null) {
            send(rc, 404, "{\"error\":\"" + whenNull + "\"}");
        } else {
            send(rc, 200, body);
        }
    }

    private static void send(RoutingContext rc, int status, String body) {
        rc.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(Buffer.buffer(body));
    }
}
