package dev.ballast.trainer.parallel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.client.StepQuotas;
import dev.ballast.planner.model.LayerPlacement;
import org.junit.jupiter.api.Test;

class CopyAssignmentTest {

    private static final int[] NODE = {0, 0, 1, 1};
    private static final int[] RACK = {0, 0, 0, 0};
    /** [source][expert] of 4 ranks and 4 experts; expert 0 is hot. */
    private static final long[] COUNTS = {
        40, 3, 2, 1,
        30, 5, 4, 0,
        35, 1, 6, 2,
        25, 0, 3, 9};

    @Test
    void everyRowGoesToExactlyOneCopyAndTheRunsTile() {
        // 4 ranks, 4 experts; expert 0 is hot and has copies on ranks 0, 1 and 3.
        LayerPlacement placement = LayerPlacement.of(4, new int[][] {{0}, {1, 0}, {2}, {3, 0}});
        CopyAssignment a = CopyAssignment.of(placement, StepQuotas.forPlacement(placement, NODE, RACK, COUNTS, null));

        for (int e = 0; e < 4; e++) {
            int copyTotal = 0;
            for (int s = 0; s < 4; s++) {
                int sent = 0;
                for (int g = 0; g < 4; g++) {
                    assertThat(a.firstRow(e, s, g)).isEqualTo(sent);
                    if (a.rows(e, s, g) > 0) {
                        assertThat(placement.holds(g, e)).as("expert %d rows to rank %d", e, g).isTrue();
                    }
                    sent += a.rows(e, s, g);
                }
                assertThat(sent).as("expert %d from rank %d", e, s).isEqualTo(COUNTS[s * 4 + e]);
            }
            for (int g = 0; g < 4; g++) {
                int stacked = 0;
                for (int s = 0; s < 4; s++) {
                    assertThat(a.copyFirstRow(e, s, g)).isEqualTo(stacked);
                    stacked += a.rows(e, s, g);
                }
                assertThat(a.copyRows(e, g)).isEqualTo(stacked);
                copyTotal += stacked;
            }
            assertThat(copyTotal).isEqualTo(COUNTS[e] + COUNTS[4 + e] + COUNTS[8 + e] + COUNTS[12 + e]);
        }
        // The hot expert is split: its home rank does not compute all 130 rows, and no rank computes most of the load.
        assertThat(a.copyRows(0, 0)).isLessThan(130);
        assertThat(a.copyRows(0, 1) + a.copyRows(0, 3)).isPositive();
        // Nearest first: a source holding a copy of expert 0 keeps its rows of it as far as its quota allows.
        assertThat(a.rows(0, 1, 1)).isEqualTo(Math.min(30, a.copyRows(0, 1)));
    }

    @Test
    void aPlannedSplitDecidesTheRowsInsteadOfTheRule() {
        // The same placement carrying route weights for expert 0 (copies on ranks 0, 1, 3): every source sends
        // 1/4 to rank 0, 1/4 to rank 1 and 1/2 to rank 3 (docs/quota-rule.md, "Planned split").
        LayerPlacement plain = LayerPlacement.of(4, new int[][] {{0}, {1, 0}, {2}, {3, 0}});
        LayerPlacement routed = plain.withRouteLists(new int[][] {{1, 1, 2}, {1, 1, 2}, {1, 1, 2}, {1, 1, 2}});
        CopyAssignment a = CopyAssignment.of(routed, StepQuotas.forPlacement(routed, NODE, RACK, COUNTS, null));
        // Source 0's 40 rows: 10, 10, 20. Source 2's 35: 8.75, 8.75, 17.5 floor to 8, 8, 17 and the two left go to
        // the largest remainders (0.75 each, ranks 0 and 1; rank 3's is 0.5).
        assertThat(new int[] {a.rows(0, 0, 0), a.rows(0, 0, 1), a.rows(0, 0, 3)}).containsExactly(10, 10, 20);
        assertThat(new int[] {a.rows(0, 2, 0), a.rows(0, 2, 1), a.rows(0, 2, 3)}).containsExactly(9, 9, 17);
        // Source 3's 25: 6.25, 6.25, 12.5; the one row left goes to rank 3 (remainder 2 of 4, against 1 and 1).
        assertThat(new int[] {a.rows(0, 3, 0), a.rows(0, 3, 1), a.rows(0, 3, 3)}).containsExactly(6, 6, 13);
        assertThat(a.copyRows(0, 3)).isEqualTo(20 + 15 + 17 + 13);
        // Without the weights the rule keeps source 1's rows of expert 0 on its own copy first.
        CopyAssignment rule = CopyAssignment.of(plain, StepQuotas.forPlacement(plain, NODE, RACK, COUNTS, null));
        assertThat(rule.rows(0, 1, 1)).isNotEqualTo(a.rows(0, 1, 1));
    }
}
