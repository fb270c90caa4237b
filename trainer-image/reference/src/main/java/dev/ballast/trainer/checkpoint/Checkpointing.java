package dev.ballast.trainer.checkpoint;

import dev.ballast.collectives.RankComm;
import dev.ballast.collectives.ReduceOp;
import dev.ballast.contracts.env.ProcessEnv;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A run's checkpoint policy: where (--checkpoint-dir, default BALLAST_CHECKPOINT_DIR; none: no checkpoints), how
 * often (--checkpoint-every N steps), under which generation (BALLAST_WORLD_GENERATION), and once on SIGTERM: a
 * shutdown hook asks the loop to stop, the ranks agree on it after the current step, save, and the hook lets the JVM
 * exit once saved or after BALLAST_CHECKPOINT_TIMEOUT_SECONDS (default 120), whichever comes first.
 */
public final class Checkpointing {

    private static final Checkpointing OFF = new Checkpointing(null, 0, 0);

    private final Path root;
    private final int every;
    private final long generation;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean stopRequested;

    /** root: null for none; every: steps between checkpoints (0: only on SIGTERM). */
    public Checkpointing(Path root, int every, long generation) {
        if (every < 0) {
            throw new IllegalArgumentException("--checkpoint-every wants steps >= 0, got " + every);
        }
        if (every > 0 && root == null) {
            throw new IllegalArgumentException("--checkpoint-every needs --checkpoint-dir (or "
                    + ProcessEnv.CHECKPOINT_DIR + ")");
        }
        this.root = root;
        this.every = every;
        this.generation = generation;
    }

    /** From the flags and the env; installs the SIGTERM hook when there is a directory. */
    public static Checkpointing fromFlags(Map<String, String> flags, Map<String, String> env) {
        String dir = flags.getOrDefault("checkpoint-dir", env.get(ProcessEnv.CHECKPOINT_DIR));
        int every = (int) whole(flags.get("checkpoint-every"), "--checkpoint-every", 0);
        if (dir == null || dir.isBlank()) {
            return every == 0 ? OFF : new Checkpointing(null, every, 0);
        }
        Checkpointing c = new Checkpointing(Path.of(dir), every,
                whole(env.get(ProcessEnv.WORLD_GENERATION), ProcessEnv.WORLD_GENERATION, 0));
        c.saveOnSigterm(Duration.ofSeconds(whole(env.get(ProcessEnv.CHECKPOINT_TIMEOUT_SECONDS),
                ProcessEnv.CHECKPOINT_TIMEOUT_SECONDS, 120)));
        return c;
    }

    /** The published checkpoint to resume from, if any. */
    public Optional<TrainingState> resumeState() {
        return root == null ? Optional.empty() : CheckpointReader.latest(root);
    }

    /** What SIGTERM does (also for tests): the next {@link #afterStep} saves and says stop. */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * After each step, on every rank (comm null: one process): saves when the step is a multiple of N or a stop was
     * requested on any rank; true when the loop must stop. Collective whenever there is a directory.
     */
    public boolean afterStep(Checkpointable trainer, RankComm comm) {
        if (root == null) {
            return false;
        }
        boolean stop = comm == null ? stopRequested
                : comm.allReduce(new double[] {stopRequested ? 1 : 0}, ReduceOp.MAX)[0] > 0;
        int step = trainer.completedSteps();
        if (stop || (every > 0 && step % every == 0)) {
            save(trainer, comm);
        }
        return stop;
    }

    /** The loop is over (saved or not): a waiting SIGTERM hook may let the JVM exit. */
    public void finished() {
        done.countDown();
    }

    private void save(Checkpointable trainer, RankComm comm) {
        int step = trainer.completedSteps();
        Path dir = CheckpointLayout.directory(root, generation, step);
        int rank = comm == null ? 0 : comm.rank();
        CheckpointWriter.writePart(dir, rank, trainer.checkpointSlices(), trainer.dataStream());
        if (comm != null) {
            comm.barrier();
        }
        if (rank == 0) {
            CheckpointWriter.writeDescriptor(dir, step, comm == null ? 1 : comm.worldSize());
            CheckpointWriter.publish(root, dir, generation);
        }
        if (comm != null) {
            comm.barrier();
        }
    }

    private void saveOnSigterm(Duration timeout) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            requestStop();
            try {
                done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ballast-checkpoint-on-sigterm"));
    }

    private static long whole(String value, String name, long fallback) {
        try {
            return value == null || value.isBlank() ? fallback : Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " wants a whole number, got '" + value + "'");
        }
    }
}
