package dev.ballast.agent.sidecar;

import dev.ballast.agent.proto.AdoptionReport;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.proto.PlanMessage;
import dev.ballast.agent.proto.ResyncRequest;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.proto.Welcome;
import dev.ballast.agent.wire.BadReportException;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.agent.wire.ReportParser;
import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.model.Plan;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The sidecar's state and rules, independent of transports: the plans it holds, the reports waiting for the
 * balancer, what each local rank adopted, and the live world. The gRPC link and the HTTP trainer API call into it;
 * every method is synchronized (traffic is a few dozen calls per second per pod).
 */
public final class SidecarCore {
    /** Reports kept while the balancer is unreachable before the oldest is dropped (about 8 KB each at 60×64). */
    public static final int DEFAULT_OUTBOX_CAPACITY = 512;
    /** At most one resync request per this many nanoseconds while a gap persists. */
    public static final long RESYNC_INTERVAL_NANOS = 1_000_000_000L;

    private final SidecarIdentity identity;
    private final PlanStore store;
    private final ReportOutbox outbox;
    private final LongSupplier clock;
    private final LongSupplier wallClock;
    private final SidecarHealthMeter health = new SidecarHealthMeter();
    private final TreeMap<Integer, AdoptionReport> adoptions = new TreeMap<>();

    private boolean connected;
    private Welcome welcome;
    private WorldDocument world;
    /** The world as the balancer sent it, served verbatim on GET /v1/world. */
    private String worldJson;
    private long generationSeen;
    private PlanVersion balancerNewest;
    private long lastResyncNanos = Long.MIN_VALUE / 2;
    /** Wall-clock time (unix nanos) the current stream opened: plans published before it are resends. */
    private long connectedAtUnixNanos = Long.MAX_VALUE;

    private long reportsAccepted;
    private long reportsRefused;
    private long plansReceived;
    private long plansRejected;
    private long errorsReceived;
    private String lastError = "";

    public SidecarCore(SidecarIdentity identity, int planCapacity, int outboxCapacity, LongSupplier nanoClock) {
        this(identity, planCapacity, outboxCapacity, nanoClock, SidecarCore::unixNanosNow);
    }

    /** @param unixNanoClock wall clock in nanoseconds since the epoch, compared with plans' publication times */
    public SidecarCore(SidecarIdentity identity, int planCapacity, int outboxCapacity, LongSupplier nanoClock,
                       LongSupplier unixNanoClock) {
        this.identity = identity;
        this.store = new PlanStore(planCapacity);
        this.outbox = new ReportOutbox(outboxCapacity);
        this.clock = nanoClock;
        this.wallClock = unixNanoClock;
    }

    static long unixNanosNow() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    // ---------------------------------------------------------------- balancer side

    /** The first message of every (re)connection. */
    public synchronized SidecarMessage hello() {
        WorldWorker me = world == null ? null : world.byPodIndex(identity.podIndex());
        return SidecarMessage.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(Protocol.VERSION).setJob(identity.job()).setNamespace(identity.namespace())
                .setWorldGeneration(generationSeen).setPodIndex(identity.podIndex())
                .setNodeRank(me == null ? -1 : me.nodeRank()).setToken(identity.token())
                .setPodName(identity.podName()).setAgentVersion("0.1.0")).build();
    }

    /** After the hello went out: what each rank adopted, so a restarted balancer learns it again. */
    public synchronized List<SidecarMessage> onConnected() {
        connected = true;
        connectedAtUnixNanos = wallClock.getAsLong();
        List<SidecarMessage> out = new ArrayList<>();
        for (AdoptionReport a : adoptions.values()) {
            out.add(SidecarMessage.newBuilder().setAdoption(a).build());
        }
        return out;
    }

    public synchronized void onDisconnected() {
        connected = false;
        connectedAtUnixNanos = Long.MAX_VALUE;
    }

    /** Handles one message from the balancer; returns messages to send back (a resync request when a gap shows). */
    public synchronized List<SidecarMessage> onBalancerMessage(BalancerMessage m) {
        switch (m.getKindCase()) {
            case WELCOME -> welcome = m.getWelcome();
            case WORLD -> {
                try {
                    WorldDocument w = WorldDocumentJson.decode(m.getWorld().getWorldJson());
                    if (world == null || w.generation() >= world.generation()) {
                        world = w;
                        worldJson = m.getWorld().getWorldJson();
                        generationSeen = Math.max(generationSeen, w.generation());
                    }
                } catch (RuntimeException e) {
                    lastError = "balancer sent an unreadable world: " + e.getMessage();
                }
            }
            case RETENTION -> {
                if (m.getRetention().hasFloor()) {
                    store.raiseFloor(Protocol.fromWire(m.getRetention().getFloor()));
                }
                if (m.getRetention().hasNewest()) {
                    balancerNewest = Protocol.fromWire(m.getRetention().getNewest());
                }
            }
            case PLAN -> acceptPlan(m.getPlan());
            case ERROR -> {
                errorsReceived++;
                ErrorNotice e = m.getError();
                lastError = e.getCode() + ": " + e.getMessage();
            }
            case KIND_NOT_SET -> lastError = "balancer sent an empty message";
        }
        return resyncIfNeeded();
    }

    private void acceptPlan(PlanMessage pm) {
        Plan plan;
        try {
            plan = PlanBinary.decode(pm.getPayload().toByteArray());
        } catch (RuntimeException e) {
            plansRejected++;
            lastError = "unreadable plan " + pm.getVersion() + ": " + e.getMessage();
            return;
        }
        PlanVersion v = Protocol.fromWire(pm.getVersion());
        if (!plan.version().equals(v) || plan.earliestStep() != pm.getEarliestStep()
                || PlanBinary.fingerprint(plan) != pm.getFingerprint()) {
            plansRejected++;
            lastError = "plan " + v + ": payload does not match its header";
            return;
        }
        if (store.offer(plan, pm.hasPrevious() ? Protocol.fromWire(pm.getPrevious()) : null)) {
            plansReceived++;
            // Only plans published while this stream was open: those sent after a hello are older resends.
            if (pm.getPublishedUnixNanos() >= connectedAtUnixNanos) {
                health.planReceived(wallClock.getAsLong() - pm.getPublishedUnixNanos());
            }
        }
        if (balancerNewest == null || v.compareTo(balancerNewest) > 0) {
            balancerNewest = v;
        }
    }

    /** Periodic check (the link calls it every second): asks for a resync while plans are missing. */
    public synchronized List<SidecarMessage> tick() {
        return resyncIfNeeded();
    }

    private List<SidecarMessage> resyncIfNeeded() {
        boolean behind = balancerNewest != null && (store.newest() == null || store.newest().compareTo(balancerNewest) < 0)
                && (store.floor() == null || balancerNewest.compareTo(store.floor()) >= 0);
        if (!connected || !(store.hasGap() || behind)) {
            return List.of();
        }
        long now = clock.getAsLong();
        if (now - lastResyncNanos < RESYNC_INTERVAL_NANOS) {
            return List.of();
        }
        lastResyncNanos = now;
        ResyncRequest.Builder r = ResyncRequest.newBuilder();
        PlanVersion after = store.newestLinkedPrefix();
        if (after != null) {
            r.setAfter(Protocol.toWire(after));
        }
        return List.of(SidecarMessage.newBuilder().setResync(r).build());
    }

    /** Next queued report for the balancer, or null; the caller hands it to the stream at once. */
    public synchronized SidecarMessage pollOutbound() {
        ReportOutbox.Entry e = connected ? outbox.poll() : null;
        if (e == null) {
            return null;
        }
        if (e.message().hasReport()) {
            health.reportSent(clock.getAsLong() - e.queuedNanos());
        }
        return e.message();
    }

    /**
     * The health message of the interval since the previous one (docs/protocol.md "Sidecar health"), or null while
     * not connected or when the balancer did not say it takes them (an older balancer would refuse the unknown kind).
     */
    public synchronized SidecarMessage healthMessage() {
        if (!connected || welcome == null || !welcome.getAcceptsHealth()) {
            return null;
        }
        return SidecarMessage.newBuilder().setHealth(health.take(outbox.dropped(), outbox.size())).build();
    }

    // ---------------------------------------------------------------- trainer side

    /** Parses, checks and queues a trainer's report; nothing is kept when it is refused. */
    public void acceptReport(String body) throws BadReportException {
        int layers;
        int experts;
        synchronized (this) {
            layers = welcome == null ? 0 : welcome.getLayers();
            experts = welcome == null ? 0 : welcome.getExperts();
        }
        ReportParser.Parsed p = ReportParser.parse(body, layers, experts); // outside the lock: the expensive part
        accept(p);
    }

    /** Queues an already parsed report (the in-process path used by tests and the simulation). */
    public synchronized void accept(ReportParser.Parsed p) throws BadReportException {
        var r = p.report();
        if (world != null && r.getWorldGeneration() < world.generation()) {
            reportsRefused++;
            throw new BadReportException(409, "report of world generation " + r.getWorldGeneration()
                    + " is stale: the current generation is " + world.generation());
        }
        WorldWorker me = world == null || r.getWorldGeneration() != world.generation() ? null : world.byPodIndex(identity.podIndex());
        if (me != null) {
            int g = world.gpusPerWorker();
            long lo = (long) me.nodeRank() * g;
            if (r.getGpuRank() < lo || r.getGpuRank() >= lo + g) {
                reportsRefused++;
                throw new BadReportException(400, "gpuRank " + r.getGpuRank() + " is not a rank of this pod (node rank "
                        + me.nodeRank() + " has GPU ranks " + lo + ".." + (lo + g - 1) + ")");
            }
        }
        generationSeen = Math.max(generationSeen, r.getWorldGeneration());
        outbox.add(SidecarMessage.newBuilder().setReport(r).build(), clock.getAsLong());
        reportsAccepted++;
        if (p.adopted() != null) {
            AdoptionReport a = AdoptionReport.newBuilder().setGpuRank(r.getGpuRank())
                    .setWorldGeneration(r.getWorldGeneration()).setStep(r.getStep())
                    .setAdopted(Protocol.toWire(p.adopted())).build();
            AdoptionReport before = adoptions.get(r.getGpuRank());
            if (before == null || !before.getAdopted().equals(a.getAdopted())) {
                adoptions.put(r.getGpuRank(), a);
                // Also re-sent from `adoptions` after every reconnect, so dropping it from a full outbox loses nothing.
                outbox.add(SidecarMessage.newBuilder().setAdoption(a).build(), clock.getAsLong());
            }
        }
    }

    public synchronized PlanHeads heads(long generation, long step) {
        return new PlanHeads(store.newestEligible(generation, step), store.oldest());
    }

    public synchronized Plan plan(PlanVersion v) {
        return store.get(v);
    }

    public synchronized String worldJson() {
        return worldJson;
    }

    public synchronized boolean connected() {
        return connected;
    }

    /** Counters for GET /v1/status and the tests. */
    public synchronized Stats stats() {
        return new Stats(connected, reportsAccepted, reportsRefused, outbox.dropped(), outbox.size(), plansReceived,
                plansRejected, store.size(), store.droppedByCapacity(), errorsReceived, lastError,
                store.oldest(), store.newest(), world == null ? -1 : world.generation());
    }

    public record Stats(boolean connected, long reportsAccepted, long reportsRefused, long reportsDropped,
                        int reportsQueued, long plansReceived, long plansRejected, int plansHeld,
                        long plansDroppedByCapacity, long errorsReceived, String lastError,
                        PlanVersion oldestHeld, PlanVersion newestHeld, long worldGeneration) {
    }

    public SidecarIdentity identity() {
        return identity;
    }
}
