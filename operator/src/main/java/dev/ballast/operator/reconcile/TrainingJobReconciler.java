package dev.ballast.operator.reconcile;

import dev.ballast.operator.admission.AdmissionQueue;
import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.admission.LimitRangeDefaults;
import dev.ballast.operator.admission.NamespacePolicy;
import dev.ballast.operator.admission.NamespaceQuota;
import dev.ballast.operator.admission.Reclaim;
import dev.ballast.operator.api.BalancerSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.config.OperatorConfig;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.BalancerNetworkPolicy;
import dev.ballast.operator.desired.BalancerResources;
import dev.ballast.operator.desired.HeadlessService;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.Names;
import dev.ballast.operator.desired.SidecarSecret;
import dev.ballast.operator.desired.WorldConfigMap;
import dev.ballast.operator.events.JobEvents;
import dev.ballast.operator.metrics.AdmissionWait;
import dev.ballast.operator.dashboard.JobIndexHttp;
import dev.ballast.operator.metrics.JobGauges;
import dev.ballast.operator.metrics.ReconcileMetrics;
import dev.ballast.operator.metrics.ReconcileMetrics.Replaced;
import dev.ballast.operator.metrics.ReconcileStep;
import dev.ballast.operator.metrics.ReconcileStepFailed;
import dev.ballast.operator.status.BalancerHealth;
import dev.ballast.operator.status.BalancerPods;
import dev.ballast.operator.status.Conditions;
import dev.ballast.operator.status.Stragglers;
import dev.ballast.operator.status.StatusAggregator;
import dev.ballast.operator.status.StatusChange;
import dev.ballast.operator.validate.SpecValidator;
import dev.ballast.operator.observe.ExistingJobs;
import dev.ballast.operator.observe.NodeStates;
import dev.ballast.operator.observe.Priorities;
import dev.ballast.operator.world.ClusterView;
import dev.ballast.operator.world.Decision;
import dev.ballast.operator.world.NodeState;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.WorkerPodView;
import dev.ballast.operator.world.World;
import dev.ballast.operator.world.WorldLifecycle;
import dev.ballast.operator.world.WorldStep;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.Cache;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Reconciles one TrainingJob: observe (pods, nodes, other jobs and children from informer caches) → validate →
 * decide the world's next step ({@link WorldLifecycle}, pure) → act (stop pods, admission, gates, children) →
 * aggregate status ({@link StatusAggregator}, pure) and write it only if it changed. A transition to a new
 * world is written to status before any pod of the old one is stopped, so an operator restart resumes it.
 * Its permissions are the Helm chart's (charts/ballast/templates/rbac-operator.yaml; docs/security.md says what
 * uses each verb).
 */
@ControllerConfiguration(name = TrainingJobReconciler.NAME)
public class TrainingJobReconciler implements Reconciler<TrainingJob> {
  public static final String NAME = "ballast-operator";
  private static final Logger LOG = Logger.getLogger(TrainingJobReconciler.class);
  private static final String CHILD_SELECTOR = Labels.JOB;
  private static final String NODES = "node";
  private static final String JOBS = "jobs";
  private static final String PRIORITY_CLASSES = "priorityclasses";
  private static final String QUOTAS = "resourcequotas";
  private static final String LIMIT_RANGES = "limitranges";

  private final KubernetesClient client;
  private final OperatorSettings settings;
  /** The PriorityClass annotations logged as unreadable, each once. */
  private final Set<String> priorityClassProblems = ConcurrentHashMap.newKeySet();
  private final int pendingRetrySeconds;
  private final GangAdmission admission;
  private final JobEvents events;
  private final ChildApplier children;
  private final BalancerTlsKeeper tls;
  /** Reconciles run, the denominator of API requests per reconcile (docs/BENCHMARKS.md, "Scale"). */
  private final Counter reconciles;
  private final ReconcileMetrics steps;
  private final JobGauges jobGauges;
  /** The index page's source of jobs; null where no HTTP server runs (unit tests). */
  private final JobIndexHttp jobIndex;

  @Inject
  public TrainingJobReconciler(KubernetesClient client, OperatorConfig config, MeterRegistry metrics,
      JobIndexHttp jobIndex) {
    this(client, config.settings(), config.pendingRetrySeconds(), metrics, jobIndex);
    admission.startCache(); // the operator starting, not the first job's admission, pays for listing the cluster
  }

  public TrainingJobReconciler(KubernetesClient client, OperatorSettings settings, int pendingRetrySeconds) {
    this(client, settings, pendingRetrySeconds, new SimpleMeterRegistry(), null);
  }

  private TrainingJobReconciler(KubernetesClient client, OperatorSettings settings, int pendingRetrySeconds,
      MeterRegistry metrics, JobIndexHttp jobIndex) {
    this.client = client;
    this.jobIndex = jobIndex;
    this.settings = settings;
    this.pendingRetrySeconds = pendingRetrySeconds;
    this.reconciles = metrics.counter("ballast.reconciles");
    this.steps = new ReconcileMetrics(metrics);
    this.jobGauges = new JobGauges(metrics);
    this.admission = new GangAdmission(client, settings, metrics);
    this.events = new JobEvents(client);
    this.children = new ChildApplier(client);
    this.tls = new BalancerTlsKeeper(client, children, events);
  }

  @Override
  public List<EventSource<?, TrainingJob>> prepareEventSources(EventSourceContext<TrainingJob> context) {
    List<EventSource<?, TrainingJob>> sources = new ArrayList<>();
    // no Secret informer: the operator reads only the Secrets it knows the name of (docs/security.md)
    List<Class<? extends HasMetadata>> childTypes = new ArrayList<>(List.of(Pod.class, Service.class, ConfigMap.class,
        Deployment.class, ServiceAccount.class, RoleBinding.class));
    // watched only when created: with them off, the chart grants no NetworkPolicy permissions
    if (settings.networkPolicies().enabled()) childTypes.add(NetworkPolicy.class);
    for (Class<? extends HasMetadata> type : childTypes) {
      sources.add(informer(type, context));
    }
    sources.add(nodeInformer(context));
    sources.add(jobInformer(context));
    sources.add(readOnlyInformer(PriorityClass.class, PRIORITY_CLASSES, true, context));
    sources.add(quotaInformer(context));
    sources.add(readOnlyInformer(LimitRange.class, LIMIT_RANGES, false, context));
    return sources;
  }

  private static <R extends HasMetadata> InformerEventSource<R, TrainingJob> informer(Class<R> type,
      EventSourceContext<TrainingJob> context) {
    var config = InformerEventSourceConfiguration.from(type, TrainingJob.class)
        .withName(informerName(type))
        .withLabelSelector(CHILD_SELECTOR)
        .build();
    return new InformerEventSource<>(config, context);
  }

  private static String informerName(Class<? extends HasMetadata> type) {
    return type.getSimpleName().toLowerCase();
  }

  /**
   * Nodes, cluster-wide: a node lost, added, cordoned or tainted may change any job's world (a lost node
   * restarts the worlds on it, a new one lets jobs grow or Pending jobs fit), so a change that matters to
   * placement reconciles every job. Heartbeat-only updates are filtered out.
   */
  private static InformerEventSource<Node, TrainingJob> nodeInformer(EventSourceContext<TrainingJob> context) {
    var config = InformerEventSourceConfiguration.from(Node.class, TrainingJob.class)
        .withName(NODES)
        .withWatchAllNamespaces()
        .withSecondaryToPrimaryMapper(node -> context.getPrimaryCache().list()
            .map(ResourceID::fromResource).collect(Collectors.toSet()))
        .withOnUpdateFilter((updated, old) -> NodeChange.matters(old, updated))
        .build();
    return new InformerEventSource<>(config, context);
  }

  /** Jobs as other jobs' reconciles see them: a change one job must hear of at once wakes it ({@link JobChange}). */
  private static InformerEventSource<TrainingJob, TrainingJob> jobInformer(EventSourceContext<TrainingJob> context) {
    var config = InformerEventSourceConfiguration.from(TrainingJob.class, TrainingJob.class)
        .withName(JOBS)
        .withSecondaryToPrimaryMapper(changed -> Stream.concat(
                JobChange.concerned(changed, context.getPrimaryCache().list()),
                JobChange.pauseChanged(changed) ? Stream.of(changed) : Stream.empty())
            .map(ResourceID::fromResource).collect(Collectors.toSet()))
        .withOnAddFilter(WorldLifecycle::waitingForRoom)
        .withOnUpdateFilter((updated, old) -> JobChange.matters(old, updated))
        .withOnDeleteFilter((deleted, unknownState) -> JobChange.mattersWhenDeleted(deleted))
        .build();
    return new InformerEventSource<>(config, context);
  }

  /**
   * An informer whose changes reconcile no job: its cache is only read (PriorityClasses when a reclaim or preemption
   * is decided, cluster-wide; LimitRanges when a worker is counted towards a quota, {@link LimitRangeDefaults}, in the
   * namespaces the operator watches).
   */
  private static <R extends HasMetadata> InformerEventSource<R, TrainingJob> readOnlyInformer(Class<R> type,
      String name, boolean clusterWide, EventSourceContext<TrainingJob> context) {
    var config = InformerEventSourceConfiguration.from(type, TrainingJob.class)
        .withName(name)
        .withSecondaryToPrimaryMapper(changed -> Set.of());
    if (clusterWide) config = config.withWatchAllNamespaces();
    return new InformerEventSource<>(config.build(), context);
  }

  /**
   * ResourceQuotas, in the namespaces the operator watches: read when a world is admitted or a job may grow
   * ({@link NamespaceQuota}); a change (the quota raised, or its usage fallen as the quota controller counts it)
   * wakes the jobs of its namespace that wait for their quota.
   */
  private static InformerEventSource<ResourceQuota, TrainingJob> quotaInformer(
      EventSourceContext<TrainingJob> context) {
    var config = InformerEventSourceConfiguration.from(ResourceQuota.class, TrainingJob.class)
        .withName(QUOTAS)
        .withSecondaryToPrimaryMapper(quota -> context.getPrimaryCache()
            .list(j -> quota.getMetadata().getNamespace().equals(j.getMetadata().getNamespace())
                && j.getStatus() != null && NamespaceQuota.waitsForQuota(
                    Conditions.falseReason(j.getStatus().conditions, Conditions.ADMITTED)))
            .map(ResourceID::fromResource).collect(Collectors.toSet()))
        .build();
    return new InformerEventSource<>(config, context);
  }

  /** The ResourceQuotas and LimitRanges of the job's namespace, read now. */
  @SuppressWarnings("unchecked")
  private static NamespacePolicy namespacePolicy(TrainingJob job, Context<TrainingJob> ctx) {
    String namespace = job.getMetadata().getNamespace();
    var quotas = (InformerEventSource<ResourceQuota, TrainingJob>) ctx.eventSourceRetriever()
        .getEventSourceFor(ResourceQuota.class, QUOTAS);
    var ranges = (InformerEventSource<LimitRange, TrainingJob>) ctx.eventSourceRetriever()
        .getEventSourceFor(LimitRange.class, LIMIT_RANGES);
    return new NamespacePolicy(quotas.list(namespace, q -> true).toList(), ranges.list(namespace, r -> true).toList());
  }

  /** The classes read now; a class's annotation that cannot be read is logged once. */
  @SuppressWarnings("unchecked")
  private Priorities priorities(Context<TrainingJob> ctx) {
    var cache = (Cache<PriorityClass>) ctx.eventSourceRetriever().getEventSourceFor(PriorityClass.class,
        PRIORITY_CLASSES);
    Priorities priorities = Priorities.of(cache.list().toList());
    for (String problem : priorities.problems()) {
      if (priorityClassProblems.add(problem)) LOG.warn(problem);
    }
    return priorities;
  }

  @Override
  public UpdateControl<TrainingJob> reconcile(TrainingJob job, Context<TrainingJob> ctx) {
    reconciles.increment();
    jobGauges.observe(() -> ctx.getPrimaryCache().list());
    if (jobIndex != null) jobIndex.observe(() -> ctx.getPrimaryCache().list());
    Instant now = Instant.now();
    boolean wasPaused = WorldLifecycle.pauseShown(job);
    TrainingJob newest = newest(job, ctx);
    if (WorldLifecycle.paused(newest)) {
      TrainingJobStatus next = StatusAggregator.paused(newest, now);
      if (!wasPaused) {
        events.normal(job, Conditions.RECONCILIATION_PAUSED, "Reconciliation paused (annotation "
            + Labels.PAUSE_RECONCILIATION + "): the operator changes nothing of this job until it is removed");
      }
      var control = StatusChange.changed(newest, next) ? UpdateControl.patchStatus(statusPatch(newest, next))
          : UpdateControl.<TrainingJob>noUpdate();
      return control.rescheduleAfter(PAUSE_RECHECK);
    }
    if (wasPaused) events.normal(job, "ReconciliationResumed", "Reconciliation resumed");
    List<String> problems = steps.time(ReconcileStep.VALIDATE, () -> SpecValidator.validate(job.getSpec()));
    if (!problems.isEmpty()) {
      return steps.time(ReconcileStep.STATUS, () -> {
        TrainingJobStatus next = StatusAggregator.invalid(job, problems, now);
        if (StatusChange.changed(job, next)) {
          events.warning(job, StatusAggregator.INVALID_SPEC, String.join("; ", problems));
        }
        return writeStatus(job, next, null, now);
      });
    }

    List<Pod> workers = steps.time(ReconcileStep.OBSERVE, () -> ctx.getSecondaryResourcesAsStream(Pod.class)
        .filter(p -> Labels.ROLE_WORKER.equals(p.getMetadata().getLabels().get(Labels.ROLE)))
        .toList());
    ClusterView cluster = steps.time(ReconcileStep.OBSERVE, () -> observeCluster(job, ctx, workers, now));
    Decision decision = steps.time(ReconcileStep.WORLD, () -> {
      Decision d = WorldLifecycle.decide(job, workers, cluster, now);
      stop(job, d);
      forceDelete(job, cluster.stranded(balancerPods(job, ctx)));
      return d;
    });
    List<ChildConflict> conflicts = new ArrayList<>();
    // before any pod may start: the workers read both Secrets (token, CA) in their environment
    Optional<String> tlsSerial = steps.time(ReconcileStep.DESIRED, () -> wantsBalancer(job, decision.step())
        ? secrets(job, ctx, now, conflicts) : Optional.<String>empty());
    GangAdmission.Result admitted = steps.time(ReconcileStep.ADMISSION, () -> act(job, decision.step(), ctx, now));

    TrainingJobStatus next = steps.time(ReconcileStep.STATUS, () -> {
      TrainingJobStatus aggregated = StatusAggregator.aggregate(job, decision, admitted, now);
      StatusAggregator.balancerPods(job, aggregated, () -> BalancerPods.problem(
          ChildApplier.find(ctx, Deployment.class, Names.balancer(job.getMetadata().getName())).orElse(null),
          balancerPods(job, ctx)), now);
      return aggregated;
    });
    steps.time(ReconcileStep.DESIRED, () -> {
      applyChildren(job, ctx, decision.step(), next, tlsSerial, conflicts);
      reportConflicts(job, conflicts);
    });
    return steps.time(ReconcileStep.STATUS, () -> {
      StatusAggregator.childConflicts(job, next, conflicts.stream().map(ChildConflict::message).toList(), now);
      Duration requeue = requeueAfter(job, decision, next, now);
      if (!conflicts.isEmpty()) {
        // nothing of the job's changes when the holder goes away: look again as for a job waiting for room
        Duration retry = Duration.ofSeconds(pendingRetrySeconds);
        requeue = requeue == null || requeue.compareTo(retry) > 0 ? retry : requeue;
      }
      AdmissionWait.of(job, decision.step(), now).ifPresent(steps::admissionWaited);
      if (decision.step() instanceof WorldStep.Transition t) {
        steps.worldReplaced(t.countsAsRestart() ? Replaced.RESTART
            : WorldLifecycle.PREEMPTED.equals(t.transition().reason) ? Replaced.PREEMPTION : Replaced.RESIZE);
      }
      stragglerEvents(job, next);
      warnWhenTurned(job, next, Conditions.READY, StatusAggregator.CONTAINER_WAITING);
      warnWhenTurned(job, next, Conditions.BALANCING, StatusAggregator.BALANCER_NOT_RUNNING);
      return writeStatus(job, next, requeue, now);
    });
  }

  /** A Warning event once, when {@code next}'s {@code type} condition turns False with {@code reason}. */
  private void warnWhenTurned(TrainingJob job, TrainingJobStatus next, String type, String reason) {
    List<Condition> before = job.getStatus() == null ? List.of() : job.getStatus().conditions;
    StatusAggregator.turnedTo(before, next.conditions, type, reason)
        .ifPresent(message -> events.warning(job, reason, message));
  }

  /**
   * A reconcile that threw: Reconciled turns False with the failed step and error, and a ReconcileError event says
   * the same once per distinct message; the framework retries with its backoff.
   */
  @Override
  public ErrorStatusUpdateControl<TrainingJob> updateErrorStatus(TrainingJob job, Context<TrainingJob> ctx,
      Exception e) {
    String message = e instanceof ReconcileStepFailed ? e.getMessage() : "reconcile failed: " + e;
    boolean known = job.getStatus() != null && job.getStatus().conditions.stream()
        .anyMatch(c -> Conditions.RECONCILED.equals(c.getType()) && message.equals(c.getMessage()));
    if (!known) events.warning(job, StatusAggregator.RECONCILE_ERROR, message);
    TrainingJobStatus next = StatusAggregator.reconcileFailed(job, message, Instant.now());
    return StatusChange.changed(job, next) ? ErrorStatusUpdateControl.patchStatus(statusPatch(job, next))
        : ErrorStatusUpdateControl.noStatusUpdate();
  }

  /**
   * Nodes from the node informer, other jobs from the primary cache, the room to resize only when it matters, and
   * the pods admission created that the pod cache ({@code workers}) does not show yet.
   */
  private ClusterView observeCluster(TrainingJob job, Context<TrainingJob> ctx, List<Pod> workers, Instant now) {
    @SuppressWarnings("unchecked")
    var nodeCache = (Cache<Node>) ctx.eventSourceRetriever().getEventSourceFor(Node.class, NODES);
    var nodes = NodeStates.of(nodeCache.list().toList(), job.getSpec().topology);
    List<TrainingJob> jobs = allJobs(ctx);
    ExistingJobs reconciled = ExistingJobs.of(ctx.getPrimaryCache().list());
    List<String> waiting = WorldLifecycle.jobsToYieldTo(job, jobs, nodes.values().stream().map(NodeState::node).toList());
    Integer room = WorldLifecycle.wantsRoom(job, waiting, now)
        ? admission.placeableWorkers(job, reconciled, namespacePolicy(job, ctx)) : null;
    Reclaim.Yield giveWay = null;
    Instant protectedUntil = null;
    if ((!waiting.isEmpty() || jobs.stream().anyMatch(WorldLifecycle::waitingForQuota))
        && WorldLifecycle.mayGiveWay(job)) {
      Priorities priorities = priorities(ctx);
      giveWay = admission.giveWay(job, jobs, reconciled, j -> namespacePolicy(j, ctx), priorities, now).orElse(null);
      protectedUntil = Reclaim.protectedUntil(job, priorities, now).orElse(null);
    }
    return ClusterView.of(nodes, room, waiting, admission.unseenPods(job, workers, now), giveWay, protectedUntil, job,
        jobs, now);
  }

  /**
   * The newer of the job as the primary cache and as the job informer hold it: an annotation edit changes no
   * generation, so the primary informer does not reconcile on it, and when the job informer's event wakes this
   * reconcile the primary cache may not hold the edit yet.
   */
  @SuppressWarnings("unchecked")
  private static TrainingJob newest(TrainingJob job, Context<TrainingJob> ctx) {
    var jobCache = (Cache<TrainingJob>) ctx.eventSourceRetriever().getEventSourceFor(TrainingJob.class, JOBS);
    return jobCache.get(ResourceID.fromResource(job)).filter(other -> version(other) > version(job)).orElse(job);
  }

  private static long version(TrainingJob job) {
    try {
      return Long.parseLong(job.getMetadata().getResourceVersion());
    } catch (NumberFormatException e) {
      return -1; // not etcd's revision: keep the primary cache's copy
    }
  }

  /**
   * Every job, from the job informer, not the primary cache: a reconcile it woke sees the change that woke it (the
   * primary informer, a separate watch, may deliver that change a moment later).
   */
  @SuppressWarnings("unchecked")
  private static List<TrainingJob> allJobs(Context<TrainingJob> ctx) {
    var jobCache = (Cache<TrainingJob>) ctx.eventSourceRetriever().getEventSourceFor(TrainingJob.class, JOBS);
    return jobCache.list().toList();
  }

  /** Deletes what the decision stops: gracefully (the checkpoint grace for voluntary stops), or forced where allowed. */
  private void stop(TrainingJob job, Decision decision) {
    List<Pod> running = decision.stop().stream().filter(p -> !new WorkerPodView(p).finished()).toList();
    if (!running.isEmpty()) {
      events.normal(job, "StoppingWorkers", "Stopping " + running.size() + " workers ("
          + running.stream().map(p -> p.getMetadata().getName()).collect(Collectors.joining(", ")) + ")"
          + (decision.stopGraceSeconds() == null ? "" : " with " + decision.stopGraceSeconds()
              + "s to checkpoint (SIGTERM, then SIGKILL)"));
    }
    for (Pod pod : decision.stop()) {
      var resource = client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName());
      if (decision.stopGraceSeconds() == null) {
        resource.delete();
      } else {
        resource.withGracePeriod(decision.stopGraceSeconds()).delete();
      }
    }
    forceDelete(job, decision.forceDelete());
  }

  /** Deletes pods with grace 0: only pods whose node is deleted or out of service, which can no longer run. */
  private void forceDelete(TrainingJob job, List<Pod> pods) {
    for (Pod pod : pods) {
      events.warning(job, "ForceDeleted", "Force-deleting " + pod.getMetadata().getName() + ": its node "
          + new WorkerPodView(pod).node() + " is deleted or tainted " + NodeState.OUT_OF_SERVICE_TAINT);
      client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
          .withGracePeriod(0).delete();
    }
  }

  /**
   * The job's balancer pods, from the pod informer's cache: owned by the balancer's ReplicaSet, not by the job, so
   * they are not among the job's secondary resources.
   */
  @SuppressWarnings("unchecked")
  private static List<Pod> balancerPods(TrainingJob job, Context<TrainingJob> ctx) {
    var pods = (InformerEventSource<Pod, TrainingJob>) ctx.eventSourceRetriever()
        .getEventSourceFor(Pod.class, informerName(Pod.class));
    var selector = Labels.forRole(job.getMetadata().getName(), Labels.ROLE_BALANCER);
    return pods.list(job.getMetadata().getNamespace(),
        p -> p.getMetadata().getLabels() != null && p.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .toList();
  }

  /** Carries out the decided step. Returns the admission outcome for {@link WorldStep.Place}. */
  private GangAdmission.Result act(TrainingJob job, WorldStep step, Context<TrainingJob> ctx, Instant now) {
    if (step instanceof WorldStep.Place place) {
      ExistingJobs reconciled = ExistingJobs.of(ctx.getPrimaryCache().list());
      List<TrainingJob> jobs = allJobs(ctx);
      Priorities priorities = priorities(ctx);
      var ahead = AdmissionQueue.ahead(job, jobs, priorities, now,
          j -> admission.quotaWorkers(j, namespacePolicy(j, ctx)));
      GangAdmission.Result result = GangAdmission.withHeldBack(
          admission.admit(job, place.generation(), place.maxWorkers(), reconciled, ahead, namespacePolicy(job, ctx)),
          () -> admission.heldBack(job, jobs, reconciled, j -> namespacePolicy(j, ctx), priorities, now));
      if (result instanceof GangAdmission.Result.Admitted a) {
        events.normal(job, "Placed", "Placed " + a.world().size() + " workers for world " + a.world().generation()
            + ": " + describe(a.world()));
      } else if (result instanceof GangAdmission.Result.Unschedulable u && !sameAdmissionMessage(job, u.message())) {
        events.warning(job, u.reason(), "Cannot admit the job yet: " + u.message());
      } else if (result instanceof GangAdmission.Result.Refused r
          && !sameAdmissionMessage(job, StatusAggregator.refusedMessage(r))) {
        events.warning(job, StatusAggregator.PODS_REFUSED, StatusAggregator.refusedMessage(r));
      }
      return result;
    }
    if (step instanceof WorldStep.Release r) {
      String releasedAt = now.toString();
      for (int index : r.gated()) {
        client.pods().inNamespace(job.getMetadata().getNamespace())
            .withName(Names.workerPod(job.getMetadata().getName(), r.world().generation(), index))
            .edit(p -> {
              p.getSpec().setSchedulingGates(p.getSpec().getSchedulingGates().stream()
                  .filter(g -> !Labels.ADMISSION_GATE.equals(g.getName())).toList());
              p.getMetadata().getAnnotations().put(Labels.RELEASED_AT, releasedAt);
              return p;
            });
      }
      events.normal(job, "Released", "Released all " + r.world().size() + " workers of world "
          + r.world().generation() + " to the scheduler together");
    } else if (step instanceof WorldStep.AwaitPods ap) {
      LOG.infof("%s/%s: the pod cache shows %d of the %d pods of world %d admission created; waiting for the rest "
          + "until %s", job.getMetadata().getNamespace(), job.getMetadata().getName(), ap.shown(), ap.size(),
          ap.generation(), ap.deadline());
    } else if (step instanceof WorldStep.RollBack rb) {
      events.warning(job, rb.reason(), "Rolled back world: " + rb.message());
    } else if (step instanceof WorldStep.Commit c) {
      events.normal(job, "WorldCommitted", "World " + c.world().generation() + " is admitted: all "
          + c.world().size() + " workers are bound (" + describe(c.world()) + ")");
    } else if (step instanceof WorldStep.Transition t) {
      var tr = t.transition();
      if (t.countsAsRestart()) {
        events.warning(job, tr.reason, "Restarting the world (restart " + (restartsOf(job) + 1) + " of at most "
            + job.getSpec().restartLimit + ", next world not before " + tr.notBefore + "): " + tr.message);
      } else {
        events.normal(job, tr.reason, (WorldLifecycle.PREEMPTED.equals(tr.reason) ? "Preempted: " : "Resizing: ")
            + tr.message);
      }
    } else if (step instanceof WorldStep.Finish f) {
      if (f.succeeded()) {
        events.normal(job, f.reason(), "Job succeeded: " + f.message());
      } else {
        events.warning(job, f.reason(), "Job failed: " + f.message());
      }
    } else if (step instanceof WorldStep.Suspend) {
      if (job.getStatus() == null || job.getStatus().phase != TrainingJobStatus.Phase.Suspended) {
        events.normal(job, "Suspended", "Suspended: deleting the workers");
      }
    } else if (step instanceof WorldStep.Ended) {
      expireIfDue(job, now);
    }
    return null;
  }

  private static boolean wantsBalancer(TrainingJob job, WorldStep step) {
    boolean ended = step instanceof WorldStep.Ended || step instanceof WorldStep.Finish;
    return !ended && job.getSpec().balancer.mode != BalancerSpec.Mode.OFF;
  }

  /**
   * The sidecar token Secret (created once, never updated: a new token would lock out connected sidecars) and the
   * TLS Secrets. Returns the serial of the balancer's certificate, or empty when another object holds a name.
   */
  private Optional<String> secrets(TrainingJob job, Context<TrainingJob> ctx, Instant now, List<ChildConflict> conflicts) {
    // the Secret comes before the Deployment that reads it, so an existing Deployment means it exists
    if (ChildApplier.find(ctx, Deployment.class, Names.balancer(job.getMetadata().getName())).isEmpty()) {
      children.createUnread(job, SidecarSecret.build(job));
    }
    return tls.ensure(job, now, conflicts);
  }

  /**
   * @param next the status this reconcile writes: the world document is rendered from its world, and its
   *     phase says whether the balancer runs
   * @param tlsSerial the balancer certificate's serial, when the balancer runs and its Secrets are ours
   * @param conflicts where the children whose names other objects hold are added
   */
  private void applyChildren(TrainingJob job, Context<TrainingJob> ctx, WorldStep step, TrainingJobStatus next,
      Optional<String> tlsSerial, List<ChildConflict> conflicts) {
    children.apply(job, ctx, HeadlessService.build(job, settings.masterPort())).ifPresent(conflicts::add);
    children.apply(job, ctx, WorldConfigMap.build(job, next.world)).ifPresent(conflicts::add);
    if (wantsBalancer(job, step)) {
      if (settings.networkPolicies().enabled()) {
        children.apply(job, ctx, BalancerNetworkPolicy.build(job, settings)).ifPresent(conflicts::add);
      }
      if (tlsSerial.isPresent()) {
        for (HasMetadata resource : BalancerResources.build(job, settings, next.phase, tlsSerial.get())) {
          children.apply(job, ctx, resource).ifPresent(conflicts::add);
        }
      }
    } else {
      ChildApplier.find(ctx, Deployment.class, Names.balancer(job.getMetadata().getName()))
          .ifPresent(d -> client.resource(d).delete());
    }
  }

  private void reportConflicts(TrainingJob job, List<ChildConflict> conflicts) {
    boolean known = job.getStatus() != null && job.getStatus().conditions.stream()
        .anyMatch(c -> Conditions.CHILDREN_OWNED.equals(c.getType()) && "False".equals(c.getStatus()));
    if (!known) conflicts.forEach(c -> events.warning(job, StatusAggregator.NAME_CONFLICT, c.message()));
  }

  private void expireIfDue(TrainingJob job, Instant now) {
    Integer ttl = job.getSpec().ttlSecondsAfterFinished;
    String completed = job.getStatus() == null ? null : job.getStatus().completionTime;
    if (ttl == null || completed == null) return;
    if (!now.isBefore(Instant.parse(completed).plusSeconds(ttl))) {
      events.normal(job, "Expired", "Deleting the job " + ttl + "s after it finished (ttlSecondsAfterFinished)");
      client.resource(job).delete();
    }
  }

  /** How long a running world waits for its balancer to describe it in status.balancer before looking again. */
  static final Duration BALANCER_RECHECK = Duration.ofSeconds(5);
  /** How often a running job's status.balancer is read again once the balancer described its world. */
  static final Duration STRAGGLER_RECHECK = Duration.ofSeconds(30);
  /** While paused, a look at the annotation now and then, in case an event was missed. */
  static final Duration PAUSE_RECHECK = Duration.ofSeconds(60);

  /**
   * When to reconcile again: what the decision asks for, and while the balancer has not described the
   * running world yet, soon (status.balancer writes are no events: they leave metadata.generation alone).
   */
  private Duration requeueAfter(TrainingJob job, Decision decision, TrainingJobStatus next, Instant now) {
    Duration decided = decidedRequeue(job, decision, next, now);
    if (decision.step() instanceof WorldStep.Run run) {
      var state = BalancerHealth.of(job.getSpec(), run.world().generation(),
          job.getStatus() == null ? null : job.getStatus().balancer).state();
      // status.balancer changes (stragglers, a plan error) do not bump the generation, so they wake no reconcile
      Duration recheck = state == BalancerHealth.State.UNKNOWN ? BALANCER_RECHECK
          : state == BalancerHealth.State.NOT_WANTED ? null : STRAGGLER_RECHECK;
      if (recheck != null) return decided == null || decided.compareTo(recheck) > 0 ? recheck : decided;
    }
    return decided;
  }

  private Duration decidedRequeue(TrainingJob job, Decision decision, TrainingJobStatus next, Instant now) {
    WorldStep step = decision.step();
    if (step instanceof WorldStep.Place || step instanceof WorldStep.RollBack) {
      return Duration.ofSeconds(pendingRetrySeconds);
    }
    if (decision.wakeAt() != null) {
      Duration left = Duration.between(now, decision.wakeAt());
      return left.isNegative() || left.isZero() ? Duration.ofMillis(100) : left.plusMillis(500);
    }
    Integer ttl = job.getSpec().ttlSecondsAfterFinished;
    if (ttl != null && next.completionTime != null) {
      Duration left = Duration.between(now, Instant.parse(next.completionTime).plusSeconds(ttl));
      return left.isNegative() ? Duration.ofSeconds(1) : left.plusSeconds(1);
    }
    return null;
  }

  /**
   * Writes the operator's part of the status (server-side apply with the operator's field manager,
   * from a fresh object so that status.balancer stays the balancer's), or nothing when unchanged.
   */
  private UpdateControl<TrainingJob> writeStatus(TrainingJob job, TrainingJobStatus next, Duration requeue,
      Instant now) {
    StatusAggregator.reconciled(job, next, now);
    StatusAggregator.summarize(job, next, now);
    UpdateControl<TrainingJob> control;
    if (StatusChange.changed(job, next)) {
      control = UpdateControl.patchStatus(statusPatch(job, next));
    } else {
      control = UpdateControl.noUpdate();
    }
    return requeue == null ? control : control.rescheduleAfter(requeue);
  }

  private static TrainingJob statusPatch(TrainingJob job, TrainingJobStatus next) {
    TrainingJob patch = new TrainingJob();
    patch.setMetadata(new ObjectMetaBuilder().withName(job.getMetadata().getName())
        .withNamespace(job.getMetadata().getNamespace()).build());
    patch.setStatus(next);
    return patch;
  }

  /** One event per change of the Stragglers condition: who is flagged now, or that none is left. */
  private void stragglerEvents(TrainingJob job, TrainingJobStatus next) {
    Stragglers.Event e = Stragglers.event(job.getStatus() == null ? List.of() : job.getStatus().conditions,
        next.conditions);
    if (e == null) return;
    if (e.warning()) {
      events.warning(job, e.reason(), e.message());
    } else {
      events.normal(job, e.reason(), e.message());
    }
  }

  private boolean sameAdmissionMessage(TrainingJob job, String message) {
    return job.getStatus() != null && job.getStatus().conditions.stream()
        .anyMatch(c -> Conditions.ADMITTED.equals(c.getType()) && message.equals(c.getMessage()));
  }

  private static int restartsOf(TrainingJob job) {
    return job.getStatus() == null || job.getStatus().restarts == null ? 0 : job.getStatus().restarts;
  }

  private static String describe(World world) {
    StringBuilder sb = new StringBuilder();
    for (Seat s : world.seats()) {
      if (sb.length() > 0) sb.append(", ");
      sb.append("rank ").append(s.nodeRank()).append("→").append(s.node());
    }
    return sb.toString();
  }
}
