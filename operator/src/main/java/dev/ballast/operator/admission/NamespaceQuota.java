package dev.ballast.operator.admission;

import dev.ballast.operator.observe.PodRequests;
import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ScopedResourceSelectorRequirement;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How many workers of a job the ResourceQuotas of its namespace let in (docs/elastic.md, "Namespace quotas"). The API
 * server refuses a pod that would take a quota's usage above its hard limit; admission asks before it creates a
 * world's pods, so that an elastic job is admitted at the size its quota allows and a job the quota cannot take waits
 * with a message naming the quota, instead of creating part of a world and deleting it again. Usage is counted as the
 * quota controller counts it (k8s.io/kubernetes pkg/quota/v1/evaluator/core): every unfinished pod of the namespace
 * that the quota's scopes select, by its effective requests and limits. Pure.
 */
public final class NamespaceQuota {
  /** The reason of {@code Admitted=False} while the namespace's quota cannot take the job's workers.min. */
  public static final String EXCEEDS_QUOTA = "ExceedsQuota";
  /**
   * The reason of {@code Admitted=False} while a quota of the job's namespace could not take its workers.min even with
   * no other pod in the namespace: no job giving way can help, the quota or the job must change.
   */
  public static final String QUOTA_TOO_SMALL = "QuotaTooSmall";
  /** How the API server's ResourceQuota plugin words a refusal: "... is forbidden: exceeded quota: gpus, ...". */
  private static final String EXCEEDED = "exceeded quota: ";
  /** ... "requested: (what the pod counts), used: ..., limited: ...". */
  private static final Pattern REQUESTED = Pattern.compile(EXCEEDED + "[^,]+, requested: (\\S+), used:");

  private NamespaceQuota() {}

  /**
   * @param workers how many workers the quotas let in (Integer.MAX_VALUE when none limits a worker)
   * @param limit the quota and resource that allow the fewest, in a person's words; null when none limits
   */
  public record Room(int workers, String limit) {
    public static final Room UNLIMITED = new Room(Integer.MAX_VALUE, null);
  }

  /** A pod as the quotas count it. */
  private record Counted(PodSpec spec, Resources requests, Resources limits) {
    static Counted of(PodSpec spec) {
      return new Counted(spec, PodRequests.of(spec), PodRequests.limits(spec));
    }
  }

  /**
   * The room the {@code quotas} leave for pods like {@code worker}, given the namespace's unfinished pods
   * ({@code pods}, without the job's own pods its next world replaces).
   */
  public static Room of(Collection<ResourceQuota> quotas, PodSpec worker, Collection<PodSpec> pods) {
    return of(quotas, worker, pods, Map.of());
  }

  /**
   * As {@link #of(Collection, PodSpec, Collection)}, a worker counting at least {@code atLeast} of each quota resource
   * named there (what the API server counted for the job's pod when it refused one, {@link #requested}).
   */
  public static Room of(Collection<ResourceQuota> quotas, PodSpec worker, Collection<PodSpec> pods,
      Map<String, Long> atLeast) {
    if (quotas.isEmpty()) return Room.UNLIMITED;
    Counted one = Counted.of(worker);
    List<Counted> counted = pods.stream().map(Counted::of).toList();
    Room least = Room.UNLIMITED;
    for (ResourceQuota quota : quotas.stream()
        .sorted(Comparator.comparing(q -> q.getMetadata().getName())).toList()) {
      if (quota.getSpec() == null || quota.getSpec().getHard() == null || !selects(quota, worker)) continue;
      List<Counted> selected = counted.stream().filter(p -> selects(quota, p.spec())).toList();
      for (Map.Entry<String, Quantity> hard : quota.getSpec().getHard().entrySet()) {
        String name = hard.getKey();
        long each = Math.max(usage(name, one), atLeast.getOrDefault(name, 0L));
        if (each <= 0) continue; // not a pod resource (count/services), or one the worker does not use
        long used = 0;
        for (Counted p : selected) used += usage(name, p);
        long limit = amount(name, hard.getValue());
        long fits = Math.max(0, limit - used) / each;
        if (fits < least.workers()) {
          least = new Room((int) Math.min(Integer.MAX_VALUE - 1, fits), "ResourceQuota " + quota.getMetadata()
              .getName() + " (" + name + "): " + describe(name, used) + " of " + describe(name, limit) + " used, "
              + describe(name, each) + " per worker");
        }
      }
    }
    return least;
  }

  /**
   * What the API server counted for the pod it refused, per quota resource, from its message ("exceeded quota: gpus,
   * requested: requests.cpu=4200m,requests.nvidia.com/gpu=8, used: ..., limited: ..."); empty when the message says
   * no such thing.
   */
  public static Map<String, Long> requested(String message) {
    Matcher m = REQUESTED.matcher(message);
    if (!m.find()) return Map.of();
    Map<String, Long> amounts = new TreeMap<>();
    for (String entry : m.group(1).split(",")) {
      int eq = entry.indexOf('=');
      if (eq <= 0) continue;
      try {
        amounts.put(entry.substring(0, eq), amount(entry.substring(0, eq), new Quantity(entry.substring(eq + 1))));
      } catch (IllegalArgumentException e) {
        // a quantity this client cannot read: that resource is counted as before
      }
    }
    return amounts;
  }

  /** Whether the API server's message says it refused a pod for a quota's usage. */
  public static boolean exceeded(String message) {
    return message != null && message.contains(EXCEEDED);
  }

  /**
   * Whether a quota counts the unfinished {@code pod} at {@code now}: not one stuck terminating past its grace period
   * (a lost node's), which the quota controller stops charging so that its replacement can be created
   * (QuotaV1Pod in pkg/quota/v1/evaluator/core).
   */
  public static boolean counts(Pod pod, Instant now) {
    var meta = pod.getMetadata();
    if (meta.getDeletionTimestamp() == null || meta.getDeletionGracePeriodSeconds() == null) return true;
    return !now.isAfter(Instant.parse(meta.getDeletionTimestamp()).plusSeconds(meta.getDeletionGracePeriodSeconds()));
  }

  /** Whether the reason says the job waits for a quota of its namespace to change (either quota reason). */
  public static boolean waitsForQuota(String reason) {
    return EXCEEDS_QUOTA.equals(reason) || QUOTA_TOO_SMALL.equals(reason);
  }

  /** The message of a job whose workers.min the quotas cannot take even in an empty namespace ({@code ceiling}). */
  public static String tooSmallMessage(String namespace, Room ceiling, int min) {
    return "the ResourceQuotas of namespace " + namespace + " let in at most " + ceiling.workers()
        + (ceiling.workers() == 1 ? " worker" : " workers") + " with nothing else running, and workers.min is " + min
        + ": " + ceiling.limit() + "; raise the quota or lower workers.min";
  }

  /** The message of a job whose workers.min the quotas cannot take. */
  public static String message(String namespace, Room room, int min) {
    return "the ResourceQuotas of namespace " + namespace + " let in " + room.workers()
        + (room.workers() == 1 ? " worker" : " workers") + " and workers.min is " + min + ": " + room.limit()
        + "; the job waits until the namespace's usage or its quota changes";
  }

  /**
   * What a pod adds to the quota resource {@code name}, in {@link Resources} units; -1 for a name that is not a pod
   * resource. As the API server names them: {@code pods}, {@code count/pods}, {@code cpu} (= requests.cpu),
   * {@code memory}, {@code ephemeral-storage}, {@code hugepages-*}, {@code requests.*} (extended resources only so),
   * {@code limits.*}.
   */
  private static long usage(String name, Counted pod) {
    if (name.equals(Resources.PODS) || name.equals("count/pods")) return 1;
    if (name.startsWith("requests.")) return pod.requests().get(name.substring("requests.".length()));
    if (name.startsWith("limits.")) return pod.limits().get(name.substring("limits.".length()));
    if (name.equals(Resources.CPU) || name.equals(Resources.MEMORY) || name.equals(Resources.EPHEMERAL_STORAGE)
        || name.startsWith("hugepages-")) {
      return pod.requests().get(name);
    }
    return -1;
  }

  /** The resource a quota name counts ("requests.nvidia.com/gpu" counts nvidia.com/gpu). */
  private static String base(String name) {
    if (name.equals("count/pods")) return Resources.PODS;
    if (name.startsWith("requests.")) return name.substring("requests.".length());
    if (name.startsWith("limits.")) return name.substring("limits.".length());
    return name;
  }

  /** A hard limit in {@link Resources} units (cpu in millicores), rounded down. */
  private static long amount(String name, Quantity q) {
    BigDecimal value = Quantity.getAmountInBytes(q);
    if (base(name).equals(Resources.CPU)) value = value.movePointRight(3);
    return value.setScale(0, RoundingMode.FLOOR).max(BigDecimal.ZERO).min(BigDecimal.valueOf(Long.MAX_VALUE))
        .longValue();
  }

  private static String describe(String name, long amount) {
    String described = Resources.describe(base(name), amount);
    return name.startsWith("limits.") ? described + " (limits)" : described;
  }

  /** Whether the quota's scopes (all of them) select the pod, as the quota evaluator matches pods. */
  static boolean selects(ResourceQuota quota, PodSpec pod) {
    List<ScopedResourceSelectorRequirement> scopes = new ArrayList<>();
    if (quota.getSpec().getScopes() != null) {
      for (String scope : quota.getSpec().getScopes()) {
        scopes.add(new ScopedResourceSelectorRequirement("Exists", scope, List.of()));
      }
    }
    var selector = quota.getSpec().getScopeSelector();
    if (selector != null && selector.getMatchExpressions() != null) scopes.addAll(selector.getMatchExpressions());
    return scopes.stream().allMatch(s -> selects(s, pod));
  }

  private static boolean selects(ScopedResourceSelectorRequirement scope, PodSpec pod) {
    return switch (scope.getScopeName()) {
      case "Terminating" -> terminating(pod);
      case "NotTerminating" -> !terminating(pod);
      case "BestEffort" -> bestEffort(pod);
      case "NotBestEffort" -> !bestEffort(pod);
      case "CrossNamespacePodAffinity" -> crossNamespaceAffinity(pod);
      case "PriorityClass" -> {
        String name = pod.getPriorityClassName() == null ? "" : pod.getPriorityClassName();
        List<String> values = scope.getValues() == null ? List.of() : scope.getValues();
        yield switch (scope.getOperator()) {
          case "In" -> values.contains(name);
          case "NotIn" -> !values.contains(name);
          case "DoesNotExist" -> name.isEmpty();
          default -> !name.isEmpty(); // Exists
        };
      }
      default -> true; // a scope this operator does not know: counted, so that admission never promises too much
    };
  }

  private static boolean terminating(PodSpec pod) {
    return pod.getActiveDeadlineSeconds() != null && pod.getActiveDeadlineSeconds() >= 0;
  }

  /** The BestEffort QoS class: no container asks for or limits cpu or memory. */
  private static boolean bestEffort(PodSpec pod) {
    return Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream()).map(Container::getResources)
        .noneMatch(NamespaceQuota::setsCpuOrMemory);
  }

  private static boolean setsCpuOrMemory(ResourceRequirements r) {
    if (r == null) return false;
    return Stream.of(r.getRequests(), r.getLimits()).filter(m -> m != null)
        .anyMatch(m -> m.containsKey(Resources.CPU) || m.containsKey(Resources.MEMORY));
  }

  private static boolean crossNamespaceAffinity(PodSpec pod) {
    if (pod.getAffinity() == null) return false;
    List<PodAffinityTerm> terms = new ArrayList<>();
    var affinity = pod.getAffinity().getPodAffinity();
    var anti = pod.getAffinity().getPodAntiAffinity();
    if (affinity != null) {
      terms.addAll(affinity.getRequiredDuringSchedulingIgnoredDuringExecution());
      affinity.getPreferredDuringSchedulingIgnoredDuringExecution().stream()
          .map(WeightedPodAffinityTerm::getPodAffinityTerm).forEach(terms::add);
    }
    if (anti != null) {
      terms.addAll(anti.getRequiredDuringSchedulingIgnoredDuringExecution());
      anti.getPreferredDuringSchedulingIgnoredDuringExecution().stream()
          .map(WeightedPodAffinityTerm::getPodAffinityTerm).forEach(terms::add);
    }
    return terms.stream().anyMatch(t -> t.getNamespaceSelector() != null
        || t.getNamespaces() != null && !t.getNamespaces().isEmpty());
  }
}
