package dev.ballast.agent.sidecar;

import dev.ballast.agent.wire.BadReportException;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.agent.wire.ReportParser;
import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.contracts.plan.PlanHeadsJson;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.model.Plan;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/** The trainer API on localhost (docs/protocol.md, "Trainer API"): loads in, plan versions and plans out. */
public final class SidecarHttp {
    private final SidecarCore core;
    private final Runnable onReport;

    public SidecarHttp(SidecarCore core, Runnable onReport) {
        this.core = core;
        this.onReport = onReport;
    }

    public void register(Router router) {
        router.post("/v1/loads").handler(BodyHandler.create(false).setBodyLimit(Protocol.MAX_HTTP_BODY_BYTES));
        router.post("/v1/loads").blockingHandler(this::loads, false);
        router.get("/v1/plans/heads").handler(this::heads);
        router.get("/v1/plans/:version").handler(this::plan);
        router.get("/v1/world").handler(this::world);
        router.get("/v1/status").handler(this::status);
        router.get("/healthz").handler(rc -> json(rc, 200, "{\"status\":\"ok\",\"connected\":" + core.connected() + "}"));
    }

    private void loads(RoutingContext rc) {
        if (rc.body() == null || rc.body().buffer() == null) {
            json(rc, 400, error("empty body: send the load report as JSON"));
            return;
        }
        try {
            core.acceptReport(rc.body().asString());
            onReport.run();
            json(rc, 202, "{\"accepted\":true}");
        } catch (BadReportException e) {
            json(rc, e.httpStatus(), error(e.getMessage()));
        }
    }

    private void heads(RoutingContext rc) {
        long generation;
        long step;
        try {
            generation = Long.parseLong(rc.queryParams().get("generation"));
            step = Long.parseLong(rc.queryParams().get("step"));
        } catch (RuntimeException e) {
            json(rc, 400, error("query parameters 'generation' and 'step' are required integers"));
            return;
        }
        json(rc, 200, PlanHeadsJson.encode(generation, step, core.heads(generation, step)));
    }

    private void plan(RoutingContext rc) {
        PlanVersion v;
        try {
            v = ReportParser.parseVersion(rc.pathParam("version"));
        } catch (BadReportException e) {
            json(rc, 400, error(e.getMessage()));
            return;
        }
        Plan p = core.plan(v);
        if (p == null) {
            json(rc, 404, error("plan " + v + " is not held by this sidecar"));
            return;
        }
        json(rc, 200, PlanJson.encode(p));
    }

    private void world(RoutingContext rc) {
        String w = core.worldJson();
        if (w == null) {
            json(rc, 503, error("no world received from the balancer yet"));
        } else {
            json(rc, 200, w);
        }
    }

    private void status(RoutingContext rc) {
        SidecarCore.Stats s = core.stats();
        json(rc, 200, new JsonWriter().beginObject().field("connected", s.connected())
                .field("reportsAccepted", s.reportsAccepted()).field("reportsRefused", s.reportsRefused())
                .field("reportsDropped", s.reportsDropped()).field("reportsQueued", s.reportsQueued())
                .field("plansReceived", s.plansReceived()).field("plansRejected", s.plansRejected())
                .field("plansHeld", s.plansHeld()).field("plansDroppedByCapacity", s.plansDroppedByCapacity())
                .field("oldestHeld", s.oldestHeld() == null ? "" : s.oldestHeld().toString())
                .field("newestHeld", s.newestHeld() == null ? "" : s.newestHeld().toString())
                .field("worldGeneration", s.worldGeneration()).field("errorsReceived", s.errorsReceived())
                .field("lastError", s.lastError()).endObject().toString());
    }

    static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }

    static void json(RoutingContext rc, int status, String body) {
        rc.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(Buffer.buffer(body));
    }
}
