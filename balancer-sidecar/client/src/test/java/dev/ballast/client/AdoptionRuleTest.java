package dev.ballast.client;

import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.plan.PlanVersions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdoptionRuleTest {
    static PlanVersion v(long g, long s) {
        return new PlanVersion(g, s);
    }

    static long[] reduce(PlanHeads... heads) {
        long[] acc = null;
        for (PlanHeads h : heads) {
            long[] c = AdoptionRule.contribution(h);
            if (acc == null) {
                acc = c;
            } else {
                acc[0] = Math.min(acc[0], c[0]);
                acc[1] = Math.min(acc[1], c[1]);
            }
        }
        return acc;
    }

    @Test
    void encodingKeepsVersionOrder() {
        assertThat(PlanVersions.encode(v(1, 999))).isLessThan(PlanVersions.encode(v(2, 0)));
        assertThat(PlanVersions.encode(v(2, 3))).isLessThan(PlanVersions.encode(v(2, 4)));
        assertThat(PlanVersions.decode(PlanVersions.encode(v(7, 123456789)))).isEqualTo(v(7, 123456789));
        assertThat(PlanVersions.encode(null)).isEqualTo(PlanVersions.NONE).isLessThan(PlanVersions.encode(v(0, 0)));
        assertThat(PlanVersions.parse("3.17")).isEqualTo(v(3, 17));
        assertThatThrownBy(() -> PlanVersions.parse("3")).hasMessageContaining("<generation>.<sequence>");
    }

    @Test
    void adoptsTheMinimumNewestWhenEveryRankHoldsIt() {
        long[] r = reduce(new PlanHeads(v(2, 9), v(2, 5)), new PlanHeads(v(2, 7), v(2, 6)));
        assertThat(AdoptionRule.decide(v(2, 0), r)).isEqualTo(v(2, 7));
    }

    @Test
    void keepsTheCurrentPlanWhenARankDroppedTheCandidate() {
        // rank 1's oldest held plan (2.8) is newer than rank 0's newest (2.7): not every rank holds 2.7
        long[] r = reduce(new PlanHeads(v(2, 7), v(2, 5)), new PlanHeads(v(2, 9), v(2, 8)));
        assertThat(AdoptionRule.decide(v(2, 3), r)).isNull();
    }

    @Test
    void keepsTheCurrentPlanWhenARankHasNothingEligible() {
        long[] r = reduce(new PlanHeads(v(2, 7), v(2, 5)), new PlanHeads(null, v(2, 5)));
        assertThat(AdoptionRule.decide(v(2, 0), r)).isNull();
        assertThat(AdoptionRule.decide(v(2, 0), reduce(new PlanHeads(v(2, 7), v(2, 5)), PlanHeads.EMPTY))).isNull();
    }

    @Test
    void neverGoesBackNorCrossesGenerations() {
        long[] r = reduce(new PlanHeads(v(2, 7), v(2, 5)), new PlanHeads(v(2, 7), v(2, 5)));
        assertThat(AdoptionRule.decide(v(2, 7), r)).isNull();
        assertThat(AdoptionRule.decide(v(2, 8), r)).isNull();
        assertThat(AdoptionRule.decide(v(3, 0), r)).as("plan of generation 2 in generation 3").isNull();
    }

    @Test
    void inProcessAllReduceGivesEveryPartyTheMinimum() throws Exception {
        int n = 4;
        InProcessAllReduce ar = new InProcessAllReduce(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            for (int round = 0; round < 50; round++) {
                List<Future<long[]>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    long[] mine = {100 + i + round, -i};
                    fs.add(pool.submit(() -> ar.min(mine)));
                }
                for (Future<long[]> f : fs) {
                    assertThat(f.get()).containsExactly(100 + round, -(n - 1));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
