package dev.ballast.e2e.support;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension: one {@link BallastEnvironment} for the whole suite, started on first use and
 * stopped (cluster deleted, unless -Dballast.e2e.keep=true) when the suite ends.
 */
public final class LocalBallast implements BeforeAllCallback, ParameterResolver {
  public static final String CLUSTER = "ballast-e2e";

  @Override
  public void beforeAll(ExtensionContext context) {
    environment(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    return p.getParameter().getType() == BallastEnvironment.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    return environment(e);
  }

  private static BallastEnvironment environment(ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(Holder.class, k -> new Holder(), Holder.class).env;
  }

  /** Closed by JUnit when the root context ends, i.e. after the last test class. */
  static final class Holder implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final BallastEnvironment env;

    Holder() {
      Path root = BallastEnvironment.repositoryRoot();
      try {
        env = new BallastEnvironment(root, CLUSTER, root.resolve("e2e/target/e2e-logs")).start();
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      env.stop(!Boolean.getBoolean("ballast.e2e.keep"));
    }
  }
}
