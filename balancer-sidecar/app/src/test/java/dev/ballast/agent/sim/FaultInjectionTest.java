package dev.ballast.agent.sim;

import dev.ballast.agent.balancer.BalancerCore;
import dev.ballast.agent.balancer.HistoryStore;
import dev.ballast.agent.balancer.SidecarSession;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.sidecar.PlanStore;
import dev.ballast.agent.sidecar.SidecarCore;
import dev.ballast.agent.sidecar.SidecarIdentity;
import dev.ballast.agent.wire.BadReportException;
import dev.ballast.client.InProcessAllReduce;
import dev.ballast.client.StepLoads;
import dev.ballast.client.PlanAdopter;
import dev.ballast.client.ReportJson;
import dev.ballast.client.SidecarApi;
import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.model.Plan;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data path under faults, in one process: the real BalancerCore, SidecarCore/PlanStore and the client's
 * PlanAdopter (one thread per rank, a real in-process all-reduce), wired through links that drop, duplicate,
 * delay and reorder messages, with balancer and sidecar restarts and two world changes. Invariants, checked at
 * every step: all ranks use the same plan version; no rank goes back; no rank uses a plan of another generation;
 * once faults stop, ranks reach every newly published plan within a bounded number of steps.
 */
class FaultInjectionTest {
    static final int PODS = 4;
    static final int GPUS_PER_POD = 2;
    static final int RANKS = PODS * GPUS_PER_POD;
    static final int LAYERS = 4;
    static final int EXPERTS = 8;
    static final String JOB = "sim";
    static final String NS = "default";
    static final String TOKEN = "s3cret";
    static final long NANOS_PER_STEP = 100_000_000L;

    static final int STEPS = 3000;
    static final int FAULTS_END = 2400;
    static final int[] WORLD_CHANGES = {900, 1800};
    static final int CATCH_UP_STEPS = 15;

    final Random rnd = new Random(20240611);
    final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
    final MemoryStatusStore status = new MemoryStatusStore();
    final PlanningSpec spec = TestWorlds.spec(LAYERS, EXPERTS, 2, 4, 1, 5);

    long now;
    final Map<String, Long> fingerprints = new java.util.HashMap<>();
    BalancerCore balancer;
    int balancerIncarnation;
    long balancerConfigAt = -1;
    WorldDocument world;
    final Pod[] pods = new Pod[PODS];
    PlanAdopter[] adopters = new PlanAdopter[RANKS];
    final RankSidecar[] rankSidecars = new RankSidecar[RANKS];

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** One worker pod: its sidecar (replaced on restart) and its connection to the balancer. */
    final class Pod {
        final int index;
        SidecarCore core;
        final LossyLink<SidecarMessage> up = new LossyLink<>(rnd);
        final LossyLink<BalancerMessage> down = new LossyLink<>(rnd);
        boolean open;
        long sessionId;
        BalancerCore peer;
        long reconnectAt;

        Pod(int index) {
            this.index = index;
            this.core = newSidecar(index);
        }

        void disconnect(long backoff) {
            if (open && peer == balancer) {
                balancer.onClose(sessionId);
            }
            open = false;
            up.clear();
            core.onDisconnected();
            reconnectAt = now + backoff;
        }

        void connect() {
            open = true;
            peer = balancer;
            sessionId = balancer.open(new SidecarSession() {
                @Override
                public void send(BalancerMessage m) {
                    if (m.hasPlan()) {
                        String key = m.getPlan().getVersion().getWorldGeneration() + "." + m.getPlan().getVersion().getSequence();
                        Long before = fingerprints.putIfAbsent(key, m.getPlan().getFingerprint());
                        assertThat(before == null || before == m.getPlan().getFingerprint())
                                .as("plan version %s reused for a different plan", key).isTrue();
                    }
                    down.send(now, m, m.hasWelcome());
                }

                @Override
                public void close(ErrorNotice why) {
                    core.onBalancerMessage(BalancerMessage.newBuilder().setError(why).build());
                    open = false;
                    up.clear();
                    core.onDisconnected();
                    reconnectAt = now + 1 + rnd.nextInt(5);
                }
            });
            up.send(now, core.hello(), true);
            for (SidecarMessage m : core.onConnected()) {
                up.send(now, m, false);
            }
        }
    }

    SidecarCore newSidecar(int index) {
        return new SidecarCore(new SidecarIdentity(JOB, NS, index, JOB + "-worker-" + index, TOKEN),
                PlanStore.DEFAULT_CAPACITY, SidecarCore.DEFAULT_OUTBOX_CAPACITY, () -> now * NANOS_PER_STEP);
    }

    /** A rank's view of its pod's sidecar: the in-process equivalent of the HTTP trainer API. */
    final class RankSidecar implements SidecarApi {
        Pod pod;

        @Override
        public void report(StepLoads report) {
            try {
                pod.core.acceptReport(ReportJson.encode(report));
            } catch (BadReportException e) {
                // A stale report after a world change is refused, as it should be; nothing else may be.
                assertThat(e.httpStatus()).as(e.getMessage()).isEqualTo(409);
            }
        }

        @Override
        public PlanHeads heads(long generation, long step) {
            return pod.core.heads(generation, step);
        }

        @Override
        public Optional<Plan> plan(PlanVersion version) {
            return Optional.ofNullable(pod.core.plan(version));
        }
    }

    WorldDocument makeWorld(long generation, int[] nodeRankOfPod) {
        WorldWorker[] workers = new WorldWorker[PODS];
        for (int p = 0; p < PODS; p++) {
            workers[p] = TestWorlds.worker(JOB, p, nodeRankOfPod[p], "n" + p, "d" + (p / 2), "r0");
        }
        return new WorldDocument(JOB, NS, generation, GPUS_PER_POD, spec, List.of(workers));
    }

    void startBalancer() {
        balancer = new BalancerCore(JOB, NS, TOKEN, status, HistoryStore.NONE, BalancerCore.PlanRunner.SYNC, () -> now * NANOS_PER_STEP,
                "incarnation-" + (++balancerIncarnation));
        balancerConfigAt = now + rnd.nextInt(4); // it reads the world ConfigMap a little later
    }

    void restartBalancer() {
        for (Pod p : pods) {
            p.disconnect(1 + rnd.nextInt(5));
        }
        startBalancer();
    }

    void newGeneration(long generation) {
        int[] perm = {0, 1, 2, 3};
        for (int i = PODS - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        world = makeWorld(generation, perm);
        if (balancerConfigAt < 0) {
            balancer.onWorld(world);
        }
        // The trainers restart with the new world: fresh adopters, static layout first.
        InProcessAllReduce ar = new InProcessAllReduce(RANKS);
        for (int r = 0; r < RANKS; r++) {
            Pod pod = null;
            for (WorldWorker n : world.nodes()) {
                if (n.nodeRank() == r / GPUS_PER_POD) {
                    pod = pods[n.index()];
                }
            }
            rankSidecars[r] = new RankSidecar();
            rankSidecars[r].pod = pod;
            adopters[r] = new PlanAdopter(rankSidecars[r], ar, generation);
        }
    }

    long[][] counts(int rank, long step) {
        long[][] c = new long[LAYERS][EXPERTS];
        int hot = (int) ((step / 200 + rank % 2) % EXPERTS); // a drifting hot expert
        for (int l = 0; l < LAYERS; l++) {
            for (int e = 0; e < EXPERTS; e++) {
                c[l][e] = 100 + (e == (hot + l) % EXPERTS ? 900 : 0) + ((step * 7 + e * 13 + l) % 17);
            }
        }
        return c;
    }

    @Test
    void invariantsHoldUnderDropsDuplicatesDelaysReorderingAndRestarts() throws Exception {
        for (int p = 0; p < PODS; p++) {
            pods[p] = new Pod(p);
        }
        startBalancer();
        newGeneration(1);
        PlanVersion[] previous = new PlanVersion[RANKS];
        long generation = 1;
        int nextChange = 0;
        int balancerRestarts = 0;
        int sidecarRestarts = 0;
        List<long[]> catchUp = new ArrayList<>(); // {publishedAtStep, adoptedAtStep} for plans published after the faults
        PlanVersion trackedPlan = null;
        long trackedSince = -1;
        int adoptions = 0;
        for (now = 0; now < STEPS; now++) {
            boolean faults = now < FAULTS_END;
            for (Pod p : pods) {
                for (LossyLink<?> l : List.of(p.up, p.down)) {
                    l.drop = faults ? 0.10 : 0;
                    l.duplicate = faults ? 0.10 : 0;
                    l.maxDelay = faults ? 4 : 0;
                }
            }
            if (faults && now > 20 && rnd.nextDouble() < 0.004) {
                restartBalancer();
                balancerRestarts++;
            }
            if (faults && now > 20 && rnd.nextDouble() < 0.006) {
                Pod p = pods[rnd.nextInt(PODS)];
                p.disconnect(1 + rnd.nextInt(5));
                p.core = newSidecar(p.index);
                sidecarRestarts++;
            }
            if (balancerConfigAt >= 0 && now >= balancerConfigAt) {
                balancer.onWorld(world);
                balancerConfigAt = -1;
            }
            if (nextChange < WORLD_CHANGES.length && now == WORLD_CHANGES[nextChange]) {
                nextChange++;
                newGeneration(++generation);
                previous = new PlanVersion[RANKS];
            }
            for (Pod p : pods) {
                if (!p.open && now >= p.reconnectAt) {
                    p.connect();
                }
            }
            for (Pod p : pods) {
                for (BalancerMessage m : p.down.due(now)) {
                    for (SidecarMessage reply : p.core.onBalancerMessage(m)) {
                        if (p.open) {
                            p.up.send(now, reply, false);
                        }
                    }
                }
                for (SidecarMessage m : p.up.due(now)) {
                    if (p.open && p.peer == balancer) {
                        balancer.onMessage(p.sessionId, m);
                    }
                }
                if (p.open) {
                    for (SidecarMessage m : p.core.tick()) {
                        p.up.send(now, m, false);
                    }
                    SidecarMessage m;
                    while ((m = p.core.pollOutbound()) != null) {
                        p.up.send(now, m, false);
                    }
                }
            }
            balancer.tick();

            // The trainers' step boundary: every rank runs the adoption rule concurrently.
            final long step = now;
            List<Future<Plan>> fs = new ArrayList<>();
            for (PlanAdopter a : adopters) {
                fs.add(pool.submit(() -> a.atStepBoundary(step)));
            }
            for (Future<Plan> f : fs) {
                f.get();
            }
            PlanVersion v0 = adopters[0].currentVersion();
            for (int r = 0; r < RANKS; r++) {
                PlanVersion v = adopters[r].currentVersion();
                assertThat(v).as("step %d: rank %d vs rank 0", step, r).isEqualTo(v0);
                assertThat(v.worldGeneration()).as("step %d: rank %d uses a plan of another generation", step, r)
                        .isEqualTo(generation);
                if (adopters[r].currentPlan() != null) {
                    assertThat(adopters[r].currentPlan().version()).isEqualTo(v);
                }
                if (previous[r] != null) {
                    assertThat(v).as("step %d: rank %d went back", step, r).isGreaterThanOrEqualTo(previous[r]);
                    if (v.compareTo(previous[r]) > 0 && r == 0) {
                        adoptions++;
                    }
                }
                previous[r] = v;
            }
            for (int r = 0; r < RANKS; r++) {
                rankSidecars[r].report(new StepLoads(generation, step, r, 0, counts(r, step), adopters[r].currentVersion()));
            }

            // After the faults: every newly published plan (or a newer one) is adopted within CATCH_UP_STEPS.
            if (now > FAULTS_END + 50) {
                PlanVersion published = balancer.lastPublished();
                if (trackedPlan != null && v0.compareTo(trackedPlan) >= 0) {
                    catchUp.add(new long[] {trackedSince, now});
                    trackedPlan = null;
                }
                if (trackedPlan == null && published != null && published.compareTo(v0) > 0) {
                    trackedPlan = published;
                    trackedSince = now;
                }
                if (trackedPlan != null) {
                    assertThat(now - trackedSince).as("plan %s published at step %d not adopted by step %d",
                            trackedPlan, trackedSince, now).isLessThanOrEqualTo(CATCH_UP_STEPS);
                }
            }
        }
        long dropped = 0;
        long duplicated = 0;
        for (Pod p : pods) {
            dropped += p.up.dropped + p.down.dropped;
            duplicated += p.up.duplicated + p.down.duplicated;
        }
        long maxLag = catchUp.stream().mapToLong(x -> x[1] - x[0]).max().orElse(-1);
        System.out.printf("fault simulation: %d steps, %d ranks, %d balancer restarts, %d sidecar restarts, %d messages dropped,"
                        + " %d duplicated, %d plan versions published, %d adoptions; after the faults %d plans caught up,"
                        + " max lag %d steps%n", STEPS, RANKS, balancerRestarts, sidecarRestarts, dropped, duplicated,
                fingerprints.size(), adoptions, catchUp.size(), maxLag);
        assertThat(balancerRestarts).as("balancer restarts exercised").isGreaterThanOrEqualTo(3);
        assertThat(sidecarRestarts).as("sidecar restarts exercised").isGreaterThanOrEqualTo(3);
        assertThat(adoptions).as("plan changes adopted over the run").isGreaterThan(50);
        assertThat(catchUp).as("plans published after the faults").hasSizeGreaterThan(20);
        assertThat(fingerprints).as("distinct plan versions published").hasSizeGreaterThan(100);
    }
}
