package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.status.BalancerStatusJson;
import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.planner.load.LoadHistory;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Map;

/** The balancer's dashboard documents (docs/protocol.md, "Balancer HTTP"): recent loads and the balancer's status. */
final class DashboardJson {
    private DashboardJson() {
    }

    /** Whose balancer this is. */
    record Identity(String job, String namespace, String balancerId) {
    }

    /** What the balancer has done so far, for the status document. */
    record Activity(long worldGeneration, boolean ready, String configError, int sidecars, long reportsAccepted,
                    long reportsRefused, long hellosRefused, long plansPublished, String newestPlan, long lastPlanNanos,
                    long lastPlanCpuNanos, long historyRestoredSteps) {
    }

    /** The last complete step's per-layer totals and their smoothed history. */
    static String loads(Identity id, long worldGeneration, LoadHistory history) {
        JsonWriter w = new JsonWriter().beginObject().field("job", id.job()).field("namespace", id.namespace())
                .field("worldGeneration", worldGeneration).field("step", history.lastStep())
                .field("observedSteps", history.observedSteps());
        long[][] last = history.last();
        long[][] smooth = history.smoothed();
        w.name("layers").beginArray();
        if (last != null) {
            for (int l = 0; l < last.length; l++) {
                w.beginObject().field("layer", l).array("last", last[l]).array("smoothed", smooth[l]).endObject();
            }
        }
        return w.endArray().endObject().toString();
    }

    static String status(Identity id, Activity a, LoadHistory history, BalancerStatus s) {
        Runtime rt = Runtime.getRuntime();
        JsonWriter w = new JsonWriter().beginObject().field("job", id.job()).field("namespace", id.namespace())
                .field("balancerId", id.balancerId()).field("worldGeneration", a.worldGeneration())
                .field("ready", a.ready()).field("configError", a.configError())
                .field("sidecars", a.sidecars()).field("reportsAccepted", a.reportsAccepted())
                .field("reportsRefused", a.reportsRefused()).field("hellosRefused", a.hellosRefused())
                .field("stepsObserved", history.observedSteps()).field("lastStep", history.lastStep())
                .field("historyRestoredSteps", a.historyRestoredSteps())
                .field("plansPublished", a.plansPublished()).field("newestPlan", a.newestPlan())
                .field("lastPlanMillis", a.lastPlanNanos() / 1e6).field("lastPlanCpuMillis", a.lastPlanCpuNanos() / 1e6)
                .field("planVersion", s.planVersion()).field("planSequence", s.planSequence())
                .field("adoptedAtStep", s.adoptedAtStep()).field("imbalanceBefore", s.imbalanceBefore())
                .field("imbalanceAfter", s.imbalanceAfter()).field("predictedSpeedup", s.predictedSpeedup());
        if (BalancerStatusJson.fields(s).get(BalancerStatus.MEASURED) instanceof Map<?, ?> measured) {
            w.name(BalancerStatus.MEASURED).beginObject();
            measured.forEach((k, v) -> w.field((String) k, (Double) v));
            w.endObject();
        }
        return w.field("heapUsedBytes", rt.totalMemory() - rt.freeMemory()).field("heapLiveBytes", heapAfterLastGc())
                .field("heapMaxBytes", rt.maxMemory())
                .endObject().toString();
    }

    /** Heap in use right after the last collection of each pool: the live set, without uncollected garbage. */
    static long heapAfterLastGc() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
                sum += p.getCollectionUsage().getUsed();
            }
        }
        return sum;
    }
}
