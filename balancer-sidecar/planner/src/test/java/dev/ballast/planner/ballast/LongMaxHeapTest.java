package dev.ballast.planner.ballast;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LongMaxHeapTest {

    @Test
    void aHeapBuiltBottomUpPopsInDescendingOrder() {
        SplittableRandom r = new SplittableRandom(3);
        for (int trial = 0; trial < 50; trial++) {
            int n = r.nextInt(200);
            long[] keys = new long[n];
            LongMaxHeap heap = new LongMaxHeap(1);
            for (int i = 0; i < n; i++) {
                keys[i] = r.nextLong(1000);
                heap.add(keys[i]);
            }
            heap.heapify();
            heap.push(5000);
            assertThat(heap.pop()).isEqualTo(5000);
            Arrays.sort(keys);
            for (int i = n - 1; i >= 0; i--) {
                assertThat(heap.pop()).isEqualTo(keys[i]);
            }
            assertThat(heap.isEmpty()).isTrue();
        }
    }
}
