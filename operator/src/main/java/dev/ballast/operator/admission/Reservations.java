package dev.ballast.operator.admission;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
   * Every reservation still held, dropping those older than {@link #MAX_CACHE_LAG}. Read it before the cache: a
   * reservation released after this call is released because the informer delivered its pod, which it does only
   * once its store and indexes hold the pod, so a cache read after this call shows every pod this list lacks.
   */
  synchronized List<Pod> held(Instant now) {
    byUid.values().removeIf(r -> r.at().plus(MAX_CACHE_LAG).isBefore(now));
    return byUid.values().stream().map(Reservation::pod).toList();
  }
}
