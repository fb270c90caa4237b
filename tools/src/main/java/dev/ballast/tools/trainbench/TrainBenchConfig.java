package dev.ballast.tools.trainbench;

import static dev.ballast.trainer.train.TrainMain.integer;
import static dev.ballast.trainer.train.TrainMain.number;

import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import dev.ballast.trainer.train.TrainerConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code bin/ballast trainbench} runs: the model, the per-rank batch, the seed (the same for every run), the
 * simulated world (pods x ranks in one JVM), the runs' length and skipped first steps, the redundant slots the
 * planners may fill, and how long the calibration measures (thread CPU seconds for the GEMM; all-to-alls: 60 per
 * second of it, at least 5). {@link #smoke()} is a tiny, few-step version for tests and CI.
 */
public record TrainBenchConfig(ModelConfig model, int batch, long seed, int pods, int ranksPerPod, int steps,
                               int skipSteps, int redundantSlots, double calibrationSeconds) {

    static final String USAGE = """
            usage: bin/ballast trainbench [flags]
              --smoke           a tiny model for a few steps (the code path in seconds, no meaningful figures)
              --dim N --ffn-dim N --layers N --experts N --top-k N --window N   model (default 64, 256, 2, 8, 2, 8)
              --routing-skew S  BENCHMARKS ONLY: bias the gate towards low expert ids (default 1.5)
              --batch N         token positions per rank and step (default 256)
              --seed N          weights and batches, the same for every run (default 1)
              --steps N         steps of the warm-up run and of each measured run (default 40)
              --skip N          first steps of each measured run left out of the figures (default 5)
              --slots N         redundant expert slots per rank (default 2, the project's default)
            """;

    public TrainBenchConfig {
        if (pods < 1 || ranksPerPod < 1) {
            throw new IllegalArgumentException("a world needs at least one pod of one rank");
        }
        if (steps < 1) {
            throw new IllegalArgumentException("--steps must be at least 1, got " + steps);
        }
        if (skipSteps < 0 || skipSteps >= steps) {
            throw new IllegalArgumentException("--skip must leave at least one measured step: " + skipSteps + " of "
                    + steps + " steps");
        }
        if (batch < 1) {
            throw new IllegalArgumentException("--batch must be positive, got " + batch);
        }
        if (!(calibrationSeconds > 0)) {
            throw new IllegalArgumentException("the calibration needs a positive time, got " + calibrationSeconds);
        }
        if (redundantSlots < 0) {
            throw new IllegalArgumentException("--slots must be >= 0, got " + redundantSlots);
        }
    }

    /** A few steps of a tiny model: exercises every part of the bench in seconds. */
    public static TrainBenchConfig smoke() {
        return new TrainBenchConfig(new ModelConfig(4, 8, 16, 2, 8, 2, 1.5f), 16, 1, 2, 2, 4, 1, 2, 0.05);
    }

    public int worldSize() {
        return pods * ranksPerPod;
    }

    /** One run of this model, seed and batch, steps long (the trainer's config; the data is the licence texts). */
    TrainerConfig trainer(int runSteps) {
        return new TrainerConfig(model, AdamWConfig.defaults(), ByteCorpus.DEFAULT, runSteps, batch, seed, "java");
    }

    static TrainBenchConfig parse(String[] args) {
        Map<String, String> f = new LinkedHashMap<>();
        boolean smoke = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--smoke")) {
                smoke = true;
                continue;
            }
            if (!a.startsWith("--") || !USAGE.contains(" " + a + " ")) {
                throw new IllegalArgumentException("unknown flag '" + a + "'");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            f.put(a.substring(2), args[++i]);
        }
        TrainBenchConfig d = smoke ? smoke() : new TrainBenchConfig(new ModelConfig(8, 64, 256, 2, 8, 2, 1.5f), 256, 1,
                2, 2, 40, 5, 2, 1.0);
        ModelConfig m = d.model();
        ModelConfig model = new ModelConfig(integer(f, "window", m.window()), integer(f, "dim", m.dim()),
                integer(f, "ffn-dim", m.ffnDim()), integer(f, "layers", m.layers()),
                integer(f, "experts", m.experts()), integer(f, "top-k", m.topK()),
                f.containsKey("routing-skew") ? number(f, "routing-skew") : m.routingSkew());
        return new TrainBenchConfig(model, integer(f, "batch", d.batch()), integer(f, "seed", (int) d.seed()),
                d.pods(), d.ranksPerPod(), integer(f, "steps", d.steps()), integer(f, "skip", d.skipSteps()),
                integer(f, "slots", d.redundantSlots()), d.calibrationSeconds());
    }
}
