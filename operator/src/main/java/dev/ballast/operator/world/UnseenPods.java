package dev.ballast.operator.world;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Pods of a world admission created that the reconciler's pod cache has not shown yet: the cache lags the API
 * server by a watch event (seconds under load), so a reconcile right after admission may see only part of the
 * gang. Until {@link #BOUND} after their creation they count as existing; a pod still unseen after that is missing.
 *
 * @param generation the world they belong to
 * @param worldSize how many pods admission created for that world
 * @param names the pods the cache has not shown yet
 * @param createdAt when admission created them
 */
public record UnseenPods(long generation, int worldSize, List<String> names, Instant createdAt) {
  /** How long a created pod may stay out of the cache before it counts as missing (a lost watch event, a relist). */
  public static final Duration BOUND = Duration.ofSeconds(60);

  public UnseenPods {
    names = List.copyOf(names);
  }

  public Instant deadline() {
    return createdAt.plus(BOUND);
  }

  /** Whether these pods still count as existing at {@code now}. */
  public boolean pending(Instant now) {
    return !names.isEmpty() && now.isBefore(deadline());
  }
}
