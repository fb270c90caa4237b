package dev.ballast.trainer.moe;

import java.util.ArrayList;
import java.util.List;

/** Routing -> one batch per expert (empty batches included, so the list index is the expert id). */
public final class Dispatch {

    private Dispatch() {
    }

    public static List<ExpertBatch> batches(int layer, Routing routing, float[] x, int dim) {
        int[][] slots = new int[routing.experts()][];
        int[] fill = new int[routing.experts()];
        for (int e = 0; e < routing.experts(); e++) {
            slots[e] = new int[routing.counts()[e]];
        }
        for (int s = 0; s < routing.slots(); s++) {
            int e = routing.expert()[s];
            slots[e][fill[e]++] = s;
        }
        List<ExpertBatch> batches = new ArrayList<>(routing.experts());
        for (int e = 0; e < routing.experts(); e++) {
            float[] input = new float[slots[e].length * dim];
            for (int r = 0; r < slots[e].length; r++) {
                int token = slots[e][r] / routing.topK();
                System.arraycopy(x, token * dim, input, r * dim, dim);
            }
            batches.add(new ExpertBatch(layer, e, slots[e], input, dim));
        }
        return batches;
    }
}
