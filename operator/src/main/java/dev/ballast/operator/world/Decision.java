package dev.ballast.operator.world;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;

/**
 * The outcome of {@link WorldLifecycle#decide}: the world's next step, the pods to stop, and when to look again.
 *
 * @param stop pods to delete (graceful)
 * @param stopGraceSeconds grace period for {@code stop}; null keeps each pod's own terminationGracePeriodSeconds
 * @param forceDelete pods to delete with grace 0: only pods whose node is deleted or out of service
 * @param wakeAt when the decision may change by time alone (a grace period or backoff ends); null: on events only
 * @param specInEffect whether what runs (or is being admitted) reflects the job's current spec
 */
public record Decision(WorldStep step, List<Pod> stop, Integer stopGraceSeconds, List<Pod> forceDelete,
                       Instant wakeAt, boolean specInEffect) {
  public Decision {
    stop = List.copyOf(stop);
    forceDelete = List.copyOf(forceDelete);
  }
}
