package dev.ballast.e2e.support;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A test's own KWOK GPU nodes (8 GPUs each, e2e/cluster/nodes.sh), in one rack of their own beside the
 * suite's, labelled with a pool that the test's jobs select and tainted so that only they go there
 * ({@link #podPlacement()}): the test alone decides what capacity its jobs see, and no other class's job
 * grows onto its nodes. It adds them, deletes them, and makes them NotReady as a lost node
 * is: its kubelet and processes gone, KWOK no longer heartbeating it, its Ready condition False.
 */
public final class GpuNodes {
  public static final String POOL_LABEL = "ballast.dev/e2e-pool";
  public static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";
  /** KWOK's node stages skip a node with this annotation "down" (e2e/cluster/gen-kwok-stages.sh). */
  private static final String KUBELET_DOWN = "ballast.dev/e2e-kubelet=down";
  /** How long a written NotReady must hold before KWOK is known to have let go of the node. */
  private static final Duration SETTLE = Duration.ofSeconds(2);

  /**
   * Who holds each rack in this JVM: node names are the rack's ({@code rack-N-node-I}), so two pools on one rack would
   * share nodes, and a node one test took down (its kubelet gone) would stay down for the other.
   */
  private static final Map<Integer, String> RACKS = new java.util.concurrent.ConcurrentHashMap<>();

  private final BallastEnvironment env;
  private final String pool;
  private final int rack;
  private int next;

  /** Deletes the pool's nodes left by an earlier run on a kept cluster (-Dballast.e2e.keep=true). */
  public GpuNodes(BallastEnvironment env, String pool, int rack) {
    this(env, pool, rack, pool);
    deleteAll();
  }

  private GpuNodes(BallastEnvironment env, String pool, int rack, String holder) {
    String held = RACKS.putIfAbsent(rack, holder);
    if (held != null && !held.equals(holder)) {
      throw new IllegalStateException("rack " + rack + " is already " + held + "'s in this run (its nodes are named"
          + " rack-" + rack + "-node-N): give " + holder + " a rack no other test uses");
    }
    this.env = env;
    this.pool = pool;
    this.rack = rack;
  }

  /** Nodes of a new rack open to every job, like the suite's own (no pool label, no taint). */
  public static GpuNodes shared(BallastEnvironment env, int rack) {
    return new GpuNodes(env, null, rack, "the shared nodes of rack " + rack);
  }

  /** Pod-template fields (YAML lines) that keep a job on this pool: its nodeSelector and the pool taint's toleration. */
  public String podPlacement() {
    if (pool == null) throw new IllegalStateException("shared nodes have no pool to select");
    return "nodeSelector: {" + POOL_LABEL + ": " + pool + "}\n"
        + "tolerations: [{key: " + POOL_LABEL + ", operator: Equal, value: " + pool + ", effect: NoSchedule}]\n";
  }

  /** Adds {@code count} Ready nodes to the pool's rack; their names. */
  public List<String> add(int count) {
    Map<String, String> layout = new java.util.HashMap<>(Map.of("BALLAST_FIRST_RACK", Integer.toString(rack),
        "BALLAST_RACKS", "1", "BALLAST_FIRST_NODE", Integer.toString(next),
        "BALLAST_NODES_PER_RACK", Integer.toString(count)));
    if (pool != null) {
      layout.put("BALLAST_NODE_LABELS", POOL_LABEL + "=" + pool);
      layout.put("BALLAST_NODE_TAINT", POOL_LABEL + "=" + pool + ":NoSchedule");
    }
    String manifests = Cmd.run(env.root(), layout, Duration.ofSeconds(30),
        List.of(env.root().resolve("e2e/cluster/nodes.sh").toString()), null).ok().stdout();
    env.kubectlStdin(manifests, "apply", "-f", "-").ok();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) names.add("rack-" + rack + "-node-" + (next + i));
    next += count;
    List<String> wait = new ArrayList<>(List.of("wait", "--for=condition=Ready", "--timeout=120s"));
    names.forEach(n -> wait.add("node/" + n));
    env.kubectl(wait.toArray(String[]::new)).ok();
    return names;
  }

  /** The machine is gone: its processes die and its Node object is deleted. */
  public void delete(String node) {
    env.kubelet().nodeDown(node);
    env.kubectl("delete", "node", node, "--wait=false").ok();
  }

  /**
   * The node's kubelet dies with its processes (so pods deleted there stay Terminating), KWOK stops
   * heartbeating it, and its Ready condition turns False at once (as a kubelet reports before it goes,
   * or as the node controller sets Unknown after its grace period). Returns when the condition was written
   * for good: KWOK, until its watch sees the node's annotation, still sets a node that is not Ready back to
   * Ready at once, so the condition is written again until it stays False for {@link #SETTLE}.
   */
  public Instant notReady(String node) {
    env.kubelet().nodeDown(node);
    env.kubectl("annotate", "node", node, KUBELET_DOWN, "--overwrite").ok();
    Instant written = writeNotReady(node);
    Instant stable = written.plus(SETTLE);
    int rewrites = 0;
    while (Instant.now().isBefore(stable)) {
      sleep(Duration.ofMillis(200));
      if (isReady(node)) {
        if (++rewrites > 10) throw new IllegalStateException("node " + node + " keeps turning Ready (KWOK still manages it)");
        written = writeNotReady(node);
        stable = written.plus(SETTLE);
      }
    }
    return written;
  }

  /** Writes Ready=False, again on a conflict (KWOK and the node controller write the node too). */
  private Instant writeNotReady(String node) {
    for (int attempt = 1; ; attempt++) {
      try {
        return tryWriteNotReady(node);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) throw e;
      }
    }
  }

  private Instant tryWriteNotReady(String node) {
    String now = Instant.now().toString();
    env.admin().nodes().withName(node).editStatus(n -> {
      List<NodeCondition> conditions = new ArrayList<>(n.getStatus().getConditions());
      conditions.removeIf(c -> "Ready".equals(c.getType()));
      conditions.add(new NodeConditionBuilder().withType("Ready").withStatus("False").withReason("KubeletNotReady")
          .withMessage("the e2e test stopped this node's kubelet").withLastHeartbeatTime(now)
          .withLastTransitionTime(now).build());
      n.getStatus().setConditions(conditions);
      return n;
    });
    return Instant.parse(now);
  }

  private boolean isReady(String node) {
    var n = env.admin().nodes().withName(node).get();
    return n != null && n.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while making a node NotReady", e);
    }
  }

  /** Taints the node out-of-service: its pods may now be force-deleted (the node is known to be off). */
  public void outOfService(String node) {
    env.kubectl("taint", "node", node, OUT_OF_SERVICE + "=nodeshutdown:NoExecute", "--overwrite").ok();
  }

  /** The pool's nodes that exist now. */
  public List<String> nodes() {
    if (pool == null) throw new IllegalStateException("shared nodes have no pool to list");
    return env.admin().nodes().withLabel(POOL_LABEL, pool).list().getItems().stream()
        .map(n -> n.getMetadata().getName()).sorted().toList();
  }

  /** Deletes every node of the pool. */
  public void deleteAll() {
    if (pool == null) throw new IllegalStateException("shared nodes have no pool to delete");
    env.kubectl("delete", "node", "-l", POOL_LABEL + "=" + pool, "--ignore-not-found", "--wait=false").ok();
  }
}
