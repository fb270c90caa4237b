package dev.ballast.tools.trainbench;

import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.parallel.PodRanks;
import dev.ballast.trainer.parallel.RankStepLog;
import dev.ballast.trainer.parallel.RankTrainer;
import dev.ballast.trainer.parallel.TimedComm;
import dev.ballast.trainer.train.TrainerConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the reference trainer on the simulated pods: every run starts from the seed (same weights, same batches), on
 * the Java backend, under one plan for all its steps (null: the static layout).
 */
final class TrainRuns {

    private final PodRanks world;
    private final ByteCorpus corpus;
    private final PrintStream progress;

    /** progress: a line every tenth step of a run (null: silent). */
    TrainRuns(PodRanks world, ByteCorpus corpus, PrintStream progress) {
        this.world = world;
        this.corpus = corpus;
        this.progress = progress;
    }

    /** Every rank's logs, by global rank, of steps 1..config.steps(). */
    List<List<RankStepLog>> run(TrainerConfig config, Mode mode, Plan plan, String label) {
        return world.run((comm, node) -> {
            List<RankStepLog> logs = new ArrayList<>();
            try (Backend backend = JavaBackend.create()) {
                RankTrainer trainer = new RankTrainer(config, corpus, backend, new TimedComm(comm), node, mode);
                for (int s = 1; s <= config.steps(); s++) {
                    RankStepLog log = trainer.step(plan);
                    logs.add(log);
                    if (progress != null && comm.rank() == 0 && (s % 10 == 0 || s == config.steps())) {
                        progress.printf(Locale.ROOT, "[trainbench] %s: step %d/%d, loss %.4f, step %.1f ms%n", label,
                                s, config.steps(), log.loss(), log.stepNanos() / 1e6);
                    }
                }
            }
            return logs;
        });
    }
}
