package dev.ballast.operator.status;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import java.util.Objects;

/** Whether the operator's part of the status would change: the balancer's part is not ours to compare. */
public final class StatusChange {
  private StatusChange() {}

  public static boolean changed(TrainingJob job, TrainingJobStatus next) {
    if (job.getStatus() == null) return true;
    TrainingJobStatus live = Serialization.clone(job.getStatus());
    live.balancer = null;
    Map<?, ?> a = Serialization.jsonMapper().convertValue(live, Map.class);
    Map<?, ?> b = Serialization.jsonMapper().convertValue(next, Map.class);
    return !Objects.equals(a, b);
  }
}
