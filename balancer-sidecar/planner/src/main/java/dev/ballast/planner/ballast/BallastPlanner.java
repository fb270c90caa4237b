package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import dev.ballast.planner.quota.PlacementSearch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ballast's planner (docs/planner.md has the full description). Per EP group and layer, from the layer's
 * {@link LayerDemand}:
 * <ol>
 * <li>First choice, from scratch ({@link BalanceThenLocal}): shed load with every slot open ({@link LoadShedder}), then
 *     local replicas in the slots balance left ({@link LocalReplicas}, within the {@link ParameterBudget}), then shed
 *     again.</li>
 * <li>The {@link CandidateSelector} takes it if it is predicted no slower than static and its quota-rule max/mean is
 *     within {@link CandidateSelector#BALANCE_CAP}, or can be topped up to it ({@link TopUp}). Otherwise (rare) the
 *     {@link LocalShareCandidates} decide. Slots the choice leaves empty take the node-local replicas that shorten the
 *     predicted layer time ({@link LocalFill}), in layers small enough for its work ({@link LocalFill#MAX_WORK}), and
 *     in the smallest layers replicas are swapped while a swap shortens it ({@link ReplicaSwaps}).</li>
 * <li>Incremental (plan in use given, {@code ballast}): an {@link IncrementalWalk} from the plan in use towards the
 *     scratch winner re-aligned to it ({@link Realignment}; in layers too large for {@link LocalFill}, the plan in use
 *     with the scratch winner's copy counts instead, {@link CountRepair}) and a repair that keeps its still-useful
 *     replicas ({@link BalanceThenLocal} seeded with it). {@code ballast-scratch} ignores the plan in use.</li>
 * <li>In fssdp mode, {@link MaterializationDrops} drops the copies (home ones included) whose gathers cost more than
 *     they serve, and {@link NodeShards} chooses which experts' state is sharded over one node instead of the
 *     whole group, where the cost model says it pays.</li>
 * </ol>
 * Every placement is weighed by one {@link LayerScorer} per layer: the quota rule the trainers run and the cost model.
 */
public final class BallastPlanner implements Planner {
    private final boolean incremental;
    private final int threads;
    private final boolean nodeShards;
    private final boolean routed;

    public BallastPlanner(boolean incremental) {
        this(incremental, 1);
    }

    public BallastPlanner(boolean incremental, int threads) {
        this(incremental, threads, true);
    }

    /**
     * @param threads layers planned at once (1: on the caller's thread alone). Layers are independent and each is
     *                planned by the same code whichever thread takes it, so the plan is identical for any value.
     * @param nodeShards in fssdp mode, whether experts may be sharded over one node ({@link NodeShards});
     *                   false (the bench's {@code ballast-even-shards}) keeps every expert over the whole group.
     */
    public BallastPlanner(boolean incremental, int threads, boolean nodeShards) {
        this(incremental, threads, nodeShards, false);
    }

    /**
     * @param routed {@code ballast-routed}: from scratch, and in small replicate layers ({@link RoutedPlan#applies}) a
     *               placement searched under its best routing, which the plan carries as a planned split where the
     *               cost model predicts it faster than the quota rule
     */
    public BallastPlanner(boolean incremental, int threads, boolean nodeShards, boolean routed) {
        if (threads < 1) {
            throw new IllegalArgumentException("planning threads must be >= 1, got " + threads);
        }
        if (routed && incremental) {
            throw new IllegalArgumentException("routed plans are planned from scratch");
        }
        this.incremental = incremental;
        this.threads = threads;
        this.nodeShards = nodeShards;
        this.routed = routed;
    }

    @Override
    public String name() {
        return routed ? "ballast-routed" : !incremental ? "ballast-scratch" : nodeShards ? "ballast" : "ballast-even-shards";
    }

    @Override
    public Routing routing() {
        return Routing.QUOTA_RULE;
    }

    @Override
    public Plan plan(PlanRequest r) {
        PlanningContext c = r.context();
        int layers = c.shape().layers();
        int dp = c.parallelism().dp();
        LayerPlacement staticP = LayerPlacement.staticLayout(c.parallelism().ep(), c.shape().experts());
        LayerPlacement[][] out = new LayerPlacement[layers][dp];
        int tasks = layers * dp;
        int workers = Math.min(threads, tasks);
        int[] sameAs = sameInputs(r, c);
        AtomicInteger next = new AtomicInteger();
        // Each worker takes the next (layer, copy) until none is left, with its own scratch (cost model, search, and
        // the demand arrays of the layer it planned last, refilled for the next).
        Runnable worker = () -> {
            CostModel cost = c.newCostModel();
            PlacementSearch search = SEARCH.get();
            LayerDemand spent = null;
            for (int t = next.getAndIncrement(); t < tasks; t = next.getAndIncrement()) {
                if (sameAs[t] == t) {
                    int l = t / dp;
                    int copy = t % dp;
                    LayerDemand demand = LayerDemand.of(c.groupOfLayer(l, copy), r.predicted().counts(l, copy),
                            c.shape().experts(), spent);
                    out[l][copy] = placeLayer(r, c, cost, search, demand, l, copy, staticP);
                    spent = demand;
                }
            }
        };
        List<CompletableFuture<Void>> helpers = new ArrayList<>();
        for (int i = 1; i < workers; i++) {
            helpers.add(CompletableFuture.runAsync(worker, POOL));
        }
        worker.run();
        helpers.forEach(CompletableFuture::join);
        for (int t = 0; t < tasks; t++) {
            out[t / dp][t % dp] = out[sameAs[t] / dp][sameAs[t] % dp];
        }
        return new Plan(r.version(), r.earliestStep(), c.mode(), name(), c.shape().experts(), c.parallelism(), out);
    }

    /**
     * For each (layer, copy) task {@code layer * dp + copy}, the first task of the same layer whose inputs are the same
     * (counts, plan in use, and group shape: dense node and rack of every EP rank, hardware), else itself. A layer
     * plan is a function of those inputs alone, so a copy with the same inputs gets the same placement without
     * planning it again. Data-parallel copies see different data, so in training this rarely matches; a load
     * generator that sends every copy the same counts (the loadbench's) is planned once per layer. Found before
     * planning, so the tasks planned, and the plan, do not depend on the threads.
     */
    private static int[] sameInputs(PlanRequest r, PlanningContext c) {
        int layers = c.shape().layers();
        int dp = c.parallelism().dp();
        int[] sameAs = new int[layers * dp];
        for (int l = 0; l < layers; l++) {
            for (int copy = 0; copy < dp; copy++) {
                int t = l * dp + copy;
                sameAs[t] = t;
                for (int o = 0; o < copy && sameAs[t] == t; o++) {
                    if (sameAs[l * dp + o] == l * dp + o && sameInputs(r, c, l, o, copy)) {
                        sameAs[t] = l * dp + o;
                    }
                }
            }
        }
        return sameAs;
    }

    private static boolean sameInputs(PlanRequest r, PlanningContext c, int l, int a, int b) {
        if (!Arrays.equals(r.predicted().counts(l, a), r.predicted().counts(l, b))) {
            return false;
        }
        if (r.current() != null && !r.current().placement(l, a).equals(r.current().placement(l, b))) {
            return false;
        }
        GroupTopology ga = c.groupOfLayer(l, a);
        GroupTopology gb = c.groupOfLayer(l, b);
        if (ga.ep() != gb.ep() || !ga.hardware().equals(gb.hardware())) {
            return false;
        }
        for (int i = 0; i < ga.ep(); i++) {
            if (ga.nodeIndex(i) != gb.nodeIndex(i) || ga.rackIndex(i) != gb.rackIndex(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Each thread's quota-rule search, kept from plan to plan: its buffers grow to the largest placement searched, and
     * a new search per plan would grow them again (fresh memory is memory the cache has not seen). A plan binds it to
     * each layer before asking anything ({@link PlacementSearch#startLayer}), so what it held before does not matter.
     */
    private static final ThreadLocal<PlacementSearch> SEARCH = ThreadLocal.withInitial(PlacementSearch::new);

    /** Daemon threads that help the calling thread plan; idle ones end after a minute. */
    private static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), runnable -> {
                Thread t = new Thread(runnable, "ballast-planner");
                t.setDaemon(true);
                return t;
            });

    /**
     * One (layer, copy), {@code demand} summed from its counts: its inputs are exactly what {@link #sameInputs} compares
     * (keep the two in step). Nothing it returns refers to {@code demand}.
     */
    private LayerPlacement placeLayer(PlanRequest r, PlanningContext c, CostModel cost, PlacementSearch search,
                                      LayerDemand demand, int l, int copy, LayerPlacement staticP) {
        LayerPlacement current = r.current() == null ? null : r.current().placement(l, copy);
        GroupTopology gt = c.groupOfLayer(l, copy);
        long[] counts = r.predicted().counts(l, copy);
        LayerScorer scorer = new LayerScorer(c, cost, search, gt, counts, demand, nodeShards);
        LayerPlacement p = placeLayer(scorer, current, staticP);
        return routed && RoutedPlan.applies(gt, c.shape().experts(), c.mode())
                ? RoutedPlan.improve(gt, cost, counts, p, c.slotsPerGpu()) : p;
    }

    /**
     * The fastest by predicted time of {@code best} (already filled) and {@code others} (null: none), each filled by
     * {@link LocalFill}.
     */
    private static LayerPlacement fastest(LayerScorer scorer, LayerPlacement best, LayerPlacement... others) {
        double bestSec = scorer.seconds(best, null);
        for (LayerPlacement o : others) {
            if (o == null || o.equals(best)) {
                continue;
            }
            LayerPlacement filled = LocalFill.fill(scorer, o);
            double sec = scorer.seconds(filled, null);
            if (sec < bestSec) {
                best = filled;
                bestSec = sec;
            }
        }
        return best;
    }

    /** Redundant slots {@code p} leaves empty in all. */
    private static int freeSlots(LayerPlacement p, int redundantSlots) {
        int free = 0;
        for (int g = 0; g < p.gpus(); g++) {
            free += Math.max(0, redundantSlots - p.nonHomeCopies(g));
        }
        return free;
    }

    /** One layer's placement, weighed by {@code scorer}; {@code current} is the plan in use's (null: none). */
    public LayerPlacement placeLayer(LayerScorer scorer, LayerPlacement current, LayerPlacement staticP) {
        PlanningContext c = scorer.context();
        GroupTopology gt = scorer.group();
        LayerDemand demand = scorer.demand();
        CandidateSelector selector = new CandidateSelector(scorer, staticP);
        LayerPlacement first = BalanceThenLocal.place(c, scorer.cost(), gt, demand, null);
        LayerPlacement best = selector.pick(selector.score(first));
        // LocalFill runs only where its quota-rule runs are cheap next to the rest of the plan (LocalFill.MAX_WORK).
        boolean fill = LocalFill.applies(gt, c.shape().experts());
        if (best == null) {
            best = LocalShareCandidates.choose(c, gt, demand, selector);
            if (fill) {
                best = LocalFill.fill(scorer, best);
            }
        } else if (fill && freeSlots(best, c.redundantSlots()) > gt.nodeCount()) {
            // Balance left slots that the local replicas' gain threshold refused. Also weigh local replicas at any
            // gain whose parameter traffic the layer's compute hides, the locality-first candidates and a copy of
            // every expert on every node first; each filled, the cost model decides.
            best = fastest(scorer, LocalFill.fill(scorer, best),
                    selector.pick(selector.score(BalanceThenLocal.place(c, scorer.cost(), gt, demand, null, 0))),
                    LocalShareCandidates.choose(c, gt, demand, selector),
                    selector.pick(selector.score(LocalShareCandidates.everyNode(c, gt, demand))));
        } else if (fill) {
            best = LocalFill.fill(scorer, best);
        }
        if (fill && ReplicaSwaps.applies(gt, c.shape().experts(), c.redundantSlots())) {
            best = ReplicaSwaps.improve(scorer, best);
        }
        if (incremental && current != null) {
            // In large layers the re-aligned winner is hundreds of slot changes away and its prefixes cost a run of
            // the rule each; the count repair makes only the count changes. Small layers score every change exactly,
            // and there the count repair lost to the re-aligned winner (docs/planner.md, "Count repair").
            LayerPlacement target = fill ? Realignment.align(scorer, best, current, c.redundantSlots())
                    : CountRepair.repair(scorer, best, current, c.redundantSlots());
            best = IncrementalWalk.towards(scorer, current, target,
                    BalanceThenLocal.place(c, scorer.cost(), gt, demand, current));
        }
        return NodeShards.apply(scorer, MaterializationDrops.apply(scorer, NodeShards.even(best)),
                incremental ? current : null);
    }
}
