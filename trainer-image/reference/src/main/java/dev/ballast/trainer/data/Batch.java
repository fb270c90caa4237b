package dev.ballast.trainer.data;

/**
 * tokens positions of the text: context[t * window + w] is the byte w positions before position t (w = 0: the
 * byte at t), target[t] the byte after t, the one the model predicts.
 */
public record Batch(int tokens, int window, int[] context, int[] target) {

    public Batch {
        if (context.length != tokens * window || target.length != tokens) {
            throw new IllegalArgumentException("batch of " + tokens + " tokens with window " + window
                    + " has " + context.length + " context bytes and " + target.length + " targets");
        }
    }
}
