package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The cluster's PriorityClasses, to give a job the priority its pods get: the value of the template's
 * priorityClassName, or of the class marked globalDefault when it names none, or 0 (as the API server's Priority
 * admission resolves a pod's priority). A class that does not exist counts as 0: the API server refuses the job's
 * pods, and its status says so.
 *
 * @param byName each class's value
 * @param globalDefault the value of the globalDefault class, 0 when there is none
 */
public record Priorities(Map<String, Integer> byName, int globalDefault) {
  public static final Priorities NONE = new Priorities(Map.of(), 0);

  public Priorities {
    byName = Map.copyOf(byName);
  }

  public static Priorities of(Collection<PriorityClass> classes) {
    Map<String, Integer> byName = new HashMap<>();
    int globalDefault = 0;
    for (PriorityClass c : classes) {
      int value = c.getValue() == null ? 0 : c.getValue();
      byName.put(c.getMetadata().getName(), value);
      if (Boolean.TRUE.equals(c.getGlobalDefault())) globalDefault = value;
    }
    return new Priorities(byName, globalDefault);
  }

  /** The priority of the pods built from {@code template}. */
  public int of(PodTemplateSpec template) {
    String name = template == null || template.getSpec() == null ? null : template.getSpec().getPriorityClassName();
    if (name == null || name.isEmpty()) return globalDefault;
    return byName.getOrDefault(name, 0);
  }
}
