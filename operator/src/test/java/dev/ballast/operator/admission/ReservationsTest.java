package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ReservationsTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  static Pod pod(String name, String uid) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid(uid).endMetadata().build();
  }

  /** A cache holding pods by name with these uids. */
  static Function<Pod, Optional<String>> cache(Map<String, String> uidByName) {
    return p -> Optional.ofNullable(uidByName.get(p.getMetadata().getName()));
  }

  @Test
  void aCreatedPodCountsUntilTheCacheShowsIt() {
    var r = new Reservations();
    r.add(pod("a-worker-0", "u1"), T0);
    r.add(pod("a-worker-1", "u2"), T0);
    assertThat(r.unseen(cache(Map.of()), T0.plusSeconds(1))).extracting(p -> p.getMetadata().getUid())
        .containsExactly("u1", "u2");
    // the cache caught up with one pod: it is counted from the cache from now on, never twice
    assertThat(r.unseen(cache(Map.of("a-worker-0", "u1")), T0.plusSeconds(2)))
        .extracting(p -> p.getMetadata().getUid()).containsExactly("u2");
    // and stays dropped even if the cache later loses it (deleted)
    assertThat(r.unseen(cache(Map.of()), T0.plusSeconds(3))).extracting(p -> p.getMetadata().getUid())
        .containsExactly("u2");
  }

  @Test
  void anOlderPodOfTheSameNameInTheCacheDoesNotReleaseTheNewOne() {
    var r = new Reservations();
    r.add(pod("a-worker-0", "new"), T0);
    assertThat(r.unseen(cache(Map.of("a-worker-0", "old")), T0.plusSeconds(1))).hasSize(1);
  }

  @Test
  void anInformerEventOrADeletionByAdmissionReleasesAPromise() {
    var r = new Reservations();
    r.add(pod("a-worker-0", "u1"), T0);
    r.add(pod("a-worker-1", "u2"), T0);
    r.release("u1");
    assertThat(r.unseen(cache(Map.of()), T0)).extracting(p -> p.getMetadata().getUid()).containsExactly("u2");
  }

  @Test
  void aPromiseTheCacheNeverShowsExpiresAfterTheMaximumLag() {
    var r = new Reservations();
    r.add(pod("a-worker-0", "u1"), T0);
    assertThat(r.unseen(cache(Map.of()), T0.plus(Reservations.MAX_CACHE_LAG))).hasSize(1);
    assertThat(r.unseen(cache(Map.of()), T0.plus(Reservations.MAX_CACHE_LAG).plusMillis(1))).isEmpty();
  }
}
