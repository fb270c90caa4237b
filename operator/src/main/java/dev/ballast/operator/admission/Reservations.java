package dev.ballast.operator.admission;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Pods admission created that its informer cache may not show yet. Admission reads capacity from the
 * cache, which lags the API server by a watch event; until the cache shows a created pod, its promise of
 * GPUs lives here, so two admissions back to back never promise one GPU twice. Nothing here needs to
 * survive a restart: the promises are pods in the API server, and a restarted operator's cache lists
 * them before its first admission.
 */
final class Reservations {
  /** How long a promise is held at most without the cache showing its pod (a lost watch event, a relist). */
  static final Duration MAX_CACHE_LAG = Duration.ofMinutes(2);

  private record Reservation(Pod pod, Instant at) {}

  private final Map<String, Reservation> byUid = new LinkedHashMap<>();

  /** Holds the GPUs of a pod the API server just created. */
  synchronized void add(Pod created, Instant now) {
    byUid.put(created.getMetadata().getUid(), new Reservation(created, now));
  }

  /** The cache has delivered this pod (added, updated or deleted), or admission deleted it itself. */
  synchronized void release(String uid) {
    byUid.remove(uid);
  }

  /**
   * The reserved pods the cache does not hold yet, to be counted beside the cached ones. Drops the
   * reservations whose pod the cache now holds (by uid: a cached pod of the same name but another uid is
   * an older pod, and both count) and those older than {@link #MAX_CACHE_LAG}.
   *
   * @param cachedUid the uid of the pod the cache holds under a pod's namespace and name
   */
  synchronized List<Pod> unseen(Function<Pod, Optional<String>> cachedUid, Instant now) {
    List<Pod> out = new ArrayList<>();
    var it = byUid.entrySet().iterator();
    while (it.hasNext()) {
      var entry = it.next();
      Reservation r = entry.getValue();
      boolean cached = cachedUid.apply(r.pod()).filter(entry.getKey()::equals).isPresent();
      if (cached || r.at().plus(MAX_CACHE_LAG).isBefore(now)) {
        it.remove();
      } else {
        out.add(r.pod());
      }
    }
    return out;
  }
}
