package dev.ballast.operator.world;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.admission.AdmissionQueue;
import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.admission.Reclaim;
import dev.ballast.operator.admission.WorldSizes;
import dev.ballast.operator.api.ParallelismSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.Priorities;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Properties of the world's decisions over random histories: nodes lost, deleted, cordoned, recovered and
 * added, trainers exiting with random codes, spec.workers edits, and operator crashes between acting and
 * recording status (every decision is re-derived from observed state only). Three jobs share the cluster,
 * with PriorityClasses that change, so jobs give way to each other by reclaim and by preemption; in half the
 * histories their namespace has a GPU quota smaller than the cluster, so they also give way within it.
 * Seeded, so a failure names the seed that reproduces it.
 *
 * <p>After every step: no two generations of a job run on reachable nodes (no two live copies of a rank),
 * no node's GPUs are promised beyond its allocatable GPUs, every committed world holds workers.min..max
 * workers in whole groups, committed generations advance one at a time, restarts stay within the limit, and the
 * namespace's pods never request more GPUs than its quota.
 */
class WorldPropertiesTest {
  static final int HISTORIES = 200;
  static final int STEPS = 120;

  /** What the histories exercised, so that a change making them trivial fails too. */
  final Map<String, Integer> seen = new TreeMap<>();
  int guardedGaveWay;
  int queuedAdmissions;
  int reservedWaits;
  int gaveWayForQuota;

  @Test
  void randomHistoriesKeepTheInvariants() {
    long base = Long.getLong("ballast.seed", 20261202L);
    // -Dballast.histories=N runs more histories from the same first seed (a soak run)
    int histories = Long.getLong("ballast.seed") == null ? Integer.getInteger("ballast.histories", HISTORIES) : 1;
    for (int h = 0; h < histories; h++) {
      long seed = base + h;
      try {
        history(seed);
      } catch (AssertionError e) {
        throw new AssertionError("history with seed " + seed + " (rerun with -Dballast.seed=" + seed + "): "
            + e.getMessage(), e);
      }
    }
    if (histories >= HISTORIES) {
      assertThat(seen).as("decisions the histories reached: " + seen).allSatisfy((kind, n) -> assertThat(n).isGreaterThan(20))
          .containsKeys("Commit", "WorkerFailed", "NodeLost", "WorkerLost", "CapacityAvailable", "WorkersChanged",
              "NodeDrained", "SpecChanged", "Suspend", "Finish", "RollBack", "ForceDelete", "Reclaimed", "Preempted");
      assertThat(guardedGaveWay).as("jobs of the class with a minimum runtime gave way after it").isPositive();
      assertThat(queuedAdmissions).as("admissions beside a job waiting ahead that fitted").isPositive();
      assertThat(reservedWaits).as("waits behind a job that reserves").isPositive();
      assertThat(gaveWayForQuota).as("jobs gave way to a job waiting for the namespace's quota").isGreaterThan(20);
    }
  }

  private void history(long seed) {
    Random rnd = new Random(seed);
    WorldSim sim = new WorldSim();
    sim.priorities = new Priorities(Map.of("high", 1000, "low", 10, "never", 1000, "guarded", 10), null,
        Set.of("never"), Map.of("guarded", java.time.Duration.ofSeconds(60)), List.of());
    String[] classes = {null, "low", "high", "never", "guarded"};
    int nodeCount = 2 + rnd.nextInt(5);
    sim.gpuQuota = rnd.nextBoolean() ? 8 * (2 + rnd.nextInt(4)) : null; // half the histories: 2 to 5 workers
    for (int i = 0; i < nodeCount; i++) sim.addNode("n" + i, "d" + (i / 2), "r" + (i / 4));
    int[] next = {nodeCount};
    TrainingJob a = TestJobs.job("a", 1 + rnd.nextInt(2), 2 + rnd.nextInt(4), 8);
    TrainingJob b = TestJobs.job("b", 1 + rnd.nextInt(3), 3 + rnd.nextInt(3), 8);
    TrainingJob c = TestJobs.job("c", 1 + rnd.nextInt(2), 2 + rnd.nextInt(2), 8);
    List<TrainingJob> jobs = List.of(a, b, c);
    if (rnd.nextBoolean()) {
      a.getSpec().parallelism = new ParallelismSpec(8, 2); // whole groups of two workers
      a.getSpec().workers.min = 2;
      a.getSpec().workers.max = 4;
    }
    for (TrainingJob j : jobs) {
      j.getSpec().restartLimit = 3 + rnd.nextInt(5);
      j.getSpec().elastic.cooldownSeconds = rnd.nextInt(60);
      j.getSpec().recovery.nodeLostAfterSeconds = rnd.nextInt(40);
      j.getSpec().elastic.reserveAfterSeconds = rnd.nextInt(3) == 0 ? 30 + rnd.nextInt(120) : null;
      j.getMetadata().setCreationTimestamp(sim.now.toString());
      j.getSpec().template.getSpec().setPriorityClassName(classes[rnd.nextInt(classes.length)]);
      sim.jobs.add(j);
    }
    Map<String, Long> committed = new HashMap<>();

    for (int step = 0; step < STEPS; step++) {
      sim.now = sim.now.plusSeconds(1 + rnd.nextInt(20));
      int event = rnd.nextInt(100);
      List<String> names = new ArrayList<>(sim.nodes.keySet());
      if (event < 6 && !names.isEmpty()) {
        sim.notReady(names.get(rnd.nextInt(names.size())));
      } else if (event < 9 && !names.isEmpty()) {
        sim.deleteNode(names.get(rnd.nextInt(names.size())));
      } else if (event < 12 && !names.isEmpty()) {
        sim.cordon(names.get(rnd.nextInt(names.size())));
      } else if (event < 14 && !names.isEmpty()) {
        String n = names.get(rnd.nextInt(names.size()));
        if (!sim.nodes.get(n).node().ready()) sim.outOfService(n);
      } else if (event < 22 && !names.isEmpty()) {
        String n = names.get(rnd.nextInt(names.size()));
        if (!sim.nodes.get(n).node().ready()) sim.recover(n);
      } else if (event < 28) {
        int i = next[0]++;
        sim.addNode("n" + i, "d" + (i / 2), "r" + (i / 4));
      } else if (event < 38) {
        List<Pod> running = sim.pods.values().stream().filter(p -> "Running".equals(new WorkerPodView(p).phase()))
            .filter(p -> !new WorkerPodView(p).terminating()).toList();
        if (!running.isEmpty()) {
          int[] codes = {0, 1, 3, 75, 137, 143};
          sim.exit(running.get(rnd.nextInt(running.size())).getMetadata().getName(), codes[rnd.nextInt(codes.length)]);
        }
      } else if (event < 40) {
        List<Pod> evictable = sim.pods.values().stream().filter(p -> new WorkerPodView(p).bound())
            .filter(p -> !new WorkerPodView(p).terminating()).toList();
        if (!evictable.isEmpty()) {
          Pod p = evictable.get(rnd.nextInt(evictable.size()));
          p.getMetadata().setDeletionTimestamp(sim.now.toString()); // evicted or deleted by a person
        }
      } else if (event < 42) {
        TrainingJob j = jobs.get(rnd.nextInt(jobs.size()));
        j.getSpec().template.getSpec().getContainers().get(0).setImage("registry.example/trainer:" + step);
        j.getMetadata().setGeneration(j.getMetadata().getGeneration() + 1);
      } else if (event < 44) {
        TrainingJob j = jobs.get(rnd.nextInt(jobs.size()));
        j.getSpec().suspend = !Boolean.TRUE.equals(j.getSpec().suspend);
        j.getMetadata().setGeneration(j.getMetadata().getGeneration() + 1);
      } else if (event < 49) {
        TrainingJob j = jobs.get(rnd.nextInt(jobs.size()));
        j.getSpec().template.getSpec().setPriorityClassName(classes[rnd.nextInt(classes.length)]);
        j.getMetadata().setGeneration(j.getMetadata().getGeneration() + 1);
      } else if (event < 53) {
        TrainingJob j = jobs.get(rnd.nextInt(jobs.size()));
        int max = 1 + rnd.nextInt(6);
        int min = 1 + rnd.nextInt(max);
        if (WorldSizes.largestValid(max, withRange(j, min, max)) == max
            && WorldSizes.largestValid(min, withRange(j, min, min)) == min) {
          j.getSpec().workers.min = min;
          j.getSpec().workers.max = max;
          j.getMetadata().setGeneration(j.getMetadata().getGeneration() + 1);
        }
      }
      // reconciles in random order, some of them crashing before the status write
      int reconciles = 1 + rnd.nextInt(4);
      for (int r = 0; r < reconciles; r++) {
        TrainingJob j = jobs.get(rnd.nextInt(jobs.size()));
        boolean wasGivingWay = WorldLifecycle.givingWay(j);
        var guarded = Reclaim.protectedUntil(j, sim.priorities, sim.now);
        List<AdmissionQueue.Ahead> queue = AdmissionQueue.ahead(j, sim.jobs, sim.priorities, sim.now,
            x -> sim.quotaWorkers(x, Map.of()));
        Map<String, Integer> takingBefore = taking(queue, sim);
        Decision d = sim.reconcile(j, rnd.nextInt(10) == 0);
        if (j.getStatus() != null && j.getStatus().conditions.stream().anyMatch(cond -> cond.getMessage() != null
            && cond.getMessage().contains("reserves the room"))) {
          reservedWaits++;
        }
        if (d.step() instanceof WorldStep.Place place && sim.podsOf(j).stream()
            .anyMatch(p -> new WorkerPodView(p).generation() == place.generation())) {
          Map<String, Integer> takingAfter = taking(queue, sim);
          takingBefore.forEach((ahead, workers) -> assertThat(takingAfter.getOrDefault(ahead, 0))
              .as(WorldLifecycle.key(j) + " was admitted in the room or quota that " + ahead + ", waiting ahead of it,"
                  + " takes first: " + takingBefore + " before, " + takingAfter + " after")
              .isGreaterThanOrEqualTo(workers));
          if (!takingBefore.isEmpty()) queuedAdmissions++;
        }
        if (d.step() instanceof WorldStep.Transition t && !wasGivingWay
            && List.of("Reclaimed", "Preempted").contains(t.transition().reason)) {
          if (t.transition().message.contains("waits for the quota")) gaveWayForQuota++;
          assertThat(guarded).as(WorldLifecycle.key(j) + " gives way only after its class's minimum runtime").isEmpty();
          if ("guarded".equals(j.getSpec().template.getSpec().getPriorityClassName())) {
            guardedGaveWay++;
          }
        }
        if (d.step() instanceof WorldStep.Transition t && "Preempted".equals(t.transition().reason)) {
          var template = jobs.stream().filter(o -> WorldLifecycle.key(o).equals(t.transition().forJob)).findFirst()
              .orElseThrow().getSpec().template;
          assertThat(sim.priorities.of(template)).as("preempted only for a higher priority that may preempt")
              .isGreaterThan(sim.priorities.of(j.getSpec().template));
          assertThat(sim.priorities.mayPreempt(template)).isTrue();
        }
        count(d);
        check(sim, committed);
      }
      if (rnd.nextInt(4) != 0) sim.kubelets();
      check(sim, committed);
    }
  }

  /**
   * Which of the jobs waiting {@code ahead} take room now, in turn, each within what the quota lets in beside those
   * before it, and how many workers each takes (a job ahead that does not fit beside those before it, or that its quota
   * keeps out, holds no one back).
   */
  private static Map<String, Integer> taking(List<AdmissionQueue.Ahead> ahead, WorldSim sim) {
    List<AdmissionQueue.Ahead> now = ahead.stream().map(a -> new AdmissionQueue.Ahead(a.job(), a.priority(), a.spec(),
        a.avoid(), a.reservingSince(), sim.quotaWorkers(sim.job(a.job()), Map.of()))).toList();
    Map<String, Integer> taking = new TreeMap<>();
    AdmissionQueue.after(sim.capacity(null), now, sim.quotaBeside()).taking()
        .forEach(t -> taking.put(t.job().job(), t.workers()));
    return taking;
  }

  private void count(Decision d) {
    String kind = d.step() instanceof WorldStep.Transition t ? t.transition().reason : d.step().getClass().getSimpleName();
    if (!(d.step() instanceof WorldStep.Run || d.step() instanceof WorldStep.Ended)) seen.merge(kind, 1, Integer::sum);
    if (!d.forceDelete().isEmpty()) seen.merge("ForceDelete", 1, Integer::sum);
  }

  private static dev.ballast.operator.api.TrainingJobSpec withRange(TrainingJob j, int min, int max) {
    var spec = io.fabric8.kubernetes.client.utils.Serialization.clone(j.getSpec());
    spec.workers.min = min;
    spec.workers.max = max;
    return spec;
  }

  private static void check(WorldSim sim, Map<String, Long> committed) {
    // the namespace's quota: never more GPUs requested than it allows (a pod stuck terminating on a lost node is not
    // counted, as the quota controller stops counting it after its grace period)
    if (sim.gpuQuota != null) {
      int requested = 0;
      for (TrainingJob job : sim.jobs) {
        requested += (int) sim.podsOf(job).stream().map(WorkerPodView::new).filter(v -> !v.finished())
            .filter(v -> !(v.terminating() && !sim.healthy(v.node()))).count() * job.getSpec().gpusPerWorker;
      }
      assertThat(requested).as("GPUs requested in the namespace, its quota " + sim.gpuQuota + ": " + sim.pods.keySet())
          .isLessThanOrEqualTo(sim.gpuQuota);
    }
    // GPUs: never promised beyond what a node has
    Map<String, Integer> used = new TreeMap<>();
    for (Pod p : sim.pods.values()) {
      var v = new WorkerPodView(p);
      if (v.finished()) continue;
      used.merge(v.node(), Integer.parseInt(p.getSpec().getContainers().get(0).getResources().getRequests()
          .get(WorkerPods.GPU_RESOURCE).getAmount()), Integer::sum);
    }
    used.forEach((node, gpus) -> {
      NodeState n = sim.nodes.get(node);
      if (n != null && gpus > n.node().allocatableGpus()) {
        fail("node " + node + " has " + gpus + " GPUs promised but " + n.node().allocatableGpus() + " allocatable: "
            + sim.pods.keySet());
      }
    });

    for (TrainingJob job : sim.jobs) {
      String name = job.getMetadata().getName();
      // one generation at a time on reachable nodes: a pod of a newer world never meets a live older one
      List<Pod> pods = sim.pods.values().stream()
          .filter(p -> name.equals(p.getMetadata().getLabels().get(dev.ballast.operator.desired.Labels.JOB))).toList();
      long newest = pods.stream().filter(p -> !new WorkerPodView(p).finished())
          .mapToLong(p -> new WorkerPodView(p).generation()).max().orElse(0);
      for (Pod p : pods) {
        var v = new WorkerPodView(p);
        if (v.generation() < newest && !v.finished() && v.bound() && sim.healthy(v.node())) {
          fail(name + ": " + v.name() + " (terminating: " + v.terminating() + ") still runs on reachable node "
              + v.node() + " while world " + newest + " has pods: " + sim.pods.keySet());
        }
      }
      var status = job.getStatus();
      if (status == null) continue;
      if (status.world != null) {
        long g = status.world.generation;
        long before = committed.getOrDefault(name, 0L);
        long retired = status.retiredGeneration == null ? 0 : status.retiredGeneration;
        assertThat(g).as(name + ": committed generations advance one at a time, past the retired ones")
            .isIn(before, Math.max(before, retired) + 1);
        if (g > before) {
          int size = status.world.nodes.size();
          var spec = job.getSpec();
          assertThat(size).as(name + ": a committed world holds workers.min..max").isBetween(spec.workers.min,
              spec.workers.max);
          assertThat(size * spec.gpusPerWorker % (spec.parallelism.expert * spec.parallelism.pipeline))
              .as(name + ": whole expert × pipeline groups").isZero();
        }
        committed.put(name, g);
      }
      assertThat(status.restarts == null ? 0 : status.restarts).as(name + ": restarts within the limit")
          .isLessThanOrEqualTo(job.getSpec().restartLimit);
      if (status.phase == Phase.Failed || status.phase == Phase.Succeeded) {
        assertThat(status.transition).as(name + ": an ended job has no transition").isNull();
      }
    }
  }
}
