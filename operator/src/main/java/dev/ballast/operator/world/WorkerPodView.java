package dev.ballast.operator.world;

import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.WorkerPods;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** Reads what the operator wrote on a worker pod, and what the cluster reports about it. */
public record WorkerPodView(Pod pod) {
  /** The kubelet's waiting reasons of a container that is simply starting. */
  private static final Set<String> STARTING = Set.of("ContainerCreating", "PodInitializing");

  public String name() {
    return pod.getMetadata().getName();
  }

  private Map<String, String> annotations() {
    var a = pod.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  public int index() {
    return Integer.parseInt(pod.getMetadata().getLabels().get(Labels.INDEX));
  }

  public long generation() {
    var labels = pod.getMetadata().getLabels();
    return Long.parseLong(labels == null ? "0" : labels.getOrDefault(Labels.WORLD_GENERATION, "0"));
  }

  /** Hash of the next-world spec fields the pod was built from. */
  public String specHash() {
    return annotations().get(Labels.SPEC_HASH);
  }

  /** The node the pod is bound to, or else the node admission promised it. */
  public String node() {
    return bound() ? pod.getSpec().getNodeName() : annotations().get(Labels.ASSIGNED_NODE);
  }

  /** The trainer container's exit code, if it terminated. */
  public Optional<Integer> trainerExitCode() {
    if (pod.getStatus() == null) return Optional.empty();
    return pod.getStatus().getContainerStatuses().stream()
        .filter(cs -> WorkerPods.TRAINER.equals(cs.getName()))
        .filter(cs -> cs.getState() != null && cs.getState().getTerminated() != null)
        .map(cs -> cs.getState().getTerminated().getExitCode())
        .filter(java.util.Objects::nonNull)
        .findFirst();
  }

  /** Kubernetes says the pod was disrupted (evicted, preempted, its node shut down): not the trainer's fault. */
  public boolean disrupted() {
    if (pod.getStatus() == null) return false;
    String reason = pod.getStatus().getReason();
    if ("Evicted".equals(reason) || "Preempting".equals(reason) || "Shutdown".equals(reason)
        || "Terminated".equals(reason) || "NodeLost".equals(reason)) {
      return true;
    }
    return pod.getStatus().getConditions().stream()
        .anyMatch(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public int worldSize() {
    return Integer.parseInt(annotations().getOrDefault(Labels.WORLD_SIZE, "0"));
  }

  public Seat seat() {
    var a = annotations();
    return new Seat(index(), Integer.parseInt(a.getOrDefault(Labels.NODE_RANK, "0")), a.get(Labels.ASSIGNED_NODE),
        a.get(Labels.DOMAIN), a.get(Labels.RACK));
  }

  public boolean terminating() {
    return pod.getMetadata().getDeletionTimestamp() != null;
  }

  public boolean gated() {
    var gates = pod.getSpec().getSchedulingGates();
    return gates != null && gates.stream().anyMatch(g -> Labels.ADMISSION_GATE.equals(g.getName()));
  }

  public boolean bound() {
    return pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
  }

  public String phase() {
    return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
  }

  public boolean running() {
    return "Running".equals(phase());
  }

  public boolean succeeded() {
    return "Succeeded".equals(phase());
  }

  public boolean failed() {
    return "Failed".equals(phase());
  }

  public boolean finished() {
    return succeeded() || failed();
  }

  public Optional<Instant> releasedAt() {
    return Optional.ofNullable(annotations().get(Labels.RELEASED_AT)).map(Instant::parse);
  }

  /** What the scheduler last said about this pod, if it could not bind it. */
  public Optional<String> schedulingMessage() {
    if (pod.getStatus() == null) return Optional.empty();
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .map(PodCondition::getMessage)
        .filter(m -> m != null && !m.isBlank())
        .findFirst();
  }

  /**
   * Why the pod's containers do not start, in the kubelet's words ("container trainer: ImagePullBackOff (Back-off
   * pulling image ...)"), when one waits for anything but starting: an image that cannot be pulled, a Secret or
   * ConfigMap that does not exist, a sidecar that keeps crashing.
   */
  public Optional<String> startupProblem() {
    if (pod.getStatus() == null) return Optional.empty();
    return Stream.concat(pod.getStatus().getInitContainerStatuses().stream(),
            pod.getStatus().getContainerStatuses().stream())
        .filter(cs -> cs.getState() != null && cs.getState().getWaiting() != null)
        .filter(cs -> cs.getState().getWaiting().getReason() != null
            && !STARTING.contains(cs.getState().getWaiting().getReason()))
        .map(cs -> {
          var w = cs.getState().getWaiting();
          boolean said = w.getMessage() != null && !w.getMessage().isBlank();
          return "container " + cs.getName() + ": " + w.getReason() + (said ? " (" + w.getMessage().strip() + ")" : "");
        })
        .findFirst();
  }

  /** A person-readable account of why a failed pod failed: the trainer's exit code and reason. */
  public String failureDescription() {
    StringBuilder sb = new StringBuilder("worker ").append(name());
    if (pod.getSpec().getNodeName() != null) sb.append(" on node ").append(pod.getSpec().getNodeName());
    Optional<ContainerStatus> failed = pod.getStatus() == null ? Optional.empty()
        : pod.getStatus().getContainerStatuses().stream()
            .filter(cs -> cs.getState() != null && cs.getState().getTerminated() != null
                && cs.getState().getTerminated().getExitCode() != null
                && cs.getState().getTerminated().getExitCode() != 0)
            .findFirst();
    if (failed.isPresent()) {
      var t = failed.get().getState().getTerminated();
      sb.append(": container ").append(failed.get().getName()).append(" exited with code ").append(t.getExitCode());
      if (t.getReason() != null) sb.append(" (").append(t.getReason()).append(')');
      if (t.getMessage() != null && !t.getMessage().isBlank()) sb.append(": ").append(t.getMessage().strip());
    } else {
      sb.append(" failed");
      if (pod.getStatus() != null && pod.getStatus().getReason() != null) {
        sb.append(" (").append(pod.getStatus().getReason()).append(')');
      }
      if (pod.getStatus() != null && pod.getStatus().getMessage() != null) {
        sb.append(": ").append(pod.getStatus().getMessage());
      }
    }
    return sb.toString();
  }
}
