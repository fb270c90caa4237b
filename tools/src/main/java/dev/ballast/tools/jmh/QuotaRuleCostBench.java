package dev.ballast.tools.jmh;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.quota.QuotaRule;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The per-step quota rule's CPU time per layer as a function of experts E, EP sources S and replicas per GPU R (copies
 * = E + R × S), for the layer shapes the bench uses: the source of the cost model's quota-rule term
 * ({@code CostModel.quotaRuleSeconds}, docs/cost-model.md "Quota rule work"). Each invocation applies the rule
 * {@link #BATCH} times and adds the batch's thread CPU time to the {@code cpuNanos} counter ({@code rules} counts
 * the applications), so per-rule CPU time is {@code cpuNanos / rules} even on a loaded machine, where wall time is not.
 * Counts: 8192 tokens per source × top-k 8 over E experts, Zipf (s = 1) with per-source noise; replicas: the hottest
 * experts, spread round-robin over GPUs other than their home. 8 GPUs per node, 4 nodes per rack.
 * Run: {@code bin/ballast jmh tools -f 1 -wi 3 -i 5 QuotaRuleCostBench}
 */
@State(Scope.Thread)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class QuotaRuleCostBench {
    static final int BATCH = 200;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Experts x EP sources: Mixtral (8 at EP 4, 8), exact16 (16 at 8), OLMoE (64 at 16, 64), 256 at 16 and 64. */
    @Param({"8x4", "8x8", "16x8", "64x16", "64x64", "256x16", "256x64"})
    public String shape;
    /** Replicas per GPU (0: the static layout). */
    @Param({"0", "1", "2"})
    public int replicas;

    GroupTopology group;
    LayerPlacement placement;
    long[] counts;

    /** Thread CPU time and rule applications, summed over the iteration (JMH reports both; divide). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        public long cpuNanos;
        public long rules;

        @Setup(Level.Iteration)
        public void clear() {
            cpuNanos = 0;
            rules = 0;
        }
    }

    @Setup
    public void setup() {
        String[] p = shape.split("x");
        int experts = Integer.parseInt(p[0]);
        int ep = Integer.parseInt(p[1]);
        group = groupOf(ep);
        counts = counts(experts, ep, 17);
        placement = placement(experts, ep, replicas);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long quotaRule(Cpu cpu) {
        long t0 = THREADS.getCurrentThreadCpuTime();
        long sink = 0;
        for (int i = 0; i < BATCH; i++) {
            sink += QuotaRule.apply(group, placement, counts, null).threshold();
        }
        cpu.cpuNanos += THREADS.getCurrentThreadCpuTime() - t0;
        cpu.rules += BATCH;
        return sink;
    }

    /** EP GPUs, 8 per node (fewer: one node), 4 nodes per rack. */
    static GroupTopology groupOf(int ep) {
        int[] node = new int[ep];
        int[] rack = new int[ep];
        for (int g = 0; g < ep; g++) {
            node[g] = g / 8;
            rack[g] = g / 32;
        }
        return GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT);
    }

    /** Zipf (s = 1) expert weights, each source's count scaled by a seeded factor in [0.5, 1.5). */
    static long[] counts(int experts, int ep, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double norm = 0;
        for (int e = 0; e < experts; e++) {
            norm += 1.0 / (e + 1);
        }
        long perSource = 8192L * Math.min(8, experts);
        long[] c = new long[ep * experts];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                c[s * experts + e] = Math.round(perSource / norm / (e + 1) * (0.5 + rnd.nextDouble()));
            }
        }
        return c;
    }

    /** The static layout plus {@code perGpu} replicas on every GPU: hottest experts first, never on their home. */
    static LayerPlacement placement(int experts, int ep, int perGpu) {
        int[][] lists = new int[ep][];
        int next = 0;
        for (int g = 0; g < ep; g++) {
            int[] home = LayerPlacement.staticLayout(ep, experts).expertsOn(g);
            int[] l = java.util.Arrays.copyOf(home, home.length + perGpu);
            for (int j = 0; j < perGpu; j++) {
                int e = next++ % experts;
                while (StaticLayout.home(e, ep, experts) == g || contains(l, home.length + j, e)) {
                    e = next++ % experts;
                }
                l[home.length + j] = e;
            }
            lists[g] = l;
        }
        return LayerPlacement.of(experts, lists);
    }

    private static boolean contains(int[] l, int n, int e) {
        for (int i = 0; i < n; i++) {
            if (l[i] == e) {
                return true;
            }
        }
        return false;
    }
}
