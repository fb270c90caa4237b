package dev.ballast.operator.admission;

import dev.ballast.operator.world.UnseenPods;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pods of each job's latest admitted world that the reconciler's pod cache has not shown yet. The reconciler's
 * cache is not admission's (each informer lags on its own), so this is kept apart from {@link Reservations}: a name
 * is forgotten once the reconciler has seen it, and a world's entry after {@link UnseenPods#BOUND}. Nothing here needs
 * to survive a restart: a restarted operator's caches list every pod before its first reconcile.
 */
final class CreatedPods {
  private record Created(long generation, int worldSize, Set<String> unseen, Instant at) {}

  private final Map<String, Created> byJobUid = new HashMap<>();

  /** Admission created these pods (every pod of world {@code generation}) for the job. */
  synchronized void created(String jobUid, long generation, List<String> names, Instant at) {
    byJobUid.put(jobUid, new Created(generation, names.size(), new LinkedHashSet<>(names), at));
  }

  /**
   * The job's created pods the cache still does not show, given the names it {@code shows} now; null when none.
   * The names shown are forgotten: from now on the cache speaks for them, deleted or not.
   */
  synchronized UnseenPods unseen(String jobUid, Collection<String> shows, Instant now) {
    byJobUid.values().removeIf(c -> !now.isBefore(c.at().plus(UnseenPods.BOUND)));
    Created c = byJobUid.get(jobUid);
    if (c == null) return null;
    c.unseen().removeAll(shows);
    if (c.unseen().isEmpty()) {
      byJobUid.remove(jobUid);
      return null;
    }
    return new UnseenPods(c.generation(), c.worldSize(), List.copyOf(c.unseen()), c.at());
  }
}
