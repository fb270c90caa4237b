package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.ClusterCache;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.observe.AdmissionView;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.Placement;
import dev.ballast.operator.placement.WorkerSlot;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Gang admission: chooses nodes for a whole new world and creates its pods, gated, pinned to those
 * nodes. Serialized across jobs, so that a GPU is never promised to two jobs: capacity comes from the
 * informer caches ({@link ClusterCache}) plus the pods admission created that the cache does not show yet
 * ({@link Reservations}); a job placed a moment ago has its gated pods, with their promised nodes, in one
 * or the other.
 */
public class GangAdmission {
  private static final Logger LOG = Logger.getLogger(GangAdmission.class);

  /** Outcome of one admission attempt. */
  public sealed interface Result {
    record Admitted(World world) implements Result {}

    record Unschedulable(String message) implements Result {}

    /**
     * The API server refused a worker pod (admission, e.g. Pod Security, or validation); {@code message} is its
     * own words. Nothing was kept: the pods created before it are deleted.
     */
    record Refused(String pod, String message) implements Result {}
  }

  private final KubernetesClient client;
  private final OperatorSettings settings;
  private final Reservations reservations = new Reservations();
  private final AdmissionView view;

  public GangAdmission(KubernetesClient client, OperatorSettings settings) {
    this.client = client;
    this.settings = settings;
    this.view = new ClusterCache(client, pod -> reservations.release(pod.getMetadata().getUid()));
  }

  /** Reading the cluster from {@code view} (tests: a cache that lags as long as they like). */
  GangAdmission(KubernetesClient client, OperatorSettings settings, AdmissionView view) {
    this.client = client;
    this.settings = settings;
    this.view = view;
  }

  public synchronized Result admit(TrainingJob job, long generation) {
    TrainingJobSpec spec = job.getSpec();
    List<Node> nodes = view.nodes();
    return admit(job, generation, ClusterCapacity.of(nodes, podsHoldingResources(nodes), spec.topology));
  }

  /** Unfinished pods on these nodes, from the cache, and those admission created that the cache does not show yet. */
  private List<Pod> podsHoldingResources(List<Node> nodes) {
    List<Pod> pods = new ArrayList<>(view.podsOn(nodes.stream().map(n -> n.getMetadata().getName()).toList()));
    pods.addAll(reservations.unseen(
        p -> view.cachedUid(p.getMetadata().getNamespace(), p.getMetadata().getName()), Instant.now()));
    return pods;
  }

  /**
   * How many workers of this job would fit if its own pods were gone (the room a resize would have): the
   * same placement admission runs, with the job's pods left out of the GPUs in use.
   */
  public synchronized int placeableWorkers(TrainingJob job) {
    TrainingJobSpec spec = job.getSpec();
    String uid = job.getMetadata().getUid();
    List<Node> nodes = view.nodes();
    List<Pod> others = podsHoldingResources(nodes).stream()
        .filter(p -> p.getMetadata().getOwnerReferences().stream().noneMatch(o -> o.getUid().equals(uid)))
        .toList();
    return room(spec, ClusterCapacity.of(nodes, others, spec.topology));
  }

  /** How many workers of this spec fit in {@code capacity} (at most workers.max). Pure. */
  public static int room(TrainingJobSpec spec, ClusterCapacity capacity) {
    Placement placement = GangPlacer.place(capacity.nodes(), capacity.used(),
        WorkerRequest.of(spec).withWorkers(1, spec.workers.max));
    return placement instanceof Placement.Placed p ? p.workers().size() : 0;
  }

  private Result admit(TrainingJob job, long generation, ClusterCapacity capacity) {
    Result result = choose(job.getSpec(), capacity, generation);
    if (result instanceof Result.Admitted a) return createGated(job, a.world());
    return result;
  }

  /** Chooses the nodes of a new world: as many workers as fit, in whole groups, never fewer than workers.min. Pure. */
  public static Result choose(TrainingJobSpec spec, ClusterCapacity capacity, long generation) {
    GangRequest request = WorkerRequest.of(spec);
    Placement placement = GangPlacer.place(capacity.nodes(), capacity.used(), request);
    if (placement instanceof Placement.Unplaceable u) return new Result.Unschedulable(u.reason());

    int fitting = ((Placement.Placed) placement).workers().size();
    int size = WorldSizes.largestValid(fitting, spec);
    if (size < spec.workers.min) return new Result.Unschedulable(WorldSizes.explain(fitting, spec));
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
   * Creates every pod of the world, or none: a failure part-way deletes what was created. A pod the API server
   * refuses for what it is (403 from an admission plugin such as Pod Security, 422 from validation) is
   * {@link Result.Refused}: retrying the same pod cannot help, the job's status must say why. Other failures
   * throw, and the reconcile is retried.
   */
  private Result createGated(TrainingJob job, World world) {
    List<Pod> created = new ArrayList<>();
    String creating = null;
    try {
      for (Seat seat : world.seats()) {
        Pod desired = WorkerPods.build(job, world, seat, true, settings);
        creating = desired.getMetadata().getName();
        Pod pod = client.resource(desired).create();
        reservations.add(pod, Instant.now());
        created.add(pod);
      }
      return new Result.Admitted(world);
    } catch (RuntimeException e) {
      LOG.warnf("Creating the pods of world %d of %s/%s failed after %d of %d; deleting them",
          world.generation(), job.getMetadata().getNamespace(), job.getMetadata().getName(), created.size(),
          world.size());
      for (Pod p : created) {
        client.resource(p).delete();
        reservations.release(p.getMetadata().getUid());
      }
      if (e instanceof KubernetesClientException k && refusedForWhatItIs(k.getCode())) {
        return new Result.Refused(creating, k.getStatus() != null && k.getStatus().getMessage() != null
            ? k.getStatus().getMessage() : k.getMessage());
      }
      throw e;
    }
  }

  static boolean refusedForWhatItIs(int httpCode) {
    return httpCode == 403 || httpCode == 422;
  }
}
