package dev.ballast.planner.cost;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkClass;
import dev.ballast.planner.model.LinkTokens;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.ShardLayout;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.PlacementSearch;

/**
 * The one cost model of docs/cost-model.md, used by the ballast planner, the bench and the reference trainer.
 * Per layer and step: busiest GPU's expert compute (forward + backward = 3 × forward) + 4 all-to-alls (each as long as
 * the busiest GPU's slowest link) + the part of parameter traffic (replica refresh and gradient return, or FSSDP
 * gathers and reduce-scatters) that does not fit under that layer's compute.
 * Instances keep scratch buffers: use one per thread.
 */
public final class CostModel {
    /** Forward + backward ≈ 3 × forward FLOPs (backward computes input and weight gradients). */
    public static final double FWD_BWD_FACTOR = 3.0;
    /** Dispatch and combine in forward, their gradients in backward. */
    public static final int ALL_TO_ALLS_PER_LAYER = 4;

    /**
     * The quota rule's CPU time per layer: fixed, per (source, expert) count it reads, and per replica (a copy beyond
     * an expert's first) plus per replica and expert. Fitted to QuotaRuleCostBench's thread CPU time
     * (docs/cost-model.md, "Quota rule work": the command, the machine and the fit's error).
     */
    public static final double QUOTA_RULE_BASE_SEC = 0.185e-6;
    public static final double QUOTA_RULE_PER_COUNT_SEC = 0.000894e-6;
    public static final double QUOTA_RULE_PER_REPLICA_SEC = 0.474e-6;
    public static final double QUOTA_RULE_PER_REPLICA_EXPERT_SEC = 0.00882e-6;

    /** Re-plan interval a master migration is amortized over when the caller names none (the project's default). */
    public static final int DEFAULT_REPLAN_INTERVAL = 50;

    private final MoeShape shape;
    private final Mode mode;
    private final int replanInterval;
    private static final int NETWORK = LinkClass.NETWORK.ordinal();
    private double interTokens;
    private long[] sendTok = new long[0];
    private long[] recvTok = new long[0];
    private double[] send = new double[0];
    private double[] recv = new double[0];
    /** The second pair of byte sums of {@link #quotaRuleScore}. */
    private double[] send2 = new double[0];
    private double[] recv2 = new double[0];
    /**
     * The static homes of the last shape asked for ({@link #homes}): looked up instead of divided out per copy, where a
     * division is the slowest step of the replica traffic's loop.
     */
    private int[] homes = new int[0];
    private int homesEp = -1;

    public CostModel(MoeShape shape, Mode mode) {
        this(shape, mode, DEFAULT_REPLAN_INTERVAL);
    }

    /** @param replanInterval steps a plan is expected to stay in use: a master migration is amortized over them */
    public CostModel(MoeShape shape, Mode mode, int replanInterval) {
        if (replanInterval <= 0) {
            throw new IllegalArgumentException("re-plan interval must be > 0, got " + replanInterval);
        }
        this.shape = shape;
        this.mode = mode;
        this.replanInterval = replanInterval;
    }

    public MoeShape shape() {
        return shape;
    }

    public Mode mode() {
        return mode;
    }

    /**
     * Cost of running one step of one layer on placement {@code p} with the routing {@code r}.
     * {@code adoptedFrom} is the placement in use before this step when the plan changes at this step (its new
     * replicas cost one extra copy), or null.
     */
    public LayerCost layer(GroupTopology gt, LayerPlacement p, QuotaResult r, LayerPlacement adoptedFrom) {
        return layer(gt, p, r, adoptedFrom, null);
    }

    /**
     * As {@link #layer(GroupTopology, LayerPlacement, QuotaResult, LayerPlacement)}, for a plan adopted after
     * {@code mastersBefore} (the placement in use before it; null for the static layout): every master {@code p} holds
     * elsewhere pays its migration (weights and optimizer state), amortized over the re-plan interval, on every step.
     */
    public LayerCost layer(GroupTopology gt, LayerPlacement p, QuotaResult r, LayerPlacement adoptedFrom,
                           LayerPlacement mastersBefore) {
        int ep = gt.ep();
        reset(ep);
        clearTokens(ep);
        r.forEachFlow((e, s, copy, tokens) -> {
            int g = p.copyGpu(copy);
            int cls = gt.linkClassAt(s * ep + g);
            sendTok[s * 4 + cls] += tokens;
            recvTok[g * 4 + cls] += tokens;
        });
        tokensToBytes(ep, shape.tokenBytes());
        long maxTokens = 0;
        long sum = 0;
        for (int g = 0; g < ep; g++) {
            maxTokens = Math.max(maxTokens, r.gpuLoad(g));
            sum += r.gpuLoad(g);
        }
        return finish(gt, p, adoptedFrom, mastersBefore, maxTokens, sum, r.byQuotaRule());
    }

    /**
     * The cost of {@code p} under the quota rule on the layer {@code search} is bound to (the all-at-home link sums of
     * its counts precomputed by the caller), equal to {@code layer(gt, p, QuotaRule.apply(gt, p, counts, null),
     * adoptedFrom)} but without storing the rule's flows, and touching only the experts that do not run on their home
     * alone: for planners scoring many placements of one layer.
     */
    public LayerCost quotaRuleLayer(PlacementSearch search, LayerPlacement p, LinkTokens.Home home, LayerPlacement adoptedFrom) {
        GroupTopology gt = search.group();
        startFromHome(gt.ep(), home);
        long maxTokens = search.addFlows(p, sendTok, recvTok);
        return finishTokens(gt, p, search.allTokens(), adoptedFrom, maxTokens);
    }

    /**
     * {@code quotaRuleLayer(search, p, home, null).totalSec() * interval}, plus, when {@code adoptedFrom} is not null,
     * {@code withMigration(gt, p, steady, adoptedFrom) - steady.totalSec()}: a planner's score of {@code p} over the
     * re-plan interval, bit for bit, without building the {@link LayerCost} (no peak memory, no inter-node totals) and,
     * in replicate mode, with the parameter traffic with and without the adoption summed in one pass.
     */
    public double quotaRuleScore(PlacementSearch search, LayerPlacement p, LinkTokens.Home home,
                                 LayerPlacement adoptedFrom, double interval) {
        GroupTopology gt = search.group();
        int ep = gt.ep();
        Hardware hw = gt.hardware();
        startFromHome(ep, home);
        long maxTokens = search.addFlows(p, sendTok, recvTok);
        tokensToBytes(ep, shape.tokenBytes());
        double allToAll = ALL_TO_ALLS_PER_LAYER * busiestLinkSeconds(ep, hw);
        double compute = computeSeconds(maxTokens, hw);
        double quotaRule = quotaRuleSeconds(ep, p.experts(), p.totalCopies());
        reset(ep);
        double paramSec;
        double adoptedParamSec = 0;
        if (mode == Mode.REPLICATE && adoptedFrom != null) {
            if (send2.length != ep * 4) {
                send2 = new double[ep * 4];
                recv2 = new double[ep * 4];
            } else {
                java.util.Arrays.fill(send2, 0);
                java.util.Arrays.fill(recv2, 0);
            }
            replicaTrafficBoth(gt, p, adoptedFrom);
            paramSec = busiestLinkSeconds(ep, hw);
            adoptedParamSec = busiestLinkSeconds(ep, hw, send2, recv2);
        } else {
            if (mode == Mode.REPLICATE) {
                replicaTraffic(gt, p, null, null);
            } else {
                fssdpTraffic(gt, p, null);
            }
            paramSec = busiestLinkSeconds(ep, hw);
            if (adoptedFrom != null) {
                reset(ep);
                fssdpTraffic(gt, p, adoptedFrom);
                adoptedParamSec = busiestLinkSeconds(ep, hw);
            }
        }
        double steady = compute + allToAll + Math.max(0, paramSec - compute) + quotaRule;
        double s = steady * interval;
        if (adoptedFrom != null) {
            s += compute + allToAll + Math.max(0, adoptedParamSec - compute) + quotaRule - steady;
        }
        return s;
    }

    /**
     * {@link #replicaTraffic} of {@code p} without an adoption into send/recv and with the adoption after
     * {@code adoptedFrom} into send2/recv2, in one pass: each array receives the same additions in the same order as
     * in its own pass. A copy is fresh when {@code adoptedFrom} does not hold it (both GPUs' lists are ascending: a
     * merge instead of a search per copy).
     */
    private void replicaTrafficBoth(GroupTopology gt, LayerPlacement p, LayerPlacement adoptedFrom) {
        int ep = gt.ep();
        double w = shape.weightBytesPerExpert();
        double gb = shape.gradBytesPerExpert();
        int[] home = p.hasMovedMasters() ? null : homes(ep, p.experts());
        for (int g = 0; g < ep; g++) {
            int before = 0;
            int beforeCount = adoptedFrom.expertCount(g);
            for (int i = 0; i < p.expertCount(g); i++) {
                int e = p.expertAt(g, i);
                int h = home != null ? home[e] : p.master(e);
                if (h == g) {
                    continue;
                }
                while (before < beforeCount && adoptedFrom.expertAt(g, before) < e) {
                    before++;
                }
                boolean held = before < beforeCount && adoptedFrom.expertAt(g, before) == e;
                int cls = gt.linkClass(h, g);
                double fresh = held ? 0 : w;
                send[h * 4 + cls] += w;
                recv[g * 4 + cls] += w;
                send[g * 4 + cls] += gb;
                recv[h * 4 + cls] += gb;
                send2[h * 4 + cls] += w + fresh;
                recv2[g * 4 + cls] += w + fresh;
                send2[g * 4 + cls] += gb;
                recv2[h * 4 + cls] += gb;
            }
        }
        if (p.hasMovedMasters()) {
            double moved = (double) masterMigrationBytes() / replanInterval;
            for (int e = 0; e < p.experts(); e++) {
                int from = StaticLayout.home(e, ep, p.experts());
                int to = p.master(e);
                if (from == to) {
                    continue;
                }
                int cls = gt.linkClass(from, to);
                send[from * 4 + cls] += moved;
                recv[to * 4 + cls] += moved;
                send2[from * 4 + cls] += moved;
                recv2[to * 4 + cls] += moved;
            }
        }
    }

    /**
     * A lower bound on {@code totalSec()} of {@link #quotaRuleLayer} for {@code p}, with or without an adoption, from
     * step 9's busiest load and the received half of step 10's sums ({@link PlacementSearch#addReceived}; {@code homeRecv}
     * the received half of the all-at-home sums): the same compute and quota-rule terms, the all-to-alls timed on the
     * receiving side alone (the sending side can only make the busiest link busier), no exposed parameter traffic (an
     * adoption only adds to it). Each term is at most its exact counterpart and the sums round monotonically, so the
     * bound holds in floating point too. For a planner that can skip a placement whose bound already rules it out:
     * it needs no pass over the sources' counts.
     */
    public double quotaRuleFloor(PlacementSearch search, LayerPlacement p, long[] homeRecv) {
        GroupTopology gt = search.group();
        int ep = gt.ep();
        clearTokens(ep);
        System.arraycopy(homeRecv, 0, recvTok, 0, ep * 4);
        long maxTokens = search.addReceived(p, recvTok);
        reset(ep);
        double tokenBytes = shape.tokenBytes();
        for (int i = 0; i < ep * 4; i++) {
            if ((i & 3) != 0) {
                recv[i] = recvTok[i] * tokenBytes;
            }
        }
        Hardware hw = gt.hardware();
        return computeSeconds(maxTokens, hw) + ALL_TO_ALLS_PER_LAYER * busiestLinkSeconds(ep, hw)
                + quotaRuleSeconds(ep, p.experts(), p.totalCopies());
    }

    /**
     * The cost of the static layout {@code staticP} (every expert single-copy on its home) from the all-at-home link
     * sums alone: the quota rule routes every token home there, so this equals {@code quotaRuleLayer(search, staticP,
     * ...)} without running it. {@code allTokens} is the layer's token assignments, {@code maxTokens} the busiest home
     * load.
     */
    public LayerCost staticLayer(GroupTopology gt, LayerPlacement staticP, long allTokens, LinkTokens.Home home,
                                 long maxTokens) {
        startFromHome(gt.ep(), home);
        return finishTokens(gt, staticP, allTokens, null, maxTokens);
    }

    /** Token sums start as the all-at-home routing's; byte arrays cleared. */
    private void startFromHome(int ep, LinkTokens.Home home) {
        reset(ep);
        clearTokens(ep);
        System.arraycopy(home.send(), 0, sendTok, 0, ep * 4);
        System.arraycopy(home.recv(), 0, recvTok, 0, ep * 4);
    }

    /** The cost from the token sums now in sendTok/recvTok, the busiest GPU's tokens and all tokens of the layer. */
    private LayerCost finishTokens(GroupTopology gt, LayerPlacement p, long sum, LayerPlacement adoptedFrom,
                                   long maxTokens) {
        tokensToBytes(gt.ep(), shape.tokenBytes());
        return finish(gt, p, adoptedFrom, null, maxTokens, sum, true);
    }

    /**
     * A lower bound on {@link #staticLayer}'s {@code totalSec()} from the received half of the all-at-home sums alone:
     * the same compute, and all-to-alls timed on the receiving side only (the sending side can only make the busiest
     * link busier). It needs no pass over the counts' rows.
     */
    public double staticLowerBound(GroupTopology gt, long[] homeRecv, long maxTokens) {
        int ep = gt.ep();
        reset(ep);
        double tokenBytes = shape.tokenBytes();
        for (int i = 0; i < ep * 4; i++) {
            if ((i & 3) != 0) {
                recv[i] = homeRecv[i] * tokenBytes;
            }
        }
        return computeSeconds(maxTokens, gt.hardware()) + ALL_TO_ALLS_PER_LAYER * busiestLinkSeconds(ep, gt.hardware())
                + quotaRuleSeconds(ep, shape.experts(), shape.experts());
    }

    /**
     * An upper bound on {@code totalSec()} of {@link #quotaRuleLayer} (no adoption) for any routing in which no GPU
     * computes more than {@code maxTokens} tokens or sends more than {@code maxSent}: exact compute and parameter terms,
     * and all-to-alls as if every token a GPU sends or receives crossed its slowest link. It needs the rule's busiest
     * load but not its flows, so a planner can settle a clear comparison without routing.
     */
    public double upperBound(GroupTopology gt, LayerPlacement p, long maxTokens, long maxSent) {
        int ep = gt.ep();
        Hardware hw = gt.hardware();
        double compute = computeSeconds(maxTokens, hw);
        double slowest = Math.min(hw.bytesPerSecond(LinkClass.NVLINK),
                Math.min(hw.bytesPerSecond(LinkClass.NETWORK), hw.bytesPerSecond(LinkClass.CROSS_RACK)));
        double a2a = Math.max(maxTokens, maxSent) * (double) shape.tokenBytes() / slowest;
        reset(ep);
        if (mode == Mode.REPLICATE) {
            replicaTraffic(gt, p, null, null);
        } else {
            fssdpTraffic(gt, p, null);
        }
        double paramSec = busiestLinkSeconds(ep, hw);
        // The exact time sums a link's classes before dividing; a part in 10^12 covers any rounding that could put it
        // above this bound.
        return (compute + ALL_TO_ALLS_PER_LAYER * a2a + Math.max(0, paramSec - compute)
                + quotaRuleSeconds(ep, p.experts(), p.totalCopies())) * (1 + 1e-12);
    }

    /** {@link StaticLayout#homes}{@code (ep, experts)}, kept for the next call of the same shape. */
    private int[] homes(int ep, int experts) {
        if (homesEp != ep || homes.length != experts) {
            homes = StaticLayout.homes(ep, experts);
            homesEp = ep;
        }
        return homes;
    }

    /** Token sums per (GPU, link class) into the byte arrays the busiest-link time reads, and the inter-node total. */
    private void tokensToBytes(int ep, double tokenBytes) {
        long inter = 0;
        for (int i = 0; i < ep * 4; i++) {
            if ((i & 3) != 0) {
                send[i] = sendTok[i] * tokenBytes;
                recv[i] = recvTok[i] * tokenBytes;
            }
            if ((i & 3) >= NETWORK) {
                inter += sendTok[i];
            }
        }
        interTokens = inter * tokenBytes;
    }

    /** Compute, all-to-all and parameter terms, from the token traffic already in send/recv. */
    private LayerCost finish(GroupTopology gt, LayerPlacement p, LayerPlacement adoptedFrom, LayerPlacement mastersBefore,
                             long maxTokens, long sum, boolean quotaRule) {
        int ep = gt.ep();
        Hardware hw = gt.hardware();
        double a2a = busiestLinkSeconds(ep, hw);
        double compute = computeSeconds(maxTokens, hw);
        reset(ep);
        double[] param = mode == Mode.REPLICATE ? replicaTraffic(gt, p, adoptedFrom, mastersBefore) : fssdpTraffic(gt, p, adoptedFrom);
        double paramSec = busiestLinkSeconds(ep, hw);
        double exposed = Math.max(0, paramSec - compute);
        return new LayerCost(compute, ALL_TO_ALLS_PER_LAYER * a2a, paramSec, exposed, maxTokens, (double) sum / ep,
                ALL_TO_ALLS_PER_LAYER * interTokens, param[1], param[0], param[2], peakMemory(gt, p),
                quotaRule ? quotaRuleSeconds(ep, p.experts(), p.totalCopies()) : 0);
    }

    private void clearTokens(int ep) {
        if (sendTok.length != ep * 4) {
            sendTok = new long[ep * 4];
            recvTok = new long[ep * 4];
        } else {
            java.util.Arrays.fill(sendTok, 0);
            java.util.Arrays.fill(recvTok, 0);
        }
    }

    /**
     * Total seconds of {@code steady} (a cost of {@code p} without adoption) on the step {@code p} is adopted after
     * {@code adoptedFrom}: only the parameter traffic changes, so only that is recomputed.
     */
    public double withMigration(GroupTopology gt, LayerPlacement p, LayerCost steady, LayerPlacement adoptedFrom) {
        reset(gt.ep());
        if (mode == Mode.REPLICATE) {
            replicaTraffic(gt, p, adoptedFrom, null);
        } else {
            fssdpTraffic(gt, p, adoptedFrom);
        }
        double paramSec = busiestLinkSeconds(gt.ep(), gt.hardware());
        return steady.computeSec() + steady.allToAllSec() + Math.max(0, paramSec - steady.computeSec())
                + steady.quotaRuleSec();
    }

    /**
     * The force-balanced ideal (docs/cost-model.md, after UltraEP): every GPU computes the mean load, tokens travel as under
     * uniform routing over the static layout, no parameter moves.
     */
    public LayerCost ideal(GroupTopology gt, long[] counts) {
        int ep = gt.ep();
        int experts = shape.experts();
        Hardware hw = gt.hardware();
        reset(ep);
        double tokenBytes = shape.tokenBytes();
        double interTokens = 0;
        long all = 0;
        for (int s = 0; s < ep; s++) {
            long n = 0;
            for (int e = 0; e < experts; e++) {
                n += counts[s * experts + e];
            }
            all += n;
            for (int g = 0; g < ep; g++) {
                int cls = gt.linkClass(s, g);
                if (cls == 0) {
                    continue;
                }
                double b = n * tokenBytes * StaticLayout.homeCount(g, ep, experts) / experts;
                send[s * 4 + cls] += b;
                recv[g * 4 + cls] += b;
                if (cls >= LinkClass.NETWORK.ordinal()) {
                    interTokens += b;
                }
            }
        }
        double mean = (double) all / ep;
        double compute = mean * FWD_BWD_FACTOR * shape.forwardFlopsPerAssignment() / hw.flopsPerSecond();
        double a2a = busiestLinkSeconds(ep, hw);
        return new LayerCost(compute, ALL_TO_ALLS_PER_LAYER * a2a, 0, 0, Math.round(mean), mean,
                ALL_TO_ALLS_PER_LAYER * interTokens, 0, 0, 0, 0, 0);
    }

    /**
     * A lower bound on {@code layer(...).totalSec()} for every placement of at most {@code slotsPerGpu} experts per GPU
     * (every expert with at least one copy) and every routing of {@code counts}, masters anywhere: docs/cost-model.md,
     * "Lower bound", proves it. All-to-alls: a source keeps local at most its {@code slotsPerGpu} largest counts, on
     * its node at most its {@code slotsPerGpu × node GPUs} largest, in its rack likewise; the rest crosses the links,
     * timed per link class at the sending GPU. Compute and parameter traffic are bounded together: a plan whose busiest
     * GPU computes T tokens holds at least ceil(L_e / T) copies of an expert with L_e tokens, and the copies' parameter
     * bytes are spread at best evenly over all GPUs' NVLink and NIC; the bound takes the best T.
     */
    public double lowerBound(GroupTopology gt, long[] counts, int slotsPerGpu) {
        int ep = gt.ep();
        int experts = shape.experts();
        Hardware hw = gt.hardware();
        double nv = hw.bytesPerSecond(LinkClass.NVLINK);
        double nic = hw.bytesPerSecond(LinkClass.NETWORK);
        double xr = hw.bytesPerSecond(LinkClass.CROSS_RACK);
        double tokenBytes = shape.tokenBytes();
        long[] load = new long[experts];
        long[] row = new long[experts];
        double a2a = 0;
        long all = 0;
        for (int s = 0; s < ep; s++) {
            long total = 0;
            for (int e = 0; e < experts; e++) {
                long c = counts[s * experts + e];
                row[e] = c;
                load[e] += c;
                total += c;
            }
            all += total;
            java.util.Arrays.sort(row); // ascending: the largest counts are at the end
            int node = gt.nodeIndex(s);
            int rack = gt.rackIndex(s);
            long offGpu = total - largest(row, slotsPerGpu);
            long offNode = total - largest(row, (long) slotsPerGpu * (gt.nodeMemberStart(node + 1) - gt.nodeMemberStart(node)));
            long offRack = total - largest(row, (long) slotsPerGpu * (gt.rackMemberStart(rack + 1) - gt.rackMemberStart(rack)));
            a2a = Math.max(a2a, Math.max(offGpu * tokenBytes / (nv + nic),
                    Math.max(offNode * tokenBytes / nic, offRack * tokenBytes / xr)));
        }
        double perToken = FWD_BWD_FACTOR * shape.forwardFlopsPerAssignment() / hw.flopsPerSecond();
        // An fssdp copy gathers all but its own shard: (k − 1)/k of the expert for k owners, the whole group or (node
        // shards) a node, so at least the smallest node's share.
        int owners = ep;
        for (int n = 0; n < gt.nodeCount(); n++) {
            owners = Math.min(owners, gt.nodeMemberStart(n + 1) - gt.nodeMemberStart(n));
        }
        double perCopy = mode == Mode.REPLICATE
                ? (shape.weightBytesPerExpert() + shape.gradBytesPerExpert()) / (ep * (nv + nic))
                : (shape.weightBytesPerExpert() + shape.gradBytesPerExpert()) * (owners - 1.0) / owners / (ep * (nv + nic));
        if (all == 0) {
            return 0;
        }
        long slots = (long) slotsPerGpu * ep;
        // The busiest GPU computes at least the mean, and few enough copies must fit the slots.
        long lo = (all + ep - 1) / ep;
        long hi = lo;
        for (long l : load) {
            hi = Math.max(hi, l);
        }
        lo = smallestFitting(load, lo, hi, slots);
        double computeAndParam = bestComputeAndParam(load, lo, hi, perToken, perCopy);
        return (ALL_TO_ALLS_PER_LAYER * a2a + computeAndParam) * (1 - 1e-12);
    }

    /** Sum of the n largest of an ascending array. */
    private static long largest(long[] ascending, long n) {
        long sum = 0;
        for (int i = ascending.length - 1; i >= 0 && ascending.length - i <= n; i--) {
            sum += ascending[i];
        }
        return sum;
    }

    /** Copies the experts need when no GPU computes more than t tokens: ceil(L_e / t), at least one each. */
    private static long copiesNeeded(long[] load, long t) {
        long n = 0;
        for (long l : load) {
            n += Math.max(1, (l + t - 1) / t);
        }
        return n;
    }

    /** The smallest t in [lo, hi] whose copies fit the slots (hi always fits: one copy per expert at most E ≤ slots). */
    private static long smallestFitting(long[] load, long lo, long hi, long slots) {
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (copiesNeeded(load, mid) <= slots) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * min over integer t ≥ lo of max(compute(t), param(t)), compute rising and param (copies beyond one per expert in
     * replicate mode, all copies in FSSDP mode, times {@code perCopy}) never rising in t: the crossing found by bisection.
     */
    private double bestComputeAndParam(long[] load, long lo, long hi, double perToken, double perCopy) {
        int experts = load.length;
        java.util.function.LongToDoubleFunction param = t -> perCopy
                * (mode == Mode.REPLICATE ? copiesNeeded(load, t) - experts : copiesNeeded(load, t));
        if (perToken * hi < param.applyAsDouble(hi)) {
            return param.applyAsDouble(hi); // param no lower beyond hi (one copy each), compute below it up to there
        }
        long a = lo;
        long b = hi;
        while (a < b) {
            long mid = a + (b - a) / 2;
            if (perToken * mid >= param.applyAsDouble(mid)) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        return a == lo ? perToken * lo : Math.min(perToken * a, param.applyAsDouble(a - 1));
    }

    /**
     * CPU seconds of one application of the quota rule (docs/quota-rule.md) to one layer of {@code experts} experts
     * with {@code copies} copies in all, over {@code sources} EP ranks: every rank runs it on the all-gathered counts
     * before the layer's dispatch, so it is on the critical path once per layer and step. Fitted to thread CPU time
     * measured by {@code QuotaRuleCostBench} (docs/cost-model.md, "Quota rule work": command, machine, fit):
     * {@code A + B × sources × experts + (C + D × experts) × (copies − experts)}.
     */
    public static double quotaRuleSeconds(int sources, int experts, int copies) {
        return QUOTA_RULE_BASE_SEC + QUOTA_RULE_PER_COUNT_SEC * sources * experts
                + (QUOTA_RULE_PER_REPLICA_SEC + QUOTA_RULE_PER_REPLICA_EXPERT_SEC * experts) * (copies - experts);
    }

    public double computeSeconds(long tokens, Hardware hw) {
        return tokens * FWD_BWD_FACTOR * shape.forwardFlopsPerAssignment() / hw.flopsPerSecond();
    }

    /**
     * Replica refresh (master → replica) and gradient return (replica → master) every step, plus one copy per new
     * replica, plus the amortized migration of every master that is not where {@code mastersBefore} held it.
     */
    private double[] replicaTraffic(GroupTopology gt, LayerPlacement p, LayerPlacement adoptedFrom,
                                    LayerPlacement mastersBefore) {
        int ep = gt.ep();
        int experts = p.experts();
        double w = shape.weightBytesPerExpert();
        double gb = shape.gradBytesPerExpert();
        double total = 0;
        double inter = 0;
        double migration = 0;
        // Masters at their static homes unless moved: the same GPUs as p.master, without a division per copy.
        int[] home = p.hasMovedMasters() ? null : homes(ep, experts);
        for (int g = 0; g < ep; g++) {
            for (int i = 0; i < p.expertCount(g); i++) {
                int e = p.expertAt(g, i);
                int h = home != null ? home[e] : p.master(e);
                if (h == g) {
                    continue;
                }
                int cls = gt.linkClass(h, g);
                double fresh = adoptedFrom != null && !adoptedFrom.holds(g, e) ? w : 0;
                send[h * 4 + cls] += w + fresh;
                recv[g * 4 + cls] += w + fresh;
                send[g * 4 + cls] += gb;
                recv[h * 4 + cls] += gb;
                total += w + gb + fresh;
                migration += fresh;
                if (cls >= LinkClass.NETWORK.ordinal()) {
                    inter += w + gb + fresh;
                }
            }
        }
        if (p.hasMovedMasters() || mastersBefore != null && mastersBefore.hasMovedMasters()) {
            double moved = (double) masterMigrationBytes() / replanInterval;
            for (int e = 0; e < experts; e++) {
                int from = mastersBefore == null ? StaticLayout.home(e, ep, experts) : mastersBefore.master(e);
                int to = p.master(e);
                if (from == to) {
                    continue;
                }
                int cls = gt.linkClass(from, to);
                send[from * 4 + cls] += moved;
                recv[to * 4 + cls] += moved;
                total += moved;
                migration += moved;
                if (cls >= LinkClass.NETWORK.ordinal()) {
                    inter += moved;
                }
            }
        }
        return new double[] {total, inter, migration};
    }

    /**
     * Each GPU gathers every materialized expert from its owners' shards and reduce-scatters its gradient back: the whole
     * group for an even-sharded expert, its shard node's GPUs for a node-sharded one ({@link ShardLayout}). On the step
     * a plan is adopted after {@code adoptedFrom} (null: none), every expert whose layout changed also moves its state
     * (weights, fp32 master and Adam moments) from the old owners' ranges to the new ones'.
     */
    private double[] fssdpTraffic(GroupTopology gt, LayerPlacement p, LayerPlacement adoptedFrom) {
        int ep = gt.ep();
        double[] moved = {0, 0, 0};
        double w = (double) shape.weightBytesPerExpert() / ep;
        double gb = (double) shape.gradBytesPerExpert() / ep;
        for (int g = 0; g < ep; g++) {
            int m = p.expertCount(g);
            if (p.hasNodeShards()) {
                for (int i = 0; i < p.expertCount(g); i++) {
                    m -= p.nodeSharded(p.expertAt(g, i)) ? 1 : 0;
                }
            }
            if (m == 0) {
                continue;
            }
            for (int o = 0; o < ep; o++) {
                int cls = gt.linkClass(o, g);
                if (cls != 0) {
                    charge(o, g, cls, m * w, moved);
                    charge(g, o, cls, m * gb, moved);
                }
            }
        }
        if (p.hasNodeShards()) {
            nodeShardTraffic(gt, p, moved);
        }
        if (adoptedFrom != null && !adoptedFrom.sameShards(p)) {
            reshardTraffic(gt, adoptedFrom, p, moved);
        }
        return moved;
    }

    /** The gathers and reduce-scatters of the node-sharded experts' copies, from and to their shard node's GPUs. */
    private void nodeShardTraffic(GroupTopology gt, LayerPlacement p, double[] moved) {
        for (int e = 0; e < p.experts(); e++) {
            if (!p.nodeSharded(e)) {
                continue;
            }
            int node = gt.nodeIndex(p.shardRank(e));
            int from = gt.nodeMemberStart(node);
            int to = gt.nodeMemberStart(node + 1);
            double w = (double) shape.weightBytesPerExpert() / (to - from);
            double gb = (double) shape.gradBytesPerExpert() / (to - from);
            for (int k = p.copyStart(e); k < p.copyStart(e) + p.copies(e); k++) {
                int g = p.copyGpu(k);
                for (int i = from; i < to; i++) {
                    int o = gt.nodeMember(i);
                    int cls = gt.linkClass(o, g);
                    if (cls != 0) {
                        charge(o, g, cls, w, moved);
                        charge(g, o, cls, gb, moved);
                    }
                }
            }
        }
    }

    /**
     * The one-off move of the state of every expert sharded differently in {@code before} and {@code after}: each new
     * owner receives the part of its new range it did not hold, from the old owners whose ranges overlap it.
     */
    private void reshardTraffic(GroupTopology gt, LayerPlacement before, LayerPlacement after, double[] moved) {
        int ep = gt.ep();
        int[] node = new int[ep];
        for (int g = 0; g < ep; g++) {
            node[g] = gt.nodeIndex(g);
        }
        long params = shape.paramsPerExpert();
        double bytesPerParam = shape.bytesPerParam() + shape.optimizerBytesPerParam();
        for (int e = 0; e < after.experts(); e++) {
            if (before.shardRank(e) == after.shardRank(e)) {
                continue;
            }
            ShardLayout a = ShardLayout.of(before, e, node, params);
            ShardLayout b = ShardLayout.of(after, e, node, params);
            for (int to = 0; to < ep; to++) {
                for (int from = 0; from < ep; from++) {
                    long overlap = Math.min(b.offset(to + 1), a.offset(from + 1)) - Math.max(b.offset(to), a.offset(from));
                    int cls = gt.linkClass(from, to);
                    if (overlap > 0 && cls != 0) {
                        double bytes = overlap * bytesPerParam;
                        charge(from, to, cls, bytes, moved);
                        moved[2] += bytes;
                    }
                }
            }
        }
    }

    /** {@code bytes} from GPU a to GPU b over link class cls, into the link sums and {total, inter-node} of moved. */
    private void charge(int a, int b, int cls, double bytes, double[] moved) {
        send[a * 4 + cls] += bytes;
        recv[b * 4 + cls] += bytes;
        moved[0] += bytes;
        if (cls >= LinkClass.NETWORK.ordinal()) {
            moved[1] += bytes;
        }
    }

    /** Bytes one master migration moves: the weights and the optimizer state (fp32 master, Adam m and v). */
    public long masterMigrationBytes() {
        return shape.paramsPerExpert() * (shape.bytesPerParam() + shape.optimizerBytesPerParam());
    }

    /** Bytes one GPU holds for this layer's experts; the maximum over the group's GPUs. */
    private double peakMemory(GroupTopology gt, LayerPlacement p) {
        int ep = gt.ep();
        int[] perNode = mode == Mode.FSSDP ? nodeShardsPerNode(gt, p) : null;
        double max = 0;
        for (int g = 0; g < ep; g++) {
            double bytes = mode == Mode.REPLICATE
                    ? MemoryBudget.layerBytes(shape, mode, ep, p.mastersOn(g), p.workingReplicas(g))
                    : MemoryBudget.layerBytes(shape, ownedExperts(gt, p.experts(), perNode, g), p.physicalSlots(g));
            max = Math.max(max, bytes);
        }
        return max;
    }

    /** Experts' worth of full state GPU g holds in fssdp mode ({@link #ownedExperts(GroupTopology, int, int[], int)}). */
    public static double ownedExperts(GroupTopology gt, LayerPlacement p, int g) {
        return ownedExperts(gt, p.experts(), nodeShardsPerNode(gt, p), g);
    }

    /**
     * Experts' worth of full state GPU g holds in fssdp mode: an even shard of every expert sharded over the group, and
     * a 1/n shard of every expert sharded over g's node of n GPUs; {@code perNode[node]} counts the latter.
     */
    public static double ownedExperts(GroupTopology gt, int experts, int[] perNode, int g) {
        int all = 0;
        for (int k : perNode) {
            all += k;
        }
        int node = gt.nodeIndex(g);
        return (double) (experts - all) / gt.ep()
                + (double) perNode[node] / (gt.nodeMemberStart(node + 1) - gt.nodeMemberStart(node));
    }

    /** Node-sharded experts of {@code p} per dense node index of their shard node. */
    public static int[] nodeShardsPerNode(GroupTopology gt, LayerPlacement p) {
        int[] perNode = new int[gt.nodeCount()];
        if (p.hasNodeShards()) {
            for (int e = 0; e < p.experts(); e++) {
                if (p.nodeSharded(e)) {
                    perNode[gt.nodeIndex(p.shardRank(e))]++;
                }
            }
        }
        return perNode;
    }

    private void reset(int ep) {
        if (send.length != ep * 4) {
            send = new double[ep * 4];
            recv = new double[ep * 4];
        } else {
            java.util.Arrays.fill(send, 0);
            java.util.Arrays.fill(recv, 0);
        }
    }

    /**
     * Max over GPUs and directions of: NVLink bytes / NVLink rate, NIC bytes (network + cross-rack) / NIC rate,
     * cross-rack bytes / cross-rack rate. Division by a positive rate is monotone, so the maximum of the quotients is the
     * quotient of the maximum: three divisions instead of six per GPU, with bit-identical results.
     */
    private double busiestLinkSeconds(int ep, Hardware hw) {
        return busiestLinkSeconds(ep, hw, send, recv);
    }

    /** {@link #busiestLinkSeconds(int, Hardware)} over the given byte sums. */
    private static double busiestLinkSeconds(int ep, Hardware hw, double[] send, double[] recv) {
        double nvMax = 0;
        double nicMax = 0;
        double xrMax = 0;
        for (int b = 0; b < ep * 4; b += 4) {
            nvMax = Math.max(nvMax, Math.max(send[b + 1], recv[b + 1]));
            nicMax = Math.max(nicMax, Math.max(send[b + 2] + send[b + 3], recv[b + 2] + recv[b + 3]));
            xrMax = Math.max(xrMax, Math.max(send[b + 3], recv[b + 3]));
        }
        return Math.max(nvMax / hw.bytesPerSecond(LinkClass.NVLINK), Math.max(nicMax / hw.bytesPerSecond(LinkClass.NETWORK),
                xrMax / hw.bytesPerSecond(LinkClass.CROSS_RACK)));
    }
}
