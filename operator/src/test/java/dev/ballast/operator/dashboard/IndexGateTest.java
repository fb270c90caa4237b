package dev.ballast.operator.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.contracts.access.SelfReviews;
import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which jobs the index shows a person, from what a fake API server answers (the real one: e2e IndexPageTest). */
class IndexGateTest {
  final List<String> asked = new ArrayList<>();
  final AtomicLong now = new AtomicLong();
  final List<TrainingJob> jobs = List.of(job("team-a", "olmoe"), job("team-a", "mixtral"), job("team-b", "dbrx"));

  static TrainingJob job(String namespace, String name) {
    TrainingJob job = TestJobs.job(name, 1, 2, 8);
    job.getMetadata().setNamespace(namespace);
    return job;
  }

  /** A person named {@code user} (null: a refused token) allowed exactly the reviews in {@code allowed}. */
  IndexGate gate(String user, Set<String> allowed) {
    return new IndexGate(new SelfReviews() {
      @Override
      public String user(String token) {
        asked.add("who");
        return user;
      }

      @Override
      public Access may(String token, String verb, String namespace, String name) {
        String key = verb + " " + namespace + "/" + name;
        asked.add(key);
        return new Access(allowed.contains(key), allowed.contains(key) ? "" : "no RBAC rule");
      }
    }, now::get);
  }

  static List<String> names(IndexDecision d) {
    return d.visible().stream().map(j -> j.getMetadata().getNamespace() + "/" + j.getMetadata().getName()).toList();
  }

  @Test
  void noBearerTokenIsAskedToSignInWithoutAskingTheApiServer() {
    IndexGate gate = gate("alice", Set.of("list /"));
    for (String header : new String[] {null, "", "Bearer ", "Basic YWxpY2U6cHc="}) {
      IndexDecision d = gate.decide(header, jobs);
      assertThat(d.httpStatus()).as(header).isEqualTo(401);
      assertThat(d.message()).contains("Authorization: Bearer <token>");
      assertThat(d.visible()).isEmpty();
    }
    assertThat(asked).isEmpty();
  }

  @Test
  void aTokenTheApiServerRefusesIsUnauthenticated() {
    IndexDecision d = gate(null, Set.of("list /")).decide("Bearer stale", jobs);
    assertThat(d.httpStatus()).isEqualTo(401);
    assertThat(d.message()).contains("does not accept this token");
    assertThat(asked).containsExactly("who");
  }

  @Test
  void whoMayListEveryNamespaceSeesEveryJobAfterOneAccessReview() {
    IndexDecision d = gate("admin", Set.of("list /")).decide("Bearer t", jobs);
    assertThat(d.httpStatus()).isEqualTo(200);
    assertThat(d.user()).isEqualTo("admin");
    assertThat(names(d)).containsExactlyInAnyOrder("team-a/olmoe", "team-a/mixtral", "team-b/dbrx");
    assertThat(asked).containsExactly("who", "list /");
  }

  @Test
  void aNamespaceListedOnceThenOnlyTheJobsOfOtherNamespacesOneByOne() {
    IndexDecision d = gate("bob", Set.of("list team-a/", "get team-b/other")).decide("Bearer t", jobs);
    assertThat(names(d)).containsExactlyInAnyOrder("team-a/olmoe", "team-a/mixtral");
    assertThat(asked).containsExactly("who", "list /", "list team-a/", "list team-b/", "get team-b/dbrx");
  }

  @Test
  void aPersonAllowedOneJobSeesOnlyThatOne() {
    IndexDecision d = gate("carol", Set.of("get team-b/dbrx")).decide("Bearer t", jobs);
    assertThat(d.httpStatus()).isEqualTo(200);
    assertThat(names(d)).containsExactly("team-b/dbrx");
  }

  @Test
  void aForbiddenPersonGetsAnEmptyIndexNot403() {
    IndexDecision d = gate("mallory", Set.of()).decide("Bearer t", jobs);
    assertThat(d.httpStatus()).isEqualTo(200);
    assertThat(d.visible()).isEmpty();
  }

  @Test
  void answersAreKeptThirtySecondsPerTokenAndOnlyNewJobsAreAsked() {
    IndexGate gate = gate("carol", Set.of("get team-b/dbrx"));
    gate.decide("Bearer t", jobs);
    int first = asked.size();
    now.addAndGet(29_000_000_000L);
    List<TrainingJob> more = new ArrayList<>(jobs);
    more.add(job("team-b", "new"));
    IndexDecision d = gate.decide("Bearer t", more);
    assertThat(names(d)).containsExactly("team-b/dbrx");
    assertThat(asked.subList(first, asked.size())).containsExactly("get team-b/new");
    now.addAndGet(1_000_000_000L);
    gate.decide("Bearer t", jobs);
    assertThat(asked.subList(first + 1, asked.size())).startsWith("who", "list /");
    gate.decide("Bearer other", jobs);
    assertThat(asked).filteredOn("who"::equals).hasSize(3);
  }

  @Test
  void anUnreachableApiServerIsAnErrorNotAnEmptyIndex() {
    IndexGate gate = new IndexGate(new SelfReviews() {
      @Override
      public String user(String token) {
        throw new IllegalStateException("cannot reach the Kubernetes API server at https://127.0.0.1:6443");
      }

      @Override
      public Access may(String token, String verb, String namespace, String name) {
        throw new AssertionError("not asked");
      }
    }, now::get);
    assertThatThrownBy(() -> gate.decide("Bearer t", jobs)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot reach");
    // nothing kept: the next request asks again
    assertThatThrownBy(() -> gate.decide("Bearer t", jobs)).isInstanceOf(IllegalStateException.class);
  }
}
