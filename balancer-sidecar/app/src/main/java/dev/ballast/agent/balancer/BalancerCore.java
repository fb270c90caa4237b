package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.agent.proto.AdoptionReport;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.proto.Welcome;
import dev.ballast.agent.proto.WorldChange;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.load.EmaPredictor;
import dev.ballast.planner.load.LoadForecast;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Plan;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.policy.PlacementScore;
import dev.ballast.planner.policy.ReplanPolicy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The balancer, independent of transports and Kubernetes: routes each event to the part that handles it and moves
 * results between them. Sidecars are authenticated by {@link SidecarAuthenticator} and tracked in
 * {@link SidecarSessions}; reports go through {@link ReportIntake} into the {@link LoadForecast}; the
 * {@link ReplanPolicy} decides when to plan and whether to publish; {@link PlanSequencer} numbers plans,
 * {@link PlanPublisher} announces and retains them, {@link AdoptionTracker} says which plans are still in use,
 * {@link StatusWriter} keeps status.balancer (with {@link FirstPlanTracker}'s record of each world's first plan and
 * {@link MeasuredSteps}' measurements of its recent steps), and
 * {@link HistoryPersistence} restores the load history at start and persists it, so that a restarted balancer plans
 * the next world's first plan from it.
 * <p>
 * Not thread-safe: one thread (the runtime's loop, or a test) calls every method. Planning runs through a
 * {@link PlanRunner}, synchronously in tests or on a worker thread that posts the result back to the loop.
 */
public final class BalancerCore implements BalancerHttp.Snapshots {
    private static final Logger LOG = Logger.getLogger(BalancerCore.class.getName());
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** How often retention is re-announced, so a sidecar that lost a plan notices. */
    public static final long RETENTION_EVERY_NANOS = 5_000_000_000L;

    /** How often a complete step's loads are scored for the measured imbalance (metrics and status). */
    static final long MEASURE_EVERY_NANOS = 1_000_000_000L;

    /** Runs planning jobs; {@code done} or {@code failed} must be invoked on the core's thread. */
    public interface PlanRunner {
        void run(Callable<PlanResult> job, Consumer<PlanResult> done, Consumer<Throwable> failed);

        /** Runs the job at once on the calling thread (tests, simulation). */
        PlanRunner SYNC = (job, done, failed) -> {
            PlanResult r;
            try {
                r = job.call();
            } catch (Exception e) {
                failed.accept(e);
                return;
            }
            done.accept(r);
        };
    }

    /**
     * {@code fromHistory}: planned from the load history, before any step of the world was seen; {@code bytesMoved}:
     * expert weights the plan moves onto GPUs that did not hold them ({@link PlanMoves}); {@code planCpuNanos}: the
     * planning thread's CPU time for it, beside its wall time {@code planNanos} (helper threads, where the planner
     * uses them, not counted), so a wall time above it reads as waiting for a core, not as planning work.
     */
    public record PlanResult(Plan plan, BalancerMetricsState.Scores predicted, double predictedSpeedup,
                             long generation, long planNanos, long planCpuNanos, boolean fromHistory,
                             long bytesMoved) {
    }

    private final DashboardJson.Identity identity;
    private final SidecarAuthenticator authenticator;
    private final SidecarSessions sessions = new SidecarSessions();
    private final ReportIntake intake;
    private final LoadForecast forecast = new LoadForecast(EmaPredictor.DEFAULT_ALPHA);
    private final StatusWriter status;
    private final PlanSequencer sequencer;
    private final PlanPublisher publisher = new PlanPublisher(BalancerCore::unixNanosNow);
    private final AdoptionTracker adoptions = new AdoptionTracker();
    private final FirstPlanTracker firstPlan = new FirstPlanTracker();
    private final MeasuredSteps measuredSteps = new MeasuredSteps();
    private final SidecarHealthTally sidecarHealth = new SidecarHealthTally();
    private SlowRanks slowRanks;         // the current usable layout's, null without one
    private int[] silentRanks = new int[0];
    private final HistoryPersistence history;
    /** The steps of the load history restored at start (0: none), shown on the dashboard. */
    private final long historyRestoredSteps;
    private final PlanRunner runner;
    private final LongSupplier clock;

    private ReplanPolicy policy; // from the first committed world on
    private PlanningSpec spec;
    private WorldDocument world;
    private PlanningSetup setup; // null while the spec and world cannot be planned
    private String configError = "";
    private Plan planInUse;      // this generation's newest plan: the next plan starts from it
    private PlanVersion running; // the plan every rank runs (null: the static layout)
    private Plan runningPlan;    // its plan, null for the static layout or when this balancer does not hold it
    private long lastObservedStep = -1;
    private long lastObservedGeneration; // of the history's newest step
    private long lastRetentionBroadcast = Long.MIN_VALUE / 2;
    private long lastPlanNanos;
    private long lastPlanCpuNanos;
    private long plansComputed;
    private long planNanosTotal;
    private BalancerMetricsState.Scores predicted; // the current plan's, null before the world's first
    private BalancerMetricsState.Scores measured;  // a recent step's, null before the world's first
    private long lastMeasuredAt;
    private double predictedGain = 1.0;
    private long lastBytesMoved;
    private long bytesMovedTotal;
    private volatile BalancerMetricsState metricsState = BalancerMetricsState.EMPTY;
    private JobPageJson.GpuView gpuView = JobPageJson.GpuView.NONE; // a recent step's, like measured
    private final PageHistory pageHistory = new PageHistory(600);

    private volatile boolean ready;
    private volatile String statusSnapshot = "{}";
    private volatile String loadsSnapshot = "{}";
    private volatile String pageSnapshot = "{}";

    /** Restores the load history {@code historyStore} holds (a corrupt one is refused with a warning). */
    public BalancerCore(String job, String namespace, String token, StatusStore statusStore, HistoryStore historyStore,
                        PlanRunner runner, LongSupplier nanoClock, String balancerId) {
        this.authenticator = new SidecarAuthenticator(job, namespace, token);
        this.identity = new DashboardJson.Identity(job, namespace, balancerId);
        this.status = new StatusWriter(statusStore);
        this.sequencer = new PlanSequencer(status);
        this.history = new HistoryPersistence(historyStore, job);
        this.historyRestoredSteps = history.restore(forecast.history());
        this.runner = runner;
        this.clock = nanoClock;
        this.intake = new ReportIntake(nanoClock);
    }

    // ---------------------------------------------------------------- configuration

    /** A new world document (its spec frozen at commit, docs/contracts.md); older or equal generations are ignored. */
    public void onWorld(WorldDocument w) {
        if (world != null && w.generation() <= world.generation()) {
            return;
        }
        world = w;
        spec = w.spec(); // null only in the generation-0 document, which has no workers either
        ready = true;
        if (spec != null) {
            if (policy == null) {
                policy = new ReplanPolicy(spec.replanEverySteps());
            } else {
                policy.configure(spec.replanEverySteps());
            }
        }
        adoptions.reset(w);
        firstPlan.newWorld(w.generation());
        planInUse = null;
        running = null;
        runningPlan = null;
        measuredSteps.newWorld();
        predicted = null;
        measured = null;
        gpuView = JobPageJson.GpuView.NONE;
        predictedGain = 1.0;
        lastObservedStep = -1;
        if (policy != null) {
            policy.newGeneration();
        }
        status.newGeneration(w.generation());
        rebuild();
        publisher.dropGenerationsBefore(w.generation());
        for (SidecarSessions.Sidecar s : sessions.authenticated()) {
            WorldWorker n = w.byPodIndex(s.podIndex);
            if (n == null) {
                sessions.refuse(s.id, new Refusal(ErrorNotice.Code.NOT_IN_WORLD, "pod index " + s.podIndex
                        + " is not part of world generation " + w.generation()));
                continue;
            }
            s.nodeRank = n.nodeRank();
            s.worldHeldBack = false;
            s.send(worldMessage());
            s.send(publisher.retention());
        }
        lastRetentionBroadcast = clock.getAsLong();
        maybeStartPlanning();
    }

    private void rebuild() {
        setup = null;
        slowRanks = null;
        silentRanks = new int[0];
        status.stragglers(List.of());
        if (spec == null || world == null || world.nodes().isEmpty()) {
            intake.unusable(configError);
            return;
        }
        try {
            setup = PlanningSetup.of(identity.job(), spec, world);
            intake.use(setup.parallelism(), spec.moeLayers(), spec.experts());
            slowRanks = new SlowRanks(setup.parallelism().gpus());
            forecast.restart(spec.moeLayers(), setup.parallelism().dp(), setup.parallelism().ep(), spec.experts());
            configError = "";
        } catch (RuntimeException e) {
            configError = "cannot plan world generation " + world.generation() + ": " + e.getMessage();
            LOG.warning(configError);
            intake.unusable(configError);
        }
        status.planError(configError);
    }

    // ---------------------------------------------------------------- sidecar streams

    public long open(SidecarSession s) {
        return sessions.open(s);
    }

    public void onClose(long id) {
        sessions.closed(id);
    }

    public void onMessage(long id, SidecarMessage m) {
        SidecarSessions.Sidecar s = sessions.get(id);
        if (s == null) {
            return;
        }
        if (!s.authenticated) {
            if (m.getKindCase() != SidecarMessage.KindCase.HELLO) {
                sessions.refuse(id, new Refusal(ErrorNotice.Code.PROTOCOL_VIOLATION,
                        "the first message must be hello, got " + m.getKindCase()));
                return;
            }
            onHello(s, m.getHello());
            return;
        }
        switch (m.getKindCase()) {
            case REPORT -> warnIfRefused(s, intake.take(s.podIndex, s.nodeRank, world, m.getReport(), this::released));
            case ADOPTION -> onAdoption(s, m.getAdoption());
            case HEALTH -> warnIfRefused(s, sidecarHealth.record(s, m.getHealth(), clock.getAsLong()));
            case RESYNC -> resync(s, m.getResync().hasAfter() ? Protocol.fromWire(m.getResync().getAfter()) : null);
            case HELLO -> sessions.refuse(id, new Refusal(ErrorNotice.Code.PROTOCOL_VIOLATION, "hello sent twice on one stream"));
            case KIND_NOT_SET -> sessions.warn(s, new Refusal(ErrorNotice.Code.PROTOCOL_VIOLATION, "empty message"));
        }
    }

    private void onHello(SidecarSessions.Sidecar s, Hello h) {
        Refusal why = authenticator.check(h, world);
        if (why != null) {
            sessions.refuse(s.id, why);
            return;
        }
        s.authenticated = true;
        s.podIndex = h.getPodIndex();
        s.nodeRank = world.byPodIndex(h.getPodIndex()).nodeRank();
        s.send(BalancerMessage.newBuilder().setWelcome(Welcome.newBuilder()
                .setProtocolVersion(Protocol.VERSION).setBalancerId(identity.balancerId()).setLayers(spec.moeLayers())
                .setExperts(spec.experts()).setGpusPerWorker(world.gpusPerWorker()).setAcceptsHealth(true)).build());
        // Plans before the world: a trainer that waits for the world before its first step (docs/protocol.md) then
        // finds the world's first plan already held, and adopts it at that step.
        resync(s, null);
        if (firstPlanOnItsWay()) {
            s.worldHeldBack = true;
        } else {
            s.send(worldMessage());
        }
    }

    /** The current world's first plan is being computed (from the history, or its first steps). */
    private boolean firstPlanOnItsWay() {
        return planInUse == null && policy != null && policy.planning();
    }

    /** Sends the world to sidecars that wait for it, once no first plan is on its way any more. */
    private void releaseHeldWorlds() {
        if (firstPlanOnItsWay()) {
            return;
        }
        for (SidecarSessions.Sidecar s : sessions.authenticated()) {
            if (s.worldHeldBack) {
                s.worldHeldBack = false;
                s.send(worldMessage());
            }
        }
    }

    private void warnIfRefused(SidecarSessions.Sidecar s, Refusal why) {
        if (why != null) {
            sessions.warn(s, why);
        }
    }

    private void onAdoption(SidecarSessions.Sidecar s, AdoptionReport a) {
        Refusal why = adoptions.record(s.podIndex, s.nodeRank, a);
        if (why != null) {
            sessions.warn(s, why);
            return;
        }
        PlanVersion oldest = adoptions.oldestInUse();
        if (oldest == null) {
            return;
        }
        if (publisher.retainFrom(oldest)) {
            announceRetention();
        }
        status.adopted(oldest, adoptions.lastAdoptedAt(oldest));
        firstPlan.adopted(oldest, adoptions.lastAdoptedAt(oldest));
        status.firstPlan(firstPlan.current());
        if (oldest.worldGeneration() == world.generation() && oldest.sequence() > 0 && !oldest.equals(running)) {
            running = oldest;
            runningPlan = publisher.plan(oldest);
            measuredSteps.plansInUse(adoptions.lastAdoptedAt(oldest));
        }
    }

    private void resync(SidecarSessions.Sidecar s, PlanVersion after) {
        s.send(publisher.retention());
        publisher.retainedAfter(after).forEach(s::send);
    }

    private BalancerMessage worldMessage() {
        return BalancerMessage.newBuilder().setWorld(WorldChange.newBuilder().setGeneration(world.generation())
                .setWorldJson(WorldDocumentJson.encode(world))).build();
    }

    private void announceRetention() {
        sessions.broadcast(publisher.retention());
        lastRetentionBroadcast = clock.getAsLong();
    }

    // ---------------------------------------------------------------- planning

    /** One step of the current world, assembled from every rank's report or released incomplete. */
    private void released(StepAssembler.Released r) {
        long step = r.step();
        forecast.observe(step, r.loads());
        if (r.complete()) {
            measure(step, r.loads());
            measuredSteps.timed(step, r.slowestStepSeconds(), r.slowestComputeSeconds());
        }
        stragglers(r.complete() && slowRanks.step(r.rankComputeSeconds(), r.rankStepSeconds()));
        lastObservedStep = Math.max(lastObservedStep, step);
        lastObservedGeneration = world.generation();
        firstPlan.stepSeen(step);
        status.firstPlan(firstPlan.current());
        policy.stepObserved(() -> PlacementScore.of(setup.context(), setup.planner().routing(), planInUse,
                forecast.predict()).imbalance());
        maybeStartPlanning();
    }

    /**
     * Keeps status.balancer.stragglers to the slow and silent ranks, rebuilt only when either set changed. A rank
     * flagged slow that then stops reporting is listed once, as silent (its slow flag stays until windows close).
     */
    private void stragglers(boolean slowChanged) {
        int[] silent = intake.silentRankList();
        if (!slowChanged && Arrays.equals(silent, silentRanks)) {
            return;
        }
        silentRanks = silent;
        List<BalancerStatus.Straggler> list = new ArrayList<>();
        for (int rank : slowRanks.flagged()) {
            if (Arrays.binarySearch(silent, rank) < 0) {
                list.add(new BalancerStatus.Straggler(rank, podOf(rank), BalancerStatus.Straggler.SLOW));
            }
        }
        for (int rank : silent) {
            list.add(new BalancerStatus.Straggler(rank, podOf(rank), BalancerStatus.Straggler.SILENT));
        }
        list.sort(Comparator.comparingLong(BalancerStatus.Straggler::rank));
        status.stragglers(list);
    }

    /** The worker pod GPU rank {@code rank} of the current world runs in ("" when the world does not name one). */
    private String podOf(int rank) {
        int nodeRank = rank / world.gpusPerWorker();
        for (WorldWorker w : world.nodes()) {
            if (w.nodeRank() == nodeRank) {
                return w.pod();
            }
        }
        return "";
    }

    /**
     * Scores a complete step's counts under the static layout and under the plan every rank runs, at most once a
     * second whatever the step rate (two routing passes), for the metrics and status.balancer.measured. Reports are
     * taken only while a planning setup exists (ReportIntake.use).
     */
    private void measure(long step, ModelLoads loads) {
        long now = clock.getAsLong();
        if (measured != null && now - lastMeasuredAt < MEASURE_EVERY_NANOS) {
            return;
        }
        PlacementScore.Breakdown before = PlacementScore.breakdown(setup.context(), setup.planner().routing(), null, loads);
        PlacementScore.Breakdown after = running == null ? before : runningPlan == null ? null
                : PlacementScore.breakdown(setup.context(), setup.planner().routing(), runningPlan, loads);
        measured = after == null ? unknownAfter(before) : scores(before, after);
        if (after != null) { // the job page's per-GPU loads, under the static layout and the plan every rank runs
            gpuView = new JobPageJson.GpuView(GpuLoads.of(setup.context(), setup.planner().routing(), null, loads),
                    GpuLoads.of(setup.context(), setup.planner().routing(), running == null ? null : runningPlan, loads));
        }
        measuredSteps.scored(step, before.whole().imbalance(), running == null || after == null ? Double.NaN
                : after.whole().imbalance());
        lastMeasuredAt = now;
    }

    /** Before only: every rank runs a plan this balancer does not hold (published before it restarted). */
    private static BalancerMetricsState.Scores unknownAfter(PlacementScore.Breakdown before) {
        double[] none = new double[before.layers().length];
        Arrays.fill(none, Double.NaN);
        return new BalancerMetricsState.Scores(before.whole().imbalance(), Double.NaN, before.layers(), none);
    }

    private void maybeStartPlanning() {
        if (policy == null || setup == null || spec.mode().equals("off")) {
            return;
        }
        long now = clock.getAsLong();
        if (!policy.shouldStart(now)) {
            return;
        }
        ModelLoads predicted = forecast.predict();
        if (predicted == null) {
            return;
        }
        long sequence;
        try {
            sequence = sequencer.next(now);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot reserve plan sequences in status; not publishing", e);
            return;
        }
        policy.started(now);
        PlanningSetup s = setup;
        long generation = world.generation();
        PlanRequest request = new PlanRequest(s.context(), predicted, planInUse, new PlanVersion(generation, sequence),
                Math.max(0, lastObservedStep + 1));
        boolean fromHistory = forecast.observedSteps() == 0;
        runner.run(() -> plan(s, request, fromHistory), this::onPlanned, this::onPlanFailed);
    }

    /** Runs off the loop thread: plans, then scores the static layout and the plan on the prediction. */
    private static PlanResult plan(PlanningSetup s, PlanRequest request, boolean fromHistory) {
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        Plan plan = s.planner().plan(request);
        long took = System.nanoTime() - t0;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
        var before = PlacementScore.breakdown(s.context(), s.planner().routing(), null, request.predicted());
        var after = PlacementScore.breakdown(s.context(), s.planner().routing(), plan, request.predicted());
        return new PlanResult(plan, scores(before, after), before.whole().speedupTo(after.whole()),
                request.version().worldGeneration(), took, cpu, fromHistory,
                PlanMoves.bytes(s.context(), request.current(), plan));
    }

    private static BalancerMetricsState.Scores scores(PlacementScore.Breakdown before, PlacementScore.Breakdown after) {
        return new BalancerMetricsState.Scores(before.whole().imbalance(), after.whole().imbalance(), before.layers(),
                after.layers());
    }

    private void onPlanned(PlanResult r) {
        plansComputed++;
        planNanosTotal += r.planNanos();
        if (policy.finished(clock.getAsLong(), r.generation(), worldGeneration())) {
            lastPlanNanos = r.planNanos();
            lastPlanCpuNanos = r.planCpuNanos();
            planInUse = r.plan();
            BalancerMessage plan = publisher.publish(r.plan());
            BalancerMessage retention = publisher.retention();
            for (SidecarSessions.Sidecar s : sessions.authenticated()) {
                s.send(plan);
                s.send(retention); // with the plan, so a sidecar learns at once which older plans it may drop
            }
            status.planned(r.predicted().before(), r.predicted().after(), r.predictedSpeedup());
            predicted = r.predicted();
            predictedGain = r.predictedSpeedup();
            lastBytesMoved = r.bytesMoved();
            bytesMovedTotal += r.bytesMoved();
            firstPlan.published(r.fromHistory());
            status.firstPlan(firstPlan.current());
            persistHistory(); // a restart then plans the next world from at least the history this plan was made from
        }
        maybeStartPlanning(); // the next plan, or the new world's first when this one's world is gone
        releaseHeldWorlds();
    }

    private void onPlanFailed(Throwable e) {
        policy.failed(clock.getAsLong());
        LOG.log(Level.WARNING, "planning failed", e);
        releaseHeldWorlds();
    }

    // ---------------------------------------------------------------- periodic work

    /**
     * Called about once a second: re-announces retention (lets sidecars notice a lost plan), starts a re-plan the
     * duty cycle held back, refreshes the step heartbeat and flushes status, and refreshes the snapshots the HTTP endpoints serve (so they never wait
     * for this thread).
     */
    public void tick() {
        long now = clock.getAsLong();
        statusSnapshot = statusJson();
        loadsSnapshot = loadsJson();
        metricsState = metricsNow();
        if (measured != null) {
            PlanVersion newest = publisher.newest();
            pageHistory.add(new PageHistory.Point(unixNanosNow() / 1_000_000, worldGeneration(), lastObservedStep,
                    measured.before(), measured.after(), status.current().imbalanceAfter(),
                    newest == null ? "" : newest.toString(), measuredSteps.summary()));
        }
        pageSnapshot = pageJson();
        if (now - lastRetentionBroadcast >= RETENTION_EVERY_NANOS) {
            announceRetention();
        }
        maybeStartPlanning();
        if (world != null && lastObservedStep >= 0) {
            status.progress(world.generation(), lastObservedStep, measuredSteps.summary(), now);
        }
        status.flush(now);
        history.maybeWrite(forecast.history(), lastObservedGeneration, now);
    }

    /** Persists the load history now if it changed (at shutdown, and with each published plan). */
    public void persistHistory() {
        history.flush(forecast.history(), lastObservedGeneration, clock.getAsLong());
    }

    private static long unixNanosNow() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    // ---------------------------------------------------------------- read side (HTTP, tests)

    /** The metrics' view as of the last tick; safe from any thread. */
    public BalancerMetricsState metricsState() {
        return metricsState;
    }

    /** The metrics' view now (the loop thread, or a test). */
    public BalancerMetricsState metricsNow() {
        PlanVersion newest = publisher.newest();
        boolean current = newest != null && world != null && newest.worldGeneration() == world.generation();
        return new BalancerMetricsState(worldGeneration(), newest == null ? 0 : newest.sequence(), predicted, measured,
                predictedGain, plansComputed, planNanosTotal, lastBytesMoved, bytesMovedTotal,
                sessions.authenticatedCount(),
                world == null ? 0 : current ? adoptions.ranksBehind(newest) : world.gpus(), silentRanks.length,
                slowRanks == null ? 0 : slowRanks.count(), sessions.refusals(),
                sidecarHealth.totals(sessions.authenticated(), clock.getAsLong()));
    }

    /** Knows its world and spec (readiness); safe from any thread. */
    public boolean ready() {
        return ready;
    }

    /** This world generation's newest plan, or null before its first. */
    public Plan currentPlan() {
        return planInUse;
    }

    /** The newest published plan as ballast-plan/v1 JSON, or null; safe from any thread. */
    @Override
    public String currentPlanJson() {
        return publisher.newestJson();
    }

    /** {@link #statusJson()} as of the last tick; safe from any thread. */
    @Override
    public String statusSnapshot() {
        return statusSnapshot;
    }

    /** {@link #loadsJson()} as of the last tick; safe from any thread. */
    @Override
    public String loadsSnapshot() {
        return loadsSnapshot;
    }

    public BalancerStatus status() {
        return status.current();
    }

    public long worldGeneration() {
        return world == null ? 0 : world.generation();
    }

    public PlanVersion lastPublished() {
        return publisher.newest();
    }

    public long plansPublished() {
        return publisher.published();
    }

    public long reportsAccepted() {
        return intake.accepted();
    }

    public long reportsRefused() {
        return intake.refused();
    }

    /** {@link #pageJson()} as of the last tick; safe from any thread. */
    public String pageSnapshot() {
        return pageSnapshot;
    }

    /** The job page's document (docs/dashboard.md). */
    public String pageJson() {
        PlanVersion newest = publisher.newest();
        return JobPageJson.of(identity, world, new JobPageJson.Activity(ready, configError,
                        sessions.authenticatedCount(), publisher.published(), newest == null ? "" : newest.toString()),
                status.current(), forecast.history(), gpuView, pageHistory.points(), setup == null
                        ? JobPageJson.InUse.NONE : new JobPageJson.InUse(setup.parallelism(), spec.moeLayers(),
                        spec.experts(), runningPlan, running == null ? "" : running.toString()));
    }

    /** Recent per-layer loads for the dashboard: the last complete step's totals and the smoothed history. */
    public String loadsJson() {
        return DashboardJson.loads(identity, worldGeneration(), forecast.history());
    }

    public String statusJson() {
        PlanVersion newest = publisher.newest();
        return DashboardJson.status(identity, new DashboardJson.Activity(worldGeneration(), ready, configError,
                sessions.authenticatedCount(), intake.accepted(), intake.refused(), sessions.hellosRefused(),
                publisher.published(), newest == null ? "" : newest.toString(), lastPlanNanos,
                lastPlanCpuNanos, historyRestoredSteps),
                forecast.history(), status.current());
    }
}
