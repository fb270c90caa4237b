package dev.ballast.operator.metrics;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Gauges read from the operator's TrainingJob informer cache (never counted by hand): jobs per phase and GPUs
 * promised/running fleet-wide, read at scrape time; jobs without a running world by reason, and per-job GPUs,
 * restarts and world generation, whose series are rebuilt from the cache every {@link #REFRESH_SECONDS}s (not per
 * reconcile: that would cost O(jobs) each), so a deleted job's series go away within that time. Observes only.
 * Names and bounds: docs/metrics.md.
 */
public final class JobGauges {
  private static final Logger LOG = Logger.getLogger(JobGauges.class);
  static final long REFRESH_SECONDS = 15;

  private final AtomicReference<Supplier<Stream<TrainingJob>>> cache = new AtomicReference<>(Stream::empty);
  private final MultiGauge gpus;
  private final MultiGauge restarts;
  private final MultiGauge generations;
  private final MultiGauge notAdmitted;
  private ScheduledExecutorService refresher;

  public JobGauges(MeterRegistry registry) {
    for (Phase phase : Phase.values()) {
      Gauge.builder("ballast.jobs", this, g -> JobCensus.byPhase(g.jobs()).get(phase))
          .description("TrainingJobs by status.phase, from the operator's cache")
          .tag("phase", phase.name()).register(registry);
    }
    for (String state : List.of("promised", "running")) {
      ToIntFunction<JobCensus.JobRow> value = state.equals("promised") ? JobCensus.JobRow::gpusPromised
          : JobCensus.JobRow::gpusRunning;
      Gauge.builder("ballast.gpus", this, g -> g.jobs().stream().map(JobCensus::row).mapToInt(value).sum())
          .description("GPUs of admitted worlds (promised) and of their running workers (running), all jobs")
          .tag("state", state).register(registry);
    }
    gpus = MultiGauge.builder("ballast.job.gpus")
        .description("GPUs of the job's admitted world (promised) and of its running workers (running)")
        .register(registry);
    restarts = MultiGauge.builder("ballast.job.restarts")
        .description("World restarts after failures (status.restarts)").register(registry);
    generations = MultiGauge.builder("ballast.job.world.generation")
        .description("Generation of the job's current world (status.world.generation)").register(registry);
    notAdmitted = MultiGauge.builder("ballast.jobs.not.admitted")
        .description("TrainingJobs without a running world, by the reason of their Admitted=False condition")
        .register(registry);
  }

  /**
   * Reads jobs from {@code jobs} from now on (the controller's primary cache); the first call builds the per-job
   * series and starts their periodic refresh.
   */
  public synchronized void observe(Supplier<Stream<TrainingJob>> jobs) {
    cache.set(jobs);
    if (refresher == null) {
      refresh();
      refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ballast-job-gauges");
        t.setDaemon(true);
        return t;
      });
      refresher.scheduleWithFixedDelay(this::refreshLogged, REFRESH_SECONDS, REFRESH_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** Replaces the per-job series with one set per job now in the cache. */
  public void refresh() {
    List<JobCensus.JobRow> rows = jobs().stream().map(JobCensus::row).toList();
    gpus.register(rows.stream().flatMap(r -> Stream.of(
        MultiGauge.Row.of(tags(r).and("state", "promised"), r.gpusPromised()),
        MultiGauge.Row.of(tags(r).and("state", "running"), r.gpusRunning()))).toList(), true);
    restarts.register(rows(rows, JobCensus.JobRow::restarts), true);
    generations.register(rows(rows, JobCensus.JobRow::worldGeneration), true);
    notAdmitted.register(JobCensus.notAdmittedByReason(jobs()).entrySet().stream()
        .<MultiGauge.Row<?>>map(e -> MultiGauge.Row.of(Tags.of("reason", e.getKey()), e.getValue())).toList(), true);
  }

  /** A throw would end the schedule: log it and try again next time. */
  private void refreshLogged() {
    try {
      refresh();
    } catch (RuntimeException e) {
      LOG.warn("could not refresh the per-job metrics", e);
    }
  }

  private List<TrainingJob> jobs() {
    return cache.get().get().toList();
  }

  private static List<MultiGauge.Row<?>> rows(List<JobCensus.JobRow> rows, Function<JobCensus.JobRow, Number> value) {
    return rows.stream().<MultiGauge.Row<?>>map(r -> MultiGauge.Row.of(tags(r), value.apply(r))).toList();
  }

  private static Tags tags(JobCensus.JobRow r) {
    return Tags.of("namespace", r.namespace(), "job", r.job());
  }
}
