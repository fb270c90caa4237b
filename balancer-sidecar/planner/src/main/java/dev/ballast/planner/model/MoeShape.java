package dev.ballast.planner.model;

import java.util.Locale;

/**
 * Shape of the MoE part of a model. An expert is a gated FFN with {@code ffnMatrices} H×F matrices
 * (3 for SwiGLU). Byte sizes are per parameter.
 */
public record MoeShape(String name, int layers, int experts, int topK, int sharedExperts, int hidden, int ffn,
                       int bytesPerParam, int gradBytesPerParam, int optimizerBytesPerParam, int ffnMatrices) {
    public MoeShape {
        if (layers <= 0 || experts <= 0 || topK <= 0 || topK > experts || sharedExperts < 0 || hidden <= 0 || ffn <= 0
                || bytesPerParam <= 0 || gradBytesPerParam <= 0 || optimizerBytesPerParam < 0 || ffnMatrices <= 0) {
            throw new IllegalArgumentException("invalid MoE shape " + name + ": layers=" + layers + " experts=" + experts
                    + " topK=" + topK + " hidden=" + hidden + " ffn=" + ffn);
        }
    }

    /** Generic shape for models the bench does not know (docs/cost-model.md): hidden 2048, FFN 1024, 2 bytes per parameter. */
    public static MoeShape generic(String name, int layers, int experts, int topK) {
        return new MoeShape(name, layers, experts, topK, 0, 2048, 1024, 2, 2, 12, 3);
    }

    /**
     * Known shapes by model name (OLMoE-1B-7B: hidden 2048, FFN 1024, 64 experts, top-8;
     * Mixtral-8x7B: hidden 4096, FFN 14336, 8 experts, top-2); others get {@link #generic}.
     * {@code layers}, {@code experts} and {@code topK} come from the trace so a 3-layer sample stays 3 layers.
     */
    public static MoeShape forModel(String model, int layers, int experts, int topK) {
        String m = model == null ? "" : model.toLowerCase(Locale.ROOT);
        if (m.startsWith("olmoe")) {
            return new MoeShape(model, layers, experts, topK, 0, 2048, 1024, 2, 2, 12, 3);
        }
        if (m.startsWith("mixtral")) {
            return new MoeShape(model, layers, experts, topK, 0, 4096, 14336, 2, 2, 12, 3);
        }
        return generic(model == null ? "generic" : model, layers, experts, topK);
    }

    public long paramsPerExpert() {
        return (long) ffnMatrices * hidden * ffn;
    }

    public long weightBytesPerExpert() {
        return paramsPerExpert() * bytesPerParam;
    }

    public long gradBytesPerExpert() {
        return paramsPerExpert() * gradBytesPerParam;
    }

    /** Forward FLOPs of one token-to-expert assignment (one multiply-add per parameter). */
    public double forwardFlopsPerAssignment() {
        return 2.0 * paramsPerExpert();
    }

    /** Bytes of one token's activation in one all-to-all (bf16 hidden vector). */
    public long tokenBytes() {
        return (long) hidden * 2;
    }
}
