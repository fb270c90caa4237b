package dev.ballast.tools.trainbench;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Planners;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.parallel.PodRanks;
import dev.ballast.trainer.parallel.RankStepLog;
import java.util.List;

/**
 * The project's planners on the trainer's own routing. The measured runs replay the warm-up run step for step (same
 * seed, same data, and a plan does not change the routing), so the warm-up's per-rank counts over the measured steps
 * are the routing the plans are measured on: their mean is the predicted load every planner plans from ("oracle", as
 * the bench calls plans made on the counts they are scored on). One plan per planner and mode, fixed for the run.
 */
final class BenchPlans {

    /** The planners compared, in table order. */
    static final List<String> PLANNERS = List.of("static", "eplb", "ballast");

    private BenchPlans() {
    }

    /**
     * The cost model's shape of the trainer's MoE layers: experts y = silu(x up) down, two dim x ffn matrices,
     * 2 bytes per parameter and gradient (the rates of {@link Calibration#topology} are in the same half units), AdamW
     * state 2 floats = 4 such units per parameter.
     */
    static MoeShape shape(ModelConfig m) {
        return new MoeShape("ballast-reference", m.layers(), m.experts(), m.topK(), 0, m.dim(), m.ffnDim(), 2, 2, 4,
                2);
    }

    static PlanningContext context(TrainBenchConfig c, Topology topology, Mode mode) {
        int ep = c.worldSize();
        return new PlanningContext(topology, new Parallelism(ep, 1, 1), shape(c.model()), mode, c.redundantSlots(),
                c.steps());
    }

    /** Per (layer, source, expert) the mean count over steps [from, end) of the logs, rounded. */
    static ModelLoads predicted(List<List<RankStepLog>> logs, int from, int experts) {
        int layers = logs.get(0).get(0).rankCounts().length;
        int steps = logs.get(0).size() - from;
        ModelLoads mean = new ModelLoads(layers, 1, logs.size(), experts);
        for (int s = from; s < logs.get(0).size(); s++) {
            ModelLoads step = loads(logs, s, layers, experts);
            for (int l = 0; l < layers; l++) {
                long[] sum = mean.counts(l, 0);
                long[] c = step.counts(l, 0);
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += c[i];
                }
            }
        }
        for (int l = 0; l < layers; l++) {
            long[] sum = mean.counts(l, 0);
            for (int i = 0; i < sum.length; i++) {
                sum[i] = Math.round((double) sum[i] / steps);
            }
        }
        return mean;
    }

    /** Step index s (0-based) of every rank as [layer][copy 0][source * experts + expert]. */
    static ModelLoads loads(List<List<RankStepLog>> logs, int s, int layers, int experts) {
        ModelLoads step = new ModelLoads(layers, 1, logs.size(), experts);
        for (int r = 0; r < logs.size(); r++) {
            long[][] counts = logs.get(r).get(s).rankCounts();
            for (int l = 0; l < layers; l++) {
                System.arraycopy(counts[l], 0, step.counts(l, 0), r * experts, experts);
            }
        }
        return step;
    }

    /**
     * planner's plan for the predicted loads (the static planner's is the static layout), as a balancer publishes
     * it: through the plan codec, which carries distinct copies only with every master at its home (an eplb plan's
     * replica counts and moved masters stay behind; its owners keep the state and may compute nothing).
     */
    static Plan plan(String planner, PlanningContext ctx, ModelLoads predicted) {
        Plan plan = Planners.byName(planner).plan(new PlanRequest(ctx, predicted, null,
                new PlanVersion(PodRanks.LOCAL_GENERATION, 1), 1));
        return PlanJson.decode(PlanJson.encode(plan));
    }
}
