package dev.ballast.e2e.support;

/**
 * Three PriorityClasses named by a prefix, for reclaim and preemption (docs/elastic.md): {@code <prefix>-high} (1000),
 * {@code <prefix>-low} (10) and {@code <prefix>-never} (1000, preemptionPolicy: Never). Cluster-scoped: created for
 * a test or benchmark and deleted after it ({@link AutoCloseable}).
 */
public final class PriorityClasses implements AutoCloseable {
  private final BallastEnvironment env;
  private final String prefix;

  private PriorityClasses(BallastEnvironment env, String prefix) {
    this.env = env;
    this.prefix = prefix;
  }

  /** Creates (or updates) the three classes. */
  public static PriorityClasses apply(BallastEnvironment env, String prefix) {
    String yaml = klass(prefix + "-high", 1000, "") + "---\n" + klass(prefix + "-low", 10, "") + "---\n"
        + klass(prefix + "-never", 1000, "preemptionPolicy: Never\n");
    env.kubectlStdin(yaml, "apply", "-f", "-").ok();
    return new PriorityClasses(env, prefix);
  }

  private static String klass(String name, int value, String more) {
    return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " + name + "}\nvalue: " + value
        + "\n" + more;
  }

  public String high() {
    return prefix + "-high";
  }

  public String low() {
    return prefix + "-low";
  }

  public String never() {
    return prefix + "-never";
  }

  @Override
  public void close() {
    env.kubectl("delete", "priorityclass", high(), low(), never(), "--ignore-not-found");
  }
}
