package dev.ballast.trainer.moe;

import java.util.List;

/**
 * out[t] = residual[t] + sum over slots s of weight[t,s] * y(expert of s)[row of s], and its backward. Slots are
 * summed in slot order whatever rank produced each expert's rows, so the result does not depend on placement.
 */
public final class Combine {

    private Combine() {
    }

    /** Gradients of the combine: per expert dL/dy (rows x dim), per slot dL/dweight. */
    public record Grads(List<float[]> dOutputs, float[] dWeight) {
    }

    public static float[] forward(float[] residual, Routing routing, List<ExpertBatch> batches, List<float[]> outputs,
                                  int dim) {
        float[] out = residual.clone();
        int[] rowOf = rowOfSlot(routing, batches);
        for (int s = 0; s < routing.slots(); s++) {
            int t = s / routing.topK();
            float w = routing.weight()[s];
            float[] y = outputs.get(routing.expert()[s]);
            int r = rowOf[s] * dim;
            for (int j = 0; j < dim; j++) {
                out[t * dim + j] += w * y[r + j];
            }
        }
        return out;
    }

    /** dOut is dL/dout; the residual's gradient is dOut itself, which the caller keeps. */
    public static Grads backward(float[] dOut, Routing routing, List<ExpertBatch> batches, List<float[]> outputs,
                                 int dim) {
        int[] rowOf = rowOfSlot(routing, batches);
        float[] dWeight = new float[routing.slots()];
        List<float[]> dOutputs = new java.util.ArrayList<>(batches.size());
        for (ExpertBatch b : batches) {
            dOutputs.add(new float[b.rows() * dim]);
        }
        for (int s = 0; s < routing.slots(); s++) {
            int t = s / routing.topK();
            float w = routing.weight()[s];
            int e = routing.expert()[s];
            float[] y = outputs.get(e);
            float[] dy = dOutputs.get(e);
            int r = rowOf[s] * dim;
            double dot = 0;
            for (int j = 0; j < dim; j++) {
                float g = dOut[t * dim + j];
                dot += (double) g * y[r + j];
                dy[r + j] = w * g;
            }
            dWeight[s] = (float) dot;
        }
        return new Grads(dOutputs, dWeight);
    }

    /** Adds each expert's input gradient back to its token: dx[t] += dInput(expert of s)[row of s], slot order. */
    public static void addInputGrads(Routing routing, List<ExpertBatch> batches, List<float[]> dInputs, float[] dx,
                                     int dim) {
        int[] rowOf = rowOfSlot(routing, batches);
        for (int s = 0; s < routing.slots(); s++) {
            int t = s / routing.topK();
            float[] g = dInputs.get(routing.expert()[s]);
            int r = rowOf[s] * dim;
            for (int j = 0; j < dim; j++) {
                dx[t * dim + j] += g[r + j];
            }
        }
    }

    private static int[] rowOfSlot(Routing routing, List<ExpertBatch> batches) {
        int[] rowOf = new int[routing.slots()];
        for (ExpertBatch b : batches) {
            for (int r = 0; r < b.rows(); r++) {
                rowOf[b.slots()[r]] = r;
            }
        }
        return rowOf;
    }
}
