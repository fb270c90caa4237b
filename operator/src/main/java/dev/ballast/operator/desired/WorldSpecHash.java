package dev.ballast.operator.desired;

import dev.ballast.operator.api.TrainingJobSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hash of the spec fields that apply at the next world: the pod template, the checkpoint volume, the topology
 * label keys and the balancer settings. Every worker pod carries the hash of the spec it was built from; a
 * running world whose hash differs from the spec's is replaced (reason SpecChanged). The other fields apply
 * live (restartLimit, timeouts, elastic and recovery policy), by resize (workers) or are immutable.
 */
public final class WorldSpecHash {
  private WorldSpecHash() {}

  public static String of(TrainingJobSpec spec) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("template", spec.template);
    fields.put("checkpoint", spec.checkpoint);
    fields.put("topology", spec.topology);
    fields.put("balancer", spec.balancer);
    return TemplateHash.digest(fields);
  }
}
