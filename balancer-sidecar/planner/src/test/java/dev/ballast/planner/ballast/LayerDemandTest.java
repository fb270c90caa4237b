package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.StaticLayout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LayerDemandTest {

    @Test
    void sumsAreTheCountsSummedByExpertNodeAndSource() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int trial = 0; trial < 50; trial++) {
            int ep = 4 * (1 + rnd.nextInt(3));
            int experts = ep + rnd.nextInt(2 * ep);
            GroupTopology gt = Fixtures.group(ep, 2, 1 + rnd.nextInt(2));
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(1000));
            LayerDemand d = LayerDemand.of(gt, counts, experts);
            long all = 0;
            long maxSent = 0;
            long[] recv = new long[ep * 4];
            for (int s = 0; s < ep; s++) {
                long sent = 0;
                for (int e = 0; e < experts; e++) {
                    long c = counts[s * experts + e];
                    sent += c;
                    int home = StaticLayout.home(e, ep, experts);
                    recv[home * 4 + gt.linkClass(s, home)] += c;
                }
                all += sent;
                maxSent = Math.max(maxSent, sent);
            }
            assertThat(d.allTokens()).isEqualTo(all);
            assertThat(d.maxSent()).isEqualTo(maxSent);
            for (int e = 0; e < experts; e++) {
                long total = 0;
                for (int n = 0; n < gt.nodeCount(); n++) {
                    long node = 0;
                    for (int s = 0; s < ep; s++) {
                        node += gt.nodeIndex(s) == n ? counts[s * experts + e] : 0;
                    }
                    assertThat(d.nodeTokens(n, e)).isEqualTo(node);
                    total += node;
                }
                assertThat(d.total(e)).isEqualTo(total);
            }
            for (int g = 0; g < ep; g++) {
                for (int cls = 0; cls < 4; cls++) {
                    assertThat(d.homeReceived(g, cls)).as("trial %d GPU %d class %d", trial, g, cls).isEqualTo(recv[g * 4 + cls]);
                }
            }
        }
    }

    @Test
    void refillingASpentDemandGivesTheSameSumsAsAFreshOne() {
        SplittableRandom rnd = new SplittableRandom(2);
        LayerDemand spent = null;
        for (int trial = 0; trial < 40; trial++) {
            int ep = 4 * (1 + rnd.nextInt(2));
            int experts = ep + rnd.nextInt(ep);
            GroupTopology gt = Fixtures.group(ep, 2, 1 + rnd.nextInt(2));
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(1000));
            LayerDemand fresh = LayerDemand.of(gt, counts, experts);
            LayerDemand d = LayerDemand.of(gt, counts, experts, spent);
            assertThat(d.totals()).containsExactly(fresh.totals());
            assertThat(d.nodeDemand()).containsExactly(fresh.nodeDemand());
            assertThat(d.homeRecv()).containsExactly(fresh.homeRecv());
            assertThat(d.allTokens()).isEqualTo(fresh.allTokens());
            assertThat(d.maxSent()).isEqualTo(fresh.maxSent());
            spent = d; // shapes vary: some trials refill, others allocate
        }
    }

    @Test
    void badCountsAreRejectedByName() {
        GroupTopology gt = Fixtures.group(2, 2, 1);
        assertThatThrownBy(() -> LayerDemand.of(gt, new long[] {1, 2, -3, 4}, 2)).hasMessageContaining("negative count at source 1 expert 0");
        assertThatThrownBy(() -> LayerDemand.of(gt, new long[3], 2)).hasMessageContaining("counts length 3");
        assertThatThrownBy(() -> LayerDemand.of(gt, new long[2], 1)).hasMessageContaining("exceeds the 1 experts");
    }
}
