package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The cluster's PriorityClasses, to give a job the priority its pods get: the value of the template's
 * priorityClassName, or of the class marked globalDefault when it names none, or 0 (as the API server's Priority
 * admission resolves a pod's priority). A class that does not exist counts as 0: the API server refuses the job's
 * pods, and its status says so. A class's {@code preemptionPolicy: Never} keeps its jobs from preempting others, as
 * it keeps its pods from preempting in the scheduler.
 *
 * @param byName each class's value
 * @param globalDefault the name of the globalDefault class, null when there is none
 * @param neverPreempting the classes whose preemptionPolicy is Never
 */
public record Priorities(Map<String, Integer> byName, String globalDefault, Set<String> neverPreempting) {
  public static final Priorities NONE = new Priorities(Map.of(), null, Set.of());
  static final String NEVER = "Never";

  public Priorities {
    byName = Map.copyOf(byName);
    neverPreempting = Set.copyOf(neverPreempting);
  }

  public static Priorities of(Collection<PriorityClass> classes) {
    Map<String, Integer> byName = new HashMap<>();
    Set<String> never = new HashSet<>();
    String globalDefault = null;
    for (PriorityClass c : classes) {
      String name = c.getMetadata().getName();
      byName.put(name, c.getValue() == null ? 0 : c.getValue());
      if (NEVER.equals(c.getPreemptionPolicy())) never.add(name);
      if (Boolean.TRUE.equals(c.getGlobalDefault())) globalDefault = name;
    }
    return new Priorities(byName, globalDefault, never);
  }

  /** The priority of the pods built from {@code template}. */
  public int of(PodTemplateSpec template) {
    String name = className(template);
    return name == null ? 0 : byName.getOrDefault(name, 0);
  }

  /** Whether a job with pods built from {@code template} may preempt jobs of lower priority. */
  public boolean mayPreempt(PodTemplateSpec template) {
    String name = className(template);
    return name == null || !neverPreempting.contains(name);
  }

  private String className(PodTemplateSpec template) {
    String name = template == null || template.getSpec() == null ? null : template.getSpec().getPriorityClassName();
    return name == null || name.isEmpty() ? globalDefault : name;
  }
}
