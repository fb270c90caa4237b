package dev.ballast.agent.balancer;

import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.load.LoadHistory;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;

import java.util.List;

/**
 * The job page's document (docs/dashboard.md, "The job page's data"): everything the page draws, in one answer, so a
 * refresh is one request. Pure: built from the balancer's state at a tick.
 */
final class JobPageJson {
    private JobPageJson() {
    }

    /**
     * Per GPU, the tokens of the last measured step under the static layout ({@code before}) and under the plan in use
     * ({@code after}); both null before the world's first measured step.
     */
    record GpuView(long[] before, long[] after) {
        static final GpuView NONE = new GpuView(null, null);
    }

    /**
     * The layout every rank runs, for the placement view: {@code plan} null is the static layout ({@code version} "")
     * or a plan this balancer does not hold; {@code par} null before a planning setup exists.
     */
    record InUse(Parallelism par, int layers, int experts, Plan plan, String version) {
        static final InUse NONE = new InUse(null, 0, 0, null, "");
    }

    /** What the balancer is doing: the page's header line. */
    record Activity(boolean ready, String configError, int sidecars, long plansPublished, String newestPlan) {
    }

    static String of(DashboardJson.Identity id, WorldDocument world, Activity activity, BalancerStatus status,
                     LoadHistory loads, GpuView gpus, List<PageHistory.Point> history, InUse inUse) {
        JsonWriter w = new JsonWriter().beginObject().field("job", id.job()).field("namespace", id.namespace())
                .field("balancerId", id.balancerId()).field("ready", activity.ready())
                .field("configError", activity.configError()).field("sidecars", activity.sidecars())
                .field("plansPublished", activity.plansPublished()).field("newestPlan", activity.newestPlan());
        world(w, world);
        w.name("plan").beginObject().field("version", status.planVersion()).field("adoptedAtStep", status.adoptedAtStep())
                .field("imbalanceBefore", status.imbalanceBefore()).field("imbalanceAfter", status.imbalanceAfter())
                .field("predictedSpeedup", status.predictedSpeedup()).endObject();
        heatmap(w, loads);
        w.name("gpus").beginObject();
        if (gpus.before() != null) {
            w.array("before", gpus.before()).array("after", gpus.after());
        }
        w.endObject();
        w.name("history").beginArray();
        for (PageHistory.Point p : history) {
            w.beginObject().field("t", p.unixMillis()).field("generation", p.generation()).field("step", p.step())
                    .field("measuredBefore", p.measuredBefore()).field("measuredAfter", p.measuredAfter())
                    .field("predictedAfter", p.predictedAfter()).field("plan", p.planVersion());
            BalancerStatus.Measured m = p.times();
            if (m != null) { // null where nothing was timed: the page leaves a gap
                w.field("stepBefore", m.stepSecondsBefore()).field("stepAfter", m.stepSecondsAfter())
                        .field("computeBefore", m.computeSecondsBefore()).field("computeAfter", m.computeSecondsAfter());
            }
            w.endObject();
        }
        w.endArray();
        PlacementJson.write(w, inUse.par(), inUse.layers(), inUse.experts(), inUse.plan(), inUse.version());
        return w.endObject().toString();
    }

    private static void world(JsonWriter w, WorldDocument world) {
        w.name("world").beginObject();
        if (world != null) {
            w.field("generation", world.generation()).field("gpusPerWorker", world.gpusPerWorker())
                    .field("gpus", world.gpus());
            if (world.spec() != null) {
                w.field("layers", world.spec().moeLayers()).field("experts", world.spec().experts())
                        .field("mode", world.spec().mode()).field("planner", world.spec().planner());
            }
            w.name("workers").beginArray();
            for (WorldWorker n : world.nodes()) {
                w.beginObject().field("index", n.index()).field("pod", n.pod()).field("nodeRank", n.nodeRank())
                        .field("node", n.node()).field("domain", n.domain()).field("rack", n.rack()).endObject();
            }
            w.endArray();
        }
        w.endObject();
    }

    /** Smoothed load per (layer, expert), row-major, with its maximum (the colour scale's top). */
    private static void heatmap(JsonWriter w, LoadHistory loads) {
        long[][] smoothed = loads.smoothed();
        w.name("heatmap").beginObject().field("step", loads.lastStep());
        if (smoothed != null) {
            int experts = smoothed.length == 0 ? 0 : smoothed[0].length;
            long[] flat = new long[smoothed.length * experts];
            long max = 0;
            for (int l = 0; l < smoothed.length; l++) {
                System.arraycopy(smoothed[l], 0, flat, l * experts, experts);
                for (long v : smoothed[l]) {
                    max = Math.max(max, v);
                }
            }
            w.field("layers", smoothed.length).field("experts", experts).field("max", max).array("values", flat);
        }
        w.endObject();
    }
}
