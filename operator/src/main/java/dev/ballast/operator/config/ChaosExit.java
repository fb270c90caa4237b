package dev.ballast.operator.config;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test hook for the e2e chaos test, off unless {@code BALLAST_CHAOS_EXIT_AFTER_WRITES} is set: the
 * process halts (no shutdown hooks, as a SIGKILL would leave it) just before its (N+1)th mutating API
 * request, so a test chooses precisely after which write the operator dies. Leader-election Lease
 * renewals are not counted: they happen on a timer, not at a point of the operator's logic.
 */
final class ChaosExit implements Interceptor {
  /** The exit status, to tell a chaos exit from a crash. */
  static final int STATUS = 86;
  private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");

  private final int writes;
  private final Runnable halt;
  private final AtomicInteger seen = new AtomicInteger();

  ChaosExit(int writes) {
    this(writes, () -> Runtime.getRuntime().halt(STATUS));
  }

  ChaosExit(int writes, Runnable halt) {
    this.writes = writes;
    this.halt = halt;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (!MUTATING.contains(request.method()) || request.uri().getPath().contains("/leases/")
        || request.uri().getPath().endsWith("/leases")) {
      return;
    }
    int n = seen.incrementAndGet();
    if (n > writes) {
      System.err.printf("chaos: halting before mutating API request %d: %s %s%n", n, request.method(),
          request.uri().getPath());
      System.err.flush();
      halt.run();
    }
  }
}
