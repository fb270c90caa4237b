package dev.ballast.trainer.train;

import dev.ballast.collectives.CollectiveException;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.Backends;
import dev.ballast.trainer.checkpoint.Checkpointing;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** `bin/ballast train`: trains the model in this process and prints one line per step. */
public final class TrainMain {

    static final String USAGE = """
            usage: bin/ballast train [flags]
              --data PATH       a text file, or a directory of them (default /usr/share/common-licenses)
              --steps N         training steps (default 300)
              --batch N         token positions per step (default 256)
              --seed N          weights and batches (default 1); same seed, same losses on the Java backend
              --lr X            AdamW learning rate (default 0.003)
              --window N        bytes of context per position (default 8)
              --dim N           model width (default 64)
              --ffn-dim N       expert hidden width (default 128)
              --layers N        MoE blocks (default 2)
              --experts N       experts per block (default 8)
              --top-k N         experts per token (default 2)
              --routing-skew S  BENCHMARKS ONLY: bias the gate towards low expert ids, odds of expert e times
                                (1 + e)^-S, on top of what it learns (default 0: the learned gate alone)
              --backend B       auto (JCuda when a CUDA driver is present, else Java), java or jcuda (default auto)
              --log-every N     print every Nth step (default 1)
              --pods N          simulate N pods in this JVM (loopback gRPC between them), expert parallel
              --ranks N         ranks (threads) per simulated pod (default 1); --batch is then per rank
              --mode M          expert state when distributed: replicate (at each expert's home rank) or fssdp
                                (sharded over all ranks) (default replicate)
              --sidecar URLS    each simulated pod's Ballast sidecar, one URL per pod, comma-separated: every rank
                                reports its routing there each step and adopts the plans (default: none, the static
                                layout; a worker pod uses BALLAST_SIDECAR_URL)
              --trace FILE      write every step's routing, one source per rank, as ballast-trace/v1 to FILE
              --checkpoint-dir D  checkpoints go here, and the run resumes from D/latest if it exists
                                (default $BALLAST_CHECKPOINT_DIR; none: no checkpoints); also saved on SIGTERM
              --checkpoint-every N  save every N steps (default 0: only on SIGTERM)
            """;

    private TrainMain() {
    }

    public static void main(String[] args) {
        Map<String, String> flags;
        try {
            flags = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bin/ballast train: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        if (flags.containsKey("help")) {
            System.out.print(USAGE);
            return;
        }
        try {
            run(flags);
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException | CollectiveException e) {
            System.err.println("bin/ballast train: " + e.getMessage());
            System.exit(2);
        }
    }

    private static void run(Map<String, String> f) {
        if (Stream.of("pods", "ranks", "mode", "sidecar", "trace").anyMatch(f::containsKey)) {
            DistributedTrainMain.runLocal(f, integer(f, "pods", 1), integer(f, "ranks", 1));
            return;
        }
        TrainerConfig config = config(f);
        int logEvery = integer(f, "log-every", 1);
        ByteCorpus corpus = ByteCorpus.load(config.data());
        Checkpointing checkpoints = Checkpointing.fromFlags(f, System.getenv());
        try (Backend backend = Backends.select(config.backend())) {
            System.out.printf("data %s (%d bytes), backend %s, model %s, batch %d, seed %d%n", corpus.source(),
                    corpus.bytes().length, backend.name(), config.model(), config.batchTokens(), config.seed());
            Trainer trainer = new Trainer(config, corpus, backend);
            checkpoints.resumeState().ifPresent(state -> {
                trainer.restore(state);
                System.out.println("resumed from the checkpoint of step " + state.step());
            });
            for (int s = trainer.completedSteps() + 1; s <= config.steps(); s++) {
                StepLog log = trainer.step();
                if (s % logEvery == 0 || s == config.steps()) {
                    System.out.println(log.format());
                }
                if (checkpoints.afterStep(trainer, null)) {
                    break;
                }
            }
        } finally {
            checkpoints.finished();
        }
    }

    /** The run the flags describe (model, optimizer, data, steps, batch, seed, backend). */
    static TrainerConfig config(Map<String, String> f) {
        ModelConfig defaults = ModelConfig.defaults();
        ModelConfig model = new ModelConfig(integer(f, "window", defaults.window()), integer(f, "dim", defaults.dim()),
                integer(f, "ffn-dim", defaults.ffnDim()), integer(f, "layers", defaults.layers()),
                integer(f, "experts", defaults.experts()), integer(f, "top-k", defaults.topK()),
                f.containsKey("routing-skew") ? number(f, "routing-skew") : 0f);
        AdamWConfig adam = AdamWConfig.defaults();
        if (f.containsKey("lr")) {
            adam = adam.withLr(number(f, "lr"));
        }
        Path data = Path.of(f.getOrDefault("data", ByteCorpus.DEFAULT.toString()));
        return new TrainerConfig(model, adam, data, integer(f, "steps", 300),
                integer(f, "batch", 256), integer(f, "seed", 1), f.getOrDefault("backend", "auto"));
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> flags = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                flags.put("help", "");
                continue;
            }
            if (!a.startsWith("--") || !USAGE.contains("  " + a + " ")) {
                throw new IllegalArgumentException("unknown flag '" + a + "'");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            flags.put(a.substring(2), args[++i]);
        }
        return flags;
    }

    /** Flag --name as a whole number (fallback when absent), or an error naming the flag and the value. */
    public static int integer(Map<String, String> f, String name, int fallback) {
        String v = f.get(name);
        try {
            return v == null ? fallback : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " wants a whole number, got '" + v + "'");
        }
    }

    /** Flag --name as a number, or an error naming the flag and the value. */
    public static float number(Map<String, String> f, String name) {
        String v = f.get(name);
        try {
            return Float.parseFloat(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " wants a number, got '" + v + "'");
        }
    }
}
