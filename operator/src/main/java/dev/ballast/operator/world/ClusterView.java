package dev.ballast.operator.world;

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
 */
public record ClusterView(Map<String, NodeState> nodes, Integer placeableWorkers, List<String> waitingJobs,
                          UnseenPods unseen) {
  public ClusterView {
    nodes = Map.copyOf(nodes);
    waitingJobs = List.copyOf(waitingJobs);
  }

  /** A view in which the pod cache shows every pod admission created. */
  public ClusterView(Map<String, NodeState> nodes, Integer placeableWorkers, List<String> waitingJobs) {
    this(nodes, placeableWorkers, waitingJobs, null);
  }
}
