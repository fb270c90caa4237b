package dev.ballast.e2e.support;

import dev.ballast.e2e.kubelet.ProcessKubelet;
import dev.ballast.e2e.kubelet.Programs;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A whole local Ballast installation on a real control plane, as a user would have it: the kwokctl
 * cluster (e2e/cluster/up.sh), the Helm chart installed with the real helm, the operator running as a
 * local process with the chart's ServiceAccount credentials (so RBAC is exercised for real), and the
 * process kubelet running Ballast's pods. Used by the e2e suite and by {@code bin/ballast demo}.
 */
public final class BallastEnvironment implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(BallastEnvironment.class.getName());
  public static final String NAMESPACE = "ballast-system";
  public static final String RELEASE = "ballast";
  /** The operator's exit status when its chaos hook (BALLAST_CHAOS_EXIT_AFTER_WRITES) ends it. */
  public static final int CHAOS_EXIT = 86;

  private final Path root;
  private final Path cache;
  private final String cluster;
  private final Path logs;
  private KubernetesClient admin;
  private Process operator;
  private int operatorStarts;
  private Path operatorKubeconfig;
  private ProcessKubelet kubelet;
  private Map<String, String> clusterEnv = Map.of();
  private boolean runKubelet = true;

  public BallastEnvironment(Path root, String cluster, Path logs) {
    this.root = root.toAbsolutePath().normalize();
    this.cache = Path.of(System.getenv().getOrDefault("BALLAST_CACHE",
        System.getProperty("user.home") + "/.cache/ballast"));
    this.cluster = cluster;
    this.logs = logs.toAbsolutePath();
  }

  /** The repository root: system property ballast.root (set by Maven), else the current directory's parent. */
  public static Path repositoryRoot() {
    String prop = System.getProperty("ballast.root");
    return prop != null ? Path.of(prop) : Path.of("").toAbsolutePath().getParent();
  }

  /**
   * For a scale run: the cluster's layout (e2e/cluster/nodes.sh variables) and KWOK playing every pod, Ballast's too
   * (BALLAST_KWOK_ALL_PODS), so no process kubelet runs. Call before {@link #start()}.
   */
  public BallastEnvironment simulatedPods(Map<String, String> nodeLayout) {
    Map<String, String> env = new HashMap<>(nodeLayout);
    env.put("BALLAST_KWOK_ALL_PODS", "1");
    this.clusterEnv = Map.copyOf(env);
    this.runKubelet = false;
    return this;
  }

  /** The operator's process id (to read its CPU time), or -1 when it does not run. */
  public long operatorPid() {
    return operator != null && operator.isAlive() ? operator.pid() : -1;
  }

  /** The operator's HTTP address: it listens on a free port, named in its log at start-up. */
  public java.net.URI operatorUri(String path) throws IOException {
    var listening = java.util.regex.Pattern.compile("Listening on: http://[^:]+:(\\d+)");
    String port = null;
    for (String line : Files.readAllLines(logs.resolve("operator.log"))) {
      var m = listening.matcher(line);
      if (m.find()) port = m.group(1);
    }
    if (port == null) throw new IllegalStateException("no 'Listening on' line in " + logs.resolve("operator.log"));
    return java.net.URI.create("http://127.0.0.1:" + port + path);
  }

  public Path kubeconfig() {
    return cache.resolve("kwok/clusters/" + cluster + "/kubeconfig.yaml");
  }

  public Path bin(String name) {
    return cache.resolve("bin").resolve(name);
  }

  public Path root() {
    return root;
  }

  public Path logs() {
    return logs;
  }

  public KubernetesClient admin() {
    return admin;
  }

  public ProcessKubelet kubelet() {
    return kubelet;
  }

  /**
   * Brings everything up; each step says what it does. The chart's operator Deployment is scaled to
   * zero: the operator runs here as a local process (there is no container runtime).
   */
  public BallastEnvironment start() throws IOException {
    Files.createDirectories(logs);
    Files.deleteIfExists(logs.resolve("operator.log")); // each start of the operator appends to it
    // Helm too: up.sh builds only what the cluster runs, and the chart is installed next (on a fresh machine the
    // cache holds nothing yet). A cold build took 45 minutes on this project's 2-core machine under load.
    step("building the control plane and Helm from their Go modules (cached after the first run)",
        () -> script(Duration.ofMinutes(90), "e2e/control-plane/build.sh", "kube-apiserver", "kube-controller-manager",
            "kube-scheduler", "kubectl", "etcd", "kwok", "kwokctl", "helm"));
    step("starting cluster '" + cluster + "'", () -> script(Duration.ofMinutes(10), "e2e/cluster/up.sh"));
    admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig()))).build();
    step("installing the Helm chart into " + NAMESPACE, () -> helm("upgrade", "--install", RELEASE,
        root.resolve("charts/ballast").toString(), "--namespace", NAMESPACE, "--create-namespace", "--set", "replicaCount=0", "--wait",
        "--timeout", "2m"));
    if (runKubelet) step("starting the process kubelet for Ballast pods", this::startKubelet);
    step("starting the operator with the chart's ServiceAccount credentials", () -> startOperator(Map.of()));
    return this;
  }

  public Cmd.Result kubectl(String... args) {
    return kubectlStdin(null, args);
  }

  /** kubectl with {@code input} (may be null) on its standard input (for {@code -f -}). */
  public Cmd.Result kubectlStdin(String input, String... args) {
    List<String> cmd = new ArrayList<>(List.of(bin("kubectl").toString(), "--kubeconfig", kubeconfig().toString()));
    cmd.addAll(List.of(args));
    return Cmd.run(root, Map.of(), Duration.ofMinutes(3), cmd, input);
  }

  public Cmd.Result helm(String... args) {
    List<String> cmd = new ArrayList<>(List.of(bin("helm").toString(), "--kubeconfig", kubeconfig().toString()));
    cmd.addAll(List.of(args));
    return Cmd.run(root, Map.of("HELM_CACHE_HOME", cache.resolve("helm/cache").toString(),
        "HELM_CONFIG_HOME", cache.resolve("helm/config").toString(),
        "HELM_DATA_HOME", cache.resolve("helm/data").toString()), Duration.ofMinutes(5), cmd, null).ok();
  }

  private Cmd.Result script(Duration timeout, String script, String... args) {
    List<String> cmd = new ArrayList<>(List.of(root.resolve(script).toString()));
    cmd.addAll(List.of(args));
    Map<String, String> env = new HashMap<>(clusterEnv);
    env.put("BALLAST_CLUSTER", cluster);
    Cmd.Result r = Cmd.run(root, env, timeout, cmd, null).ok();
    try {
      Files.writeString(logs.resolve(Path.of(script).getFileName() + ".log"), r.stdout() + r.stderr());
    } catch (IOException ignored) {
      // the log copy is a convenience
    }
    return r;
  }

  private void startKubelet() {
    try {
      kubelet = new ProcessKubelet(admin, logs.resolve("pods"), new Programs(root)).start();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A kubeconfig holding a token of {@code release}'s ServiceAccount in {@code namespace}: an operator run with it
   * has exactly that release's RBAC.
   */
  public Path releaseKubeconfig(String release, String namespace) throws IOException {
    String sa = admin.serviceAccounts().inNamespace(namespace).withLabel("app.kubernetes.io/instance", release)
        .list().getItems().stream().map(s -> s.getMetadata().getName()).findFirst()
        .orElseThrow(() -> new IllegalStateException("release " + release + " created no ServiceAccount in " + namespace));
    String token = kubectl("create", "token", sa, "-n", namespace, "--duration", "24h").ok().stdout().strip();
    Path file = logs.resolve(release + "-operator-kubeconfig.yaml");
    // the admin kubeconfig's server and CA, with the ServiceAccount's token as the user
    String view = kubectl("config", "view", "--raw", "--minify", "--flatten", "-o",
        "jsonpath={.clusters[0].cluster.server} {.clusters[0].cluster.certificate-authority-data}").ok().stdout();
    String[] parts = view.strip().split(" ");
    String yaml = "apiVersion: v1\nkind: Config\nclusters:\n- name: ballast\n  cluster:\n    server: " + parts[0]
        + "\n" + (parts.length > 1 ? "    certificate-authority-data: " + parts[1] + "\n" : "    insecure-skip-tls-verify: true\n")
        + "users:\n- name: operator\n  user:\n    token: " + token + "\ncontexts:\n- name: operator\n  context:\n"
        + "    cluster: ballast\n    user: operator\ncurrent-context: operator\n";
    Files.writeString(file, yaml);
    return file;
  }

  /**
   * Starts the operator process (its log appended to operator.log) and waits until it is connected.
   * {@code extraEnv} adds settings (e.g. BALLAST_CHAOS_EXIT_AFTER_WRITES, BALLAST_LEASE_NAMESPACE); every
   * start has its own HOSTNAME, so a restarted operator is a new leader-election identity, as a new pod is.
   */
  public void startOperator(Map<String, String> extraEnv) {
    if (operator != null && operator.isAlive()) throw new IllegalStateException("the operator is running already");
    try {
      if (operatorKubeconfig == null) operatorKubeconfig = releaseKubeconfig(RELEASE, NAMESPACE);
      operatorStarts++;
      operator = launchOperator(operatorKubeconfig, NAMESPACE, logs.resolve("operator.log"),
          "e2e-operator-" + operatorStarts, extraEnv);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts the operator of another release as its chart's Deployment would run it: with a token of that release's
   * ServiceAccount and {@code extraEnv} (the Deployment's BALLAST_* settings); its log is {@code <release>-operator.log}.
   * The caller stops it.
   */
  public Process startReleaseOperator(String release, String namespace, Map<String, String> extraEnv) {
    try {
      return launchOperator(releaseKubeconfig(release, namespace), namespace, logs.resolve(release + "-operator.log"),
          release + "-operator", extraEnv);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** @param namespace the release's namespace, for its jobs' NetworkPolicies (what the chart's POD_NAMESPACE gives) */
  private Process launchOperator(Path kubeconfig, String namespace, Path log, String hostname,
      Map<String, String> extraEnv)
      throws IOException {
    Path jar = root.resolve("operator/target/quarkus-app/quarkus-run.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: build it with ./mvnw -pl operator -am package");
    }
    Files.writeString(log, "==== operator start " + hostname + " " + extraEnv + "\n",
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    long offset = Files.size(log);
    ProcessBuilder pb = new ProcessBuilder(javaBinary(), "-Xmx512m", "-Dquarkus.http.port=0", "-jar", jar.toString())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("BALLAST_PENDING_RETRY_SECONDS", "3");
    pb.environment().put("HOSTNAME", hostname);
    // not POD_NAMESPACE itself, which would turn on leader election
    pb.environment().put("BALLAST_OPERATOR_NAMESPACE", namespace);
    pb.environment().putAll(extraEnv);
    Process process = pb.start();
    try {
      Instant deadline = Instant.now().plusSeconds(120);
      while (Instant.now().isBefore(deadline)) {
        byte[] bytes = Files.readAllBytes(log);
        String output = new String(bytes, (int) offset, bytes.length - (int) offset, java.nio.charset.StandardCharsets.UTF_8);
        if (!process.isAlive()) {
          if (process.exitValue() == CHAOS_EXIT) return process; // its chaos hook ended it early: awaitOperatorExit says so
          throw new IllegalStateException("the operator exited with " + process.exitValue() + ":\n" + output);
        }
        // Quarkus's "started in" comes after the operator and its caches have started: a caller's clock (ChaosTest's
        // quiet window) must not run while a starved JVM is still starting.
        if (output.contains(") started in ")) return process;
        Thread.sleep(250);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    process.destroyForcibly();
    throw new IllegalStateException("the operator did not start within 120s:\n" + Files.readString(log));
  }

  /** Kills the operator process with SIGKILL (nothing of it runs on) and waits until it is gone. */
  public void killOperator() {
    if (operator == null) return;
    operator.destroyForcibly();
    try {
      operator.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits up to {@code timeout} for the operator to exit by itself; its exit status, or empty if it still runs. */
  public java.util.OptionalInt awaitOperatorExit(Duration timeout) throws InterruptedException {
    if (operator.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) return java.util.OptionalInt.of(operator.exitValue());
    return java.util.OptionalInt.empty();
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static void step(String what, Runnable action) {
    long t0 = System.nanoTime();
    LOG.info(what + " ...");
    action.run();
    LOG.info(what + ": done in " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) + "s");
  }

  /** Stops the operator and the kubelet's processes; with {@code deleteCluster}, also the cluster. */
  public void stop(boolean deleteCluster) {
    if (operator != null) {
      operator.destroy();
      try {
        if (!operator.waitFor(10, TimeUnit.SECONDS)) operator.destroyForcibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (kubelet != null) kubelet.close();
    if (admin != null) admin.close();
    if (deleteCluster) script(Duration.ofMinutes(2), "e2e/cluster/down.sh");
  }

  @Override
  public void close() {
    stop(false);
  }
}
