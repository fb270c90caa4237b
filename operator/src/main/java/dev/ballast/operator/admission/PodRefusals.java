package dev.ballast.operator.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What admission learnt from the API server refusing a worker pod, per job. A world's pods are created one by one and
 * a refusal part-way deletes those created; each create and delete is an event that wakes the job, so:
 * <ul>
 *   <li>the job's next admissions, while its spec stays the same ({@code metadata.generation}), repeat the answer until
 *       {@link #BACKOFF} has passed instead of creating and deleting the same pods in a loop (a quota's count and
 *       admission's disagreed, or a policy refused one pod of the world but not the first);
 *   <li>after a quota refusal, for a day, its worker counts at least what the API server counted for the refused pod
 *       ({@link #perWorker}), so an elastic job asks for the workers that fit as the API server counts them (a pod
 *       counted otherwise than admission built it, e.g. a webhook added requests).
 * </ul>
 * In memory: a restarted operator learns again.
 */
final class PodRefusals {
  static final Duration BACKOFF = Duration.ofSeconds(15);
  static final Duration KEPT = Duration.ofDays(1);

  private record Refusal(GangAdmission.Result answer, Instant until) {}

  private record Counted(Map<String, Long> perWorker, Instant until) {}

  private final Map<String, Refusal> recent = new HashMap<>();
  private final Map<String, Counted> counted = new HashMap<>();

  /**
   * The API server refused a pod of the job at spec {@code generation}: {@code message} is its own words, {@code
   * answer} admission's.
   */
  synchronized void refused(String jobUid, long generation, String message, GangAdmission.Result answer,
      Instant now) {
    recent.put(jobUid + "/" + generation, new Refusal(answer, now.plus(BACKOFF)));
    Map<String, Long> learnt = new TreeMap<>(perWorker(jobUid, now));
    NamespaceQuota.requested(message).forEach((name, amount) -> learnt.merge(name, amount, Math::max));
    counted.put(jobUid, new Counted(Map.copyOf(learnt), now.plus(KEPT)));
  }

  /**
   * The answer to repeat for the job at spec {@code generation} now; null when it was not refused at that generation
   * within {@link #BACKOFF}.
   */
  synchronized GangAdmission.Result recent(String jobUid, long generation, Instant now) {
    recent.values().removeIf(r -> !now.isBefore(r.until()));
    Refusal r = recent.get(jobUid + "/" + generation);
    return r == null ? null : r.answer();
  }

  /** What the API server counted for one of the job's pods, per quota resource, where it refused one. */
  synchronized Map<String, Long> perWorker(String jobUid, Instant now) {
    counted.values().removeIf(c -> !now.isBefore(c.until()));
    Counted c = counted.get(jobUid);
    return c == null ? Map.of() : c.perWorker();
  }
}
