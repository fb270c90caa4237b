package dev.ballast.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What must never happen to the jobs of a namespace, whatever fails (lost nodes, killed workers, an
 * operator killed at any point): checked at every change the API server reports for its pods and jobs,
 * and four times a second against the processes the process kubelet really runs.
 *
 * <ul>
 *   <li>no duplicate rank: never two running pods (processes) of one rank of a job, nor two pods of one rank
 *       that are released to start and neither finished nor being deleted;
 *   <li>one world at a time: a job's running pods all belong to one world generation (the old world has
 *       stopped before the new one starts);
 *   <li>no forgotten or repeated generation: status.world.generation never decreases, and a generation's
 *       membership (pod index → node), once committed in the status or run by the kubelet, never changes (a
 *       gang rolled back before it ran may be placed again under its number);
 *   <li>no GPU promised twice: on every node, the unfinished pods bound or promised there request at most
 *       its allocatable GPUs;
 *   <li>no world below min: a committed world has at least workers.min workers.
 * </ul>
 */
public final class WorldInvariants implements AutoCloseable {
  private final BallastEnvironment env;
  private final String namespace;
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Long> highestGeneration = new HashMap<>();
  /** "job/generation" → pod index → node. */
  private final Map<String, Map<Integer, String>> memberships = new HashMap<>();
  private final ScheduledExecutorService processCheck = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "world-invariants");
    t.setDaemon(true);
    return t;
  });
  private SharedIndexInformer<Pod> pods;
  private SharedIndexInformer<GenericKubernetesResource> jobs;
  private SharedIndexInformer<Node> nodes;
  private int checks;
  private volatile Instant lastPodChange = Instant.now();

  public WorldInvariants(BallastEnvironment env, String namespace) {
    this.env = env;
    this.namespace = namespace;
  }

  public WorldInvariants start() {
    var client = env.admin();
    nodes = client.nodes().inform();
    pods = client.pods().inNamespace(namespace).withLabel("ballast.dev/role", "worker").inform(new OnChange<>(pod -> {
      lastPodChange = Instant.now();
      check("pod " + pod.getMetadata().getName());
    }));
    jobs = client.genericKubernetesResources("ballast.dev/v1alpha1", "TrainingJob").inNamespace(namespace)
        .inform(new OnChange<>(job -> check("job " + job.getMetadata().getName())));
    processCheck.scheduleWithFixedDelay(() -> check("processes"), 250, 250, TimeUnit.MILLISECONDS);
    return this;
  }

  /** Every violation seen so far, each with when and on what change it was seen. */
  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** When a worker pod of the namespace last changed (added, updated, deleted). */
  public Instant lastPodChange() {
    return lastPodChange;
  }

  /** How many times the invariants were checked. */
  public synchronized int checks() {
    return checks;
  }

  private synchronized void check(String cause) {
    try {
      checks++;
      List<Pod> all = pods.getStore().list();
      checkRanks(all);
      checkRunningProcesses();
      checkGenerations();
      checkGpus(all);
    } catch (RuntimeException e) {
      violation("the check itself failed (" + cause + "): " + e);
    }
  }

  /** Records each distinct violation once, with when it was first seen. */
  private void violation(String what) {
    if (violations.stream().noneMatch(v -> v.endsWith(": " + what))) violations.add(Instant.now() + ": " + what);
  }

  private void checkRanks(List<Pod> all) {
    Map<String, List<Pod>> byRank = all.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && !finished(p))
        .filter(p -> p.getSpec().getSchedulingGates().isEmpty()) // created, but not allowed to start yet
        .collect(Collectors.groupingBy(p -> job(p) + " rank " + index(p)));
    byRank.forEach((rank, list) -> {
      if (list.size() > 1) violation("two live pods of " + rank + ": " + names(list));
    });
  }

  private void checkRunningProcesses() {
    List<Pod> running = env.kubelet().runningPods().stream()
        .filter(p -> namespace.equals(p.getMetadata().getNamespace()))
        .filter(p -> "worker".equals(p.getMetadata().getLabels().get("ballast.dev/role")))
        .toList();
    running.stream().collect(Collectors.groupingBy(p -> job(p) + " rank " + index(p))).forEach((rank, list) -> {
      if (list.size() > 1) violation("two running copies of " + rank + ": " + names(list));
    });
    running.stream().collect(Collectors.groupingBy(WorldInvariants::job)).forEach((job, list) -> {
      Set<Long> generations = list.stream().map(WorldInvariants::generation).collect(Collectors.toCollection(TreeSet::new));
      if (generations.size() > 1) violation("job " + job + " runs pods of worlds " + generations + " at once: " + names(list));
      for (Pod p : list) remember(job, generation(p), Map.of(index(p), node(p)), "running pods");
    });
  }

  @SuppressWarnings("unchecked")
  private void checkGenerations() {
    for (GenericKubernetesResource job : jobs.getStore().list()) {
      String name = job.getMetadata().getName();
      Map<String, Object> status = (Map<String, Object>) job.getAdditionalProperties().get("status");
      Map<String, Object> world = status == null ? null : (Map<String, Object>) status.get("world");
      if (world == null || world.get("generation") == null) continue;
      long generation = ((Number) world.get("generation")).longValue();
      Long before = highestGeneration.get(name);
      if (before != null && generation < before) {
        violation("job " + name + ": status.world.generation went back from " + before + " to " + generation);
      }
      highestGeneration.merge(name, generation, Math::max);
      Map<Integer, String> members = new TreeMap<>();
      for (Map<String, Object> n : (List<Map<String, Object>>) world.getOrDefault("nodes", List.of())) {
        members.put(((Number) n.get("index")).intValue(), (String) n.get("node"));
      }
      remember(name, generation, members, "status.world");
      Map<String, Object> spec = (Map<String, Object>) job.getAdditionalProperties().get("spec");
      int min = ((Number) ((Map<String, Object>) spec.get("workers")).get("min")).intValue();
      if ("Running".equals(status.get("phase")) && members.size() < min) {
        violation("job " + name + " runs world " + generation + " with " + members.size() + " workers, below workers.min "
            + min);
      }
    }
  }

  /** A generation's membership may grow as its pods appear, but a seat never moves to another node. */
  private void remember(String job, long generation, Map<Integer, String> members, String source) {
    Map<Integer, String> known = memberships.computeIfAbsent(job + "/" + generation, k -> new TreeMap<>());
    members.forEach((index, node) -> {
      String before = known.putIfAbsent(index, node);
      if (before != null && node != null && !before.equals(node)) {
        violation("job " + job + ": world " + generation + " was made twice: index " + index + " on " + before
            + ", then on " + node + " (" + source + ")");
      }
    });
  }

  private void checkGpus(List<Pod> ours) {
    Map<String, Integer> used = new TreeMap<>();
    Map<String, List<String>> holders = new TreeMap<>();
    for (Pod p : ours) {
      String node = node(p);
      if (node == null || finished(p)) continue;
      used.merge(node, gpus(p), Integer::sum);
      holders.computeIfAbsent(node, k -> new ArrayList<>()).add(p.getMetadata().getName());
    }
    used.forEach((node, gpus) -> {
      Node n = nodes.getStore().getByKey(node);
      if (n == null) return; // a deleted node promises nothing
      Quantity q = n.getStatus().getAllocatable().get("nvidia.com/gpu");
      int allocatable = q == null ? 0 : Quantity.getAmountInBytes(q).intValue();
      if (gpus > allocatable) {
        violation("node " + node + " has " + gpus + " GPUs promised but " + allocatable + " allocatable: "
            + holders.get(node));
      }
    });
  }

  static boolean finished(Pod p) {
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  static String job(Pod p) {
    return p.getMetadata().getLabels().get("ballast.dev/job");
  }

  static int index(Pod p) {
    return Integer.parseInt(p.getMetadata().getLabels().get("ballast.dev/index"));
  }

  static long generation(Pod p) {
    String g = p.getMetadata().getLabels().get("ballast.dev/world-generation");
    if (g == null) g = p.getMetadata().getAnnotations().get("ballast.dev/world-generation");
    return g == null ? 0 : Long.parseLong(g);
  }

  static String node(Pod p) {
    if (p.getSpec().getNodeName() != null) return p.getSpec().getNodeName();
    return p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get("ballast.dev/assigned-node");
  }

  static int gpus(Pod p) {
    int total = 0;
    for (var c : p.getSpec().getContainers()) {
      var r = c.getResources();
      Quantity q = r == null ? null : r.getLimits() != null && r.getLimits().containsKey("nvidia.com/gpu")
          ? r.getLimits().get("nvidia.com/gpu") : r.getRequests() == null ? null : r.getRequests().get("nvidia.com/gpu");
      if (q != null) total += Quantity.getAmountInBytes(q).intValue();
    }
    return total;
  }

  private static String names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).sorted().toList().toString();
  }

  @Override
  public void close() {
    processCheck.shutdownNow();
    if (pods != null) pods.close();
    if (jobs != null) jobs.close();
    if (nodes != null) nodes.close();
  }
}
