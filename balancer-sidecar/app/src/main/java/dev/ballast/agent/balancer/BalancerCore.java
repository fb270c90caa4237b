package dev.ballast.agent.balancer;

import com.google.protobuf.ByteString;
import dev.ballast.agent.proto.AdoptionReport;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.proto.LoadReport;
import dev.ballast.agent.proto.PlanMessage;
import dev.ballast.agent.proto.Retention;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.proto.Welcome;
import dev.ballast.agent.proto.WorldChange;
import dev.ballast.agent.wire.BadReportException;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.agent.wire.ReportParser;
import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.load.EmaPredictor;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GpuPlace;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The balancer's state machine, independent of transports and Kubernetes: authenticates sidecars, assembles and
 * predicts loads, plans, publishes versioned plans, tracks adoptions and retention, and keeps status.balancer.
 * <p>
 * Not thread-safe: one thread (the runtime's loop, or a test) calls every method. Planning runs through a
 * {@link PlanRunner}, synchronously in tests or on a worker thread that posts the result back to the loop.
 */
public final class BalancerCore {
    private static final Logger LOG = Logger.getLogger(BalancerCore.class.getName());

    /** Plans the balancer keeps for resyncs; sidecars keep at most PlanStore.DEFAULT_CAPACITY. */
    public static final int RETAINED_PLANS = 32;
    /** Plan sequences reserved (persisted in status) ahead of use, so a restart never reuses one. */
    public static final int SEQUENCE_BLOCK = 64;
    /** Re-plan early when the plan in use predicts an average busiest-GPU/mean above 1 + this. */
    public static final double GAIN_THRESHOLD = 0.10;
    /** Steps between two checks of the plan in use against the prediction. */
    public static final int GAIN_CHECK_EVERY = 10;
    public static final long STATUS_MIN_INTERVAL_NANOS = 2_000_000_000L;
    /** How often the step heartbeat in status.balancer is refreshed while steps advance (docs/elastic.md). */
    public static final long HEARTBEAT_EVERY_NANOS = 30_000_000_000L;
    public static final long RETENTION_EVERY_NANOS = 5_000_000_000L;

    /** One sidecar connection as the core sees it. */
    public interface Session {
        void send(BalancerMessage m);

        /** Sends nothing more and closes the stream (after the error, when there is one). */
        void close(ErrorNotice why);
    }

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

    public record PlanResult(Plan plan, double imbalanceBefore, double imbalanceAfter, double predictedSpeedup,
                             long generation, long planNanos) {
    }

    private static final class SessionState {
        final Session session;
        boolean authenticated;
        int podIndex = -1;
        int nodeRank = -1;
        String pod = "";

        SessionState(Session session) {
            this.session = session;
        }
    }

    private final String job;
    private final String namespace;
    private final byte[] token;
    private final String balancerId;
    private final StatusStore statusStore;
    private final PlanRunner runner;
    private final LongSupplier clock;

    private PlanningSpec spec;
    private WorldDocument world;
    private PlanningContext ctx;
    private Planner planner;
    private Routing routing;
    private StepAssembler assembler;
    private EmaPredictor predictor;
    private final LoadHistory history = new LoadHistory(EmaPredictor.DEFAULT_ALPHA);
    private String configError = "";

    private long lastObservedStep = -1;
    private long stepsSincePlan;
    private long stepsSinceGainCheck;
    private boolean planning;
    private boolean planWanted;
    /** The next plan is the first of its world generation: it is started without waiting for the duty cycle. */
    private boolean firstOfGeneration = true;
    private long planningStartedNanos;
    private long notBeforeNanos = Long.MIN_VALUE;

    private final TreeMap<PlanVersion, PlanMessage> retained = new TreeMap<>();
    private PlanVersion lastPublished;
    private Plan currentPlan;
    private long sequenceReserved;
    private long sequenceNext;

    private final Map<Integer, PlanVersion> adopted = new HashMap<>();
    private final Map<Integer, Long> adoptedStep = new HashMap<>();

    private final Map<Long, SessionState> sessions = new LinkedHashMap<>();
    private long nextSessionId = 1;

    private BalancerStatus status = new BalancerStatus("0.0", 0, -1, 1.0, 1.0, 1.0, null);
    private boolean statusDirty;
    private long lastStatusWrite = Long.MIN_VALUE / 2;
    private long lastHeartbeat = Long.MIN_VALUE / 2;
    private long lastRetentionBroadcast = Long.MIN_VALUE / 2;

    private volatile boolean ready;
    private volatile String statusSnapshot = "{}";
    private volatile String loadsSnapshot = "{}";
    private volatile String planSnapshot;

    private long reportsAccepted;
    private long reportsRefused;
    private long hellosRefused;
    private long plansPublished;
    private long lastPlanNanos;

    public BalancerCore(String job, String namespace, String token, StatusStore statusStore, PlanRunner runner,
                        LongSupplier nanoClock, String balancerId) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("the balancer needs the job's sidecar token (BALLAST_TOKEN)");
        }
        this.job = job;
        this.namespace = namespace;
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.statusStore = statusStore;
        this.runner = runner;
        this.clock = nanoClock;
        this.balancerId = balancerId;
        this.sequenceReserved = statusStore.loadPlanSequence();
        this.sequenceNext = sequenceReserved + 1;
        this.status = new BalancerStatus("0.0", sequenceReserved, -1, 1.0, 1.0, 1.0, null);
    }

    // ---------------------------------------------------------------- configuration

    /** A new world document (its spec frozen at commit, docs/contracts.md); older or equal generations are ignored. */
    public void onWorld(WorldDocument w) {
        if (world != null && w.generation() <= world.generation()) {
            return;
        }
        world = w;
        spec = w.spec();
        ready = true;
        adopted.clear();
        adoptedStep.clear();
        currentPlan = null;
        lastObservedStep = -1;
        firstOfGeneration = true;
        status = new BalancerStatus(w.generation() + ".0", status.planSequence(), -1, 1.0, 1.0, 1.0, status.heartbeat());
        statusDirty = true;
        rebuild();
        // Plans of older generations are of no use to anyone now.
        retained.headMap(new PlanVersion(w.generation(), 0)).clear();
        for (Map.Entry<Long, SessionState> e : new ArrayList<>(sessions.entrySet())) {
            SessionState st = e.getValue();
            if (!st.authenticated) {
                continue;
            }
            WorldWorker n = w.byPodIndex(st.podIndex);
            if (n == null) {
                refuse(e.getKey(), ErrorNotice.Code.NOT_IN_WORLD, "pod index " + st.podIndex
                        + " is not part of world generation " + w.generation());
                continue;
            }
            st.nodeRank = n.nodeRank();
            st.session.send(worldMessage());
            st.session.send(retentionMessage());
        }
        lastRetentionBroadcast = clock.getAsLong();
        planWanted = true;
        maybeStartPlanning();
    }

    private void rebuild() {
        ctx = null;
        if (world == null || world.nodes().isEmpty()) {
            return;
        }
        try {
            Map<String, Integer> domains = new HashMap<>();
            Map<String, Integer> racks = new HashMap<>();
            List<GpuPlace> gpus = new ArrayList<>();
            for (WorldWorker n : world.nodes()) {
                String domain = n.domain().isEmpty() ? (n.node().isEmpty() ? n.pod() : n.node()) : n.domain();
                int d = domains.computeIfAbsent(domain, k -> domains.size());
                int r = racks.computeIfAbsent(n.rack(), k -> racks.size());
                for (int i = 0; i < world.gpusPerWorker(); i++) {
                    gpus.add(new GpuPlace(d, r));
                }
            }
            Parallelism par = Parallelism.resolve(gpus.size(), spec.experts(), spec.expertParallel(), spec.pipeline());
            MoeShape shape = shape(job, spec);
            Mode mode = spec.mode().equals("off") ? Mode.REPLICATE : Mode.parse(spec.mode());
            // A memory budget caps the replicas per GPU below redundantSlotsPerGpu where it is the tighter limit.
            int slots = MemoryBudget.slotsWithin(shape, mode, par, spec.memoryBudgetBytes(), spec.redundantSlotsPerGpu());
            PlanningContext c = new PlanningContext(Topology.of(gpus, Hardware.DEFAULT), par, shape, mode, slots,
                    spec.replanEverySteps());
            planner = Planners.byName(spec.planner());
            routing = planner.routing();
            assembler = new StepAssembler(par, spec.moeLayers(), spec.experts());
            predictor = new EmaPredictor(EmaPredictor.DEFAULT_ALPHA);
            ctx = c;
            configError = "";
        } catch (RuntimeException e) {
            configError = "cannot plan world generation " + world.generation() + ": " + e.getMessage();
            LOG.warning(configError);
        }
    }

    /** The model as the planner sees it: gradients in the parameters' precision, 12 bytes of optimizer state (Adam). */
    static MoeShape shape(String job, PlanningSpec spec) {
        return new MoeShape(job, spec.moeLayers(), spec.experts(), spec.topK(), spec.sharedExperts(),
                spec.hiddenSize(), spec.ffnHiddenSize(), spec.bytesPerParam(), spec.bytesPerParam(), 12, 3);
    }

    // ---------------------------------------------------------------- sessions

    public long open(Session s) {
        long id = nextSessionId++;
        sessions.put(id, new SessionState(s));
        return id;
    }

    public void onClose(long id) {
        sessions.remove(id);
    }

    public void onMessage(long id, SidecarMessage m) {
        SessionState st = sessions.get(id);
        if (st == null) {
            return;
        }
        if (!st.authenticated) {
            if (m.getKindCase() != SidecarMessage.KindCase.HELLO) {
                refuse(id, ErrorNotice.Code.PROTOCOL_VIOLATION, "the first message must be hello, got " + m.getKindCase());
                return;
            }
            onHello(id, st, m.getHello());
            return;
        }
        switch (m.getKindCase()) {
            case REPORT -> onReport(st, m.getReport());
            case ADOPTION -> onAdoption(st, m.getAdoption());
            case RESYNC -> resync(st, m.getResync().hasAfter() ? Protocol.fromWire(m.getResync().getAfter()) : null);
            case HELLO -> refuse(id, ErrorNotice.Code.PROTOCOL_VIOLATION, "hello sent twice on one stream");
            case KIND_NOT_SET -> error(st, ErrorNotice.Code.PROTOCOL_VIOLATION, "empty message");
        }
    }

    private void onHello(long id, SessionState st, Hello h) {
        if (h.getProtocolVersion() < Protocol.MIN_SUPPORTED || h.getProtocolVersion() > Protocol.VERSION) {
            refuse(id, ErrorNotice.Code.INCOMPATIBLE_PROTOCOL, "sidecar speaks protocol " + h.getProtocolVersion()
                    + " but this balancer supports " + Protocol.MIN_SUPPORTED + ".." + Protocol.VERSION
                    + "; run the same ballast/agent image version for sidecars and the balancer");
            return;
        }
        if (h.getToken().isEmpty()) {
            refuse(id, ErrorNotice.Code.UNAUTHENTICATED, "no credentials: hello carries no token");
            return;
        }
        if (!MessageDigest.isEqual(token, h.getToken().getBytes(StandardCharsets.UTF_8))) {
            refuse(id, ErrorNotice.Code.UNAUTHENTICATED, "wrong token for job " + namespace + "/" + job);
            return;
        }
        if (!job.equals(h.getJob()) || !namespace.equals(h.getNamespace())) {
            refuse(id, ErrorNotice.Code.WRONG_JOB, "this balancer serves " + namespace + "/" + job + ", not "
                    + h.getNamespace() + "/" + h.getJob());
            return;
        }
        if (world == null || world.nodes().isEmpty()) { // a committed world always carries its spec
            refuse(id, ErrorNotice.Code.NO_WORLD, "no world committed yet; retry later");
            return;
        }
        WorldWorker n = world.byPodIndex(h.getPodIndex());
        if (n == null) {
            boolean stale = h.getWorldGeneration() > 0 && h.getWorldGeneration() < world.generation();
            refuse(id, stale ? ErrorNotice.Code.STALE_GENERATION : ErrorNotice.Code.NOT_IN_WORLD,
                    "pod index " + h.getPodIndex() + (stale ? " of world generation " + h.getWorldGeneration() : "")
                            + " is not part of world generation " + world.generation());
            return;
        }
        st.authenticated = true;
        st.podIndex = h.getPodIndex();
        st.nodeRank = n.nodeRank();
        st.pod = h.getPodName();
        st.session.send(BalancerMessage.newBuilder().setWelcome(Welcome.newBuilder()
                .setProtocolVersion(Protocol.VERSION).setBalancerId(balancerId).setLayers(spec.moeLayers())
                .setExperts(spec.experts()).setGpusPerWorker(world.gpusPerWorker())).build());
        st.session.send(worldMessage());
        resync(st, null);
    }

    private void onReport(SessionState st, LoadReport r) {
        if (r.getWorldGeneration() < world.generation()) {
            reportsRefused++;
            error(st, ErrorNotice.Code.STALE_GENERATION, "report of rank " + r.getGpuRank() + " step " + r.getStep()
                    + " is from world generation " + r.getWorldGeneration() + "; the current generation is " + world.generation());
            return;
        }
        if (r.getWorldGeneration() > world.generation()) {
            reportsRefused++;
            error(st, ErrorNotice.Code.BAD_REPORT, "report from world generation " + r.getWorldGeneration()
                    + " but the balancer knows generation " + world.generation() + " only");
            return;
        }
        int g = world.gpusPerWorker();
        long lo = (long) st.nodeRank * g;
        if (r.getGpuRank() < lo || r.getGpuRank() >= lo + g) {
            reportsRefused++;
            error(st, ErrorNotice.Code.BAD_REPORT, "gpu rank " + r.getGpuRank() + " is not a rank of pod index "
                    + st.podIndex + " (GPU ranks " + lo + ".." + (lo + g - 1) + ")");
            return;
        }
        if (ctx == null) {
            reportsRefused++;
            error(st, ErrorNotice.Code.BAD_REPORT, "reports cannot be used: " + (configError.isEmpty() ? "no plan context" : configError));
            return;
        }
        Parallelism par = ctx.parallelism();
        int stage = r.getGpuRank() / (par.ep() * par.dp());
        int first = par.firstLayer(stage, spec.moeLayers());
        int n = par.firstLayer(stage + 1, spec.moeLayers()) - first;
        try {
            ReportParser.check(r, first, n, spec.experts());
        } catch (BadReportException e) {
            reportsRefused++;
            error(st, ErrorNotice.Code.BAD_REPORT, e.getMessage());
            return;
        }
        reportsAccepted++;
        for (Map.Entry<Long, ModelLoads> done : assembler.add(r.getStep(), r.getGpuRank(), first, n, r::getCounts)) {
            observe(done.getKey(), done.getValue());
            assembler.recycle(done.getValue()); // the predictors copied what they keep
        }
    }

    private void observe(long step, ModelLoads loads) {
        predictor.observe(loads);
        long[][] totals = new long[loads.layers()][];
        for (int l = 0; l < loads.layers(); l++) {
            long[] t = new long[loads.experts()];
            for (int c = 0; c < loads.dp(); c++) {
                long[] x = loads.expertTotals(l, c);
                for (int e = 0; e < t.length; e++) {
                    t[e] += x[e];
                }
            }
            totals[l] = t;
        }
        history.observe(step, totals);
        lastObservedStep = Math.max(lastObservedStep, step);
        stepsSincePlan++;
        if (currentPlan == null || stepsSincePlan >= spec.replanEverySteps()) {
            planWanted = true;
        } else if (++stepsSinceGainCheck >= GAIN_CHECK_EVERY) {
            stepsSinceGainCheck = 0;
            double inUse = PlanEvaluation.score(ctx, routing, currentPlan, predictor.predict(ctx.parallelism().ep(),
                    spec.experts()))[0];
            if (inUse > 1 + GAIN_THRESHOLD && stepsSincePlan >= Math.max(1, spec.replanEverySteps() / 5)) {
                planWanted = true;
            }
        }
        maybeStartPlanning();
    }

    /** Uniform per-source attribution of the history: the first plan of a generation, before any of its own steps. */
    private ModelLoads fromHistory() {
        long[][] h = history.smoothed();
        Parallelism par = ctx.parallelism();
        if (h == null || h.length != spec.moeLayers() || h[0].length != spec.experts()) {
            return null;
        }
        ModelLoads m = new ModelLoads(h.length, par.dp(), par.ep(), spec.experts());
        long sources = (long) par.dp() * par.ep();
        for (int l = 0; l < h.length; l++) {
            for (int c = 0; c < par.dp(); c++) {
                long[] dst = m.counts(l, c);
                for (int s = 0; s < par.ep(); s++) {
                    long idx = (long) c * par.ep() + s;
                    for (int e = 0; e < spec.experts(); e++) {
                        // Split h[l][e] over all sources exactly: the first (h mod sources) sources get one more.
                        dst[s * spec.experts() + e] = h[l][e] / sources + (idx < h[l][e] % sources ? 1 : 0);
                    }
                }
            }
        }
        return m;
    }

    private void maybeStartPlanning() {
        if (!planWanted || planning || ctx == null || spec.mode().equals("off")) {
            return;
        }
        if (!firstOfGeneration && clock.getAsLong() < notBeforeNanos) {
            return; // planning may use at most half of the balancer's time (see onPlanned)
        }
        ModelLoads predicted = predictor.observedSteps() > 0 ? predictor.predict(ctx.parallelism().ep(), spec.experts())
                : fromHistory();
        if (predicted == null) {
            return;
        }
        long seq;
        try {
            seq = allocateSequence();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot reserve plan sequences in status; not publishing", e);
            return;
        }
        planWanted = false;
        planning = true;
        firstOfGeneration = false;
        planningStartedNanos = clock.getAsLong();
        stepsSincePlan = 0;
        stepsSinceGainCheck = 0;
        PlanningContext c = ctx;
        Planner p = planner;
        Routing rt = routing;
        Plan current = currentPlan;
        long generation = world.generation();
        PlanVersion version = new PlanVersion(generation, seq);
        long earliest = Math.max(0, lastObservedStep + 1);
        runner.run(() -> {
            long t0 = System.nanoTime();
            Plan plan = p.plan(new PlanRequest(c, predicted, current, version, earliest));
            long took = System.nanoTime() - t0;
            double[] before = PlanEvaluation.score(c, rt, null, predicted);
            double[] after = PlanEvaluation.score(c, rt, plan, predicted);
            return new PlanResult(plan, before[0], after[0], after[1] > 0 ? before[1] / after[1] : 1.0, generation, took);
        }, this::onPlanned, e -> {
            planning = false;
            long now = clock.getAsLong();
            notBeforeNanos = now + Math.max(now - planningStartedNanos, 1_000_000_000L);
            LOG.log(Level.WARNING, "planning failed", e);
        });
    }

    private long allocateSequence() {
        if (sequenceNext > sequenceReserved) {
            long upTo = sequenceNext + SEQUENCE_BLOCK - 1;
            BalancerStatus s = new BalancerStatus(status.planVersion(), upTo, status.adoptedAtStep(),
                    status.imbalanceBefore(), status.imbalanceAfter(), status.predictedSpeedup(), status.heartbeat());
            statusStore.write(s); // must be durable before any sequence of the block is used
            status = s;
            sequenceReserved = upTo;
            lastStatusWrite = clock.getAsLong();
            statusDirty = false;
        }
        return sequenceNext++;
    }

    private void onPlanned(PlanResult r) {
        planning = false;
        // Duty cycle: wait at least as long as this plan took before starting the next one (a world change excepted).
        long now = clock.getAsLong();
        notBeforeNanos = now + (now - planningStartedNanos);
        if (world == null || r.generation() != world.generation()) {
            maybeStartPlanning(); // the world changed while planning; plan again for the new one
            return;
        }
        lastPlanNanos = r.planNanos();
        publish(r.plan());
        status = new BalancerStatus(status.planVersion(), status.planSequence(), status.adoptedAtStep(),
                r.imbalanceBefore(), r.imbalanceAfter(), r.predictedSpeedup(), status.heartbeat());
        statusDirty = true;
        maybeStartPlanning();
    }

    private void publish(Plan plan) {
        byte[] bytes = PlanBinary.encode(plan);
        PlanMessage.Builder pm = PlanMessage.newBuilder().setVersion(Protocol.toWire(plan.version()))
                .setEarliestStep(plan.earliestStep()).setPayload(ByteString.copyFrom(bytes))
                .setFingerprint(PlanBinary.fingerprint(plan));
        if (lastPublished != null) {
            pm.setPrevious(Protocol.toWire(lastPublished));
        }
        long now = java.time.Instant.now().getEpochSecond() * 1_000_000_000L + java.time.Instant.now().getNano();
        PlanMessage msg = pm.setPublishedUnixNanos(now).build();
        retained.put(plan.version(), msg);
        lastPublished = plan.version();
        currentPlan = plan;
        planSnapshot = PlanJson.encode(plan);
        plansPublished++;
        trimRetained();
        BalancerMessage out = BalancerMessage.newBuilder().setPlan(msg).build();
        BalancerMessage ret = retentionMessage();
        for (SessionState st : sessions.values()) {
            if (st.authenticated) {
                st.session.send(out);
                st.session.send(ret);
            }
        }
    }

    private void onAdoption(SessionState st, AdoptionReport a) {
        int g = world.gpusPerWorker();
        long lo = (long) st.nodeRank * g;
        if (a.getWorldGeneration() != world.generation() || a.getAdopted().getWorldGeneration() != world.generation()) {
            return; // about another world: irrelevant to this generation's retention
        }
        if (a.getGpuRank() < lo || a.getGpuRank() >= lo + g) {
            error(st, ErrorNotice.Code.BAD_REPORT, "adoption of gpu rank " + a.getGpuRank() + " is not from pod index " + st.podIndex);
            return;
        }
        PlanVersion v = Protocol.fromWire(a.getAdopted());
        PlanVersion before = adopted.get(a.getGpuRank());
        if (before != null && v.compareTo(before) <= 0) {
            return;
        }
        adopted.put(a.getGpuRank(), v);
        adoptedStep.put(a.getGpuRank(), a.getStep());
        PlanVersion min = minAdopted();
        if (min != null) {
            // Every rank has moved to `min` or later: older plans are never needed again.
            int sizeBefore = retained.size();
            while (retained.size() > 1 && retained.firstKey().compareTo(min) < 0) {
                retained.pollFirstEntry();
            }
            if (retained.size() != sizeBefore) {
                broadcast(retentionMessage());
            }
            if (!status.planVersion().equals(min.toString())) {
                long at = -1;
                for (Map.Entry<Integer, PlanVersion> e : adopted.entrySet()) {
                    if (e.getValue().equals(min)) {
                        at = Math.max(at, adoptedStep.get(e.getKey()));
                    }
                }
                status = new BalancerStatus(min.toString(), status.planSequence(), at, status.imbalanceBefore(),
                        status.imbalanceAfter(), status.predictedSpeedup(), status.heartbeat());
                statusDirty = true;
            }
        }
    }

    /** The oldest plan any rank of the world uses; null until every rank has reported an adoption. */
    private PlanVersion minAdopted() {
        int gpus = world.gpus();
        if (adopted.size() < gpus) {
            return null;
        }
        PlanVersion min = null;
        for (PlanVersion v : adopted.values()) {
            if (min == null || v.compareTo(min) < 0) {
                min = v;
            }
        }
        return min;
    }

    private void trimRetained() {
        while (retained.size() > RETAINED_PLANS) {
            retained.pollFirstEntry();
        }
    }

    private void resync(SessionState st, PlanVersion after) {
        st.session.send(retentionMessage());
        Map<PlanVersion, PlanMessage> tail = after == null ? retained : retained.tailMap(after, false);
        for (PlanMessage pm : tail.values()) {
            st.session.send(BalancerMessage.newBuilder().setPlan(pm).build());
        }
    }

    private BalancerMessage worldMessage() {
        return BalancerMessage.newBuilder().setWorld(WorldChange.newBuilder().setGeneration(world.generation())
                .setWorldJson(WorldDocumentJson.encode(world))).build();
    }

    private BalancerMessage retentionMessage() {
        Retention.Builder r = Retention.newBuilder();
        if (!retained.isEmpty()) {
            r.setFloor(Protocol.toWire(retained.firstKey()));
        }
        if (lastPublished != null) {
            r.setNewest(Protocol.toWire(lastPublished));
        }
        return BalancerMessage.newBuilder().setRetention(r).build();
    }

    private void broadcast(BalancerMessage m) {
        for (SessionState st : sessions.values()) {
            if (st.authenticated) {
                st.session.send(m);
            }
        }
        if (m.hasRetention()) {
            lastRetentionBroadcast = clock.getAsLong();
        }
    }

    private void error(SessionState st, ErrorNotice.Code code, String message) {
        st.session.send(BalancerMessage.newBuilder().setError(ErrorNotice.newBuilder().setCode(code)
                .setMessage(message).setFatal(false)).build());
    }

    private void refuse(long id, ErrorNotice.Code code, String message) {
        SessionState st = sessions.remove(id);
        if (st == null) {
            return;
        }
        if (!st.authenticated) {
            hellosRefused++;
        }
        LOG.info("refusing sidecar stream: " + code + ": " + message);
        st.session.close(ErrorNotice.newBuilder().setCode(code).setMessage(message).setFatal(true).build());
    }

    // ---------------------------------------------------------------- periodic work

    /**
     * Called about once a second: re-announces retention (lets sidecars notice a lost plan), flushes status, and
     * refreshes the snapshots the HTTP endpoints serve (so they never wait for this thread).
     */
    public void tick() {
        long now = clock.getAsLong();
        statusSnapshot = statusJson();
        loadsSnapshot = loadsJson();
        if (now - lastRetentionBroadcast >= RETENTION_EVERY_NANOS) {
            broadcast(retentionMessage());
            lastRetentionBroadcast = now;
        }
        maybeStartPlanning(); // a re-plan held back by the duty cycle starts here at the latest
        beat(now);
        if (statusDirty && now - lastStatusWrite >= STATUS_MIN_INTERVAL_NANOS) {
            try {
                statusStore.write(status);
                statusDirty = false;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "writing status.balancer failed; will retry", e);
            }
            lastStatusWrite = now;
        }
    }

    /**
     * The progress heartbeat in status.balancer: the newest complete step, refreshed at most every
     * {@link #HEARTBEAT_EVERY_NANOS} while steps advance (the operator's progress deadline reads it).
     */
    private void beat(long now) {
        if (world == null || lastObservedStep < 0) return;
        var beat = status.heartbeat();
        boolean advanced = beat == null || beat.generation() != world.generation() || beat.step() < lastObservedStep;
        if (advanced && (beat == null || beat.generation() != world.generation()
                || now - lastHeartbeat >= HEARTBEAT_EVERY_NANOS)) {
            status = status.withHeartbeat(new BalancerStatus.StepHeartbeat(world.generation(), lastObservedStep,
                    java.time.Instant.now().toString()));
            lastHeartbeat = now;
            statusDirty = true;
        }
    }

    // ---------------------------------------------------------------- read side (HTTP, tests)

    /** Knows its world and spec (readiness); safe from any thread. */
    public boolean ready() {
        return ready;
    }

    public Plan currentPlan() {
        return currentPlan;
    }

    /** The current plan as ballast-plan/v1 JSON, or null; safe from any thread. */
    public String currentPlanJson() {
        return planSnapshot;
    }

    /** {@link #statusJson()} as of the last tick; safe from any thread. */
    public String statusSnapshot() {
        return statusSnapshot;
    }

    /** {@link #loadsJson()} as of the last tick; safe from any thread. */
    public String loadsSnapshot() {
        return loadsSnapshot;
    }

    public BalancerStatus status() {
        return status;
    }

    public long worldGeneration() {
        return world == null ? 0 : world.generation();
    }

    public PlanVersion lastPublished() {
        return lastPublished;
    }

    public long plansPublished() {
        return plansPublished;
    }

    public long reportsAccepted() {
        return reportsAccepted;
    }

    public long reportsRefused() {
        return reportsRefused;
    }

    /** Recent per-layer loads for the dashboard: the last complete step's totals and the smoothed history. */
    public String loadsJson() {
        JsonWriter w = new JsonWriter().beginObject().field("job", job).field("namespace", namespace)
                .field("worldGeneration", worldGeneration()).field("step", history.lastStep())
                .field("observedSteps", history.observedSteps());
        long[][] last = history.last();
        long[][] smooth = history.smoothed();
        w.name("layers").beginArray();
        if (last != null) {
            for (int l = 0; l < last.length; l++) {
                w.beginObject().field("layer", l).array("last", last[l]).array("smoothed", smooth[l]).endObject();
            }
        }
        return w.endArray().endObject().toString();
    }

    /** Heap in use right after the last collection of each pool: the live set, without uncollected garbage. */
    static long heapAfterLastGc() {
        long sum = 0;
        for (java.lang.management.MemoryPoolMXBean p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == java.lang.management.MemoryType.HEAP && p.getCollectionUsage() != null) {
                sum += p.getCollectionUsage().getUsed();
            }
        }
        return sum;
    }

    public String statusJson() {
        Runtime rt = Runtime.getRuntime();
        int authenticated = 0;
        for (SessionState s : sessions.values()) {
            authenticated += s.authenticated ? 1 : 0;
        }
        return new JsonWriter().beginObject().field("job", job).field("namespace", namespace)
                .field("balancerId", balancerId).field("worldGeneration", worldGeneration())
                .field("ready", ready).field("configError", configError)
                .field("sidecars", authenticated).field("reportsAccepted", reportsAccepted)
                .field("reportsRefused", reportsRefused).field("hellosRefused", hellosRefused)
                .field("stepsObserved", history.observedSteps()).field("lastStep", history.lastStep())
                .field("plansPublished", plansPublished)
                .field("newestPlan", lastPublished == null ? "" : lastPublished.toString())
                .field("lastPlanMillis", lastPlanNanos / 1e6)
                .field("planVersion", status.planVersion()).field("planSequence", status.planSequence())
                .field("adoptedAtStep", status.adoptedAtStep()).field("imbalanceBefore", status.imbalanceBefore())
                .field("imbalanceAfter", status.imbalanceAfter()).field("predictedSpeedup", status.predictedSpeedup())
                .field("heapUsedBytes", rt.totalMemory() - rt.freeMemory()).field("heapLiveBytes", heapAfterLastGc())
                .field("heapMaxBytes", rt.maxMemory())
                .endObject().toString();
    }
}
