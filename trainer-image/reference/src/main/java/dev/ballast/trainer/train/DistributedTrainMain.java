package dev.ballast.trainer.train;

import dev.ballast.client.HttpSidecarClient;
import dev.ballast.client.SidecarApi;
import dev.ballast.client.StepTiming;
import dev.ballast.collectives.CollectiveException;
import dev.ballast.collectives.CommConfig;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.plan.PlanVersions;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.Backends;
import dev.ballast.trainer.checkpoint.Checkpointing;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.loop.AdoptedStep;
import dev.ballast.trainer.loop.RoutingTrace;
import dev.ballast.trainer.loop.SidecarLoop;
import dev.ballast.trainer.parallel.PodRanks;
import dev.ballast.trainer.parallel.RankStepLog;
import dev.ballast.trainer.parallel.RankTrainer;
import dev.ballast.trainer.parallel.TimedComm;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * A worker pod's trainer: joins the world the env describes (MASTER_ADDR, NNODES, NODE_RANK, NPROC_PER_NODE, ...;
 * docs/collectives.md) and runs the pod's ranks as threads, data and expert parallel (--mode replicate or fssdp)
 * under the plans its sidecar (BALLAST_SIDECAR_URL) serves, adopted by the adoption rule; each rank reports its
 * routing counts every step. Without a sidecar, the static layout. --trace FILE writes the routing as
 * ballast-trace/v1 (global rank 0). Takes
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
            if (flags.containsKey("sidecar")) {
                throw new IllegalArgumentException("in a pod BALLAST_SIDECAR_URL names the pod's sidecar; --sidecar is "
                        + "for bin/ballast train's local simulation");
            }
            String url = System.getenv("BALLAST_SIDECAR_URL");
            try (PodRanks pods = PodRanks.join(CommConfig.fromEnv(System.getenv()));
                 HttpSidecarClient sidecar = url == null ? null : new HttpSidecarClient(url)) {
                run(flags, pods, sidecar == null ? null : pod -> sidecar);
            }
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException | CollectiveException e) {
            System.err.println("ballast trainer: " + e.getMessage());
            System.exit(2);
        }
    }

    /**
     * bin/ballast train --pods N --ranks N: the pods in this JVM, joined over loopback; --sidecar URL,... names each
     * pod's sidecar (one URL per pod, in pod order).
     */
    static void runLocal(Map<String, String> flags, int pods, int ranksPerPod) {
        List<HttpSidecarClient> sidecars = new ArrayList<>();
        if (flags.containsKey("sidecar")) {
            String[] urls = flags.get("sidecar").split(",", -1);
            if (urls.length != pods) {
                throw new IllegalArgumentException("--sidecar wants one URL per pod (" + pods + "), got " + urls.length);
            }
            for (String url : urls) {
                sidecars.add(new HttpSidecarClient(url));
            }
        }
        try (PodRanks world = PodRanks.local(pods, ranksPerPod, Duration.ofMinutes(5))) {
            run(flags, world, sidecars.isEmpty() ? null : sidecars::get);
        } finally {
            sidecars.forEach(HttpSidecarClient::close);
        }
    }

    /**
     * Trains on pods' ranks; sidecarOfPod (null: no sidecar, the static layout throughout) gives each pod's sidecar,
     * to which every rank reports each step and from which it adopts plans by the adoption rule. Returns what every
     * rank ran, by global rank and step.
     */
    static List<List<AdoptedStep>> run(Map<String, String> flags, PodRanks pods,
                                       IntFunction<SidecarApi> sidecarOfPod) {
        TrainerConfig config = TrainMain.config(flags);
        Mode mode = Mode.parse(flags.getOrDefault("mode", Mode.REPLICATE.wireName()));
        int logEvery = TrainMain.integer(flags, "log-every", 1);
        Path traceFile = flags.containsKey("trace") ? Path.of(flags.get("trace")) : null;
        ByteCorpus corpus = ByteCorpus.load(config.data());
        Checkpointing checkpoints = Checkpointing.fromFlags(flags, System.getenv());
        try {
            return run(config, mode, logEvery, corpus, pods, checkpoints, checkpoints.resumeState(), sidecarOfPod,
                    traceFile);
        } finally {
            checkpoints.finished();
        }
    }

    private static List<List<AdoptedStep>> run(TrainerConfig config, Mode mode, int logEvery, ByteCorpus corpus,
            PodRanks pods, Checkpointing checkpoints, Optional<TrainingState> resumed,
            IntFunction<SidecarApi> sidecarOfPod, Path traceFile) {
        return pods.run((comm, node) -> {
            List<AdoptedStep> ran = new ArrayList<>();
            boolean printer = comm.rank() == 0;
            SidecarLoop loop = sidecarOfPod == null ? null
                    : new SidecarLoop(sidecarOfPod.apply(node[comm.rank()]), comm, pods.generation());
            try (Backend backend = Backends.select(config.backend());
                 RoutingTrace trace = printer && traceFile != null ? RoutingTrace.create(traceFile,
                         "ballast-reference", config.model().layers(), config.model().experts(), comm.worldSize(),
                         config.model().topK(), origin(config, mode)) : null) {
                TimedComm timed = new TimedComm(comm);
                RankTrainer trainer = new RankTrainer(config, corpus, backend, timed, node, mode);
                resumed.ifPresent(trainer::restore);
                if (printer) {
                    System.out.printf("data %s (%d bytes), backend %s, model %s, %d ranks on %d pods, batch %d per "
                                    + "rank, seed %d, %s, %s%n", corpus.source(), corpus.bytes().length,
                            backend.name(), config.model(), comm.worldSize(), node[node.length - 1] + 1,
                            config.batchTokens(), config.seed(),
                            loop == null ? "static layout" : "plans from the sidecars", mode.wireName());
                    resumed.ifPresent(r -> System.out.println("resumed from the checkpoint of step " + r.step()));
                }
                PlanVersion inUse = PlanVersions.staticOf(pods.generation());
                for (int s = trainer.completedSteps() + 1; s <= config.steps(); s++) {
                    Plan plan = loop == null ? null : loop.beforeStep(s);
                    if (loop != null && !loop.adopted().equals(inUse)) {
                        inUse = loop.adopted();
                        System.out.println(adoption(comm.rank(), node[comm.rank()], inUse, s));
                    }
                    RankStepLog log = trainer.step(plan);
                    if (loop != null) {
                        loop.afterStep(s, log.rankCounts(), new StepTiming(log.stepNanos(), log.computeCpuNanos()));
                    }
                    if (traceFile != null) {
                        long[][][] all = RoutingTrace.gather(comm, log.rankCounts());
                        if (trace != null) {
                            trace.append(s, all);
                        }
                    }
                    PlanVersion adopted = loop == null ? PlanVersions.staticOf(pods.generation()) : loop.adopted();
                    ran.add(new AdoptedStep(comm.rank(), s, log.loss(), adopted));
                    float[][] times = comm.allGather(new float[] {log.computeCpuNanos() / 1e6f,
                        log.exchangeNanos() / 1e6f, log.stepNanos() / 1e6f});
                    if (printer && (s % logEvery == 0 || s == config.steps())) {
                        System.out.println(format(log, times, adopted));
                    }
                    if (checkpoints.afterStep(trainer, comm)) {
                        break;
                    }
                }
                comm.barrier();
                if (!ran.isEmpty()) {
                    System.out.println(finished(comm.rank(), node[comm.rank()], ran.get(ran.size() - 1)));
                }
            }
            return ran;
        });
    }

    /**
     * Every rank, each time it adopts a plan: what its own pod's log shows, so that a reader of all pods' logs sees that
     * every rank adopted each plan at the same step (the adoption rule's all-reduce spans all pods).
     */
    static String adoption(int rank, int pod, PlanVersion version, long step) {
        return String.format("rank %d (pod %d) adopted plan %s at step %d", rank, pod, version, step);
    }

    /**
     * Every rank, at the end: its last step, its loss (the mean over all ranks' tokens, an all-reduce across pods: the
     * same bits on every rank, printed exactly) and its plan.
     */
    static String finished(int rank, int pod, AdoptedStep last) {
        return String.format("rank %d (pod %d) finished step %d: loss %s, plan %s", rank, pod, last.step(),
                Double.toString(last.loss()), last.adopted());
    }

    private static String origin(TrainerConfig config, Mode mode) {
        return String.format("ballast reference trainer, seed %d, batch %d per rank, %s, routing-skew %s",
                config.seed(), config.batchTokens(), mode.wireName(), config.model().routingSkew());
    }

    /**
     * loss, the adopted plan version, the step's wall time (slowest rank), per rank compute (thread CPU) and exchange
     * ms, expert loads.
     */
    static String format(RankStepLog log, float[][] times, PlanVersion adopted) {
        StringBuilder sb = new StringBuilder(String.format("step %5d  loss %.4f  plan %s", log.step(), log.loss(),
                adopted));
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
