package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cluster's PriorityClasses, to give a job the priority its pods get: the value of the template's
 * priorityClassName, or of the class marked globalDefault when it names none, or 0 (as the API server's Priority
 * admission resolves a pod's priority). A class that does not exist counts as 0: the API server refuses the job's
 * pods, and its status says so. A class's {@code preemptionPolicy: Never} keeps its jobs from preempting others, as
 * it keeps its pods from preempting in the scheduler. A class's {@value #MIN_RUNTIME} annotation keeps a world of
 * its jobs from being reclaimed or preempted until it has run that many seconds (Slurm's PreemptExemptTime, the KAI
 * scheduler's minimum runtime): PriorityClasses are the cluster admin's, so the protection is the admin's to give.
 *
 * @param byName each class's value
 * @param globalDefault the name of the globalDefault class, null when there is none
 * @param neverPreempting the classes whose preemptionPolicy is Never
 * @param minRuntimes the classes with a minimum runtime, and that runtime
 * @param problems one line per class whose {@value #MIN_RUNTIME} annotation is not a whole number of seconds (such
 *     an annotation is ignored)
 */
public record Priorities(Map<String, Integer> byName, String globalDefault, Set<String> neverPreempting,
    Map<String, Duration> minRuntimes, List<String> problems) {
  public static final Priorities NONE = new Priorities(Map.of(), null, Set.of());
  public static final String MIN_RUNTIME = "ballast.dev/min-runtime-seconds";
  static final String NEVER = "Never";

  public Priorities {
    byName = Map.copyOf(byName);
    neverPreempting = Set.copyOf(neverPreempting);
    minRuntimes = Map.copyOf(minRuntimes);
    problems = List.copyOf(problems);
  }

  /** Classes without a minimum runtime. */
  public Priorities(Map<String, Integer> byName, String globalDefault, Set<String> neverPreempting) {
    this(byName, globalDefault, neverPreempting, Map.of(), List.of());
  }

  public static Priorities of(Collection<PriorityClass> classes) {
    Map<String, Integer> byName = new HashMap<>();
    Set<String> never = new HashSet<>();
    Map<String, Duration> minRuntimes = new HashMap<>();
    List<String> problems = new ArrayList<>();
    String globalDefault = null;
    for (PriorityClass c : classes) {
      String name = c.getMetadata().getName();
      byName.put(name, c.getValue() == null ? 0 : c.getValue());
      if (NEVER.equals(c.getPreemptionPolicy())) never.add(name);
      if (Boolean.TRUE.equals(c.getGlobalDefault())) globalDefault = name;
      String minRuntime = c.getMetadata().getAnnotations() == null ? null
          : c.getMetadata().getAnnotations().get(MIN_RUNTIME);
      if (minRuntime != null) {
        try {
          long seconds = Long.parseLong(minRuntime.trim());
          if (seconds < 0) throw new NumberFormatException();
          if (seconds > 0) minRuntimes.put(name, Duration.ofSeconds(seconds));
        } catch (NumberFormatException e) {
          problems.add("PriorityClass " + name + ": annotation " + MIN_RUNTIME + " is \"" + minRuntime
              + "\", not a whole number of seconds (0 or more); its jobs get no minimum runtime");
        }
      }
    }
    problems.sort(null);
    return new Priorities(byName, globalDefault, never, minRuntimes, problems);
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

  /** How long a world of a job with pods built from {@code template} runs before it may be reclaimed or preempted. */
  public Duration minRuntime(PodTemplateSpec template) {
    String name = className(template);
    return name == null ? Duration.ZERO : minRuntimes.getOrDefault(name, Duration.ZERO);
  }

  private String className(PodTemplateSpec template) {
    String name = template == null || template.getSpec() == null ? null : template.getSpec().getPriorityClassName();
    return name == null || name.isEmpty() ? globalDefault : name;
  }
}
