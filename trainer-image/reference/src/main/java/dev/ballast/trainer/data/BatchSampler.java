package dev.ballast.trainer.data;

import dev.ballast.trainer.checkpoint.DataStream;
import java.util.SplittableRandom;

/**
 * Batches of positions drawn uniformly from the text by a seeded generator: the same seed gives the same batches.
 * A position needs window - 1 bytes before it and one after it (the target).
 */
public final class BatchSampler {

    private final byte[] text;
    private final int window;
    private final int tokens;
    private final long seed;
    private final SplittableRandom random;
    private long position;

    public BatchSampler(ByteCorpus corpus, int window, int tokens, long seed) {
        if (tokens <= 0) {
            throw new IllegalArgumentException("batch size must be positive, got " + tokens);
        }
        if (corpus.bytes().length < window + 1) {
            throw new IllegalArgumentException("training data " + corpus.source() + " has " + corpus.bytes().length
                    + " bytes; the window of " + window + " needs at least " + (window + 1));
        }
        this.text = corpus.bytes();
        this.window = window;
        this.tokens = tokens;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /** This stream's seed and the positions drawn so far. */
    public DataStream stream() {
        return new DataStream(seed, position);
    }

    /** A sampler like this one at a checkpointed stream: its seed, its draws replayed. */
    public BatchSampler resume(DataStream stream) {
        BatchSampler s = new BatchSampler(text, window, tokens, stream.seed());
        for (long i = 0; i < stream.position(); i++) {
            s.drawPosition();
        }
        return s;
    }

    private BatchSampler(byte[] text, int window, int tokens, long seed) {
        this.text = text;
        this.window = window;
        this.tokens = tokens;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    private int drawPosition() {
        position++;
        return window - 1 + random.nextInt(text.length - window);
    }

    public Batch next() {
        int[] context = new int[tokens * window];
        int[] target = new int[tokens];
        for (int t = 0; t < tokens; t++) {
            int p = drawPosition();
            for (int w = 0; w < window; w++) {
                context[t * window + w] = text[p - w] & 0xff;
            }
            target[t] = text[p + 1] & 0xff;
        }
        return new Batch(tokens, window, context, target);
    }
}
