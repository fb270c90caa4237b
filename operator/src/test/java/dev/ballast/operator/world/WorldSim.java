package dev.ballast.operator.world;

import dev.ballast.operator.admission.AdmissionQueue;
import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.admission.NamespaceQuota;
import dev.ballast.operator.admission.Reclaim;
import dev.ballast.operator.admission.WorldSizes;
import dev.ballast.operator.observe.Priorities;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.Names;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Taint;
import dev.ballast.operator.status.StatusAggregator;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A small cluster for the world's decisions: nodes, pods, jobs and a clock, with the reconciler's actions
 * (stop, admit, release, status write) and what the scheduler and kubelet do in reply. Every decision is
 * made by the production {@link WorldLifecycle#decide} from this observed state only, exactly as after an
 * operator restart; {@link #reconcile(TrainingJob, boolean)} can drop the status write to model a crash
 * between acting and recording.
 */
final class WorldSim {
  static final int GPUS_PER_NODE = 8;

  final Map<String, NodeState> nodes = new LinkedHashMap<>();
  final Map<String, Pod> pods = new TreeMap<>();
  final List<TrainingJob> jobs = new ArrayList<>();
  Instant now = Instant.parse("2026-12-02T12:00:00Z");
  Priorities priorities = Priorities.NONE;
  /** The GPUs a ResourceQuota lets the jobs' namespace (all of them share one) request; null: no quota. */
  Integer gpuQuota;

  WorldSim nodes(String... names) {
    for (String n : names) addNode(n, "d-" + n, "r0");
    return this;
  }

  /** A GPU node with room to spare for everything else a worker pod requests (cpu, memory, the sidecar's). */
  void addNode(String name, String domain, String rack) {
    Resources allocatable = new Resources(Map.of(Resources.GPU, (long) GPUS_PER_NODE, Resources.CPU, 1_000_000L,
        Resources.MEMORY, 1L << 50, Resources.EPHEMERAL_STORAGE, 1L << 50, Resources.PODS, 110L));
    nodes.put(name, new NodeState(new GpuNode(name, allocatable, true, false, List.of(), domain, rack, Map.of()),
        null, false));
  }

  void notReady(String name) {
    NodeState n = nodes.get(name);
    nodes.put(name, new NodeState(withReady(n.node(), false, n.node().unschedulable()), now, n.outOfService()));
  }

  /** The node's kubelet reconnects: it first finishes the deletions it missed, then reports Ready. */
  void recover(String name) {
    pods.values().removeIf(p -> new WorkerPodView(p).terminating() && name.equals(p.getSpec().getNodeName()));
    NodeState n = nodes.get(name);
    nodes.put(name, new NodeState(withReady(n.node(), true, n.node().unschedulable()), null, false));
  }

  void cordon(String name) {
    NodeState n = nodes.get(name);
    nodes.put(name, new NodeState(withReady(n.node(), n.node().ready(), true), n.notReadySince(), n.outOfService()));
  }

  void outOfService(String name) {
    NodeState n = nodes.get(name);
    nodes.put(name, new NodeState(n.node(), n.notReadySince(), true));
  }

  void taint(String name, Taint taint) {
    NodeState n = nodes.get(name);
    List<Taint> taints = new ArrayList<>(n.node().taints());
    taints.add(taint);
    GpuNode g = n.node();
    nodes.put(name, new NodeState(new GpuNode(g.name(), g.allocatable(), g.ready(), g.unschedulable(), taints, g.domain(),
        g.rack(), g.labels()), n.notReadySince(), n.outOfService()));
  }

  void deleteNode(String name) {
    nodes.remove(name);
  }

  private static GpuNode withReady(GpuNode n, boolean ready, boolean unschedulable) {
    return new GpuNode(n.name(), n.allocatable(), ready, unschedulable, n.taints(), n.domain(), n.rack(), n.labels());
  }

  boolean healthy(String node) {
    NodeState n = node == null ? null : nodes.get(node);
    return n != null && n.node().ready() && !n.outOfService();
  }

  List<Pod> podsOf(TrainingJob job) {
    return pods.values().stream()
        .filter(p -> job.getMetadata().getName().equals(p.getMetadata().getLabels().get(Labels.JOB)))
        .toList();
  }

  /** One reconcile of {@code job}, as the reconciler does it; {@code crash} drops the status write. */
  Decision reconcile(TrainingJob job, boolean crash) {
    List<String> waiting = WorldLifecycle.jobsToYieldTo(job, jobs, nodes.values().stream().map(NodeState::node).toList());
    Integer room = WorldLifecycle.wantsRoom(job, waiting, now) ? Math.min(quotaWorkers(job, Map.of()),
        GangAdmission.room(job.getSpec(), capacity(job.getMetadata().getName()))) : null;
    boolean someoneWaits = !waiting.isEmpty() || jobs.stream().anyMatch(WorldLifecycle::waitingForQuota);
    Reclaim.Yield giveWay = !someoneWaits ? null : Reclaim.forJob(job, jobs, j -> capacity(j.getMetadata().getName()),
        j -> nextSizes -> quotaWorkers(j, nextSizes), priorities, now).orElse(null);
    Instant protectedUntil = !someoneWaits || !WorldLifecycle.mayGiveWay(job) ? null
        : Reclaim.protectedUntil(job, priorities, now).orElse(null);
    Decision d = WorldLifecycle.decide(job, podsOf(job),
        ClusterView.of(nodes, room, waiting, null, giveWay, protectedUntil, job, jobs, now), now);
    for (Pod p : d.stop()) {
      Pod live = pods.get(p.getMetadata().getName());
      if (live == null) continue;
      if (new WorkerPodView(live).finished() || !new WorkerPodView(live).bound()) {
        pods.remove(p.getMetadata().getName());
      } else if (live.getMetadata().getDeletionTimestamp() == null) {
        live.getMetadata().setDeletionTimestamp(now.toString());
      }
    }
    d.forceDelete().forEach(p -> pods.remove(p.getMetadata().getName()));
    GangAdmission.Result admitted = null;
    if (d.step() instanceof WorldStep.Place place) {
      int allowed = WorldSizes.largestValid(quotaWorkers(job, Map.of()), job.getSpec());
      admitted = allowed < job.getSpec().workers.min
          ? new GangAdmission.Result.Unschedulable(NamespaceQuota.EXCEEDS_QUOTA, "the quota lets in " + allowed)
          : GangAdmission.choose(job.getSpec(), Math.min(place.maxWorkers(), allowed), capacity(null),
              place.generation(), GangAdmission.avoidedNodes(job.getStatus()),
              AdmissionQueue.ahead(job, jobs, priorities, now, j -> quotaWorkers(j, Map.of())), quotaBeside(),
              taking -> quotaWorkersBeside(job, taking));
      admitted = GangAdmission.withHeldBack(admitted, () -> Reclaim.heldBackFor(job, jobs,
          j -> capacity(j.getMetadata().getName()), j -> nextSizes -> quotaWorkers(j, nextSizes), priorities, now));
      if (admitted instanceof GangAdmission.Result.Admitted a) {
        for (Pod p : podsOf(job)) {
          var v = new WorkerPodView(p);
          if (!v.finished() && v.bound() && healthy(v.node())) {
            throw new AssertionError("world " + place.generation() + " admitted while " + v.name() + " runs on "
                + v.node());
          }
        }
        for (Seat seat : a.world().seats()) {
          Pod pod = WorkerPods.build(job, a.world(), seat, true, OperatorSettings.defaults());
          pods.put(pod.getMetadata().getName(), pod);
        }
      }
    } else if (d.step() instanceof WorldStep.Release r) {
      for (int index : r.gated()) {
        Pod p = pods.get(Names.workerPod(job.getMetadata().getName(), r.world().generation(), index));
        p.getSpec().setSchedulingGates(List.of());
        p.getMetadata().getAnnotations().put(Labels.RELEASED_AT, now.toString());
      }
    }
    TrainingJobStatus next = StatusAggregator.aggregate(job, d, admitted, now);
    if (!crash) job.setStatus(next);
    return d;
  }

  /**
   * How many workers of {@code job} the quota lets in beside every other job's unfinished pods, less the workers of
   * the jobs {@code nextSizes} names above the sizes it gives them (as admission counts it, docs/elastic.md).
   */
  int quotaWorkers(TrainingJob job, Map<String, Integer> nextSizes) {
    if (gpuQuota == null) return Integer.MAX_VALUE;
    int used = 0;
    for (TrainingJob other : jobs) {
      if (other == job) continue;
      // a pod stuck terminating on a lost node is past its grace period: the quota no longer counts it
      List<Pod> unfinished = podsOf(other).stream().map(WorkerPodView::new)
          .filter(v -> !v.finished() && !(v.terminating() && !healthy(v.node()))).map(WorkerPodView::pod).toList();
      long committed = WorldLifecycle.committedGeneration(other);
      int freed = nextSizes.containsKey(WorldLifecycle.key(other)) ? Math.max(0, (int) unfinished.stream()
          .filter(p -> new WorkerPodView(p).generation() == committed).count()
          - nextSizes.get(WorldLifecycle.key(other))) : 0;
      used += (unfinished.size() - freed) * other.getSpec().gpusPerWorker;
    }
    return Math.max(0, gpuQuota - used) / job.getSpec().gpusPerWorker;
  }

  /** The namespace's quota taken in turn by the jobs waiting ahead ({@link AdmissionQueue.QuotaBeside}). */
  AdmissionQueue.QuotaBeside quotaBeside() {
    return (ahead, before) -> quotaWorkersBeside(job(ahead.job()), before);
  }

  TrainingJob job(String key) {
    return jobs.stream().filter(j -> WorldLifecycle.key(j).equals(key)).findFirst().orElseThrow();
  }

  /** How many workers of {@code job} the quota lets in once the jobs ahead of it ({@code taking}) took theirs. */
  int quotaWorkersBeside(TrainingJob job, List<AdmissionQueue.Taking> taking) {
    if (gpuQuota == null) return Integer.MAX_VALUE;
    int taken = taking.stream().mapToInt(t -> t.workers() * t.job().spec().gpusPerWorker).sum();
    int free = quotaWorkers(job, Map.of()) * job.getSpec().gpusPerWorker; // gpusPerWorker is 8 for every job here
    return Math.max(0, free - taken) / job.getSpec().gpusPerWorker;
  }

  /** Resources in use: every pod not finished, bound or promised, except those of {@code exceptJob}. */
  ClusterCapacity capacity(String exceptJob) {
    Map<String, Resources> used = new TreeMap<>();
    for (Pod p : pods.values()) {
      var v = new WorkerPodView(p);
      if (v.finished() || p.getMetadata().getLabels().get(Labels.JOB).equals(exceptJob)) continue;
      used.merge(v.node(), ClusterCapacity.perPod(p.getSpec()), Resources::plus);
    }
    return new ClusterCapacity(nodes.values().stream().map(NodeState::node).toList(), used);
  }

  /** The scheduler and kubelets: bind released pods, start bound ones, finish deletions on reachable nodes. */
  void kubelets() {
    for (Pod p : new ArrayList<>(pods.values())) {
      var v = new WorkerPodView(p);
      String node = v.node();
      if (v.terminating()) {
        if (!v.bound() || healthy(node)) pods.remove(v.name());
        continue;
      }
      if (v.gated() || v.finished()) continue;
      if (!v.bound()) {
        if (healthy(node) && !nodes.get(node).node().unschedulable()) p.getSpec().setNodeName(node);
        continue;
      }
      if (healthy(node) && "Pending".equals(v.phase())) p.setStatus(new PodStatusBuilder().withPhase("Running").build());
    }
  }

  /** The trainer of {@code pod} exits with {@code code}. */
  void exit(String pod, int code) {
    Pod p = pods.get(pod);
    p.setStatus(new PodStatusBuilder().withPhase(code == 0 ? "Succeeded" : "Failed")
        .withContainerStatuses(new ContainerStatusBuilder().withName(WorkerPods.TRAINER).withNewState()
            .withNewTerminated().withExitCode(code).withReason(code == 0 ? "Completed" : "Error").endTerminated()
            .endState().build())
        .build());
  }

  /** Reconciles every job and runs the kubelets until nothing changes (or {@code rounds} pass). */
  void settle(int rounds) {
    for (int i = 0; i < rounds; i++) {
      for (TrainingJob job : jobs) reconcile(job, false);
      kubelets();
    }
  }

  List<Pod> live(TrainingJob job) {
    return podsOf(job).stream().filter(p -> !new WorkerPodView(p).terminating() && !new WorkerPodView(p).finished())
        .toList();
  }
}
