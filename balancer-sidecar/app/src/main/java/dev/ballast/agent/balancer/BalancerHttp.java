package dev.ballast.agent.balancer;

import dev.ballast.contracts.json.JsonWriter;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The balancer's HTTP side for the dashboard (docs/protocol.md, "Balancer HTTP"): current plan, recent loads, status,
 * each only for a request that carries the job's token. Health is not here: it is on the health port, open.
 */
public final class BalancerHttp {
    /** What the routes serve: snapshots refreshed by the balancer loop (plan: at publish; loads, status: every second). */
    public interface Snapshots {
        String currentPlanJson();

        String loadsSnapshot();

        String statusSnapshot();
    }

    private final Snapshots snapshots;
    private final BearerToken token;

    public BalancerHttp(Snapshots snapshots, BearerToken token) {
        this.snapshots = snapshots;
        this.token = token;
    }

    public void register(Router router) {
        router.route("/v1/*").handler(this::authorize);
        router.get("/v1/plan").handler(rc -> answer(rc, snapshots.currentPlanJson(), "no plan published yet"));
        router.get("/v1/loads").handler(rc -> answer(rc, snapshots.loadsSnapshot(), ""));
        router.get("/v1/status").handler(rc -> answer(rc, snapshots.statusSnapshot(), ""));
    }

    private void authorize(RoutingContext rc) {
        String refusal = token.refusal(rc.request().getHeader("Authorization"));
        if (refusal == null) {
            rc.next();
        } else {
            rc.response().putHeader("WWW-Authenticate", "Bearer realm=\"ballast-balancer\"");
            send(rc, 401, error(refusal));
        }
    }

    private void answer(RoutingContext rc, String body, String whenNull) {
        if (body == null) {
            send(rc, 404, error(whenNull));
        } else {
            send(rc, 200, body);
        }
    }

    private static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }

    private static void send(RoutingContext rc, int status, String body) {
        rc.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(Buffer.buffer(body));
    }
}
