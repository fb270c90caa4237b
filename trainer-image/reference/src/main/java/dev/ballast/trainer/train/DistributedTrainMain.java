package dev.ballast.trainer.train;

import dev.ballast.collectives.CollectiveException;
import dev.ballast.collectives.CommConfig;
import dev.ballast.planner.model.Mode;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.Backends;
import dev.ballast.trainer.checkpoint.Checkpointing;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.parallel.PodRanks;
import dev.ballast.trainer.parallel.RankStepLog;
import dev.ballast.trainer.parallel.RankTrainer;
import dev.ballast.trainer.parallel.TimedComm;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A worker pod's trainer: joins the world the env describes (MASTER_ADDR, NNODES, NODE_RANK, NPROC_PER_NODE, ...;
 * docs/collectives.md) and runs the pod's ranks as threads, data and expert parallel on the static layout
 * (--mode replicate or fssdp). Takes
 * the flags of {@code bin/ballast train} (--batch is per rank); {@code bin/ballast train --pods N --ranks N}
 * runs the same loop with N pods simulated in one JVM. Global rank 0 prints one line per step.
 */
public final class DistributedTrainMain {

    private DistributedTrainMain() {
    }

    public static void main(String[] args) {
        try {
            Map<String, String> flags = TrainMain.parse(args);
            if (flags.containsKey("help")) {
                System.out.print(TrainMain.USAGE);
                return;
            }
            if (flags.containsKey("pods") || flags.containsKey("ranks")) {
                throw new IllegalArgumentException("in a pod NNODES and NPROC_PER_NODE say the pods and ranks; "
                        + "--pods and --ranks are for bin/ballast train's local simulation");
            }
            try (PodRanks pods = PodRanks.join(CommConfig.fromEnv(System.getenv()))) {
                run(flags, pods);
            }
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException | CollectiveException e) {
            System.err.println("ballast trainer: " + e.getMessage());
            System.exit(2);
        }
    }

    /** bin/ballast train --pods N --ranks N: the pods in this JVM, joined over loopback. */
    static void runLocal(Map<String, String> flags, int pods, int ranksPerPod) {
        try (PodRanks world = PodRanks.local(pods, ranksPerPod, Duration.ofMinutes(5))) {
            run(flags, world);
        }
    }

    private static void run(Map<String, String> flags, PodRanks pods) {
        TrainerConfig config = TrainMain.config(flags);
        Mode mode = Mode.parse(flags.getOrDefault("mode", Mode.REPLICATE.wireName()));
        int logEvery = TrainMain.integer(flags, "log-every", 1);
        ByteCorpus corpus = ByteCorpus.load(config.data());
        Checkpointing checkpoints = Checkpointing.fromFlags(flags, System.getenv());
        try {
            run(config, mode, logEvery, corpus, pods, checkpoints, checkpoints.resumeState());
        } finally {
            checkpoints.finished();
        }
    }

    static void run(TrainerConfig config, Mode mode, int logEvery, ByteCorpus corpus, PodRanks pods,
                    Checkpointing checkpoints, Optional<TrainingState> resumed) {
        pods.run((comm, node) -> {
            try (Backend backend = Backends.select(config.backend())) {
                TimedComm timed = new TimedComm(comm);
                RankTrainer trainer = new RankTrainer(config, corpus, backend, timed, node, mode);
                resumed.ifPresent(trainer::restore);
                boolean printer = comm.rank() == 0;
                if (printer) {
                    System.out.printf("data %s (%d bytes), backend %s, model %s, %d ranks on %d pods, batch %d per "
                                    + "rank, seed %d, static layout, %s%n", corpus.source(), corpus.bytes().length,
                            backend.name(), config.model(), comm.worldSize(), node[node.length - 1] + 1,
                            config.batchTokens(), config.seed(), mode.wireName());
                    resumed.ifPresent(r -> System.out.println("resumed from the checkpoint of step " + r.step()));
                }
                for (int s = trainer.completedSteps() + 1; s <= config.steps(); s++) {
                    RankStepLog log = trainer.step(null);
                    float[][] times = comm.allGather(new float[] {log.computeCpuNanos() / 1e6f,
                        log.exchangeNanos() / 1e6f, log.stepNanos() / 1e6f});
                    if (printer && (s % logEvery == 0 || s == config.steps())) {
                        System.out.println(format(log, times));
                    }
                    if (checkpoints.afterStep(trainer, comm)) {
                        break;
                    }
                }
                comm.barrier();
            }
            return null;
        });
    }

    /** loss, the step's wall time (slowest rank), per rank compute (thread CPU) and exchange ms, expert loads. */
    static String format(RankStepLog log, float[][] times) {
        StringBuilder sb = new StringBuilder(String.format("step %5d  loss %.4f", log.step(), log.loss()));
        float slowest = 0;
        for (float[] t : times) {
            slowest = Math.max(slowest, t[2]);
        }
        sb.append(String.format("  step %.1f ms  %.0f tok/s  compute ms [", slowest, log.tokens() * 1e3 / slowest));
        appendColumn(sb, times, 0);
        sb.append("]  exchange ms [");
        appendColumn(sb, times, 1);
        sb.append(']');
        for (int l = 0; l < log.counts().length; l++) {
            sb.append(String.format("  L%d max/mean %.2f", l, StepLog.imbalance(log.counts()[l])));
        }
        return sb.toString();
    }

    private static void appendColumn(StringBuilder sb, float[][] times, int column) {
        for (int r = 0; r < times.length; r++) {
            sb.append(r == 0 ? "" : ", ").append(String.format("%.1f", times[r][column]));
        }
    }
}
