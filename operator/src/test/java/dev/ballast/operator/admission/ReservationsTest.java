package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReservationsTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  static Pod pod(String name, String uid) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid(uid).endMetadata().build();
  }

  @Test
  void aCreatedPodIsHeldUntilReleased() {
    var r = new Reservations();
    r.add(pod("a-worker-0", "u1"), T0);
    r.add(pod("a-worker-1", "u2"), T0);
    assertThat(r.held(T0.plusSeconds(1))).extracting(p -> p.getMetadata().getUid()).containsExactly("u1", "u2");
    // the informer delivered one pod (or admission deleted it): from now on the cache counts it, never twice
    r.release("u1");
    assertThat(r.held(T0.plusSeconds(2))).extracting(p -> p.getMetadata().getUid()).containsExactly("u2");
  }

  @Test
  void aPromiseTheCacheNeverShowsExpiresAfterTheMaximumLag() {
    var r = new Reservations();
    r.add(pod("a-worker-0", "u1"), T0);
    assertThat(r.held(T0.plus(Reservations.MAX_CACHE_LAG))).hasSize(1);
    assertThat(r.held(T0.plus(Reservations.MAX_CACHE_LAG).plusMillis(1))).isEmpty();
  }
}
