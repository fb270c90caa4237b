package dev.ballast.operator.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The jobs whose world's pods the API server refused for a namespace quota lately, with what admission answered. Such
 * a refusal means admission's count and the API server's disagreed; trying again at once would create and delete the
 * same pods in a loop (each create and delete is an event that wakes the job, and changes the quota's usage), so the
 * job's next admissions repeat the answer until {@link #BACKOFF} has passed. In memory: a restarted operator tries once
 * more.
 */
final class QuotaRefusals {
  static final Duration BACKOFF = Duration.ofSeconds(15);

  private record Refusal(GangAdmission.Result answer, Instant until) {}

  private final Map<String, Refusal> byJobUid = new HashMap<>();

  synchronized void refused(String jobUid, GangAdmission.Result answer, Instant now) {
    byJobUid.put(jobUid, new Refusal(answer, now.plus(BACKOFF)));
  }

  /** The answer to repeat for the job now; null when it was not refused within {@link #BACKOFF}. */
  synchronized GangAdmission.Result recent(String jobUid, Instant now) {
    byJobUid.values().removeIf(r -> !now.isBefore(r.until()));
    Refusal r = byJobUid.get(jobUid);
    return r == null ? null : r.answer();
  }
}
