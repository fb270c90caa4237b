package dev.ballast.planner.ballast;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class BusiestTreeTest {
    @Test
    void answersAsAScanForTheLowestIndexAmongTheBusiestNotExcluded() {
        SplittableRandom rnd = new SplittableRandom(5);
        for (int trial = 0; trial < 200; trial++) {
            int n = 1 + rnd.nextInt(70);
            long[] load = new long[n];
            for (int g = 0; g < n; g++) {
                load[g] = rnd.nextInt(8); // few distinct values: many ties
            }
            boolean[] excluded = new boolean[n];
            BusiestTree tree = new BusiestTree(load, n);
            for (int step = 0; step < 100; step++) {
                assertThat(tree.busiest()).as("trial %d step %d", trial, step).isEqualTo(scan(load, excluded));
                int g = rnd.nextInt(n);
                if (rnd.nextInt(10) == 0) {
                    excluded[g] = true;
                    tree.exclude(g);
                } else {
                    load[g] = rnd.nextInt(8);
                    tree.update(g);
                }
            }
        }
    }

    private static int scan(long[] load, boolean[] excluded) {
        int best = -1;
        for (int g = 0; g < load.length; g++) {
            if (!excluded[g] && (best < 0 || load[g] > load[best])) {
                best = g;
            }
        }
        return best;
    }
}
