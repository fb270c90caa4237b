package dev.ballast.operator.placement;

import java.math.BigDecimal;
import java.util.Map;
import java.util.TreeMap;

/**
 * Amounts of node resources by Kubernetes resource name, as the scheduler compares them: cpu in
 * millicores, every other resource in its base unit (bytes for memory, ephemeral-storage and
 * hugepages, a count for pods, GPUs and other extended resources). Zero amounts are dropped, so two
 * equal requests are equal records.
 */
public record Resources(Map<String, Long> amounts) {
  public static final String GPU = "nvidia.com/gpu";
  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";
  public static final String PODS = "pods";
  public static final Resources NONE = new Resources(Map.of());

  public Resources {
    TreeMap<String, Long> copy = new TreeMap<>();
    amounts.forEach((name, amount) -> {
      if (amount < 0) throw new IllegalArgumentException("resource " + name + ": amount " + amount + " < 0");
      if (amount > 0) copy.put(name, amount);
    });
    amounts = java.util.Collections.unmodifiableMap(copy);
  }

  public static Resources of(String name, long amount) {
    return new Resources(Map.of(name, amount));
  }

  public static Resources gpus(int gpus) {
    return of(GPU, gpus);
  }

  public long get(String name) {
    return amounts.getOrDefault(name, 0L);
  }

  public Resources plus(Resources other) {
    Map<String, Long> sum = new TreeMap<>(amounts);
    other.amounts.forEach((name, amount) -> sum.merge(name, amount, Long::sum));
    return new Resources(sum);
  }

  /** What is left of these amounts after {@code used}, never below zero. */
  public Resources minus(Resources used) {
    Map<String, Long> left = new TreeMap<>(amounts);
    used.amounts.forEach((name, amount) -> left.computeIfPresent(name, (n, have) -> Math.max(0, have - amount)));
    return new Resources(left);
  }

  public Resources times(int n) {
    Map<String, Long> product = new TreeMap<>();
    amounts.forEach((name, amount) -> product.put(name, Math.multiplyExact(amount, (long) n)));
    return new Resources(product);
  }

  /**
   * How many times {@code request} fits into these amounts (the scheduler's NodeResourcesFit, per
   * resource: a resource absent here has none). Unbounded (Integer.MAX_VALUE) for an empty request.
   */
  public int fits(Resources request) {
    long fits = Integer.MAX_VALUE;
    for (Map.Entry<String, Long> e : request.amounts.entrySet()) {
      fits = Math.min(fits, get(e.getKey()) / e.getValue());
    }
    return (int) fits;
  }

  /**
   * The first resource of {@code request} that these amounts hold less of than requested, GPUs first
   * and the rest by name; null when the request fits once.
   */
  public String firstShort(Resources request) {
    if (get(GPU) < request.get(GPU)) return GPU;
    for (Map.Entry<String, Long> e : request.amounts.entrySet()) {
      if (get(e.getKey()) < e.getValue()) return e.getKey();
    }
    return null;
  }

  /** An amount of a resource in the units a person reads: "3.5 cpu", "64Gi memory", "8 GPUs", "1 pod". */
  public static String describe(String name, long amount) {
    return switch (name) {
      case CPU -> BigDecimal.valueOf(amount, 3).stripTrailingZeros().toPlainString() + " cpu";
      case GPU -> amount + (amount == 1 ? " GPU" : " GPUs");
      case PODS -> amount + (amount == 1 ? " pod" : " pods");
      case MEMORY, EPHEMERAL_STORAGE -> bytes(amount) + " " + name;
      default -> name.startsWith("hugepages-") ? bytes(amount) + " " + name : amount + " " + name;
    };
  }

  private static String bytes(long amount) {
    String[] units = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    int u = 0;
    BigDecimal value = BigDecimal.valueOf(amount);
    BigDecimal k = BigDecimal.valueOf(1024);
    while (u < units.length - 1 && value.compareTo(k) >= 0) {
      value = value.divide(k);
      u++;
    }
    // two decimals at most, rounded down so that a shortfall never reads as enough
    return value.setScale(2, java.math.RoundingMode.DOWN).stripTrailingZeros().toPlainString() + units[u];
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    amounts.forEach((name, amount) -> s.append(s.isEmpty() ? "" : ", ").append(describe(name, amount)));
    return s.isEmpty() ? "nothing" : s.toString();
  }
}
