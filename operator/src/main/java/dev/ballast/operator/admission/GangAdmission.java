package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.Placement;
import dev.ballast.operator.placement.WorkerSlot;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Gang admission: chooses nodes for a whole new world and creates its pods, gated, pinned to those
 * nodes. Serialized across jobs and reading the cluster live (not from a cache), so that a GPU is never
 * promised to two jobs: a job placed a moment ago has its gated pods, with their promised nodes, in the list.
 */
public class GangAdmission {
  private static final Logger LOG = Logger.getLogger(GangAdmission.class);

  /** Outcome of one admission attempt. */
  public sealed interface Result {
    record Admitted(World world) implements Result {}

    record Unschedulable(String message) implements Result {}
  }

  private final KubernetesClient client;
  private final OperatorSettings settings;

  public GangAdmission(KubernetesClient client, OperatorSettings settings) {
    this.client = client;
    this.settings = settings;
  }

  public synchronized Result admit(TrainingJob job, long generation) {
    TrainingJobSpec spec = job.getSpec();
    var capacity = ClusterCapacity.of(client.nodes().list().getItems(),
        client.pods().inAnyNamespace().list().getItems(), spec.topology);
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
    List<WorkerSlot> slots = ((Placement.Placed) placement).workers();
    List<Seat> seats = new ArrayList<>();
    for (WorkerSlot slot : slots) {
      seats.add(new Seat(slot.nodeRank(), slot.nodeRank(), slot.node(), slot.domain(), slot.rack()));
    }
    World world = new World(generation, seats);
    createGated(job, world);
    return new Result.Admitted(world);
  }

  /** Creates every pod of the world, or none: a failure part-way deletes what was created. */
  private void createGated(TrainingJob job, World world) {
    List<Pod> created = new ArrayList<>();
    try {
      for (Seat seat : world.seats()) {
        created.add(client.resource(WorkerPods.build(job, world, seat, true, settings)).create());
      }
    } catch (RuntimeException e) {
      LOG.warnf("Creating the pods of world %d of %s/%s failed after %d of %d; deleting them",
          world.generation(), job.getMetadata().getNamespace(), job.getMetadata().getName(), created.size(),
          world.size());
      created.forEach(p -> client.resource(p).delete());
      throw e;
    }
  }
}
