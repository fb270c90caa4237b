package dev.ballast.operator.status;

import dev.ballast.operator.world.WorkerPodView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Why the job's balancer does not run, as its Deployment and pods say it (the Keycloak operator's way of surfacing pod
 * errors in status): a pod the API server refuses (a namespace quota, Pod Security), one the scheduler cannot place,
 * one whose container cannot start or keeps crashing. Without this a job whose balancer never starts runs on the
 * static expert layout with nothing in its status saying so. Pure.
 */
public final class BalancerPods {
  private BalancerPods() {}

  /** The problem in a person's words; empty while nothing is known to be wrong. */
  public static Optional<String> problem(Deployment deployment, List<Pod> pods) {
    if (deployment != null && deployment.getStatus() != null) {
      var refused = deployment.getStatus().getConditions().stream()
          .filter(c -> "ReplicaFailure".equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
      if (refused.isPresent()) {
        return Optional.of("its pod cannot be created (" + refused.get().getReason() + "): "
            + refused.get().getMessage());
      }
    }
    for (WorkerPodView pod : pods.stream().map(WorkerPodView::new).filter(p -> !p.terminating() && !p.finished())
        .sorted(Comparator.comparing(WorkerPodView::name)).toList()) {
      Optional<String> waiting = pod.startupProblem();
      if (waiting.isPresent()) return Optional.of("pod " + pod.name() + ", " + waiting.get());
      if (!pod.bound()) {
        Optional<String> unscheduled = pod.schedulingMessage();
        if (unscheduled.isPresent()) {
          return Optional.of("pod " + pod.name() + " cannot be scheduled: " + unscheduled.get());
        }
      }
    }
    return Optional.empty();
  }
}
