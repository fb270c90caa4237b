package dev.ballast.trainer.moe;

/**
 * A layer's routing of one batch: per token its top-k experts (best first) and their renormalized weights, and per
 * expert how many (token, slot) pairs it received: the loads a trainer reports. Slot s of token t is index
 * t * topK + s.
 */
public record Routing(int tokens, int topK, int experts, int[] expert, float[] weight, int[] counts) {

    public Routing {
        if (expert.length != tokens * topK || weight.length != tokens * topK || counts.length != experts) {
            throw new IllegalArgumentException("routing arrays do not match " + tokens + " tokens, top-" + topK
                    + ", " + experts + " experts");
        }
    }

    public int slots() {
        return tokens * topK;
    }
}
