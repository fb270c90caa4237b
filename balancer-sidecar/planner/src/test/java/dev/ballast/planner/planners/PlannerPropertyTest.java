package dev.ballast.planner.planners;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.ballast.BallastPlanner;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.PlanValidator;
import dev.ballast.planner.model.ShardLayout;
import dev.ballast.planner.model.Topology;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class PlannerPropertyTest {

    record World(PlanningContext ctx, ModelLoads loads) {
    }

    static World randomWorld(SplittableRandom r, Mode mode) {
        int nodes = 1 + r.nextInt(4);
        int perNode = 1 << r.nextInt(3);
        Topology topo = Topology.parse("nodes=" + nodes + ",gpusPerNode=" + perNode + ",racks=" + (nodes > 1 ? 2 : 1));
        int gpus = topo.gpus();
        int experts = Math.max(gpus, 2) + r.nextInt(3 * gpus + 1);
        int layers = 1 + r.nextInt(3);
        // Sometimes two pipeline stages (each planned over its own GPUs) and a smaller EP group with data-parallel copies.
        int pp = layers >= 2 && gpus % 2 == 0 && r.nextInt(3) == 0 ? 2 : 1;
        int ep = gpus / pp;
        if (ep % 2 == 0 && r.nextBoolean()) {
            ep = ep / 2;
        }
        MoeShape shape = MoeShape.generic("t", layers, experts, Math.min(experts, 1 + r.nextInt(4)));
        Parallelism par = Parallelism.resolve(gpus, experts, ep, pp);
        PlanningContext ctx = new PlanningContext(topo, par, shape, mode, r.nextInt(3), 1 + r.nextInt(60));
        ModelLoads loads = new ModelLoads(layers, par.dp(), ep, experts);
        for (int l = 0; l < layers; l++) {
            for (int c = 0; c < par.dp(); c++) {
                long[] x = loads.counts(l, c);
                long[] hot = new long[experts];
                for (int e = 0; e < experts; e++) {
                    hot[e] = r.nextInt(10) == 0 ? 20 + r.nextInt(200) : r.nextInt(10);
                }
                for (int i = 0; i < x.length; i++) {
                    x[i] = hot[i % experts] * (1 + r.nextInt(30));
                }
            }
        }
        return new World(ctx, loads);
    }

    @Test
    void everyPlanIsValidAndDeterministic() {
        SplittableRandom r = new SplittableRandom(99);
        for (int trial = 0; trial < 60; trial++) {
            Mode mode = trial % 3 == 0 ? Mode.FSSDP : Mode.REPLICATE;
            World w = randomWorld(r, mode);
            Plan previous = null;
            for (String name : Planners.NAMES) {
                Planner p = Planners.byName(name);
                PlanRequest req = new PlanRequest(w.ctx(), w.loads(), previous, new PlanVersion(1, trial), 10);
                Plan a = p.plan(req);
                Plan b = p.plan(req);
                PlanValidator.validate(a, w.ctx().slotsPerGpu(), !name.startsWith("eplb"));
                assertThat(b).isEqualTo(a);
                assertThat(PlanBinary.encode(b)).isEqualTo(PlanBinary.encode(a));
                assertThat(PlanJson.encode(b)).isEqualTo(PlanJson.encode(a));
                previous = name.equals("ballast") ? a : previous;
            }
        }
    }

    @Test
    void planningLayersInParallelGivesTheSerialPlanByteForByte() {
        SplittableRandom r = new SplittableRandom(41);
        for (int trial = 0; trial < 30; trial++) {
            World w = randomWorld(r, trial % 3 == 0 ? Mode.FSSDP : Mode.REPLICATE);
            Plan previous = null;
            for (boolean incremental : new boolean[] {false, true}) {
                PlanRequest req = new PlanRequest(w.ctx(), w.loads(), previous, new PlanVersion(1, trial), 10);
                Plan serial = new BallastPlanner(incremental).plan(req);
                for (int threads : new int[] {2, 3, 8}) {
                    Plan parallel = new BallastPlanner(incremental, threads).plan(req);
                    assertThat(PlanBinary.encode(parallel)).isEqualTo(PlanBinary.encode(serial));
                    assertThat(parallel).isEqualTo(serial);
                }
                previous = serial;
            }
        }
    }

    @Test
    void ballastInOracleModeIsNeverWorseThanStatic() {
        SplittableRandom r = new SplittableRandom(5);
        for (int trial = 0; trial < 60; trial++) {
            World w = randomWorld(r, trial % 2 == 0 ? Mode.REPLICATE : Mode.FSSDP);
            PlanningContext ctx = w.ctx();
            Plan ballast = new BallastPlanner(true).plan(new PlanRequest(ctx, w.loads(), null, new PlanVersion(0, 1), 0));
            CostModel cost = ctx.newCostModel();
            LayerPlacement stat = LayerPlacement.staticLayout(ctx.parallelism().ep(), ctx.shape().experts());
            for (int l = 0; l < ctx.shape().layers(); l++) {
                for (int c = 0; c < ctx.parallelism().dp(); c++) {
                    GroupTopology gt = ctx.groupOfLayer(l, c);
                    long[] counts = w.loads().counts(l, c);
                    LayerPlacement bp = ballast.placement(l, c);
                    double tb = cost.layer(gt, bp, Routing.QUOTA_RULE.route(gt, bp, counts), null).totalSec();
                    double ts = cost.layer(gt, stat, Routing.QUOTA_RULE.route(gt, stat, counts), null).totalSec();
                    assertThat(tb).isLessThanOrEqualTo(ts * (1 + 1e-12));
                }
            }
        }
    }

    @Test
    void replicatePlansKeepHomesAndRespectSlots() {
        SplittableRandom r = new SplittableRandom(17);
        World w = randomWorld(r, Mode.REPLICATE);
        Plan p = new BallastPlanner(false).plan(new PlanRequest(w.ctx(), w.loads(), null, new PlanVersion(0, 1), 0));
        PlanValidator.validate(p, w.ctx().slotsPerGpu());
    }

    @Test
    void fssdpShardsCoverEachExpertExactlyOnce() {
        for (int ep = 1; ep <= 70; ep += 3) {
            for (long bytes : new long[] {1, 7, 1000, 12_582_912, 1_000_000_007L}) {
                ShardLayout s = new ShardLayout(ep, bytes);
                long covered = 0;
                assertThat(s.offset(0)).isZero();
                for (int g = 0; g < ep; g++) {
                    assertThat(s.offset(g + 1)).isGreaterThanOrEqualTo(s.offset(g));
                    assertThat(s.shardBytes(g)).isBetween(bytes / ep, bytes / ep + 1);
                    covered += s.shardBytes(g);
                }
                assertThat(covered).isEqualTo(bytes);
                assertThat(s.offset(ep)).isEqualTo(bytes);
            }
        }
    }

    @Test
    void incrementalReplanOnUnchangedLoadsNeverPredictsWorse() {
        SplittableRandom r = new SplittableRandom(3);
        for (int trial = 0; trial < 20; trial++) {
            World w = randomWorld(r, Mode.REPLICATE);
            PlanningContext ctx = w.ctx();
            Planner p = new BallastPlanner(true);
            Plan first = p.plan(new PlanRequest(ctx, w.loads(), null, new PlanVersion(0, 1), 0));
            Plan second = p.plan(new PlanRequest(ctx, w.loads(), first, new PlanVersion(0, 2), 50));
            CostModel cost = ctx.newCostModel();
            for (int l = 0; l < first.layers(); l++) {
                for (int c = 0; c < first.parallelism().dp(); c++) {
                    GroupTopology gt = ctx.groupOfLayer(l, c);
                    long[] counts = w.loads().counts(l, c);
                    LayerPlacement a = first.placement(l, c);
                    LayerPlacement b = second.placement(l, c);
                    double ta = cost.layer(gt, a, Routing.QUOTA_RULE.route(gt, a, counts), null).totalSec();
                    double tb = cost.layer(gt, b, Routing.QUOTA_RULE.route(gt, b, counts), null).totalSec();
                    assertThat(tb).isLessThanOrEqualTo(ta * (1 + 1e-12));
                }
            }
        }
    }
}
