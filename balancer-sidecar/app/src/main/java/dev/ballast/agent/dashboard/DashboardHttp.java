package dev.ballast.agent.dashboard;

import dev.ballast.contracts.access.PageAssets;
import dev.ballast.contracts.json.JsonWriter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The job's page (docs/dashboard.md): static assets from the agent's jar (no CDN, nothing fetched elsewhere) under
 * {@code /dashboard/}, and the page's data at {@code /dashboard/api/job} for a person {@link ViewerGate} lets in. The
 * job's own token is never asked for nor sent here.
 */
public final class DashboardHttp {
    private static final Logger LOG = Logger.getLogger(DashboardHttp.class.getName());
    private final Supplier<String> page;
    private final ViewerGate gate;
    private final PageAssets assets = PageAssets.load(DashboardHttp.class,
            "index.html", "dashboard.js", "session.js", "dashboard.css");

    /** @param page the job page's document as of the balancer's last tick */
    public DashboardHttp(Supplier<String> page, ViewerGate gate) {
        this.page = page;
        this.gate = gate;
    }

    public void register(Router router) {
        // first: Vert.x matches "/dashboard/" for a route of "/dashboard" too
        router.get("/dashboard/").handler(rc -> asset(rc, "index.html"));
        router.get("/").handler(DashboardHttp::redirect);
        router.get("/dashboard/api/job").blockingHandler(this::job, false);
        router.get("/dashboard/:asset").handler(rc -> asset(rc, rc.pathParam("asset")));
    }

    private void job(RoutingContext rc) {
        ViewerDecision d;
        try {
            d = gate.decide(rc.request().getHeader("Authorization"));
        } catch (IllegalStateException e) {
            LOG.warning("cannot check a dashboard viewer: " + e.getMessage());
            send(rc, 503, error(e.getMessage()));
            return;
        }
        if (!d.allowed()) {
            if (d.httpStatus() == 401) {
                rc.response().putHeader("WWW-Authenticate", "Bearer realm=\"ballast-dashboard\"");
            }
            send(rc, d.httpStatus(), error(d.message()));
            return;
        }
        rc.response().putHeader("Ballast-Viewer", d.user());
        send(rc, 200, page.get());
    }

    private void asset(RoutingContext rc, String name) {
        PageAssets.Asset asset = assets.get(name);
        if (asset == null) {
            rc.response().setStatusCode(404).end();
            return;
        }
        HttpServerResponse response = rc.response().putHeader("Content-Type", asset.contentType());
        PageAssets.HEADERS.forEach(response::putHeader);
        response.end(Buffer.buffer(asset.body()));
    }

    private static void redirect(RoutingContext rc) {
        rc.response().setStatusCode(302).putHeader("Location", "/dashboard/").end();
    }

    private static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }

    private static void send(RoutingContext rc, int status, String body) {
        rc.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store").end(Buffer.buffer(body));
    }
}
