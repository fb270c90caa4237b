package dev.ballast.trainer.checkpoint;

/** One logical batch stream: its seed and how many positions it has drawn (resuming replays that many draws). */
public record DataStream(long seed, long position) {

    public DataStream {
        if (position < 0) {
            throw new IllegalArgumentException("a data stream's position is >= 0, got " + position);
        }
    }
}
