package dev.ballast.tools.trainbench;

import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import dev.ballast.trainer.train.TrainerConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code bin/ballast trainbench} runs: the model, the per-rank batch, the seed (the same for every run), the
 * simulated world (pods x ranks in one JVM), the warm-up run the plans are computed from, and the measured runs'
 * length and skipped first steps. {@link #smoke()} is a tiny, few-step version for tests and CI.
 */
public record TrainBenchConfig(ModelConfig model, int batch, long seed, int pods, int ranksPerPod, int warmupSteps,
                               int steps, int skipSteps, int redundantSlots) {

    static final String USAGE = """
            usage: bin/ballast trainbench [flags]
              --smoke           a tiny model for a few steps (the code path in seconds, no meaningful figures)
              --dim N --ffn-dim N --layers N --experts N --top-k N --window N   model (default 64, 256, 2, 8, 2, 8)
              --routing-skew S  BENCHMARKS ONLY: bias the gate towards low expert ids (default 1.5)
              --batch N         token positions per rank and step (default 256)
              --seed N          weights and batches, the same for every run (default 1)
              --warmup N        steps of the static-layout run the plans are computed from (default 60)
              --steps N         steps of each measured run (default 40)
              --skip N          first steps of each measured run left out of the figures (default 5)
              --slots N         redundant expert slots per rank (default 2, the project's default)
            """;

    public TrainBenchConfig {
        if (pods < 1 || ranksPerPod < 1) {
            throw new IllegalArgumentException("a world needs at least one pod of one rank");
        }
        if (warmupSteps < 1 || steps < 1) {
            throw new IllegalArgumentException("--warmup and --steps must be at least 1, got " + warmupSteps + " and "
                    + steps);
        }
        if (skipSteps < 0 || skipSteps >= steps) {
            throw new IllegalArgumentException("--skip must leave at least one measured step: " + skipSteps + " of "
                    + steps + " steps");
        }
        if (batch < 1) {
            throw new IllegalArgumentException("--batch must be positive, got " + batch);
        }
        if (redundantSlots < 0) {
            throw new IllegalArgumentException("--slots must be >= 0, got " + redundantSlots);
        }
    }

    /** A few steps of a tiny model: exercises every part of the bench in seconds. */
    public static TrainBenchConfig smoke() {
        return new TrainBenchConfig(new ModelConfig(4, 8, 16, 2, 8, 2, 1.5f), 16, 1, 2, 2, 4, 4, 1, 2);
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
                2, 2, 60, 40, 5, 2);
        ModelConfig m = d.model();
        ModelConfig model = new ModelConfig(integer(f, "window", m.window()), integer(f, "dim", m.dim()),
                integer(f, "ffn-dim", m.ffnDim()), integer(f, "layers", m.layers()),
                integer(f, "experts", m.experts()), integer(f, "top-k", m.topK()),
                f.containsKey("routing-skew") ? number(f, "routing-skew") : m.routingSkew());
        return new TrainBenchConfig(model, integer(f, "batch", d.batch()), integer(f, "seed", (int) d.seed()),
                d.pods(), d.ranksPerPod(), integer(f, "warmup", d.warmupSteps()), integer(f, "steps", d.steps()),
                integer(f, "skip", d.skipSteps()), integer(f, "slots", d.redundantSlots()));
    }

    private static int integer(Map<String, String> f, String name, int fallback) {
        String v = f.get(name);
        try {
            return v == null ? fallback : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " wants a whole number, got '" + v + "'");
        }
    }

    private static float number(Map<String, String> f, String name) {
        String v = f.get(name);
        try {
            return Float.parseFloat(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " wants a number, got '" + v + "'");
        }
    }
}
