package dev.ballast.operator.dashboard;

import dev.ballast.contracts.access.BearerToken;
import dev.ballast.contracts.access.SelfReviews;
import dev.ballast.contracts.access.TokenCache;
import dev.ballast.operator.api.TrainingJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Which jobs a person may see in the index: those they may {@code get}, asked of the API server with their own token.
 * Few reviews per request: one {@code list} cluster-wide (an administrator's answer ends there), then one {@code list}
 * per namespace that has jobs, then one {@code get} per job only in namespaces they may not list. Every answer is
 * kept 30 s per token (its digest, {@link TokenCache}), so a page polling every few seconds asks again only for jobs
 * new since. Thread-safe.
 */
public final class IndexGate {
  /** A token's user (null: the API server refused the token) and its answers so far, "verb namespace/name" → allowed. */
  private record Viewer(String user, Map<String, Boolean> answers) {}

  /** The API server refused the token between two reviews. */
  private static final class Refused extends RuntimeException {
    Refused() {
      super(null, null, false, false);
    }
  }

  private final SelfReviews reviews;
  private final TokenCache<Viewer> viewers;

  public IndexGate(SelfReviews reviews, LongSupplier nanoClock) {
    this.reviews = reviews;
    this.viewers = new TokenCache<>(nanoClock);
  }

  /**
   * The decision for a request with this Authorization header (null: none) over {@code jobs}. Blocks while asking.
   *
   * @throws IllegalStateException when the API server cannot be asked
   */
  public IndexDecision decide(String authorization, List<TrainingJob> jobs) {
    String token = BearerToken.of(authorization);
    if (token == null) return IndexDecision.refused(BearerToken.SIGN_IN);
    Viewer viewer = viewers.get(token, t -> new Viewer(reviews.user(t), new ConcurrentHashMap<>()));
    if (viewer.user() == null) return IndexDecision.refused(BearerToken.NOT_ACCEPTED);
    try {
      return new IndexDecision(200, viewer.user(), "", visible(token, viewer, jobs));
    } catch (Refused e) {
      return IndexDecision.refused(BearerToken.NOT_ACCEPTED);
    }
  }

  private List<TrainingJob> visible(String token, Viewer viewer, List<TrainingJob> jobs) {
    if (may(token, viewer, "list", "", "")) return jobs;
    Map<String, List<TrainingJob>> byNamespace = new TreeMap<>();
    for (TrainingJob job : jobs) {
      byNamespace.computeIfAbsent(job.getMetadata().getNamespace(), ns -> new ArrayList<>()).add(job);
    }
    List<TrainingJob> visible = new ArrayList<>();
    byNamespace.forEach((ns, inNamespace) -> {
      if (may(token, viewer, "list", ns, "")) {
        visible.addAll(inNamespace);
        return;
      }
      for (TrainingJob job : inNamespace) {
        if (may(token, viewer, "get", ns, job.getMetadata().getName())) visible.add(job);
      }
    });
    return visible;
  }

  private boolean may(String token, Viewer viewer, String verb, String namespace, String name) {
    String key = verb + " " + namespace + "/" + name;
    Boolean known = viewer.answers().get(key);
    if (known != null) return known;
    SelfReviews.Access access = reviews.may(token, verb, namespace, name);
    if (access == null) throw new Refused();
    viewer.answers().put(key, access.allowed());
    return access.allowed();
  }
}
