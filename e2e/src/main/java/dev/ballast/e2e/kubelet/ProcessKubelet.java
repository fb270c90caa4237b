package dev.ballast.e2e.kubelet;

import dev.ballast.contracts.env.ProcessEnv;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Plays kubelet for Ballast's own pods (label {@code ballast.dev/role}), which KWOK is configured to
 * leave alone: when such a pod is bound to a node it starts the pod's containers as local processes,
 * each pod on its own loopback address as its pod IP, and reports their real state and exit codes in
 * the pod's status; when the pod is deleted it stops the processes and removes the pod object.
 *
 * <p>Scope and limits (see e2e/README.md): native sidecars start first and are stopped after the main
 * containers; a container's "localhost" is its pod IP; there are no volumes, no resource limits, no
 * probes other than the sidecar's startup probe, and no container restarts (Ballast pods use
 * {@code restartPolicy: Never}).
 */
public final class ProcessKubelet implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ProcessKubelet.class.getName());
  public static final String SELECTOR = "ballast.dev/role";
  /** JVMs start slowly on a loaded 2-core machine; a real probe would have failureThreshold × period. */
  static final int PROBE_SECONDS = 90;
  /** How often a write for a pod is tried (about a minute against a busy API server). */
  static final int WRITE_ATTEMPTS = 120;

  private final KubernetesClient client;
  private final Path logDir;
  private final Programs programs;
  private final Addresses addresses;
  private final Map<String, RunningPod> running = new ConcurrentHashMap<>();
  /** Nodes whose kubelet is gone (see {@link #nodeDown}): nothing happens for their pods any more. */
  private final java.util.Set<String> downNodes = ConcurrentHashMap.newKeySet();
  private final ExecutorService events = Executors.newSingleThreadExecutor(r -> daemon(r, "kubelet-events"));
  private final ExecutorService starters = Executors.newCachedThreadPool(r -> daemon(r, "kubelet-start"));
  private SharedIndexInformer<Pod> informer;

  public ProcessKubelet(KubernetesClient client, Path logDir, Programs programs) {
    this.client = client;
    this.logDir = logDir;
    this.programs = programs;
    this.addresses = new Addresses(client);
  }

  public ProcessKubelet start() throws IOException {
    Files.createDirectories(logDir);
    informer = client.pods().inAnyNamespace().withLabel(SELECTOR).inform(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        events.execute(() -> handle(pod));
      }

      @Override
      public void onUpdate(Pod old, Pod pod) {
        events.execute(() -> handle(pod));
      }

      @Override
      public void onDelete(Pod pod, boolean unknown) {
        events.execute(() -> stop(key(pod)));
      }
    });
    LOG.info("process kubelet watching pods labelled " + SELECTOR + "; logs in " + logDir);
    return this;
  }

  public Path logDir() {
    return logDir;
  }

  private void handle(Pod pod) {
    String key = key(pod);
    String node = pod.getSpec().getNodeName();
    if (node != null && downNodes.contains(node)) return;
    try {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        stop(key);
        forceDelete(pod);
        return;
      }
      if (pod.getSpec().getNodeName() == null || running.containsKey(key)) return;
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) return;
      RunningPod rp = new RunningPod(pod, addresses.of(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
      running.put(key, rp);
      starters.execute(() -> launch(rp));
    } catch (RuntimeException e) {
      LOG.warning("could not handle pod " + key + ": " + e);
    }
  }

  /** Starts native sidecars, waits for their startup probes, then the main containers. */
  private void launch(RunningPod rp) {
    Pod pod = rp.pod;
    try {
      awaitReferencedObjects(rp);
      if (rp.finished) return; // deleted while it waited
      Instant started = Instant.now();
      for (Container c : pod.getSpec().getInitContainers()) {
        if (!"Always".equals(c.getRestartPolicy())) continue; // plain init containers are not supported here
        rp.sidecars.add(spawn(rp, c));
        awaitStartupProbe(rp, c);
      }
      if (rp.finished) { // deleted while its sidecars started
        rp.stopAll();
        return;
      }
      for (Container c : pod.getSpec().getContainers()) rp.main.add(spawn(rp, c));
      PortForwards.apply(client, pod, rp.ip);
      reportRunning(rp, started);
      for (Proc p : rp.main) p.process.onExit().thenRun(() -> events.execute(() -> mainExited(rp)));
    } catch (Exception e) {
      if (rp.finished) return; // deleted while starting: nothing to report
      LOG.warning("pod " + rp.key() + " failed to start: " + e.getMessage());
      rp.stopAll();
      reportFinished(rp, "Failed", e.getMessage());
    }
  }

  /**
   * Waits while a Secret or ConfigMap that a container's environment names is missing, as the kubelet does: the pod
   * stays Pending with that container waiting, reason CreateContainerConfigError and the kubelet's message, and is
   * tried again every second instead of failing (the object may be created after the pod).
   */
  private void awaitReferencedObjects(RunningPod rp) throws InterruptedException {
    String waitingFor = null;
    while (!rp.finished) {
      Container resolving = null;
      try {
        for (Container c : containers(rp.pod)) {
          resolving = c;
          new EnvResolver(client, addresses, rp.pod, rp.ip).resolve(c);
        }
        return;
      } catch (EnvResolver.MissingReference e) {
        if (!e.getMessage().equals(waitingFor)) {
          LOG.info("pod " + rp.key() + " waits: " + e.getMessage());
          reportConfigError(rp, resolving, e.getMessage());
        }
        waitingFor = e.getMessage();
        Thread.sleep(1000);
      }
    }
  }

  private void reportConfigError(RunningPod rp, Container container, String message) {
    boolean init = rp.pod.getSpec().getInitContainers().contains(container);
    ContainerStatus waiting = new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage())
        .withImageID("").withReady(false).withStarted(false).withRestartCount(0)
        .withNewState().withNewWaiting().withReason("CreateContainerConfigError").withMessage(message).endWaiting()
        .endState().build();
    editStatus(rp.pod, p -> {
      var s = p.getStatus();
      s.setPhase("Pending");
      s.setHostIP("127.0.0.1");
      if (init) s.setInitContainerStatuses(List.of(waiting));
      else s.setContainerStatuses(List.of(waiting));
    });
  }

  private Proc spawn(RunningPod rp, Container c) throws IOException {
    Map<String, String> env = new EnvResolver(client, addresses, rp.pod, rp.ip).resolve(c);
    listenOnThePodAddress(env, rp.ip);
    serviceAccountKubeconfig(rp.pod).ifPresent(k -> env.put("KUBECONFIG", k.toString()));
    // A container from an image sees the kubeconfig the kubelet writes for it at the same path.
    List<String> command = programs.commandFor(rp.pod, c, List.of(logDir));
    ProcessBuilder pb = new ProcessBuilder(command);
    programs.imageFor(c).ifPresent(image -> {
      pb.environment().clear(); // the image's env and the container's, not the host's
      pb.environment().putAll(image.env());
    });
    pb.environment().putAll(env);
    Path log = logDir.resolve(rp.pod.getMetadata().getNamespace() + "_" + rp.pod.getMetadata().getName() + "_"
        + c.getName() + ".log");
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Process process = pb.start();
    LOG.fine("started " + c.getName() + " of pod " + rp.key() + " at " + rp.ip + " (pid " + process.pid() + ")");
    return new Proc(c.getName(), process, Instant.now());
  }

  /**
   * This harness's pod network: every pod shares the host's network, with its own loopback address as its pod IP,
   * which is also what "localhost" means inside it. So Ballast's agent is told to bind both its pod-facing
   * listeners and its loopback-only trainer API to that address, unless the container sets them itself.
   */
  private static void listenOnThePodAddress(Map<String, String> env, String podIp) {
    env.putIfAbsent(ProcessEnv.BIND_ADDRESS, podIp);
    env.putIfAbsent(ProcessEnv.TRAINER_API_ADDRESS, podIp);
  }

  /**
   * What the kubelet's projected service-account token gives a container: the API server as the pod's
   * ServiceAccount, here a kubeconfig with a token from the TokenRequest API (1 hour).
   */
  private java.util.Optional<Path> serviceAccountKubeconfig(Pod pod) throws IOException {
    if (Boolean.FALSE.equals(pod.getSpec().getAutomountServiceAccountToken())) return java.util.Optional.empty();
    String ns = pod.getMetadata().getNamespace();
    String sa = pod.getSpec().getServiceAccountName() == null ? "default" : pod.getSpec().getServiceAccountName();
    var request = new io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder()
        .withNewSpec().withExpirationSeconds(3600L).endSpec().build();
    String token = client.serviceAccounts().inNamespace(ns).withName(sa).tokenRequest(request).getStatus().getToken();
    var config = client.getConfiguration();
    // The CA inline, as a projected token volume carries ca.crt: the admin's CA file may be unreadable to the
    // container's user (and outside a container's root).
    String caData = config.getCaCertData() != null ? config.getCaCertData()
        : config.getCaCertFile() != null
            ? java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())))
            : null;
    String ca = caData != null ? "    certificate-authority-data: " + caData + "\n" : "    insecure-skip-tls-verify: true\n";
    Path file = logDir.resolve("kubeconfig_" + ns + "_" + pod.getMetadata().getName() + ".yaml");
    Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
        + config.getMasterUrl() + "\n" + ca + "users:\n- name: u\n  user:\n    token: " + token + "\n"
        + "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: " + ns + "\n"
        + "current-context: x\n");
    return java.util.Optional.of(file);
  }

  private void awaitStartupProbe(RunningPod rp, Container c) throws InterruptedException {
    if (c.getStartupProbe() == null || c.getStartupProbe().getHttpGet() == null) return;
    var get = c.getStartupProbe().getHttpGet();
    URI uri = URI.create("http://" + rp.ip + ":" + get.getPort().getIntVal() + get.getPath());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROBE_SECONDS);
    while (System.nanoTime() < deadline && !rp.finished) {
      try {
        HttpURLConnection conn = (HttpURLConnection) uri.toURL().openConnection();
        conn.setConnectTimeout(500);
        conn.setReadTimeout(500);
        if (conn.getResponseCode() == 200) return;
      } catch (IOException notYet) {
        // keep probing
      }
      Thread.sleep(100);
    }
    if (rp.finished) return;
    throw new IllegalStateException("container " + c.getName() + " did not pass its startup probe " + uri + " in "
        + PROBE_SECONDS + "s");
  }

  private void mainExited(RunningPod rp) {
    if (rp.finished || rp.main.stream().anyMatch(p -> p.process.isAlive())) return;
    rp.finished = true;
    rp.sidecars.forEach(Proc::stop);
    boolean ok = rp.main.stream().allMatch(p -> p.process.exitValue() == 0);
    reportFinished(rp, ok ? "Succeeded" : "Failed", null);
  }

  private void reportRunning(RunningPod rp, Instant started) {
    String now = Instant.now().toString();
    editStatus(rp.pod, p -> {
      var s = p.getStatus();
      s.setPhase("Running");
      s.setPodIP(rp.ip);
      s.setPodIPs(List.of(new PodIP(rp.ip)));
      s.setHostIP("127.0.0.1");
      s.setStartTime(started.toString());
      s.setConditions(readyConditions(now, true));
      s.setInitContainerStatuses(rp.sidecars.stream().map(x -> running(x, p)).toList());
      s.setContainerStatuses(rp.main.stream().map(x -> running(x, p)).toList());
    });
  }

  private void reportFinished(RunningPod rp, String phase, String message) {
    String now = Instant.now().toString();
    editStatus(rp.pod, p -> {
      var s = p.getStatus();
      s.setPhase(phase);
      s.setMessage(message);
      s.setConditions(readyConditions(now, false));
      s.setInitContainerStatuses(rp.sidecars.stream().map(x -> terminated(x, p)).toList());
      s.setContainerStatuses(rp.main.stream().map(x -> terminated(x, p)).toList());
    });
    LOG.info("pod " + rp.key() + " " + phase);
  }

  private static List<PodCondition> readyConditions(String now, boolean ready) {
    String r = ready ? "True" : "False";
    return List.of(
        new PodConditionBuilder().withType("PodScheduled").withStatus("True").withLastTransitionTime(now).build(),
        new PodConditionBuilder().withType("Initialized").withStatus("True").withLastTransitionTime(now).build(),
        new PodConditionBuilder().withType("ContainersReady").withStatus(r).withLastTransitionTime(now).build(),
        new PodConditionBuilder().withType("Ready").withStatus(r).withLastTransitionTime(now).build());
  }

  private static ContainerStatus running(Proc proc, Pod pod) {
    return new ContainerStatusBuilder().withName(proc.name).withImage(image(pod, proc.name)).withImageID("")
        .withReady(true).withStarted(true).withRestartCount(0)
        .withNewState().withNewRunning().withStartedAt(proc.started.toString()).endRunning().endState()
        .build();
  }

  private static ContainerStatus terminated(Proc proc, Pod pod) {
    int code = proc.process.isAlive() ? 137 : proc.process.exitValue();
    return new ContainerStatusBuilder().withName(proc.name).withImage(image(pod, proc.name)).withImageID("")
        .withReady(false).withStarted(false).withRestartCount(0)
        .withNewState().withNewTerminated().withExitCode(code).withReason(code == 0 ? "Completed" : "Error")
        .withStartedAt(proc.started.toString()).withFinishedAt(Instant.now().toString()).endTerminated().endState()
        .build();
  }

  private static String image(Pod pod, String container) {
    return containers(pod).stream().filter(c -> c.getName().equals(container)).map(Container::getImage).findFirst()
        .orElse("");
  }

  /** The pod's init containers (native sidecars among them), then its main containers. */
  private static List<Container> containers(Pod pod) {
    List<Container> all = new ArrayList<>(pod.getSpec().getInitContainers());
    all.addAll(pod.getSpec().getContainers());
    return all;
  }

  private void editStatus(Pod pod, java.util.function.Consumer<Pod> change) {
    retried("update the status of", pod, () -> client.pods().inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName()).editStatus(p -> {
          if (p.getStatus() == null) p.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
          change.accept(p);
          return p;
        }));
  }

  /**
   * A write for the pod, tried again until it is done or the pod is gone, as the kubelet keeps syncing a pod: a write
   * that lost a race with another writer (409) or met a busy API server must not leave a started pod Pending, or a
   * deleted one Terminating, for good (its job would wait for it forever).
   */
  private void retried(String what, Pod pod, Runnable write) {
    for (int attempt = 1; ; attempt++) {
      try {
        write.run();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) return; // gone: nothing left to write
        if (attempt == 1) LOG.info("could not " + what + " pod " + pod.getMetadata().getName() + " (" + e.getCode()
            + "); trying again");
        if (attempt == WRITE_ATTEMPTS) {
          LOG.warning("could not " + what + " pod " + pod.getMetadata().getName() + " in " + attempt + " attempts: "
              + e.getMessage());
          return;
        }
        try {
          Thread.sleep(e.getCode() == 409 ? 50 : 500);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * The node's kubelet dies with its machine: the processes of its pods are killed at once, and from now
   * on nothing reports their status or completes their deletion, so a deleted pod of that node stays
   * Terminating until someone force-deletes it (as on a real lost node).
   */
  public void nodeDown(String node) {
    downNodes.add(node);
    for (var entry : running.entrySet()) {
      RunningPod rp = entry.getValue();
      if (!node.equals(rp.pod.getSpec().getNodeName())) continue;
      running.remove(entry.getKey());
      rp.finished = true;
      rp.main.forEach(p -> p.process.destroyForcibly());
      rp.sidecars.forEach(p -> p.process.destroyForcibly());
    }
    LOG.info("node " + node + " is down: its pods' processes are killed and its pods are left as they are");
  }

  /** Kills one main container's process with SIGKILL (exit code 137), as the OOM killer would; the pod fails. */
  public void kill(String namespace, String pod, String container) {
    RunningPod rp = running.values().stream()
        .filter(r -> r.pod.getMetadata().getNamespace().equals(namespace) && r.pod.getMetadata().getName().equals(pod))
        .findFirst().orElseThrow(() -> new IllegalStateException("no running pod " + namespace + "/" + pod));
    Proc proc = rp.main.stream().filter(p -> p.name.equals(container)).findFirst()
        .orElseThrow(() -> new IllegalStateException("pod " + pod + " runs no container " + container));
    proc.process.destroyForcibly();
  }

  /** Pods (namespace/name) whose containers run as processes now. */
  public java.util.List<Pod> runningPods() {
    return running.values().stream().filter(rp -> !rp.finished).map(rp -> rp.pod).toList();
  }

  private void stop(String key) {
    RunningPod rp = running.remove(key);
    if (rp != null) {
      rp.finished = true;
      rp.stopAll();
      LOG.info("stopped the processes of pod " + key);
    }
  }

  private void forceDelete(Pod pod) {
    retried("remove", pod, () -> client.pods().inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName()).withGracePeriod(0).delete());
  }

  @Override
  public void close() {
    if (informer != null) informer.close();
    running.values().forEach(rp -> rp.finished = true); // starters interrupted below have nothing to report
    events.shutdownNow();
    starters.shutdownNow();
    running.values().forEach(RunningPod::stopAll);
    running.clear();
    addresses.close();
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + "/" + pod.getMetadata().getUid();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** One container's process. */
  record Proc(String name, Process process, Instant started) {
    void stop() {
      // A container from an image runs under unshare, which ignores SIGTERM: its process gets it directly.
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    }
  }

  /** The processes of one pod. */
  static final class RunningPod {
    final Pod pod;
    final String ip;
    final List<Proc> sidecars = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<Proc> main = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile boolean finished;

    RunningPod(Pod pod, String ip) {
      this.pod = pod;
      this.ip = ip;
    }

    String key() {
      return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    void stopAll() {
      main.forEach(Proc::stop);
      sidecars.forEach(Proc::stop);
    }
  }
}
