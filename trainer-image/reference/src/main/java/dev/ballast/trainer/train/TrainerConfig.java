package dev.ballast.trainer.train;

import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import java.nio.file.Path;

/** A single-process training run. batchTokens: positions per step; seed: weights and batches. */
public record TrainerConfig(ModelConfig model, AdamWConfig optimizer, Path data, int steps, int batchTokens,
                            long seed, String backend) {

    public TrainerConfig {
        if (steps < 0) {
            throw new IllegalArgumentException("steps must be >= 0, got " + steps);
        }
        if (batchTokens <= 0) {
            throw new IllegalArgumentException("batch must be positive, got " + batchTokens);
        }
    }
}
