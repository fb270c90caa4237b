package dev.ballast.planner.model;

/**
 * EP group size, data-parallel copies of the EP group and pipeline stages.
 * GPU rank layout: stage-major, then data-parallel copy, then EP rank (EP groups are contiguous ranks,
 * so an EP group of 8 on 8-GPU nodes is one NVLink domain).
 */
public record Parallelism(int ep, int dp, int pp) {
    public Parallelism {
        if (ep <= 0 || dp <= 0 || pp <= 0) {
            throw new IllegalArgumentException("ep, dp and pp must be positive, got ep=" + ep + " dp=" + dp + " pp=" + pp);
        }
    }

    /**
     * Resolves the layout for a world: {@code ep} null means min(experts, gpus/pp) (docs/planner.md, "CLI").
     * Fails with a message when the GPUs do not divide into EP groups.
     */
    public static Parallelism resolve(int gpus, int experts, Integer ep, int pp) {
        if (pp <= 0 || gpus % pp != 0) {
            throw new IllegalArgumentException("pipeline stages " + pp + " do not divide " + gpus + " GPUs");
        }
        int perStage = gpus / pp;
        int e = ep == null ? Math.min(experts, perStage) : ep;
        if (e <= 0 || e > experts) {
            throw new IllegalArgumentException("EP group size " + e + " must be in [1, experts=" + experts + "]");
        }
        if (perStage % e != 0) {
            throw new IllegalArgumentException("EP group size " + e + " does not divide the " + perStage + " GPUs of a stage");
        }
        return new Parallelism(e, perStage / e, pp);
    }

    public int gpus() {
        return ep * dp * pp;
    }

    /** Stage s owns layers [firstLayer(s), firstLayer(s+1)). */
    public int firstLayer(int stage, int layers) {
        return (int) ((long) stage * layers / pp);
    }

    public int stageOf(int layer, int layers) {
        if (layer < 0 || layer >= layers) {
            throw new IllegalArgumentException("layer " + layer + " outside [0, " + layers + ")");
        }
        int s = (int) ((long) layer * pp / layers);
        while (s + 1 < pp && firstLayer(s + 1, layers) <= layer) {
            s++;
        }
        while (firstLayer(s, layers) > layer) {
            s--;
        }
        return s;
    }

    /** Global GPU rank of EP rank {@code local} in data-parallel copy {@code copy} of stage {@code stage}. */
    public int gpu(int stage, int copy, int local) {
        return (stage * dp + copy) * ep + local;
    }

    @Override
    public String toString() {
        return "ep=" + ep + ",dp=" + dp + ",pp=" + pp;
    }
}
