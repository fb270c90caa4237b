package dev.ballast.agent.balancer;

import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.model.GpuPlace;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What planning one world generation of a job needs: the planner's context (topology, layout, model) and planner. */
record PlanningSetup(PlanningContext context, Planner planner) {

    /** Builds the setup; throws IllegalArgumentException naming the problem when the spec and world cannot be planned. */
    static PlanningSetup of(String job, PlanningSpec spec, WorldDocument world) {
        Map<String, Integer> domains = new HashMap<>();
        Map<String, Integer> racks = new HashMap<>();
        List<GpuPlace> gpus = new ArrayList<>();
        for (WorldWorker n : world.nodes()) {
            String domain = n.domain().isEmpty() ? (n.node().isEmpty() ? n.pod() : n.node()) : n.domain();
            int d = domains.computeIfAbsent(domain, k -> domains.size());
            int r = racks.computeIfAbsent(n.rack(), k -> racks.size());
            for (int i = 0; i < world.gpusPerWorker(); i++) {
                gpus.add(new GpuPlace(d, r));
            }
        }
        Parallelism par = Parallelism.resolve(gpus.size(), spec.experts(), spec.expertParallel(), spec.pipeline());
        MoeShape shape = shape(job, spec);
        Mode mode = spec.mode().equals("off") ? Mode.REPLICATE : Mode.parse(spec.mode());
        // A memory budget caps the replicas per GPU below redundantSlotsPerGpu where it is the tighter limit.
        int slots = MemoryBudget.slotsWithin(shape, mode, par, spec.memoryBudgetBytes(), spec.redundantSlotsPerGpu());
        PlanningContext ctx = new PlanningContext(Topology.of(gpus, Hardware.of(spec.hardware())), par, shape, mode, slots,
                spec.replanEverySteps());
        // Layers are planned on every CPU the balancer may use (the plan does not depend on how many).
        return new PlanningSetup(ctx, Planners.byName(spec.planner(), Runtime.getRuntime().availableProcessors()));
    }

    /** The model as the planner sees it: gradients in the parameters' precision, 12 bytes of optimizer state (Adam). */
    static MoeShape shape(String job, PlanningSpec spec) {
        return new MoeShape(job, spec.moeLayers(), spec.experts(), spec.topK(), spec.sharedExperts(),
                spec.hiddenSize(), spec.ffnHiddenSize(), spec.bytesPerParam(), spec.bytesPerParam(), 12, 3);
    }

    Parallelism parallelism() {
        return context.parallelism();
    }
}
