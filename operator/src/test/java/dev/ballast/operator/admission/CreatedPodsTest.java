package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.world.UnseenPods;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CreatedPodsTest {
  final Instant at = Instant.parse("2026-12-04T05:00:00Z");

  @Test
  void namesAreUnseenUntilTheCacheShowsThemOnceOrTheBoundPasses() {
    var created = new CreatedPods();
    created.created("uid-a", 3, List.of("a-g3-w0", "a-g3-w1", "a-g3-w2"), at);

    assertThat(created.unseen("uid-a", List.of("a-g3-w0"), at.plusSeconds(1)))
        .isEqualTo(new UnseenPods(3, 3, List.of("a-g3-w1", "a-g3-w2"), at));
    assertThat(created.unseen("uid-a", List.of(), at.plusSeconds(2)).names())
        .as("a name the cache showed once stays forgotten (a later delete is the cache's to report)")
        .containsExactly("a-g3-w1", "a-g3-w2");
    assertThat(created.unseen("uid-other", List.of(), at)).isNull();
    assertThat(created.unseen("uid-a", List.of("a-g3-w1", "a-g3-w2"), at.plusSeconds(3))).isNull();
    assertThat(created.unseen("uid-a", List.of(), at.plusSeconds(4))).as("all shown: nothing is left").isNull();

    created.created("uid-b", 1, List.of("b-g1-w0"), at);
    assertThat(created.unseen("uid-b", List.of(), at.plus(UnseenPods.BOUND))).as("past the bound").isNull();
  }

  @Test
  void aNewAdmissionOfTheJobReplacesItsEarlierWorld() {
    var created = new CreatedPods();
    created.created("uid-a", 1, List.of("a-g1-w0"), at);
    created.created("uid-a", 2, List.of("a-g2-w0", "a-g2-w1"), at.plusSeconds(5));
    assertThat(created.unseen("uid-a", List.of(), at.plusSeconds(6)))
        .isEqualTo(new UnseenPods(2, 2, List.of("a-g2-w0", "a-g2-w1"), at.plusSeconds(5)));
  }
}
