package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.proto.LoadReport;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.sim.MemoryHistoryStore;
import dev.ballast.agent.sim.MemoryStatusStore;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.agent.sim.TestWorlds;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BalancerCoreTest {
    /** Two MoE layers of 4 experts over EP 4 (2 pods of 2 GPUs), one redundant slot, a re-plan every 2 steps. */
    static final PlanningSpec SPEC = TestWorlds.spec(2, 4, 1, 4, 1, 2);
    static final WorldDocument WORLD = world(SPEC, 3);

    /** Generation {@code generation} of job j: pod 5 at node rank 0, pod 0 at node rank 1. */
    static WorldDocument world(PlanningSpec spec, long generation) {
        return TestWorlds.world("j", generation, 2, spec, TestWorlds.worker("j", 0, 1, "a", "d", "r"),
                TestWorlds.worker("j", 5, 0, "b", "d", "r"));
    }

    static final class Recorder implements SidecarSession {
        final List<BalancerMessage> got = new ArrayList<>();
        ErrorNotice closedWith;

        @Override
        public void send(BalancerMessage m) {
            got.add(m);
        }

        @Override
        public void close(ErrorNotice why) {
            closedWith = why;
        }

        List<ErrorNotice> errors() {
            return got.stream().filter(BalancerMessage::hasError).map(BalancerMessage::getError).toList();
        }
    }

    MemoryStatusStore status;
    BalancerCore core;
    long now;

    @BeforeEach
    void setUp() {
        status = new MemoryStatusStore();
        core = newCore();
    }

    BalancerCore newCore() {
        BalancerCore c = new BalancerCore("j", "ns", "tok", status, HistoryStore.NONE, BalancerCore.PlanRunner.SYNC, () -> now, "b");
        c.onWorld(WORLD);
        return c;
    }

    static SidecarMessage hello(int protocol, String job, String ns, String token, int podIndex, long generation) {
        return SidecarMessage.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(protocol).setJob(job)
                .setNamespace(ns).setToken(token).setPodIndex(podIndex).setWorldGeneration(generation)).build();
    }

    static SidecarMessage report(long gen, long step, int rank, int experts, long... counts) {
        LoadReport.Builder b = LoadReport.newBuilder().setWorldGeneration(gen).setStep(step).setGpuRank(rank)
                .setFirstLayer(0).setLayers(2).setExperts(experts);
        for (long c : counts) {
            b.addCounts(c);
        }
        return SidecarMessage.newBuilder().setReport(b).build();
    }

    Recorder connect(SidecarMessage hello) {
        Recorder r = new Recorder();
        long id = core.open(r);
        core.onMessage(id, hello);
        return r;
    }

    @Test
    void refusesBadCredentialsOtherJobsStaleGenerationsAndOldProtocols() {
        assertThat(connect(hello(1, "j", "ns", "", 0, 3)).closedWith.getCode()).isEqualTo(ErrorNotice.Code.UNAUTHENTICATED);
        Recorder wrong = connect(hello(1, "j", "ns", "nope", 0, 3));
        assertThat(wrong.closedWith.getCode()).isEqualTo(ErrorNotice.Code.UNAUTHENTICATED);
        assertThat(wrong.closedWith.getMessage()).contains("wrong token");
        assertThat(connect(hello(1, "other", "ns", "tok", 0, 3)).closedWith.getCode()).isEqualTo(ErrorNotice.Code.WRONG_JOB);
        Recorder stale = connect(hello(1, "j", "ns", "tok", 7, 2));
        assertThat(stale.closedWith.getCode()).isEqualTo(ErrorNotice.Code.STALE_GENERATION);
        assertThat(stale.closedWith.getMessage()).contains("pod index 7 of world generation 2 is not part of world generation 3");
        Recorder newer = connect(hello(Protocol.VERSION + 1, "j", "ns", "tok", 0, 3));
        assertThat(newer.closedWith.getCode()).isEqualTo(ErrorNotice.Code.INCOMPATIBLE_PROTOCOL);
        assertThat(newer.closedWith.getMessage()).contains("supports 1..1");
        for (Recorder r : List.of(wrong, stale, newer)) {
            assertThat(r.got).as("a refused sidecar gets nothing but the refusal").isEmpty();
        }
    }

    @Test
    void refusesBadReportsKeepsTheStreamAndStoresNothing() {
        Recorder r = new Recorder();
        long id = core.open(r);
        core.onMessage(id, hello(1, "j", "ns", "tok", 5, 3)); // node rank 0: GPU ranks 0 and 1
        assertThat(r.closedWith).isNull();
        assertThat(r.got.get(0).hasWelcome()).isTrue();
        core.onMessage(id, report(2, 1, 0, 4, 1, 1, 1, 1, 1, 1, 1, 1));           // stale generation
        core.onMessage(id, report(3, 1, 2, 4, 1, 1, 1, 1, 1, 1, 1, 1));           // rank of another pod
        core.onMessage(id, report(3, 1, 0, 4, 1, 1, 1));                          // wrong length
        core.onMessage(id, report(3, 1, 0, 3, 1, 1, 1, 1, 1, 1));                 // wrong expert count
        core.onMessage(id, report(3, 1, 0, 4, 1, 1, 1, 1, 1, 1, 1, -1L));         // 2^64-1 on the wire: out of range
        assertThat(r.closedWith).as("the stream stays open").isNull();
        assertThat(r.errors()).extracting(ErrorNotice::getCode).containsExactly(ErrorNotice.Code.STALE_GENERATION,
                ErrorNotice.Code.BAD_REPORT, ErrorNotice.Code.BAD_REPORT, ErrorNotice.Code.BAD_REPORT, ErrorNotice.Code.BAD_REPORT);
        assertThat(r.errors().get(1).getMessage()).contains("gpu rank 2 is not a rank of pod index 5");
        assertThat(r.errors().get(2).getMessage()).contains("expected layers × experts = 8");
        assertThat(core.reportsAccepted()).isZero();
        assertThat(core.reportsRefused()).isEqualTo(5);
        core.onMessage(id, report(3, 1, 0, 4, 1, 2, 3, 4, 5, 6, 7, 8));
        assertThat(core.reportsAccepted()).isEqualTo(1);
    }

    static WorldDocument withBudget(long bytes) {
        return world(TestWorlds.withBudget(2, 4, 1, 4, 1, 2, bytes), 3);
    }

    /** Connects both pods (pod 5 is node rank 0, pod 0 node rank 1) and returns their session ids. */
    long[] connectBoth(Recorder a, Recorder b) {
        long ia = core.open(a);
        long ib = core.open(b);
        core.onMessage(ia, hello(1, "j", "ns", "tok", 5, 3));
        core.onMessage(ib, hello(1, "j", "ns", "tok", 0, 3));
        return new long[] {ia, ib};
    }

    /**
     * Reports of steps [from, to) from both pods with expert {@code hot} hot in both layers, at a realistic 65,536
     * assignments per GPU (a replica pays for its refresh).
     */
    void hotSteps(long[] ids, long from, long to, int hot) {
        long[] counts = new long[8];
        for (int i = 0; i < 8; i++) {
            counts[i] = i % 4 == hot ? 59_536 : 2_000;
        }
        for (long step = from; step < to; step++) {
            for (int rank = 0; rank < 4; rank++) {
                core.onMessage(rank < 2 ? ids[0] : ids[1], report(3, step, rank, 4, counts));
            }
        }
    }

    /** Connects both pods and sends steps [from, to) with expert 0 hot; returns the recorders. */
    List<Recorder> skewedSteps(long from, long to) {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        hotSteps(connectBoth(a, b), from, to, 0);
        return List.of(a, b);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theJobPageShowsTheWorldTheLoadsPerGpuAndOnePointPerTickWithNewSteps() {
        assertThat(DashboardJsonTest.parse(core.pageSnapshot())).as("before the first tick").isEmpty();
        skewedSteps(0, 6);
        core.tick();
        core.tick(); // no new step: no new point
        Map<String, Object> page = DashboardJsonTest.parse(core.pageSnapshot());
        assertThat(page).containsEntry("sidecars", 2L).containsEntry("newestPlan", core.lastPublished().toString());
        assertThat((Map<String, Object>) page.get("world")).containsEntry("generation", 3L)
                .containsEntry("gpus", (long) WORLD.gpus());
        assertThat((Map<String, Object>) page.get("heatmap")).containsEntry("layers", 2L).containsEntry("step", 5L);
        var gpus = (Map<String, List<Long>>) page.get("gpus");
        assertThat(gpus.get("before")).hasSize(WORLD.gpus());
        assertThat(gpus.get("after").stream().mapToLong(Long::longValue).sum()).as("the same tokens, routed twice")
                .isEqualTo(gpus.get("before").stream().mapToLong(Long::longValue).sum()).isPositive();
        assertThat((List<Map<String, Object>>) page.get("history")).singleElement()
                .satisfies(p -> assertThat(p).containsEntry("generation", 3L).containsEntry("step", 5L));
    }

    @Test
    void theMetricsStateFollowsThePublishedPlanTheMeasuredStepsAndTheRefusals() {
        BalancerMetricsState empty = core.metricsNow();
        assertThat(empty.predicted()).isNull();
        assertThat(empty.measured()).isNull();
        assertThat(empty.ranksBehind()).as("no rank runs a plan yet").isEqualTo(WORLD.gpus());
        connect(hello(1, "j", "ns", "nope", 0, 3));

        skewedSteps(0, 6);
        BalancerMetricsState s = core.metricsNow();
        assertThat(s.worldGeneration()).isEqualTo(3);
        assertThat(s.planSequence()).isEqualTo(core.lastPublished().sequence());
        assertThat(s.plans()).isGreaterThanOrEqualTo(core.plansPublished());
        assertThat(s.sidecarsConnected()).isEqualTo(2);
        assertThat(s.predicted().layersBefore()).hasSize(2);
        assertThat(s.predicted().before()).as("the skew makes the static layout imbalanced")
                .isGreaterThan(s.predicted().after());
        assertThat(s.predictedGain()).isGreaterThan(1.0);
        assertThat(s.bytesMoved()).as("the hot expert's replica moved its weights")
                .isGreaterThanOrEqualTo(PlanningSetup.shape("j", SPEC).weightBytesPerExpert());
        assertThat(s.lastBytesMoved()).isLessThanOrEqualTo(s.bytesMoved());
        assertThat(s.measured().before()).isGreaterThan(1.0);
        assertThat(s.measured().layersAfter()).hasSize(2);
        assertThat(s.ranksBehind()).as("no adoption reported").isEqualTo(WORLD.gpus());
        assertThat(s.refusals()).containsEntry(ErrorNotice.Code.UNAUTHENTICATED, 1L);

        core.onWorld(world(SPEC, 4));
        assertThat(core.metricsNow().measured()).as("a new world starts without a step").isNull();
    }

    @Test
    void aMemoryBudgetCapsTheReplicasAndOneTooSmallIsRefused() {
        Parallelism par = new Parallelism(4, 1, 1);
        long homesOnly = (long) Math.ceil(MemoryBudget.peakBytes(PlanningSetup.shape("j", SPEC), Mode.REPLICATE, par, 0));
        // Without a budget the skew gets a replica; with room for none, every plan is the static layout.
        skewedSteps(0, 6);
        assertThat(replicas(core.currentPlan())).isPositive();
        core = new BalancerCore("j", "ns", "tok", status, HistoryStore.NONE, BalancerCore.PlanRunner.SYNC, () -> now, "b");
        core.onWorld(withBudget(homesOnly));
        skewedSteps(0, 6);
        assertThat(core.plansPublished()).isPositive();
        assertThat(replicas(core.currentPlan())).isZero();

        core = new BalancerCore("j", "ns", "tok", status, HistoryStore.NONE, BalancerCore.PlanRunner.SYNC, () -> now, "b");
        core.onWorld(withBudget(homesOnly - 1));
        List<Recorder> r = skewedSteps(0, 2);
        assertThat(core.reportsAccepted()).isZero();
        assertThat(r.get(0).errors().get(0).getMessage()).contains("memoryBudgetBytes " + (homesOnly - 1) + " is below the "
                + homesOnly + " bytes per GPU");
    }

    static int replicas(Plan p) {
        int n = 0;
        for (int l = 0; l < 2; l++) {
            for (int g = 0; g < 4; g++) {
                n += p.placement(l, 0).nonHomeCopies(g);
            }
        }
        return n;
    }

    @Test
    void aRestartedBalancerNeverReusesAPlanVersion() {
        Recorder a = skewedSteps(0, 6).get(0);
        assertThat(core.plansPublished()).isGreaterThanOrEqualTo(2);
        long lastSeq = core.lastPublished().sequence();
        assertThat(status.last().planSequence()).as("reserved ahead of use").isGreaterThanOrEqualTo(lastSeq);
        assertThat(a.got.stream().filter(BalancerMessage::hasPlan).findFirst().orElseThrow().getPlan().hasPrevious())
                .as("the first plan of an incarnation starts a chain").isFalse();

        core = newCore(); // restart: state lost, status kept
        Recorder c = new Recorder();
        long ic = core.open(c);
        core.onMessage(ic, hello(1, "j", "ns", "tok", 5, 3));
        long ic2 = core.open(new Recorder());
        core.onMessage(ic2, hello(1, "j", "ns", "tok", 0, 3));
        for (long step = 6; step < 8; step++) {
            for (int rank = 0; rank < 4; rank++) {
                core.onMessage(rank < 2 ? ic : ic2, report(3, step, rank, 4, 1, 9, 1, 1, 1, 9, 1, 1));
            }
        }
        assertThat(core.lastPublished()).isNotNull();
        assertThat(core.lastPublished().sequence()).isGreaterThan(status.writes.get(0).planSequence());
        assertThat(core.lastPublished().sequence()).isGreaterThan(lastSeq);
    }

    static List<Long> planEarliestSteps(Recorder r) {
        return r.got.stream().filter(BalancerMessage::hasPlan).map(m -> m.getPlan().getEarliestStep()).toList();
    }

    @Test
    void theReplanPolicyKeepsABalancedPlanForTheIntervalAndReplansEarlyWhenTheLoadMoves() {
        core = new BalancerCore("j", "ns", "tok", status, HistoryStore.NONE, BalancerCore.PlanRunner.SYNC, () -> now, "b");
        core.onWorld(world(TestWorlds.spec(2, 4, 1, 4, 1, 50), 3));
        Recorder a = new Recorder();
        long[] ids = connectBoth(a, new Recorder());
        hotSteps(ids, 0, 30, 0);
        assertThat(planEarliestSteps(a)).as("the first plan after step 0, then none: it stays balanced").containsExactly(1L);
        hotSteps(ids, 30, 40, 2);
        // The gain check 30 steps after the plan (they run every 10) sees expert 2 hot on one GPU: re-plan after step 30.
        assertThat(planEarliestSteps(a)).containsExactly(1L, 31L);
        hotSteps(ids, 40, 45, 2);
        // That plan was made from a prediction still half of the old load (EMA α = 0.5); the next check, a fifth of
        // the interval later, replaces it.
        assertThat(planEarliestSteps(a)).containsExactly(1L, 31L, 41L);
        assertThat(core.status().imbalanceBefore()).isGreaterThan(core.status().imbalanceAfter());
    }

    /** A runner that queues each planning job in {@code pending}, to be run when the test says. */
    static BalancerCore.PlanRunner deferred(List<Runnable> pending) {
        return (job, done, failed) -> pending.add(() -> {
            try {
                done.accept(job.call());
            } catch (Exception e) {
                failed.accept(e);
            }
        });
    }

    @Test
    void aPlanFinishedAfterAWorldChangeIsDroppedAndTheNewWorldsFirstPlanFollows() {
        List<Runnable> pending = new ArrayList<>();
        BalancerCore.PlanRunner later = deferred(pending);
        core = new BalancerCore("j", "ns", "tok", status, HistoryStore.NONE, later, () -> now, "b");
        core.onWorld(WORLD);
        long[] ids = connectBoth(new Recorder(), new Recorder());
        hotSteps(ids, 0, 1, 0);
        assertThat(pending).as("one plan at a time").hasSize(1);
        hotSteps(ids, 1, 3, 0);
        assertThat(pending).hasSize(1);
        core.onWorld(world(SPEC, 4));
        pending.remove(0).run();
        assertThat(core.plansPublished()).as("a generation-3 plan is of no use in generation 4").isZero();
        assertThat(pending).as("generation 4's first plan started from the history").hasSize(1);
        pending.remove(0).run();
        assertThat(core.lastPublished().worldGeneration()).isEqualTo(4);
        assertThat(core.plansPublished()).isEqualTo(1);
    }

    @Test
    void theStepHeartbeatFollowsCompleteStepsAtMostEveryThirtySeconds() {
        skewedSteps(0, 3);
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        assertThat(status.last().heartbeat()).satisfies(h -> {
            assertThat(h.generation()).isEqualTo(3);
            assertThat(h.step()).isEqualTo(2);
        });
        skewedSteps(3, 5);
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        assertThat(status.last().heartbeat().step()).as("within 30 s of the last beat").isEqualTo(2);
        now += StatusWriter.HEARTBEAT_EVERY_NANOS;
        core.tick();
        assertThat(status.last().heartbeat().step()).isEqualTo(4);
    }

    /**
     * Steps [from, to) from both pods with expert 0 hot; rank r reports a step time of {@code stepSeconds} - 0.01 r
     * and a compute time of {@code computeSeconds} for rank 0 (which hosts the hot expert under the static layout)
     * and half that for the others, so the slowest rank's times are {@code stepSeconds} and {@code computeSeconds}.
     * Rank 3's report of step {@code lateAdoptionStep} is followed by its adoption of {@code plan} (null: none).
     */
    void timedSteps(long[] ids, long from, long to, double stepSeconds, double computeSeconds, PlanVersion plan,
                    long lateAdoptionStep) {
        long[] counts = {59_536, 2_000, 2_000, 2_000, 59_536, 2_000, 2_000, 2_000};
        for (long step = from; step < to; step++) {
            for (int rank = 0; rank < 4; rank++) {
                LoadReport.Builder b = report(3, step, rank, 4, counts).getReport().toBuilder()
                        .setStepSeconds(stepSeconds - 0.01 * rank)
                        .setComputeSeconds(rank == 0 ? computeSeconds : computeSeconds / 2);
                core.onMessage(rank < 2 ? ids[0] : ids[1], SidecarMessage.newBuilder().setReport(b).build());
                if (plan != null && step == lateAdoptionStep && rank == 3) {
                    core.onMessage(ids[1], adoption(3, 3, step, plan));
                }
            }
        }
    }

    @Test
    void statusReportsTheMeasuredImbalanceAndStepTimesBeforeAndAfterThePlanBesideThePrediction() {
        long[] ids = connectBoth(new Recorder(), new Recorder());
        timedSteps(ids, 0, 6, 0.4, 0.3, null, -1);
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        BalancerStatus.Measured staticOnly = status.last().measured();
        assertThat(staticOnly.stepSecondsBefore()).isCloseTo(0.4, within(1e-12));
        assertThat(staticOnly.computeSecondsBefore()).isCloseTo(0.3, within(1e-12));
        assertThat(staticOnly.imbalanceBefore()).as("expert 0 hot: one GPU holds most tokens").isGreaterThan(1.5);
        assertThat(staticOnly.imbalanceAfter()).as("no plan in use yet").isNaN();
        assertThat(staticOnly.stepSecondsAfter()).isNaN();
        assertThat(staticOnly.stepTimeSpeedup()).isNaN();

        // Every rank adopts the newest plan at step 6; rank 3's adoption arrives after its step-6 report, which
        // completes the step: the step still counts for the plan.
        PlanVersion plan = core.lastPublished();
        for (int rank = 0; rank < 3; rank++) {
            core.onMessage(rank < 2 ? ids[0] : ids[1], adoption(3, rank, 6, plan));
        }
        now += BalancerCore.MEASURE_EVERY_NANOS;
        timedSteps(ids, 6, 7, 0.25, 0.15, plan, 6);
        assertThat(core.status().planVersion()).isEqualTo(plan.toString());
        now += BalancerCore.MEASURE_EVERY_NANOS;
        timedSteps(ids, 7, 10, 0.25, 0.15, null, -1);
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();

        BalancerStatus.Measured m = status.last().measured();
        assertThat(m.stepSecondsBefore()).as("the static layout's steps only").isCloseTo(0.4, within(1e-12));
        assertThat(m.stepSecondsAfter()).as("steps 6..9, step 6 included").isCloseTo(0.25, within(1e-12));
        assertThat(m.stepTimeSpeedup()).isCloseTo(1.6, within(1e-9));
        assertThat(m.computeSecondsBefore()).isCloseTo(0.3, within(1e-12));
        assertThat(m.computeSecondsAfter()).isCloseTo(0.15, within(1e-12));
        assertThat(m.imbalanceAfter()).as("the plan spreads the hot expert").isLessThan(m.imbalanceBefore());
        BalancerMetricsState.Scores metrics = core.metricsNow().measured();
        assertThat(metrics.after()).as("status and metrics share one computation").isEqualTo(m.imbalanceAfter());
        assertThat(status.last().imbalanceAfter()).as("the prediction stays beside it")
                .isEqualTo(core.status().imbalanceAfter());
        pageShowsTheTimesAndThePlaceOfPlan(plan);

        core.onWorld(world(SPEC, 4));
        assertThat(core.status().measured()).as("a new world has measured nothing yet").isNull();
    }

    /** The job page: the newest point has status.balancer.measured's times; the placement is that of {@code plan}. */
    @SuppressWarnings("unchecked")
    void pageShowsTheTimesAndThePlaceOfPlan(PlanVersion plan) {
        Map<String, Object> page = DashboardJsonTest.parse(core.pageSnapshot());
        List<Map<String, Object>> history = (List<Map<String, Object>>) page.get("history");
        assertThat(history.get(history.size() - 1)).containsEntry("stepBefore", 0.4).containsEntry("stepAfter", 0.25)
                .containsEntry("computeBefore", 0.3).containsEntry("computeAfter", 0.15);
        Map<String, Object> placement = (Map<String, Object>) page.get("placement");
        assertThat(placement).containsEntry("plan", plan.toString()).containsEntry("held", true);
        assertThat((List<?>) placement.get("layers")).hasSize(SPEC.moeLayers());
    }

    @Test
    void measurementsRideWithTheHeartbeatSoStatusIsNotWrittenEveryStep() {
        long[] ids = connectBoth(new Recorder(), new Recorder());
        timedSteps(ids, 0, 1, 0.4, 0.3, null, -1);
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        int writes = status.writes.size();
        BalancerStatus.Measured first = status.last().measured();
        for (long step = 1; step < 29; step++) { // a step and a tick a second for 28 s, the step time drifting
            now += BalancerCore.MEASURE_EVERY_NANOS;
            timedSteps(ids, step, step + 1, 0.4 + step / 100.0, 0.3, null, -1);
            core.tick();
        }
        // (plans published every 2 steps write their predictions; the measurements ride along unchanged)
        assertThat(status.writes.subList(writes, status.writes.size())).as("only new values, nothing newly measured")
                .extracting(BalancerStatus::measured).containsOnly(first);
        now += StatusWriter.HEARTBEAT_EVERY_NANOS;
        timedSteps(ids, 29, 30, 0.4, 0.3, null, -1);
        core.tick();
        assertThat(status.last().measured().stepSecondsBefore()).as("the mean of the last 30 steps' slowest ranks")
                .isGreaterThan(first.stepSecondsBefore());
    }

    BalancerCore restartedCore(MemoryStatusStore statusStore, MemoryHistoryStore historyStore) {
        return new BalancerCore("j", "ns", "tok", statusStore, historyStore, BalancerCore.PlanRunner.SYNC, () -> now, "b");
    }

    static MemoryStatusStore copyOf(MemoryStatusStore s) {
        MemoryStatusStore copy = new MemoryStatusStore();
        copy.write(s.last());
        return copy;
    }

    @Test
    void aRestartedBalancerPlansTheNextWorldFromThePersistedHistoryByteForByte() {
        MemoryHistoryStore history = new MemoryHistoryStore();
        core = restartedCore(status, history);
        core.onWorld(WORLD);
        skewedSteps(0, 6);
        core.persistHistory();
        assertThat(history.writes).isNotEmpty();

        // The balancer that kept running and one restarted from the persisted history (and the same status) plan
        // generation 4 before any of its steps, identically.
        MemoryStatusStore statusAfterRestart = copyOf(status);
        BalancerCore restarted = restartedCore(statusAfterRestart, history);
        core.onWorld(world(SPEC, 4));
        restarted.onWorld(world(SPEC, 4));
        assertThat(core.currentPlan()).isNotNull();
        assertThat(replicas(core.currentPlan())).as("the hot expert gets a replica from the history").isPositive();
        // Only the version differs: a restarted balancer continues above the sequences reserved in status.
        assertThat(restarted.currentPlan().version().sequence()).isGreaterThan(core.currentPlan().version().sequence());
        assertThat(PlanBinary.encode(restarted.currentPlan().withVersion(new PlanVersion(4, 1), 0)))
                .isEqualTo(PlanBinary.encode(core.currentPlan().withVersion(new PlanVersion(4, 1), 0)));
        assertThat(restarted.status().firstPlan()).isEqualTo(new BalancerStatus.FirstPlan(4, "history", -1));

        BalancerCore fresh = restartedCore(copyOf(status), new MemoryHistoryStore());
        fresh.onWorld(world(SPEC, 4));
        assertThat(fresh.currentPlan()).as("without a history, no plan before the first step").isNull();
    }

    @Test
    void aPublishedPlanPersistsTheHistoryItWasMadeFromBeforeThePeriodicWriteWould() {
        MemoryHistoryStore history = new MemoryHistoryStore();
        core = restartedCore(status, history);
        core.onWorld(WORLD);
        skewedSteps(0, 6); // no tick: the write every 30 s never comes
        assertThat(core.currentPlan()).as("plans were published").isNotNull();
        assertThat(history.writes).as("each published plan wrote the history").isNotEmpty();
        assertThat(dev.ballast.contracts.history.LoadHistoryJson.decode(history.text).observedSteps())
                .as("a balancer lost now restores the steps the plan in use was made from").isPositive();
    }

    static SidecarMessage adoption(long gen, int rank, long step, PlanVersion v) {
        return SidecarMessage.newBuilder().setAdoption(AdoptionTrackerTest.adoption(gen, rank, step, v)).build();
    }

    @Test
    void theFirstPlanFromHistoryReachesANewSidecarBeforeItsWorldAndIsAdoptedAtTheFirstStep() {
        MemoryHistoryStore history = new MemoryHistoryStore();
        core = restartedCore(status, history);
        core.onWorld(WORLD);
        skewedSteps(0, 6);
        core.persistHistory();

        List<Runnable> pending = new ArrayList<>();
        BalancerCore.PlanRunner later = deferred(pending);
        MemoryStatusStore statusAfterRestart = copyOf(status);
        core = new BalancerCore("j", "ns", "tok", statusAfterRestart, history, later, () -> now, "b");
        core.onWorld(world(SPEC, 4));
        assertThat(pending).as("the first plan starts from the history at once").hasSize(1);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        long ia = core.open(a);
        long ib = core.open(b);
        core.onMessage(ia, hello(1, "j", "ns", "tok", 5, 4));
        core.onMessage(ib, hello(1, "j", "ns", "tok", 0, 4));
        assertThat(a.got).as("the world waits for the plan on its way").noneMatch(BalancerMessage::hasWorld);
        pending.remove(0).run();
        List<String> kinds = a.got.stream().map(m -> m.getKindCase().name()).toList();
        assertThat(kinds.indexOf("PLAN")).isPositive().isLessThan(kinds.indexOf("WORLD"));
        PlanVersion first = core.lastPublished();
        assertThat(first.worldGeneration()).isEqualTo(4);
        for (int rank = 0; rank < 4; rank++) {
            core.onMessage(rank < 2 ? ia : ib, adoption(4, rank, 0, first));
        }
        long[] counts = {59_536, 2_000, 2_000, 2_000, 59_536, 2_000, 2_000, 2_000};
        for (int rank = 0; rank < 4; rank++) {
            core.onMessage(rank < 2 ? ia : ib, report(4, 0, rank, 4, counts));
        }
        assertThat(core.status().firstPlan()).isEqualTo(new BalancerStatus.FirstPlan(4, "history", 0));
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        assertThat(statusAfterRestart.last().firstPlan()).isEqualTo(new BalancerStatus.FirstPlan(4, "history", 0));
    }

    @Test
    void aWorldThatCannotBePlannedIsReportedInStatusUntilOneCanBe() {
        Parallelism par = new Parallelism(4, 1, 1);
        long homesOnly = (long) Math.ceil(MemoryBudget.peakBytes(PlanningSetup.shape("j", SPEC), Mode.REPLICATE, par, 0));
        core.onWorld(world(TestWorlds.withBudget(2, 4, 1, 4, 1, 2, homesOnly - 1), 4));
        assertThat(core.status().planError()).startsWith("cannot plan world generation 4: memoryBudgetBytes");
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        assertThat(status.last().planError()).contains("is below the " + homesOnly + " bytes per GPU");
        core.onWorld(world(SPEC, 5));
        assertThat(core.status().planError()).isEmpty();
    }

    /** Steps [from, to) from both pods, every rank computing 0.2 s but {@code slowRank} ({@code factor} times that). */
    void computeSteps(long[] ids, long from, long to, int slowRank, double factor) {
        computeSteps(ids, from, to, slowRank, factor, -1);
    }

    /** The same without any report of {@code missingRank}. */
    void computeSteps(long[] ids, long from, long to, int slowRank, double factor, int missingRank) {
        long[] counts = {2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000};
        for (long step = from; step < to; step++) {
            for (int rank = 0; rank < 4; rank++) {
                if (rank == missingRank) {
                    continue;
                }
                LoadReport.Builder b = report(3, step, rank, 4, counts).getReport().toBuilder()
                        .setStepSeconds(0.5).setComputeSeconds(rank == slowRank ? 0.2 * factor : 0.2);
                core.onMessage(rank < 2 ? ids[0] : ids[1], SidecarMessage.newBuilder().setReport(b).build());
            }
        }
    }

    @Test
    void aRankThatComputesPersistentlySlowerIsAStragglerInStatusAndMetricsWithItsPodUntilItKeepsPace() {
        long[] ids = connectBoth(new Recorder(), new Recorder());
        int flagAt = SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS;
        computeSteps(ids, 0, flagAt - 1, 1, 1.5);
        assertThat(core.status().stragglers()).isEmpty();
        assertThat(core.metricsNow().ranksSlow()).isZero();
        computeSteps(ids, flagAt - 1, flagAt, 1, 1.5);
        String pod = WORLD.nodes().get(0).pod(); // GPU rank 1 is node rank 0's second GPU
        assertThat(core.status().stragglers())
                .containsExactly(new BalancerStatus.Straggler(1, pod, BalancerStatus.Straggler.SLOW));
        assertThat(core.metricsNow().ranksSlow()).isEqualTo(1);
        now += StatusWriter.MIN_INTERVAL_NANOS;
        core.tick();
        assertThat(status.last().stragglers()).as("written").hasSize(1);

        computeSteps(ids, flagAt, 2 * flagAt, -1, 1);
        assertThat(core.status().stragglers()).as("three windows at pace clear it").isEmpty();
        assertThat(core.metricsNow().ranksSlow()).isZero();
    }

    @Test
    void aSlowRankThatStopsReportingIsListedOnceAsSilent() {
        long[] ids = connectBoth(new Recorder(), new Recorder());
        int flagAt = SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS;
        computeSteps(ids, 0, flagAt, 1, 1.5);
        computeSteps(ids, flagAt, flagAt + 10, -1, 1, 1);
        assertThat(core.status().stragglers()).containsExactly(new BalancerStatus.Straggler(1,
                WORLD.nodes().get(0).pod(), BalancerStatus.Straggler.SILENT));
    }

    @Test
    void aRankThatStopsReportingIsASilentStragglerAndAWorldChangeClearsTheList() {
        long[] ids = connectBoth(new Recorder(), new Recorder());
        long[] counts = {2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000};
        for (long step = 0; step < 10; step++) {
            for (int rank = 0; rank < 4; rank++) {
                if (rank != 2 || step < 3) {
                    core.onMessage(rank < 2 ? ids[0] : ids[1], report(3, step, rank, 4, counts));
                }
            }
        }
        assertThat(core.status().stragglers()).containsExactly(new BalancerStatus.Straggler(2,
                WORLD.nodes().get(1).pod(), BalancerStatus.Straggler.SILENT));
        assertThat(core.metricsNow().ranksSilent()).isEqualTo(1);
        core.onWorld(world(SPEC, 4));
        assertThat(core.status().stragglers()).isEmpty();
    }

    static SidecarMessage health(long reports, double reportSum, double reportMax, long dropped, long plans,
                                 double planSum, double planMax, int queued) {
        return SidecarMessage.newBuilder().setHealth(dev.ballast.agent.proto.SidecarHealth.newBuilder()
                .setReportsSent(reports).setReportLatencySecondsSum(reportSum).setReportLatencyMaxSeconds(reportMax)
                .setReportsDropped(dropped).setPlansReceived(plans).setPlanLatencySecondsSum(planSum)
                .setPlanLatencyMaxSeconds(planMax).setReportsQueued(queued)).build();
    }

    @Test
    void sidecarHealthIsSummedPerJobTheMaximaAreRecentAndABadOneIsRefusedWithoutEffect() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        long[] ids = connectBoth(a, b);
        assertThat(a.got.get(0).getWelcome().getAcceptsHealth()).as("the welcome invites health").isTrue();
        core.onMessage(ids[0], health(100, 0.5, 0.02, 3, 2, 0.04, 0.03, 5));
        core.onMessage(ids[1], health(50, 0.25, 0.05, 0, 1, 0.01, 0.01, 1));
        now += 5_000_000_000L;
        core.onMessage(ids[0], health(100, 0.5, 0.01, 1, 0, 0, 0, 0));
        SidecarHealthTally.Totals t = core.metricsNow().sidecarHealth();
        assertThat(t).isEqualTo(new SidecarHealthTally.Totals(250, 1.25, 0.05, 4, 3, 0.05, 0.01, 1));

        core.onMessage(ids[1], health(1, -1, 0, 0, 0, 0, 0, 0));
        assertThat(b.errors()).singleElement().satisfies(e -> {
            assertThat(e.getCode()).isEqualTo(ErrorNotice.Code.PROTOCOL_VIOLATION);
            assertThat(e.getFatal()).isFalse();
        });
        now += SidecarHealthTally.LATEST_FOR_NANOS + 1;
        assertThat(core.metricsNow().sidecarHealth()).as("totals stay, stale maxima go")
                .isEqualTo(new SidecarHealthTally.Totals(250, 1.25, 0, 4, 3, 0.05, 0, 0));
    }
}
