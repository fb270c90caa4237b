package dev.ballast.planner;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

import java.util.SplittableRandom;

/** Random but seeded inputs for property tests. */
public final class Fixtures {
    private Fixtures() {
    }

    /** A group of ep GPUs, gpusPerNode per node, nodesPerRack per rack. */
    public static GroupTopology group(int ep, int gpusPerNode, int nodesPerRack) {
        int[] node = new int[ep];
        int[] rack = new int[ep];
        for (int g = 0; g < ep; g++) {
            node[g] = g / gpusPerNode;
            rack[g] = node[g] / nodesPerRack;
        }
        return GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT);
    }

    /** Skewed counts: a few hot experts, varying per source; some zeros. */
    public static long[] counts(SplittableRandom r, int ep, int experts, int perSource) {
        long[] c = new long[ep * experts];
        double[] w = new double[experts];
        for (int e = 0; e < experts; e++) {
            w[e] = Math.pow(1 + r.nextInt(experts), -1.2) * (r.nextInt(5) == 0 ? 0 : 1);
        }
        for (int s = 0; s < ep; s++) {
            double sum = 0;
            double[] x = new double[experts];
            for (int e = 0; e < experts; e++) {
                x[e] = w[e] * (0.5 + r.nextDouble());
                sum += x[e];
            }
            for (int e = 0; e < experts; e++) {
                c[s * experts + e] = sum == 0 ? 0 : Math.round(perSource * x[e] / sum);
            }
        }
        return c;
    }

    /** Static layout plus up to {@code slots} random replicas per GPU. */
    public static LayerPlacement randomPlacement(SplittableRandom r, int ep, int experts, int slots) {
        int[][] lists = new int[ep][];
        for (int g = 0; g < ep; g++) {
            int first = StaticLayout.firstExpert(g, ep, experts);
            int homes = StaticLayout.homeCount(g, ep, experts);
            int extra = r.nextInt(slots + 1);
            lists[g] = new int[homes + extra];
            for (int i = 0; i < homes; i++) {
                lists[g][i] = first + i;
            }
            for (int i = 0; i < extra; i++) {
                lists[g][homes + i] = r.nextInt(experts);
            }
        }
        return LayerPlacement.of(experts, lists);
    }
}
