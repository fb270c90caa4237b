package dev.ballast.operator.dashboard;

import dev.ballast.contracts.access.ApiServerSelfReviews;
import dev.ballast.contracts.access.PageAssets;
import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The operator's index of jobs (docs/dashboard.md, "The index of jobs") on its HTTP port: static assets from the
 * operator's jar under {@code /dashboard/}, and at {@code /dashboard/api/jobs} the jobs of the controller's cache
 * (never listed per request) that {@link IndexGate} lets the person see.
 */
@ApplicationScoped
public class JobIndexHttp {
  private static final Logger LOG = Logger.getLogger(JobIndexHttp.class);
  private final AtomicReference<Supplier<Stream<TrainingJob>>> cache = new AtomicReference<>(Stream::empty);
  private final IndexGate gate;
  private final PageAssets assets = PageAssets.load(JobIndexHttp.class,
      "index.html", "index.js", "session.js", "index.css");

  @Inject
  public JobIndexHttp(KubernetesClient client) {
    this(new IndexGate(reviewsOf(client.getConfiguration()), System::nanoTime));
  }

  JobIndexHttp(IndexGate gate) {
    this.gate = gate;
  }

  /** Reads jobs from {@code jobs} from now on (the controller's primary cache). */
  public void observe(Supplier<Stream<TrainingJob>> jobs) {
    cache.set(jobs);
  }

  void routes(@Observes Router router) {
    // first: Vert.x matches "/dashboard/" for a route of "/dashboard" too
    router.get("/dashboard/").handler(rc -> asset(rc, "index.html"));
    router.get("/dashboard/api/jobs").blockingHandler(this::jobs, false);
    router.get("/dashboard/:asset").handler(rc -> asset(rc, rc.pathParam("asset")));
  }

  private void jobs(RoutingContext rc) {
    IndexDecision d;
    try {
      d = gate.decide(rc.request().getHeader("Authorization"), cache.get().get().toList());
    } catch (IllegalStateException e) {
      LOG.warnf("cannot check a dashboard viewer: %s", e.getMessage());
      send(rc, 503, error(e.getMessage()));
      return;
    }
    if (d.httpStatus() != 200) {
      rc.response().putHeader("WWW-Authenticate", "Bearer realm=\"ballast-dashboard\"");
      send(rc, d.httpStatus(), error(d.message()));
      return;
    }
    rc.response().putHeader("Ballast-Viewer", d.user());
    send(rc, 200, JobIndexJson.of(d.visible()));
  }

  private void asset(RoutingContext rc, String name) {
    PageAssets.Asset asset = assets.get(name);
    if (asset == null) {
      rc.response().setStatusCode(404).end();
      return;
    }
    HttpServerResponse response = rc.response().putHeader("Content-Type", asset.contentType());
    PageAssets.HEADERS.forEach(response::putHeader);
    response.end(Buffer.buffer(asset.body()));
  }

  private static ApiServerSelfReviews reviewsOf(Config config) {
    return new ApiServerSelfReviews(URI.create(config.getMasterUrl()),
        ApiServerSelfReviews.trusting(config.getCaCertData(), config.getCaCertFile()));
  }

  private static String error(String message) {
    return new JsonWriter().beginObject().field("error", message).endObject().toString();
  }

  private static void send(RoutingContext rc, int status, String body) {
    rc.response().setStatusCode(status).putHeader("Content-Type", "application/json")
        .putHeader("Cache-Control", "no-store").end(Buffer.buffer(body));
  }
}
