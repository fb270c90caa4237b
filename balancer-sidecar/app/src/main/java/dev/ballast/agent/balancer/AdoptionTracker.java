package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.AdoptionReport;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.contracts.plan.PlanVersion;

import java.util.HashMap;
import java.util.Map;

/**
 * Which plan each GPU rank of the current world runs, from the sidecars' adoption reports. The oldest plan in use
 * bounds what the balancer must retain, and is the plan status.balancer reports. Not thread-safe.
 */
final class AdoptionTracker {
    private record Adopted(PlanVersion version, long step) {
    }

    private final Map<Integer, Adopted> byRank = new HashMap<>();
    private WorldDocument world;

    /** A new world: no rank has adopted any of its plans yet. */
    void reset(WorldDocument w) {
        world = w;
        byRank.clear();
    }

    /**
     * Records an adoption reported by the sidecar of pod {@code podIndex} (node rank {@code nodeRank}); returns why
     * it is refused (a rank of another pod), or null. Reports about another world, and versions older than the
     * rank's known one (reordered reports), are ignored.
     */
    Refusal record(int podIndex, int nodeRank, AdoptionReport a) {
        if (a.getWorldGeneration() != world.generation() || a.getAdopted().getWorldGeneration() != world.generation()) {
            return null;
        }
        int g = world.gpusPerWorker();
        long lo = (long) nodeRank * g;
        if (a.getGpuRank() < lo || a.getGpuRank() >= lo + g) {
            return new Refusal(ErrorNotice.Code.BAD_REPORT, "adoption of gpu rank " + a.getGpuRank()
                    + " is not from pod index " + podIndex);
        }
        PlanVersion v = Protocol.fromWire(a.getAdopted());
        Adopted before = byRank.get(a.getGpuRank());
        if (before == null || v.compareTo(before.version) > 0) {
            byRank.put(a.getGpuRank(), new Adopted(v, a.getStep()));
        }
        return null;
    }

    /** The oldest plan any rank runs; null until every rank of the world has reported an adoption. */
    PlanVersion oldestInUse() {
        if (byRank.size() < world.gpus()) {
            return null;
        }
        PlanVersion min = null;
        for (Adopted a : byRank.values()) {
            if (min == null || a.version.compareTo(min) < 0) {
                min = a.version;
            }
        }
        return min;
    }

    /** The latest step at which a rank now running {@code version} adopted it; -1 when none runs it. */
    long lastAdoptedAt(PlanVersion version) {
        long at = -1;
        for (Adopted a : byRank.values()) {
            if (a.version.equals(version)) {
                at = Math.max(at, a.step);
            }
        }
        return at;
    }

    /** GPU ranks of the world that have not reported running {@code newest} (or a later plan). */
    int ranksBehind(PlanVersion newest) {
        int running = (int) byRank.values().stream().filter(a -> a.version.compareTo(newest) >= 0).count();
        return world.gpus() - running;
    }
}
