package dev.ballast.operator.world;

import dev.ballast.operator.admission.Reclaim;
import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What the world's decisions need to know about the rest of the cluster, observed by the reconciler.
 *
 * @param nodes every node by name (a name missing here is a deleted node)
 * @param placeableWorkers how many workers of this job would fit if its own pods were gone; null when not
 *     computed (only asked for when the job could resize, see {@link WorldLifecycle#wantsRoom})
 * @param waitingJobs other jobs waiting for GPUs to reach their workers.min: growth yields to them
 * @param unseen pods of this job admission created that the pod cache does not show yet; null when none
 * @param giveWay this job gives way to a waiting job now: down to this size, or stopping (preempted); null when not
 * @param protectedUntil while other jobs wait for room, until when this job's world gives way to none of them (its
 *     class's minimum runtime, {@link Reclaim#protectedUntil}): it looks again then; null when not kept
 * @param lenders other jobs giving way to this one now ({@link WorldLifecycle#givingWayFor}): it is admitted after
 *     the workers they give up have stopped
 * @param preempting those of {@code lenders} whose worlds stop for this one ({@link WorldLifecycle#preemptingFor})
 * @param preemptedFor the job this one was preempted for, while that job still waits for the room
 *     ({@link WorldLifecycle#preemptedFor}): this one is not admitted before it; null when none
 */
public record ClusterView(Map<String, NodeState> nodes, Integer placeableWorkers, List<String> waitingJobs,
                          UnseenPods unseen, Reclaim.Yield giveWay, Instant protectedUntil, List<String> lenders,
                          List<String> preempting, String preemptedFor) {
  public ClusterView {
    nodes = Map.copyOf(nodes);
    waitingJobs = List.copyOf(waitingJobs);
    lenders = List.copyOf(lenders);
    preempting = List.copyOf(preempting);
  }

  /**
   * The view of {@code job} beside the other {@code jobs}: which of them give way to it ({@link
   * WorldLifecycle#givingWayFor}, {@link WorldLifecycle#preemptingFor}) and which it was preempted for ({@link
   * WorldLifecycle#preemptedFor}).
   */
  public static ClusterView of(Map<String, NodeState> nodes, Integer placeableWorkers, List<String> waitingJobs,
      UnseenPods unseen, Reclaim.Yield giveWay, Instant protectedUntil, TrainingJob job, Collection<TrainingJob> jobs,
      Instant now) {
    return new ClusterView(nodes, placeableWorkers, waitingJobs, unseen, giveWay, protectedUntil,
        WorldLifecycle.givingWayFor(job, jobs, now), WorldLifecycle.preemptingFor(job, jobs, now),
        WorldLifecycle.preemptedFor(job, jobs, now).orElse(null));
  }

  /** A view in which no job gives way. */
  public ClusterView(Map<String, NodeState> nodes, Integer placeableWorkers, List<String> waitingJobs,
      UnseenPods unseen) {
    this(nodes, placeableWorkers, waitingJobs, unseen, null, null, List.of(), List.of(), null);
  }

  /** A view in which no job gives way, and in which the pod cache shows every pod admission created. */
  public ClusterView(Map<String, NodeState> nodes, Integer placeableWorkers, List<String> waitingJobs) {
    this(nodes, placeableWorkers, waitingJobs, null);
  }

  /** Whether a pod bound to {@code node} may be force-deleted: the Node object is gone or declared out of service. */
  public boolean podsMayBeForceDeletedOn(String node) {
    NodeState n = node == null ? null : nodes.get(node);
    return node != null && (n == null || n.outOfService());
  }

  /**
   * The pods of {@code pods} bound to a node they can no longer run on ({@link #podsMayBeForceDeletedOn}): deleted at
   * once, their controllers replace them at once, where Kubernetes' pod garbage collector removes a deleted node's
   * pods only about 40 s later.
   */
  public List<Pod> stranded(List<Pod> pods) {
    return pods.stream().filter(p -> new WorkerPodView(p).bound()
        && podsMayBeForceDeletedOn(p.getSpec().getNodeName())).toList();
  }
}
