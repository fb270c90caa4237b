package dev.ballast.tools.trainbench;

import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.collectives.CollectiveException;
import dev.ballast.tools.bench.Machine;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.parallel.PodRanks;
import dev.ballast.trainer.parallel.RankStepLog;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/ballast trainbench}: the reference trainer, 4 ranks on 2 pods simulated in this JVM (real gRPC
 * collectives over loopback), Java backend, under the static, eplb and ballast plans in replicate and FSSDP modes,
 * every run from the same seed on the same data (docs/BENCHMARKS.md, "Reference trainer"). In order: the GEMM rate;
 * a warm-up run on the static layout whose routing the planners plan from (it also lets the JIT compile the rest);
 * the all-to-all rates (the calibration of the cost model's constants, apart from the compared runs); then one run
 * per mode and plan, the plan fixed for the whole run. Progress goes to stderr, the tables to stdout.
 */
public final class TrainBench {

    private TrainBench() {
    }

    public static void main(String[] args) {
        // The agent's JBoss LogManager on the tools classpath would turn on Netty's frame hex-dumps (CommBench).
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        TrainBenchConfig config;
        try {
            if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
                System.out.print(TrainBenchConfig.USAGE);
                return;
            }
            config = TrainBenchConfig.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bin/ballast trainbench: " + e.getMessage());
            System.err.print(TrainBenchConfig.USAGE);
            System.exit(2);
            return;
        }
        String loadBefore = Machine.loadAverage();
        long t0 = System.nanoTime();
        TrainBenchReport report;
        try {
            report = run(config, System.err);
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException | CollectiveException e) {
            System.err.println("bin/ballast trainbench: " + e.getMessage());
            System.exit(2);
            return;
        }
        Machine m = Machine.current();
        System.out.printf(Locale.ROOT, "Machine: %d CPUs (%s), %s; load average %s at the start, %s at the end; "
                + "%.0f s.%n%n", m.cpus(), m.cpuModel(), m.jdk(), loadBefore, Machine.loadAverage(),
                (System.nanoTime() - t0) / 1e9);
        System.out.println(describe(config, report.calibration()));
        System.out.print(report.markdown());
        if (!report.lossesAgree()) {
            System.err.println("bin/ballast trainbench: the plans changed the loss by " + report.maxLossDeviation()
                    + " relative (tolerance " + TrainBenchReport.LOSS_TOLERANCE + ")");
            System.exit(1);
        }
    }

    /** The whole benchmark; progress lines on progress (null: silent). */
    public static TrainBenchReport run(TrainBenchConfig config, PrintStream progress) {
        ByteCorpus corpus = ByteCorpus.load(ByteCorpus.DEFAULT);
        try (PodRanks world = PodRanks.local(config.pods(), config.ranksPerPod(), Duration.ofMinutes(2))) {
            TrainRuns runs = new TrainRuns(world, corpus, progress);
            // The GEMM first, on one thread: in a JVM whose first GEMMs ran on four rank threads at once on a loaded
            // machine the Vector API kernel stayed 13x slower throughout (4.4 against 58 GFLOP per CPU-second).
            double gemm = gemmRate(config);
            List<List<RankStepLog>> warmup = runs.run(config.trainer(config.steps()), Mode.REPLICATE, null,
                    "warm-up, static layout");
            Calibration calibration = calibrate(config, gemm, world, progress);
            Topology topology = calibration.topology(config.pods(), config.ranksPerPod());
            ModelLoads predicted = BenchPlans.predicted(warmup, config.skipSteps(),
                    config.model().experts());
            List<TrainBenchReport.Row> rows = new ArrayList<>();
            for (Mode mode : List.of(Mode.REPLICATE, Mode.FSSDP)) {
                PlanningContext ctx = BenchPlans.context(config, topology, mode);
                for (String planner : BenchPlans.PLANNERS) {
                    Plan plan = BenchPlans.plan(planner, ctx, predicted);
                    MeasuredRun run = new MeasuredRun(planner, mode, config.skipSteps(),
                            runs.run(config.trainer(config.steps()), mode, plan, planner + " " + mode.wireName()));
                    rows.add(new TrainBenchReport.Row(run, plan, Prediction.of(ctx, plan, run)));
                }
            }
            return new TrainBenchReport(calibration, rows);
        }
    }

    /** The expert GEMMs' rate at the mean rows per expert (all ranks' assignments over the experts). */
    static double gemmRate(TrainBenchConfig config) {
        int rows = Math.max(1, config.batch() * config.model().topK() * config.worldSize() / config.model().experts());
        return Calibration.gemmRate(config.model(), rows, config.calibrationSeconds());
    }

    /** The calibration with the all-to-all rates at the message a rank sends each peer under uniform routing. */
    static Calibration calibrate(TrainBenchConfig config, double gemm, PodRanks world, PrintStream progress) {
        int calls = Math.max(5, (int) (60 * config.calibrationSeconds()));
        int bytes = Math.max(Float.BYTES, config.batch() * config.model().topK() * config.model().dim() * Float.BYTES
                / config.worldSize());
        double intra = Calibration.allToAllRate(world, config.ranksPerPod(), bytes, calls, false);
        double cross = Calibration.allToAllRate(world, config.ranksPerPod(), bytes, calls, true);
        Calibration c = new Calibration(gemm, intra, cross);
        if (progress != null) {
            progress.printf(Locale.ROOT, "[trainbench] calibration: GEMM %.1f GFLOP per CPU-second, all-to-all "
                    + "%.1f MB/s within a pod, %.1f MB/s between pods (%d bytes per peer)%n", gemm / 1e9, intra / 1e6,
                    cross / 1e6, bytes);
        }
        return c;
    }

    static String describe(TrainBenchConfig c, Calibration cal) {
        return String.format(Locale.ROOT, "Model %s, batch %d per rank, seed %d, %d ranks on %d pods, %d steps per "
                + "run (the warm-up on the static layout, then one per mode and plan), first %d left out; plans from "
                + "the warm-up's mean per-rank counts over the measured steps. "
                + "Calibration (separate run): GEMM %.1f GFLOP per CPU-second; all-to-all %.0f MB/s within a pod, "
                + "%.0f MB/s between pods (payload per rank, wall clock).%n", c.model(), c.batch(), c.seed(),
                c.worldSize(), c.pods(), c.steps(), c.skipSteps(), cal.gemmFlopsPerSecond() / 1e9,
                cal.intraPodBytesPerSecond() / 1e6, cal.crossPodBytesPerSecond() / 1e6);
    }
}
