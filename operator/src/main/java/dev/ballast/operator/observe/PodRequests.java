package dev.ballast.operator.observe;

import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A pod's effective resource request as the scheduler computes it (k8s.io/component-helpers resource
 * PodRequests): the sum of the app containers and native sidecars (init containers with restartPolicy
 * Always), or, per resource, the largest init container plus the sidecars started before it, if that
 * is more; pod-level requests (cpu, memory, hugepages) replace the containers' sum; the RuntimeClass
 * overhead is added. A container's request defaults to its limit, as the API server defaults it, so
 * a pod template (never defaulted) reads like the pod made from it.
 */
public final class PodRequests {
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
  private PodRequests() {}

  public static Resources of(PodSpec spec) {
    return effective(spec, PodRequests::requests, false);
  }

  /**
   * A pod's effective limits, as the API server's quota counts {@code limits.*} (k8s.io/component-helpers resource
   * PodLimits): the same sums as {@link #of} over the containers' limits; the overhead adds only to a resource that
   * has a limit.
   */
  public static Resources limits(PodSpec spec) {
    return effective(spec, r -> r == null || r.getLimits() == null ? Resources.NONE : resources(r.getLimits()), true);
  }

  private static Resources effective(PodSpec spec, Function<ResourceRequirements, Resources> amounts,
      boolean overheadWhereSet) {
    Resources sum = Resources.NONE;
    for (Container c : spec.getContainers()) sum = sum.plus(amounts.apply(c.getResources()));
    Resources sidecars = Resources.NONE;
    Map<String, Long> initPeak = new TreeMap<>();
    for (Container c : spec.getInitContainers()) {
      Resources own = amounts.apply(c.getResources());
      Resources whileRunning;
      if ("Always".equals(c.getRestartPolicy())) {
        sum = sum.plus(own);
        sidecars = sidecars.plus(own);
        whileRunning = sidecars;
      } else {
        whileRunning = own.plus(sidecars);
      }
      whileRunning.amounts().forEach((name, amount) -> initPeak.merge(name, amount, Math::max));
    }
    Map<String, Long> effective = new TreeMap<>(sum.amounts());
    initPeak.forEach((name, amount) -> effective.merge(name, amount, Math::max));
    if (spec.getResources() != null) {
      amounts.apply(spec.getResources()).amounts().forEach((name, amount) -> {
        if (isPodLevel(name)) effective.put(name, amount);
      });
    }
    if (spec.getOverhead() != null) {
      resources(spec.getOverhead()).amounts().forEach((name, amount) -> {
        if (!overheadWhereSet || effective.containsKey(name)) effective.merge(name, amount, Long::sum);
      });
    }
    return new Resources(effective);
  }

  /** Requests, each defaulting to its limit where only the limit is set. */
  static Resources requests(ResourceRequirements r) {
    if (r == null) return Resources.NONE;
    Map<String, Quantity> merged = new TreeMap<>();
    if (r.getLimits() != null) merged.putAll(r.getLimits());
    if (r.getRequests() != null) merged.putAll(r.getRequests());
    return resources(merged);
  }

  /** Quantities in the scheduler's units: cpu in millicores, the rest in whole base units, rounded up. */
  public static Resources resources(Map<String, Quantity> quantities) {
    Map<String, Long> amounts = new TreeMap<>();
    quantities.forEach((name, q) -> {
      BigDecimal value = Quantity.getAmountInBytes(q);
      if (Resources.CPU.equals(name)) value = value.movePointRight(3);
      BigDecimal whole = value.setScale(0, RoundingMode.CEILING);
      amounts.put(name, whole.compareTo(LONG_MAX) >= 0 ? Long.MAX_VALUE : Math.max(0, whole.longValue()));
    });
    return new Resources(amounts);
  }

  private static boolean isPodLevel(String name) {
    return Resources.CPU.equals(name) || Resources.MEMORY.equals(name) || name.startsWith("hugepages-");
  }
}
