package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.LoadReport;
import dev.ballast.agent.wire.BadReportException;
import dev.ballast.agent.wire.ReportParser;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.model.Parallelism;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Takes load reports from authenticated sidecars: checks each against the current world (generation, the sender's
 * GPU ranks) and the model (its pipeline stage's layers, the expert count, count ranges), and assembles accepted
 * reports into whole steps. A refused report leaves nothing behind. Not thread-safe.
 */
final class ReportIntake {
    private final LongSupplier nanoClock;
    private Parallelism par;
    private int layers;
    private int experts;
    private StepAssembler assembler;
    private String unusableBecause = "no plan context";
    private long accepted;
    private long refused;

    ReportIntake(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Reports of a new layout start from here (the steps still open are dropped). */
    void use(Parallelism par, int layers, int experts) {
        this.par = par;
        this.layers = layers;
        this.experts = experts;
        this.assembler = new StepAssembler(par, layers, experts, nanoClock);
    }

    /** No usable layout (no world yet, or a spec and world that cannot be planned): every report is refused. */
    void unusable(String why) {
        assembler = null;
        unusableBecause = why.isEmpty() ? "no plan context" : why;
    }

    /**
     * Checks a report from the sidecar of pod {@code podIndex} (node rank {@code nodeRank}) against {@code world};
     * returns why it is refused, or null when it was taken. Steps it releases go to {@code released} in order;
     * their buffers are reused once {@code released} returns.
     */
    Refusal take(int podIndex, int nodeRank, WorldDocument world, LoadReport r,
                 Consumer<StepAssembler.Released> released) {
        Refusal why = check(podIndex, nodeRank, world, r);
        if (why != null) {
            refused++;
            return why;
        }
        accepted++;
        StageLayers s = stageLayers(r.getGpuRank());
        for (StepAssembler.Released done : assembler.add(r.getStep(), r.getGpuRank(), s.first, s.count, r::getCounts,
                r.hasStepSeconds() ? r.getStepSeconds() : Double.NaN,
                r.hasComputeSeconds() ? r.getComputeSeconds() : Double.NaN)) {
            released.accept(done);
            assembler.recycle(done.loads());
        }
        return null;
    }

    private Refusal check(int podIndex, int nodeRank, WorldDocument world, LoadReport r) {
        if (r.getWorldGeneration() < world.generation()) {
            return new Refusal(ErrorNotice.Code.STALE_GENERATION, "report of rank " + r.getGpuRank() + " step " + r.getStep()
                    + " is from world generation " + r.getWorldGeneration() + "; the current generation is " + world.generation());
        }
        if (r.getWorldGeneration() > world.generation()) {
            return new Refusal(ErrorNotice.Code.BAD_REPORT, "report from world generation " + r.getWorldGeneration()
                    + " but the balancer knows generation " + world.generation() + " only");
        }
        int g = world.gpusPerWorker();
        long lo = (long) nodeRank * g;
        if (r.getGpuRank() < lo || r.getGpuRank() >= lo + g) {
            return new Refusal(ErrorNotice.Code.BAD_REPORT, "gpu rank " + r.getGpuRank() + " is not a rank of pod index "
                    + podIndex + " (GPU ranks " + lo + ".." + (lo + g - 1) + ")");
        }
        if (assembler == null) {
            return new Refusal(ErrorNotice.Code.BAD_REPORT, "reports cannot be used: " + unusableBecause);
        }
        StageLayers s = stageLayers(r.getGpuRank());
        try {
            ReportParser.check(r, s.first, s.count, experts);
        } catch (BadReportException e) {
            return new Refusal(ErrorNotice.Code.BAD_REPORT, e.getMessage());
        }
        return null;
    }

    /** The MoE layers [first, first + count) of the pipeline stage that GPU rank {@code rank} belongs to. */
    private record StageLayers(int first, int count) {
    }

    private StageLayers stageLayers(int rank) {
        int stage = rank / (par.ep() * par.dp());
        int first = par.firstLayer(stage, layers);
        return new StageLayers(first, par.firstLayer(stage + 1, layers) - first);
    }

    /** The silent ranks ({@link StepAssembler#silentRankList()}); none without a usable layout. */
    int[] silentRankList() {
        return assembler == null ? new int[0] : assembler.silentRankList();
    }

    long accepted() {
        return accepted;
    }

    long refused() {
        return refused;
    }
}
