package dev.ballast.operator.admission;

import dev.ballast.operator.api.BindingBackoff;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.AdmissionView;
import dev.ballast.operator.observe.CapacitySnapshot;
import dev.ballast.operator.observe.ClusterCache;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.observe.ExistingJobs;
import dev.ballast.operator.observe.Priorities;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.Placement;
import dev.ballast.operator.placement.WorkerSlot;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.UnseenPods;
import dev.ballast.operator.world.WorkerPodView;
import dev.ballast.operator.world.World;
import dev.ballast.operator.world.WorldLifecycle;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Gang admission: chooses nodes for a whole new world and creates its pods, gated, pinned to those
 * nodes. Serialized across jobs, so that a GPU is never promised to two jobs: capacity comes from the
 * informer caches ({@link ClusterCache}) plus the pods admission created that the cache does not show yet
 * ({@link Reservations}); a job placed a moment ago has its gated pods, with their promised nodes, in one
 * or the other. A promise counts only from a pod an existing TrainingJob controls ({@link ExistingJobs}), so a
 * tenant's pod carrying the annotation holds nothing, and another release's jobs hold what they were promised.
 */
public class GangAdmission {
  private static final Logger LOG = Logger.getLogger(GangAdmission.class);

  /** Outcome of one admission attempt. */
  public sealed interface Result {
    record Admitted(World world) implements Result {}

    /** @param reason the Admitted condition's reason, naming the short resource ({@link InsufficientRoom}) */
    record Unschedulable(String reason, String message) implements Result {}

    /**
     * The API server refused a worker pod (admission, e.g. Pod Security, or validation); {@code message} is its
     * own words. Nothing was kept: the pods created before it are deleted.
     */
    record Refused(String pod, String message) implements Result {}
  }

  private final KubernetesClient client;
  private final OperatorSettings settings;
  private final Reservations reservations = new Reservations();
  private final CreatedPods createdPods = new CreatedPods();
  private final PodRefusals refusals = new PodRefusals();
  /** Admission's own cache, null when a test hands in its view. */
  private final ClusterCache cache;
  private final AdmissionView view;
  private final MeterRegistry metrics;

  public GangAdmission(KubernetesClient client, OperatorSettings settings, MeterRegistry metrics) {
    this.client = client;
    this.settings = settings;
    this.cache = new ClusterCache(client, this::delivered);
    this.view = cache;
    this.metrics = metrics;
  }

  /** Reading the cluster from {@code view} (tests: a cache that lags as long as they like). */
  GangAdmission(KubernetesClient client, OperatorSettings settings, AdmissionView view) {
    this.client = client;
    this.settings = settings;
    this.cache = null;
    this.view = view;
    this.metrics = new SimpleMeterRegistry();
  }

  /**
   * Starts listing the cluster into admission's cache in the background: the operator does this at startup, so that
   * no job's admission waits for the lists (an admission before they are done waits for them).
   */
  public void startCache() {
    if (cache != null) cache.start();
  }

  /** The cache has delivered this pod (added, updated or deleted): its reservation, if any, is no longer needed. */
  void delivered(Pod pod) {
    reservations.release(pod.getMetadata().getUid());
  }

  /**
   * @param reconciled the jobs this operator reconciles (its primary cache): their pods' promises count even in
   *     the moment before the cluster-wide job informer shows a job that was just created
   * @param ahead the jobs waiting for room ahead of this one ({@link AdmissionQueue#ahead})
   * @param namespace the ResourceQuotas and LimitRanges of the job's namespace
   */
  public synchronized Result admit(TrainingJob job, long generation, int maxWorkers, ExistingJobs reconciled,
      List<AdmissionQueue.Ahead> ahead, NamespacePolicy namespace) {
    long start = System.nanoTime();
    // The job's own pods of past worlds are left out: admission runs only once the decision found every one of them
    // stopped, and the admission cache may still show them for a moment (it would place a smaller world).
    long committed = WorldLifecycle.committedGeneration(job);
    Result refusedLately = refusals.recent(job.getMetadata().getUid(), specGeneration(job), Instant.now());
    if (refusedLately != null) return refusedLately;
    Predicate<Pod> pastWorlds = p -> new WorkerPodView(p).generation() <= committed;
    Predicate<Pod> ownPastWorlds = p -> ownedBy(p, job) && pastWorlds.test(p);
    QuotaCount quotaCount = quotaCount(job, namespace);
    NamespaceQuota.Room quota = quotaCount.room(ownPastWorlds);
    int allowed = WorldSizes.largestValid(quota.workers(), job.getSpec());
    if (allowed < job.getSpec().workers.min) {
      int min = job.getSpec().workers.min;
      NamespaceQuota.Room ceiling = quotaCount.room(p -> true); // no pod of the namespace counted
      Result exceeds = WorldSizes.largestValid(ceiling.workers(), job.getSpec()) < min
          ? new Result.Unschedulable(NamespaceQuota.QUOTA_TOO_SMALL,
              NamespaceQuota.tooSmallMessage(job.getMetadata().getNamespace(), ceiling, min))
          : new Result.Unschedulable(NamespaceQuota.EXCEEDS_QUOTA,
              NamespaceQuota.message(job.getMetadata().getNamespace(), quota, min));
      record(job, exceeds, 0, 0, System.nanoTime() - start, 0);
      return exceeds;
    }
    Read read = capacity(job, pastWorlds, reconciled);
    long viewRead = System.nanoTime();
    QueueQuota queueQuota = new QueueQuota(job, quotaCount, ownPastWorlds);
    Result result = choose(job.getSpec(), Math.min(maxWorkers, allowed), read.capacity(), generation,
        avoidedNodes(job.getStatus()), ahead, queueQuota, queueQuota::own);
    long placed = System.nanoTime();
    if (result instanceof Result.Admitted a) result = createGated(job, a.world());
    long done = System.nanoTime();
    record(job, result, read.podsSummed(), viewRead - start, placed - start, done - placed);
    return result;
  }

  /**
   * The nodes of a gang the scheduler did not bind twice in a row (status.bindingBackoff), which the next
   * admission avoids; empty before the second identical timeout.
   */
  public static Set<String> avoidedNodes(TrainingJobStatus status) {
    BindingBackoff b = status == null ? null : status.bindingBackoff;
    if (b == null || b.nodes == null || b.timeouts == null || b.timeouts < 2) return Set.of();
    return Set.of(b.nodes.split(","));
  }

  /**
   * The operator's time per attempt, by outcome: placing (reading the caches, choosing nodes) and creating the pods
   * (docs/BENCHMARKS.md, "Scale"); the pods summed per attempt show that an attempt re-sums only what it must.
   */
  private void record(TrainingJob job, Result result, int podsSummed, long readNanos, long placeNanos,
      long createNanos) {
    String outcome = result instanceof Result.Admitted ? "admitted"
        : result instanceof Result.Refused ? "refused" : "unschedulable";
    metrics.timer("ballast.admission.placement", "outcome", outcome).record(placeNanos, TimeUnit.NANOSECONDS);
    metrics.timer("ballast.admission", "outcome", outcome).record(placeNanos + createNanos, TimeUnit.NANOSECONDS);
    metrics.summary("ballast.admission.pods.summed", "outcome", outcome).record(podsSummed);
    if (result instanceof Result.Admitted a) {
      LOG.infof("Admission of %s/%s: %d workers placed in %.2f ms, their pods created in %.2f ms (of the placement, "
          + "reading the view took %.2f ms, %d pods re-summed)", job.getMetadata().getNamespace(),
          job.getMetadata().getName(), a.world().size(), placeNanos / 1e6, createNanos / 1e6, readNanos / 1e6,
          podsSummed);
    }
  }

  /**
   * Placement's input for {@code job}: the cluster from the cache's snapshot plus the pods admission created that the
   * snapshot does not show yet, each once, without the job's own pods that {@code leaveOut} names. The reservations
   * are read first: one released while the snapshot is taken is released because the snapshot shows its pod.
   */
  private Read capacity(TrainingJob job, Predicate<Pod> leaveOut, ExistingJobs reconciled) {
    List<Pod> reserved = reservations.held(Instant.now());
    CapacitySnapshot snapshot = view.capacity();
    List<Pod> unseen = new ArrayList<>();
    for (Pod p : reserved) {
      if (snapshot.shows(p.getMetadata().getUid())) {
        reservations.release(p.getMetadata().getUid()); // its event came before the reservation was made
      } else if (!(ownedBy(p, job) && leaveOut.test(p))) {
        unseen.add(p);
      }
    }
    Set<String> leftOut = snapshot.podsOwnedBy(job.getMetadata().getUid()).stream().filter(leaveOut)
        .map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    return new Read(snapshot.capacity(job.getSpec().topology, view.jobs().with(reconciled), leftOut, unseen),
        snapshot.podsSummed(leftOut, unseen));
  }

  /** Placement's input, and how many pods' requests reading it summed. */
  private record Read(ClusterCapacity capacity, int podsSummed) {}

  /**
   * How many workers of this job would fit if its own pods were gone (the room a resize would have): the
   * same placement admission runs, with the job's pods left out of the GPUs in use, within its namespace's quotas.
   */
  public synchronized int placeableWorkers(TrainingJob job, ExistingJobs reconciled, NamespacePolicy namespace) {
    return Math.min(quotaWorkers(job, namespace), room(job.getSpec(), capacity(job, p -> true, reconciled).capacity()));
  }

  /**
   * How many workers of this job its namespace's quotas let in, none of its own pods counted (for a job waiting ahead
   * in the admission order, {@link AdmissionQueue#ahead}, and for growth).
   */
  public synchronized int quotaWorkers(TrainingJob job, NamespacePolicy namespace) {
    return quotaCount(job, namespace).room(p -> ownedBy(p, job)).workers();
  }

  /**
   * A job's worker and the pods of its namespace as its quotas count them, read once so that several questions (its
   * room with or without some pods) read the cache once.
   *
   * @param pods every unfinished pod of the namespace (but those stuck terminating, {@link NamespaceQuota#counts}), and
   *     the pods admission created there that the cache does not show yet
   * @param worker the job's worker with its LimitRanges' defaults
   * @param atLeast what the API server counted for one of the job's pods it refused ({@link PodRefusals})
   */
  private record QuotaCount(NamespacePolicy namespace, List<Pod> pods, PodSpec worker, Map<String, Long> atLeast) {
    static final QuotaCount UNLIMITED = new QuotaCount(NamespacePolicy.NONE, List.of(), null, Map.of());

    /** The room the quotas leave for the job's workers, the pods {@code leaveOut} names not counted. */
    NamespaceQuota.Room room(Predicate<Pod> leaveOut) {
      return room(leaveOut, List.of());
    }

    /**
     * The room the quotas leave for the job's workers, the pods {@code leaveOut} names not counted and the pods
     * {@code more} counted besides (workers of jobs ahead of it, {@link QueueQuota}).
     */
    NamespaceQuota.Room room(Predicate<Pod> leaveOut, List<PodSpec> more) {
      if (namespace.quotas().isEmpty()) return NamespaceQuota.Room.UNLIMITED;
      return NamespaceQuota.of(namespace.quotas(), worker, Stream.concat(
          pods.stream().filter(leaveOut.negate()).map(Pod::getSpec), more.stream()).toList(), atLeast);
    }
  }

  /**
   * The quotas of one job's namespace as the jobs waiting ahead of it take them in turn
   * ({@link AdmissionQueue.QuotaBeside}): what they let in for each job of the namespace ahead of it once the jobs
   * before that one have taken their workers, and for the job itself once every job ahead that takes room has. A job of
   * another namespace stays within its own quota alone (this count knows only this namespace's). Each job's worker is
   * built once.
   */
  private final class QueueQuota implements AdmissionQueue.QuotaBeside {
    private final String namespace;
    private final QuotaCount count;
    private final Predicate<Pod> own;
    private final Map<String, PodSpec> workers = new HashMap<>();

    /** @param own the job's own pods, which its next world replaces */
    QueueQuota(TrainingJob job, QuotaCount count, Predicate<Pod> own) {
      this.namespace = job.getMetadata().getNamespace();
      this.count = count;
      this.own = own;
    }

    @Override
    public int workers(AdmissionQueue.Ahead ahead, List<AdmissionQueue.Taking> before) {
      List<PodSpec> taken = takenIn(before);
      if (taken.isEmpty() || !namespace.equals(namespaceOf(ahead))) return ahead.quotaWorkers();
      String name = ahead.job().substring(namespace.length() + 1);
      // its own pods (of a past world) are not counted, as for its own admission
      Stream<PodSpec> others = count.pods().stream().filter(p -> p.getMetadata().getLabels() == null
          || !name.equals(p.getMetadata().getLabels().get(Labels.JOB))).map(Pod::getSpec);
      return Math.min(ahead.quotaWorkers(), NamespaceQuota.of(count.namespace().quotas(), worker(ahead),
          Stream.concat(others, taken.stream()).toList()).workers());
    }

    /** What the quotas let in for the job itself beside the jobs ahead that take room. */
    int own(List<AdmissionQueue.Taking> taking) {
      return count.room(own, takenIn(taking)).workers();
    }

    /** The workers the jobs of this namespace among {@code taking} take. */
    private List<PodSpec> takenIn(List<AdmissionQueue.Taking> taking) {
      List<PodSpec> taken = new ArrayList<>();
      if (count.namespace().quotas().isEmpty()) return taken;
      for (AdmissionQueue.Taking t : taking) {
        if (!namespace.equals(namespaceOf(t.job()))) continue;
        PodSpec worker = worker(t.job());
        for (int i = 0; i < t.workers(); i++) taken.add(worker);
      }
      return taken;
    }

    private PodSpec worker(AdmissionQueue.Ahead ahead) {
      return workers.computeIfAbsent(ahead.job(), key -> {
        TrainingJob job = new TrainingJob(); // as far as its worker pod needs: namespace, name, spec, a uid
        job.setMetadata(new ObjectMetaBuilder().withNamespace(namespace)
            .withName(key.substring(namespace.length() + 1)).withUid("ahead").build());
        job.setSpec(ahead.spec());
        return sampleWorker(job, count.namespace());
      });
    }
  }

  private static String namespaceOf(AdmissionQueue.Ahead ahead) {
    return ahead.job().substring(0, ahead.job().indexOf('/'));
  }

  /** One worker of {@code job} as its namespace's quotas count it: with the LimitRanges' defaults. */
  private PodSpec sampleWorker(TrainingJob job, NamespacePolicy namespace) {
    Seat sample = new Seat(0, 0, "", null, null);
    PodSpec worker = WorkerPods.build(job, new World(0, List.of(sample)), sample, true, settings).getSpec();
    return LimitRangeDefaults.apply(worker, namespace.limitRanges());
  }

  private QuotaCount quotaCount(TrainingJob job, NamespacePolicy namespace) {
    if (namespace.quotas().isEmpty()) return QuotaCount.UNLIMITED;
    String name = job.getMetadata().getNamespace();
    List<Pod> listed = view.pods(name);
    Set<String> shown = listed.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    Instant now = Instant.now();
    List<Pod> pods = Stream.concat(listed.stream(), reservations.held(now).stream()
            .filter(p -> name.equals(p.getMetadata().getNamespace()) && !shown.contains(p.getMetadata().getUid())))
        .filter(p -> NamespaceQuota.counts(p, now)).toList();
    return new QuotaCount(namespace, pods, sampleWorker(job, namespace),
        refusals.perWorker(job.getMetadata().getUid(), now));
  }

  /**
   * Whether {@code job} gives way to a waiting job now, and how many workers it keeps ({@link Reclaim#forJob}), among
   * {@code jobs} (every job this operator reconciles), each job's room read from admission's view.
   */
  public synchronized Optional<Reclaim.Yield> giveWay(TrainingJob job, Collection<TrainingJob> jobs,
      ExistingJobs reconciled, Function<TrainingJob, NamespacePolicy> policies, Priorities priorities, Instant now) {
    return Reclaim.forJob(job, jobs, j -> capacity(j, p -> true, reconciled).capacity(),
        j -> quotaRoomBeside(j, policies.apply(j), jobs), priorities, now);
  }

  /**
   * What the quotas of a waiting job's namespace let in once the jobs of that namespace that give way to it have shrunk
   * ({@link Reclaim.QuotaRoom}): the workers of their current worlds above their next sizes are left out, the
   * highest ranks first (a job's workers count alike). The namespace's pods are read once, not per question.
   */
  private Reclaim.QuotaRoom quotaRoomBeside(TrainingJob waiting, NamespacePolicy namespace,
      Collection<TrainingJob> jobs) {
    if (namespace.quotas().isEmpty()) return Reclaim.QuotaRoom.UNLIMITED;
    QuotaCount count = quotaCount(waiting, namespace);
    // each job of the namespace: its current world's workers (the only pods a job owns), highest rank first
    Map<String, List<String>> worlds = new TreeMap<>();
    for (TrainingJob j : jobs) {
      if (!waiting.getMetadata().getNamespace().equals(j.getMetadata().getNamespace())) continue;
      long generation = WorldLifecycle.committedGeneration(j);
      worlds.put(WorldLifecycle.key(j), count.pods().stream()
          .filter(p -> ownedBy(p, j) && new WorkerPodView(p).generation() == generation)
          .sorted(Comparator.comparingInt((Pod p) -> new WorkerPodView(p).index()).reversed())
          .map(p -> p.getMetadata().getUid()).toList());
    }
    return nextSizes -> {
      Set<String> freed = new HashSet<>();
      nextSizes.forEach((key, size) -> { // a job of another namespace frees none of this quota
        List<String> world = worlds.getOrDefault(key, List.of());
        freed.addAll(world.subList(0, Math.max(0, world.size() - size)));
      });
      return count.room(p -> ownedBy(p, waiting) || freed.contains(p.getMetadata().getUid())).workers();
    };
  }

  /**
   * {@code result}, naming in an admission short of room the jobs that would make it but for their class's minimum
   * runtime, each with when it ends ({@code held}: {@link Reclaim#heldBackFor}, asked only then). Pure.
   */
  public static Result withHeldBack(Result result, Supplier<Map<String, Instant>> held) {
    if (!(result instanceof Result.Unschedulable u) || InsufficientRoom.QUEUED_BEHIND.equals(u.reason())) {
      return result; // admitted, refused, or behind jobs that come first anyway
    }
    Map<String, Instant> kept = held.get();
    if (kept.isEmpty()) return result;
    return new Result.Unschedulable(u.reason(), u.message() + "; " + kept.entrySet().stream()
        .map(e -> e.getKey() + " (until " + e.getValue() + ")").collect(Collectors.joining(", "))
        + (kept.size() == 1 ? " would make room but runs" : " would make room but run")
        + " within the minimum runtime of its PriorityClass (" + Priorities.MIN_RUNTIME + ")");
  }

  /**
   * The jobs that would give way to the waiting {@code job} but for their class's minimum runtime ({@link
   * Reclaim#heldBackFor}), each job's room read from admission's view.
   */
  public synchronized Map<String, Instant> heldBack(TrainingJob job, Collection<TrainingJob> jobs,
      ExistingJobs reconciled, Function<TrainingJob, NamespacePolicy> policies, Priorities priorities, Instant now) {
    return Reclaim.heldBackFor(job, jobs, j -> capacity(j, p -> true, reconciled).capacity(),
        j -> quotaRoomBeside(j, policies.apply(j), jobs), priorities, now);
  }

  private static boolean ownedBy(Pod pod, TrainingJob job) {
    String uid = job.getMetadata().getUid();
    return pod.getMetadata().getOwnerReferences().stream().anyMatch(o -> uid.equals(o.getUid()));
  }

  /** How many workers of this spec fit in {@code capacity} (at most workers.max). Pure. */
  public static int room(TrainingJobSpec spec, ClusterCapacity capacity) {
    Placement placement = GangPlacer.place(capacity.nodes(), capacity.used(),
        WorkerRequest.of(spec).withWorkers(1, spec.workers.max));
    return placement instanceof Placement.Placed p ? p.workers().size() : 0;
  }

  /**
   * As {@link #choose(TrainingJobSpec, int, ClusterCapacity, long, Set)}, in the room the jobs {@code ahead} of this
   * one leave ({@link AdmissionQueue}): {@link InsufficientRoom#QUEUED_BEHIND} when only that room is too small. Pure.
   */
  public static Result choose(TrainingJobSpec spec, int maxWorkers, ClusterCapacity capacity, long generation,
      Set<String> avoid, List<AdmissionQueue.Ahead> ahead) {
    return choose(spec, maxWorkers, capacity, generation, avoid, ahead, AdmissionQueue.QuotaBeside.EACH_ALONE,
        taking -> Integer.MAX_VALUE);
  }

  /**
   * As {@link #choose(TrainingJobSpec, int, ClusterCapacity, long, Set, List)}, the jobs ahead taking their quotas in
   * turn too ({@code quota}), and this job within what its quotas let in beside every job ahead that takes room
   * ({@code ownQuota}): a job behind does not take the quota a job ahead of it in its namespace is about to take.
   * Pure.
   */
  public static Result choose(TrainingJobSpec spec, int maxWorkers, ClusterCapacity capacity, long generation,
      Set<String> avoid, List<AdmissionQueue.Ahead> ahead, AdmissionQueue.QuotaBeside quota,
      ToIntFunction<List<AdmissionQueue.Taking>> ownQuota) {
    Result alone = choose(spec, maxWorkers, capacity, generation, avoid);
    if (!(alone instanceof Result.Admitted) || ahead.isEmpty()) return alone;
    AdmissionQueue.Left left = AdmissionQueue.after(capacity, ahead, quota);
    var reserved = left.reserving().stream()
        .filter(r -> AdmissionQueue.shareNodes(spec, r.spec(), capacity.nodes())).findFirst();
    if (reserved.isPresent()) {
      AdmissionQueue.Ahead r = reserved.get();
      return new Result.Unschedulable(InsufficientRoom.QUEUED_BEHIND, r.job() + " (priority " + r.priority()
          + ") waits ahead of this job since " + r.reservingSince() + ", longer than its"
          + " spec.elastic.reserveAfterSeconds (" + r.spec().elastic.reserveAfterSeconds + "): it reserves the room"
          + " for its workers.min (" + r.spec().workers.min + "), and this job waits until it runs");
    }
    if (left.taking().isEmpty()) return alone;
    int quotaBeside = Math.min(maxWorkers, ownQuota.applyAsInt(left.taking()));
    if (WorldSizes.largestValid(quotaBeside, spec) < spec.workers.min) {
      return new Result.Unschedulable(InsufficientRoom.QUEUED_BEHIND, waitingAhead(left.taking(), "quota")
          + "its namespace's quota lets in " + quotaBeside + (quotaBeside == 1 ? " worker" : " workers")
          + " of this job, fewer than its workers.min (" + spec.workers.min + ")");
    }
    Result beside = choose(spec, quotaBeside, left.left(), generation, avoid);
    if (!(beside instanceof Result.Unschedulable u)) return beside;
    return new Result.Unschedulable(InsufficientRoom.QUEUED_BEHIND, waitingAhead(left.taking(), "room")
        + u.message());
  }

  /** "a (priority 10, 2 workers) waits ahead of this job ... and takes the room first; beside it: ". */
  private static String waitingAhead(List<AdmissionQueue.Taking> taking, String what) {
    return taking.stream()
        .map(t -> t.job().job() + " (priority " + t.job().priority() + ", " + t.workers()
            + (t.workers() == 1 ? " worker)" : " workers)"))
        .collect(Collectors.joining(", ")) + (taking.size() == 1 ? " waits" : " wait")
        + " ahead of this job (a higher priority, or as high and older) and " + (taking.size() == 1 ? "takes" : "take")
        + " the " + what + " first; beside " + (taking.size() == 1 ? "it" : "them") + ": ";
  }

  /**
   * As {@link #choose(TrainingJobSpec, int, ClusterCapacity, long)}, but first without the {@code avoid} nodes (a
   * placement the scheduler kept refusing); only when nothing fits elsewhere is the usual choice made. Pure.
   */
  public static Result choose(TrainingJobSpec spec, int maxWorkers, ClusterCapacity capacity, long generation,
      Set<String> avoid) {
    if (!avoid.isEmpty()) {
      Result elsewhere = choose(spec, maxWorkers, capacity.without(avoid), generation);
      if (elsewhere instanceof Result.Admitted) return elsewhere;
    }
    return choose(spec, maxWorkers, capacity, generation);
  }

  /**
   * Chooses the nodes of a new world: as many workers as fit, at most {@code maxWorkers} (workers.max, or the size a
   * reclaim shrank the job to) and always within spec.workers (which may have been edited since the reclaim), in
   * whole groups, never fewer than workers.min. Pure.
   */
  public static Result choose(TrainingJobSpec spec, int maxWorkers, ClusterCapacity capacity, long generation) {
    int max = Math.max(spec.workers.min, Math.min(maxWorkers, spec.workers.max));
    GangRequest request = WorkerRequest.of(spec).withWorkers(spec.workers.min, max);
    Placement placement = GangPlacer.place(capacity.nodes(), capacity.used(), request);
    if (placement instanceof Placement.Unplaceable u) {
      return new Result.Unschedulable(InsufficientRoom.reason(u.shortResource()), u.reason());
    }

    int fitting = ((Placement.Placed) placement).workers().size();
    int size = WorldSizes.largestValid(fitting, spec);
    if (size < spec.workers.min) return new Result.Unschedulable(InsufficientRoom.GPUS, WorldSizes.explain(fitting, spec));
    if (size < fitting) {
      // the tightest fit for the smaller gang may lie elsewhere than a prefix of the larger one
      placement = GangPlacer.place(capacity.nodes(), capacity.used(), request.withWorkers(size, size));
    }
    List<Seat> seats = new ArrayList<>();
    for (WorkerSlot slot : ((Placement.Placed) placement).workers()) {
      seats.add(new Seat(slot.nodeRank(), slot.nodeRank(), slot.node(), slot.domain(), slot.rack()));
    }
    return new Result.Admitted(new World(generation, seats));
  }

  /**
   * The pods of the job's latest admitted world that the reconciler's cache has not shown yet, given the worker pods
   * it {@code shows}; null when none ({@link dev.ballast.operator.world.ClusterView#unseen}).
   */
  public UnseenPods unseenPods(TrainingJob job, List<Pod> shows, Instant now) {
    return createdPods.unseen(job.getMetadata().getUid(), shows.stream().map(p -> p.getMetadata().getName()).toList(),
        now);
  }

  /**
   * Creates every pod of the world, or none: a failure part-way deletes what was created. A pod the API server
   * refuses for what it is (403 from an admission plugin such as Pod Security, 422 from validation) is
   * {@link Result.Refused}: retrying the same pod cannot help, the job's status must say why. Other failures
   * throw, and the reconcile is retried.
   */
  private Result createGated(TrainingJob job, World world) {
    List<Pod> created = new ArrayList<>();
    String creating = null;
    Instant at = Instant.now();
    try {
      for (Seat seat : world.seats()) {
        Pod desired = WorkerPods.build(job, world, seat, true, settings);
        creating = desired.getMetadata().getName();
        Pod pod = client.resource(desired).create();
        reservations.add(pod, Instant.now());
        created.add(pod);
      }
      createdPods.created(job.getMetadata().getUid(), world.generation(),
          created.stream().map(p -> p.getMetadata().getName()).toList(), at);
      return new Result.Admitted(world);
    } catch (RuntimeException e) {
      LOG.warnf("Creating the pods of world %d of %s/%s failed after %d of %d; deleting them",
          world.generation(), job.getMetadata().getNamespace(), job.getMetadata().getName(), created.size(),
          world.size());
      for (Pod p : created) {
        client.resource(p).delete();
        reservations.release(p.getMetadata().getUid());
      }
      if (e instanceof KubernetesClientException k && exceededQuota(k)) {
        // the API server counted what the cache had not shown yet (or the pod differs from the one counted, e.g. by
        // requests a webhook added): the job waits for its quota, and does not try again at once
        Result waits = new Result.Unschedulable(NamespaceQuota.EXCEEDS_QUOTA, "the API server refused worker pod "
            + creating + ": " + k.getStatus().getMessage() + "; the job waits until the namespace's usage or its"
            + " quota changes");
        refusals.refused(job.getMetadata().getUid(), specGeneration(job), k.getStatus().getMessage(), waits,
            Instant.now());
        return waits;
      }
      if (e instanceof KubernetesClientException k && refusedForWhatItIs(k.getCode())) {
        String message = k.getStatus() != null && k.getStatus().getMessage() != null ? k.getStatus().getMessage()
            : k.getMessage();
        Result refused = new Result.Refused(creating, message);
        refusals.refused(job.getMetadata().getUid(), specGeneration(job), message, refused, Instant.now());
        return refused;
      }
      throw e;
    }
  }

  private static long specGeneration(TrainingJob job) {
    Long generation = job.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }

  /** A 403 from the ResourceQuota admission plugin: "pods ... is forbidden: exceeded quota: ...". */
  static boolean exceededQuota(KubernetesClientException e) {
    return e.getCode() == 403 && e.getStatus() != null && NamespaceQuota.exceeded(e.getStatus().getMessage());
  }

  static boolean refusedForWhatItIs(int httpCode) {
    return httpCode == 403 || httpCode == 422;
  }
}
