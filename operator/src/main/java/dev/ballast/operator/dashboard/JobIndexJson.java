package dev.ballast.operator.dashboard;

import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.operator.api.BalancerStatusSchema;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.Comparator;
import java.util.List;

/**
 * The index page's document (docs/dashboard.md, "The index of jobs"): one row per job the viewer may get, sorted by
 * namespace and name, read from the jobs' status. Pure.
 */
public final class JobIndexJson {
  private JobIndexJson() {}

  public static String of(List<TrainingJob> visible) {
    JsonWriter w = new JsonWriter().beginObject().name("jobs").beginArray();
    visible.stream().sorted(Comparator.comparing((TrainingJob j) -> j.getMetadata().getNamespace())
        .thenComparing(j -> j.getMetadata().getName())).forEach(job -> row(w, job));
    return w.endArray().endObject().toString();
  }

  private static void row(JsonWriter w, TrainingJob job) {
    String ns = job.getMetadata().getNamespace();
    String name = job.getMetadata().getName();
    TrainingJobStatus s = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
    int perWorker = s.world != null && s.world.gpusPerWorker != null ? s.world.gpusPerWorker
        : job.getSpec().gpusPerWorker;
    int desired = orZero(s.desiredWorkers);
    w.beginObject().field("namespace", ns).field("name", name)
        .field("phase", (s.phase == null ? Phase.Pending : s.phase).name())
        .field("readyWorkers", orZero(s.readyWorkers)).field("desiredWorkers", desired)
        .field("gpusPerWorker", perWorker).field("gpus", (long) desired * perWorker)
        .field("worldGeneration", s.world == null || s.world.generation == null ? 0 : s.world.generation)
        .field("restarts", orZero(s.restarts));
    BalancerStatusSchema b = s.balancer;
    w.field("planVersion", b == null || b.planVersion == null ? "" : b.planVersion);
    w.name("imbalance").beginObject();
    if (b != null) {
      optional(w, "predictedBefore", b.imbalanceBefore);
      optional(w, "predictedAfter", b.imbalanceAfter);
      if (b.measured != null) {
        optional(w, "measuredBefore", b.measured.imbalanceBefore);
        optional(w, "measuredAfter", b.measured.imbalanceAfter);
      }
    }
    w.endObject();
    w.field("waiting", waiting(s)).field("open", "bin/ballast dashboard " + name + " -n " + ns).endObject();
  }

  /**
   * Why a job waits: a paused reconciliation, whatever its phase; else, for a job that is not running, the reason and
   * message of its first False condition of Admitted and Ready (admission before the world's pods); "" when it runs or
   * neither says.
   */
  static String waiting(TrainingJobStatus s) {
    Condition paused = first(s, Conditions.RECONCILIATION_PAUSED, "True");
    if (paused != null) return said(paused);
    if (s.phase == Phase.Running) return "";
    for (String type : List.of(Conditions.ADMITTED, Conditions.READY)) {
      Condition c = first(s, type, "False");
      if (c != null) return said(c);
    }
    return "";
  }

  private static Condition first(TrainingJobStatus s, String type, String status) {
    return s.conditions.stream().filter(c -> type.equals(c.getType()) && status.equals(c.getStatus())).findFirst()
        .orElse(null);
  }

  private static String said(Condition c) {
    String reason = c.getReason() == null ? "" : c.getReason();
    String message = c.getMessage() == null ? "" : c.getMessage();
    return reason.isEmpty() || message.isEmpty() ? reason + message : reason + ": " + message;
  }

  private static void optional(JsonWriter w, String key, Double value) {
    if (value != null && Double.isFinite(value)) w.field(key, value);
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
