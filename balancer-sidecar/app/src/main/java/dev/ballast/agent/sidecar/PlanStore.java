package dev.ballast.agent.sidecar;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.Plan;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The plans a sidecar holds (docs/protocol.md, "Plan retention" and "Plan chain").
 * <p>
 * Each plan names the plan its balancer published before it. A plan is <em>linked</em> when that predecessor is
 * held and linked, is older than the store's floor, or when the plan starts a chain. Only linked plans are offered
 * as "newest", which guarantees the property the adoption rule relies on: a sidecar holds every published plan
 * between its oldest and its newest. Lost, duplicated and reordered deliveries therefore only delay adoption.
 * <p>
 * Not thread-safe; {@link SidecarCore} serialises access.
 */
public final class PlanStore {
    /** Most plans a sidecar keeps; beyond it the oldest is dropped (which can only delay adoption). */
    public static final int DEFAULT_CAPACITY = 32;

    private record Entry(Plan plan, PlanVersion previous, boolean chainStart) {
    }

    private final int capacity;
    private final TreeMap<PlanVersion, Entry> plans = new TreeMap<>();
    private PlanVersion floor;
    private long droppedByCapacity;

    public PlanStore(int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException("plan store capacity must be >= 2, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Adds a plan. Returns false (and changes nothing) for a duplicate or a plan below the floor.
     *
     * @param previous the plan published before it, or null when the plan starts a chain
     */
    public boolean offer(Plan plan, PlanVersion previous) {
        PlanVersion v = plan.version();
        if ((floor != null && v.compareTo(floor) < 0) || plans.containsKey(v)) {
            return false;
        }
        if (previous != null && previous.compareTo(v) >= 0) {
            throw new IllegalArgumentException("plan " + v + " names a previous plan " + previous + " that is not older");
        }
        if (previous == null) {
            // A chain start: plans of an earlier balancer may be missing here but held elsewhere; drop them all.
            raiseFloor(v);
        }
        plans.put(v, new Entry(plan, previous, previous == null));
        while (plans.size() > capacity) {
            PlanVersion oldest = plans.firstKey();
            plans.remove(oldest);
            floor = plans.firstKey();
            droppedByCapacity++;
        }
        return true;
    }

    /** The balancer's retention floor: no rank uses a plan older than this any more. */
    public void raiseFloor(PlanVersion newFloor) {
        if (floor == null || newFloor.compareTo(floor) > 0) {
            floor = newFloor;
        }
        plans.headMap(floor, false).clear();
    }

    private Set<PlanVersion> linked() {
        Set<PlanVersion> linked = new HashSet<>();
        for (Map.Entry<PlanVersion, Entry> e : plans.entrySet()) {
            Entry x = e.getValue();
            if (x.chainStart || (floor != null && x.previous.compareTo(floor) < 0) || linked.contains(x.previous)) {
                linked.add(e.getKey());
            }
        }
        return linked;
    }

    /** The newest linked plan of {@code generation} whose earliest step is at most {@code step}; null if none. */
    public PlanVersion newestEligible(long generation, long step) {
        Set<PlanVersion> linked = linked();
        for (Map.Entry<PlanVersion, Entry> e : plans.descendingMap().entrySet()) {
            PlanVersion v = e.getKey();
            if (v.worldGeneration() == generation && e.getValue().plan.earliestStep() <= step && linked.contains(v)) {
                return v;
            }
        }
        return null;
    }

    public PlanVersion oldest() {
        return plans.isEmpty() ? null : plans.firstKey();
    }

    public PlanVersion newest() {
        return plans.isEmpty() ? null : plans.lastKey();
    }

    /** The newest plan such that every held plan up to it is linked (what a resync should continue after). */
    public PlanVersion newestLinkedPrefix() {
        Set<PlanVersion> linked = linked();
        PlanVersion last = null;
        for (PlanVersion v : plans.keySet()) {
            if (!linked.contains(v)) {
                break;
            }
            last = v;
        }
        return last;
    }

    /** True when some held plan is not linked, i.e. a predecessor is missing. */
    public boolean hasGap() {
        return linked().size() != plans.size();
    }

    public Plan get(PlanVersion v) {
        Entry e = plans.get(v);
        return e == null ? null : e.plan;
    }

    public List<PlanVersion> versions() {
        return new ArrayList<>(plans.keySet());
    }

    public PlanVersion floor() {
        return floor;
    }

    public int size() {
        return plans.size();
    }

    public int capacity() {
        return capacity;
    }

    public long droppedByCapacity() {
        return droppedByCapacity;
    }
}
