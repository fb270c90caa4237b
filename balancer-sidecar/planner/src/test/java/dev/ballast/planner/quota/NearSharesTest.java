package dev.ballast.planner.quota;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The near shares' quotient through a double is the 64-bit division's. */
class NearSharesTest {

    @Test
    void theQuotientIsTheIntegerDivisionsOnEveryScale() {
        for (long d = 0; d < 5000; d++) {
            for (int m = 1; m <= 70; m++) {
                assertThat(NearShares.quotient(d, m)).as("%d / %d", d, m).isEqualTo(d / m);
            }
        }
        SplittableRandom rnd = new SplittableRandom(7);
        for (int trial = 0; trial < 2_000_000; trial++) {
            int m = 1 + rnd.nextInt(trial % 2 == 0 ? 64 : 1 << 15);
            // Every magnitude up to and past 2^52, and the multiples of m and their neighbours, where a rounded
            // quotient would land on the wrong side of an integer.
            long d = rnd.nextLong(1L << rnd.nextInt(1, 63));
            if (trial % 3 == 0) {
                d = (d / m) * m + rnd.nextInt(-1, 2);
            }
            if (trial % 5 == 0) {
                d = (1L << 52) - rnd.nextInt(1, 1 << 20);
            }
            d = Math.max(0, d);
            assertThat(NearShares.quotient(d, m)).as("%d / %d", d, m).isEqualTo(d / m);
        }
    }
}
