package dev.ballast.operator.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeItem;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A pod spec with the defaults its namespace's LimitRanges give containers (the API server's LimitRanger admission
 * plugin), so that the quota counts a worker as the API server will: a container without a limit gets the range's
 * {@code default}; one with neither a request nor a limit gets its {@code defaultRequest} (one with a limit only was
 * given its limit as the request before the plugin runs). Ranges apply in name order, each filling only what is still
 * missing. Pure.
 */
public final class LimitRangeDefaults {
  private LimitRangeDefaults() {}

  public static PodSpec apply(PodSpec spec, List<LimitRange> ranges) {
    List<LimitRangeItem> items = ranges.stream().sorted(Comparator.comparing(r -> r.getMetadata().getName()))
        .filter(r -> r.getSpec() != null && r.getSpec().getLimits() != null)
        .flatMap(r -> r.getSpec().getLimits().stream()).filter(i -> "Container".equals(i.getType())).toList();
    if (items.isEmpty()) return spec;
    PodSpec defaulted = Serialization.clone(spec);
    Stream.concat(defaulted.getContainers().stream(), defaulted.getInitContainers().stream())
        .forEach(c -> items.forEach(item -> fill(c, item)));
    return defaulted;
  }

  private static void fill(Container c, LimitRangeItem item) {
    ResourceRequirements r = c.getResources() == null ? new ResourceRequirements() : c.getResources();
    Map<String, Quantity> requests = r.getRequests() == null ? new TreeMap<>() : new TreeMap<>(r.getRequests());
    Map<String, Quantity> limits = r.getLimits() == null ? new TreeMap<>() : new TreeMap<>(r.getLimits());
    if (item.getDefaultRequest() != null) {
      item.getDefaultRequest().forEach((name, q) -> {
        if (!requests.containsKey(name) && !limits.containsKey(name)) requests.put(name, q);
      });
    }
    if (item.getDefault() != null) item.getDefault().forEach(limits::putIfAbsent);
    r.setRequests(requests);
    r.setLimits(limits);
    c.setResources(r);
  }
}
