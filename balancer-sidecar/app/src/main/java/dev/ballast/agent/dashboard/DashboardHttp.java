package dev.ballast.agent.dashboard;

import dev.ballast.contracts.json.JsonWriter;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.logging.Logger;

/**
 * The job's page (docs/dashboard.md): static assets from the agent's jar (no CDN, nothing fetched elsewhere) under
 * {@code /dashboard/}, and the page's data at {@code /dashboard/api/job} for a person {@link ViewerGate} lets in. The
 * job's own token is never asked for nor sent here.
 */
public final class DashboardHttp {
    private static final Logger LOG = Logger.getLogger(DashboardHttp.class.getName());
    /** Asset name to content type; the files live under dashboard/ in the jar (session.js: in the contracts jar). */
    private static final Map<String, String> ASSETS = Map.of(
            "index.html", "text/html; charset=utf-8",
            "dashboard.js", "text/javascript; charset=utf-8",
            "session.js", "text/javascript; charset=utf-8",
            "dashboard.css", "text/css; charset=utf-8");
    /** Scripts, styles and data from this origin only; no inline code, no framing. */
    private static final String CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

    private final Supplier<String> page;
    private final ViewerGate gate;
    private final Map<String, Buffer> assets;

    /** @param page the job page's document as of the balancer's last tick */
    public DashboardHttp(Supplier<String> page, ViewerGate gate) {
        this.page = page;
        this.gate = gate;
        this.assets = ASSETS.keySet().stream().collect(Collectors.toUnmodifiableMap(n -> n, DashboardHttp::load));
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
        Buffer body = assets.get(name);
        if (body == null) {
            rc.response().setStatusCode(404).end();
            return;
        }
        rc.response().putHeader("Content-Type", ASSETS.get(name)).putHeader("Content-Security-Policy", CSP)
                .putHeader("X-Content-Type-Options", "nosniff").end(body);
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

    private static Buffer load(String name) {
        try (InputStream in = DashboardHttp.class.getResourceAsStream("/dashboard/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the agent's jar lacks dashboard/" + name);
            }
            return Buffer.buffer(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
