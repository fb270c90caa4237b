package dev.ballast.agent.balancer;

import dev.ballast.agent.runtime.BalancerRuntime;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.concurrent.Callable;

/** The balancer's HTTP side for the dashboard (docs/protocol.md, "Balancer HTTP"): current plan, recent loads, status. */
public final class BalancerHttp {
    private final BalancerRuntime runtime;

    public BalancerHttp(BalancerRuntime runtime) {
        this.runtime = runtime;
    }

    public void register(Router router) {
        router.get("/v1/plan").blockingHandler(rc -> answer(rc, () -> runtime.core().currentPlanJson(),
                "no plan published yet"), false);
        router.get("/v1/loads").blockingHandler(rc -> answer(rc, () -> runtime.core().loadsJson(), ""), false);
        router.get("/v1/status").blockingHandler(rc -> answer(rc, () -> runtime.core().statusJson(), ""), false);
    }

    private void answer(RoutingContext rc, Callable<String> read, String whenNull) {
        String body;
        try {
            body = runtime.call(read);
        } catch (RuntimeException e) {
            send(rc, 503, "{\"error\":\"" + e.getMessage().replace('"', '\'') + "\"}");
            return;
        }
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
