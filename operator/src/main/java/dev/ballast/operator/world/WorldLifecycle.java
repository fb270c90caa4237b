package dev.ballast.operator.world;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.WorldNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides the next step of a job's world from its worker pods and its status. Pure: no cluster access,
 * so every transition is unit-tested.
 *
 * <p>A world is first <em>admitted</em> (pods created gated with their nodes chosen), then
 * <em>released</em> (all gates removed together), then <em>committed</em> once every pod is bound.
 * If binding does not finish within the admission timeout the whole gang is rolled back.
 */
public final class WorldLifecycle {
  private WorldLifecycle() {}

  public static WorldStep decide(TrainingJob job, List<Pod> workerPods, Instant now) {
    var status = job.getStatus();
    Phase phase = status == null ? null : status.phase;
    if (phase == Phase.Succeeded || phase == Phase.Failed) return new WorldStep.Ended();

    List<WorkerPodView> pods = workerPods.stream().map(WorkerPodView::new)
        .filter(p -> !p.terminating())
        .sorted(Comparator.comparingInt(WorkerPodView::index))
        .toList();
    if (Boolean.TRUE.equals(job.getSpec().suspend)) {
      return new WorldStep.Suspend(pods.stream().filter(p -> !p.finished()).map(WorkerPodView::pod).toList());
    }

    long committedGeneration = committedGeneration(job);
    if (pods.isEmpty()) {
      long terminating = workerPods.stream().filter(p -> new WorkerPodView(p).terminating()).count();
      return terminating > 0 ? new WorldStep.Draining((int) terminating) : new WorldStep.Place(committedGeneration + 1);
    }

    Set<Long> generations = pods.stream().map(WorkerPodView::generation).collect(Collectors.toSet());
    if (generations.size() > 1) {
      return new WorldStep.RollBack("MixedWorld",
          "worker pods belong to different world generations " + generations + "; starting a fresh world",
          pods.stream().map(WorkerPodView::pod).toList());
    }
    long generation = generations.iterator().next();
    int size = pods.get(0).worldSize();

    var failed = pods.stream().filter(WorkerPodView::failed).findFirst();
    if (failed.isPresent()) {
      return new WorldStep.Finish(false, "WorkerFailed", failed.get().failureDescription(),
          pods.stream().filter(p -> !p.finished()).map(WorkerPodView::pod).toList());
    }

    if (generation == committedGeneration) {
      World world = committedWorld(job);
      if (pods.size() == size && pods.stream().allMatch(WorkerPodView::succeeded)) {
        return new WorldStep.Finish(true, "AllWorkersSucceeded",
            "all " + size + " workers of world " + generation + " exited 0", List.of());
      }
      Set<Integer> present = pods.stream().map(WorkerPodView::index).collect(Collectors.toSet());
      List<Seat> missing = world.seats().stream().filter(s -> !present.contains(s.index())).toList();
      if (!missing.isEmpty()) return new WorldStep.Recreate(world, missing);
      return new WorldStep.Run(world, (int) pods.stream().filter(WorkerPodView::running).count());
    }

    World world = new World(generation, pods.stream().map(WorkerPodView::seat).toList());
    if (pods.size() < size) {
      return new WorldStep.RollBack("IncompleteGang",
          "only " + pods.size() + " of " + size + " worker pods of world " + generation + " exist",
          pods.stream().map(WorkerPodView::pod).toList());
    }
    List<Pod> gated = pods.stream().filter(WorkerPodView::gated).map(WorkerPodView::pod).toList();
    if (!gated.isEmpty()) return new WorldStep.Release(world, gated);

    List<WorkerPodView> unbound = pods.stream().filter(p -> !p.bound()).toList();
    if (unbound.isEmpty()) return new WorldStep.Commit(world);

    Instant releasedAt = pods.stream().map(WorkerPodView::releasedAt).flatMap(java.util.Optional::stream)
        .min(Comparator.naturalOrder()).orElse(now);
    Instant deadline = releasedAt.plus(Duration.ofSeconds(job.getSpec().admissionTimeoutSeconds));
    if (now.isAfter(deadline)) {
      String why = unbound.stream().map(WorkerPodView::schedulingMessage).flatMap(java.util.Optional::stream)
          .findFirst().map(m -> "; the scheduler says: " + m).orElse("");
      return new WorldStep.RollBack("BindingTimeout",
          unbound.size() + " of " + size + " workers were not bound within " + job.getSpec().admissionTimeoutSeconds
              + "s (" + unbound.stream().map(WorkerPodView::name).collect(Collectors.joining(", ")) + ")" + why
              + "; releasing their GPUs and retrying",
          pods.stream().map(WorkerPodView::pod).toList());
    }
    return new WorldStep.AwaitBinding(world, size - unbound.size(), deadline);
  }

  static long committedGeneration(TrainingJob job) {
    var status = job.getStatus();
    return status == null || status.world == null || status.world.generation == null ? 0 : status.world.generation;
  }

  /** The world recorded in status (callers check that status.world is set). */
  public static World committedWorld(TrainingJob job) {
    var w = job.getStatus().world;
    return new World(w.generation, w.nodes.stream().map(WorldLifecycle::seat).toList());
  }

  private static Seat seat(WorldNode n) {
    return new Seat(n.index, n.nodeRank, n.node, n.domain, n.rack);
  }
}
